"""Four claims on nesting: three of the course repository's «experiment 4», quoted by issue 14
(data/reference/anidamiento.csv, `source = fdd_p26`), level 2 (--privileged) over level 1 of each engine
paired by round, the cause decided by notebook 05's claim «anidamiento» (READS); and the chapter's «En
Podman, se necesita --privileged»."""

from __future__ import annotations

import sys
from functools import partial

import pandas as pd

from ... import engines as eng
from .. import load, read_claim
from .. import verdict as vd
from ..figures import Custom, Outcome, Ratio, Sel, judging
from .levels import (
    CHAPTER_NOTE,
    METRIC_START,
    METRIC_WORK,
    METRIC_WORK_E2E,
    PRIV,
    REFERENCE_SOURCE,
    REPO_FILE,
    REPO_MOUNT_PROC,
    SOURCE_CHAPTER,
    SOURCE_REPO,
)

ENGINES = ("docker", "podman")
# The repository's medians, level 2 over level 1 per engine (a test recomputes each from its `ref`), and
# the words it gives them.
START = {"docker": (340 / 315, "+8 %"), "podman": (241 / 166, "+45 %")}
CPU = {"docker": (0.581 / 0.536, "+15 % → +24 %"), "podman": (0.698 / 0.563, "+21 % → +49 %")}


def level2_over_level1(metric: str, engine: str) -> Ratio:
    """Level 2 (--privileged) over level 1 of one engine's `metric`, paired by round."""
    arms = (Sel(metric=metric, engine=engine, variant=v) for v in (PRIV, "nivel1"))
    return Ratio(*arms, detail={"engine": engine})


def in_repository(metric: str, engine: str) -> vd.Ref:
    """The repository's figure of `metric`, level 2 over level 1 of one engine."""
    return vd.ref(
        source=REFERENCE_SOURCE, metric=metric, engine=engine, variant=PRIV, over={"variant": "nivel1"}
    )


def ladder_observed(df: pd.DataFrame, meta: dict | None) -> list[bool]:
    """One observation per climb of the ladder (the first, shown step by step, and the repeated ones):
    did every step without --privileged fail? Empty when the ladder was not climbed."""
    nested = (meta or {}).get("anidamiento") or {}
    first = nested.get("intentos_sin_privilegios") or []
    climbs = [first, *(nested.get("escaleras_repetidas") or [])] if first else []
    return [not any(a.get("ok") for a in climb) for climb in climbs]


def syscall_figure(said: vd.Said, df: pd.DataFrame, meta: dict | None) -> vd.Claim:
    return syscall_claim()


repo = partial(vd.Said, source=SOURCE_REPO, unit="x")
START_ADDITIVE = {
    e: repo(
        "arranque_aditivo",
        f"Anidar suma una sobrecarga de arranque moderada y aditiva ({eng.DISPLAY[e]} dentro de {eng.DISPLAY[e]}: {START[e][1]} sobre el nivel 1).",
        where=f"{REPO_FILE} según el issue 14, tabla de medianas, arranque",
        quantity=f"nivel 2 / nivel 1, arranque cronometrado desde el host, con los `exec` ({eng.DISPLAY[e]} en {eng.DISPLAY[e]})",
        note="Se juzga la cifra que da el repositorio para su «moderada» como lo que es, un efecto en porcentaje, con el margen de «un p % más» de la tabla de márgenes; la columna «¿coincide?» de la comparación cita este veredicto.",
        claimed=START[e][0],
        kind="percent_about",
        ref=in_repository(METRIC_START, e),
        figure=level2_over_level1(METRIC_START, e),
    )
    for e in ENGINES
}
# The claim speaks of CPU, that is of RUNNING: judged on the work timed inside; the repository's figure is
# the work launched «por exec» (its ref).
CPU_ACCUMULATES = {
    e: repo(
        "cpu_acumula",
        f"La sobrecarga de CPU se acumula con cada nivel ({eng.DISPLAY[e]}: {CPU[e][1]} sobre bare metal).",
        where=f"{REPO_FILE} según el issue 14, tabla de medianas, trabajo de CPU por exec",
        quantity=f"nivel 2 / nivel 1, trabajo de CPU cronometrado dentro, sin el `exec` ({eng.DISPLAY[e]} en {eng.DISPLAY[e]})",
        kind="adds",
        note="La cifra que cita el issue 14 es el trabajo lanzado «por exec»; su método no se publica, y los guiones del repositorio cronometran desde el host, con el `exec` (LAUNCH) dentro. La afirmación habla de CPU, es decir de RUNNING: se juzga con el trabajo cronometrado dentro del contenedor. La lectura con el `exec` está en la tabla de niveles y en la comparación.",
        claimed=CPU[e][0],
        ref=in_repository(METRIC_WORK_E2E, e),
        figure=level2_over_level1(METRIC_WORK, e),
    )
    for e in ENGINES
}
SYSCALL_CAUSE = repo(
    "causa_syscalls",
    "La causa es que cada nivel añade un recorrido de namespaces a cada llamada al sistema.",
    where=f"{REPO_FILE} según el issue 14, conclusiones",
    quantity="el costo de cada nivel de namespaces de PID anidados por llamada al sistema",
    note="Lo decide el cuaderno 05 (05_llamadas_sistema), que midió namespaces de PID anidados.",
    figure=Custom(syscall_figure),
)
NEEDS_PRIVILEGED = repo(
    "pip_necesita_privileged",
    "Para anidar contenedores con Podman hace falta --privileged.",
    source=SOURCE_CHAPTER,
    where=CHAPTER_NOTE,
    kind="observed",
    quantity="que falle cada paso sin --privileged de Podman dentro de Podman",
    note=f"La escalera (la tabla «paso a paso», arriba) se sube {vd.MIN_OBSERVED} veces: se sostiene solo si en cada subida falla cada paso, y no se sostiene si en cada una funciona alguno. El error «mount proc: Operation not permitted» no es del capítulo: lo registró {REPO_MOUNT_PROC}, en Podman dentro de Podman sin --privileged.",
    figure=Outcome(ladder_observed),
)
SAID = (*START_ADDITIVE.values(), *CPU_ACCUMULATES.values(), SYSCALL_CAUSE, NEEDS_PRIVILEGED)
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


claims = judging(SAID)
