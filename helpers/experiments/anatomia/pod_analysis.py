"""Experiment 4's Kubernetes rungs, analysed: a Pod's LAUNCH (apply → Ready) beside `docker run` of the
same rounds, split into its phases (each a median with its share of the total, round by round), and the
cluster's memory bill with N Pods in notebook 02's terms (escala.analysis.memory_bill), beside Docker's and
Podman's from notebook 02's latest run; and the Pod's closing rows (with the ladder's: closing_rows)."""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from ... import stats
from ..contract import CLOSING_COLUMNS
from ..escala.analysis import fixed_memory, memory_bill, per_container, wide
from ..escala.probing import FIXED, KB
from ..runner import Resultado
from ..verdict import side
from .analysis import LEAD_COLUMNS, largest_part, series, with_lead
from .analysis import closing_rows as ladder_rows
from .pod import BESIDE, ENGINE, LAUNCH, PHASES, TOTAL


def beside(df: pd.DataFrame, engine: str) -> pd.Series:
    """`engine`'s `run` with the default network in the Pod's rounds: its arm in the cluster's loop
    (pod.BESIDE); in runs from before the cluster had a loop of its own (it idled under the whole
    ladder), the ladder's `run_red` of the same rounds."""
    again = series(df, engine, BESIDE)
    return again if again.size else series(df, engine, "run_red")


def launch_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The launch rung's rows, one column per metric, one row per round."""
    sel = df[(df["engine"] == ENGINE) & (df["variant"] == LAUNCH) & (df["unit"] == "ms")]
    if sel.empty:
        return pd.DataFrame(columns=["rep", TOTAL])
    out = sel.pivot_table(index="rep", columns="metric", values="value", aggfunc="first")
    return out.rename_axis(columns=None)


def launch_summary(df: pd.DataFrame) -> dict:
    """The Pod's apply → Ready and each engine's `run` with the default network of the same rounds
    (`beside`), for the engines measured: {"pod" or engine: median, IQR, IC 95 %}."""
    out = {"pod": stats.summarize(series(df, ENGINE, LAUNCH, TOTAL).to_numpy())}
    for engine in eng.CONTAINER_ENGINES:
        run = beside(df, engine)
        if run.size:
            out[engine] = stats.summarize(run.to_numpy())
    return out


def pod_over_engines(df: pd.DataFrame) -> dict[str, tuple[stats.Estimate, str]]:
    """The Pod's apply → Ready over each engine's `run` with the default network (`beside`), round by
    round (they share their rounds): {engine: (ratio with its IC, which way it points from 1× by
    the one rule, verdict.side)}, for the engines measured."""
    pod = series(df, ENGINE, LAUNCH, TOTAL)
    out = {}
    for engine in eng.CONTAINER_ENGINES:
        run = beside(df, engine)
        if pod.size and run.size:
            ratio = stats.ratio_ci(pod, run)
            out[engine] = (ratio, side(ratio.low, ratio.high, ratio.n))
    return out


def phase_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per phase measured: its median and IQR (ms), its share of the total (per round: the
    median share, `fraccion`, with its IC 95 %, as 04's waterfall gives its parts) and what it holds."""
    rows = launch_rows(df)
    columns = ["metric", "fase", "mediana_ms", "q1_ms", "q3_ms", "fraccion", "fraccion_ic_bajo"]
    columns += ["fraccion_ic_alto", "incluye"]
    if rows.empty or TOTAL not in rows:
        return pd.DataFrame(columns=[*columns, *LEAD_COLUMNS])
    total = rows[TOTAL]
    out, shares = [], {}
    for metric, _point, name, holds in PHASES:
        if metric not in rows:
            continue
        values = rows[metric].dropna()
        s = stats.summarize(values.to_numpy())
        shares[metric] = values / total.loc[values.index]
        share = stats.median_ci(shares[metric])
        out.append([metric, name, s.median, s.q1, s.q3, *share.triple, holds])
    return with_lead(pd.DataFrame(out, columns=columns), shares, "metric")


def dominant_phase(df: pd.DataFrame) -> tuple[pd.Series | None, pd.Series | None, bool]:
    """(top, rival, separated): the phase with the largest share of apply → Ready, the next one, and
    whether it weighs more, round by round, by the one rule: 04's rule for the largest part of a `run`
    (analysis.largest_part)."""
    return largest_part(phase_table(df))


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


def cluster_memory(df: pd.DataFrame) -> dict:
    """The cluster's CAPACITY in notebook 02's terms (KB, PSS): {"fijo": the control plane, the node's
    agents and the cluster's containerd (escala.analysis.fixed_memory), "por_pod": what one more idle
    Pod holds, its shim and its cgroup with its pause container (escala.analysis.per_container), "n": the
    N of that figure}; {} without the bill's rows."""
    rows = _bill_rows(df, ENGINE)
    fixed = fixed_memory(rows, (ENGINE,)).get(ENGINE)
    each = per_container(rows, (ENGINE,)).get(ENGINE)
    if fixed is None or each is None:
        return {}
    return {"fijo": fixed, "por_pod": each["memoria_kb"], "n": each["n"]}


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


# ---------------------------------------------------------------- the closing table
def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """The ladder's closing rows (analysis.closing_rows), then the Pod's: its LAUNCH (apply → Ready) and
    the cluster's CAPACITY (fixed processes; one more idle Pod), each with its IC 95 %; an unstable launch
    is left out, as the ladder's are."""
    rows = [ladder_rows(df, meta)]
    pod = series(df, ENGINE, LAUNCH, TOTAL).to_numpy(float)
    label = eng.DISPLAY[ENGINE]
    new = []
    if pod.size and not stats.unstable(pod):
        s = stats.summarize(pod)
        new.append(
            (
                "un Pod: `kubectl apply` → Ready (clúster de un nodo)",
                "LAUNCH",
                s.median,
                s.ci_low,
                s.ci_high,
                "ms",
            )
        )
    memory = cluster_memory(df)
    if memory:
        for concept, key in (
            ("procesos fijos del clúster (plano de control, kubelet, kube-proxy, containerd; PSS)", "fijo"),
            (f"cada Pod más en reposo (su shim y su cgroup, con pause; PSS, N = {memory['n']})", "por_pod"),
        ):
            new.append((concept, "CAPACITY", *(v / KB for v in memory[key].triple), "MiB"))
    if new:
        rows.append(
            pd.DataFrame(
                [dict(zip(CLOSING_COLUMNS, (c, t, label, v, lo, hi, u))) for c, t, v, lo, hi, u in new],
                columns=CLOSING_COLUMNS,
            )
        )
    return pd.concat(rows, ignore_index=True) if len(rows) > 1 else rows[0]
