"""The claims of «Benchmark 01: Namespace Syscall Overhead» (claims.toml), figures computed round by round
on the thread's CPU time; «~1.9 ms per exec» is «no comparable», experiment 3's `exec true` beside it."""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from ... import stats
from .. import declared, ejecucion, read_run
from .. import llamadas as this
from ..figures import formula, judging, ran
from ..runner import Resultado
from ..verdict import OTHER_MACHINE, Claim, Said, beside, missing, not_comparable
from .analysis import nesting_series, per_level_slope, series

SOURCE = "«Benchmark 01: Namespace Syscall Overhead»"
SEED_HOST_NS, SEED_CONTAINER_NS = 268.83, 298.31  # its own run («Our Results»)
SEED_DIFFERENCE_NS = SEED_CONTAINER_NS - SEED_HOST_NS  # 29.48 ns: container − host, not «per level»
SEED_RUN_PCT = 100 * (SEED_CONTAINER_NS / SEED_HOST_NS - 1)  # +11.0 %
# Its table's three CPUs: the 24-30 % spans them (a Ref names one source, so a test ties this one).
TABLE_SOURCES = ("seed001-tabla-xeon-8370c", "seed001-tabla-epyc-7763", "seed001-tabla-i7-12700k")
NEEDS_ARMS = "Faltan los brazos que hacen falta para juzgarla (revisa BRAZOS y MOTORES)."
BOUNDS = {
    "contenedor_tabla": (24.0, 30.0),
    "esperado_host": (80.0, 150.0),
    "esperado_contenedor": (100.0, 180.0),
}
# «× 1.9 ms per exec»: the document gives no other figure of that machine to set it against (its table's
# «Test C (μs)» column is never defined), so no ratio travels: «no comparable», this machine's beside it.
EXEC_ELSEWHERE = (
    f"{OTHER_MACHINE} El documento no da otra cifra de la misma máquina con la que comparar sus 1.9 ms "
    "(la columna «Test C (μs)» de su tabla no dice qué mide), así que no hay proporción que juzgar: al "
    "lado, el `exec true` del experimento 3 en esta máquina."
)


def nesting_claim(said: Said, df: pd.DataFrame, meta: dict | None = None) -> Claim:
    """«Each nesting level adds cost»: the slope of getpid against depth in % of the host's call, computed
    round by round, against the floor of «adds cost»."""
    depths, arms = nesting_series(df)
    if len(depths) < 3 or depths[0] != 0:
        return missing(said.but(note=NEEDS_ARMS))
    return formula(said, per_level_slope(depths, relative=True), *arms)


def exec_figure(said: Said, df: pd.DataFrame, meta: dict | None) -> list[Claim]:
    """Judged on experiment 3's last run, not on this one (`exec_claims`)."""
    return exec_claims(read_run(this, "ejecucion"))


def in_run(engine: str):
    """when(df, meta) of a claim on one engine: the document measured Docker, so its claims are always
    said; another engine's, when it ran."""
    return lambda df, meta: engine == "docker" or ran(engine)(df, meta)


SAID, JUDGED = declared.read(__package__, globals())
CONTAINER_RUN, CONTAINER_TABLE, EXPECTED_HOST, EXPECTED_CONTAINER, PID_CAUSE, NESTING, ACROSS_CPUS, EXEC = (
    SAID
)
EXEC_NO_RUN = EXEC.but(
    note="Se juzga con el exec true del experimento 3, que aún no tiene corrida en esta máquina."
)
EXEC_NOT_MEASURED = EXEC.but(note="La última corrida del experimento 3 no midió exec true.")


def exec_claims(exec_run: Resultado | None) -> list[Claim]:
    """An exec costs ~1.9 ms: «no comparable» per engine (EXEC_ELSEWHERE), with experiment 3's `exec
    true` (stored in seconds) shown beside it in ms."""
    if exec_run is None or exec_run.df is None or not len(exec_run.df):
        return [missing(EXEC_NO_RUN, {"motivo": "sin_corrida"})]
    df = exec_run.df
    at = (df["variant"] == ejecucion.EXEC_TRUE) & (df["metric"] == ejecucion.METRIC_E2E)
    sel = df[at & df["engine"].isin(eng.CONTAINER_ENGINES)]
    if not len(sel):
        return [missing(EXEC_NOT_MEASURED, {"motivo": "sin_exec"})]
    out = []
    for e, group in sel.groupby("engine", sort=False):
        name = eng.DISPLAY[e]
        said = EXEC.but(statement=f"{EXEC.statement} — {name}", quantity=f"{EXEC.quantity}, {name}")
        ms = stats.median_ci(group["value"].to_numpy(dtype=float) * 1000.0)
        out.append(beside(not_comparable(said, EXEC_ELSEWHERE, {"engine": e}), ms, "ms"))
    return out


claims = judging(JUDGED, pick=lambda df, meta, sel: series(df, **dict(sel.where)))
