"""Experiment 4: the anatomy of LAUNCH (where the milliseconds of `docker run` go).

A ladder of rungs, each timed exactly like experiment 1 and interleaved round-robin: a process,
`unshare` with one more namespace per rung, `chroot`, the OCI runtime alone on a bundle (runc, runsc),
`docker/podman run` with and without network, the engine's phases apart and the warm pool; then the
chain of processes one `run` creates. Every share of the total that is a difference of two rungs is an
inference, computed round by round (the rungs share their rounds) with its interval.

rungs.py: the ladder and the bare rungs; phases.py: the engine rungs (run, phases, warm pool);
pod.py: the Kubernetes rungs (a Pod's apply → Ready and its phases, the cluster's memory bill);
chain.py: the process chain; measure.py: Config and run; analysis.py: summary, waterfall, network
share, published figures, the ladder's closing rows; pod_analysis.py: the Kubernetes rungs' figures and
the closing rows (the ladder's, then the Pod's); claims.py: three ideas about LAUNCH.
"""

from __future__ import annotations

from ..verdict import MIN_N
from .analysis import BASELINE  # noqa: F401
from .claims import SAID, claims  # noqa: F401
from .measure import EXPERIMENT, Config, provision, run  # noqa: F401
from .pod_analysis import closing_rows  # noqa: F401
from .rungs import METRIC, NEEDS_ROOT  # noqa: F401

TITLE = "Anatomía del arranque: ¿en qué se van los milisegundos de LAUNCH?"
NOTEBOOK = "04_anatomia_arranque"
# Quick profile: the rungs of the network and runtime verdicts, with the verdicts' minimum of repetitions
# (under a minute; the warm pool is left to the default run).
QUICK = {"REPETICIONES": MIN_N, "CALENTAMIENTO": 0, "PELDAÑOS": ["proceso", "runc", "motor"]}
READS = ("arranque",)  # «is Podman faster to start?» is decided in 01: cited, not re-judged
COMPARABLE = [METRIC]
CLASS_LABELS = {METRIC: "arranque"}  # its metrics and arms as the class comparison names them
DEBIAN_PACKAGES = ["runc", "util-linux", "coreutils"]
