"""Experiment 1's analysis: summaries per arm, ratios, the reference and the closing rows; the run's setup
and spreads beside the chapter's, in the notes its claims carry."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import results, stats
from ..contract import CLOSING_COLUMNS
from ..figures import agreement
from .measure import CONTAINER_VARIANT, FIRST_METRIC, METRIC, NO_NETWORK_VARIANT

BASELINE = ("bare", "proceso")
MB = 2**20


def with_roles(df: pd.DataFrame, meta: dict | None) -> pd.DataFrame:
    """Add `role` (alpine/ubuntu) to the rows; see helpers.results.add_roles."""
    return results.add_roles(df, meta)


def _by_round(group: pd.DataFrame, paired: bool):
    """An arm's values: indexed by round (paired with the other arms of its rounds) or a plain array."""
    values = group["value"].to_numpy(float)
    return pd.Series(values, index=group["rep"].to_numpy(int)) if paired else values


def summarize(
    df: pd.DataFrame, meta: dict | None = None, *, baseline=BASELINE, paired: bool = True
) -> pd.DataFrame:
    """One row per (engine, role, variant): n, median, IQR, min, IC 95 % and x baseline with its IC.
    paired: the arms were measured round-robin (a live run), so × baseline is paired by round; the
    reference's repetitions were not, and are compared as independent samples. A baseline flagged
    unstable (stats.unstable) divides nothing: × baseline is NaN and `base_inestable` says why (the page
    says «repite»)."""
    df = with_roles(df[df["metric"] == METRIC], meta)
    base_rows = df[(df["engine"] == baseline[0]) & (df["variant"] == baseline[1])]
    shaky = bool(len(base_rows)) and bool(stats.unstable(base_rows["value"]))
    base = _by_round(base_rows.iloc[:0] if shaky else base_rows, paired)
    rows = []
    for (engine_name, role, variant), group in df.groupby(["engine", "role", "variant"], sort=False):
        values = group["value"].to_numpy()
        s = stats.summarize(values)
        ratio, lo, hi = stats.ratio_ci(_by_round(group, paired), base).triple  # NaN without a base
        rows.append(
            {
                "engine": engine_name,
                "role": role,
                "variant": variant,
                "image": group["image"].iloc[0],
                **s.columns("ms"),
                "x_bare": ratio,
                "x_bare_ic_bajo": lo,
                "x_bare_ic_alto": hi,
                "base_inestable": shaky,
            }
        )
    order = {"bare": 0, "docker": 1, "podman": 2}
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    return out.sort_values(
        by=["engine", "role", "variant"], key=lambda c: c.map(order) if c.name == "engine" else c
    ).reset_index(drop=True)


def arm_series(
    df: pd.DataFrame,
    meta: dict | None,
    key: tuple[str, str],
    variant: str = CONTAINER_VARIANT,
    metric: str = METRIC,
) -> pd.Series:
    """Raw repetitions of one arm indexed by round (rep): (engine, role) for a container arm (with the
    default network unless `variant` says otherwise), ("bare", variant) on bare metal."""
    df = with_roles(df[df["metric"] == metric], meta)
    engine_name, what = key
    if engine_name == "bare":
        at = (df["engine"] == "bare") & (df["variant"] == what)
    else:
        at = (df["engine"] == engine_name) & (df["role"] == what) & (df["variant"] == variant)
    g = df[at]
    return pd.Series(g["value"].to_numpy(float), index=g["rep"].to_numpy(int), name=f"{engine_name}/{what}")


def arm_values(
    df: pd.DataFrame, meta: dict | None, key: tuple[str, str], variant: str = CONTAINER_VARIANT
) -> np.ndarray:
    """The same repetitions as a plain array (see arm_series)."""
    return arm_series(df, meta, key, variant).to_numpy()


def pair_ratio(
    df: pd.DataFrame,
    meta: dict | None,
    a: tuple[str, str],
    b: tuple[str, str],
    variant: str = CONTAINER_VARIANT,
) -> tuple[float, float, float]:
    """Ratio a/b with its IC, paired by round (stats.ratio_ci); a and b are (engine, role) of container
    arms, or ("bare", variant)."""
    return stats.ratio_ci(arm_series(df, meta, a, variant), arm_series(df, meta, b, variant)).triple


def rounds_ci(
    series: list[pd.Series], fn, *, resamples: int = stats.BOOTSTRAP_RESAMPLES, seed=stats.BOOTSTRAP_SEED
) -> stats.Estimate:
    """A figure of several arms measured in the same rounds that cannot be computed round by round (a
    spread, a range across N), with a percentile-bootstrap IC 95 % that resamples whole rounds (the
    arms of a round stay together, so drift shared by a round cancels); figures that can be computed
    per round go through stats (ratio_ci, difference_ci). fn takes one array per arm (aligned by
    round). n counts rounds; NaN bounds below stats.MIN_N rounds."""
    table = pd.concat(series, axis=1, join="inner").dropna()
    n = len(table)
    if n == 0:
        return stats.Estimate.missing(method=stats.BOOTSTRAP, paired=True)
    cols = [table.iloc[:, i].to_numpy(float) for i in range(table.shape[1])]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(fn(*cols))
    if n < stats.MIN_N:
        return stats.Estimate(value, stats.NAN, stats.NAN, n, stats.BOOTSTRAP, paired=True)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        figures = np.array([fn(*(c[i] for c in cols)) for i in idx], dtype=float)
    figures = figures[np.isfinite(figures)]
    if figures.size == 0:
        return stats.Estimate(value, stats.NAN, stats.NAN, n, stats.BOOTSTRAP, paired=True)
    low, high = np.quantile(figures, [0.025, 0.975])
    return stats.Estimate(value, float(low), float(high), n, stats.BOOTSTRAP, paired=True)


def relative_iqr(values: np.ndarray) -> np.float64:
    """IQR / median (the spread of a set of times, free of their scale)."""
    q1, q3 = np.quantile(values, [0.25, 0.75], method=stats.QUANTILE_METHOD)
    return np.float64(q3 - q1) / np.float64(np.median(values))


def iqr_ratio(df: pd.DataFrame, meta: dict | None, role: str) -> stats.Estimate:
    """Podman's relative IQR over Docker's (same image, default network), with an IC 95 % that
    resamples whole rounds."""
    series = [arm_series(df, meta, (e, role)) for e in ("podman", "docker")]
    if any(s.empty for s in series):
        return stats.Estimate.missing(method=stats.BOOTSTRAP, paired=True)
    return rounds_ci(series, lambda p, d: relative_iqr(p) / relative_iqr(d), resamples=1000)


def network_table(df: pd.DataFrame, meta: dict | None) -> pd.DataFrame:
    """Per engine and image: median with the default network, with `--network none` (the course's
    variant), and what the network adds (ms: the median of the per-round differences, with its IC)."""
    rows = []
    for role in sorted(set(with_roles(df, meta)["role"]) - {""}):
        for engine_name in ("docker", "podman"):
            with_net = arm_series(df, meta, (engine_name, role))
            without = arm_series(df, meta, (engine_name, role), NO_NETWORK_VARIANT)
            if with_net.empty:
                continue
            added = stats.difference_ci(with_net, without).triple if len(without) else None
            rows.append(
                {
                    "engine": engine_name,
                    "role": role,
                    "con_red_ms": float(with_net.median()),
                    "sin_red_ms": float(without.median()) if len(without) else np.nan,
                    "red_ms": added[0] if added else np.nan,
                    "red_ic_bajo": added[1] if added else np.nan,
                    "red_ic_alto": added[2] if added else np.nan,
                }
            )
    return pd.DataFrame(
        rows, columns=["engine", "role", "con_red_ms", "sin_red_ms", "red_ms", "red_ic_bajo", "red_ic_alto"]
    )


def first_launches(df: pd.DataFrame, meta: dict | None) -> pd.DataFrame:
    """Per container arm: its first launch in this run (the warm-up) next to the median of the
    measured repetitions, their ratio, and how many of those n repetitions were faster than it
    (`mas_rapidos`: n when the first was the slowest of all)."""
    d = with_roles(df, meta)
    first = d[(d["metric"] == FIRST_METRIC) & (d["engine"] != "bare")]
    rows = []
    for (engine_name, role, variant), g in first.groupby(["engine", "role", "variant"], sort=True):
        rest = arm_values(df, meta, (engine_name, role), variant)
        if not rest.size:
            continue
        med = float(np.median(rest))
        rows.append(
            {
                "engine": engine_name,
                "role": role,
                "variant": variant,
                "primero_ms": float(g["value"].iloc[0]),
                "mediana_ms": med,
                "proporcion": float(g["value"].iloc[0]) / med,
                "mas_rapidos": int((rest < float(g["value"].iloc[0])).sum()),
                "n": int(rest.size),
            }
        )
    columns = ["engine", "role", "variant", "primero_ms", "mediana_ms", "proporcion", "mas_rapidos", "n"]
    return pd.DataFrame(rows, columns=columns)


def image_sizes(meta: dict | None) -> pd.DataFrame:
    """The images this run used, per engine and role: real name and the engine's own size (MiB,
    uncompressed, as stored locally; no registry is reached)."""
    rows = []
    for engine_name, roles in ((meta or {}).get("images") or {}).items():
        for role, info in (roles or {}).items():
            if info and info.get("size_bytes"):
                rows.append(
                    {
                        "engine": engine_name,
                        "role": role,
                        "image": info.get("name", ""),
                        "mib": info["size_bytes"] / MB,
                        "origen": info.get("origin", ""),
                    }
                )
    return pd.DataFrame(rows, columns=["engine", "role", "image", "mib", "origen"])


def unstable_arms(df: pd.DataFrame, meta: dict | None) -> set[tuple[str, str, str]]:
    """(engine, role, variant) of the arms whose spread dwarfs their median (stats.unstable)."""
    d = with_roles(df[df["metric"] == METRIC], meta)
    return {key for key, g in d.groupby(["engine", "role", "variant"]) if stats.unstable(g["value"])}


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Live ratios next to the reference's, per container combination, each with its IC 95 %.

    The reference's intervals are bootstrapped from its own raw repetitions, the same way as the live
    ones, and `acuerdo_*` says whether the two intervals overlap (figures.agreement). The reference's
    bare-metal row was measured with the chapter's method, so x bare metal is compared against the same
    method measured here (`tu_x_bare_metodo_semilla`); the real process is shown beside it."""
    live = summarize(df, meta)
    ref = summarize(reference, None, baseline=("bare", "metodo_semilla"), paired=False)
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
        match = live[
            (live["engine"] == r["engine"])
            & (live["role"] == r["role"])
            & (live["variant"] == CONTAINER_VARIANT)
        ]
        if not match.empty:
            row["tu_mediana_ms"] = match.iloc[0]["mediana_ms"]
            row["tu_x_bare_proceso"] = match.iloc[0]["x_bare"]
            if live_seed is not None:
                ms = live_seed[
                    (live_seed["engine"] == r["engine"])
                    & (live_seed["role"] == r["role"])
                    & (live_seed["variant"] == CONTAINER_VARIANT)
                ]
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
        ).triple
        live_pd = pair_ratio(df, meta, ("podman", role), ("docker", role))
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
            net = ", sin red" if r["variant"] == NO_NETWORK_VARIANT else ""
            concepto = f"arrancar un contenedor nuevo (`run --rm … echo ok`, imagen «{r['role']}»{net})"
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


# ---------------------------------------------------------------- the run's setup beside the chapter's
def setup_note(meta: dict | None) -> str:
    """What our setup has that the chapter's did not say, for the claim on the daemonless path (Spanish;
    "" when meta names neither engine)."""
    engines = (meta or {}).get("engines") or {}
    podman, docker = engines.get("podman") or {}, engines.get("docker") or {}
    if not (podman or docker):
        return ""
    return (
        f"Aquí: Docker {docker.get('server_version', '?')} y Podman {podman.get('server_version', '?')}, "
        f"los dos con {podman.get('runtime') or docker.get('runtime') or '?'}; la red de Podman la arma "
        f"{podman.get('network_backend', '?')}. `podman run` no es un solo fork-exec: lanza conmon, que "
        "lanza el runtime, y prepara la red; el cuaderno 04 mide cada paso. El capítulo usó Docker 28.4.0 "
        "y Podman 4.6.2."
    )


def spread_note(df: pd.DataFrame, meta: dict | None, role: str, chapter: dict) -> str:
    """This run's spreads (IQR/median) with `role` beside the chapter's (`chapter`: {engine: (median, q1,
    q3)}), and the storage this run's Podman keeps its layers with (the cause the chapter gives), for the
    claim on Podman's wider IQR (Spanish)."""
    here = [arm_series(df, meta, (e, role)) for e in ("podman", "docker")]
    theirs = [(q3 - q1) / median for median, q1, q3 in (chapter["podman"], chapter["docker"])]
    note = (
        ""
        if min(map(len, here)) < 2
        else "IQR/mediana aquí: Podman {:.3f} y Docker {:.3f} ".format(
            *(relative_iqr(s.to_numpy()) for s in here)
        )
        + f"(en el capítulo, {theirs[0]:.3f} y {theirs[1]:.3f}). "
    )
    iqr = [chapter[e][2] - chapter[e][1] for e in ("podman", "docker")]
    note += (
        f"En la tabla del capítulo el IQR absoluto de Podman no es mayor ({iqr[0]:.0f} frente a {iqr[1]:.0f} "
        f"ms con «{role}»); relativo a la mediana sí, y esa es la lectura que se juzga."
    )
    podman = ((meta or {}).get("engines") or {}).get("podman") or {}
    storage = podman.get("storage") or podman.get("storage_driver")
    if storage:
        note += f" Tu Podman guarda las capas con «{storage}»" + (
            ": la causa que da el capítulo está presente."
            if "fuse" in str(storage).lower()
            else ", sin fuse-overlayfs: la causa que da el capítulo no está en esta máquina."
        )
    return note
