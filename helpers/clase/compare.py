"""The class side by side: ratios per machine (× bare metal, Podman/Docker) with their IC 95 %, their spread
across machines, and each machine against the bundled reference."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import experiments, measure, reference, results
from ..experiments.verdict import COINCIDE, agreement
from .runs import KEY, PAIR_KEY, REFERENCE_MACHINE, ClassRuns


def with_reference(class_runs: ClassRuns) -> pd.DataFrame:
    """The class's rows plus the bundled reference of every experiment present, as machine
    «referencia»."""
    frames = [class_runs.data]
    for experiment in class_runs.experiments:
        if experiment in reference.available():
            ref = reference.load(experiment).drop(columns=["source"])
            frames.append(
                results.add_roles(ref, None).assign(
                    machine=REFERENCE_MACHINE, run_id="referencia", parcial=False
                )
            )
    return pd.concat(frames, ignore_index=True)


def _baseline_preference(experiment: str) -> list[str]:
    """Bare-metal variants to use as baseline, best first: the experiment module's BASELINE."""
    prefs = []
    try:
        base = experiments.get(experiment).BASELINE
    except KeyError:  # an experiment this version of the course does not know
        base = None
    if base and base[0] == "bare":
        prefs.append(base[1])
    return prefs


def _pick_baseline(bare: pd.DataFrame, variant: str, prefs: list[str]) -> str | None:
    variants = list(dict.fromkeys(bare["variant"]))
    if variant in variants:
        return variant  # same work on bare metal (e.g. the same workload)
    for pref in prefs:
        if pref in variants:
            return pref
    return variants[0] if len(variants) == 1 else None


def ratios_vs_bare(data: pd.DataFrame, *, base: dict[str, str] | None = None) -> pd.DataFrame:
    """x bare metal per machine and combination: ratio of medians with its IC 95 % (bootstrap).

    Baseline: bare metal doing the same variant (e.g. the same workload); else `base[experiment]`
    (to compare with the reference on its own baseline); else the experiment's BASELINE."""
    rows = []
    for (machine, experiment, metric), group in data.groupby(["machine", "experiment", "metric"], sort=True):
        bare = group[group["engine"] == "bare"]
        if bare.empty:
            continue
        prefs = _baseline_preference(experiment)
        for (engine, role, variant), arm in group[group["engine"] != "bare"].groupby(
            ["engine", "role", "variant"], sort=True
        ):
            forced = [(base or {})[experiment]] if experiment in (base or {}) else []
            chosen = _pick_baseline(bare, variant, forced + prefs)
            baseline = bare[bare["variant"] == chosen]["value"].to_numpy() if chosen else np.array([])
            if baseline.size == 0:
                continue
            found = _ratio_ci(arm["value"].to_numpy(dtype=float), baseline.astype(float))
            if found is None:
                continue
            ratio, lo, hi = found
            rows.append(
                {
                    "machine": machine,
                    "experiment": experiment,
                    "metric": metric,
                    "engine": engine,
                    "role": role,
                    "variant": variant,
                    "base": chosen,
                    "n": len(arm),
                    "proporcion": ratio,
                    "ic_bajo": lo,
                    "ic_alto": hi,
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
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
        ],
    )


def _ratio_ci(numerator: np.ndarray, denominator: np.ndarray) -> tuple[float, float, float] | None:
    """Ratio of medians with its IC 95 %, or None when it is undefined (no data, or a zero or
    non-finite denominator median, e.g. a memory metric that read 0)."""
    numerator, denominator = numerator[np.isfinite(numerator)], denominator[np.isfinite(denominator)]
    if numerator.size == 0 or denominator.size == 0 or np.median(denominator) == 0:
        return None
    if np.any(denominator == 0):  # some resamples would divide by zero: take the plain ratio, no IC
        ratio = float(np.median(numerator) / np.median(denominator))
        return ratio, float("nan"), float("nan")
    return measure.bootstrap_ratio_ci(numerator, denominator)


def podman_over_docker(data: pd.DataFrame) -> pd.DataFrame:
    """Podman/Docker per machine and combination (same image role, variant and metric)."""
    rows = []
    for (machine, *key), group in data.groupby(["machine"] + PAIR_KEY, sort=True):
        docker = group[group["engine"] == "docker"]["value"].to_numpy()
        podman = group[group["engine"] == "podman"]["value"].to_numpy()
        found = _ratio_ci(podman.astype(float), docker.astype(float))
        if found is not None:
            ratio, lo, hi = found
            rows.append(
                {
                    "machine": machine,
                    **dict(zip(PAIR_KEY, key)),
                    "n": min(docker.size, podman.size),
                    "proporcion": ratio,
                    "ic_bajo": lo,
                    "ic_alto": hi,
                }
            )
    return pd.DataFrame(rows, columns=["machine", *PAIR_KEY, "n", "proporcion", "ic_bajo", "ic_alto"])


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
        v = group[value].to_numpy(dtype=float)
        v = v[np.isfinite(v)]
        if v.size == 0:
            continue
        q1, q3 = measure.iqr(v)
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


TIME_UNITS = ("ns", "us", "µs", "ms", "s")
EMULATED_VERDICT = "emulada (TCG): sin veredicto de velocidad"


def _verdict(lo: float, hi: float, ref: float, ref_lo: float, ref_hi: float, n: int) -> str:
    """The shared rule (experiments.base.agreement): the machine's IC 95 % and the reference's (from its
    own raw repetitions) overlap → «coincide»; else «más alta» / «más baja»."""
    if not np.isfinite(ref):
        return "sin referencia"
    if n < 2:
        return "una sola medición (sin IC)"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "sin IC"
    if agreement((np.nan, lo, hi), (ref, ref_lo, ref_hi)) == COINCIDE:
        return "coincide"
    return "más alta" if lo > ref else "más baja"


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


def against_reference(class_runs: ClassRuns) -> pd.DataFrame:
    """Each machine's ratios next to the reference's: «coincide» when the two IC 95 % overlap (the
    reference's bootstrapped from its own raw repetitions), else «más alta» / «más baja». Only the
    metrics each experiment declares COMPARABLE. x bare metal uses the reference's baseline variant, so
    both sides time the same kind of work."""
    combined = only_comparable(with_reference(class_runs))
    ref = combined[combined["machine"] == REFERENCE_MACHINE]
    if ref.empty:
        return pd.DataFrame()
    ref_base = {
        exp: list(dict.fromkeys(g[g["engine"] == "bare"]["variant"]))[0]
        for exp, g in ref.groupby("experiment")
        if (g["engine"] == "bare").any()
    }
    frames = []
    for label, table in (
        ("× bare metal", ratios_vs_bare(combined, base=ref_base)),
        ("Podman/Docker", podman_over_docker(combined)),
    ):
        if table.empty:
            continue
        key = [c for c in table.columns if c in KEY]
        refs = table[table["machine"] == REFERENCE_MACHINE].set_index(key)[
            ["proporcion", "ic_bajo", "ic_alto"]
        ]
        mine = table[table["machine"] != REFERENCE_MACHINE].copy()
        for col, src in (
            ("referencia", "proporcion"),
            ("referencia_ic_bajo", "ic_bajo"),
            ("referencia_ic_alto", "ic_alto"),
        ):
            mine[col] = [refs[src].get(tuple(r[k] for k in key), np.nan) for _, r in mine.iterrows()]
        mine = mine.dropna(subset=["referencia"])
        mine["veredicto"] = [
            _verdict(lo, hi, r, rlo, rhi, n)
            for lo, hi, r, rlo, rhi, n in zip(
                mine["ic_bajo"],
                mine["ic_alto"],
                mine["referencia"],
                mine["referencia_ic_bajo"],
                mine["referencia_ic_alto"],
                mine["n"],
            )
        ]
        mine.insert(1, "proporcion_de", label)
        frames.append(mine)
    if not frames:
        return pd.DataFrame()
    out = pd.concat(frames, ignore_index=True)
    emulated = {c.machine for c in class_runs.runs if c.meta.get("emulada")}
    if emulated:  # an emulated machine's timings decide no speed verdict (its memory still does)
        data = class_runs.data
        timed = set(map(tuple, data[data["unit"].isin(TIME_UNITS)][["experiment", "metric"]].values))
        pairs = zip(out["experiment"], out["metric"])
        at = out["machine"].isin(emulated) & np.array([pair in timed for pair in pairs], dtype=bool)
        out.loc[at, "veredicto"] = EMULATED_VERDICT
    for col in ("engine", "base"):
        if col in out:
            out[col] = out[col].fillna("")
    return out
