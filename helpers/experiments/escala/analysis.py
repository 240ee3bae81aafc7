"""Experiment 2's analysis: the wide table, the memory bill and its crossover, stats against cgroups,
the noise of `free`, the reference and the closing rows; whether a run launched under the chapter's
conditions (its claims on launch times need them), and its growth with N beside the chapter's. Sizes in KB of 1024 bytes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import stats
from .. import verdict
from ..contract import CLOSING_COLUMNS
from ..figures import agreement
from .probing import FIXED, HELPER, NETWORKS

SEED_CROSSOVER = 102


def wide(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (engine, n, rep), one column per metric."""
    if df.empty:
        return pd.DataFrame(columns=["engine", "n", "rep"])
    d = df.copy()
    d["n"] = d["variant"].str.extract(r"n=(\d+)", expand=False).astype(int)
    out = d.pivot_table(index=["engine", "n", "rep"], columns="metric", values="value", aggfunc="median")
    return out.reset_index().rename_axis(columns=None)


def column(frame: pd.DataFrame, name: str) -> pd.Series:
    return frame[name] if name in frame.columns else pd.Series(np.nan, index=frame.index)


SUMMARY_METRICS = [
    "lanzamiento_total",
    "lanzamiento_por_contenedor",
    "memoria_cgroup_por_contenedor",
    "memoria_stats_por_contenedor",
    "rss_daemon",
    "rss_containerd",
    "rss_shims_total",
    "pss_shims_total",
    "rss_conmon_total",
    "pss_conmon_total",
    "eliminacion_total",
]


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Median over repetitions of each metric, per (engine, n); plus the number of repetitions."""
    w = wide(df)
    if w.empty:
        return w
    cols = [m for m in SUMMARY_METRICS if m in w.columns]
    out = w.groupby(["engine", "n"])[cols].median().reset_index()
    out.insert(2, "repeticiones", w.groupby(["engine", "n"])["rep"].nunique().to_numpy())
    return out


def memory_bill(df: pd.DataFrame, basis: str = "rss") -> pd.DataFrame:
    """Per (engine, n), median over repetitions, in KB: fixed processes, per-container helpers,
    cgroup memory, and their total. basis: "rss" or "pss" (for the processes; cgroups are cgroups)."""
    w = wide(df)
    rows = []
    for (engine_name, n), g in w.groupby(["engine", "n"]):
        fixed = (
            sum(column(g, f"{basis}_{k}") for k in FIXED.get(engine_name, ()))
            if FIXED.get(engine_name)
            else pd.Series(0.0, index=g.index)
        )
        helpers = column(g, f"{basis}_{HELPER.get(engine_name, '?')}_total")
        cg = column(g, "memoria_cgroup_total")
        rows.append(
            {
                "engine": engine_name,
                "n": int(n),
                "fijo_kb": float(fixed.median()),
                "ayudantes_kb": float(helpers.median()),
                "cgroup_kb": float(cg.median()),
            }
        )
    out = pd.DataFrame(rows, columns=["engine", "n", "fijo_kb", "ayudantes_kb", "cgroup_kb"])
    out["total_kb"] = out[["fijo_kb", "ayudantes_kb", "cgroup_kb"]].sum(axis=1, min_count=3)
    return out


def fit_bill(bill: pd.DataFrame) -> dict[str, dict]:
    """Per engine: total(N) = fijo + por_contenedor x N. fijo is the measured fixed memory (median
    over N); por_contenedor is the least-squares slope through the origin of helpers + cgroups."""
    out = {}
    for engine_name, g in bill.groupby("engine"):
        g = g.dropna(subset=["ayudantes_kb", "cgroup_kb"])
        if g.empty:
            continue
        n = g["n"].to_numpy(float)
        variable = (g["ayudantes_kb"] + g["cgroup_kb"]).to_numpy(float)
        out[engine_name] = {
            "fijo_kb": float(np.nanmedian(g["fijo_kb"])),
            "por_contenedor_kb": float((n * variable).sum() / (n * n).sum()),
        }
    return out


def crossover_n(fit: dict[str, dict]) -> float | None:
    """N where Podman's total memory reaches Docker's, or None when the lines never cross for N > 0."""
    if "docker" not in fit or "podman" not in fit:
        return None
    d, p = fit["docker"], fit["podman"]
    slope = p["por_contenedor_kb"] - d["por_contenedor_kb"]
    if slope <= 0:
        return None
    n = (d["fijo_kb"] - p["fijo_kb"]) / slope
    return float(n) if n > 0 else None


def crossover(df: pd.DataFrame, basis: str = "rss") -> dict:
    """The crossover recomputed with the whole bill, and with the seed's model on the same data
    (dockerd alone against conmon per container)."""
    fit = fit_bill(memory_bill(df, basis))
    w = wide(df)
    seed_model = None
    if {"rss_daemon", "rss_conmon_total"} <= set(w.columns):
        daemon = w[w["engine"] == "docker"]["rss_daemon"].median()
        pod = w[w["engine"] == "podman"].dropna(subset=["rss_conmon_total"])
        if not pod.empty and not np.isnan(daemon):
            per = float((pod["n"] * pod["rss_conmon_total"]).sum() / (pod["n"] ** 2).sum())
            seed_model = float(daemon / per) if per > 0 else None
    return {"basis": basis, "fit": fit, "n_cruce": crossover_n(fit), "n_cruce_modelo_semilla": seed_model}


def reference_crossover(reference: pd.DataFrame) -> float:
    """The seed's arithmetic on its own table: dockerd RSS over conmon RSS per container."""
    w = wide(reference)
    daemon = w[w["engine"] == "docker"]["rss_daemon"].median()
    pod = w[w["engine"] == "podman"]
    per = float((pod["n"] * pod["rss_conmon_total"]).sum() / (pod["n"] ** 2).sum())
    return float(daemon / per)


def stats_vs_cgroup(df: pd.DataFrame) -> pd.DataFrame:
    """Where the CLI was timed: its time against the helpers' cgroup reading, and what each reports."""
    w = wide(df)
    if "tiempo_stats_cli" not in w.columns:
        return pd.DataFrame()
    g = w.dropna(subset=["tiempo_stats_cli"])
    if "tiempo_inspect_y_lectura" not in g.columns:  # runs from before inspect was timed with the reads
        g = g.assign(tiempo_inspect_y_lectura=np.nan)
    g = g.groupby(["engine", "n"])
    out = (
        g[
            [
                "tiempo_stats_cli",
                "tiempo_lectura_cgroup",
                "tiempo_inspect_y_lectura",
                "memoria_stats_cli_por_contenedor",
                "memoria_cgroup_por_contenedor",
                "memoria_stats_por_contenedor",
            ]
        ]
        .median()
        .reset_index()
    )
    # `stats` has to find the containers' cgroups too: it is set against inspect + reading
    out["veces_mas_lento"] = out["tiempo_stats_cli"] / column(out, "tiempo_inspect_y_lectura")
    return out


def noise(df: pd.DataFrame) -> pd.DataFrame:
    """Per (engine, n): the cgroup sum next to the system-wide delta, and the delta left after removing
    everything (which should be 0 and is pure noise). Median and range over repetitions, in KB."""
    w = wide(df)
    rows = []
    for (engine_name, n), g in w.groupby(["engine", "n"]):
        row = {
            "engine": engine_name,
            "n": int(n),
            "cgroup_total_kb": column(g, "memoria_cgroup_total").median(),
        }
        for col, key in (
            ("memoria_sistema_delta", "delta_sistema"),
            ("memoria_sistema_ruido", "ruido_sistema"),
        ):
            values = column(g, col)
            row[f"{key}_kb"] = values.median()
            row[f"{key}_min_kb"] = values.min()
            row[f"{key}_max_kb"] = values.max()
        rows.append(row)
    return pd.DataFrame(rows)


def crossover_interval(
    df: pd.DataFrame, basis: str = "rss", *, resamples: int = 1000, seed: int = stats.BOOTSTRAP_SEED
) -> tuple[float, float, float]:
    """The crossover N (whole bill, see crossover) with a percentile-bootstrap IC 95 %: the repetitions
    of every (engine, N) are resampled, the bill's medians and the two lines refitted each time. "The
    lines never cross" counts as N = +inf. Returns (n, low, high); NaN when an engine is missing."""
    nan = float("nan")
    point = crossover(df, basis)
    if not {"docker", "podman"} <= set(point["fit"]):
        return nan, nan, nan
    w = wide(df)
    rng = np.random.default_rng(seed)
    lines = {}
    for engine_name in ("docker", "podman"):
        fixed_keys = FIXED.get(engine_name, ())
        helper = f"{basis}_{HELPER[engine_name]}_total"
        fixed_b, ns, variable_b = [], [], []
        for n, g in w[w["engine"] == engine_name].groupby("n"):
            fixed = (
                sum(column(g, f"{basis}_{k}") for k in fixed_keys)
                if fixed_keys
                else pd.Series(0.0, index=g.index)
            )
            variable = column(g, helper) + column(g, "memoria_cgroup_total")
            pairs = np.column_stack([fixed.to_numpy(float), variable.to_numpy(float)])
            pairs = pairs[~np.isnan(pairs[:, 1])]
            if not len(pairs):
                continue
            idx = rng.integers(0, len(pairs), size=(resamples, len(pairs)))
            fixed_b.append(np.nanmedian(pairs[:, 0][idx], axis=1))
            variable_b.append(np.median(pairs[:, 1][idx], axis=1))
            ns.append(float(n))
        n_arr = np.array(ns)
        lines[engine_name] = (
            np.nanmedian(np.vstack(fixed_b), axis=0),
            (n_arr[:, None] * np.vstack(variable_b)).sum(axis=0) / (n_arr**2).sum(),
        )
    (d_fixed, d_slope), (p_fixed, p_slope) = lines["docker"], lines["podman"]
    slope = p_slope - d_slope
    with np.errstate(divide="ignore", invalid="ignore"):
        n_b = np.where(slope > 0, (d_fixed - p_fixed) / slope, np.inf)
    n_b = np.where(n_b > 0, n_b, np.inf)
    low, high = np.quantile(n_b, [0.025, 0.975], method="inverted_cdf")  # no interpolation across +inf
    value = point["n_cruce"] if point["n_cruce"] is not None else float("inf")
    return float(value), float(low), float(high)


def by_round(w: pd.DataFrame, engine_name: str, metric: str, n: int) -> pd.Series:
    """One metric of one engine at one N, indexed by round (rep): the arms of a round pair up."""
    g = w[(w["engine"] == engine_name) & (w["n"] == n)]
    return pd.Series(column(g, metric).to_numpy(float), index=g["rep"].to_numpy(int)).dropna()


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Rows of the closing table at the largest N: LAUNCH (ms per container, `run -d` one after another)
    and CAPACITY (what one idle container costs in memory: its cgroup and its helper, PSS; and the
    fixed processes), per engine, over the repetitions; unstable ones are left out."""
    w = wide(df)
    rows = []
    if w.empty or "lanzamiento_por_contenedor" not in w.columns:
        return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
    network = (meta or {}).get("launch_network", "sin_red")  # runs before the option launched without
    net = "red por defecto" if network == "por_defecto" else "sin red"
    n_max = int(w["n"].max())

    def add(concepto, tipo, engine_name, values, unit, scale=1.0):
        values = values.dropna().to_numpy(dtype=float) * scale
        if values.size and not stats.unstable(values):
            s = stats.summarize(values)
            rows.append(
                {
                    "concepto": concepto,
                    "tipo": tipo,
                    "entorno": engine_name,
                    "valor": s.median,
                    "ic_bajo": s.ci_low,
                    "ic_alto": s.ci_high,
                    "unidad": unit,
                }
            )

    for engine_name in [e for e in eng.CONTAINER_ENGINES if e in set(w["engine"])]:
        g = w[(w["engine"] == engine_name) & (w["n"] == n_max)]
        add(
            f"lanzar {n_max} contenedores uno tras otro (`run -d`, {net}): cada uno",
            "LAUNCH",
            engine_name,
            column(g, "lanzamiento_por_contenedor"),
            "ms",
        )
        add(
            "memoria del cgroup de un contenedor en reposo",
            "CAPACITY",
            engine_name,
            column(g, "memoria_cgroup_por_contenedor"),
            "MiB",
            1 / 1024,
        )
        helper = HELPER.get(engine_name, "?")
        add(
            f"su proceso ayudante ({'shim' if helper == 'shims' else helper}, PSS)",
            "CAPACITY",
            engine_name,
            column(g, f"pss_{helper}_total") / n_max,
            "MiB",
            1 / 1024,
        )
        fixed = FIXED.get(engine_name, ())
        if fixed:
            total = sum(column(g, f"pss_{k}") for k in fixed)
            add(
                "procesos fijos del motor (dockerd + containerd, PSS)",
                "CAPACITY",
                engine_name,
                total,
                "MiB",
                1 / 1024,
            )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)


def per_container(df: pd.DataFrame, engines: tuple[str, ...] = eng.CONTAINER_ENGINES) -> dict[str, dict]:
    """What one more idle container holds, per engine (of `engines`: notebook 04 bills its Kubernetes
    cluster's Pods with the same rows), at the largest N it was measured at: {engine:
    {"n", "memoria_kb": its cgroup plus its helper's PSS (shim, conmon), per container, median over the
    repetitions with its IC (stats.median_ci: each repetition is its own launch of N), "procesos": the
    helper processes 02 counted per container plus the container's own (threads, which also take a
    PID, are not counted: a lower bound)}}. The fixed processes (dockerd, containerd) are left out: they
    are paid once. Engines without both figures at that N are left out."""
    w = wide(df)
    out: dict[str, dict] = {}
    for engine_name in [e for e in engines if e in set(w.get("engine", ()))]:
        n = largest_n(w, engine_name)
        if n is None:
            continue
        g = w[(w["engine"] == engine_name) & (w["n"] == n)]
        helper = HELPER.get(engine_name, "?")
        memory = (column(g, "memoria_cgroup_total") + column(g, f"pss_{helper}_total")) / n
        procs = column(g, f"{helper}_procesos" if helper != "shims" else "shims_procesos") / n
        if memory.dropna().empty:
            continue
        out[engine_name] = {
            "n": n,
            "memoria_kb": stats.median_ci(memory.dropna().to_numpy(float)),
            "procesos": float(procs.median()) + 1 if procs.notna().any() else np.nan,
        }
    return out


def fixed_memory(
    df: pd.DataFrame, engines: tuple[str, ...] = eng.CONTAINER_ENGINES
) -> dict[str, stats.Estimate]:
    """What each engine's fixed processes hold, paid once whatever N is (FIXED: dockerd and containerd;
    a Kubernetes cluster's control plane and node agents), in KB: the sum of their PSS at the largest N
    the engine was measured at (per_container's, and the closing table's), median over the repetitions
    with its IC (stats.median_ci). Engines without fixed processes (Podman) are left out."""
    w = wide(df)
    out: dict[str, stats.Estimate] = {}
    for engine_name in [e for e in engines if FIXED.get(e) and e in set(w.get("engine", ()))]:
        n = largest_n(w, engine_name)
        g = w[(w["engine"] == engine_name) & (w["n"] == n)]
        total = sum(column(g, f"pss_{k}") for k in FIXED[engine_name]).dropna()
        if total.size:
            out[engine_name] = stats.median_ci(total.to_numpy(float))
    return out


def largest_n(w: pd.DataFrame, *engines: str) -> int | None:
    """The largest N (> 0) every given engine was measured at, or None."""
    common = None
    for engine_name in engines:
        ns = set(w.loc[(w["engine"] == engine_name) & (w["n"] > 0), "n"])
        common = ns if common is None else common & ns
    return max(common) if common else None


COMPARED = [
    # (label key, live metric, reference metric)
    ("s_lanzamiento_total", "lanzamiento_total", "lanzamiento_total"),
    ("kb_por_contenedor", "memoria_stats_por_contenedor", "memoria_cgroup_por_contenedor"),
    ("memoria_proceso_kb", None, None),
]


def _process_metric(engine_name: str) -> str:
    """The memory the chapter charged to each engine: dockerd for Docker, every conmon for Podman."""
    return "rss_daemon" if engine_name == "docker" else "rss_conmon_total"


def compare(
    df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame, judged: Sequence = ()
) -> pd.DataFrame:
    """Live figures next to the chapter's at one N (the largest this run measured both engines at,
    where the chapter has it too: 20 by default), with Podman/Docker. The live ratio's IC 95 %
    resamples this run's rounds; the chapter published one figure per N, shown as it is (no interval).
    `judged`: the run's claims (escala.claims), so that a row takes the status of the claim judged on
    its figure (`one_status`).

    KB per container: the chapter read `stats`, so the live side uses the same view (usage minus inactive
    file cache). Process memory: dockerd for Docker, all conmon for Podman."""
    w, ref = wide(df), wide(reference)
    n = largest_n(w, "docker", "podman")
    rows = []
    for key, live_metric, ref_metric in COMPARED:
        row = {"medida": key, "n": n}
        for prefix, frame, metric in (("ref", ref, ref_metric), ("tu", w, live_metric)):
            at = frame[frame["n"] == n] if n is not None else frame.iloc[:0]
            series = {}
            for engine_name in ("docker", "podman"):
                m = metric or _process_metric(engine_name)
                g = at[at["engine"] == engine_name]
                series[engine_name] = pd.Series(column(g, m).to_numpy(float), index=g["rep"].to_numpy(int))
                row[f"{prefix}_{engine_name}"] = float(series[engine_name].median()) if len(g) else np.nan
            if prefix == "ref":
                value = row["ref_podman"] / row["ref_docker"] if row["ref_docker"] else np.nan
                low = high = np.nan
            else:
                value, low, high = stats.ratio_ci(
                    series["podman"], series["docker"]
                ).triple  # paired by round
            row[f"{prefix}_podman_sobre_docker"] = value
            row[f"{prefix}_podman_sobre_docker_ic_bajo"] = low
            row[f"{prefix}_podman_sobre_docker_ic_alto"] = high
        row["acuerdo"] = agreement(
            tuple(row[f"tu_podman_sobre_docker{s}"] for s in ("", "_ic_bajo", "_ic_alto")),
            tuple(row[f"ref_podman_sobre_docker{s}"] for s in ("", "_ic_bajo", "_ic_alto")),
        )
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    return one_status(out, judged)


# The claim judged on the same figure as a row of `compare`: one status per figure on the page.
SAME_FIGURE = {"s_lanzamiento_total": "lanzamiento_20", "kb_por_contenedor": "cgroup_4x"}


def one_status(out: pd.DataFrame, judged) -> pd.DataFrame:
    """`compare`'s rows whose figure the page's claim (among `judged`) took its verdict from (the load
    varied between rounds, or the figure is unstable) carry that status: never a «no coincide» beside
    «bajo carga» for the same figure."""
    withheld = {c.key: c.status for c in judged if c.status in (verdict.BAJO_CARGA, verdict.INESTABLE)}
    for at, key in out["medida"].items():
        if SAME_FIGURE.get(key) in withheld and out.at[at, "acuerdo"] != verdict.SIN_DATOS:
            out.at[at, "acuerdo"] = withheld[SAME_FIGURE[key]]
    return out


# ---------------------------------------------------------------- the run against the chapter's conditions
def both(df: pd.DataFrame) -> bool:
    return {"docker", "podman"} <= (set(df["engine"]) if len(df) else set())


def on_default_network(meta: dict | None) -> bool:
    """Whether this run launched its containers on the engine's default network (a bridge), as the
    chapter did; runs from before the option was recorded say it in their parameters."""
    params = (meta or {}).get("parameters") or {}
    return (meta or {}).get("launch_network", params.get("red", "sin_red")) == NETWORKS[0]


def launch_conditions(meta: dict | None) -> str | None:
    """Why this run's launch times cannot test the chapter's (None when they can): the chapter's script
    launched one container after another with the default network."""
    params = (meta or {}).get("parameters") or {}
    if not on_default_network(meta):
        how = "lanzó sin red (`--network none`, variante del curso) y el capítulo con la red por defecto"
    elif int(params.get("concurrencia", 1) or 1) > 1:
        how = "lanzó varios contenedores a la vez y el capítulo uno tras otro"
    else:
        return None
    return f"Esta corrida {how}: sus tiempos se muestran, pero no juzgan esta afirmación."


def _growth(value: float, low: float, high: float) -> str:
    """One engine's growth as the course writes a ratio: «1.15× [1.10, 1.40]»; the figure alone when its
    rounds are too few for an interval."""
    if stats.any_nan(low, high):
        return f"{value:.2f}×"
    return f"{value:.2f}× [{low:.2f}, {high:.2f}]"


def growth_note(ns: list[int], own: dict) -> str:
    """How much each engine's time per container grows from N = ns[0] to ns[-1] (own: {engine: (value,
    low, high)}, per_n.steadiness) beside the chapter's table, for the claim that Podman scales more
    steadily (Spanish)."""
    here = "; ".join(
        f"{eng.DISPLAY[e]} {_growth(v, lo, hi)}" for e, (v, lo, hi) in sorted(own.items(), reverse=True)
    )
    return (
        "Un cuello de botella en el daemon hace crecer con N el tiempo por contenedor de Docker: la "
        "afirmación se sostiene si el de Podman crece al menos un 5 % menos (el margen de «ahorra»). "
        f"Cuánto crece el tiempo por contenedor de N = {ns[0]} a N = {ns[-1]}, según la pendiente de "
        f"cada ronda: {here}. La tabla del capítulo (Podman de 123 a 190 ms y Docker de 220 a 350 ms, "
        "con N = 1, 5, 10 y 20) no crece con N en ninguno de los dos: sus rangos son ruido entre N."
    )
