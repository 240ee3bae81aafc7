"""Experiment 4's Kubernetes rungs, analysed: a Pod's LAUNCH (apply → Ready) beside `docker run` of the
same rounds, split into its phases (each a median with its share of the total, round by round), and the
cluster's memory bill with N Pods in notebook 02's terms (escala.analysis.memory_bill), beside Docker's and
Podman's from notebook 02's latest run."""

from __future__ import annotations

import pandas as pd

from ... import stats
from ..escala.analysis import fit_bill, memory_bill, wide
from ..escala.probing import FIXED, KB
from ..runner import Resultado
from .analysis import series
from .pod import ENGINE, LAUNCH, PHASES, TOTAL

BESIDE = ("docker", "run_red")  # the ladder's `docker run` (default network), measured in the same rounds


def launch_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The launch rung's rows, one column per metric, one row per round."""
    sel = df[(df["engine"] == ENGINE) & (df["variant"] == LAUNCH) & (df["unit"] == "ms")]
    if sel.empty:
        return pd.DataFrame(columns=["rep", TOTAL])
    out = sel.pivot_table(index="rep", columns="metric", values="value", aggfunc="first")
    return out.rename_axis(columns=None)


def launch_summary(df: pd.DataFrame) -> dict:
    """The Pod's apply → Ready (median, IQR, IC 95 %), `docker run`'s of the same rounds, and the Pod
    over `docker run` round by round (ratio with its bootstrap IC)."""
    pod = series(df, ENGINE, LAUNCH, TOTAL)
    docker = series(df, *BESIDE)
    return {
        "pod": stats.summarize(pod.to_numpy()),
        "docker": stats.summarize(docker.to_numpy()),
        "veces": stats.ratio_ci(pod, docker),
    }


def phase_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per phase measured: its median and IQR (ms), its median share of the total (per round)
    and what it holds; `sin_repartir_ms`, the largest gap over the rounds between the total and the sum
    of its phases (0 by construction: the phases are consecutive intervals from the apply to Ready)."""
    rows = launch_rows(df)
    columns = ["metric", "fase", "mediana_ms", "q1_ms", "q3_ms", "parte", "incluye"]
    if rows.empty or TOTAL not in rows:
        return pd.DataFrame(columns=columns)
    total = rows[TOTAL]
    out = []
    for metric, _point, name, holds in PHASES:
        if metric not in rows:
            continue
        values = rows[metric].dropna()
        s = stats.summarize(values.to_numpy())
        share = (values / total.loc[values.index]).median()
        out.append([metric, name, s.median, s.q1, s.q3, float(share), holds])
    return pd.DataFrame(out, columns=columns)


def unaccounted_ms(df: pd.DataFrame) -> float:
    """The largest |total − sum of phases| over the rounds (ms): what no phase holds."""
    rows = launch_rows(df)
    phases = [m for m, *_ in PHASES if m in rows]
    if rows.empty or not phases:
        return float("nan")
    return float((rows[TOTAL] - rows[phases].fillna(0).sum(axis=1)).abs().max())


# ---------------------------------------------------------------- CAPACITY
def _bill_rows(df: pd.DataFrame, engine: str) -> pd.DataFrame:
    return df[(df["engine"] == engine) & df["variant"].astype(str).str.match(r"n=\d+$")]


def cluster_bill(df: pd.DataFrame) -> pd.DataFrame:
    """The cluster's bill per N (PSS, KB; median over rounds): notebook 02's columns (fijo, ayudantes =
    the shims, cgroup = the Pods' cgroups, pause included; total)."""
    rows = _bill_rows(df, ENGINE)
    return memory_bill(rows, "pss") if not rows.empty else pd.DataFrame()


def components(df: pd.DataFrame) -> pd.DataFrame:
    """Per N, median PSS (MiB) of each fixed component, of the shims and of the pause processes."""
    rows = _bill_rows(df, ENGINE)
    if rows.empty:
        return pd.DataFrame()
    w = wide(rows)
    keys = [*FIXED[ENGINE], "shims_total", "pause_total"]
    cols = {k: f"pss_{k}" for k in keys if f"pss_{k}" in w}
    out = w.groupby("n")[list(cols.values())].median() / KB
    return out.rename(columns={v: k for k, v in cols.items()}).reset_index()


def per_pod_kb(bill: pd.DataFrame) -> float:
    """What one more idle Pod adds (KB): notebook 02's slope of shims + cgroups over N (fit_bill); the
    fixed processes' own drift between rounds stays out of it."""
    fit = fit_bill(bill) if not bill.empty else {}
    return float(fit.get(ENGINE, {}).get("por_contenedor_kb", float("nan")))


def engines_bill(escala: Resultado | None) -> pd.DataFrame:
    """Docker's and Podman's bill (PSS) from notebook 02's run, at its smallest and largest N."""
    if escala is None or escala.df is None or escala.df.empty:
        return pd.DataFrame()
    bill = memory_bill(escala.df, "pss")
    ends = [g[g["n"].isin({g["n"].min(), g["n"].max()})] for _, g in bill.groupby("engine")]
    return pd.concat(ends).reset_index(drop=True) if ends else pd.DataFrame()


def cluster_start_s(meta: dict | None) -> float | None:
    """The cluster's start-up time (s, untimed by the rounds), as the run recorded it."""
    value = (meta or {}).get("kubernetes", {}).get("arranque_s")
    return float(value) if value is not None else None
