"""The network experiment's analysis: one row per server and arm, the loss against native, the
reference's ratios next to the live ones, the closing rows, and the run's conditions beside the
document's (its wrk load, its Docker's security), which the claims are judged under."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from .. import figures, verdict
from ..contract import CLOSING_COLUMNS
from . import servers
from .arms import ARM_SPECS, CLUSTER_NATIVE, arm_label
from .kube import CPU_METRICS as K8S_CPU_METRICS
from .measure import SEED_PRESET, UNPINNED

BASELINE = ("bare", "nativo")
PINNED_BASELINE = ("bare", ARM_SPECS["nativo-fijo"].variant)  # native as the course pins it
CLUSTER_BASELINE = ("bare", CLUSTER_NATIVE.variant)  # native in the Kubernetes loop, the cluster idling
MAIN_SERVERS = ("nethttp", "gin", "actix", "rocket")  # among servers with as many arms, the first one
# The live arm set beside each level of the reference (Kubernetes: the way its «localhost» reached a
# Deployment with no Service).
LIVE_ARM_OF_LEVEL = {"docker": "puerto", "kubernetes": "port_forward"}


def baseline_of(engine: str, variant: str) -> tuple[str, str]:
    """The native arm an arm is paired with, measured in its rounds: native again beside the cluster for
    a Kubernetes arm, the pinned native for a pinned arm, native for every other."""
    if engine == "kubernetes":
        return CLUSTER_BASELINE
    spec = next((s for s in ARM_SPECS.values() if (s.engine, s.variant) == (engine, variant)), None)
    return PINNED_BASELINE if spec is not None and spec.pinned else BASELINE


def arm_values(df: pd.DataFrame, metric: str, engine: str, variant: str, server: str) -> pd.Series:
    """The repetitions of one metric of one arm (engine, variant) and one server, indexed by round
    (`rep`): the arms are loaded round-robin, so two arms' Series are paired by round (stats pairs
    them; a drift shared by a round then cancels in their ratio)."""
    sel = df[
        (df["metric"] == metric)
        & (df["engine"] == engine)
        & (df["variant"] == variant)
        & (df["image"] == server)
    ]
    values = pd.Series(pd.to_numeric(sel["value"], errors="coerce").to_numpy(dtype=float), index=sel["rep"])
    return values.dropna()


def _combos(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    if df is None or df.empty:
        return []
    specs = [*ARM_SPECS.values(), CLUSTER_NATIVE]
    order = {(s.engine, s.variant): i for i, s in enumerate(specs)}
    known = {k: i for i, k in enumerate(servers.SERVER_NAMES)}
    combos = df[["engine", "variant", "image"]].drop_duplicates().itertuples(index=False, name=None)
    return sorted(combos, key=lambda c: (known.get(c[2], 99), order.get((c[0], c[1]), 99), c[0]))


def _per_rep(df: pd.DataFrame, engine: str, variant: str, server: str) -> pd.DataFrame:
    """One arm's rows as one row per repetition and one column per metric."""
    sel = df[(df["engine"] == engine) & (df["variant"] == variant) & (df["image"] == server)]
    return sel.pivot_table(index="rep", columns="metric", values="value", aggfunc="first")


def per_request_us(df: pd.DataFrame, metric: str, engine: str, variant: str, server: str) -> float:
    """Median CPU microseconds per request of one process group (paired by repetition)."""
    wide = _per_rep(df, engine, variant, server)
    if metric not in wide or "peticiones" not in wide:
        return float("nan")
    per = (wide[metric] / wide["peticiones"] * 1e6).replace([np.inf, -np.inf], np.nan).dropna()
    return float(per.median()) if len(per) else float("nan")


def per_rep_ratio(df: pd.DataFrame, num: str, den: str, engine: str, variant: str, server: str) -> np.ndarray:
    """metric num / metric den, repetition by repetition, for one arm and server."""
    wide = _per_rep(df, engine, variant, server)
    if num not in wide or den not in wide:
        return np.array([])
    ratio = (wide[num] / wide[den]).replace([np.inf, -np.inf], np.nan).dropna()
    return ratio.to_numpy(dtype=float)


def _median(values: pd.Series) -> float:
    return float(np.median(values)) if values.size else float("nan")


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per server and arm: total req/s (median, IQR, IC 95 %), ratio to its native (baseline_of,
    paired by round; native beside the cluster against native, two loops: independent arms), per-thread
    req/s, latency p50/p90/p99, socket errors and CPU µs per request of each process."""
    rows = []
    for engine, variant, server in _combos(df):
        total = arm_values(df, "req_s", engine, variant, server)
        if total.size == 0:
            continue
        s = stats.summarize(total)
        own = baseline_of(engine, variant)
        base = arm_values(df, "req_s", *own, server)
        if (engine, variant) == CLUSTER_BASELINE:  # another loop's rounds: independent arms
            total_for_ratio, base = total.to_numpy(), arm_values(df, "req_s", *BASELINE, server).to_numpy()
        else:
            total_for_ratio = total
        shaky = bool(base.size) and (engine, variant) != own and figures.ratio_unstable(total_for_ratio, base)
        if shaky:  # no figure against a ratio the rule calls unstable: the page says «repite»
            ratio = lo = hi = float("nan")
        elif base.size and (engine, variant) != own:
            ratio, lo, hi = stats.ratio_ci(total_for_ratio, base).triple
            if (engine, variant) == CLUSTER_BASELINE and stats.any_nan(lo):
                ratio = float("nan")  # independent arms need one more round for an interval: no figure
        elif base.size:
            ratio, lo, hi = 1.0, 1.0, 1.0
        else:
            ratio = lo = hi = float("nan")
        errors = arm_values(df, "errores_socket", engine, variant, server)
        rows.append(
            {
                "servidor": server,
                "engine": engine,
                "variant": variant,
                "brazo": arm_label(engine, variant, meta),
                "n": s.n,
                "req_s": s.median,
                "q1": s.q1,
                "q3": s.q3,
                "ic_bajo": s.ci_low,
                "ic_alto": s.ci_high,
                "frente_nativo": ratio,
                "frente_nativo_ic_bajo": lo,
                "frente_nativo_ic_alto": hi,
                "req_s_hilo": _median(arm_values(df, "req_s_hilo", engine, variant, server)),
                "latencia_p50_ms": _median(arm_values(df, "latencia_p50", engine, variant, server)),
                "latencia_p90_ms": _median(arm_values(df, "latencia_p90", engine, variant, server)),
                "latencia_p99_ms": _median(arm_values(df, "latencia_p99", engine, variant, server)),
                "errores_socket": float(np.sum(errors)) if errors.size else 0.0,
                "us_cpu_servidor": per_request_us(df, "cpu_servidor", engine, variant, server),
                "us_cpu_proxy": per_request_us(df, "cpu_proxy", engine, variant, server),
                "us_cpu_ayudante": per_request_us(df, "cpu_ayudante", engine, variant, server),
                "us_cpu_carga": per_request_us(df, "cpu_carga", engine, variant, server),
                **{f"us_{m}": per_request_us(df, m, engine, variant, server) for m in K8S_CPU_METRICS},
                "inestable": stats.unstable(total),
                "frente_nativo_inestable": shaky,
            }
        )
    return pd.DataFrame(rows)


def main_server(df: pd.DataFrame) -> str | None:
    """The server that ran every arm (the first of SERVIDORES: the others run only the document's arms),
    which the course's own comparisons and the CPU plot read: the one with the most arms, and among
    those net/http, then gin, actix, Rocket."""
    if df is None or df.empty:
        return None
    arms = df[["engine", "variant", "image"]].drop_duplicates().groupby("image").size()
    known = [key for key in MAIN_SERVERS if key in arms.index]
    return max(known, key=lambda key: (arms[key], -MAIN_SERVERS.index(key))) if known else None


# The network paths compared two by two under the verdicts (numerator arm, denominator arm), each pair
# measured in the same rounds.
PATH_PAIRS = {
    "host_frente_nativo": (("docker", "host"), BASELINE),
    "puerto_frente_nativo": (("docker", "puerto"), BASELINE),
    "nat_frente_proxy": (("podman", "puerto"), ("docker", "puerto")),
    "puerto_fijo_frente_nativo_fijo": (("docker", "puerto_fijo"), PINNED_BASELINE),
    "nativo_fijo_frente_nativo": (PINNED_BASELINE, BASELINE),
    "k8s_port_forward_frente_nativo": (("kubernetes", "port_forward"), CLUSTER_BASELINE),
    "k8s_nodeport_frente_nativo": (("kubernetes", "nodeport"), CLUSTER_BASELINE),
    "k8s_host_frente_nativo": (("kubernetes", "host"), CLUSTER_BASELINE),
    "k8s_port_forward_frente_nodeport": (("kubernetes", "port_forward"), ("kubernetes", "nodeport")),
    "k8s_nodeport_frente_host": (("kubernetes", "nodeport"), ("kubernetes", "host")),
}


def placement_effect(df: pd.DataFrame, server: str, metric: str = "req_s") -> stats.Estimate:
    """How much the placement changes Docker -p's loss: (Docker -p / native, unpinned as the document ran
    them) over (the same, pinned as the course does), round by round, the four arms in the same rounds."""
    arms = [
        arm_values(df, metric, *a, server)
        for a in (("docker", "puerto"), BASELINE, ("docker", "puerto_fijo"))
    ]
    arms.append(arm_values(df, metric, *PINNED_BASELINE, server))
    return stats.figure_ci(lambda a, b, c, d: (a / b) / (c / d), *arms)


def path_ratios(df: pd.DataFrame, server: str) -> dict[str, tuple[float, float, float, int]]:
    """{pair: (ratio of req/s, IC low, IC high, n rounds)} for the PATH_PAIRS both of whose arms ran with
    this server (paired by round)."""
    out = {}
    for key, (num_arm, den_arm) in PATH_PAIRS.items():
        num = arm_values(df, "req_s", *num_arm, server)
        den = arm_values(df, "req_s", *den_arm, server)
        if num.size and den.size:
            out[key] = (*stats.ratio_ci(num, den).triple, stats.n_of(num, den))
    return out


def reference_ratios(reference: pd.DataFrame) -> pd.DataFrame:
    """The reference's totals as ratios to native, per server and level (Docker, Kubernetes)."""
    rows = []
    ref = reference[reference["metric"] == "req_s"]
    for server in ref["image"].unique():
        base = ref[(ref["image"] == server) & (ref["engine"] == "bare")]["value"]
        if base.empty:
            continue
        for _, r in ref[ref["image"] == server].iterrows():
            rows.append(
                {
                    "servidor": server,
                    "engine": r["engine"],
                    "variant": r["variant"],
                    "req_s": float(r["value"]),
                    "frente_nativo": float(r["value"]) / float(base.iloc[0]),
                }
            )
    return pd.DataFrame(rows)


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Each live arm's ratio to native next to the reference's (Docker -p; Kubernetes through
    `kubectl port-forward`, LIVE_ARM_OF_LEVEL), and their agreement judged like a claim (figures.agreement: live ÷ reference against «about 1»)."""
    live = summarize(df, meta)
    ref = reference_ratios(reference)
    rows = []
    for server in MAIN_SERVERS:
        live_server = live[live["servidor"] == server] if not live.empty else live
        for _, r in ref[ref["servidor"] == server].iterrows():
            if r["engine"] == "bare":
                continue
            row = {
                "servidor": server,
                "nivel": r["engine"],
                "ref_req_s": r["req_s"],
                "ref_frente_nativo": r["frente_nativo"],
                "brazo_en_vivo": "",
                "tu_frente_nativo": np.nan,
                "tu_ic_bajo": np.nan,
                "tu_ic_alto": np.nan,
                "acuerdo": verdict.SIN_DATOS,
            }
            match = (
                live_server[
                    (live_server["engine"] == r["engine"])
                    & (live_server["variant"] == LIVE_ARM_OF_LEVEL.get(r["engine"], "puerto"))
                ]
                if len(live_server)
                else live_server
            )
            if len(match):
                m = match.iloc[0]
                row.update(
                    brazo_en_vivo=m["brazo"],
                    tu_frente_nativo=m["frente_nativo"],
                    tu_ic_bajo=m["frente_nativo_ic_bajo"],
                    tu_ic_alto=m["frente_nativo_ic_alto"],
                    acuerdo=verdict.INESTABLE
                    if m["frente_nativo_inestable"]
                    else figures.agreement(
                        (m["frente_nativo"], m["frente_nativo_ic_bajo"], m["frente_nativo_ic_alto"]),
                        (r["frente_nativo"], float("nan"), float("nan")),
                    ),
                )
            rows.append(row)
    return pd.DataFrame(rows)


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """RUNNING rows of the closing table: requests per second of the main server, per arm (unstable
    arms left out)."""
    live = summarize(df, meta)
    server = main_server(df)
    rows = []
    if server is not None and not live.empty:
        for _, r in live[(live["servidor"] == server) & ~live["inestable"]].iterrows():
            rows.append(
                {
                    "concepto": f"HTTP {servers.SERVERS[server].label} · {r['brazo']}",
                    "tipo": "RUNNING",
                    "entorno": r["engine"],
                    "valor": r["req_s"],
                    "ic_bajo": r["ic_bajo"],
                    "ic_alto": r["ic_alto"],
                    "unidad": "req/s",
                }
            )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)


# ---------------------------------------------------------------- the run's conditions beside the document's
def load_words(hilos, conexiones, duracion_s) -> str:
    return f"wrk -t{hilos} -c{conexiones} -d{duracion_s}s"


def by_hand(*names: str) -> str:
    """How to judge a claim on servers the run did not load: the document's load with them (Spanish)."""
    listed = " y ".join(f"{servers.SERVERS[n].label} («{n}»)" for n in names)
    return (  # the names of 06's parameters cell, where a student changes them
        f"Para juzgarla, corre el experimento con HILOS = 12 y CONEXIONES = 400 (los valores por defecto) y "
        f"{listed} en SERVIDORES."
    )


# What a run must have kept of the document's set-up for its figures to be judged: its threads and
# connections, and its servers unpinned (meta.json's UNPINNED, written by every run since the arms
# run as the document ran them; older runs pinned every server). The duration may be shorter, down to
# SHORTEST_S: on this machine (16 rounds, unpinned, -t12 -c400) Docker -p's loss with 2 s windows over its loss
# with 30 s ones was 1.00× [0.74, 1.24], with 5 s 1.02× [0.88, 1.20], and with 1 s 1.24× [1.04, 1.72] (8
# rounds): the study in data/reference/SOURCES.md, `red.csv`.
DOCUMENT_LOAD = {k: SEED_PRESET[k] for k in ("hilos", "conexiones")}
SHORTEST_S = 2
HOW = "Con HILOS = 12 y CONEXIONES = 400 (los valores por defecto del cuaderno) se juzga."


def at_document_load(what: str, why: str, how: str = HOW):
    """incomparable(df, meta) for a figure the document measured with its load: "" on a run with its
    threads and connections and its servers unpinned, otherwise why `what` cannot be compared (`why`)
    and `how` to judge it (Spanish)."""

    def reason(df: pd.DataFrame, meta: dict | None) -> str:
        p = (meta or {}).get("parameters") or {}
        ours = {k: p.get(k) for k in DOCUMENT_LOAD}
        if ours != DOCUMENT_LOAD:
            theirs = f"wrk -t{DOCUMENT_LOAD['hilos']} -c{DOCUMENT_LOAD['conexiones']}"
            used = f"wrk -t{ours['hilos'] or '?'} -c{ours['conexiones'] or '?'}"
            return f"El documento midió {what} con {theirs}; esta corrida usó {used}. {why} {how}"
        if (p.get("duracion_s") or 0) < SHORTEST_S:
            return (
                f"El documento midió {what} con ventanas de {SEED_PRESET['duracion_s']} s; esta corrida, de "
                f"{p.get('duracion_s', '?')} s. En esta máquina la pérdida con ventanas de 1 s no fue la de 30 s; "
                f"desde {SHORTEST_S} s sí. Con DURACION_S = {SHORTEST_S} o más se juzga."
            )
        if not (meta or {}).get(UNPINNED):
            return (
                f"El documento midió {what} con sus servidores sin fijar a ninguna CPU; esta corrida fijó el "
                "servidor a una CPU y wrk a otra (la versión anterior del curso): otro reparto de la CPU, otra "
                "pérdida. Una corrida nueva lo juzga."
            )
        return ""

    return reason


def conditions(meta: dict | None) -> str:
    """Our load beside the document's, from the run's parameters (a sentence for the verdict line)."""
    p, host = ((meta or {}).get(k) or {} for k in ("parameters", "host"))
    return (
        f"Condiciones: aquí wrk -t{p.get('hilos', '?')} -c{p.get('conexiones', '?')} "
        f"-d{p.get('duracion_s', '?')}s contra 127.0.0.1 en {host.get('cpu_cores', '?')} núcleos, el servidor y "
        "wrk sin fijar a ninguna CPU, como en el documento; el documento, wrk -t12 -c400 -d30s contra localhost "
        "en una máquina que no describe."
    )


def security_setup(meta: dict | None) -> str:
    """What «switched off» means here, and what differs from the document's Docker (from the run's meta)."""
    docker = ((meta or {}).get("engines") or {}).get("docker") or {}
    options = docker.get("security_options")
    apparmor = (
        "no sabemos si AppArmor está activo"
        if options is None
        else "AppArmor también está activo y queda encendido"
        if "apparmor" in " ".join(map(str, options))
        else "AppArmor no está activo en este Docker"
    )
    return (
        "Lo que se apaga aquí es seccomp, el filtro que revisa cada llamada al sistema del servidor: lo "
        "único de la seguridad de Docker que actúa en cada petición. Namespaces y cgroups no se apagan sin "
        f"dejar de ser un contenedor; {apparmor}. Docker {docker.get('server_version') or '?'} aquí; el "
        "documento no dice su versión ni su configuración."
    )
