"""The document's claims about system calls in containers («Benchmark 01: Namespace Syscall Overhead»),
declared once, each in the form and with the figure the document gave, and judged by the one rule:

- contenedor_11 (per engine): its own run, +11 % (268.83 → 298.31 ns);
- contenedor_tabla (per engine): its per-CPU table, +24 to +30 %;
- esperado_host / esperado_contenedor (per engine): the ns it expects, 80-150 on the host and 100-180 in a
  container (absolute figures: they depend on the CPU, and the note says so);
- causa_pid: the cause is PID translation, so a PID namespace alone should cost that 11 %;
- anidamiento: each nesting level adds cost (notebook 07 reads this one by its key), judged against the
  floor of «adds cost», never against a point (the document gives no figure per level);
- entre_cpus: the overhead is similar on every CPU (one machine cannot judge it: «no comparable»);
- exec_1_9ms (per engine): an exec costs about 1.9 ms, judged on experiment 3's `exec true` (READS).

Every ratio and difference is computed round by round (the arms are measured in the same rounds, so the
series are paired by `rep`), through one clock (the thread's CPU time; the arms compared here never
include gVisor).
"""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from .. import ejecucion, read_run
from .. import llamadas as this
from ..figures import Custom, Difference, Median, NotComparable, Sel, formula, judge_all, median
from ..runner import Resultado
from ..verdict import Claim, Said, missing, ref
from .analysis import BASELINE, nesting_series, per_level_slope, series

SOURCE = "«Benchmark 01: Namespace Syscall Overhead»"
SEED_HOST_NS, SEED_CONTAINER_NS = 268.83, 298.31  # its own run («Our Results»)
SEED_DIFFERENCE_NS = SEED_CONTAINER_NS - SEED_HOST_NS  # 29.48 ns: container − host, not «per level»
SEED_RUN_PCT = 100 * (SEED_CONTAINER_NS / SEED_HOST_NS - 1)  # +11.0 %
SEED_TABLE_PCT = (24.0, 30.0)  # the «Overhead» column of its per-CPU table spans 24-30 %
EXPECTED_HOST_NS = (80.0, 150.0)  # «Test A … Expected: 80-150 ns per call (varies by CPU)»
EXPECTED_CONTAINER_NS = (100.0, 180.0)  # «Test B … Expected: 100-180 ns per call»
EXEC_CLAIMED_MS = 1.9
# Its table's three CPUs: the 24-30 % spans them (a Ref names one source, so a test ties this one).
TABLE_SOURCES = ("seed001-tabla-xeon-8370c", "seed001-tabla-epyc-7763", "seed001-tabla-i7-12700k")
HOST = {"engine": "bare", "variant": "host"}

OVERHEAD_QUANTITY = (
    "la sobrecarga de getpid en el contenedor (seccomp por defecto) frente al host, ronda a ronda"
)
CONTAINER_RUN = Said(
    "contenedor_11",
    f"Una llamada al sistema en un contenedor es un 11 % más lenta que en el host ({SEED_HOST_NS} → "
    f"{SEED_CONTAINER_NS} ns)",
    SOURCE,
    where="«Our Results», tabla «Actual Performance», su propia corrida",
    claimed=SEED_RUN_PCT,
    kind="percent_about",
    quantity=OVERHEAD_QUANTITY,
    unit="%",
    ref=ref(source="seed001", metric="getpid", engine="docker", variant="seccomp", over=HOST, percent=True),
)
CONTAINER_TABLE = Said(
    "contenedor_tabla",
    "En su tabla por CPU, la sobrecarga del contenedor va del 24 % al 30 %",
    SOURCE,
    where="tabla «Expected Results by Hardware», columna «Overhead»",
    kind="range",
    bounds=SEED_TABLE_PCT,
    quantity=OVERHEAD_QUANTITY,
    unit="%",
    note="Su tabla es de otras CPU (dos Xeon/EPYC de Azure y un i7-12700K); el porcentaje es lo que dice "
    "que se mantiene de una CPU a otra.",
)
ABSOLUTE_NOTE = (
    "Es una cifra absoluta y el documento avisa de que cambia con la CPU; aquí se mide con el tiempo de CPU "
    "del hilo (el reloj de pared de una máquina ocupada cuenta además las esperas)."
)
EXPECTED_HOST = Said(
    "esperado_host",
    "getpid en el host tarda de 80 a 150 ns por llamada",
    SOURCE,
    where="«The Tests», Test A, «Expected»",
    kind="range",
    bounds=EXPECTED_HOST_NS,
    quantity="la mediana de getpid en el host",
    ref=ref(source="seed001-esperado", metric="getpid", **HOST),
    unit="ns",
    note=ABSOLUTE_NOTE,
)
EXPECTED_CONTAINER = Said(
    "esperado_contenedor",
    "getpid en un contenedor tarda de 100 a 180 ns por llamada",
    SOURCE,
    where="«The Tests», Test B, «Expected»",
    kind="range",
    bounds=EXPECTED_CONTAINER_NS,
    quantity="la mediana de getpid en el contenedor (seccomp por defecto)",
    ref=ref(source="seed001-esperado", metric="getpid", engine="docker", variant="seccomp"),
    unit="ns",
    note=ABSOLUTE_NOTE,
)
PID_CAUSE = Said(
    "causa_pid",
    "Ese 11 % se debe a la traducción de PID del namespace",
    SOURCE,
    where="«Analysis», «Conclusion»",
    claimed=SEED_RUN_PCT,
    kind="percent_about",
    quantity="la sobrecarga de getpid en un namespace PID solo (unshare, sin contenedor) frente al host",
    unit="%",
    ref=CONTAINER_RUN.ref,
    note="Si la traducción de PID fuera la causa, un namespace PID solo, sin el resto del contenedor, "
    "costaría ese 11 %.",
)
NESTING = Said(
    "anidamiento",
    "Cada nivel de anidamiento añade costo (el kernel recorre la cadena de namespaces)",
    SOURCE,
    where="«Understanding the Kernel Code»",
    kind="adds",
    quantity="lo que añade cada nivel de namespace PID a getpid, en % de la llamada del host (pendiente "
    "ronda a ronda)",
    unit="%",
    note=f"El documento no da una cifra por nivel (sus {SEED_DIFFERENCE_NS:.2f} ns son la diferencia "
    "contenedor − host de su corrida): «añade costo» se juzga contra el piso de esa clase de afirmación.",
)
ACROSS_CPUS = Said(
    "entre_cpus",
    "El porcentaje de sobrecarga es parecido en CPU distintas",
    SOURCE,
    where="nota bajo «Expected Results by Hardware» y «Key Takeaways»",
)
ACROSS_CPUS_REASON = (
    "Una sola máquina no puede juzgarlo: la comparación de la clase (90) lo juzga con varias máquinas."
)
EXEC = Said(
    "exec_1_9ms",
    "Un exec (kubectl exec, docker exec) cuesta unos 1.9 ms",
    SOURCE,
    where="«Production Impact», escenario 1",
    claimed=EXEC_CLAIMED_MS,
    kind="about",
    quantity="exec true en un contenedor que ya corre (mediana del experimento 3 en esta máquina)",
    unit="ms",
)
EXEC_NO_RUN = EXEC.but(
    note="Se juzga con el exec true del experimento 3, que aún no tiene corrida en esta máquina."
)
EXEC_NOT_MEASURED = EXEC.but(note="La última corrida del experimento 3 no midió exec true.")
SAID = (
    CONTAINER_RUN,
    CONTAINER_TABLE,
    EXPECTED_HOST,
    EXPECTED_CONTAINER,
    PID_CAUSE,
    NESTING,
    ACROSS_CPUS,
    EXEC,
)
NEEDS_ARMS = "Faltan los brazos que hacen falta para juzgarla (revisa BRAZOS y MOTORES)."


def _arm(engine: str, variant: str) -> Sel:
    return Sel(engine=engine, variant=variant)


def _pick(df: pd.DataFrame, meta: dict | None, sel: Sel) -> pd.Series:
    return series(df, **dict(sel.where))


def _per_engine(said: Said, engine: str) -> Said:
    name = eng.DISPLAY[engine]
    return said.but(statement=f"{said.statement} — {name}", quantity=f"{said.quantity}, {name}")


def _in_run(engine: str):
    """The document measured Docker: its claims are always said; another engine's, when it ran."""
    return lambda df, meta: engine == "docker" or (df is not None and len(df) and engine in set(df["engine"]))


HOST_ARM = _arm(*BASELINE)
NEEDED = {"missing_note": NEEDS_ARMS}


def _judged(engine: str) -> tuple[Said, ...]:
    arm, per = _arm(engine, "seccomp"), {"detail": {"engine": engine}, "when": _in_run(engine), **NEEDED}
    return (
        _per_engine(CONTAINER_RUN, engine).but(figure=Difference(arm, HOST_ARM, percent=True, **per)),
        _per_engine(CONTAINER_TABLE, engine).but(figure=Difference(arm, HOST_ARM, percent=True, **per)),
        _per_engine(EXPECTED_CONTAINER, engine).but(figure=Median(arm, **per)),
    )


JUDGED = (
    EXPECTED_HOST.but(figure=Median(HOST_ARM, **NEEDED)),
    *(said for engine in eng.CONTAINER_ENGINES for said in _judged(engine)),
    PID_CAUSE.but(figure=Difference(_arm("bare", "pid:1"), HOST_ARM, percent=True, **NEEDED)),
    NESTING.but(figure=Custom(lambda said, df, meta: nesting_claim(df))),
    ACROSS_CPUS.but(figure=NotComparable(ACROSS_CPUS_REASON)),
    EXEC.but(figure=Custom(lambda said, df, meta: exec_claims(read_run(this, "ejecucion")))),
)


def exec_claims(exec_run: Resultado | None) -> list[Claim]:
    """An exec costs ~1.9 ms, judged per engine on experiment 3's `exec true` (stored in seconds)."""
    if exec_run is None or exec_run.df is None or not len(exec_run.df):
        return [missing(EXEC_NO_RUN, {"motivo": "sin_corrida"})]
    df = exec_run.df
    sel = df[
        (df["variant"] == ejecucion.EXEC_TRUE)
        & (df["metric"] == ejecucion.METRIC_E2E)
        & df["engine"].isin(eng.CONTAINER_ENGINES)
    ]
    if not len(sel):
        return [missing(EXEC_NOT_MEASURED, {"motivo": "sin_exec"})]
    return [
        median(
            _per_engine(EXEC, engine),
            group["value"].to_numpy(dtype=float) * 1000.0,
            detail={"engine": engine},
        )
        for engine, group in sel.groupby("engine", sort=False)
    ]


def nesting_claim(df: pd.DataFrame) -> Claim:
    """«Each nesting level adds cost»: the slope of getpid against depth in % of the host's call, computed
    round by round, against the floor of «adds cost»."""
    depths, arms = nesting_series(df)
    if len(depths) < 3 or depths[0] != 0:
        return missing(NESTING.but(note=NEEDS_ARMS))
    return formula(NESTING, per_level_slope(depths, relative=True), *arms)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The document's claims, each decided by the one verdict rule."""
    return judge_all(JUDGED, df, meta, pick=_pick)
