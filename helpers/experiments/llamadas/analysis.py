"""Experiment 5's summaries: ns per call per arm and operation (median, IQR, IC 95 %, x host), the
layer-by-layer decomposition, nested PID namespaces and their slope, what a call rate costs in CPU, the
comparison with the document and the closing rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import stats
from .. import ejecucion
from ..contract import CLOSING_COLUMNS
from .arms import NESTED_DEPTHS, NSENTER, NSENTER_METRIC, arm_label, depth_of, primary_clock
from .probe import LEVELS_METRIC, OPERATIONS, UNIT, WALL_SUFFIX

BASELINE = ("bare", "host")
NAN3 = (np.nan, np.nan, np.nan)
CPU, WALL = "cpu", "pared"
OVERHEAD_METRIC = "sobrecarga"  # the reference's published overhead (%), where the document gives one  # the probe's two clocks: the thread's CPU time and the wall clock


def metric_name(operation: str, clock: str) -> str:
    """The raw.csv metric of one operation through one clock: `getpid` (CPU) or `getpid:pared`."""
    return operation + WALL_SUFFIX if clock == WALL else operation


def shared_clock(*arms: tuple[str, str]) -> str:
    """The one clock a comparison of these arms reads both sides with: the wall clock as soon as one of
    them is gVisor (its calls are served by another thread), the thread's CPU time otherwise."""
    return WALL if any(primary_clock(variant) == WALL for _, variant in arms) else CPU


def operations(df: pd.DataFrame) -> pd.DataFrame:
    """The per-call rows (ns) of both clocks; an empty frame for an empty run."""
    if df is None or not len(df):
        return pd.DataFrame(columns=["engine", "variant", "rep", "metric", "value"])
    wall = {metric_name(op, WALL) for op in OPERATIONS}
    return df[(df["unit"] == UNIT) & (df["metric"].isin(OPERATIONS) | df["metric"].isin(wall))]


def series(
    df: pd.DataFrame, engine: str, variant: str, metric: str = "getpid", clock: str | None = None
) -> pd.Series:
    """One arm's repetitions of one operation (ns per call), indexed by round (`rep`): arms measured in
    the same rounds are paired by it. `clock`: CPU, WALL, or None for the arm's own (`primary_clock`)."""
    ops = operations(df)
    name = metric_name(metric, clock or primary_clock(variant))
    sel = ops[(ops["engine"] == engine) & (ops["variant"] == variant) & (ops["metric"] == name)]
    return pd.Series(sel["value"].to_numpy(dtype=float), index=sel["rep"].to_numpy(), name=variant)


def values(
    df: pd.DataFrame, engine: str, variant: str, metric: str = "getpid", clock: str | None = None
) -> np.ndarray:
    """One arm's repetitions of one operation (ns per call), as a plain array."""
    return series(df, engine, variant, metric, clock).to_numpy(dtype=float)


def arm_ratio(
    df, num: tuple[str, str], den: tuple[str, str], metric: str = "getpid"
) -> tuple[float, float, float]:
    """num / den for one operation, both arms through one clock (`shared_clock`), paired by round, with
    its IC 95 %; NaN when one is missing."""
    clock = shared_clock(num, den)
    return stats.ratio_ci(series(df, *num, metric, clock), series(df, *den, metric, clock)).triple


SUMMARY_COLUMNS = [
    "engine",
    "variant",
    "brazo",
    "operacion",
    "reloj",
    "n",
    "mediana_ns",
    "q1_ns",
    "q3_ns",
    "min_ns",
    "ic_bajo_ns",
    "ic_alto_ns",
    "x_host",
    "x_host_ic_bajo",
    "x_host_ic_alto",
    "inestable",
]


# The layers in the order the page adds them: the host, PID namespaces by depth, then per engine the
# container without seccomp, with it, and gVisor (never the shuffled order of the run's first round).
LAYER_ORDER = {"sin_seccomp": 0, "seccomp": 1, "gvisor": 2}


def _layer(arm: tuple[str, str, str]) -> tuple:
    engine, variant, metric = arm
    engines = list(eng.CONTAINER_ENGINES)
    engine_rank = (
        0 if engine == "bare" else 1 + (engines.index(engine) if engine in engines else len(engines))
    )
    variant_rank = depth_of(variant) if engine == "bare" else LAYER_ORDER.get(variant, len(LAYER_ORDER))
    return (engine_rank, variant_rank, variant, OPERATIONS.index(metric))


def _arms(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(engine, variant, operation) of every arm and operation measured, layer by layer (_layer)."""
    ops = operations(df)
    ops = ops[ops["metric"].isin(OPERATIONS)]
    return sorted(dict.fromkeys(zip(ops["engine"], ops["variant"], ops["metric"])), key=_layer)


def summarize(df: pd.DataFrame, meta: dict | None = None, *, clock: str | None = None) -> pd.DataFrame:
    """One row per arm and operation: median ns per call, IQR, min, IC 95 %, and the ratio against the
    host (x host, paired by round) with its IC; `inestable` when the spread dwarfs the median. `clock`:
    None for each arm's own clock (the ratio through `shared_clock`), or CPU / WALL for every arm."""
    rows = []
    for engine, variant, metric in _arms(df):
        arm_clock = clock or primary_clock(variant)
        arr = values(df, engine, variant, metric, arm_clock)
        if not arr.size:
            continue
        s = stats.summarize(arr)
        if clock:
            h, a = series(df, *BASELINE, metric, clock), series(df, engine, variant, metric, clock)
            r = stats.ratio_ci(a, h).triple
        else:
            r = arm_ratio(df, (engine, variant), BASELINE, metric)
        rows.append(
            [engine, variant, arm_label(engine, variant), metric, arm_clock, s.n, s.median, s.q1, s.q3]
            + [s.minimum, s.ci_low, s.ci_high, *r, stats.unstable(arr)]
        )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def decomposition(df: pd.DataFrame, metric: str = "getpid") -> pd.DataFrame:
    """Per engine, the step by step story: host → PID namespace → container without seccomp → with
    seccomp → gVisor, as medians (ns, each arm's own clock) and as each step's ratio against the
    previous one (one clock for both, paired by round, with IC)."""
    rows = []
    present = set(operations(df)["engine"])
    for engine in [e for e in eng.CONTAINER_ENGINES if e in present] or [None]:
        chain = [("bare", "host"), ("bare", "pid:1")]
        if engine:
            chain += [(engine, "sin_seccomp"), (engine, "seccomp"), (engine, "gvisor")]
        previous = None
        for step in [s for s in chain if values(df, *s, metric).size]:
            s = stats.summarize(values(df, *step, metric))
            r = arm_ratio(df, step, previous, metric) if previous else NAN3
            clock = primary_clock(step[1])
            rows.append([engine or "bare", *step, arm_label(*step), clock, s.median, s.ci_low, s.ci_high, *r])
            previous = step
    columns = ["cadena", "engine", "variant", "brazo", "reloj", "mediana_ns", "ic_bajo_ns", "ic_alto_ns"]
    return pd.DataFrame(rows, columns=columns + ["x_paso_anterior", "ic_bajo", "ic_alto"])


NESTING_VARIANTS = ["host"] + [f"pid:{d}" for d in (1, *NESTED_DEPTHS)]


def nesting(df: pd.DataFrame, metric: str = "getpid") -> pd.DataFrame:
    """Median ns per call (the thread's CPU time) against PID-namespace depth (0 = host), with the levels
    the probe saw."""
    rows = []
    for variant in NESTING_VARIANTS:
        arr = values(df, "bare", variant, metric)
        if not arr.size:
            continue
        s = stats.summarize(arr)
        seen = df[(df["engine"] == "bare") & (df["variant"] == variant) & (df["metric"] == LEVELS_METRIC)]
        levels = int(seen["value"].median()) if len(seen) else np.nan
        rows.append([depth_of(variant), s.median, s.ci_low, s.ci_high, s.n, levels])
    columns = ["profundidad", "mediana_ns", "ic_bajo_ns", "ic_alto_ns", "n", "niveles_vistos"]
    return pd.DataFrame(rows, columns=columns)


def nesting_series(df: pd.DataFrame, metric: str = "getpid") -> tuple[list[int], list[pd.Series]]:
    """The depths measured (host = 0 first) and each depth's repetitions indexed by round."""
    found = [(depth_of(v), series(df, "bare", v, metric)) for v in NESTING_VARIANTS]
    found = [(d, s) for d, s in found if s.size]
    return [d for d, _ in found], [s for _, s in found]


def per_level_slope(depths, *, relative: bool = False):
    """fn(*arms) → the least-squares slope of ns per call against depth, one per round (the arms are the
    depths' values of each round, in `depths` order); with relative=True in % of that round's host call
    (depth 0 first). The figure `figures.formula` judges round by round."""
    x = np.asarray(depths, dtype=float)
    centred = (x - x.mean()) / ((x - x.mean()) @ (x - x.mean()))

    def slope(*arms):
        ys = np.vstack([np.asarray(a, dtype=float) for a in arms])  # depths × rounds
        per_round = centred @ ys
        return 100 * per_round / ys[0] if relative else per_round

    return slope


def nesting_slope(df: pd.DataFrame, metric: str = "getpid", *, relative: bool = False):
    """What each PID-namespace level adds to a call, computed round by round (the depths of one round are
    measured back to back): the median over rounds of each round's least-squares slope against depth
    (ns per level; with relative=True, in % of that round's host call) and its IC 95 %.
    (slope, low, high, rounds); NaN with fewer than three depths (or no host for relative)."""
    depths, arms = nesting_series(df, metric)
    if len(depths) < 3 or (relative and depths[0] != 0):
        return np.nan, np.nan, np.nan, 0
    n = stats.n_of(*arms)
    if not n:
        return np.nan, np.nan, np.nan, 0
    value, low, high = stats.figure_ci(per_level_slope(depths, relative=relative), *arms).triple
    return float(value), float(low), float(high), int(n)


def cost_at_rate(df: pd.DataFrame, calls_per_second: float, metric: str = "getpid") -> pd.DataFrame:
    """A workload making `calls_per_second` calls: the ns each arm adds per call (difference of medians
    against the host, both through one clock), the CPU that adds per second (1 = a whole core), and
    whether either arm is unstable (its figure is then only a reading: «repite»)."""
    rows, columns = [], ["brazo", "ns_extra", "cpu_por_segundo", "inestable"]
    for engine, variant, op in _arms(df):
        if op != metric:
            continue
        clock = shared_clock((engine, variant), BASELINE)
        host = values(df, *BASELINE, metric, clock)
        if not host.size:
            return pd.DataFrame(columns=columns)
        arm = values(df, engine, variant, metric, clock)
        extra = float(np.median(arm) - np.median(host))
        shaky = bool(stats.unstable(arm) or stats.unstable(host))
        rows.append([arm_label(engine, variant), extra, extra * calls_per_second / 1e9, shaky])
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------- Test C
TEST_C_COLUMNS = [
    "engine",
    "nsenter_us",
    "nsenter_bajo",
    "nsenter_alto",
    "n",
    "exec_us",
    "exec_bajo",
    "exec_alto",
    "exec_sobre_nsenter",
]


def test_c(df: pd.DataFrame, exec_df: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per engine with an `nsenter` arm: its µs per entry (median of the rounds, IC 95 %), experiment 3's
    `exec true` in the same engine (µs, from `exec_df`, its raw rows in seconds) and the ratio of the two
    medians (two runs, so never paired by round)."""
    rows = []
    if df is None or not len(df):
        return pd.DataFrame(rows, columns=TEST_C_COLUMNS)
    sel = df[(df["variant"] == NSENTER) & (df["metric"] == NSENTER_METRIC)]
    for engine in [e for e in eng.CONTAINER_ENGINES if e in set(sel["engine"])]:
        ns = stats.median_ci(sel[sel["engine"] == engine]["value"].to_numpy(dtype=float))
        ex = stats.Estimate.missing()
        if exec_df is not None and len(exec_df):
            at = (
                (exec_df["engine"] == engine)
                & (exec_df["variant"] == ejecucion.EXEC_TRUE)
                & (exec_df["metric"] == ejecucion.METRIC_E2E)
            )
            if at.any():
                ex = stats.median_ci(exec_df[at]["value"].to_numpy(dtype=float) * 1e6)
        ratio = ex.value / ns.value if ns.value and not stats.any_nan(ex.value) else np.nan
        rows.append([engine, ns.value, ns.low, ns.high, ns.n, ex.value, ex.low, ex.high, ratio])
    return pd.DataFrame(rows, columns=TEST_C_COLUMNS)


# ---------------------------------------------------------------- the document
def published_ratios(reference: pd.DataFrame | None) -> list[dict]:
    """The container / host ratios of getpid the document publishes itself (its per-CPU table's
    «Overhead» column, the «+20-30%» it expects): per source and arm, `rango` = 1 + its low and high %.
    Notebook 05 (`compare`) and the class comparison (90) read the document's overhead from here only."""
    if reference is None or not len(reference):
        return []
    rows = reference[reference["metric"] == OVERHEAD_METRIC]
    return [
        {
            "source": source,
            "metric": "getpid",
            "engine": engine,
            "variant": variant,
            "rango": (1 + float(g["value"].min()) / 100, 1 + float(g["value"].max()) / 100),
        }
        for (source, engine, variant), g in rows.groupby(["source", "engine", "variant"], sort=False)
    ]


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """getpid on the host and in a default Docker container: the seed's run, each CPU of its table (the
    middle of each published range) and this run, as medians and as the ratio container / host. Where
    the document publishes the overhead itself (its table's «Overhead» column, the «+20-30%» it
    expects), the ratio is that figure (1 + the middle of its range), not one recomputed from its ns."""
    rows = []
    known = reference is not None and len(reference)
    ref = reference[reference["metric"].isin(["getpid", OVERHEAD_METRIC])] if known else None
    overheads = {p["source"]: p for p in published_ratios(reference)}
    for source, group in ref.groupby("source", sort=False) if ref is not None else ():
        calls = group[group["metric"] == "getpid"]
        h = calls[(calls["engine"] == "bare") & (calls["variant"] == "host")]["value"]
        c = calls[(calls["engine"] == "docker") & (calls["variant"] == "seccomp")]["value"]
        published = overheads.get(source)
        if len(h) and len(c):
            if published:  # a published range: shown as a range, its middle only to sort and plot
                span = published["rango"]
                ratio = sum(span) / 2
            else:
                ratio, span = float(c.median() / h.median()), NAN3[:2]
            rows.append([source, float(h.median()), float(c.median()), ratio, *NAN3[:2], *span])
    for engine in eng.CONTAINER_ENGINES:
        container, host = values(df, engine, "seccomp"), values(df, *BASELINE)
        if container.size and host.size:
            r, lo, hi = arm_ratio(df, (engine, "seccomp"), BASELINE)
            rows.append(
                [f"tu máquina ({eng.DISPLAY[engine]})", np.median(host), np.median(container), r, lo, hi]
                + list(NAN3[:2])
            )
    columns = [
        "fuente",
        "host_ns",
        "contenedor_ns",
        "x_host",
        "ic_bajo",
        "ic_alto",
        "rango_bajo",
        "rango_alto",
    ]
    return pd.DataFrame(rows, columns=columns)


def document_span(c: pd.DataFrame) -> tuple[float, float]:
    """The span of the document's container/host ratios in `compare` (its run, and the ends of every
    range it publishes). Only shown: each published figure is judged once, as its own claim
    (contenedor_11, contenedor_tabla), never against this span."""
    ref = c[~c["fuente"].str.startswith("tu máquina")]
    if ref.empty:
        return (np.nan, np.nan)
    return (ref["rango_bajo"].fillna(ref["x_host"]).min(), ref["rango_alto"].fillna(ref["x_host"]).max())


# ---------------------------------------------------------------- closing table
def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """RUNNING: ns per getpid in each environment (median and IC), unstable arms left out."""
    rows = []
    summary = summarize(df, meta)
    for _, r in summary[summary["operacion"] == "getpid"].iterrows():
        if r["inestable"] or not (r["engine"] != "bare" or r["variant"] in ("host", "pid:1")):
            continue
        # The environment is the engine (the closing table names it); the arm goes in the concept.
        concept = "una llamada getpid"
        if r["variant"] not in ("host", "seccomp"):
            concept += f" · {r['brazo']}" + (" (reloj de pared)" if r["reloj"] == WALL else "")
        rows.append(
            [concept, "RUNNING", r["engine"], r["mediana_ns"], r["ic_bajo_ns"], r["ic_alto_ns"], "ns"]
        )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
