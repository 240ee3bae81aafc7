"""Experiment 2's figures for the chapter's claims, each with its IC 95 %, where n always counts
repetitions: a figure at one N compares arms measured in the same rounds (pandas Series indexed by
round: stats pairs them round by round); a figure across N resamples the repetitions within each N,
never pooling (N, repetition) rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from .analysis import column, wide

NONE = stats.Estimate.missing(method=stats.BOOTSTRAP)


def series_at(w: pd.DataFrame, engine_name: str, metric: str, n: int) -> pd.Series:
    """One metric of one engine at one N, indexed by repetition (round)."""
    g = w[(w["engine"] == engine_name) & (w["n"] == n)]
    return pd.Series(column(g, metric).to_numpy(float), index=g["rep"].to_numpy(int)).dropna()


def ratio_at(df: pd.DataFrame, metric: str, n: int | None) -> stats.Estimate:
    """Podman/Docker of the medians of `metric` at N = n, both engines measured in the same rounds (n
    counts repetitions)."""
    if n is None:
        return stats.Estimate.missing()
    w = wide(df)
    p, d = series_at(w, "podman", metric, n), series_at(w, "docker", metric, n)
    if p.empty or d.empty:
        return stats.Estimate.missing()
    return stats.ratio_ci(p, d)  # paired by round


def fixed_ratio(df: pd.DataFrame) -> tuple[stats.Estimate, int]:
    """dockerd's RSS with the most containers over its RSS with none (N = 0), in the same rounds, and
    that largest N."""
    w = wide(df)
    ns = sorted(set(w.loc[w["engine"] == "docker", "n"]))
    if not ns or ns[0] != 0 or len(ns) < 2:
        return stats.Estimate.missing(), 0
    top = series_at(w, "docker", "rss_daemon", ns[-1])
    zero = series_at(w, "docker", "rss_daemon", 0)
    if top.empty or zero.empty:
        return stats.Estimate.missing(), ns[-1]
    return stats.ratio_ci(top, zero), ns[-1]


def _resampled_medians(values: np.ndarray, rng, resamples: int) -> np.ndarray:
    return np.median(rng.choice(values, size=(resamples, values.size), replace=True), axis=1)


def per_container_medians(df: pd.DataFrame) -> pd.DataFrame:
    """Median ms per container of each (engine, N > 0) and its repetitions."""
    w = wide(df)
    w = w[w["n"] > 0].dropna(subset=["lanzamiento_por_contenedor"]) if len(w) else w
    if w.empty:
        return pd.DataFrame(columns=["engine", "n", "ms", "repeticiones"])
    g = w.groupby(["engine", "n"])
    return pd.DataFrame(
        {"ms": g["lanzamiento_por_contenedor"].median(), "repeticiones": g["rep"].nunique()}
    ).reset_index()


def growth(w: pd.DataFrame, engine_name: str, metric: str = "lanzamiento_por_contenedor") -> pd.Series:
    """How much `metric` per container grows from the smallest N to the largest, round by round (indexed
    by round): the least-squares slope of log(value) on N over that round's N > 0, as the factor it
    gives across the range of N (exp(slope × (N largest − N smallest)); with two N, their ratio). Every
    round launches every N, so the slope of one round sees the same machine at every N; rounds with
    fewer than two N (or a value ≤ 0) are left out."""
    g = w[(w["engine"] == engine_name) & (w["n"] > 0)] if len(w) else w
    if g.empty or metric not in g.columns:
        return pd.Series(dtype=float)
    out = {}
    for rep, r in g.dropna(subset=[metric]).groupby("rep"):
        ns, vals = r["n"].to_numpy(float), r[metric].to_numpy(float)
        if np.unique(ns).size < 2 or (vals <= 0).any():
            continue
        slope = np.polyfit(ns, np.log(vals), 1)[0]
        out[int(rep)] = float(np.exp(slope * (ns.max() - ns.min())))
    return pd.Series(out, dtype=float)


def steadiness(df: pd.DataFrame) -> tuple[stats.Estimate, dict]:
    """Podman's growth of ms per container across N (`growth`, its slope in each round) over Docker's
    in the same round, with the order-statistic IC 95 % of the median of those per-round ratios (n:
    rounds); and each engine's own growth {engine: (value, low, high)} with its IC."""
    w = wide(df)
    per_engine = {e: growth(w, e) for e in ("docker", "podman")}
    if any(s.empty for s in per_engine.values()):
        return NONE, {}
    own = {e: stats.median_ci(s).triple for e, s in per_engine.items()}
    return stats.ratio_ci(per_engine["podman"], per_engine["docker"]), own


def seed_crossover(
    df: pd.DataFrame, *, resamples: int = 2000, seed: int = stats.BOOTSTRAP_SEED
) -> stats.Estimate:
    """The chapter's own arithmetic on this run: dockerd's RSS (its median over every N) divided by
    the RSS of one conmon (the slope through the origin of the conmons' total against N). The IC 95 %
    resamples the repetitions within each (engine, N); n: the fewest repetitions."""
    w = wide(df)
    if w.empty or not {"rss_daemon", "rss_conmon_total"} <= set(w.columns):
        return NONE
    rng = np.random.default_rng(seed)
    daemon_draws, daemon_points, reps = [], [], []
    for _, g in w[w["engine"] == "docker"].groupby("n"):
        values = column(g, "rss_daemon").dropna().to_numpy(float)
        if values.size:
            reps.append(values.size)
            daemon_points.append(np.median(values))
            daemon_draws.append(_resampled_medians(values, rng, resamples))
    ns, conmon_points, conmon_draws = [], [], []
    for n, g in w[(w["engine"] == "podman") & (w["n"] > 0)].groupby("n"):
        values = column(g, "rss_conmon_total").dropna().to_numpy(float)
        if values.size:
            reps.append(values.size)
            ns.append(float(n))
            conmon_points.append(np.median(values))
            conmon_draws.append(_resampled_medians(values, rng, resamples))
    if not daemon_points or not ns:
        return NONE
    n_arr = np.array(ns)

    def slope(totals):
        return (n_arr[:, None] * totals).sum(axis=0) / (n_arr**2).sum()

    value = float(np.median(daemon_points) / slope(np.array(conmon_points)[:, None])[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = np.median(np.vstack(daemon_draws), axis=0) / slope(np.vstack(conmon_draws))
    boot = boot[np.isfinite(boot)]
    low, high = np.quantile(boot, [0.025, 0.975]) if boot.size else (np.nan, np.nan)
    return stats.Estimate(value, float(low), float(high), min(reps), stats.BOOTSTRAP)
