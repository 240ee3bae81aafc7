"""Experiment 7: containers inside containers (anidamiento) — what nesting costs and what it gives away.

Arms (engine = the engine on the host; variant = the level and how it was opened):
- `nivel0`: bare metal. Startup: `echo ok` as a real process. CPU: a chroot into the busybox image's
  exported root filesystem (the same busybox binary the containers run, without namespaces).
- `nivel1`: a container of the host's Docker or Podman.
- `nivel2`: an engine of the same kind inside an outer container started with `--privileged` (the
  chapter's pattern). Where the host itself cannot grant every capability (this machine has no
  CAP_SYS_RESOURCE, so Docker's `--privileged` fails), Docker-in-Docker falls back to every capability
  the host has plus unconfined seccomp and /proc, /sys; meta.json says so.
- `nivel2_sin_privilegios`: Podman inside Podman without `--privileged`, with the narrowest set of
  relaxations found by a ladder of attempts (each attempt's error is kept, explained in Spanish).
- `nivel3`: one more level inside the level-2 container.

The socket-mount pattern is explained in the notebook and never run: no container gets the host
engine's socket.

levels.py: the shared names; measure.py: Config, the arms and run(); build.py: the level-2 images
(`provision`); ladder.py: how a level-2 container is opened (with or without --privileged);
chains.py: the containers of one arm (helpers.engines.nested drives them); footprint.py: an inner
engine's memory and disk; analysis.py: summaries, ratios per level, the reference, closing rows;
claims.py: the chapter's claims.
"""

from __future__ import annotations

from ...engines.rootfs import CHROOT_WHAT
from .analysis import closing_rows  # noqa: F401
from .build import NESTED_WHAT, provision  # noqa: F401
from .claims import SAID, claims  # noqa: F401
from .levels import EXPERIMENT, TIMED  # noqa: F401
from .measure import Config, run  # noqa: F401

TITLE = "Anidamiento: contenedores dentro de contenedores"  # the notebook's H1 is «NN · TITLE» (tests/course/test_hygiene.py)
NOTEBOOK = "07_anidamiento"
BASELINE = ("bare", "nivel0")
# Quick profile: Podman only (no inner Docker daemon to start), levels 1 and 2, the ladder without
# --privileged; 2 repetitions, below the verdicts' minimum: the page says it shows figures without verdicts.
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0, "NIVELES": [1, 2], "MOTORES": ["podman"], "TAMAÑO_MIB": 8}
DEBIAN_PACKAGES = ["mmdebstrap"]  # builds the level-2 images (provision)
COMPARABLE = list(TIMED)  # not the one-off memory/disk reads
CLASS_LABELS = {
    "arranque": "arranque",
    "arranque_interior": "arranque dentro",
    "trabajo": "solo el trabajo",
    "trabajo_extremo": "trabajo de extremo a extremo",
    "nivel0": "nivel 0 (host)",
    "nivel1": "nivel 1",
    "nivel2": "nivel 2",
    "nivel3": "nivel 3",
}  # its metrics and arms as the class comparison names them
NEEDS_ROOT = {"anidados": NESTED_WHAT, "chroot": CHROOT_WHAT}  # listed in notebook 00
# notebook 05's claim on nested PID namespaces decides «causa_syscalls»; notebook 04's `run --network none`
# is set beside this notebook's level 1 (the same command, other conditions)
READS = ("llamadas", "anatomia")
