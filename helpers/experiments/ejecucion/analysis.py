"""Experiment 3's analysis: summaries, the cost of `exec`, overheads against both baselines, the
comparison with the reference and the closing rows. Pure functions of the rows (raw.csv or the
reference); the chapter's claims are in claims.py."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import measure
from ..contract import CLOSING_COLUMNS
from ..verdict import SIN_DATOS, agreement
from .arms import (
    BASE_NAMES,
    ENVIRONMENTS,
    EXEC_TRUE,
    METRIC_E2E,
    METRIC_WORK,
    PLACE_NAMES,
    PLACES,
    WORKLOAD_NAMES,
    WORKLOADS,
)


def tidy(df: pd.DataFrame) -> pd.DataFrame:
    """Add carga, lugar and entorno (bare / chroot / docker / podman) to raw or reference rows."""
    df = df.copy()
    split = df["variant"].fillna("").str.partition(":")
    df["carga"], df["lugar"] = split[0], split[2]
    image = df["image"].fillna("")
    df["entorno"] = np.where((df["engine"] == "bare") & (image != ""), "chroot", df["engine"])
    return df


def samples(df: pd.DataFrame, metric: str, carga: str, entorno: str, lugar: str = "") -> np.ndarray:
    """The repetitions of one workload (carga, lugar) in one environment, in raw units (rows through
    `tidy`)."""
    sel = df[
        (df["metric"] == metric)
        & (df["carga"] == carga)
        & (df["entorno"] == entorno)
        & (df["lugar"] == lugar)
    ]
    return sel["value"].to_numpy(dtype=float)


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    rank = {name: i for i, name in enumerate((EXEC_TRUE, *WORKLOADS, *PLACES, *ENVIRONMENTS))}
    key = lambda col: col.map(lambda v: rank.get(v, 99)) if col.name in ("carga", "lugar", "entorno") else col
    return frame.sort_values(
        [c for c in ("carga", "lugar", "entorno", "metric") if c in frame], key=key
    ).reset_index(drop=True)


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per (carga, lugar, entorno, metric): n, median, IQR, min and IC 95 % of the median, in
    seconds; MB/s for `escritura` and `hash` when the size is known."""
    data = tidy(df)
    size = ((meta or {}).get("parameters") or {}).get("tamano_mb")
    rows = []
    for (carga, lugar, entorno, metric), group in data.groupby(
        ["carga", "lugar", "entorno", "metric"], sort=False
    ):
        s = measure.summarize(group["value"].to_numpy(dtype=float))
        rows.append(
            {
                "carga": carga,
                "lugar": lugar,
                "entorno": entorno,
                "metric": metric,
                "image": group["image"].iloc[0],
                "n": s.n,
                "mediana_s": s.median,
                "q1_s": s.q1,
                "q3_s": s.q3,
                "min_s": s.minimum,
                "ic_bajo_s": s.ci_low,
                "ic_alto_s": s.ci_high,
                "mb_por_s": (size / s.median)
                if size and carga in ("hash", "escritura") and s.median
                else np.nan,
            }
        )
    out = pd.DataFrame(rows)
    return _order(out) if not out.empty else out


def exec_costs(df: pd.DataFrame) -> pd.DataFrame:
    """What `exec` costs, per environment, in ms: `exec true` end to end, and for each workload the
    paired difference (end to end − work alone) of the same repetition."""
    data = tidy(df)
    rows = []
    for entorno in ENVIRONMENTS:
        values = samples(data, METRIC_E2E, EXEC_TRUE, entorno) * 1e3
        if values.size:
            s = measure.summarize(values)
            rows.append(
                {
                    "entorno": entorno,
                    "medida": EXEC_TRUE,
                    "n": s.n,
                    "mediana_ms": s.median,
                    "ic_bajo_ms": s.ci_low,
                    "ic_alto_ms": s.ci_high,
                }
            )
    keys = ["engine", "image", "variant", "rep"]
    wide = data[data["carga"] != EXEC_TRUE].pivot_table(
        index=keys + ["carga", "lugar", "entorno"], columns="metric", values="value", aggfunc="first"
    )
    if {METRIC_E2E, METRIC_WORK} <= set(wide.columns):
        wide = wide.dropna(subset=[METRIC_E2E, METRIC_WORK]).reset_index()
        wide["diff_ms"] = (wide[METRIC_E2E] - wide[METRIC_WORK]) * 1e3
        for (carga, lugar, entorno), group in wide.groupby(["carga", "lugar", "entorno"], sort=False):
            s = measure.summarize(group["diff_ms"].to_numpy())
            rows.append(
                {
                    "entorno": entorno,
                    "medida": f"{carga}:{lugar}" if lugar else carga,
                    "n": s.n,
                    "mediana_ms": s.median,
                    "ic_bajo_ms": s.ci_low,
                    "ic_alto_ms": s.ci_high,
                }
            )
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    rank = {e: i for i, e in enumerate(ENVIRONMENTS)}
    return out.sort_values("entorno", key=lambda c: c.map(rank), kind="stable").reset_index(drop=True)


UNSTABLE = "medición inestable: repite"
NOISE = "indistinguible del ruido"


def noise_reading(low_pct: float, high_pct: float) -> str:
    """How an overhead's IC 95 % (in %) reads, in Spanish: «indistinguible del ruido» when it contains
    0 %, else «más lento» / «más rápido». A description of the interval, not a verdict on a claim (those
    are judged by verdict.py in claims.py)."""
    if any(np.isnan(v) for v in (low_pct, high_pct)):
        return "sin datos"
    if low_pct <= 0 <= high_pct:
        return NOISE
    return "más lento" if low_pct > 0 else "más rápido"


def overhead_pct(values, baseline) -> tuple[float, float, float]:
    """Overhead % of the median against the baseline's, with a bootstrap IC 95 %."""
    ratio, low, high = measure.bootstrap_ratio_ci(values, baseline)
    return (ratio - 1) * 100, (low - 1) * 100, (high - 1) * 100


def overheads(df: pd.DataFrame, metric: str = METRIC_WORK) -> pd.DataFrame:
    """Overhead % against bare metal per workload and environment, with IC 95 % and its reading; a
    measurement whose spread dwarfs its median (measure.unstable) says so and is flagged `inestable`.

    CPU workloads: every environment against both baselines (base `bare` = host binaries, base
    `chroot` = the image's binaries). escritura: each place against the host (bare metal, `host`)."""
    data = tidy(df)
    rows = []

    def add(carga, lugar, entorno, base, values, base_values):
        if values.size and base_values.size:
            pct, lo, hi = overhead_pct(values, base_values)
            shaky = bool(measure.unstable(values) or measure.unstable(base_values))
            rows.append(
                {
                    "carga": carga,
                    "lugar": lugar,
                    "entorno": entorno,
                    "base": base,
                    "metric": metric,
                    "sobrecarga_pct": pct,
                    "ic_bajo_pct": lo,
                    "ic_alto_pct": hi,
                    "lectura": UNSTABLE if shaky else noise_reading(lo, hi),
                    "inestable": shaky,
                }
            )

    for carga in [c for c in WORKLOADS if c in set(data["carga"])]:
        if carga == "escritura":
            host = samples(data, metric, carga, "bare", "host")
            for entorno in ("docker", "podman"):
                for lugar in ("capa", "volumen"):
                    add(carga, lugar, entorno, "host", samples(data, metric, carga, entorno, lugar), host)
            continue
        for base in ("bare", "chroot"):
            base_values = samples(data, metric, carga, base)
            for entorno in ENVIRONMENTS:
                if entorno != base and not (base == "chroot" and entorno == "bare"):
                    add(carga, "", entorno, base, samples(data, metric, carga, entorno), base_values)
    return pd.DataFrame(
        rows,
        columns=[
            "carga",
            "lugar",
            "entorno",
            "base",
            "metric",
            "sobrecarga_pct",
            "ic_bajo_pct",
            "ic_alto_pct",
            "lectura",
            "inestable",
        ],
    )


def _pick(table: pd.DataFrame, **where) -> pd.Series | None:
    sel = table
    for column, value in where.items():
        sel = sel[sel[column] == value]
    return sel.iloc[0] if len(sel) else None


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """The original chapter next to this run for hash and sort: medians (s) and overhead % against bare
    metal, each overhead with its IC 95 %, and whether the two intervals overlap (`acuerdo`).

    The seed timed `exec` end to end against the host's binaries; this run adds the work alone against
    the image's own binaries (chroot)."""
    live, ref = summarize(df, meta), summarize(reference)
    live_e2e, live_work, ref_e2e = (
        overheads(df, METRIC_E2E),
        overheads(df, METRIC_WORK),
        overheads(reference, METRIC_E2E),
    )
    rows = []
    for carga in ("hash", "sort"):
        for entorno in ("bare", "docker", "podman"):
            r = _pick(ref, carga=carga, entorno=entorno, metric=METRIC_E2E)
            if r is None:
                continue
            row = {
                "carga": carga,
                "entorno": entorno,
                "ref_mediana_s": r["mediana_s"],
                "tu_mediana_e2e_s": np.nan,
                "tu_mediana_trabajo_s": np.nan,
                "ref_sobrecarga_pct": np.nan,
                "ref_sobrecarga_ic": (np.nan, np.nan),
                "tu_sobrecarga_e2e_pct": np.nan,
                "acuerdo": SIN_DATOS,
                "tu_sobrecarga_e2e_ic": (np.nan, np.nan),
                "tu_sobrecarga_trabajo_chroot_pct": np.nan,
                "tu_sobrecarga_trabajo_chroot_ic": (np.nan, np.nan),
            }
            for column, metric in (("tu_mediana_e2e_s", METRIC_E2E), ("tu_mediana_trabajo_s", METRIC_WORK)):
                m = _pick(live, carga=carga, entorno=entorno, metric=metric)
                if m is not None:
                    row[column] = m["mediana_s"]
            if entorno != "bare":
                rr = _pick(ref_e2e, carga=carga, entorno=entorno, base="bare")
                if rr is not None:
                    row["ref_sobrecarga_pct"] = rr["sobrecarga_pct"]
                    row["ref_sobrecarga_ic"] = (rr["ic_bajo_pct"], rr["ic_alto_pct"])
                le = _pick(live_e2e, carga=carga, entorno=entorno, base="bare")
                if le is not None:
                    row["tu_sobrecarga_e2e_pct"] = le["sobrecarga_pct"]
                    row["tu_sobrecarga_e2e_ic"] = (le["ic_bajo_pct"], le["ic_alto_pct"])
                # the same method on both sides (exec end to end against the host's binaries), each with
                # its IC (the reference's from its own five repetitions): do they overlap?
                row["acuerdo"] = agreement(
                    (row["tu_sobrecarga_e2e_pct"], *row["tu_sobrecarga_e2e_ic"]),
                    (row["ref_sobrecarga_pct"], *row["ref_sobrecarga_ic"]),
                )
                lw = _pick(live_work, carga=carga, entorno=entorno, base="chroot")
                if lw is not None:
                    row["tu_sobrecarga_trabajo_chroot_pct"] = lw["sobrecarga_pct"]
                    row["tu_sobrecarga_trabajo_chroot_ic"] = (lw["ic_bajo_pct"], lw["ic_alto_pct"])
            rows.append(row)
    return pd.DataFrame(rows)


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Rows of the closing LAUNCH vs RUNNING table (all RUNNING): what `exec true` costs in each
    environment (ms), and each workload's overhead in a container (%, the work alone) against the same
    userland on bare metal (chroot) when it was measured, else against the host's binaries; writes
    against the host's disk. Unstable measurements (measure.unstable) stay out."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
    data = tidy(df)
    for _, r in exec_costs(df).iterrows():
        if r["medida"] == EXEC_TRUE and not measure.unstable(
            samples(data, METRIC_E2E, EXEC_TRUE, r["entorno"])
        ):
            concepto = (
                "`true` como proceso nuevo"
                if r["entorno"] in ("bare", "chroot")
                else "`exec … true` en un contenedor que ya corre"
            )
            rows.append(
                {
                    "concepto": concepto,
                    "tipo": "RUNNING",
                    "entorno": r["entorno"],
                    "valor": r["mediana_ms"],
                    "ic_bajo": r["ic_bajo_ms"],
                    "ic_alto": r["ic_alto_ms"],
                    "unidad": "ms",
                }
            )
    table = overheads(df, METRIC_WORK)
    with_chroot = set(table.loc[table["base"] == "chroot", "carga"])
    for _, r in table[~table["inestable"].astype(bool)].iterrows():
        wanted = "host" if r["carga"] == "escritura" else "chroot" if r["carga"] in with_chroot else "bare"
        if r["entorno"] in eng.CONTAINER_ENGINES and r["base"] == wanted:
            name = WORKLOAD_NAMES.get(r["carga"], r["carga"])
            if r["lugar"]:
                name += f" en {PLACE_NAMES.get(r['lugar'], r['lugar'])}"
            rows.append(
                {
                    "concepto": f"sobrecarga del trabajo: {name} (frente a {BASE_NAMES[wanted]})",
                    "tipo": "RUNNING",
                    "entorno": r["entorno"],
                    "valor": r["sobrecarga_pct"],
                    "ic_bajo": r["ic_bajo_pct"],
                    "ic_alto": r["ic_alto_pct"],
                    "unidad": "%",
                }
            )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
