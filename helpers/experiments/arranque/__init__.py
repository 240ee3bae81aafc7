"""Experiment 1: startup latency (LAUNCH) of `echo ok` on bare metal, Docker and Podman.

measure.py: the arms and how they run; analysis.py: summaries, the reference, closing rows;
claims.py: the chapter's claims on startup.
"""

from __future__ import annotations

from ..verdict import MIN_N
from .analysis import BASELINE, closing_rows  # noqa: F401
from .claims import SAID, claims  # noqa: F401
from .measure import EXPERIMENT, METRIC, Config, run  # noqa: F401
from .stopwatch import side_by_side  # noqa: F401
from .summary import CHAPTER_SUMMARY  # noqa: F401

TITLE = "Arranque: el costo de LAUNCH"  # the notebook's H1 is «NN · TITLE» (tests/course/test_hygiene.py)
NOTEBOOK = "01_arranque"
# The quick profile reaches the verdicts' minimum in well under a minute: the chapter's conditions only
QUICK = {"REPETICIONES": max(MIN_N, 2), "CALENTAMIENTO": 1, "REDES": ["por_defecto"]}
COMPARABLE = [METRIC]  # ratios (x bare metal, Podman/Docker) of the launch time travel across machines
CLASS_LABELS = {
    METRIC: "arranque",
    "metodo_semilla": "método del capítulo",
    "por_defecto": "por defecto",
    "proceso": "proceso real",
}  # its metrics and arms as the class comparison names them
READS = ("anatomia",)  # 04 measures where the launch goes (its network's share)
