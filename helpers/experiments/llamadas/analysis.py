"""Experiment 5's summaries: ns per call per arm and operation (median, IQR, IC 95 %, x host), the
layer-by-layer decomposition, nested PID namespaces and their slope, what a call rate costs in CPU, the
comparison with the document and the closing rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import measure
from ..contract import CLOSING_COLUMNS
from ..verdict import agreement
from .arms import NESTED_DEPTHS, arm_label, depth_of
from .probe import LEVELS_METRIC, OPERATIONS, UNIT, WALL_SUFFIX

BASELINE = ("bare", "host")
NAN3 = (np.nan, np.nan, np.nan)


def wall_clock(df: pd.DataFrame) -> pd.DataFrame:
    """The same run seen through the wall clock: the `<op>:pared` rows renamed to `<op>` (and the CPU-time
    rows dropped), so every function below can summarise either clock."""
    if df is None or not len(df):
        return df
    wall = df[df["metric"].str.endswith(WALL_SUFFIX)].copy()
    wall["metric"] = wall["metric"].str.removesuffix(WALL_SUFFIX)
    return pd.concat(
        [df[~df["metric"].isin(OPERATIONS) & ~df["metric"].str.endswith(WALL_SUFFIX)], wall],
        ignore_index=True,
    )


def operations(df: pd.DataFrame) -> pd.DataFrame:
    """The per-call rows (ns) of the chosen clock; an empty frame for an empty run."""
    if df is None or not len(df):
        return pd.DataFrame(columns=["engine", "variant", "metric", "value"])
    return df[(df["unit"] == UNIT) & df["metric"].isin(OPERATIONS)]


def values(df: pd.DataFrame, engine: str, variant: str, metric: str = "getpid") -> np.ndarray:
    """One arm's repetitions of one operation (ns per call)."""
    ops = operations(df)
    sel = ops[(ops["engine"] == engine) & (ops["variant"] == variant) & (ops["metric"] == metric)]
    return sel["value"].to_numpy(dtype=float)


def arm_ratio(
    df, num: tuple[str, str], den: tuple[str, str], metric: str = "getpid"
) -> tuple[float, float, float]:
    """Ratio of the medians of two arms for one operation, with its bootstrap IC; NaN when one is missing."""
    a, b = values(df, *num, metric), values(df, *den, metric)
    if not a.size or not b.size:
        return NAN3
    return tuple(float(v) for v in measure.bootstrap_ratio_ci(a, b))


SUMMARY_COLUMNS = [
    "engine",
    "variant",
    "brazo",
    "operacion",
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


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per arm and operation: median ns per call, IQR, min, IC 95 %, and the ratio against the
    host (x host) with its IC; `inestable` when the spread dwarfs the median."""
    ops = operations(df)
    rows = []
    for (engine, variant, metric), group in ops.groupby(["engine", "variant", "metric"], sort=False):
        arr = group["value"].to_numpy(dtype=float)
        s = measure.summarize(arr)
        r = arm_ratio(df, (engine, variant), BASELINE, metric)
        rows.append(
            [engine, variant, arm_label(engine, variant), metric, s.n, s.median, s.q1, s.q3, s.minimum]
            + [s.ci_low, s.ci_high, *r, measure.unstable(arr)]
        )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def decomposition(df: pd.DataFrame, metric: str = "getpid") -> pd.DataFrame:
    """Per engine, the step by step story: host → PID namespace → container without seccomp → with
    seccomp → gVisor, as medians (ns) and as each step's ratio against the previous one (with IC)."""
    rows = []
    present = set(operations(df)["engine"])
    for engine in [e for e in eng.CONTAINER_ENGINES if e in present] or [None]:
        chain = [("bare", "host"), ("bare", "pid:1")]
        if engine:
            chain += [(engine, "sin_seccomp"), (engine, "seccomp"), (engine, "gvisor")]
        previous = None
        for step in [s for s in chain if values(df, *s, metric).size]:
            s = measure.summarize(values(df, *step, metric))
            r = arm_ratio(df, step, previous, metric) if previous else NAN3
            rows.append([engine or "bare", *step, arm_label(*step), s.median, s.ci_low, s.ci_high, *r])
            previous = step
    columns = ["cadena", "engine", "variant", "brazo", "mediana_ns", "ic_bajo_ns", "ic_alto_ns"]
    return pd.DataFrame(rows, columns=columns + ["x_paso_anterior", "ic_bajo", "ic_alto"])


NESTING_VARIANTS = ["host"] + [f"pid:{d}" for d in (1, *NESTED_DEPTHS)]


def nesting(df: pd.DataFrame, metric: str = "getpid") -> pd.DataFrame:
    """Median ns per call against PID-namespace depth (0 = host), with the levels the probe saw."""
    rows = []
    for variant in NESTING_VARIANTS:
        arr = values(df, "bare", variant, metric)
        if not arr.size:
            continue
        s = measure.summarize(arr)
        seen = df[(df["engine"] == "bare") & (df["variant"] == variant) & (df["metric"] == LEVELS_METRIC)]
        levels = int(seen["value"].median()) if len(seen) else np.nan
        rows.append([depth_of(variant), s.median, s.ci_low, s.ci_high, s.n, levels])
    columns = ["profundidad", "mediana_ns", "ic_bajo_ns", "ic_alto_ns", "n", "niveles_vistos"]
    return pd.DataFrame(rows, columns=columns)


def nesting_slope(
    df: pd.DataFrame,
    metric: str = "getpid",
    *,
    relative: bool = False,
    resamples: int = measure.BOOTSTRAP_RESAMPLES,
    seed: int = measure.BOOTSTRAP_SEED,
) -> tuple[float, float, float, int]:
    """What each PID-namespace level adds to a call: the least-squares slope of the median against depth
    (ns per level; with relative=True, in % of the host's median), with a percentile-bootstrap IC (each
    depth's sample resampled independently). (slope, low, high, n); NaN with fewer than three depths."""
    samples = {depth_of(v): values(df, "bare", v, metric) for v in NESTING_VARIANTS}
    samples = {d: s for d, s in samples.items() if s.size}
    if len(samples) < 3 or (relative and 0 not in samples):
        return np.nan, np.nan, np.nan, 0
    depths = np.array(sorted(samples), dtype=float)
    centred = depths - depths.mean()
    rng = np.random.default_rng(seed)
    boot = np.empty((resamples, len(depths)))
    for j, d in enumerate(sorted(samples)):
        v = samples[d]
        boot[:, j] = np.median(rng.choice(v, size=(resamples, v.size), replace=True), axis=1)
    medians = np.array([np.median(samples[d]) for d in sorted(samples)])
    slope = float((medians - medians.mean()) @ centred / (centred @ centred))
    slopes = (boot - boot.mean(axis=1, keepdims=True)) @ centred / (centred @ centred)
    if relative:  # depth 0 (the host) is the first column
        slope, slopes = 100 * slope / medians[0], 100 * slopes / boot[:, 0]
    lo, hi = np.quantile(slopes, [0.025, 0.975])
    return slope, float(lo), float(hi), int(min(v.size for v in samples.values()))


def cost_at_rate(df: pd.DataFrame, calls_per_second: float, metric: str = "getpid") -> pd.DataFrame:
    """A workload making `calls_per_second` calls: the ns each arm adds per call (difference of medians
    against the host) and the CPU that adds per second (CPU-seconds per second, 1 = a whole core)."""
    host = values(df, *BASELINE, metric)
    if not host.size:
        return pd.DataFrame(columns=["brazo", "ns_extra", "cpu_por_segundo"])
    h = float(np.median(host))
    s = summarize(df)
    s = s[s["operacion"] == metric]
    extra = s["mediana_ns"] - h
    return pd.DataFrame(
        {"brazo": s["brazo"], "ns_extra": extra, "cpu_por_segundo": extra * calls_per_second / 1e9}
    ).reset_index(drop=True)


# ---------------------------------------------------------------- the document
def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """getpid on the host and in a default Docker container: the seed's run, each CPU of its table (the
    middle of each published range) and this run, as medians and as the ratio container / host."""
    rows = []
    ref = reference[reference["metric"] == "getpid"] if reference is not None and len(reference) else None
    for source, group in ref.groupby("source", sort=False) if ref is not None else ():
        h = group[(group["engine"] == "bare") & (group["variant"] == "host")]["value"]
        c = group[(group["engine"] == "docker") & (group["variant"] == "seccomp")]["value"]
        if len(h) and len(c):
            rows.append(
                [source, float(h.median()), float(c.median()), float(c.median() / h.median()), *NAN3[:2]]
            )
    for engine in eng.CONTAINER_ENGINES:
        container, host = values(df, engine, "seccomp"), values(df, *BASELINE)
        if container.size and host.size:
            r, lo, hi = arm_ratio(df, (engine, "seccomp"), BASELINE)
            rows.append(
                [f"tu máquina ({eng.DISPLAY[engine]})", np.median(host), np.median(container), r, lo, hi]
            )
    return pd.DataFrame(rows, columns=["fuente", "host_ns", "contenedor_ns", "x_host", "ic_bajo", "ic_alto"])


def agreement_with_document(c: pd.DataFrame) -> pd.DataFrame:
    """Each live row of `compare` against the span of the document's ratios (its run and its table),
    by the one agreement rule (verdict.agreement: do the intervals overlap?): engine, ratio and IC,
    «coincide» / «no_coincide», and the side it falls on when it does not (below / above)."""
    live = c[c["fuente"].str.startswith("tu máquina")]
    ref = c[~c["fuente"].str.startswith("tu máquina")]
    lo_ref, hi_ref = (ref["x_host"].min(), ref["x_host"].max()) if len(ref) else (np.nan, np.nan)
    rows = []
    for _, r in live.iterrows():
        found = agreement((r["x_host"], r["ic_bajo"], r["ic_alto"]), ((lo_ref + hi_ref) / 2, lo_ref, hi_ref))
        side = "" if found != "no_coincide" else "debajo" if r["x_host"] < lo_ref else "encima"
        rows.append([r["fuente"], r["x_host"], r["ic_bajo"], r["ic_alto"], lo_ref, hi_ref, found, side])
    columns = ["fuente", "x_host", "ic_bajo", "ic_alto", "doc_bajo", "doc_alto", "acuerdo", "lado"]
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------- closing table
def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """RUNNING: ns per getpid in each environment (median and IC), unstable arms left out."""
    rows = []
    summary = summarize(df, meta)
    for _, r in summary[summary["operacion"] == "getpid"].iterrows():
        if r["inestable"] or not (r["engine"] != "bare" or r["variant"] in ("host", "pid:1")):
            continue
        entorno = r["engine"] if r["variant"] in ("host", "seccomp") else f"{r['engine']} ({r['brazo']})"
        rows.append(
            ["llamada getpid", "RUNNING", entorno, r["mediana_ns"], r["ic_bajo_ns"], r["ic_alto_ns"], "ns"]
        )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
