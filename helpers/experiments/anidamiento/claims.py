"""Four claims on nesting, declared once as their sources said them and judged on its figure by the
one rule (verdict.judge_all). Three come from the course repository the chapter grew from (its experiment 4, whose
figures are data/reference/anidamiento.csv, `source = fdd_p26`); the fourth is the chapter's closing note:

- arranque_aditivo (per engine, repository): a nested start costs a moderate, additive overhead over
  level 1 (+8 % Docker in Docker, +45 % Podman in Podman);
- cpu_acumula (per engine, repository): the CPU overhead accumulates with each level;
- causa_syscalls (repository): the cause is a namespace walk per system call — notebook 05 (llamadas)
  measured nested PID namespaces, and its claim «anidamiento» decides this one (READS);
- pip_necesita_privileged (the chapter's note: «En Podman, se necesita --privileged»): Podman inside
  Podman without --privileged fails (a deterministic outcome: it holds when every step of the ladder
  failed); the `mount proc` error it ran into is the repository's.

Both are judged in the source's form (timed from the host, the `exec`s inside); the view shows the inner
readings beside them. Level 2 and level 1 are measured in the same rounds: their ratio is paired by round (Series by `rep`).
"""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from .. import anidamiento as this
from .. import read_claim
from ..verdict import (
    INESTABLE,
    SIN_DATOS,
    Claim,
    Custom,
    Outcome,
    Ratio,
    Said,
    Sel,
    judge,
    judge_all,
    missing,
    ref,
)
from .analysis import arm_values
from .levels import (
    CHAPTER_NOTE,
    METRIC_START,
    METRIC_WORK_E2E,
    PRIV,
    REFERENCE_SOURCE,
    REPO_FILE,
    SOURCE_CHAPTER,
    SOURCE_REPO,
)

# The repository's experiment-4 medians (data/reference/anidamiento.csv), for the claims' stated values
# (a test recomputes each from its `ref`).
REPO_START_L2_OVER_L1 = {"docker": 340 / 315, "podman": 241 / 166}
REPO_CPU_L2_OVER_L1 = {"docker": 0.581 / 0.536, "podman": 0.698 / 0.563}
WHERE_TABLE = f"{REPO_FILE}, tabla de medianas"
# Judged in the source's form: timed around the whole command from the host (its `exec`s inside), as the
# rest of the chapter's scripts do; the inner readings (the `run` alone, the work alone) are shown beside.
SOURCE_START, SOURCE_WORK = METRIC_START, METRIC_WORK_E2E
WHERE_PROSE = f"{REPO_FILE}, conclusiones"
MODERATE = (1.0, 1.5)  # "moderate": a nested start costs at most +50 % over level 1 (kind «range»)
START_SAID = {"docker": "+8 %", "podman": "+45 %"}
CPU_SAID = {"docker": "+15 % → +24 %", "podman": "+21 % → +49 %"}


def _level_ratio(engine: str, metric: str) -> Ratio:
    """Level 2 (--privileged) over level 1 of one engine, paired by round."""
    nested, level1 = (Sel(engine=engine, variant=v, metric=metric) for v in (PRIV, "nivel1"))
    return Ratio(nested, level1, detail={"engine": engine})


START_ADDITIVE = {
    engine: Said(
        "arranque_aditivo",
        f"Anidar suma una sobrecarga de arranque moderada y aditiva ({d} dentro de {d}: "
        f"{START_SAID[engine]} sobre el nivel 1).",
        SOURCE_REPO,
        where=f"{WHERE_TABLE}, arranque",
        claimed=REPO_START_L2_OVER_L1[engine],
        kind="range",
        bounds=MODERATE,
        quantity=f"nivel 2 / nivel 1, arranque cronometrado desde el host, con los `exec` ({d} en {d})",
        unit="x",
        note="«Moderada» se lee aquí como de 1× a 1.5× el nivel 1.",
        ref=ref(
            source=REFERENCE_SOURCE,
            metric="arranque",
            engine=engine,
            variant=PRIV,
            over={"variant": "nivel1"},
        ),
        figure=_level_ratio(engine, SOURCE_START),
    )
    for engine, d in ((e, eng.DISPLAY[e]) for e in eng.CONTAINER_ENGINES)
}
CPU_ACCUMULATES = {
    engine: Said(
        "cpu_acumula",
        f"La sobrecarga de CPU se acumula con cada nivel ({d}: {CPU_SAID[engine]} sobre bare metal).",
        SOURCE_REPO,
        where=f"{WHERE_TABLE}, trabajo de CPU por exec",
        claimed=REPO_CPU_L2_OVER_L1[engine],
        kind="adds",
        quantity=f"nivel 2 / nivel 1, trabajo de CPU por `exec` cronometrado desde el host ({d} en {d})",
        unit="x",
        ref=ref(
            source=REFERENCE_SOURCE,
            metric="trabajo_extremo",
            engine=engine,
            variant=PRIV,
            over={"variant": "nivel1"},
        ),
        figure=_level_ratio(engine, SOURCE_WORK),
    )
    for engine, d in ((e, eng.DISPLAY[e]) for e in eng.CONTAINER_ENGINES)
}
# Its figure, unit and margin are those of notebook 05's claim «anidamiento», which decides it.
SYSCALL_CAUSE = Said(
    "causa_syscalls",
    "La causa es que cada nivel añade un recorrido de namespaces a cada llamada al sistema.",
    SOURCE_REPO,
    where=WHERE_PROSE,
    quantity="el costo de cada nivel de namespaces de PID anidados por llamada al sistema",
    note="Lo decide el cuaderno 05 (05_llamadas_sistema), que midió namespaces de PID anidados.",
    figure=Custom(lambda said, df, meta: syscall_claim()),
)
SYSCALL_CAUSE_MISSING = SYSCALL_CAUSE.but(
    note="Falta la medición por llamada al sistema de namespaces de PID anidados: ejecuta el cuaderno "
    "05_llamadas_sistema y vuelve a este."
)
LLAMADAS_KEY = "anidamiento"  # notebook 05's claim «each nesting level of PID namespaces adds cost»
NEEDS_PRIVILEGED = Said(
    "pip_necesita_privileged",
    "Para anidar contenedores con Podman hace falta --privileged.",
    SOURCE_CHAPTER,
    where=CHAPTER_NOTE,
    kind="observed",
    quantity="que falle cada paso sin --privileged de Podman dentro de Podman",
    note="Se sostiene solo si falla cada paso de la escalera (la tabla «paso a paso», arriba); uno que "
    "funcione basta para refutarla. El error «mount proc: Operation not permitted» lo registró el "
    "experimento 4 del repositorio del capítulo, no el capítulo.",
    figure=Outcome(lambda df, meta: _without_privileged(meta)),
)


SAID = (*START_ADDITIVE.values(), *CPU_ACCUMULATES.values(), SYSCALL_CAUSE, NEEDS_PRIVILEGED)


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
    # n counts what 05 counted (its rounds, when its figure was computed round by round)
    counted = {"rondas": True} if (getattr(theirs, "detail", None) or {}).get("rondas") else None
    return judge(said, theirs.estimate, unstable=theirs.status == INESTABLE, detail=counted)


def _without_privileged(meta: dict | None) -> list[bool]:
    """Observed once per run: did every step of the ladder without --privileged fail? (none: no run)"""
    attempts = ((meta or {}).get("anidamiento") or {}).get("intentos_sin_privilegios") or []
    return [not any(a.get("ok") for a in attempts)] if attempts else []


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The chapter's four claims on nesting, each decided by the one verdict rule."""
    return judge_all(SAID, df, meta, pick=lambda df, meta, sel: arm_values(df, **dict(sel.where)))
