"""What a person sees of the network experiment (notebook 06_red_http): tables, plots, verdicts.

Every function that shows a result takes a Resultado (or None: it then says so in Spanish), displays
itself, returns None and never launches anything. `referencia()` and `kubernetes()` show the source's
figures and mechanisms, which no run changes.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FuncFormatter

from .. import reference
from ..experiments import red as exp
from ..experiments.red import servers
from ..experiments.red.claims import APPENDIX_PER_THREAD, APPENDIX_TOTAL
from ..experiments.runner import Resultado
from .common import (
    ENGINE_LABEL,
    claims_list,
    fmt,
    fmt_interval,
    fmt_ratio,
    markdown,
    needs_result,
    num,
    show,
    table,
)

SERVIDOR = {k: s.label for k, s in servers.SERVERS.items()} | {"rocket": "Rust rocket"}
NIVEL = {"bare": "nativo", "docker": "Docker (-p)", "kubernetes": "Kubernetes"}
COLORS = {"nethttp": "#1f77b4", "gin": "#ff7f0e", "actix": "#2ca02c"}
CPU_PARTS = [
    ("us_cpu_servidor", "servidor"),
    ("us_cpu_proxy", "proxy (docker-proxy…)"),
    ("us_cpu_ayudante", "shim / conmon"),
    ("us_cpu_carga", "wrk (la carga)"),
]


def _nan(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _summary(resultado: Resultado) -> pd.DataFrame:
    return exp.summarize(resultado.df, resultado.meta)


# ------------------------------------------------------------------ tables
@needs_result
def tabla(resultado: Resultado) -> None:
    """Per server and arm: total req/s (median, IC 95 %), against native, per-thread, latencies, errors."""
    s = _summary(resultado)
    if s.empty:
        markdown("Esta corrida no tiene mediciones de rendimiento HTTP.")
        return
    rows = []
    for _, r in s.iterrows():
        rows.append(
            {
                "servidor": SERVIDOR.get(r["servidor"], r["servidor"]),
                "brazo": r["brazo"],
                "req/s total (mediana)": fmt(r["req_s"], 0) + (" ⚠ inestable" if r["inestable"] else ""),
                "IC 95 %": fmt_interval(r["ic_bajo"], r["ic_alto"], 0),
                "frente a nativo": fmt_ratio(
                    r["frente_nativo"], r["frente_nativo_ic_bajo"], r["frente_nativo_ic_alto"]
                ),
                "req/s por hilo": fmt(r["req_s_hilo"], 0),
                "p50 (ms)": fmt(r["latencia_p50_ms"], 2),
                "p90 (ms)": fmt(r["latencia_p90_ms"], 2),
                "p99 (ms)": fmt(r["latencia_p99_ms"], 2),
                "errores de socket": fmt(r["errores_socket"], 0),
                "n": int(r["n"]),
            }
        )
    params = resultado.meta.get("parameters") or {}
    caption = (
        f"Rendimiento HTTP con wrk -t{params.get('hilos', '?')} -c{params.get('conexiones', '?')} "
        f"-d{params.get('duracion_s', '?')}s (mediana de {int(s['n'].max())} repeticiones)"
    )
    show(table(pd.DataFrame(rows), caption))


@needs_result
def omitidos(resultado: Resultado) -> None:
    """The arms this machine could not run, and why (one Spanish line each)."""
    skipped = resultado.meta.get("skipped_arms") or {}
    engines = resultado.meta.get("skipped_engines") or {}
    lines = [f"- **{key}**: {why}" for key, why in skipped.items()]
    lines += [f"- **{ENGINE_LABEL.get(k, k)}**: {why}" for k, why in engines.items()]
    if lines:
        markdown("Brazos que no se midieron en esta máquina:\n\n" + "\n".join(lines))
    else:
        markdown("Se midieron todos los brazos pedidos.")


@needs_result
def por_hilo(resultado: Resultado) -> None:
    """The source's mistake in one table: wrk's per-thread Req/Sec next to the total, for native."""
    s = _summary(resultado)
    native = s[(s["engine"] == "bare") & (s["variant"] == "nativo")] if not s.empty else s
    if native.empty:
        markdown("Sin brazo nativo no hay con qué enseñar la diferencia entre «por hilo» y «total».")
        return
    hilos = (resultado.meta.get("parameters") or {}).get("hilos", "?")
    rows = [
        {
            "servidor": SERVIDOR.get(r["servidor"], r["servidor"]),
            "Req/Sec por hilo (lo que copió la tabla)": fmt(r["req_s_hilo"], 0),
            "Requests/sec total (lo que atiende el servidor)": fmt(r["req_s"], 0),
            "total ÷ por hilo": fmt(r["req_s"] / r["req_s_hilo"] if r["req_s_hilo"] else float("nan"), 1),
            "hilos de wrk": hilos,
        }
        for _, r in native.iterrows()
    ]
    rows.append(
        {
            "servidor": "referencia: Go net/http (12 hilos)",
            "Req/Sec por hilo (lo que copió la tabla)": num(APPENDIX_PER_THREAD, 0),
            "Requests/sec total (lo que atiende el servidor)": num(APPENDIX_TOTAL, 0),
            "total ÷ por hilo": fmt(APPENDIX_TOTAL / APPENDIX_PER_THREAD, 1),
            "hilos de wrk": 12,
        }
    )
    show(table(pd.DataFrame(rows), "Por hilo frente a total, sin contenedor"))


# ------------------------------------------------------------------ plots
@needs_result
def grafico(resultado: Resultado) -> None:
    """Horizontal bars: median total req/s per arm (IC 95 % as error bars), one colour per server."""
    s = _summary(resultado)
    if s.empty:
        return
    arms = list(dict.fromkeys(s["brazo"]))
    servers = list(dict.fromkeys(s["servidor"]))
    fig, ax = plt.subplots(figsize=(11, 0.6 + 0.55 * len(arms) * len(servers)))
    height = 0.8 / max(len(servers), 1)
    for j, server in enumerate(servers):
        part = s[s["servidor"] == server].set_index("brazo")
        ys, xs, err_lo, err_hi = [], [], [], []
        for i, arm in enumerate(arms):
            if arm not in part.index:
                continue
            r = part.loc[arm]
            ys.append(i + j * height)
            xs.append(r["req_s"])
            err_lo.append(max(r["req_s"] - r["ic_bajo"], 0))
            err_hi.append(max(r["ic_alto"] - r["req_s"], 0))
        ax.barh(
            ys,
            xs,
            height=height,
            xerr=[err_lo, err_hi],
            capsize=3,
            color=COLORS.get(server, "#7f7f7f"),
            label=SERVIDOR.get(server, server),
        )
    ax.set_yticks([i + height * (len(servers) - 1) / 2 for i in range(len(arms))])
    ax.set_yticklabels(arms, fontsize=12)
    ax.invert_yaxis()
    ax.set_xlabel("peticiones por segundo (total de wrk, mediana e IC 95 %)", fontsize=12)
    ax.tick_params(axis="x", labelsize=11)
    ax.xaxis.set_major_formatter(_thousands())
    ax.legend(fontsize=11, loc="lower right")
    ax.set_title("¿Cuántas peticiones atiende el mismo servidor por cada camino de red?", fontsize=14)
    fig.tight_layout()
    plt.show()


def _thousands():
    return FuncFormatter(lambda x, _pos: num(x, 0))


@needs_result
def grafico_cpu(resultado: Resultado) -> None:
    """Stacked bars: CPU microseconds per request of server, proxy, shim/conmon and wrk, per arm."""
    s = _summary(resultado)
    if s.empty:
        return
    server = exp.main_server(resultado.df)
    s = s[s["servidor"] == server]
    fig, ax = plt.subplots(figsize=(11, 1.6 + 0.6 * len(s)))
    left = [0.0] * len(s)
    palette = ["#1f77b4", "#d62728", "#9467bd", "#7f7f7f"]
    for (column, label), color in zip(CPU_PARTS, palette):
        values = [0.0 if _nan(v) else float(v) for v in s[column]]
        ax.barh(list(s["brazo"]), values, left=left, color=color, label=label)
        left = [a + b for a, b in zip(left, values)]
    ax.invert_yaxis()
    ax.set_xlabel("microsegundos de CPU por petición (mediana)", fontsize=12)
    ax.tick_params(labelsize=11)
    ax.legend(fontsize=11, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=4, frameon=False)
    ax.set_title(f"¿Dónde se van los ciclos? ({SERVIDOR.get(server, server)})", fontsize=14)
    fig.tight_layout()
    plt.show()


# ------------------------------------------------------------------ verdicts and reference
@needs_result
def veredictos(resultado: Resultado) -> None:
    """The source's four claims, each with its verdict, then the figures of this run behind them."""
    claims_list(exp.claims(resultado.df, resultado.meta))
    lines = _behind_the_claims(resultado)
    if lines:
        markdown("Detrás de estos veredictos, en esta corrida:\n\n" + "\n".join(f"- {ln}" for ln in lines))


def _behind_the_claims(resultado: Resultado) -> list[str]:
    """Sentences from this run's numbers: what the same Docker container loses with --network host, and
    the CPU docker-proxy spent per request (the main server's)."""
    s = _summary(resultado)
    server = exp.main_server(resultado.df)
    if s.empty or server is None:
        return []
    s = s[s["servidor"] == server]
    lines = []
    host = s[(s["engine"] == "docker") & (s["variant"] == "host")]
    if len(host) and not _nan(host["frente_nativo"].iloc[0]):
        loss = 100 * (1 - host["frente_nativo"].iloc[0])
        word = "pierde" if loss >= 0 else "gana"
        lines.append(
            f"Con `--network host`, el mismo contenedor de Docker {word} {fmt(abs(loss), 1)} % "
            "frente a nativo."
        )
    proxy = s[(s["engine"] == "docker") & (s["variant"] == "puerto")]
    if len(proxy) and not _nan(proxy["us_cpu_proxy"].iloc[0]):
        lines.append(f"docker-proxy gastó {fmt(proxy['us_cpu_proxy'].iloc[0], 1)} µs de CPU por petición.")
    return lines


def referencia() -> None:
    """The source's whole appendix as one table: per-thread and total, every server and level (no run
    changes it: shown with or without one)."""
    ref = reference.load(exp.EXPERIMENT)
    wide = ref.pivot_table(index=["image", "engine"], columns="metric", values="value", aggfunc="first")
    rows = []
    for (server, engine), r in wide.iterrows():
        rows.append(
            {
                "servidor": SERVIDOR.get(server, server),
                "nivel": NIVEL.get(engine, engine),
                "Req/Sec por hilo": fmt(r["req_s_hilo"], 0),
                "Requests/sec total": fmt(r["req_s"], 0),
                "latencia media (ms)": fmt(r["latencia_media"], 2),
                "errores de lectura": fmt(r["errores_read"], 0),
            }
        )
    order = {"nativo": 0, "Docker (-p)": 1, "Kubernetes": 2}
    frame = pd.DataFrame(rows).sort_values(
        ["servidor", "nivel"], key=lambda c: c.map(order).fillna(c) if c.name == "nivel" else c
    )
    show(table(frame, "El apéndice del documento: wrk -t12 -c400 -d30s (una corrida por fila)"))


@needs_result
def comparacion(resultado: Resultado) -> None:
    """Live ratios to native next to the source's, and one generated sentence."""
    ref = reference.load(exp.EXPERIMENT)
    table_ = exp.compare(resultado.df, resultado.meta, ref)
    if table_.empty:
        markdown("No hay brazos comparables con la referencia en esta corrida.")
        return
    rows, agree, disagree = [], [], []
    for _, r in table_.iterrows():
        live = (
            fmt_ratio(r["tu_frente_nativo"], r["tu_ic_bajo"], r["tu_ic_alto"])
            if not _nan(r["tu_frente_nativo"])
            else "— (solo referencia)"
        )
        rows.append(
            {
                "servidor": SERVIDOR.get(r["servidor"], r["servidor"]),
                "nivel": NIVEL.get(r["nivel"], r["nivel"]),
                "documento: frente a nativo": fmt_ratio(r["ref_frente_nativo"]),
                "tu brazo": r["brazo_en_vivo"] or "—",
                "tú: frente a nativo [IC 95 %]": live,
            }
        )
        if r["coincide"] is True:
            agree.append(SERVIDOR.get(r["servidor"], r["servidor"]))
        elif r["coincide"] is False:
            disagree.append(SERVIDOR.get(r["servidor"], r["servidor"]))
    show(table(pd.DataFrame(rows), "Proporción frente a nativo: el documento y tu máquina"))
    parts = []
    if agree:
        parts.append(
            f"Con `-p`, la proporción del documento cae dentro de tu intervalo para {', '.join(agree)}."
        )
    if disagree:
        parts.append(
            f"Para {', '.join(disagree)}, tu intervalo no contiene la proporción del documento: "
            "tu máquina, tu versión de Docker o tu carga reparten distinto el costo del proxy."
        )
    parts.append(
        "Kubernetes no se puede medir aquí: sus cifras quedan como referencia (ver la tabla de mecanismos)."
    )
    markdown(" ".join(parts))


KUBERNETES = [
    (
        "Service (ClusterIP/NodePort)",
        "reglas NAT de kube-proxy (iptables/IPVS) en el kernel",
        "podman-puerto (NAT de netavark, sin proceso intermedio)",
    ),
    (
        "red del pod",
        "un par veth y un puente (o la CNI que toque) entre el host y el pod",
        "podman-puerto y docker-puerto (veth + puente docker0/podman0)",
    ),
    (
        "kubectl port-forward",
        "cada conexión sube al servidor de la API, baja al kubelet y entra al pod por un "
        "túnel; todo en espacio de usuario",
        "docker-puerto (docker-proxy: copia en espacio de usuario), pero con más saltos",
    ),
]


def kubernetes() -> None:
    """Which mechanism each Kubernetes path adds, and which live arm shows the same one."""
    frame = pd.DataFrame(
        KUBERNETES, columns=["camino de Kubernetes", "qué añade", "brazo en vivo con el mismo mecanismo"]
    )
    show(table(frame, "Kubernetes: referencia, no medido aquí"))
