"""Experiment 1: startup latency (LAUNCH) of `echo ok` on bare metal, Docker and Podman.

measure.py: the arms and how they run; analysis.py: summaries, the reference, closing rows;
claims.py: the chapter's claims on startup.
"""

from __future__ import annotations

from .analysis import (  # noqa: F401
    arm_values,
    closing_rows,
    compare,
    pair_ratio,
    summarize,
    unstable_arms,
    with_roles,
)
from .claims import SAID, claims  # noqa: F401
from .measure import BARE_VARIANTS, CONTAINER_VARIANT, METRIC, Arm, Config, plan, run  # noqa: F401

EXPERIMENT = "arranque"
TITLE = "Experimento 1: arranque de «echo ok»"
NOTEBOOK = "01_arranque"
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0}
BASELINE = ("bare", "proceso")
COMPARABLE = [METRIC]  # ratios (x bare metal, Podman/Docker) of the launch time travel across machines
READS = ("escala", "anatomia")  # 01 and 02 answer the same question; 04 measures the network's share
