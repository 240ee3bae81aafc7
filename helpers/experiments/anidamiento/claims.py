"""Four claims on nesting. Three are the course repository's «experiment 4», second-hand: issue 14 of the
course quotes them (its figures are data/reference/anidamiento.csv, `source = fdd_p26`), level 2 over
level 1 paired by round: startup as it was probably timed (from the host, around the `exec`s), CPU work
timed inside (its figure was work «by exec», and the claim is on RUNNING); the cause it gives is decided
by notebook 05's claim «anidamiento» (READS). The fourth is the chapter's note «En Podman, se necesita
--privileged»: it holds when every step of the ladder without it failed."""

from __future__ import annotations

import sys
from functools import partial

import pandas as pd

from ... import engines as eng
from .. import figures as fg
from .. import load, read_claim
from .. import verdict as vd
from . import levels as lv


def level2(
    said: vd.Said,
    metric: str,
    engine: str,
    claimed: float,
    words: str,
    judged_on: str | None = None,
    **changes,
) -> vd.Said:
    """A claim on level 2 (--privileged) over level 1 of one engine, worded for it: the repository's figure
    of `metric`, judged on this run's `judged_on` (the same metric unless that one mixes in another cost)."""
    d, at = eng.DISPLAY[engine], {"metric": metric, "engine": engine, "variant": lv.PRIV}
    here = {**at, "metric": judged_on or metric}
    return said.but(
        statement=said.statement.format(d=d, words=words),
        quantity=f"nivel 2 / nivel 1, {said.quantity} ({d} en {d})",
        claimed=claimed,
        ref=vd.ref(source=lv.REFERENCE_SOURCE, **at, over={"variant": "nivel1"}),
        figure=fg.Ratio(fg.Sel(**here), fg.Sel(**{**here, "variant": "nivel1"}), detail={"engine": engine}),
        **changes,
    )


repo = partial(vd.Said, source=lv.SOURCE_REPO, unit="x")
START = repo(
    "arranque_aditivo",
    "Anidar suma una sobrecarga de arranque moderada y aditiva ({d} dentro de {d}: {words} sobre el nivel "
    "1).",
    where=f"{lv.REPO_FILE} según el issue 14, tabla de medianas, arranque",
    quantity="arranque cronometrado desde el host, con los `exec`",
    note="Se juzga la cifra que da el repositorio para su «moderada», con el margen de «~» de la tabla de "
    "márgenes: la misma lectura que la columna «¿coincide?» de la comparación.",
)
CPU = repo(
    "cpu_acumula",
    "La sobrecarga de CPU se acumula con cada nivel ({d}: {words} sobre bare metal).",
    where=f"{lv.REPO_FILE} según el issue 14, tabla de medianas, trabajo de CPU por exec",
    quantity="trabajo de CPU cronometrado dentro, sin el `exec`",
    kind="adds",
    note="La cifra que cita el issue 14 es el trabajo lanzado «por exec»; su método no se publica, y los guiones "
    "del repositorio cronometran desde el host, con el `exec` (LAUNCH) dentro. La afirmación habla de CPU, es "
    "decir de RUNNING: se juzga con el trabajo cronometrado dentro del contenedor. La lectura con el `exec` "
    "está en la tabla de niveles y en la comparación.",
)
# Per engine, the repository's medians (a test recomputes each from its `ref`) and its words.
START_ADDITIVE = {
    e: level2(START, lv.METRIC_START, e, c, w, kind="about")
    for e, c, w in (("docker", 340 / 315, "+8 %"), ("podman", 241 / 166, "+45 %"))
}
CPU_ACCUMULATES = {
    e: level2(CPU, lv.METRIC_WORK_E2E, e, c, w, judged_on=lv.METRIC_WORK)
    for e, c, w in (("docker", 0.581 / 0.536, "+15 % → +24 %"), ("podman", 0.698 / 0.563, "+21 % → +49 %"))
}
SYSCALL_CAUSE = repo(
    "causa_syscalls",
    "La causa es que cada nivel añade un recorrido de namespaces a cada llamada al sistema.",
    where=f"{lv.REPO_FILE} según el issue 14, conclusiones",
    quantity="el costo de cada nivel de namespaces de PID anidados por llamada al sistema",
    note="Lo decide el cuaderno 05 (05_llamadas_sistema), que midió namespaces de PID anidados.",
    figure=fg.Custom(lambda said, df, meta: syscall_claim()),
)
SYSCALL_CAUSE_MISSING = SYSCALL_CAUSE.but(
    note="Falta la medición por llamada al sistema de namespaces de PID "
    "anidados: ejecuta el cuaderno 05_llamadas_sistema y vuelve a este."
)
NEEDS_PRIVILEGED = vd.Said(
    "pip_necesita_privileged",
    "Para anidar contenedores con Podman hace falta --privileged.",
    lv.SOURCE_CHAPTER,
    where=lv.CHAPTER_NOTE,
    kind="observed",
    quantity="que falle cada paso sin --privileged de Podman dentro de Podman",
    note=f"La escalera (la tabla «paso a paso», arriba) se sube {vd.MIN_OBSERVED} veces: se sostiene solo si "
    "en cada subida falla cada paso, y no se sostiene si en cada una funciona alguno. El error «mount proc: "
    f"Operation not permitted» no es del capítulo: lo registró {lv.REPO_MOUNT_PROC}, en Podman dentro de "
    "Podman sin --privileged.",
    figure=fg.Outcome(lambda df, meta: ladder_observed(meta)),
)


def ladder_observed(meta: dict | None) -> list[bool]:
    """One observation per climb of the ladder (the first, shown step by step, and the repeated ones):
    did every step without --privileged fail? Empty when the ladder was not climbed."""
    nested = (meta or {}).get("anidamiento") or {}
    first = nested.get("intentos_sin_privilegios") or []
    climbs = [first, *(nested.get("escaleras_repetidas") or [])] if first else []
    return [not any(a.get("ok") for a in climb) for climb in climbs]


SAID = (*START_ADDITIVE.values(), *CPU_ACCUMULATES.values(), SYSCALL_CAUSE, NEEDS_PRIVILEGED)


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


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[vd.Claim]:
    """The chapter's four claims on nesting, each decided by the one verdict rule."""
    return fg.judge_all(SAID, df, meta)
