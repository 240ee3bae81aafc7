"""Experiment 2: scaling to N idle containers (LAUNCH) and the whole memory bill (CAPACITY).

measure.py: Config and the run; probing.py: launching, inspecting and reading memory through the
engines; analysis.py: the bill, the crossover, the reference, closing rows; claims.py: the chapter's
claims.
"""

from __future__ import annotations

from .analysis import closing_rows  # noqa: F401
from .claims import SAID, claims  # noqa: F401
from .measure import EXPERIMENT, Config, run  # noqa: F401
from .summary import CHAPTER_SUMMARY  # noqa: F401

TITLE = "Escala: N contenedores y la factura completa de memoria"  # the notebook's H1 is «NN · TITLE» (tests/course/test_hygiene.py)
NOTEBOOK = "02_escala"
# The quick profile stays under a minute: too few repetitions for a verdict, and it says so.
QUICK = {"REPETICIONES": 2, "CANTIDADES": [0, 1, 3]}

READS = ("arranque", "anatomia")  # 01 decides «is Podman faster to start?»; 04 measures the network's share
# What the class comparison may set side by side (as Podman/Docker): launch per container and the memory of
# each container and of its helper. Totals grow with N and fixed RSS with the host's libraries: left out.
COMPARABLE = ["lanzamiento_por_contenedor", "memoria_cgroup_por_contenedor", "memoria_stats_por_contenedor"]
CLASS_LABELS = {
    "lanzamiento_por_contenedor": "lanzamiento por contenedor",
    "memoria_cgroup_por_contenedor": "memoria por contenedor (cgroup)",
    "memoria_stats_por_contenedor": "memoria por contenedor (docker stats)",
}  # its metrics and arms as the class comparison names them
