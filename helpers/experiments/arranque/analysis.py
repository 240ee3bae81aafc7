"""Experiment 1's analysis: summaries per arm, ratios, the reference and the closing rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import results, stats
from ..contract import CLOSING_COLUMNS
from ..verdict import agreement
from .measure import METRIC

BASELINE = ("bare", "proceso")


def with_roles(df: pd.DataFrame, meta: dict | None) -> pd.DataFrame:
    """Add `role` (alpine/ubuntu) to the rows; see helpers.results.add_roles."""
    return results.add_roles(df, meta)


def summarize(df: pd.DataFrame, meta: dict | None = None, *, baseline=BASELINE) -> pd.DataFrame:
    """One row per (engine, role, variant): n, median, IQR, min, IC 95 % and x baseline with its IC."""
    df = with_roles(df[df["metric"] == METRIC], meta)
    base = df[(df["engine"] == baseline[0]) & (df["variant"] == baseline[1])]["value"].to_numpy()
    rows = []
    for (engine_name, role, variant), group in df.groupby(["engine", "role", "variant"], sort=False):
        values = group["value"].to_numpy()
        s = stats.summarize(values)
        ratio, lo, hi = stats.ratio_ci(values, base) if base.size else (np.nan,) * 3
        rows.append(
            {
                "engine": engine_name,
                "role": role,
                "variant": variant,
                "image": group["image"].iloc[0],
                "n": s.n,
                "mediana_ms": s.median,
                "q1_ms": s.q1,
                "q3_ms": s.q3,
                "min_ms": s.minimum,
                "ic_bajo_ms": s.ci_low,
                "ic_alto_ms": s.ci_high,
                "x_bare": ratio,
                "x_bare_ic_bajo": lo,
                "x_bare_ic_alto": hi,
            }
        )
    order = {"bare": 0, "docker": 1, "podman": 2}
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    return out.sort_values(
        by=["engine", "role", "variant"], key=lambda c: c.map(order) if c.name == "engine" else c
    ).reset_index(drop=True)


def arm_values(df: pd.DataFrame, meta: dict | None, key: tuple[str, str]) -> np.ndarray:
    """Raw repetitions of one arm: (engine, role) for a container arm, ("bare", variant) on bare metal."""
    df = with_roles(df[df["metric"] == METRIC], meta)
    engine_name, what = key
    col = "variant" if engine_name == "bare" else "role"
    return df[(df["engine"] == engine_name) & (df[col] == what)]["value"].to_numpy()


def pair_ratio(
    df: pd.DataFrame, meta: dict | None, a: tuple[str, str], b: tuple[str, str]
) -> tuple[float, float, float]:
    """Median ratio a/b with a bootstrap IC; a and b are (engine, role) of container arms, or
    ("bare", variant)."""
    return stats.ratio_ci(arm_values(df, meta, a), arm_values(df, meta, b))


def unstable_arms(df: pd.DataFrame, meta: dict | None) -> set[tuple[str, str, str]]:
    """(engine, role, variant) of the arms whose spread dwarfs their median (stats.unstable)."""
    d = with_roles(df[df["metric"] == METRIC], meta)
    return {key for key, g in d.groupby(["engine", "role", "variant"]) if stats.unstable(g["value"])}


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Live ratios next to the reference's, per container combination, each with its IC 95 %.

    The reference's intervals are bootstrapped from its own raw repetitions, the same way as the live
    ones, and `acuerdo_*` says whether the two intervals overlap (base.agreement). The reference's
    bare-metal row was measured with the chapter's method, so x bare metal is compared against the same
    method measured here (`tu_x_bare_metodo_semilla`); the real process is shown beside it."""
    live = summarize(df, meta)
    ref = summarize(reference, None, baseline=("bare", "metodo_semilla"))
    has_seed_way = bool(((df["engine"] == "bare") & (df["variant"] == "metodo_semilla")).any())
    live_seed = summarize(df, meta, baseline=("bare", "metodo_semilla")) if has_seed_way else None
    nan3 = (np.nan, np.nan, np.nan)
    rows = []
    for _, r in ref[ref["engine"] != "bare"].iterrows():
        row = {
            "engine": r["engine"],
            "role": r["role"],
            "ref_mediana_ms": r["mediana_ms"],
            "ref_x_bare": r["x_bare"],
            "ref_x_bare_ic_bajo": r["x_bare_ic_bajo"],
            "ref_x_bare_ic_alto": r["x_bare_ic_alto"],
            "tu_mediana_ms": np.nan,
            "tu_x_bare_proceso": np.nan,
        }
        seed_way = nan3
        match = live[(live["engine"] == r["engine"]) & (live["role"] == r["role"])]
        if not match.empty:
            row["tu_mediana_ms"] = match.iloc[0]["mediana_ms"]
            row["tu_x_bare_proceso"] = match.iloc[0]["x_bare"]
            if live_seed is not None:
                ms = live_seed[(live_seed["engine"] == r["engine"]) & (live_seed["role"] == r["role"])]
                if not ms.empty:
                    seed_way = tuple(ms.iloc[0][["x_bare", "x_bare_ic_bajo", "x_bare_ic_alto"]])
        (
            row["tu_x_bare_metodo_semilla"],
            row["tu_x_bare_metodo_semilla_ic_bajo"],
            row["tu_x_bare_metodo_semilla_ic_alto"],
        ) = seed_way
        row["acuerdo_x_bare"] = agreement(seed_way, (r["x_bare"], r["x_bare_ic_bajo"], r["x_bare_ic_alto"]))
        rows.append(row)
    out = pd.DataFrame(rows)
    # Podman/Docker per image, with both intervals and whether they overlap.
    for role in out["role"].unique():
        ref_pd = stats.ratio_ci(
            arm_values(reference, None, ("podman", role)), arm_values(reference, None, ("docker", role))
        )
        live_pd = stats.ratio_ci(
            arm_values(df, meta, ("podman", role)), arm_values(df, meta, ("docker", role))
        )
        at = out["role"] == role
        for prefix, (value, low, high) in (("ref", ref_pd), ("tu", live_pd)):
            out.loc[at, f"{prefix}_podman_sobre_docker"] = value
            out.loc[at, f"{prefix}_podman_sobre_docker_ic_bajo"] = low
            out.loc[at, f"{prefix}_podman_sobre_docker_ic_alto"] = high
        out.loc[at, "acuerdo_podman_sobre_docker"] = agreement(live_pd, ref_pd)
    return out


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """LAUNCH rows of the closing table: `echo ok` as a new process on bare metal, and a new container
    (`run --rm … echo ok`) per engine and image role; unstable arms are left out."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
    shaky = unstable_arms(df, meta)
    for _, r in summarize(df, meta).iterrows():
        if (r["engine"], r["role"], r["variant"]) in shaky:
            continue
        if r["engine"] == "bare":
            if r["variant"] != BASELINE[1]:
                continue
            concepto = "arrancar `echo ok` como proceso nuevo"
        else:
            concepto = f"arrancar un contenedor nuevo (`run --rm … echo ok`, imagen «{r['role']}»)"
        rows.append(
            {
                "concepto": concepto,
                "tipo": "LAUNCH",
                "entorno": r["engine"],
                "valor": r["mediana_ms"],
                "ic_bajo": r["ic_bajo_ms"],
                "ic_alto": r["ic_alto_ms"],
                "unidad": "ms",
            }
        )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
