"""The claims of «Container Performance Testing» (seed 003) on HTTP in containers, each on the server its
row names (the author's explanation on the run's main server), arms paired by round, with the document's
set-up (its threads and connections, its servers unpinned: analysis.at_document_load). Its table's columns
are wrk's per-thread Req/Sec (its «Requests/s», seed003 in data/reference/red.csv); its losses and
latencies are ratios, judged here on wrk's totals."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import pandas as pd

from ..figures import Custom, Data, Difference, Figure, NotComparable, Ratio, Sel, judging
from ..verdict import OTHER_MACHINE, Claim, Said, missing, ref
from . import servers
from .analysis import (
    BASELINE,
    CLUSTER_BASELINE,
    at_document_load,
    by_hand,
    conditions,
    main_server,
    security_setup,
)

SOURCE = "«Container Performance Testing»"  # its title, quoted like every source title
APPENDIX_PER_THREAD = 8780.0  # net/http natively: the per-thread Req/Sec the table copied (8.78k)
APPENDIX_TOTAL = 104418.14  # and wrk's total Requests/sec in the appendix, with 12 threads
APPENDIX_THREADS = 12
APPENDIX_ACTIX, APPENDIX_ROCKET = 203133.2, 159194.28  # the appendix's Rust servers, natively
LOSS = {"docker": 65.83, "kubernetes": 83.59}  # the table's «Loss wrt native» of net/http, %
# ... and of gin, each on the base the document divided by: Docker's by net/http's native (1 − 2.95/8.78),
# Kubernetes' by gin's own (1 − 1.47/9.01)
GIN_LOSS = {"docker": 66.40, "kubernetes": 83.68}
GIN_BASE = {"docker": "nethttp", "kubernetes": "gin"}
# The table's «Latency» (ms) per engine and server: natively, in the engine, and their ratio.
LATENCY_MS = {"docker_nethttp": (5.47, 11.16), "kubernetes_nethttp": (5.47, 24.50)}
LATENCY_MS |= {"docker_gin": (5.65, 11.37), "kubernetes_gin": (5.65, 23.76)}
LATENCY_MS = {k: (native, engine, engine / native) for k, (native, engine) in LATENCY_MS.items()}
# Why the per-thread figure is «no comparable», and how its column reads (a test ties these to red.csv).
PER_THREAD_READING = (
    f"{OTHER_MACHINE} Además, esa columna se lee mal: es el "
    "«Req/Sec» de wrk, la media de cada uno de sus 12 hilos (apéndice, «native - http-pkg»); el total de "
    "esa corrida («Requests/sec») fue 104\u202f418 peticiones por segundo, 11.9 veces la cifra de la tabla. "
    "Debajo de los veredictos, la misma lectura en tu corrida."
)
K8S_PATHS = {
    "port_forward": "Kubernetes con `kubectl port-forward`",
    "nodeport": "Kubernetes con un NodePort",
    "host": "Kubernetes con `hostNetwork`",
}
K8S_NOT_RUN = (
    "Kubernetes no corrió en esta corrida (sin construir, sin root, o fuera de BRAZOS): la cifra del "
    "documento queda como referencia."
)
main = lambda df, meta: main_server(df)  # the run's main server, the one an arm is read on


def arm(engine: str, variant: str, server=main, metric: str = "req_s") -> Sel:
    """The requests per second (or `metric`) of one arm on one server (the run's main one), by round."""
    return Sel(metric=metric, engine=engine, variant=variant, image=server)


def on_server(df: pd.DataFrame, meta: dict | None) -> dict:
    return {"servidor": server} if (server := main_server(df)) else {}


def on_kubernetes_paths(shape, words: str, server=main, metric: str = "req_s", **figure_options):
    """Custom(fn): a claim on Kubernetes judged on each Kubernetes path of the run: shape(that path's arm,
    native's in the same rounds, with the cluster up) of `metric` on `server` (the run's main one, or a
    name), e.g. Ratio or Difference with `figure_options`, no claim for a path the run did not measure; its
    quantity `words` with {} for the path, the server named."""

    def judged(said: Said, df: pd.DataFrame, meta: dict | None) -> list[Claim]:
        out = []
        name = server(df, meta) if callable(server) else server
        for variant, path in K8S_PATHS.items():
            detail = lambda df, meta, v=variant: {**({"servidor": name} if name else {}), "camino": v}
            kube, native = arm("kubernetes", variant, server, metric), arm(*CLUSTER_BASELINE, server, metric)
            figure = shape(kube, native, detail=detail, optional=True, **figure_options)
            quantity = words.format(path) + (f" ({servers.SERVERS[name].label})" if name else "")
            claim = figure.claim(said.but(quantity=quantity), Data(df, meta))
            if claim is not None:
                out.append(claim)
        return out or [missing(said.but(note=K8S_NOT_RUN))]

    return judged


def latency(engine: str, server: str, why: str) -> Figure:
    """The table's «Latency» of one server in one engine over its native one, as a ratio: wrk's average
    latency (ms) by round, judged only with the document's set-up (`why` otherwise)."""
    options = {"detail": {"servidor": server}, "incomparable": at_document_load("esta proporción", why)}
    if engine == "docker":
        docker, native = (arm(*a, server, "latencia_media") for a in (("docker", "puerto"), BASELINE))
        return Ratio(docker, native, **options)
    words = "la latencia media de {} / sin contenedor"
    return Custom(on_kubernetes_paths(Ratio, words, server, "latencia_media"), **options)


# ---------------------------------------------------------------- the declarations
document = partial(Said, source=SOURCE, where="tabla «Results», fila Native · http-pkg")
# Why a figure of the document's load is not judged at another (`at_document_load`), and how to judge it.
LOSS_WHY = "Con otra concurrencia la pérdida de un camino de red cambia (con pocas conexiones pesa más la latencia de cada salto, con muchas, la CPU de quien copia los bytes): no se juzga su porcentaje con otra carga."
LATENCY_WHY = "La latencia media de wrk depende de su carga: con 400 conexiones que esperan cada una su respuesta, es sobre todo tiempo en cola (conexiones ÷ peticiones por segundo); con pocas, el tiempo de cada salto: no se juzga su proporción con otra carga."
RATE_WHY = "Con otra concurrencia cambia qué limita a cada servidor (sus hilos, su planificador, el propio wrk): no se juzga la proporción entre dos servidores con otra carga."
NAME = {"docker": "Docker", "kubernetes": "Kubernetes"}
WHO = {"docker": "Docker -p", "kubernetes": "Kubernetes"}
ROWS = {"nethttp": "http-pkg", "gin": "go-gin"}


def loss_figure(engine: str, server: str, base: str) -> Figure:
    """The change of `server`'s requests per second in `engine` against `base`'s native, in %: Docker -p
    against native, or each Kubernetes path against native again beside the cluster."""
    if engine == "docker":
        return Difference(arm("docker", "puerto", server), arm(*BASELINE, base), percent=True)
    words = "el cambio de peticiones por segundo de {} frente a nativo"
    return Custom(on_kubernetes_paths(Difference, words, server, percent=True))


def loss(key: str, engine: str, server: str = "nethttp") -> Said:
    """The table's «Loss wrt native» of one server in one engine, on the base the document divided by
    (GIN_BASE for gin); Kubernetes' judged on each path this run measured (the document's Deployment has
    no Service: its wrk at localhost:8080 went through `kubectl port-forward`, the first of them)."""
    pct = LOSS[engine] if server == "nethttp" else GIN_LOSS[engine]
    base = server if server == "nethttp" else GIN_BASE[engine]
    row = ROWS[server]
    label = servers.SERVERS[server].label
    quantity = f"el cambio de peticiones por segundo de {WHO[engine]} frente a nativo ({label})"
    note = ""
    if base != server:
        quantity = (
            f"el cambio de peticiones por segundo de {label} en {WHO[engine]} frente a "
            f"{servers.SERVERS[base].label} sin contenedor"
        )
        note = (
            "El documento calculó esta pérdida contra la cifra nativa de net/http, no la de gin (1 − 2.95k ÷ "
            "8.78k): se juzga sobre esa misma base."
        )
    return document(
        key,
        f"En {NAME[engine]}, {'net/http' if server == 'nethttp' else 'gin'} ({row}) pierde un {pct:.2f} % de las "
        "peticiones por segundo frente a nativo.",
        where=f"tabla «Results», fila {NAME[engine]} · {row}, columna «Loss wrt native»",
        claimed=-pct,
        kind="percent_about",
        quantity=quantity,
        unit="%",
        note=note,
        ref=ref(
            source="seed003",
            metric="req_s_hilo",
            engine=engine,
            image=server,
            over={"engine": "bare", **({"image": base} if base != server else {})},
            percent=True,
        ),
        figure=replace(
            loss_figure(engine, server, base), incomparable=at_document_load("esta pérdida", LOSS_WHY)
        ),
    )


# The table's «Latency» column: wrk's average latency, Docker and Kubernetes over native, per server (its
# own names for them), judged only with its set-up, where it is mostly time queued behind 400 connections.
def latency_claim(engine: str, server: str) -> Said:
    native, ms, times = LATENCY_MS[f"{engine}_{server}"]
    label, row = servers.SERVERS[server].label, ROWS[server]
    return document(
        f"latencia_{engine}_{server}",
        f"Con {label} ({row}), la latencia media pasa de {native:.2f} ms sin contenedor a {ms:.2f} ms en {NAME[engine]}: {times:.2f} veces.",
        where=f"tabla «Results», filas Native y {NAME[engine]} · {row}, columna «Latency»",
        claimed=times,
        kind="about",
        quantity=f"la latencia media de {WHO[engine]} / sin contenedor ({label})",
        unit="x",
        ref=ref(
            source="seed003", metric="latencia_media", engine=engine, image=server, over={"engine": "bare"}
        ),
        figure=latency(engine, server, LATENCY_WHY),
    )


SAID = (
    loss("docker_pierde_66", "docker"),
    document(
        "causa_seguridad",
        "El autor oyó que Docker aplica mucho procesamiento de seguridad además de reenviar las peticiones, y que si se apaga o se ajusta el rendimiento podría mejorar.",
        where="sección «Conclusion»",
        kind="adds",
        quantity="Docker -p sin seccomp / Docker -p, en peticiones por segundo",
        figure=Ratio(arm("docker", "sin_seccomp"), arm("docker", "puerto"), detail=on_server),
    ),
    document(
        "gin_igual_nethttp",
        "Sin contenedor, net/http (http-pkg) atiende 8.78k peticiones por segundo y gin (go-gin) 9.01k.",
        where="tabla «Results», filas Native",
        claimed=9.01 / 8.78,
        kind="no_difference",
        quantity="la proporción gin / net/http, sin contenedor",
        ref=ref(source="seed003", metric="req_s_hilo", engine="bare", image="gin", over={"image": "nethttp"}),
        figure=Ratio(
            arm(*BASELINE, "gin"),
            arm(*BASELINE, "nethttp"),
            incomparable=at_document_load("esta proporción", RATE_WHY, by_hand("nethttp", "gin")),
        ),
    ),
    document(
        "columna_por_hilo",
        "Sin contenedor, net/http (http-pkg) atiende 8.78k peticiones por segundo (columna «Requests/s»).",
        claimed=APPENDIX_PER_THREAD,
        kind="about",
        quantity="peticiones por segundo de net/http sin contenedor",
        unit="",
        ref=ref(source="seed003", metric="req_s_hilo", engine="bare", image="nethttp"),
        figure=NotComparable(PER_THREAD_READING),
    ),
    loss("kubernetes_pierde_84", "kubernetes"),
    loss("docker_gin_pierde_66", "docker", "gin"),
    loss("kubernetes_gin_pierde_84", "kubernetes", "gin"),
    *(latency_claim(engine, server) for server in ROWS for engine in NAME),
    # The appendix's two Rust servers, natively only: actix's total requests per second over Rocket's.
    document(
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
            incomparable=at_document_load("esta proporción", RATE_WHY, by_hand("actix", "rocket")),
        ),
    ),
)


def as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The declarations with what our load and our Docker were: the security claim on the run's main
    server, the Docker loss with our conditions."""
    if said.key == "docker_pierde_66":
        return said.but(note=conditions(meta))
    if said.key == "causa_seguridad" and (server := main_server(df)) is not None:
        return said.but(
            quantity=f"{said.quantity} ({servers.SERVERS[server].label})", note=security_setup(meta)
        )
    return said


claims = judging(SAID, adapt=as_run)
