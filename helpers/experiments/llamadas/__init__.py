"""Experiment 5: what isolation costs per system call (the document «Benchmark 01: Namespace Syscall
Overhead»), with gVisor as a third kind of container.

probe.py: the probe (`probes/llamadas`), its arguments and output; arms.py: the arms (host, PID
namespaces alone and nested, containers with and without seccomp, gVisor, and the repository's Test C,
`nsenter` into a container) and how the probe gets into each; measure.py: Config and the run; analysis.py: summaries, decomposition, nesting, the document,
closing rows; claims.py: the document's claims.
"""

from __future__ import annotations

from .analysis import BASELINE, closing_rows, published_ratios  # noqa: F401 - clase.compare reads published_ratios
from .claims import SAID, claims  # noqa: F401
from .measure import DEBIAN_PACKAGES, EXPERIMENT, NEEDS_ROOT, Config, estimated_seconds, provision, run  # noqa: F401

TITLE = "Llamadas al sistema: lo que cuesta cada capa de aislamiento"
NOTEBOOK = "05_llamadas_sistema"
QUICK = {  # verdict.MIN_N rounds; getpid and the vDSO call only
    "LLAMADAS": 20_000,
    "REPETICIONES": 6,
    "CALENTAMIENTO": 0,
    "OPERACIONES": ["getpid", "clock_gettime"],
    "NSENTER": 10,
}
READS = ("ejecucion",)  # the cost of `exec true` (experiment 3), beside «exec_1_9ms» and Test C
COMPARABLE = ["getpid"]  # the class comparison puts this metric's ratios (x host) side by side
CLASS_LABELS = {
    "getpid": "getpid",
    "host": "en el host",
    "seccomp": "con seccomp",
    "sin_seccomp": "sin seccomp",
    "gvisor": "con gVisor",
}  # its metrics and arms as the class comparison names them
