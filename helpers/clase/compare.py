"""The class side by side: ratios per machine (× bare metal, Podman/Docker) with their IC 95 %, their spread
across machines, and each machine against each published reference source.

Ratios pair the arms by round (`rep`) when both have it: a class run measures its arms round-robin
(helpers/stats.py). Each reference source is its own «machine» (`reference_ratios`): a published range
stays a range (interval arithmetic on its ends, never resampled), a single published figure is a point,
and only a source's raw repetitions get an interval from the data. A machine agrees with a source by the
one rule (`figures.agreement`: live ÷ reference against «about 1», 0.8×-1.25×), never by overlap.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import experiments, reference, results, stats
from ..experiments import figures as fg
from ..experiments import verdict as vd
from .runs import KEY, PAIR_KEY, REFERENCE_MACHINE, ClassRuns

RATIO_COLUMNS = [
    "machine",
    "experiment",
    "metric",
    "engine",
    "role",
    "variant",
    "base",
    "n",
    "proporcion",
    "ic_bajo",
    "ic_alto",
]
PAIR_COLUMNS = ["machine", *PAIR_KEY, "n", "proporcion", "ic_bajo", "ic_alto"]
BARE_LABEL, PAIR_LABEL = "× bare metal", "Podman/Docker"
TIME_UNITS = ("ns", "us", "µs", "ms", "s")
EMULATED = "emulada"  # an emulated machine's timing decides no agreement (its memory still does)
EMULATED_VERDICT = EMULATED  # the status of such a comparison (the view words it)


def with_reference(class_runs: ClassRuns) -> pd.DataFrame:
    """The class's rows plus the bundled reference's raw rows of every experiment present, as machine
    «referencia» with their `source` kept (the class comparison never pools sources)."""
    frames = [class_runs.data.assign(source="")]
    for experiment in class_runs.experiments:
        if experiment in reference.available():
            ref = reference.load(experiment)
            frames.append(
                results.add_roles(ref, None).assign(
                    machine=REFERENCE_MACHINE, run_id="referencia", parcial=False
                )
            )
    return pd.concat(frames, ignore_index=True)


def _baseline_preference(experiment: str) -> list[str]:
    """Bare-metal variants to use as baseline, best first: the experiment module's BASELINE."""
    try:
        base = experiments.get(experiment).BASELINE
    except KeyError:  # an experiment this version of the course does not know
        base = None
    return [base[1]] if base and base[0] == "bare" else []


def _bare_for(bare: pd.DataFrame, role: str) -> pd.DataFrame:
    """The bare-metal rows that play the same image role (the same server in 06), when there are any;
    else every bare-metal row (bare metal runs no image in 01-05)."""
    same = bare[bare["role"] == role]
    return same if not same.empty else bare


def _pick_baseline(bare: pd.DataFrame, variant: str, prefs: list[str]) -> str | None:
    variants = list(dict.fromkeys(bare["variant"]))
    if variant in variants:
        return variant  # same work on bare metal (e.g. the same workload)
    for pref in prefs:
        if pref in variants:
            return pref
    return variants[0] if len(variants) == 1 else None


def _arm(rows: pd.DataFrame):
    """An arm's values, as a Series indexed by round when the rows carry `rep` (paired ratios)."""
    if "rep" in rows and rows["rep"].notna().all():
        return pd.Series(rows["value"].to_numpy(dtype=float), index=rows["rep"].to_numpy())
    return rows["value"].to_numpy(dtype=float)


def _ratio_ci(numerator, denominator) -> tuple[float, float, float, int] | None:
    """Ratio of medians (paired by round when both arms are Series sharing enough rounds) with its
    IC 95 % and n; None when undefined (no data, a zero denominator median). Below MIN_N repetitions the
    interval is NaN (no figure below it is an IC 95 %)."""
    paired = stats.is_paired(numerator, denominator) and stats.n_of(numerator, denominator) >= min(
        stats.values(numerator).size, stats.values(denominator).size
    )
    if not paired:
        numerator, denominator = stats.values(numerator), stats.values(denominator)
    num, den = stats.values(numerator), stats.values(denominator)
    if num.size == 0 or den.size == 0 or np.median(den) == 0:
        return None
    n = stats.n_of(numerator, denominator)
    if np.any(den == 0):  # some resamples would divide by zero: the plain ratio, no IC
        return float(np.median(num) / np.median(den)), np.nan, np.nan, n
    value, low, high = stats.ratio_ci(numerator, denominator).triple
    if n < vd.MIN_N:
        low = high = np.nan
    return value, low, high, n


def ratios_vs_bare(data: pd.DataFrame, *, base: dict[str, str] | None = None) -> pd.DataFrame:
    """× bare metal per machine and combination: ratio of medians with its IC 95 %.

    Baseline: bare metal with the same image role (the same server), doing the same variant (e.g. the
    same workload); else `base[experiment]` (to compare with the reference on its own baseline); else
    the experiment's BASELINE."""
    rows = []
    for (machine, experiment, metric), group in data.groupby(["machine", "experiment", "metric"], sort=True):
        bare_all = group[group["engine"] == "bare"]
        if bare_all.empty:
            continue
        prefs = _baseline_preference(experiment)
        forced = [(base or {})[experiment]] if experiment in (base or {}) else []
        for (engine, role, variant), arm in group[group["engine"] != "bare"].groupby(
            ["engine", "role", "variant"], sort=True
        ):
            bare = _bare_for(bare_all, role)
            chosen = _pick_baseline(bare, variant, forced + prefs)
            if chosen is None:
                continue
            found = _ratio_ci(_arm(arm), _arm(bare[bare["variant"] == chosen]))
            if found is None:
                continue
            ratio, lo, hi, n = found
            rows.append(
                dict(zip(RATIO_COLUMNS, (machine, experiment, metric, engine, role, variant, chosen)))
            )
            rows[-1].update(n=n, proporcion=ratio, ic_bajo=lo, ic_alto=hi)
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)


def podman_over_docker(data: pd.DataFrame) -> pd.DataFrame:
    """Podman/Docker per machine and combination (same image role, variant and metric)."""
    rows = []
    for (machine, *key), group in data.groupby(["machine"] + PAIR_KEY, sort=True):
        docker, podman = group[group["engine"] == "docker"], group[group["engine"] == "podman"]
        found = _ratio_ci(_arm(podman), _arm(docker)) if len(docker) and len(podman) else None
        if found is not None:
            ratio, lo, hi, n = found
            rows.append({"machine": machine, **dict(zip(PAIR_KEY, key)), "n": n, "proporcion": ratio})
            rows[-1].update(ic_bajo=lo, ic_alto=hi)
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def medianas(data: pd.DataFrame) -> pd.DataFrame:
    """Median of every combination per machine (absolute values, in their unit)."""
    return (
        data.groupby(["machine"] + KEY + ["unit"], sort=True)["value"]
        .median()
        .rename("mediana")
        .reset_index()
    )


def spread(frame: pd.DataFrame, value: str = "proporcion") -> pd.DataFrame:
    """Spread across machines (the reference left out) of a per-machine table: how many machines,
    median, IQR, min, max and max/min."""
    data = frame[frame["machine"] != REFERENCE_MACHINE]
    key = [c for c in frame.columns if c in KEY + ["unit", "base"]]
    rows = []
    for k, group in data.groupby(key, sort=True):
        v = stats.values(group[value])
        v = v[np.isfinite(v)]
        if v.size == 0:
            continue
        q1, q3 = stats.iqr(v)
        rows.append(
            {
                **dict(zip(key, k if isinstance(k, tuple) else (k,))),
                "maquinas": int(v.size),
                "mediana": float(np.median(v)),
                "q1": q1,
                "q3": q3,
                "min": float(v.min()),
                "max": float(v.max()),
                "max_sobre_min": float(v.max() / v.min()) if v.min() > 0 else np.nan,
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- the reference, one source at a time
def _bounds(fig) -> tuple[float, float]:
    """A published figure's (low, high): its range or IC, or its single value at both ends."""
    low, high = fig["low"], fig["high"]
    return (fig["value"], fig["value"]) if pd.isna(low) or pd.isna(high) else (low, high)


def _published_ratio(num, den, raw: pd.DataFrame) -> tuple[float, float, float, int, str]:
    """num / den of two published figures of one source: raw repetitions on both sides → their ratio
    with its IC from the data; a range on either side → interval arithmetic on the ends (never
    resampled); two single figures → a point. Returns (value, low, high, n, forma)."""
    if num["forma"] == den["forma"] == stats.REPETITIONS:
        found = _ratio_ci(_values_of(raw, num), _values_of(raw, den))
        if found is not None:
            return (*found, stats.REPETITIONS)
    value = num["value"] / den["value"] if den["value"] else np.nan
    if stats.RANGE in (num["forma"], den["forma"]):
        (n_lo, n_hi), (d_lo, d_hi) = _bounds(num), _bounds(den)
        if d_lo > 0:
            return value, n_lo / d_hi, n_hi / d_lo, 0, stats.RANGE
    return value, np.nan, np.nan, 1, stats.POINT


def _values_of(raw: pd.DataFrame, fig) -> np.ndarray:
    """The raw repetitions behind one published figure (its source, arm and metric)."""
    at = np.ones(len(raw), dtype=bool)
    for col, field in (("source", "source"), ("engine", "engine"), ("image", "role"), ("variant", "variant")):
        at &= (raw[col] == fig[field]).to_numpy()
    at &= (raw["metric"] == fig["metric"]).to_numpy()
    return raw.loc[at, "value"].to_numpy(dtype=float)


def _ratios_published(experiment: str, raw: pd.DataFrame) -> dict[tuple, tuple]:
    """The × bare metal ratios a source publishes itself (e.g. seed 001's «Overhead» column), read by the
    experiment's own `published_ratios` (the one notebook 05 shows), as (value, low, high, n, forma) by
    (source, metric, engine, variant): they replace a ratio recomputed from the source's other figures."""
    try:
        read = getattr(experiments.get(experiment), "published_ratios", None)
    except KeyError:
        read = None
    out = {}
    for p in read(raw) if read else ():
        low, high = p["rango"]
        out[(p["source"], p["metric"], p["engine"], p["variant"])] = (
            (low + high) / 2,
            low,
            high,
            0,
            stats.RANGE,
        )
    return out


REFERENCE_COLUMNS = ["machine", "fuente", "forma", "proporcion_de", *RATIO_COLUMNS[1:]]


def reference_ratios(experiment: str) -> pd.DataFrame:
    """The reference's ratios of one experiment, one row per source and combination (each source its own
    «machine»): × bare metal (same source, same image role when it has one, same variant or the
    experiment's BASELINE) and Podman/Docker. Columns REFERENCE_COLUMNS (n = 0 for a range)."""
    if experiment not in reference.available():
        return pd.DataFrame(columns=REFERENCE_COLUMNS)
    raw = reference.load(experiment)
    figs = reference.figures(experiment).rename(columns={"image": "role"})
    rows = []
    prefs = _baseline_preference(experiment)
    published = _ratios_published(experiment, raw)
    for (source, metric), g in figs.groupby(["source", "metric"], sort=True):
        bare_all = g[g["engine"] == "bare"]
        for _, fig in g[g["engine"] != "bare"].iterrows() if not bare_all.empty else ():
            bare = _bare_for(bare_all, fig["role"])
            chosen = _pick_baseline(bare, fig["variant"], prefs)
            if chosen is None:
                continue
            found = published.get((source, metric, fig["engine"], fig["variant"])) or _published_ratio(
                fig, bare[bare["variant"] == chosen].iloc[0], raw
            )
            rows.append(
                (REFERENCE_MACHINE, source, found[4], BARE_LABEL, experiment, metric, fig["engine"])
                + (fig["role"], fig["variant"], chosen, found[3], *found[:3])
            )
        for (role, variant), pair in g[g["engine"].isin(["docker", "podman"])].groupby(["role", "variant"]):
            if set(pair["engine"]) != {"docker", "podman"}:
                continue
            num, den = (pair[pair["engine"] == e].iloc[0] for e in ("podman", "docker"))
            found = _published_ratio(num, den, raw)
            rows.append(
                (REFERENCE_MACHINE, source, found[4], PAIR_LABEL, experiment, metric, "", role, variant, "")
                + (found[3], *found[:3])
            )
    return pd.DataFrame(rows, columns=REFERENCE_COLUMNS)


# ---------------------------------------------------------------- each machine against each source
def comparable(experiment: str) -> list[str] | None:
    """The metrics an experiment declares comparable across machines (COMPARABLE), None for all."""
    try:
        return list(getattr(experiments.get(experiment), "COMPARABLE", None) or []) or None
    except KeyError:
        return None


def only_comparable(data: pd.DataFrame) -> pd.DataFrame:
    """The rows of metrics their experiment declares comparable across machines."""
    keep = pd.Series(True, index=data.index)
    for experiment in data["experiment"].unique():
        metrics = comparable(experiment)
        if metrics is not None:
            at = data["experiment"] == experiment
            keep &= ~at | data["metric"].isin(metrics)
    return data[keep]


def agreement_status(live: tuple[float, float, float], n: int, ref: tuple[float, float, float]) -> str:
    """The one rule on live ÷ reference (figures.agreement): «coincide», «no_coincide»,
    «no_concluyente»; «sin_datos» below MIN_N repetitions or without an interval."""
    if n < vd.MIN_N:
        return vd.SIN_DATOS
    return fg.agreement(live, ref)


def _reference_base(refs: pd.DataFrame) -> dict[str, str]:
    bare = refs[refs["proporcion_de"] == BARE_LABEL]
    return {exp: g["base"].iloc[0] for exp, g in bare.groupby("experiment")}


AGAINST_COLUMNS = [
    "machine",
    "proporcion_de",
    "fuente",
    "forma",
    *KEY,
    "base",
    "n",
    "proporcion",
    "ic_bajo",
    "ic_alto",
    "referencia",
    "referencia_ic_bajo",
    "referencia_ic_alto",
    "veredicto",
]


def against_reference(class_runs: ClassRuns) -> pd.DataFrame:
    """Each machine's ratios against each reference source's (one row per machine, source and
    combination), judged by the one rule: live ÷ reference inside 0.8×-1.25× → «coincide», entirely
    outside → «no_coincide», else «no_concluyente»; below MIN_N repetitions «sin_datos». Only the
    metrics each experiment declares COMPARABLE. × bare metal uses the reference's baseline variant, so
    both sides time the same kind of work. An emulated machine's timings are marked EMULATED."""
    if not class_runs.runs:
        return pd.DataFrame(columns=AGAINST_COLUMNS)
    data = only_comparable(class_runs.data)
    frames = [r for r in (reference_ratios(e) for e in class_runs.experiments) if not r.empty]
    refs = only_comparable(pd.concat(frames, ignore_index=True)) if frames else pd.DataFrame()
    if refs.empty or data.empty:
        return pd.DataFrame(columns=AGAINST_COLUMNS)
    emulated = {c.machine for c in class_runs.runs if c.meta.get("emulada")}
    timed = set(map(tuple, data[data["unit"].isin(TIME_UNITS)][["experiment", "metric"]].values))
    rows = []
    for label, table in (
        (BARE_LABEL, ratios_vs_bare(data, base=_reference_base(refs))),
        (PAIR_LABEL, podman_over_docker(data)),
    ):
        if table.empty:
            continue
        key = [c for c in KEY if c in table.columns]
        ref_part = refs[refs["proporcion_de"] == label]
        for _, mine in table.iterrows():
            at = np.ones(len(ref_part), dtype=bool)
            for k in key:
                at &= (ref_part[k] == mine[k]).to_numpy()
            for _, ref in ref_part[at].iterrows():
                live = (mine["proporcion"], mine["ic_bajo"], mine["ic_alto"])
                status = agreement_status(
                    live, int(mine["n"]), (ref["proporcion"], ref["ic_bajo"], ref["ic_alto"])
                )
                if mine["machine"] in emulated and (mine["experiment"], mine["metric"]) in timed:
                    status = EMULATED
                rows.append(
                    {
                        **{k: mine.get(k, "") for k in ["machine", *KEY, "base", "n"]},
                        "proporcion_de": label,
                        "fuente": ref["fuente"],
                        "forma": ref["forma"],
                        "proporcion": mine["proporcion"],
                        "ic_bajo": mine["ic_bajo"],
                        "ic_alto": mine["ic_alto"],
                        "referencia": ref["proporcion"],
                        "referencia_ic_bajo": ref["ic_bajo"],
                        "referencia_ic_alto": ref["ic_alto"],
                        "veredicto": status,
                    }
                )
    out = pd.DataFrame(rows, columns=AGAINST_COLUMNS)
    for col in ("engine", "base"):
        out[col] = out[col].fillna("")
    return out
