"""Experiment 4's analysis: the ladder's summary, the waterfall (an engine's `run` split into differences
of consecutive rungs, each an inference with its bootstrap interval), the network's share of LAUNCH
(notebook 01 cites it, through experiments.read_run) and the closing rows. The published
figures are in published.py."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import stats
from ..contract import CLOSING_COLUMNS
from ..runner import Resultado
from ..verdict import exceeds
from .phases import PHASE_TOTAL, PHASES
from .pod import in_cluster_loop
from .rungs import LADDER, METRIC, RUNG_LABEL, USUAL_NAMESPACES

BASELINE = ("bare", "proceso")


def values(df: pd.DataFrame, engine: str, variant: str, metric: str = METRIC) -> np.ndarray:
    """The repetitions of one rung (one metric), as floats."""
    sel = df[(df["engine"] == engine) & (df["variant"] == variant) & (df["metric"] == metric)]
    return pd.to_numeric(sel["value"], errors="coerce").dropna().to_numpy(dtype=float)


def series(df: pd.DataFrame, engine: str, variant: str, metric: str = METRIC) -> pd.Series:
    """The repetitions of one rung indexed by round (`rep`): every rung is measured in the same rounds,
    so figures built from several rungs are computed round by round (paired, helpers.stats)."""
    sel = df[(df["engine"] == engine) & (df["variant"] == variant) & (df["metric"] == metric)]
    out = pd.Series(
        pd.to_numeric(sel["value"], errors="coerce").to_numpy(dtype=float), index=sel["rep"].to_numpy()
    )
    return out.dropna()


def _ladder_order(engine: str, variant: str) -> tuple:
    return (
        {"bare": 0, "docker": 1, "podman": 2}.get(engine, 3),
        LADDER.index(variant) if variant in LADDER else 99,
    )


SUMMARY_COLUMNS = [
    "engine",
    "variant",
    "metric",
    "peldano",
    "n",
    "mediana_ms",
    "q1_ms",
    "q3_ms",
    "min_ms",
    "ic_bajo_ms",
    "ic_alto_ms",
    "x_proceso",
    "x_proceso_ic_bajo",
    "x_proceso_ic_alto",
    "inestable",
]


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """The ladder: one row per (engine, rung, metric) with n, median, IQR, min, IC 95 %, x process
    (bootstrap IC) and whether the measurement is unstable."""
    if df is None or df.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    data = df[(df["unit"] == "ms") & (df["variant"] != "cadena")]
    base = series(df, *BASELINE)
    rows = []
    for (engine, variant, metric), group in data.groupby(["engine", "variant", "metric"], sort=False):
        vals = pd.to_numeric(group["value"], errors="coerce").dropna().to_numpy(dtype=float)
        s = stats.summarize(vals)
        mine = series(df, engine, variant, metric)
        if in_cluster_loop(engine, variant):  # other rounds than the process's: independent arms
            mine, base_here = mine.to_numpy(), base.to_numpy()
        else:
            base_here = base
        ratio = stats.ratio_ci(mine, base_here).triple  # NaN without a base
        label = RUNG_LABEL.get(variant, variant)
        if metric != METRIC:
            label = f"{label}: {dict(PHASES).get(metric, 'total')}"
        rows.append(
            {
                "engine": engine,
                "variant": variant,
                "metric": metric,
                "peldano": label,
                **s.columns("ms"),
                "x_proceso": ratio[0],
                "x_proceso_ic_bajo": ratio[1],
                "x_proceso_ic_alto": ratio[2],
                "inestable": stats.unstable(vals),
            }
        )
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    metric_order = {METRIC: 0, **{m: i + 1 for i, (m, _) in enumerate(PHASES)}, PHASE_TOTAL: 9}
    out["_k"] = [
        (*_ladder_order(e, v), metric_order.get(m, 10))
        for e, v, m in zip(out["engine"], out["variant"], out["metric"])
    ]
    return out.sort_values("_k").drop(columns="_k").reset_index(drop=True)


# ---------------------------------------------------------------- the waterfall
@dataclass(frozen=True)
class Part:
    key: str
    label: str
    upper: tuple[str, str]  # (engine, variant) of the rung that ends this part
    lower: tuple[str, str] | None  # (engine, variant) of the rung it starts from; None: from zero


def runtime_top(storage: bool) -> tuple[str, str]:
    """The rung the engine's own part starts from: `runc run` on an overlay layer when the run measured
    it (storage), else `runc run` with a network namespace."""
    return ("bare", "runc_overlay" if storage else "runc_con_netns")


def has_storage(df: pd.DataFrame) -> bool:
    """Whether a run measured the overlay rung (`runc run` on an overlay layer)."""
    return values(df, "bare", "runc_overlay").size > 0


def waterfall_parts(engine: str, storage: bool = True) -> list[Part]:
    """How an engine's `run` (default network) splits into differences of consecutive rungs; without
    the overlay rung (storage=False), mounting the writable layer stays inside the engine's part."""
    parts = [
        Part("proceso", "crear un proceso", BASELINE, None),
        Part(
            "espacios",
            "espacios de nombres (mount, UTS, IPC, PID, red)",
            ("bare", USUAL_NAMESPACES),
            BASELINE,
        ),
        Part(
            "runtime",
            "runtime OCI (runc: configuración, cgroups, pivot_root…)",
            ("bare", "runc_con_netns"),
            ("bare", USUAL_NAMESPACES),
        ),
    ]
    if storage:
        parts.append(
            Part(
                "almacenamiento",
                "almacenamiento: montar y desmontar una capa overlay (mount(2) y umount2(2))",
                ("bare", "runc_overlay"),
                ("bare", "runc_con_netns"),
            )
        )
    return parts + [
        Part(
            "motor",
            "el motor: CLI, API, registro, sus capas y su limpieza (sin red)",
            (engine, "run_sin_red"),
            runtime_top(storage),
        ),
        Part(
            "red",
            "la red por defecto: crearla al arrancar y deshacerla al terminar (bridge, veth, iptables)",
            (engine, "run_red"),
            (engine, "run_sin_red"),
        ),
    ]


WATERFALL_COLUMNS = [
    "engine",
    "parte",
    "etiqueta",
    "ms",
    "ic_bajo_ms",
    "ic_alto_ms",
    "fraccion",
    "fraccion_ic_bajo",
    "fraccion_ic_alto",
    "inferido",
    "desde",
    "hasta",
]
# On the row of the largest share only: its lead over the next-largest part (share_gap, points of the
# whole, round by round) with its IC 95 % and n; NaN on the other rows. largest_part reads it.
LEAD_COLUMNS = ["ventaja_pp", "ventaja_ic_bajo_pp", "ventaja_ic_alto_pp", "ventaja_n"]


def part_shares(df: pd.DataFrame, engine: str) -> dict[str, pd.Series]:
    """Each waterfall part's share of the engine's `run` (default network), round by round: {part: its
    per-round fraction (the part's rung difference ÷ that round's `run`), indexed by round}."""
    total = series(df, engine, "run_red")
    out = {}
    for part in waterfall_parts(engine, has_storage(df)):
        upper = series(df, *part.upper)
        if part.lower is None:
            out[part.key] = stats.round_figures(stats.quotient, upper, total)
        else:
            out[part.key] = stats.round_figures(_share_of_difference, upper, series(df, *part.lower), total)
    return out


def _share_of_difference(upper, lower, total):
    return (upper - lower) / total


def _points_apart(a, b):
    return 100 * (a - b)


def share_gap(a: pd.Series, b: pd.Series) -> stats.Estimate:
    """Share a minus share b (fractions of one whole, indexed by round), in points, round by round, with
    its IC 95 %: what «a weighs more than b» is decided on (verdict.exceeds)."""
    return stats.figure_ci(_points_apart, a, b)


def with_lead(frame: pd.DataFrame, shares: dict[str, pd.Series], key: str) -> pd.DataFrame:
    """`frame` (one row per part, `fraccion` its median share) with LEAD_COLUMNS: on the row of the
    largest share, its share_gap over the next one, from `shares` (each part's per-round share, under the
    value of the row's column `key`)."""
    out = frame.copy()
    for column in LEAD_COLUMNS:
        out[column] = np.nan
    ranked = _ranked(out)
    if len(ranked) > 1:
        top, rival = ranked.index[:2]
        gap = share_gap(shares[out.at[top, key]], shares[out.at[rival, key]])
        out.loc[top, LEAD_COLUMNS] = [*gap.triple, gap.n]
    return out


def _ranked(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["fraccion"].notna()].sort_values("fraccion", ascending=False, kind="stable")


def waterfall(df: pd.DataFrame, engine: str) -> pd.DataFrame:
    """Each part of the engine's `run` (default network) in ms and as a share of it, with intervals.
    Every part but the first is a difference of two rungs: an inference (inferido=True). Every figure is
    computed round by round (the rungs share their rounds): the median over rounds of the part, and of
    the part ÷ that round's `run`, with the paired interval. The network's part is network_costs's (the
    one place that decides it, and the figure the claim «red_grande» judges), so the waterfall, the
    verdict and the pages that cite 04 give one share; the engine's own part is engine_own_parts's, so
    the waterfall and the sentence under it give one figure. Being medians of each part, the parts add up to
    the run's median only roughly (run_median says how far)."""
    rows = []
    storage = has_storage(df)
    network = network_costs(df).get(engine)
    own = engine_own_parts(df).get(engine)
    shares = part_shares(df, engine)
    for part in waterfall_parts(engine, storage):
        upper = series(df, *part.upper)
        share = stats.median_ci(shares[part.key]).triple
        if part.key == "red" and network:
            value, (lo, hi) = network["red_ms"], network["red_ic"]
            share = (network["fraccion"], *network["fraccion_ic"])
        elif part.lower is None:
            value, lo, hi = stats.median_ci(upper).triple
        else:
            lower = series(df, *part.lower)
            value, lo, hi = (
                own[:3] if part.key == "motor" and own else stats.difference_ci(upper, lower).triple
            )
        rows.append(
            {
                "engine": engine,
                "parte": part.key,
                "etiqueta": part.label,
                "ms": value,
                "ic_bajo_ms": lo,
                "ic_alto_ms": hi,
                "fraccion": share[0],
                "fraccion_ic_bajo": share[1],
                "fraccion_ic_alto": share[2],
                "inferido": part.lower is not None,
                "desde": RUNG_LABEL[part.lower[1]] if part.lower else "",
                "hasta": RUNG_LABEL[part.upper[1]],
            }
        )
    return with_lead(pd.DataFrame(rows, columns=WATERFALL_COLUMNS), shares, "parte")


def largest_part(frame: pd.DataFrame) -> tuple[pd.Series | None, pd.Series | None, bool]:
    """(top, rival, separated) of a frame with_lead gave (a waterfall, a Pod's phases): the part with
    the largest share, the next one, and whether the top weighs more by the one rule: its lead over the
    rival, round by round, above 0 (verdict.exceeds; only then is it named the largest part). (None, None,
    False) for a frame without shares."""
    w = _ranked(frame)
    if w.empty:
        return None, None, False
    top = w.iloc[0]
    if len(w) == 1:
        return top, None, True
    gap = lead_of(top)
    return top, w.iloc[1], exceeds(gap.low, gap.high, gap.n)


def lead_of(row: pd.Series) -> stats.Estimate:
    """The lead a with_lead frame's largest part carries (LEAD_COLUMNS), as a stats.Estimate in points."""
    n = row.get("ventaja_n")
    return stats.Estimate(
        float(row.get("ventaja_pp", np.nan)),
        float(row.get("ventaja_ic_bajo_pp", np.nan)),
        float(row.get("ventaja_ic_alto_pp", np.nan)),
        0 if pd.isna(n) else int(n),
        stats.ORDER,
        paired=True,
    )


def phase_gap(df: pd.DataFrame, engine: str, a: str, b: str) -> stats.Estimate:
    """Phase a's time minus phase b's (metrics of the «fases» rung), round by round, in ms, with its IC
    95 %: what «a is the longer phase» is decided on (verdict.exceeds)."""
    return stats.difference_ci(series(df, engine, "fases", a), series(df, engine, "fases", b))


def run_median(df: pd.DataFrame, engine: str) -> float:
    """The median of the engine's `run` with the default network (the waterfall's whole), in ms."""
    total = values(df, engine, "run_red")
    return float(np.median(total)) if total.size else np.nan


def engine_own_parts(df: pd.DataFrame) -> dict:
    """Each engine's own part of LAUNCH with its IC, paired by round: {engine: (ms, low, high, n)}, and
    under "podman/docker" the ratio of the two parts with its IC (a figure of this notebook's
    conditions: `--network none`, against `runc run` from runtime_top, the waterfall's own rung: the one
    place that computes it; «is Podman faster to start?» is decided in 01)."""
    runc = series(df, *runtime_top(has_storage(df)))
    out: dict = {}
    nones = {}
    for engine in eng.CONTAINER_ENGINES:
        none = series(df, engine, "run_sin_red")
        if runc.size and none.size:
            nones[engine] = none
            out[engine] = (*stats.difference_ci(none, runc).triple, stats.n_of(none, runc))
    if len(nones) == 2:
        fig = stats.figure_ci(
            lambda p, d, r: (p - r) / (d - r), nones["podman"], nones["docker"], runc
        ).triple
        out["podman/docker"] = (*fig, stats.n_of(nones["podman"], nones["docker"], runc))
    return out


def network_costs(df: pd.DataFrame, run_id: str = "") -> dict:
    """{engine: {"con_red_ms", "sin_red_ms", "red_ms", "red_ic", "fraccion", "fraccion_ic", "n", "run_id"}}:
    what the default network adds to each engine's `run` and its share of that `run`, both round by round
    (the median over rounds of `run` − `run --network none`, and of that ÷ `run`, with the paired IC);
    only engines with both arms. The one place that decides the network's share of LAUNCH: the
    waterfall's «red» part, the claim «red_grande», the closing rows and the pages that cite 04 read it."""
    out = {}
    for engine in eng.CONTAINER_ENGINES:
        with_net, without = series(df, engine, "run_red"), series(df, engine, "run_sin_red")
        if not (with_net.size and without.size):
            continue
        diff = stats.difference_ci(with_net, without).triple
        share = stats.figure_ci(lambda a, b: (a - b) / a, with_net, without).triple
        out[engine] = {
            "con_red_ms": float(np.median(with_net)),
            "sin_red_ms": float(np.median(without)),
            "red_ms": diff[0],
            "red_ic": (diff[1], diff[2]),
            "fraccion": share[0],
            "fraccion_ic": (share[1], share[2]),
            "n": stats.n_of(with_net, without),
            "run_id": run_id,
        }
    return out


def network_podman_over_docker(df: pd.DataFrame) -> stats.Estimate:
    """Podman's network part over Docker's, round by round: (`run` − `run --network none`) of Podman ÷
    the same of Docker, with its paired IC (the rungs share their rounds); missing without the four arms.
    What each engine pays to set up and tear down its default network (netavark, dockerd's bridge), side
    by side: a figure of this notebook, no verdict."""
    arms = [series(df, e, v) for e in ("podman", "docker") for v in ("run_red", "run_sin_red")]
    if not all(a.size for a in arms):
        return stats.Estimate.missing()
    return stats.figure_ci(lambda pn, p0, dn, d0: (pn - p0) / (dn - d0), *arms)


def network_share(result: Resultado | None) -> dict:
    """The network's share of each engine's LAUNCH in a run of this experiment (network_costs).
    Notebook 01 cites it (view.arranque_condiciones.red_en_04), with the run it gets from
    experiments.read_run, beside its default-network and --network none figures. {} when there is no run
    or no engine with both arms."""
    if result is None or result.df.empty:
        return {}
    return network_costs(result.df, result.meta.get("run_id", ""))


# ---------------------------------------------------------------- closing table
def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Rows for the closing LAUNCH vs RUNNING table: the runtime alone, each engine's run without
    network, the warm pool, and the network's share (an inference)."""
    rows = []

    def add(concepto, entorno, value, low, high):
        rows.append(
            {
                "concepto": concepto,
                "tipo": "LAUNCH",
                "entorno": entorno,
                "valor": value,
                "ic_bajo": low,
                "ic_alto": high,
                "unidad": "ms",
            }
        )

    def add_measured(concepto, entorno, vals):
        if vals.size and not stats.unstable(vals):
            s = stats.summarize(vals)
            add(concepto, entorno, s.median, s.ci_low, s.ci_high)

    add_measured("runc run (sin motor)", "bare metal", values(df, "bare", "runc_con_netns"))
    shares = network_costs(df)
    for engine in eng.CONTAINER_ENGINES:
        label = eng.DISPLAY[engine]
        add_measured("run --network none", label, values(df, engine, "run_sin_red"))
        add_measured("start -a de un contenedor ya creado (pool caliente)", label, values(df, engine, "pool"))
        add_measured(
            "exec en un contenedor ya en marcha (pool caliente)", label, values(df, engine, "pool_exec")
        )
        share = shares.get(engine)
        if share and np.isfinite(share["red_ms"]):
            add(
                "la red por defecto: crearla y deshacerla (diferencia inferida)",
                label,
                share["red_ms"],
                *share["red_ic"],
            )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
