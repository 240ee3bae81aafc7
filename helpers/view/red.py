"""What a person sees of the network experiment (notebook 06_red_http): tables, plots, verdicts.

Every function that shows a result takes a Resultado (or None: it then says so in Spanish), displays
itself, returns None and never launches anything. `referencia()` and `kubernetes()` show the source's
figures and the mechanisms of each Kubernetes path, which no run changes; `por_que_kubernetes(resultado)`
says from the run which Kubernetes path loses what. `PRESETS` are the panel's one-click configurations.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FuncFormatter

from .. import experiments, reference, stats
from ..experiments import figures, verdict
from ..experiments import red as exp
from ..experiments.red import servers
from ..experiments.red.analysis import (
    compare,
    main_server,
    path_ratios,
    placement_effect,
    reference_ratios,
    summarize,
)
from ..experiments.red.arms import kubernetes_absent, rootless
from ..experiments.red.claims import APPENDIX_PER_THREAD, APPENDIX_THREADS, APPENDIX_TOTAL
from ..experiments.red.measure import DOCUMENT_PRESET, SEED_PRESET
from ..experiments.red.start import OWN_BRIDGE_META
from ..experiments.runner import Resultado
from .common import (
    AGREEMENT,
    AGREEMENT_MARGIN,
    behind_the_claims,
    claims_list,
    direction_words,
    fmt,
    fmt_interval,
    fmt_pct,
    fmt_ratio,
    markdown,
    needs_result,
    num,
    show,
    table,
    too_few_banner,
    verdict_words,
)
from .figuras import show_figure
from .panel import Preset

SERVIDOR = {k: s.label for k, s in servers.SERVERS.items()}
NIVEL = {"bare": "nativo", "docker": "Docker (-p)", "kubernetes": "Kubernetes"}
COLORS = {"nethttp": "#1f77b4", "gin": "#ff7f0e", "actix": "#2ca02c", "rocket": "#8c564b"}
MAX_PLOT_HEIGHT_IN = 7.5  # a plot fits a projector's screen

PRESETS = [
    Preset(
        "Como el documento (wrk -t12 -c400 -d30s)",
        DOCUMENT_PRESET,
        "La carga del documento con sus 30 s por medición, siempre contra 127.0.0.1: net/http y gin sin "
        "contenedor, con Docker -p y en su Deployment de Kubernetes por `kubectl port-forward`, sin fijar "
        "nada a ninguna CPU. En una máquina de dos núcleos wrk y el servidor se disputan la CPU: cuenta con "
        "errores de socket y latencias altas.",
    ),
]
CPU_PARTS = [
    ("us_cpu_servidor", "servidor"),
    ("us_cpu_proxy", "proxy (docker-proxy…)"),
    ("us_cpu_ayudante", "shim / conmon"),
    ("us_cpu_kubectl", "kubectl port-forward"),
    ("us_cpu_apiserver", "kube-apiserver"),
    ("us_cpu_kubelet", "kubelet"),
    ("us_cpu_containerd", "containerd (del clúster)"),
    ("us_cpu_kube_proxy", "kube-proxy"),
    ("us_cpu_carga", "wrk (la carga)"),
]


def _names(items: list[str]) -> str:
    """«a», «a y b», «a, b y c»: a list read in a Spanish sentence."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} y {items[-1]}"


def _summary(resultado: Resultado) -> pd.DataFrame:
    return summarize(resultado.df, resultado.meta)


# ------------------------------------------------------------------ tables
@needs_result
def tabla(resultado: Resultado) -> None:
    """Per server and arm: total req/s (median, IC 95 %), against native, per-thread, latencies, errors;
    under it, the line of each engine whose -p arms had no bridge of the run's own (start.OWN_BRIDGE_META)."""
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
                "frente a su nativo": "inestable: repite"
                if r["frente_nativo_inestable"]
                else fmt_ratio(r["frente_nativo"], r["frente_nativo_ic_bajo"], r["frente_nativo_ic_alto"]),
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
    markdown(
        "_«frente a su nativo»: cada brazo frente al mismo servidor sin contenedor medido en sus mismas rondas "
        "(los fijados a una CPU, frente a nativo fijado; los de Kubernetes, frente a nativo medido otra vez "
        "con el clúster en reposo, y ese nativo frente al primero, de otras rondas: brazos independientes)._"
    )
    for line in (resultado.meta.get(OWN_BRIDGE_META) or {}).values():
        markdown(f"_{line}_")


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
            "total ÷ por hilo": fmt_ratio(
                r["req_s"] / r["req_s_hilo"] if r["req_s_hilo"] else float("nan"), digits=1
            ),
            "hilos de wrk": hilos,
        }
        for _, r in native.iterrows()
    ]
    rows.append(
        {
            "servidor": "el documento: Go net/http",
            "Req/Sec por hilo (lo que copió la tabla)": num(APPENDIX_PER_THREAD, 0),
            "Requests/sec total (lo que atiende el servidor)": num(APPENDIX_TOTAL, 0),
            "total ÷ por hilo": fmt_ratio(APPENDIX_TOTAL / APPENDIX_PER_THREAD, digits=1),
            "hilos de wrk": APPENDIX_THREADS,
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
    fig, ax = plt.subplots(figsize=(11, min(0.8 + 0.45 * len(arms) * len(servers), MAX_PLOT_HEIGHT_IN)))
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
    ax.legend(fontsize=11, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)  # off the bars
    ax.set_title("¿Cuántas peticiones atiende el mismo servidor por cada camino de red?", fontsize=14)
    fig.tight_layout()
    show_figure(fig)


def _thousands():
    return FuncFormatter(lambda x, _pos: num(x, 0))


@needs_result
def grafico_cpu(resultado: Resultado) -> None:
    """Stacked bars: CPU microseconds per request of server, proxy, shim/conmon, kubectl and each
    Kubernetes component, and wrk, per arm (a process no arm of the run had is left out)."""
    s = _summary(resultado)
    if s.empty:
        return
    server = main_server(resultado.df)
    s = s[s["servidor"] == server]
    fig, ax = plt.subplots(figsize=(11, min(1.6 + 0.5 * len(s), MAX_PLOT_HEIGHT_IN)))
    left = [0.0] * len(s)
    palette = [
        "#1f77b4",
        "#d62728",
        "#9467bd",
        "#ff7f0e",
        "#8c564b",
        "#e377c2",
        "#bcbd22",
        "#17becf",
        "#7f7f7f",
    ]
    for (column, label), color in zip(CPU_PARTS, palette):
        values = [0.0 if stats.any_nan(v) else float(v) for v in s[column]]
        if column != "us_cpu_servidor" and not any(values):
            continue
        ax.barh(list(s["brazo"]), values, left=left, color=color, label=label)
        left = [a + b for a, b in zip(left, values)]
    ax.invert_yaxis()
    ax.set_xlabel("microsegundos de CPU por petición (mediana)", fontsize=12)
    ax.tick_params(labelsize=11)
    ax.legend(fontsize=11, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=4, frameon=False)
    ax.set_title(f"¿Dónde se van los ciclos? ({SERVIDOR.get(server, server)})", fontsize=14)
    fig.tight_layout()
    show_figure(fig)


# ------------------------------------------------------------------ verdicts and reference
@needs_result
def veredictos(resultado: Resultado) -> None:
    """The source's claims, each with its verdict (or why there is none), then the figures of this run
    behind them."""
    s = _summary(resultado)
    n = int(s["n"].max()) if not s.empty else 0
    markdown(too_few_banner(n))
    claims_list(experiments.judged(resultado))
    behind_the_claims(_behind_the_claims(resultado))


def _ratio_words(value: float, low: float, high: float, n: int, baseline: str) -> str:
    """«0.81× [0.78, 0.85] lo de BASELINE: menos, …» with the direction read by the one rule
    (verdict.side; none below the minimum of repetitions)."""
    figure = f"{fmt_ratio(value, low, high)} lo de {baseline} (IC 95 %, pareado por ronda, n = {n} rondas)"
    code = verdict.side(low, high, n)
    return f"{figure}: " + direction_words(code, n=n)


def _placement_lines(resultado: Resultado, server: str, ratios: dict) -> list[str]:
    """The document's placement against the course's: Docker -p over native pinned and unpinned, and
    how much the placement changes that loss (analysis.placement_effect), each read by the one rule."""
    pinned, free = ratios.get("puerto_fijo_frente_nativo_fijo"), ratios.get("puerto_frente_nativo")
    if pinned is None or free is None:
        return []
    effect = placement_effect(resultado.df, server)
    lines = [
        "Sin fijar nada, como el documento (el servidor con todos sus hilos de Go y wrk repartidos por las "
        f"dos CPU), Docker -p atiende {_ratio_words(*free, 'nativo')}. Con el reparto del curso (el "
        "servidor fijado a una CPU, con un solo hilo de Go, y wrk en la otra) atiende "
        f"{_ratio_words(*pinned, 'nativo fijado')}."
    ]
    if not stats.any_nan(effect.value):
        lines.append(
            "La proporción del documento sobre la del curso, ronda a ronda: "
            + _ratio_words(effect.value, effect.low, effect.high, effect.n, "la del curso")
            + " (por encima de 1×, sin fijar Docker pierde menos; por debajo, más)."
        )
    return lines


def _behind_the_claims(resultado: Resultado) -> list[str]:
    """Sentences from this run's numbers (main server): each network path against another, the CPU
    docker-proxy spent per request, and how the document's «Requests/s» column reads here."""
    s = _summary(resultado)
    server = main_server(resultado.df)
    if s.empty or server is None:
        return []
    s = s[s["servidor"] == server]
    ratios = path_ratios(resultado.df, server)
    lines = _placement_lines(resultado, server, ratios)
    if "host_frente_nativo" in ratios:
        lines.append(
            "Con `--network host` el contenedor no tiene espacio de nombres de red propio: sin par veth, sin "
            "puente, sin NAT y sin docker-proxy (conserva seccomp, cgroups y los demás namespaces). Así, el "
            f"mismo contenedor de Docker atiende {_ratio_words(*ratios['host_frente_nativo'], 'nativo')}."
        )
    if "nat_frente_proxy" in ratios and rootless("podman", resultado.meta):
        lines.append(
            "Podman sin root -p no usa reglas NAT: su puerto lo reenvía un proceso en espacio de usuario "
            "(rootlessport, o pasta), como docker-proxy; atiende "
            f"{_ratio_words(*ratios['nat_frente_proxy'], 'Docker -p')}."
        )
    elif "nat_frente_proxy" in ratios:
        lines.append(
            "Podman -p lleva el mismo puente y el mismo par veth que Docker -p, pero sus reglas NAT "
            "reemplazan al proceso docker-proxy: atiende "
            f"{_ratio_words(*ratios['nat_frente_proxy'], 'Docker -p')}."
        )
    proxy = s[(s["engine"] == "docker") & (s["variant"] == "puerto")]
    if len(proxy) and not stats.any_nan(proxy["us_cpu_proxy"].iloc[0]):
        lines.append(
            f"docker-proxy gastó {fmt(proxy['us_cpu_proxy'].iloc[0], 1, 'µs')} de CPU por petición; el "
            f"servidor, {fmt(proxy['us_cpu_servidor'].iloc[0], 1, 'µs')}."
        )
    secure = s[(s["engine"] == "docker") & (s["variant"] == "sin_seccomp")]
    if (
        len(proxy)
        and len(secure)
        and not stats.any_nan(secure["us_cpu_servidor"].iloc[0], proxy["us_cpu_servidor"].iloc[0])
    ):
        off, on = secure["us_cpu_servidor"].iloc[0], proxy["us_cpu_servidor"].iloc[0]
        lines.append(
            f"Con seccomp apagado, el servidor gastó {fmt(off, 1, 'µs')} de CPU por petición; con el filtro "
            f"de Docker, {fmt(on, 1, 'µs')} ({fmt_pct(100 * (off / on - 1))})."
        )
    native = s[(s["engine"] == "bare") & (s["variant"] == "nativo")]
    threads = (resultado.meta.get("parameters") or {}).get("hilos")
    if (
        len(native)
        and threads
        and not stats.any_nan(native["req_s_hilo"].iloc[0])
        and native["req_s_hilo"].iloc[0]
    ):
        total, per_thread = native["req_s"].iloc[0], native["req_s_hilo"].iloc[0]
        if threads == 1:
            lines.append(
                "La columna «Requests/s» del documento, en tu corrida: con un solo hilo de wrk el total y la "
                "cifra por hilo son el mismo número; sube `HILOS` para verlas separarse."
            )
        else:
            lines.append(
                f"La columna «Requests/s» del documento, en tu corrida: sin contenedor y con {threads} hilos "
                f"de wrk, el total ({num(total)} peticiones por segundo) es "
                f"{fmt_ratio(total / per_thread, digits=1)} la cifra por hilo ({num(per_thread)})."
            )
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


def _agreement(status: str) -> str:
    """«¿coincide?» of a live arm; an unstable ratio is said once, in the figure's column: «—» here."""
    if status == verdict.NO_COMPARABLE:
        return "no comparable (otra carga)"
    return "—" if status == verdict.INESTABLE else AGREEMENT.get(status, "—")


# A row of the comparison whose figure is the figure a claim of the document is judged on (its server's
# arm over its own native, Kubernetes through port-forward) carries that claim's status, never a second
# judgement of the same figure (one status per figure and page). gin's Docker loss is judged against
# net/http's native (the document's base), so its row, gin over gin, is another figure: it is compared,
# unless its claim says the run cannot be compared at all.
SAME_FIGURE = {
    ("nethttp", "docker"): "docker_pierde_66",
    ("nethttp", "kubernetes"): "kubernetes_pierde_84",
    ("gin", "kubernetes"): "kubernetes_gin_pierde_84",
}
SAME_LOAD = {("gin", "docker"): "docker_gin_pierde_66"}
VERDICT_CELL = "veredicto"


def _row_claims(resultado: Resultado) -> dict:
    """{(server, level): the claim judged on that row's figure or load, on the port-forward path}."""
    found = {}
    for c in experiments.judged(resultado):
        if c.detail.get("camino", "port_forward") == "port_forward":
            found.setdefault(c.key, c)
    return {row: found[key] for row, key in {**SAME_FIGURE, **SAME_LOAD}.items() if key in found}


@needs_result
def comparacion(resultado: Resultado) -> None:
    """Live ratios to native next to the source's, and generated sentences."""
    ref = reference.load(exp.EXPERIMENT)
    table_ = compare(resultado.df, resultado.meta, ref)
    if table_.empty:
        markdown("No hay brazos comparables con la referencia en esta corrida.")
        return
    rows, by_status = [], {}
    claimed = _row_claims(resultado)
    for _, r in table_.iterrows():
        key = (r["servidor"], r["nivel"])
        claim = claimed.get(key) if r["brazo_en_vivo"] else None
        status = r["acuerdo"]
        if claim is not None and (key in SAME_FIGURE or claim.status == verdict.NO_COMPARABLE):
            # an unstable figure is said once, in its column (the claim is unstable on the same rounds)
            status = {verdict.NO_COMPARABLE: verdict.NO_COMPARABLE, verdict.INESTABLE: verdict.INESTABLE}.get(
                claim.status, VERDICT_CELL
            )
        live = (
            fmt_ratio(r["tu_frente_nativo"], r["tu_ic_bajo"], r["tu_ic_alto"])
            if not stats.any_nan(r["tu_frente_nativo"])
            else "inestable: repite"
            if r["acuerdo"] == verdict.INESTABLE
            else "— (solo referencia)"
        )
        cell = (
            f"su veredicto, arriba: «{verdict_words(claim)}»"
            if status == VERDICT_CELL
            else _agreement(status)
        )
        rows.append(
            {
                "servidor": SERVIDOR.get(r["servidor"], r["servidor"]),
                "nivel": NIVEL.get(r["nivel"], r["nivel"]),
                "documento: frente a nativo": fmt_ratio(r["ref_frente_nativo"]),
                "tu brazo": r["brazo_en_vivo"] or "—",
                "tú: frente a nativo [IC 95 %]": live,
                "¿coincide?": cell if r["brazo_en_vivo"] else "—",
            }
        )
        if r["brazo_en_vivo"]:
            name = SERVIDOR.get(r["servidor"], r["servidor"])
            name += " en Kubernetes (port-forward)" if r["nivel"] == "kubernetes" else " con `-p`"
            by_status.setdefault(status, []).append(name)
    show(table(pd.DataFrame(rows), "Proporción frente a nativo: el documento y tu máquina"))
    parts = []
    if VERDICT_CELL in by_status:
        parts.append(
            f"Para {_names(by_status[VERDICT_CELL])}, tu proporción es la cifra de una pérdida del documento: "
            "su veredicto está arriba, con su margen, y esta tabla no la juzga otra vez."
        )
    if verdict.NO_COMPARABLE in by_status:
        load = "wrk -t{hilos} -c{conexiones} -d{duracion_s}s".format(**SEED_PRESET)
        parts.append(
            f"Para {_names(by_status[verdict.NO_COMPARABLE])}, tu proporción no se compara con la del "
            f"documento: él midió con {load} y esta corrida con otra carga, y con otra concurrencia la pérdida "
            "de un camino de red cambia (los veredictos de arriba lo dicen de cada pérdida: «no comparable»)."
        )
    if figures.COINCIDE in by_status:
        parts.append(
            f"Tu proporción coincide con la del documento para {_names(by_status[figures.COINCIDE])} "
            f"(tu intervalo dividido por su cifra cae entero en el margen de «coincide», {AGREEMENT_MARGIN})."
        )
    if figures.NO_COINCIDE in by_status:
        parts.append(
            f"Para {_names(by_status[figures.NO_COINCIDE])}, tu proporción no coincide con la del documento "
            "(todo tu intervalo cae lejos de su cifra): tu máquina, tu versión de Docker o tu carga reparten "
            "distinto el costo del camino de red."
        )
    if verdict.INESTABLE in by_status:
        parts.append(
            f"Para {_names(by_status[verdict.INESTABLE])}, tu proporción ronda a ronda varió demasiado para "
            "dar una cifra: no se compara con la del documento. Repite la medición con la máquina tranquila."
        )
    undecided = by_status.get(verdict.NO_CONCLUYENTE, []) + by_status.get(verdict.SIN_DATOS, [])
    if undecided:
        parts.append(
            f"Para {_names(undecided)}, tu intervalo es demasiado ancho para decir si coincide: con más "
            "repeticiones se estrecharía."
        )
    markdown(" ".join(parts))


KUBERNETES = [
    (
        "`k8s-port-forward`",
        "`kubectl port-forward` en 127.0.0.1",
        "kubectl acepta la conexión en el host y la manda por un flujo al servidor de la API; este la pasa al "
        "kubelet, el kubelet al servidor de flujos de containerd, y containerd la entrega dentro del espacio "
        "de red del pod. Cada byte cruza cuatro procesos en espacio de usuario",
        "`docker-puerto`: docker-proxy también copia los bytes en espacio de usuario, pero es un solo proceso",
    ),
    (
        "`k8s-nodeport`",
        "Service NodePort que kube-proxy atiende en 127.0.0.1",
        "reglas NAT del kernel (kube-proxy las escribe, pero no está en el camino), el puente y el par veth "
        "del pod",
        "`podman-puerto` (NAT de netavark, sin proxy)",
    ),
    (
        "`k8s-host`",
        "`hostNetwork: true`",
        "la pila de red del nodo: sin veth, sin puente, sin NAT; quedan los cgroups y los demás namespaces "
        "del pod",
        "`docker-host`",
    ),
]


def kubernetes() -> None:
    """Which mechanism each Kubernetes path adds and which Docker or Podman arm shows the same kind of
    mechanism; the document's figures beside Docker's; and how its gin row in Docker was computed (no run
    changes any of it)."""
    frame = pd.DataFrame(
        KUBERNETES,
        columns=[
            "brazo",
            "camino de Kubernetes",
            "qué atraviesa cada petición",
            "brazo de Docker o Podman con el mismo mecanismo",
        ],
    )
    show(table(frame, "Kubernetes: los tres caminos que mide este cuaderno"))
    ref = reference.load(exp.EXPERIMENT)
    ratios = reference_ratios(ref)
    net = ratios[ratios["servidor"] == "nethttp"].set_index("engine")["frente_nativo"]
    parts = []
    if {"docker", "kubernetes"} <= set(net.index):
        worse = net["kubernetes"] < net["docker"]
        parts.append(
            f"En el documento, con net/http, Docker dejó {fmt_ratio(net['docker'])} lo de nativo y "
            f"Kubernetes {fmt_ratio(net['kubernetes'])}: Kubernetes "
            + (
                "perdió más. Su `deployment.yml` no trae ningún Service: su `wrk` en `localhost:8080` solo "
                "pudo llegar al pod por `kubectl port-forward`, el primero de los tres caminos de tu corrida; "
                "los otros dos dicen qué parte de esa pérdida es el túnel y cuál el pod."
                if worse
                else "no perdió más que Docker."
            )
        )
    parts.append(_gin_baseline(ref))
    markdown(" ".join(p for p in parts if p))


def _gin_baseline(ref: pd.DataFrame) -> str:
    """The document's gin row in Docker: its «Loss wrt native» is computed against net/http's native
    per-thread figure, not gin's (both computed here from the reference)."""
    per_thread = ref[ref["metric"] == "req_s_hilo"].set_index(["engine", "image"])["value"]
    keys = [("docker", "gin"), ("bare", "nethttp"), ("bare", "gin")]
    if not all(k in per_thread.index for k in keys):
        return ""
    docker_gin, native_net, native_gin = (float(per_thread[k]) for k in keys)
    return (
        f"Y una cuenta del documento: gin en Docker atendió {num(docker_gin / 1e3, 2)}k por hilo, y su "
        f"«{fmt_pct(100 * (1 - docker_gin / native_net), 2, sign=False)}» de pérdida sale de dividir por la "
        f"cifra nativa de **net/http** ({num(native_net / 1e3, 2)}k), no por la de gin "
        f"({num(native_gin / 1e3, 2)}k); frente a gin sin contenedor, la pérdida sería "
        f"{fmt_pct(100 * (1 - docker_gin / native_gin), 2, sign=False)}."
    )


# The Kubernetes paths against native and against each other (analysis.PATH_PAIRS), as the page names them.
K8S_WORDS = {
    "k8s_host_frente_nativo": (
        "Por `hostNetwork` (`k8s-host`), el mismo servidor en un Pod atiende",
        "nativo (medido en las mismas rondas, con el clúster en reposo)",
    ),
    "k8s_nodeport_frente_nativo": ("Por un NodePort (`k8s-nodeport`) atiende", "nativo"),
    "k8s_nodeport_frente_host": (
        "El puente, el par veth y las reglas NAT de kube-proxy, juntos (NodePort frente a hostNetwork):",
        "hostNetwork",
    ),
    "k8s_port_forward_frente_nativo": (
        "Por `kubectl port-forward` (`k8s-port-forward`), el camino del documento, atiende",
        "nativo",
    ),
    "k8s_port_forward_frente_nodeport": (
        "Lo que añaden kubectl, el servidor de la API, el kubelet y containerd (port-forward frente a "
        "NodePort):",
        "NodePort",
    ),
}
K8S_CPU = [
    ("us_cpu_kubectl", "kubectl"),
    ("us_cpu_apiserver", "kube-apiserver"),
    ("us_cpu_kubelet", "el kubelet"),
    ("us_cpu_containerd", "containerd"),
]


@needs_result
def por_que_kubernetes(resultado: Resultado) -> None:
    """The document's «I can't tell why», answered from this run: which Kubernetes path loses what against
    native and against the next simpler path (each read by the one rule), and the CPU per request of every
    process port-forward adds. Without Kubernetes arms, why not."""
    markdown(" ".join(_kubernetes_sentences(resultado)))


def _plainly(ratios: dict) -> str:
    """The two user-space copies in one plain sentence (09 quotes the same figures: analysis.path_ratios'
    «k8s_port_forward_frente_nativo» and «puerto_frente_nativo»), when the rule reads both as a loss."""
    forward, proxy = ratios.get("k8s_port_forward_frente_nativo"), ratios.get("puerto_frente_nativo")
    if forward is None or proxy is None:
        return ""
    if not all(verdict.direction(r[1], r[2], r[3]) == verdict.BELOW for r in (forward, proxy)):
        return ""
    return (
        f"Dicho sin rodeos: por `kubectl port-forward` el servidor atiende {fmt_ratio(*forward[:3])} de lo que "
        f"atiende sin contenedor, y detrás de docker-proxy (`-p`), {fmt_ratio(*proxy[:3])}. Son de los costos de "
        "ejecución (RUNNING) más grandes que mide el curso, y ninguno es del contenedor: son procesos que "
        "copian cada byte en espacio de usuario."
    )


def _kubernetes_sentences(resultado: Resultado) -> list[str]:
    df = resultado.df
    absent = kubernetes_absent(resultado.df, resultado.meta)
    if absent:
        return [f"{absent} La cifra del documento queda como referencia."]
    server = main_server(df)
    ratios = path_ratios(df, server) if server else {}
    lines = [f"El «no sé por qué» del documento, con {SERVIDOR.get(server, server)} en tu corrida:"]
    for key, (words, baseline) in K8S_WORDS.items():
        if key in ratios:
            lines.append(f"{words} {_ratio_words(*ratios[key], baseline)}.")
    plain = _plainly(ratios)
    if plain:
        lines.append(plain)
    tunnel = ratios.get("k8s_port_forward_frente_nodeport")
    if tunnel and verdict.direction(tunnel[1], tunnel[2], tunnel[3]) == verdict.BELOW:
        lines.append(
            "Lo que pierde port-forward no es el contenedor ni su red: es el túnel, que sirve para llegar a un "
            "pod desde fuera del clúster; un Service o `hostNetwork` no lo cruzan."
        )
    s = _summary(resultado)
    forward = s[(s["servidor"] == server) & (s["engine"] == "kubernetes") & (s["variant"] == "port_forward")]
    if len(forward):
        row = forward.iloc[0]
        spent = [f"{who} {fmt(row[col], 1, 'µs')}" for col, who in K8S_CPU if not stats.any_nan(row[col])]
        if spent and not stats.any_nan(row["us_cpu_servidor"]):
            lines.append(
                f"Por cada petición de port-forward gastaron CPU {_names(spent)}; el servidor, "
                f"{fmt(row['us_cpu_servidor'], 1, 'µs')}. Es su CPU durante toda la medición: incluye lo que "
                "hacen en reposo, que en un NodePort o con hostNetwork es casi todo."
            )
    return lines
