"""Experiment 3's analysis: summaries, the cost of `exec`, overheads against the fairest baseline, the
comparison with the reference and the closing rows. Pure functions of the rows (raw.csv or the
reference); the chapter's claims are in claims.py.

Arms are measured round-robin, so each round pairs them: `samples` returns a pandas Series indexed by
round (`rep`), and every overhead is computed round by round (helpers.stats: the median of the
per-round figures with its distribution-free IC 95 %). Reference rows were not measured in rounds:
they are plain arrays (independent arms)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import stats
from .. import verdict
from ..contract import CLOSING_COLUMNS
from ..figures import agreement
from ..verdict import SIN_DATOS
from .arms import (
    BASE_NAMES,
    CHROOT_WORKLOADS,
    CPU_WORKLOADS,
    ENVIRONMENTS,
    EXEC_INSIDE,
    EXEC_TRUE,
    IO_WORKLOADS,
    METRIC_E2E,
    METRIC_WORK,
    PLACE_NAMES,
    PLACES,
    TIMED_METRICS,
    WORKLOAD_NAMES,
    WORKLOADS,
    same_fs_base,
)

SIZE_PARAMS = ("megas", "tamano_mb")  # the parameter's name now, and in runs made before it changed


def tidy(df: pd.DataFrame) -> pd.DataFrame:
    """Add carga, lugar and entorno (bare / chroot / docker / podman) to raw or reference rows."""
    df = df.copy()
    split = df["variant"].fillna("").astype(str).str.partition(":")
    df["carga"], df["lugar"] = (split[i] if len(df) else "" for i in (0, 2))
    image = df["image"].fillna("")
    df["entorno"] = np.where((df["engine"] == "bare") & (image != ""), "chroot", df["engine"])
    return df


def samples(df: pd.DataFrame, metric: str, carga: str, entorno: str, lugar: str = "") -> pd.Series:
    """The repetitions of one workload (carga, lugar) in one environment, in raw units, as a Series
    indexed by round (`rep`; rows through `tidy`): arms of one run are paired by round."""
    sel = df[
        (df["metric"] == metric)
        & (df["carga"] == carga)
        & (df["entorno"] == entorno)
        & (df["lugar"] == lugar)
    ]
    if sel.empty:
        return pd.Series([], dtype=float)
    return sel.groupby("rep")["value"].median().astype(float)


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    rank = {name: i for i, name in enumerate((EXEC_TRUE, EXEC_INSIDE, *WORKLOADS, *PLACES, *ENVIRONMENTS))}
    key = lambda col: col.map(lambda v: rank.get(v, 99)) if col.name in ("carga", "lugar", "entorno") else col
    return frame.sort_values(
        [c for c in ("carga", "lugar", "entorno", "metric") if c in frame], key=key
    ).reset_index(drop=True)


def size_mb(meta: dict | None) -> float | None:
    params = (meta or {}).get("parameters") or {}
    return next((params[k] for k in SIZE_PARAMS if params.get(k)), None)


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per (carga, lugar, entorno, metric): n, median, IQR, min and IC 95 % of the median, in
    seconds, and whether the arm is unstable on its own; MB/s for `escritura` and `hash` when the size
    is known."""
    data = tidy(df)
    data = data[data["metric"].isin(TIMED_METRICS)]  # the memory rows (KB) are not times
    size = size_mb(meta)
    rows = []
    for (carga, lugar, entorno, metric), group in data.groupby(
        ["carga", "lugar", "entorno", "metric"], sort=False
    ):
        values = group["value"].to_numpy(dtype=float)
        s = stats.summarize(values)
        rows.append(
            {
                "carga": carga,
                "lugar": lugar,
                "entorno": entorno,
                "metric": metric,
                "image": group["image"].iloc[0],
                **s.columns("s"),
                "inestable": bool(stats.unstable(values)),
                "mb_por_s": (size / s.median)
                if size and carga in ("hash", "escritura") and s.median
                else np.nan,
            }
        )
    out = pd.DataFrame(rows)
    return _order(out) if not out.empty else out


def exec_costs(df: pd.DataFrame) -> pd.DataFrame:
    """What `exec` costs, per environment, in ms: `exec true` end to end (what a user waits for), one
    new process timed inside the environment (`exec_dentro`: fork + exec + wait of `true`), and for
    each workload the paired difference (end to end − work alone) of the same repetition."""
    data = tidy(df)
    rows = []

    def add(entorno, medida, values):
        s = stats.summarize(values)
        rows.append(
            {
                "entorno": entorno,
                "medida": medida,
                "n": s.n,
                "mediana_ms": s.median,
                "ic_bajo_ms": s.ci_low,
                "ic_alto_ms": s.ci_high,
            }
        )

    for entorno in ENVIRONMENTS:
        values = samples(data, METRIC_E2E, EXEC_TRUE, entorno) * 1e3
        if values.size:
            add(entorno, EXEC_TRUE, values)
    for entorno in ENVIRONMENTS:
        values = samples(data, METRIC_WORK, EXEC_INSIDE, entorno) * 1e3
        if values.size:
            add(entorno, EXEC_INSIDE, values)
    keys = ["engine", "image", "variant", "rep"]
    work = data[~data["carga"].isin([EXEC_TRUE, EXEC_INSIDE])]
    wide = work.pivot_table(
        index=keys + ["carga", "lugar", "entorno"], columns="metric", values="value", aggfunc="first"
    )
    if {METRIC_E2E, METRIC_WORK} <= set(wide.columns):
        wide = wide.dropna(subset=[METRIC_E2E, METRIC_WORK]).reset_index()
        wide["diff_ms"] = (wide[METRIC_E2E] - wide[METRIC_WORK]) * 1e3
        for (carga, lugar, entorno), group in wide.groupby(["carga", "lugar", "entorno"], sort=False):
            add(entorno, f"{carga}:{lugar}" if lugar else carga, group["diff_ms"].to_numpy())
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    rank = {e: i for i, e in enumerate(ENVIRONMENTS)}
    return out.sort_values("entorno", key=lambda c: c.map(rank), kind="stable").reset_index(drop=True)


def reading(low_pct: float, high_pct: float, n: int, shaky: bool = False) -> str:
    """Which way an overhead's IC 95 % (in %) points, as a code for the view to word: verdict.INESTABLE
    for a shaky figure, else verdict.side around 0 % (ABOVE: slower, BELOW: faster, LEVEL: within
    the margin of «no difference», ABOVE_NULL / BELOW_NULL: the whole IC on one side of 0 % but touching
    that margin, NO_CONCLUYENTE: the IC holds 0 %, SIN_DATOS below MIN_N). A description of the
    interval, not a verdict on a claim (those are judged in claims.py)."""
    return verdict.INESTABLE if shaky else verdict.side(low_pct, high_pct, n, around=0)


def overhead_pct(values: pd.Series, baseline: pd.Series) -> tuple[float, float, float]:
    """Overhead % against the baseline: the median of the per-round (value / baseline − 1) × 100, with
    its IC 95 % (helpers.stats; arrays instead of Series are treated as independent arms)."""
    return stats.difference_ci(values, baseline, percent=True).triple


def per_round_unstable(values: pd.Series, baseline: pd.Series) -> bool:
    """The per-round ratio's spread dwarfs its median (what the verdicts check too)."""
    if stats.is_paired(values, baseline):
        return bool(stats.unstable(stats.per_round(lambda a, b: a / b, values, baseline)))
    return bool(stats.unstable(values) or stats.unstable(baseline))


def shaky_against(values: pd.Series, baseline: pd.Series) -> bool:
    """No figure against this baseline: the baseline arm is unstable on its own (its spread dwarfs its
    median: it is not a baseline), or the per-round ratio is. Every overhead of experiment 3 and its
    claims use it, so the view and the verdict agree («inestable: repite»)."""
    return bool(stats.unstable(baseline)) or per_round_unstable(values, baseline)


def bases(data: pd.DataFrame, carga: str) -> list[tuple[str, str, str]]:
    """The baselines of a CPU workload, fairest first, as (base, entorno, lugar): the image's own
    binaries (chroot) when measured, then the host's binaries. An I/O workload has one baseline per
    arm, on the arm's filesystem (`io_base`)."""
    out = []
    if carga in CHROOT_WORKLOADS and samples(data, METRIC_WORK, carga, "chroot").size:
        out.append(("chroot", "chroot", ""))
    out.append(("bare", "bare", ""))
    return out


def fair_base(data: pd.DataFrame, carga: str) -> tuple[str, str, str]:
    """The fairest baseline of a CPU workload (see `bases`)."""
    return bases(data, carga)[0]


def io_base(carga: str, entorno: str, lugar: str) -> tuple[str, str, str] | None:
    """The baseline of an I/O arm, as (base, entorno, lugar): bare metal on the same filesystem
    (arms.same_fs_base); None when there is none."""
    found = same_fs_base(carga, entorno, lugar)
    return None if found is None else (found[0], "bare", found[1])


NO_LAYER_BASE = (
    "Esta corrida no midió bare metal en el sistema de archivos de la capa (ni dejó escrito en meta.json "
    "dónde escribió cada brazo): sin una línea base en el mismo sistema de archivos, la capa no se compara."
)


def no_io_base(meta: dict | None, entorno: str, lugar: str) -> str:
    """Why an I/O arm has no baseline on its filesystem (Spanish): what meta.json `lineas_base` says, or,
    on an older run that does not say, NO_LAYER_BASE."""
    motive = (((meta or {}).get("lineas_base") or {}).get(f"{entorno}:{lugar}") or {}).get("motivo")
    return f"Sin línea base en el mismo sistema de archivos: {motive}" if motive else NO_LAYER_BASE


OVERHEAD_COLUMNS = [
    "carga",
    "lugar",
    "entorno",
    "base",
    "justa",
    "metric",
    "sobrecarga_pct",
    "ic_bajo_pct",
    "ic_alto_pct",
    "n",
    "direccion",
    "inestable",
    "inestable_entorno",
    "inestable_base",
]


def _targets(carga: str, skip: str) -> list[tuple[str, str]]:
    out = []
    for entorno in ENVIRONMENTS:
        if entorno in ("bare", skip):
            continue
        if entorno == "chroot":
            if carga in CHROOT_WORKLOADS:
                out.append((entorno, ""))
        else:
            out += [(entorno, p) for p in (("capa", "volumen") if carga in IO_WORKLOADS else ("",))]
    return out


def overheads(df: pd.DataFrame, metric: str = METRIC_WORK) -> pd.DataFrame:
    """Overhead % per workload, environment (and place) and baseline, paired by round, with its IC 95 %
    and which way it points (`direccion`, a code from `reading`). CPU workloads against each baseline
    (`bases`; `justa`: the fairest); an I/O arm against bare metal on its own filesystem (`io_base`,
    always `justa`; an arm without one, such as a layer in a run that measured no bare metal on the
    layer's filesystem, has no row). Instability is flagged per arm (`inestable_entorno`,
    `inestable_base`: the arm's own spread dwarfs its median) and for the figure (`inestable`,
    `shaky_against`: an unstable baseline, or a per-round ratio whose spread dwarfs its median): such a
    figure points nowhere (verdict.INESTABLE, «repite») and stays out of summaries."""
    data = tidy(df)
    rows = []
    present = set(data["carga"])
    for carga in [c for c in WORKLOADS if c in present]:
        if carga in IO_WORKLOADS:
            pairs = [(t, io_base(carga, *t), True) for t in _targets(carga, "")]
        else:
            pairs = [(t, b, i == 0) for i, b in enumerate(bases(data, carga)) for t in _targets(carga, b[1])]
        for (entorno, lugar), base, fair in pairs:
            if base is None:
                continue
            base_values = samples(data, metric, carga, base[1], base[2])
            values = samples(data, metric, carga, entorno, lugar)
            if not base_values.size or not values.size:
                continue
            pct, lo, hi = overhead_pct(values, base_values)
            shaky = shaky_against(values, base_values)
            n = stats.n_of(values, base_values)
            rows.append(
                {
                    "carga": carga,
                    "lugar": lugar,
                    "entorno": entorno,
                    "base": base[0],
                    "justa": fair,
                    "metric": metric,
                    "sobrecarga_pct": pct,
                    "ic_bajo_pct": lo,
                    "ic_alto_pct": hi,
                    "n": n,
                    "direccion": reading(lo, hi, n, shaky),
                    "inestable": shaky,
                    "inestable_entorno": bool(stats.unstable(values)),
                    "inestable_base": bool(stats.unstable(base_values)),
                }
            )
    return pd.DataFrame(rows, columns=OVERHEAD_COLUMNS)


def layer_vs_volume(df: pd.DataFrame) -> pd.DataFrame:
    """Per I/O workload and engine, the work alone in the container's layer against the same container's
    volume, paired by round (%, IC 95 %, `direccion`): what the layer itself costs, apart from what the
    container costs in both places."""
    data = tidy(df)
    rows = []
    for carga in IO_WORKLOADS:
        for engine in eng.CONTAINER_ENGINES:
            layer = samples(data, METRIC_WORK, carga, engine, "capa")
            volume = samples(data, METRIC_WORK, carga, engine, "volumen")
            if not layer.size or not volume.size:
                continue
            pct, lo, hi = overhead_pct(layer, volume)
            shaky = per_round_unstable(layer, volume)
            rows.append(
                {
                    "carga": carga,
                    "entorno": engine,
                    "sobrecarga_pct": pct,
                    "ic_bajo_pct": lo,
                    "ic_alto_pct": hi,
                    "n": stats.n_of(layer, volume),
                    "direccion": reading(lo, hi, stats.n_of(layer, volume), shaky),
                }
            )
    columns = ["carga", "entorno", "sobrecarga_pct", "ic_bajo_pct", "ic_alto_pct", "n", "direccion"]
    return pd.DataFrame(rows, columns=columns)


def _pick(table: pd.DataFrame, **where) -> pd.Series | None:
    sel = table
    for column, value in where.items():
        sel = sel[sel[column] == value]
    return sel.iloc[0] if len(sel) else None


def explanation(df: pd.DataFrame) -> pd.DataFrame:
    """Why hash and sort come out as they do when measured the chapter's way (exec end to end against
    the host's binaries): per engine, that figure, the work alone against the host's binaries, the work
    alone against the same image (chroot), and what exec added (ms), each with its IC 95 %."""
    e2e, work = overheads(df, METRIC_E2E), overheads(df, METRIC_WORK)
    costs = exec_costs(df)
    rows = []
    for carga in CPU_WORKLOADS:
        for entorno in eng.CONTAINER_ENGINES:
            row = {"carga": carga, "entorno": entorno}
            for name, table, base in (("capitulo", e2e, "bare"), ("trabajo_host", work, "bare")):
                r = _pick(table, carga=carga, entorno=entorno, base=base)
                row[name] = (
                    (np.nan,) * 3 if r is None else (r["sobrecarga_pct"], r["ic_bajo_pct"], r["ic_alto_pct"])
                )
            r = _pick(work, carga=carga, entorno=entorno, base="chroot")
            row["trabajo_chroot"] = (
                (np.nan,) * 3 if r is None else (r["sobrecarga_pct"], r["ic_bajo_pct"], r["ic_alto_pct"])
            )
            c = _pick(costs, entorno=entorno, medida=carga) if len(costs) else None
            row["exec_ms"] = (
                (np.nan,) * 3 if c is None else (c["mediana_ms"], c["ic_bajo_ms"], c["ic_alto_ms"])
            )
            if not all(np.isnan(row[k][0]) for k in ("capitulo", "trabajo_host", "trabajo_chroot")):
                rows.append(row)
    return pd.DataFrame(
        rows, columns=["carga", "entorno", "capitulo", "trabajo_host", "trabajo_chroot", "exec_ms"]
    )


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """The original chapter next to this run for hash and sort: medians (s) and overhead % against bare
    metal measured the chapter's way (exec end to end against the host's binaries), and whether this
    run's figure agrees with the chapter's (figures.agreement: judged like a claim, live − reference
    within ±5 points). The reference's five repetitions were not measured in rounds: its overhead is
    the ratio of its medians (fewer than MIN_N: no interval)."""
    live = summarize(df, meta)
    ref = summarize(reference)
    live_e2e = overheads(df, METRIC_E2E)
    ref_data = tidy(reference)
    rows = []
    for carga in CPU_WORKLOADS:
        for entorno in ("bare", *eng.CONTAINER_ENGINES):
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
                "tu_sobrecarga_e2e_pct": np.nan,
                "tu_sobrecarga_e2e_ic": (np.nan, np.nan),
                "acuerdo": SIN_DATOS,
            }
            for column, metric in (("tu_mediana_e2e_s", METRIC_E2E), ("tu_mediana_trabajo_s", METRIC_WORK)):
                m = _pick(live, carga=carga, entorno=entorno, metric=metric)
                if m is not None:
                    row[column] = m["mediana_s"]
            if entorno != "bare":
                mine = samples(ref_data, METRIC_E2E, carga, entorno).to_numpy()
                host = samples(ref_data, METRIC_E2E, carga, "bare").to_numpy()
                if mine.size and host.size:
                    row["ref_sobrecarga_pct"] = (np.median(mine) / np.median(host) - 1) * 100
                le = _pick(live_e2e, carga=carga, entorno=entorno, base="bare")
                if le is not None:
                    row["tu_sobrecarga_e2e_pct"] = le["sobrecarga_pct"]
                    row["tu_sobrecarga_e2e_ic"] = (le["ic_bajo_pct"], le["ic_alto_pct"])
                row["acuerdo"] = agreement(
                    (row["tu_sobrecarga_e2e_pct"], *row["tu_sobrecarga_e2e_ic"]),
                    (row["ref_sobrecarga_pct"], np.nan, np.nan),
                )
            rows.append(row)
    return pd.DataFrame(rows)


LAUNCH, RUNNING = "LAUNCH", "RUNNING"
# Where each figure sits: `exec` launches a process into a running container (LAUNCH); the work that
# process does inside is RUNNING.
EXEC_CONCEPT = {
    EXEC_TRUE: {
        "bare": "`true` como proceso nuevo, desde el host (exec lanza un proceso: LAUNCH)",
        "chroot": "`true` como proceso nuevo, desde el host (exec lanza un proceso: LAUNCH)",
        "container": "`exec … true` en un contenedor que ya corre, desde el host (exec lanza un "
        "proceso: LAUNCH)",
    },
    EXEC_INSIDE: {
        "bare": "un proceso nuevo (fork + exec), cronometrado donde corre (LAUNCH)",
        "chroot": "un proceso nuevo (fork + exec) en el chroot, cronometrado donde corre (LAUNCH)",
        "container": "un proceso nuevo (fork + exec) dentro del contenedor, cronometrado dentro (LAUNCH)",
    },
}


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Rows of the closing LAUNCH vs RUNNING table. LAUNCH: what `exec` costs (ms): `exec … true` from
    the host and one new process timed inside, in each environment. RUNNING: each workload's overhead
    in a container (%, the work alone) against its fairest baseline. Unstable figures stay out."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
    data = tidy(df)
    for _, r in exec_costs(df).iterrows():
        if r["medida"] not in EXEC_CONCEPT:
            continue
        metric = METRIC_E2E if r["medida"] == EXEC_TRUE else METRIC_WORK
        if stats.unstable(samples(data, metric, r["medida"], r["entorno"])):
            continue
        kind = r["entorno"] if r["entorno"] in ("bare", "chroot") else "container"
        rows.append(
            {
                "concepto": EXEC_CONCEPT[r["medida"]][kind],
                "tipo": LAUNCH,
                "entorno": r["entorno"],
                "valor": r["mediana_ms"],
                "ic_bajo": r["ic_bajo_ms"],
                "ic_alto": r["ic_alto_ms"],
                "unidad": "ms",
            }
        )
    table = overheads(df, METRIC_WORK)
    keep = table["justa"].astype(bool) & ~table["inestable"].astype(bool)
    for _, r in table[keep].iterrows():
        if r["entorno"] not in eng.CONTAINER_ENGINES:
            continue
        name = WORKLOAD_NAMES.get(r["carga"], r["carga"])
        if r["lugar"]:
            name += f" en {PLACE_NAMES.get(r['lugar'], r['lugar'])}"
        rows.append(
            {
                "concepto": f"sobrecarga del trabajo: {name}, frente a {BASE_NAMES[r['base']]}",
                "tipo": RUNNING,
                "entorno": r["entorno"],
                "valor": r["sobrecarga_pct"],
                "ic_bajo": r["ic_bajo_pct"],
                "ic_alto": r["ic_alto_pct"],
                "unidad": "%",
            }
        )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
