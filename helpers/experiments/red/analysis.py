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
from .arms import ARM_SPECS, arm_label
from .kube import CPU_METRICS as K8S_CPU_METRICS
from .measure import SEED_PRESET

BASELINE = ("bare", "nativo")
MAIN_SERVERS = ("nethttp", "gin", "actix", "rocket")  # the first one present is the one the claims read
# The live arm set beside each level of the reference (Kubernetes: the hypothesis of its «localhost»).
LIVE_ARM_OF_LEVEL = {"docker": "puerto", "kubernetes": "port_forward"}


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
    order = {(s.engine, s.variant): i for i, s in enumerate(ARM_SPECS.values())}
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
    """One row per server and arm: total req/s (median, IQR, IC 95 %), ratio to native (IC 95 %),
    per-thread req/s, latency p50/p90/p99, socket errors and CPU µs per request of each process."""
    rows = []
    for engine, variant, server in _combos(df):
        total = arm_values(df, "req_s", engine, variant, server)
        if total.size == 0:
            continue
        s = stats.summarize(total)
        base = arm_values(df, "req_s", *BASELINE, server)
        shaky = bool(base.size) and (engine, variant) != BASELINE and figures.ratio_unstable(total, base)
        if shaky:  # no figure against a ratio the rule calls unstable: the page says «repite»
            ratio = lo = hi = float("nan")
        elif base.size and (engine, variant) != BASELINE:
            ratio, lo, hi = stats.ratio_ci(total, base).triple
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
    """The server the claims and the CPU plot read: net/http if present, else gin, else actix."""
    present = set(df["image"]) if df is not None and not df.empty else set()
    return next((key for key in MAIN_SERVERS if key in present), None)


# The network paths compared two by two under the verdicts (numerator arm, denominator arm).
PATH_PAIRS = {
    "host_frente_nativo": (("docker", "host"), BASELINE),
    "puerto_frente_nativo": (("docker", "puerto"), BASELINE),
    "nat_frente_proxy": (("podman", "puerto"), ("docker", "puerto")),
    "k8s_port_forward_frente_nativo": (("kubernetes", "port_forward"), BASELINE),
    "k8s_nodeport_frente_nativo": (("kubernetes", "nodeport"), BASELINE),
    "k8s_host_frente_nativo": (("kubernetes", "host"), BASELINE),
    "k8s_port_forward_frente_nodeport": (("kubernetes", "port_forward"), ("kubernetes", "nodeport")),
    "k8s_nodeport_frente_host": (("kubernetes", "nodeport"), ("kubernetes", "host")),
}


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


def by_hand(*names: str, duration_key: str = "duracion_s") -> str:
    """How to judge a claim no button runs: the document's load with these servers (Spanish)."""
    listed = " y ".join(f"{servers.SERVERS[n].label} («{n}»)" for n in names)
    return (  # the names of 06's parameters cell, where a student changes them
        f"Para juzgarla, corre el experimento con HILOS = 12, CONEXIONES = 400, {duration_key.upper()} = 30 y "
        f"{listed} en SERVIDORES."
    )


def at_document_load(duration_key: str, how: str, what: str, why: str):
    """incomparable(df, meta) for a figure the document measured with its load: "" on a run with that
    load (wrk's duration read from `duration_key`: duracion_s, or duracion_k8s_s on Kubernetes),
    otherwise why `what` cannot be compared (`why`) and `how` to judge it (Spanish)."""

    def reason(df: pd.DataFrame, meta: dict | None) -> str:
        p = (meta or {}).get("parameters") or {}
        ours = {
            "hilos": p.get("hilos"),
            "conexiones": p.get("conexiones"),
            "duracion_s": p.get(duration_key, p.get("duracion_s")),
        }
        if ours == SEED_PRESET:
            return ""
        return (
            f"El documento midió {what} con {load_words(**SEED_PRESET)}; esta corrida usó "
            f"{load_words(*(v if v is not None else '?' for v in ours.values()))}. {why} {how}"
        )

    return reason


def conditions(meta: dict | None) -> str:
    """Our load beside the document's, from the run's parameters (a sentence for the verdict line)."""
    p, host = ((meta or {}).get(k) or {} for k in ("parameters", "host"))
    return (
        f"Condiciones: aquí wrk -t{p.get('hilos', '?')} -c{p.get('conexiones', '?')} "
        f"-d{p.get('duracion_s', '?')}s contra 127.0.0.1 en {host.get('cpu_cores', '?')} núcleos, servidor y "
        "wrk en CPU distintas; el documento, wrk -t12 -c400 -d30s contra localhost en una máquina que no "
        "describe."
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
