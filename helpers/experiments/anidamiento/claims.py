"""Four claims on nesting (claims.toml): three of the course repository's «experiment 4», quoted by issue
14 (data/reference/anidamiento.csv), level 2 over level 1 paired by round, the cause decided by notebook
05's claim «anidamiento» (READS); and the chapter's «En Podman, se necesita --privileged»."""

from __future__ import annotations

import sys

import pandas as pd

from .. import declared, load, read_claim
from .. import figures as fg
from .. import verdict as vd

# The repository's medians, level 2 over level 1 per engine (a test recomputes each from its `ref`).
CLAIMED = {"arranque_docker": 340 / 315, "arranque_podman": 241 / 166}
CLAIMED |= {"cpu_docker": 0.581 / 0.536, "cpu_podman": 0.698 / 0.563}


def ladder_observed(df: pd.DataFrame, meta: dict | None) -> list[bool]:
    """One observation per climb of the ladder (the first, shown step by step, and the repeated ones):
    did every step without --privileged fail? Empty when the ladder was not climbed."""
    nested = (meta or {}).get("anidamiento") or {}
    first = nested.get("intentos_sin_privilegios") or []
    climbs = [first, *(nested.get("escaleras_repetidas") or [])] if first else []
    return [not any(a.get("ok") for a in climb) for climb in climbs]


def syscall_figure(said: vd.Said, df: pd.DataFrame, meta: dict | None) -> vd.Claim:
    return syscall_claim()


SAID = declared.read(__package__, globals()).said
START_ADDITIVE = {dict(s.figure.detail)["engine"]: s for s in SAID if s.key == "arranque_aditivo"}
CPU_ACCUMULATES = {dict(s.figure.detail)["engine"]: s for s in SAID if s.key == "cpu_acumula"}
SYSCALL_CAUSE, NEEDS_PRIVILEGED = SAID[-2:]
SYSCALL_CAUSE_MISSING = SYSCALL_CAUSE.but(
    note="Falta la medición por llamada al sistema de namespaces de PID "
    "anidados: ejecuta el cuaderno 05_llamadas_sistema y vuelve a este."
)


def syscall_claim() -> vd.Claim:
    """Judged on notebook 05's claim «anidamiento»: its figure, interval, margin and n (rounds if 05's)."""
    try:
        theirs = read_claim(sys.modules[__package__], "llamadas", "anidamiento")
    except Exception:  # noqa: BLE001 - another notebook's data must never break this one
        theirs = None
    if theirs is None or theirs.status == vd.SIN_DATOS:
        return vd.missing(SYSCALL_CAUSE_MISSING)
    region = None if theirs.kind else tuple(theirs.region)
    said = SYSCALL_CAUSE.but(
        kind=theirs.kind, claimed=theirs.claimed, bounds=theirs.bounds, region=region, unit=theirs.unit
    )
    counted = {"rondas": True} if theirs.detail.get("rondas") else None
    claim = vd.judge(said, theirs.estimate, unstable=theirs.status == vd.INESTABLE, detail=counted)
    return load.carried(claim, theirs)


claims = fg.judging(SAID)
