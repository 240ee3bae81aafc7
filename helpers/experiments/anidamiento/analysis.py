"""Summaries, what each level costs against the level above, the chapter's ratios next to this run's,
and the rows of the closing table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from .. import figures
from ..contract import CLOSING_COLUMNS
from .levels import (
    BASE_OF,
    METRIC_START,
    METRIC_START_INNER,
    METRIC_WORK,
    METRIC_WORK_E2E,
    PRIV,
    VARIANTS,
    level_of,
)

SUMMARY_COLUMNS = [
    "engine",
    "variant",
    "nivel",
    "metric",
    "unit",
    "n",
    "mediana",
    "q1",
    "q3",
    "minimo",
    "ic_bajo",
    "ic_alto",
    "inestable",
]
RATIO_COLUMNS = ["engine", "variant", "base", "ratio", "ic_bajo", "ic_alto", "inestable", "n"]
COMPARE_COLUMNS = [
    "medida",
    "engine",
    "variant",
    "base",
    "referencia",
    "tu_proporcion",
    "tu_ic_bajo",
    "tu_ic_alto",
    "coincide",
]


def arm_values(df: pd.DataFrame, engine: str, variant: str, metric: str) -> pd.Series:
    """One arm's values indexed by round (`rep`): the arms are measured in the same rounds, so a ratio of
    two of them is computed round by round (paired, helpers.stats)."""
    if df is None or df.empty:
        return pd.Series([], dtype=float)
    sel = df[(df["engine"] == engine) & (df["variant"] == variant) & (df["metric"] == metric)]
    return pd.Series(sel["value"].to_numpy(dtype=float), index=sel["rep"].to_numpy()).dropna()


def pick(table: pd.DataFrame, **where) -> pd.Series | None:
    """The first row of `table` whose columns equal `where`, or None."""
    sel = table
    for key, value in where.items():
        sel = sel[sel[key] == value]
    return None if sel.empty else sel.iloc[0]


def _variant_order(variant: str) -> int:
    return VARIANTS.index(variant) if variant in VARIANTS else 99


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Per engine, variant and metric: n, median, IQR, min, IC 95 % of the median; `inestable` flags a
    spread that dwarfs the median (kept out of ratios and verdicts)."""
    if df is None or df.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    rows = []
    for (engine, variant, metric), group in df.groupby(["engine", "variant", "metric"], sort=False):
        values = group["value"].to_numpy(dtype=float)
        s = stats.summarize(values)
        rows.append(
            {
                "engine": engine,
                "variant": variant,
                "nivel": level_of(variant),
                "metric": metric,
                "unit": group["unit"].iloc[0],
                **s.columns(),
                "inestable": stats.unstable(values),
            }
        )
    out = pd.DataFrame(rows)
    out["_o"] = out["variant"].map(_variant_order)
    return out.sort_values(["metric", "engine", "_o"]).drop(columns="_o").reset_index(drop=True)


def base_of(engine: str, variant: str) -> tuple[str, str] | None:
    """The arm a variant is measured against: the level right above it (level 1: bare metal)."""
    base = BASE_OF.get(variant)
    return None if base is None else (base[0] or engine, base[1])


def level_ratios(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Each nested arm against the level right above it (nivel2 / nivel1, nivel3 / nivel2, ...), and each
    level-1 arm against bare metal: the ratio computed round by round, with its IC 95 % (helpers.stats)."""
    if df is None or df.empty:
        return pd.DataFrame(columns=RATIO_COLUMNS)
    rows = []
    present = set(zip(df["engine"], df["variant"]))
    for engine, variant in sorted(present, key=lambda p: (p[0], _variant_order(p[1]))):
        base = None if engine == "bare" else base_of(engine, variant)
        if base is None or base not in present:
            continue
        num, den = arm_values(df, engine, variant, metric), arm_values(df, *base, metric)
        if num.size == 0 or den.size == 0:
            continue
        r, lo, hi = stats.ratio_ci(num, den).triple
        rows.append(
            {
                "engine": engine,
                "variant": variant,
                "base": f"{base[0]}:{base[1]}",
                "ratio": r,
                "ic_bajo": lo,
                "ic_alto": hi,
                "inestable": stats.unstable(num) or stats.unstable(den),
                "n": stats.n_of(num, den),
            }
        )
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)


# The repository (scripts/exp4_nested.sh) times its startup and its CPU work from the host, the `exec`s
# included; both of this run's readings (from the host with the `exec`s, and the inner part alone) are set
# against them: (ours, the repository's).
COMPARED = (
    (METRIC_START_INNER, METRIC_START),
    (METRIC_START, METRIC_START),
    (METRIC_WORK, METRIC_WORK_E2E),
    (METRIC_WORK_E2E, METRIC_WORK_E2E),
)


def published(reference: pd.DataFrame) -> pd.DataFrame:
    """The repository's raw repetitions reduced to what its page prints: one median per arm and metric
    (06_nested.md's tables are the medians of scripts/results/exp4_nested.csv), as a one-round run."""
    keys = ["engine", "variant", "metric"]
    return reference.groupby(keys, as_index=False)["value"].median().assign(rep=1)


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """The repository's ratios (experiment 4; per level, against the level above) next to this run's, for
    startup and CPU. Its figures are the ratios of the medians its page prints (`published`); here the
    paired ratio with its IC; `coincide` is figures.agreement (live ÷ reference against the margin of
    «about 1»)."""
    rows = []
    for metric, ref_metric in COMPARED:
        live = level_ratios(df, metric)
        ref = (
            level_ratios(published(reference), ref_metric)
            if reference is not None and len(reference)
            else live.iloc[0:0]
        )
        for _, r in ref.iterrows():
            mine = pick(live, engine=r["engine"], variant=r["variant"])
            rows.append(
                {
                    "medida": metric,
                    "engine": r["engine"],
                    "variant": r["variant"],
                    "base": r["base"],
                    "referencia": r["ratio"],
                    "tu_proporcion": np.nan if mine is None else mine["ratio"],
                    "tu_ic_bajo": np.nan if mine is None else mine["ic_bajo"],
                    "tu_ic_alto": np.nan if mine is None else mine["ic_alto"],
                    "coincide": None
                    if mine is None
                    else figures.agreement(
                        (mine["ratio"], mine["ic_bajo"], mine["ic_alto"]), (r["ratio"], np.nan, np.nan)
                    ),
                }
            )
    return pd.DataFrame(rows, columns=COMPARE_COLUMNS)


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """For the closing LAUNCH vs RUNNING table: what one more level costs, as a ratio to the level above
    (startup: LAUNCH; CPU work: RUNNING)."""
    rows = []
    for metric, tipo, concepto in (
        (METRIC_START_INNER, "LAUNCH", "arranque anidado (nivel 2 / nivel 1)"),
        (METRIC_WORK, "RUNNING", "trabajo de CPU anidado (nivel 2 / nivel 1)"),
    ):
        for _, r in level_ratios(df, metric).iterrows():
            if r["variant"] == PRIV and not r["inestable"]:
                rows.append(
                    {
                        "concepto": concepto,
                        "tipo": tipo,
                        "entorno": r["engine"],
                        "valor": r["ratio"],
                        "ic_bajo": r["ic_bajo"],
                        "ic_alto": r["ic_alto"],
                        "unidad": "x",
                    }
                )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
