"""The claims of «Container Performance Testing» (seed 003) on HTTP in containers, judged on the run's main
server (net/http if present), arms paired by round: Docker's loss against native, the security processing
the Conclusion blames for it (the same Docker -p container with seccomp off), gin against net/http, and
its Kubernetes loss on each Kubernetes path this run measured. Its two losses are judged only on a run
with its load (`wrk -t12 -c400 -d30s`, `at_document_load`): at any other they are «no comparable», with
the reason. So are its latency column (Docker and Kubernetes over native, per server: wrk's average
latency, mostly queueing at that load) and actix-web against Rocket in its appendix. Its absolute
per-thread column is «no comparable» at any load."""

from __future__ import annotations

from functools import partial

import pandas as pd

from ..figures import Custom, Data, Difference, Figure, NotComparable, Ratio, Sel, judge_all
from ..verdict import OTHER_MACHINE, Claim, Said, missing, ref
from . import servers
from .analysis import BASELINE, main_server
from .measure import SEED_PRESET

SOURCE = "«Container Performance Testing»"  # its title, quoted like every source title
RESULTS = "tabla «Results»"
APPENDIX_PER_THREAD = 8780.0  # net/http natively: the per-thread Req/Sec the table copied (8.78k)
APPENDIX_TOTAL = 104418.14  # and wrk's total Requests/sec in the appendix, with 12 threads
APPENDIX_THREADS = 12
# The table's columns are wrk's per-thread Req/Sec (its «Requests/s», seed003 in data/reference/red.csv).
table = partial(ref, source="seed003", metric="req_s_hilo")
said = partial(Said, source=SOURCE, where=f"{RESULTS}, fila Native · http-pkg")


def arm(engine: str, variant: str, server=lambda df, meta: main_server(df)) -> Sel:
    """The requests per second of one arm on one server (the run's main one unless named), by round."""
    return Sel(metric="req_s", engine=engine, variant=variant, image=server)


def on_server(df: pd.DataFrame, meta: dict | None) -> dict:
    return {"servidor": server} if (server := main_server(df)) else {}


def load_words(hilos, conexiones, duracion_s) -> str:
    return f"wrk -t{hilos} -c{conexiones} -d{duracion_s}s"


DOCUMENT_LOAD = load_words(**SEED_PRESET)


LOSS_WHY = (
    "Con otra concurrencia la pérdida de un camino de red cambia (con pocas conexiones pesa más la latencia "
    "de cada salto, con muchas, la CPU de quien copia los bytes): no se juzga su porcentaje con otra carga."
)
LATENCY_WHY = (
    "La latencia media de wrk depende de su carga: con 400 conexiones que esperan cada una su respuesta, es "
    "sobre todo tiempo en cola (conexiones ÷ peticiones por segundo); con pocas, el tiempo de cada salto: no "
    "se juzga su proporción con otra carga."
)
RATE_WHY = (
    "Con otra concurrencia cambia qué limita a cada servidor (sus hilos, su planificador, el propio wrk): no "
    "se juzga la proporción entre dos servidores con otra carga."
)


def button(name: str) -> str:
    """How to judge a claim at the document's load: the panel's button that runs it (Spanish)."""
    return f"El botón «{name}» del panel la juzga con la suya."


def by_hand(*names: str, duration_key: str = "duracion_s") -> str:
    """How to judge a claim no button runs: the document's load with these servers (Spanish)."""
    listed = " y ".join(f"{servers.SERVERS[n].label} («{n}»)" for n in names)
    return (  # the names of 06's parameters cell, where a student changes them
        f"Para juzgarla, corre el experimento con HILOS = 12, CONEXIONES = 400, {duration_key.upper()} = 30 y "
        f"{listed} en SERVIDORES."
    )


def at_document_load(duration_key: str, how: str, what: str = "esta pérdida", why: str = LOSS_WHY):
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
            f"El documento midió {what} con {DOCUMENT_LOAD}; esta corrida usó "
            f"{load_words(*(v if v is not None else '?' for v in ours.values()))}. {why} {how}"
        )

    return reason


def loss(engine: str, pct: float, quantity: str, figure) -> Said:
    """The table's «Loss wrt native» of net/http in one engine, as the change against native (%)."""
    name = engine.capitalize()
    return said(
        f"{engine}_pierde_{round(pct)}",
        f"En {name}, net/http (http-pkg) pierde un {pct} % de las peticiones por segundo frente a nativo.",
        where=f"{RESULTS}, fila {name} · http-pkg, columna «Loss wrt native»",
        claimed=-pct,
        kind="percent_about",
        quantity=f"el cambio de peticiones por segundo de {quantity} frente a nativo",
        unit="%",
        ref=table(engine=engine, image="nethttp", over={"engine": "bare"}, percent=True),
        figure=figure,
    )


PORT, NATIVE = arm("docker", "puerto"), arm(*BASELINE)
DOCKER_LOSS = loss(
    "docker",
    65.83,
    "Docker -p",
    Difference(
        PORT,
        NATIVE,
        percent=True,
        detail=on_server,
        incomparable=at_document_load("duracion_s", button("Configuración del documento")),
    ),
)
SECURITY_CAUSE = said(
    "causa_seguridad",
    "El autor oyó que Docker aplica mucho procesamiento de seguridad además de reenviar las peticiones, "
    "y que si se apaga o se ajusta el rendimiento podría mejorar.",
    where="sección «Conclusion»",
    kind="adds",
    quantity="Docker -p sin seccomp / Docker -p, en peticiones por segundo",
    figure=Ratio(arm("docker", "sin_seccomp"), PORT, detail=on_server),
)
GIN_NETHTTP = said(
    "gin_igual_nethttp",
    "Sin contenedor, net/http (http-pkg) atiende 8.78k peticiones por segundo y gin (go-gin) 9.01k.",
    where=f"{RESULTS}, filas Native",
    claimed=9.01 / 8.78,
    kind="no_difference",
    quantity="la proporción gin / net/http, sin contenedor",
    ref=table(engine="bare", image="gin", over={"image": "nethttp"}),
    figure=Ratio(arm(*BASELINE, "gin"), arm(*BASELINE, "nethttp")),
)
# Why the per-thread figure is «no comparable», and how its column reads (a test ties these to red.csv).
PER_THREAD_READING = (
    f"{OTHER_MACHINE} Además, esa columna se lee mal: es el "
    "«Req/Sec» de wrk, la media de cada uno de sus 12 hilos (apéndice, «native - http-pkg»); el total de "
    "esa corrida («Requests/sec») fue 104\u202f418 peticiones por segundo, 11.9 veces la cifra de la tabla. "
    "Debajo de los veredictos, la misma lectura en tu corrida."
)
PER_THREAD = said(
    "columna_por_hilo",
    "Sin contenedor, net/http (http-pkg) atiende 8.78k peticiones por segundo (columna «Requests/s»).",
    claimed=APPENDIX_PER_THREAD,
    kind="about",
    quantity="peticiones por segundo de net/http sin contenedor",
    unit="",
    ref=table(engine="bare", image="nethttp"),
    figure=NotComparable(PER_THREAD_READING),
)
# The document does not say how wrk reached its Pod: its loss is judged on each path this run measured.
K8S_PATHS = {
    "port_forward": "Kubernetes con `kubectl port-forward`",
    "nodeport": "Kubernetes con un NodePort",
    "host": "Kubernetes con `hostNetwork`",
}
K8S_NOT_RUN = (
    "Kubernetes no corrió en esta corrida (sin construir, sin root, o fuera de BRAZOS): la cifra del "
    "documento queda como referencia."
)


def on_kubernetes_paths(figure_of_path, quantity_of_path, server=main_server):
    """Custom(fn): a claim on Kubernetes judged on each Kubernetes path of the run: figure_of_path(variant,
    detail) → an optional Figure on that path's arm; quantity_of_path(words) → its quantity, with the
    server (`server(df)`) named."""

    def judged(said: Said, df: pd.DataFrame, meta: dict | None) -> list[Claim]:
        out = []
        name = server(df)
        for variant, words in K8S_PATHS.items():
            figure = figure_of_path(
                variant, lambda df, meta, v=variant: {**({"servidor": name} if name else {}), "camino": v}
            )
            quantity = quantity_of_path(words)
            if name:
                quantity += f" ({servers.SERVERS[name].label})"
            claim = figure.claim(said.but(quantity=quantity), Data(df, meta))
            if claim is not None:
                out.append(claim)
        return out or [missing(said.but(note=K8S_NOT_RUN))]

    return judged


def path_loss(variant: str, detail) -> Figure:
    """One Kubernetes path's change of requests per second against native, on the run's main server."""
    return Difference(arm("kubernetes", variant), NATIVE, percent=True, detail=detail, optional=True)


KUBERNETES_LOSS = loss(
    "kubernetes",
    83.59,
    "Kubernetes",
    Custom(
        on_kubernetes_paths(
            path_loss, lambda words: f"el cambio de peticiones por segundo de {words} frente a nativo"
        ),
        incomparable=at_document_load("duracion_k8s_s", button("Kubernetes con la carga del documento")),
    ),
)
# The table's «Latency» column: wrk's average latency, Docker and Kubernetes over native, per server (its
# own names for them) — judged only at its load, where it is mostly time queued behind 400 connections.
TABLE_NAMES = {"nethttp": "http-pkg", "gin": "go-gin"}
LATENCY_BUTTONS = {
    ("docker", "nethttp"): button("Configuración del documento"),
    ("kubernetes", "nethttp"): button("Kubernetes con la carga del documento"),
}


def latency_arm(engine: str, variant: str, server: str) -> Sel:
    """wrk's average latency (ms) of one arm on one server, by round."""
    return Sel(metric="latencia_media", engine=engine, variant=variant, image=server)


def latency(engine: str, server: str, native_ms: float, engine_ms: float) -> Said:
    """The table's «Latency» of one server in one engine over its native one, as a ratio."""
    name, row = engine.capitalize(), TABLE_NAMES[server]
    label = servers.SERVERS[server].label
    duration = "duracion_s" if engine == "docker" else "duracion_k8s_s"
    incomparable = at_document_load(
        duration,
        LATENCY_BUTTONS.get((engine, server)) or by_hand(server, duration_key=duration),
        "esta proporción",
        LATENCY_WHY,
    )
    native = latency_arm(*BASELINE, server)
    if engine == "docker":
        figure = Ratio(
            latency_arm("docker", "puerto", server),
            native,
            detail={"servidor": server},
            incomparable=incomparable,
        )
    else:
        figure = Custom(
            on_kubernetes_paths(
                lambda variant, detail: Ratio(
                    latency_arm("kubernetes", variant, server), native, detail=detail, optional=True
                ),
                lambda words: f"la latencia media de {words} / sin contenedor",
                server=lambda df: server,
            ),
            detail={"servidor": server},
            incomparable=incomparable,
        )
    return said(
        f"latencia_{engine}_{server}",
        f"Con {label} ({row}), la latencia media pasa de {native_ms:.2f} ms sin contenedor a {engine_ms:.2f} ms en "
        f"{name}: {engine_ms / native_ms:.2f} veces.",
        where=f"{RESULTS}, filas Native y {name} · {row}, columna «Latency»",
        claimed=engine_ms / native_ms,
        kind="about",
        quantity=f"la latencia media de {'Docker -p' if engine == 'docker' else name} / sin contenedor ({label})",
        unit="x",
        ref=ref(
            source="seed003", metric="latencia_media", engine=engine, image=server, over={"engine": "bare"}
        ),
        figure=figure,
    )


LATENCIES = (
    latency("docker", "nethttp", 5.47, 11.16),
    latency("kubernetes", "nethttp", 5.47, 24.50),
    latency("docker", "gin", 5.65, 11.37),
    latency("kubernetes", "gin", 5.65, 23.76),
)
# The appendix's two Rust servers, natively only: actix's total requests per second over Rocket's.
APPENDIX_ACTIX, APPENDIX_ROCKET = 203133.2, 159194.28
ACTIX_ROCKET = said(
    "actix_rocket_128",
    "Sin contenedor, actix-web atiende 203\u202f133 peticiones por segundo y Rocket 159\u202f194: 1.28 veces.",
    where="apéndice, salidas «Native - actix» y «Native - rocket» («Requests/sec»)",
    claimed=APPENDIX_ACTIX / APPENDIX_ROCKET,
    kind="about",
    quantity="la proporción actix-web / Rocket en peticiones por segundo, sin contenedor",
    ref=ref(source="seed003", metric="req_s", engine="bare", image="actix", over={"image": "rocket"}),
    figure=Ratio(
        arm(*BASELINE, "actix"),
        arm(*BASELINE, "rocket"),
        incomparable=at_document_load("duracion_s", by_hand("actix", "rocket"), "esta proporción", RATE_WHY),
    ),
)
SAID = (DOCKER_LOSS, SECURITY_CAUSE, GIN_NETHTTP, PER_THREAD, KUBERNETES_LOSS, *LATENCIES, ACTIX_ROCKET)


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


def as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The declaration on the run's main server, with what our load and our Docker were."""
    note = {DOCKER_LOSS.key: conditions, SECURITY_CAUSE.key: security_setup}.get(said.key)
    if (server := main_server(df)) is None or note is None:
        return said
    return said.but(quantity=f"{said.quantity} ({servers.SERVERS[server].label})", note=note(meta))


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The document's claims, each decided by the one verdict rule or «no comparable» with the reason."""
    return judge_all(SAID, df, meta, adapt=as_run)
