"""The chapter's claims on startup (claims.toml), judged on `run --rm` with the default network, arms
paired by round; `podman_mas_rapido` answers «is Podman faster to start?» for the whole course."""

from __future__ import annotations

import pandas as pd

from .. import declared
from ..figures import Ratio, Sel, judging
from ..verdict import Said
from .analysis import setup_note, spread_note
from .measure import CONTAINER_VARIANT, METRIC

# The chapter's table «Medianas y multiplicadores» (ms): median, q1, q3 (a test ties them to its raw rows).
TABLE = {("docker", "ubuntu"): (427.6, 373.5, 460.4), ("docker", "alpine"): (429.8, 363.5, 451.2)}
TABLE |= {("podman", "ubuntu"): (212.7, 180.8, 265.2), ("podman", "alpine"): (193.3, 175.3, 230.9)}
ROLES = ("ubuntu", "alpine")
FACTOR = {"ubuntu": 2, "alpine": 2.2}  # «~2x más rápido», per image in its «Tabla resumen»


def ratio(a, b, what: str, **options) -> Ratio:
    """a / b of two (engine, role) arms; detail names the role (or engine) they share and the ratio."""
    a_sel, b_sel = (Sel(engine=e, role=r, variant=CONTAINER_VARIANT, metric=METRIC) for e, r in (a, b))
    shared = {"role": a[1]} if a[1] == b[1] else {"engine": a[0]}
    return Ratio(a_sel, b_sel, detail={**shared, "ratio": what}, **options)


def spread(engine: str, role: str) -> float:
    """IQR/median in the chapter's table."""
    median, q1, q3 = TABLE[(engine, role)]
    return (q3 - q1) / median


CLAIMED = {f"mas_rapido_{r}": TABLE[("podman", r)][0] / TABLE[("docker", r)][0] for r in ROLES}
CLAIMED |= {f"2x_{r}": 1 / FACTOR[r] for r in ROLES} | {
    f"iqr_{r}": spread("podman", r) / spread("docker", r) for r in ROLES
}
CLAIMED["alpine_ubuntu"] = TABLE[("podman", "ubuntu")][0] / TABLE[("podman", "alpine")][0]
SAID = declared.read(__package__, globals()).said
PODMAN_2X = {dict(s.figure.detail)["role"]: s for s in SAID if s.key == "podman_2x"}


def noted(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The run's own note (analysis.py words it): its setup, for the daemonless path; its spreads and
    storage beside the chapter's table, for the wider IQR."""
    if said.key == "podman_mas_rapido":
        return said.but(note=setup_note(meta))
    if said.key != "podman_iqr_amplio":
        return said
    role = dict(said.figure.detail)["role"]
    return said.but(note=spread_note(df, meta, role, {e: TABLE[(e, role)] for e in ("podman", "docker")}))


claims = judging(SAID, adapt=noted)
