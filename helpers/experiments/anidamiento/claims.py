"""The chapter's four claims on nesting, declared once and judged by the builders of the verdict module.

- arranque_aditivo (per engine): a nested start costs a moderate, additive overhead over level 1;
- cpu_acumula (per engine): the CPU overhead accumulates with each level;
- causa_syscalls: the cause is a namespace walk per system call — notebook 05 (llamadas) measured
  nested PID namespaces, and its claim «anidamiento» decides this one (READS);
- pip_necesita_privileged: Podman inside Podman without --privileged fails (a deterministic outcome:
  it holds when every step of the ladder failed).
"""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from .. import anidamiento as this
from .. import read_claim
from ..verdict import INESTABLE, SIN_DATOS, Claim, Said, estimate, missing, outcome, ratio
from .analysis import arm_values
from .levels import METRIC_START_INNER, METRIC_WORK, PRIV, SOURCE

# The chapter's experiment-4 medians (data/reference/anidamiento.csv), for the claims' stated values.
CHAPTER_START_L2_OVER_L1 = {"docker": 340 / 315, "podman": 241 / 166}
CHAPTER_CPU_L2_OVER_L1 = {"docker": 0.581 / 0.536, "podman": 0.698 / 0.563}
MODERATE = (1.0, 1.5)  # "moderate": a nested start costs at most +50 % over level 1 (kind «range»)
START_SAID = {"docker": "+8 %", "podman": "+45 %"}
CPU_SAID = {"docker": "+15 % → +24 %", "podman": "+21 % → +49 %"}

START_ADDITIVE = {
    engine: Said(
        "arranque_aditivo",
        f"Anidar suma una sobrecarga de arranque moderada y aditiva ({d} dentro de {d}: "
        f"{START_SAID[engine]} sobre el nivel 1).",
        SOURCE,
        claimed=CHAPTER_START_L2_OVER_L1[engine],
        kind="range",
        bounds=MODERATE,
        quantity=f"nivel 2 / nivel 1, arranque del `run` de dentro ({d} en {d})",
        unit="x",
    )
    for engine, d in ((e, eng.DISPLAY[e]) for e in eng.CONTAINER_ENGINES)
}
CPU_ACCUMULATES = {
    engine: Said(
        "cpu_acumula",
        f"La sobrecarga de CPU se acumula con cada nivel ({d}: {CPU_SAID[engine]} sobre bare metal).",
        SOURCE,
        claimed=CHAPTER_CPU_L2_OVER_L1[engine],
        kind="adds",
        quantity=f"nivel 2 / nivel 1, trabajo de CPU medido dentro ({d} en {d})",
        unit="x",
    )
    for engine, d in ((e, eng.DISPLAY[e]) for e in eng.CONTAINER_ENGINES)
}
# Its figure, unit and margin are those of notebook 05's claim «anidamiento», which decides it.
SYSCALL_CAUSE = Said(
    "causa_syscalls",
    "La causa es que cada nivel añade un recorrido de namespaces a cada llamada al sistema.",
    SOURCE,
    quantity="el costo de cada nivel de namespaces de PID anidados por llamada al sistema",
    note="Lo decide el cuaderno 05 (05_llamadas_sistema), que midió namespaces de PID anidados.",
)
SYSCALL_CAUSE_MISSING = SYSCALL_CAUSE.but(
    note="Falta la medición por llamada al sistema de namespaces de PID anidados: ejecuta el cuaderno "
    "05_llamadas_sistema y vuelve a este."
)
LLAMADAS_KEY = "anidamiento"  # notebook 05's claim «each nesting level of PID namespaces adds cost»
NEEDS_PRIVILEGED = Said(
    "pip_necesita_privileged",
    "Podman dentro de Podman sin --privileged falla (mount proc: Operation not permitted).",
    SOURCE,
    kind="observed",
    quantity="todos los pasos sin --privileged fallan",
    note="Se sostiene solo si falla cada paso de la escalera (la tabla «paso a paso», arriba); uno que "
    "funcione basta para refutarla.",
)


SAID = (*START_ADDITIVE.values(), *CPU_ACCUMULATES.values(), SYSCALL_CAUSE, NEEDS_PRIVILEGED)


def _level_ratio(said: Said, df: pd.DataFrame, engine: str, metric: str) -> Claim:
    """Level 2 (--privileged) over level 1 of one engine, by the one rule."""
    nested = arm_values(df, engine, PRIV, metric)
    level1 = arm_values(df, engine, "nivel1", metric)
    return ratio(said, nested, level1, detail={"engine": engine})


def syscall_claim() -> Claim:
    """Judged on notebook 05's claim «anidamiento» (its figure, interval, margin and n)."""
    try:
        theirs = read_claim(this, "llamadas", LLAMADAS_KEY)
    except Exception:  # noqa: BLE001 - another notebook's data must never break this one
        theirs = None
    if theirs is None or theirs.status == SIN_DATOS:
        return missing(SYSCALL_CAUSE_MISSING)
    kind = getattr(theirs, "kind", "")
    said = SYSCALL_CAUSE.but(
        kind=kind,
        claimed=theirs.claimed,
        bounds=getattr(theirs, "bounds", None),
        region=None if kind else tuple(theirs.region),
        unit=theirs.unit,
    )
    return estimate(
        said, theirs.value, theirs.low, theirs.high, n=theirs.n, unstable=theirs.status == INESTABLE
    )


def privileged_claim(meta: dict | None) -> Claim:
    """Observed once per run: did every step of the ladder without --privileged fail?"""
    attempts = ((meta or {}).get("anidamiento") or {}).get("intentos_sin_privilegios") or []
    if not attempts:
        return missing(NEEDS_PRIVILEGED)
    return outcome(NEEDS_PRIVILEGED, [not any(a.get("ok") for a in attempts)])


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The chapter's four claims on nesting, each decided by the one verdict rule."""
    out = [_level_ratio(START_ADDITIVE[e], df, e, METRIC_START_INNER) for e in eng.CONTAINER_ENGINES]
    out += [_level_ratio(CPU_ACCUMULATES[e], df, e, METRIC_WORK) for e in eng.CONTAINER_ENGINES]
    out.append(syscall_claim())
    out.append(privileged_claim(meta))
    return out
