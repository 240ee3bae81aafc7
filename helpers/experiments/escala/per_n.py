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


def steadiness(
    df: pd.DataFrame, *, resamples: int = 2000, seed: int = stats.BOOTSTRAP_SEED
) -> tuple[stats.Estimate, dict]:
    """Podman's range of ms per container across N (the widest minus the narrowest of its per-N
    medians) over Docker's, with an IC 95 % that resamples the repetitions within each (engine, N);
    n: the fewest repetitions of any (engine, N). And {engine: (low ms, high ms)}."""
    w = wide(df)
    w = w[w["n"] > 0] if len(w) else w
    if w.empty or not {"docker", "podman"} <= set(w["engine"]):
        return NONE, {}
    rng = np.random.default_rng(seed)
    widths, boot, ranges, reps = {}, {}, {}, []
    for engine_name in ("docker", "podman"):
        medians, draws = [], []
        for _, g in w[w["engine"] == engine_name].groupby("n"):
            values = column(g, "lanzamiento_por_contenedor").dropna().to_numpy(float)
            if not values.size:
                continue
            reps.append(values.size)
            medians.append(np.median(values))
            draws.append(_resampled_medians(values, rng, resamples))
        if len(medians) < 2:
            return NONE, {}
        widths[engine_name] = max(medians) - min(medians)
        ranges[engine_name] = (float(min(medians)), float(max(medians)))
        stacked = np.vstack(draws)
        boot[engine_name] = stacked.max(axis=0) - stacked.min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = widths["podman"] / widths["docker"] if widths["docker"] else np.nan
        ratios = boot["podman"] / boot["docker"]
    ratios = ratios[np.isfinite(ratios)]
    if not ratios.size:
        return stats.Estimate(float(value), np.nan, np.nan, min(reps), stats.BOOTSTRAP), ranges
    low, high = np.quantile(ratios, [0.025, 0.975])
    return stats.Estimate(float(value), float(low), float(high), min(reps), stats.BOOTSTRAP), ranges


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
