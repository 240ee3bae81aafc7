"""The claims of «Container Performance Testing» (seed 003) on HTTP, declared in claims.toml and judged on
the run's main server (net/http if present), arms paired by round: the figures that need code, and the
claimed numbers data/reference/red.csv holds. The conditions they are judged under are analysis.py's."""

from __future__ import annotations

import pandas as pd

from .. import declared
from ..figures import Custom, Data, Figure, Ratio, Sel, judging
from ..verdict import OTHER_MACHINE, Claim, Said, missing
from . import servers
from .analysis import BASELINE, at_document_load, conditions, main_server, security_setup

SOURCE = "«Container Performance Testing»"  # its title, quoted like every source title
APPENDIX_PER_THREAD = 8780.0  # net/http natively: the per-thread Req/Sec the table copied (8.78k)
APPENDIX_TOTAL = 104418.14  # and wrk's total Requests/sec in the appendix, with 12 threads
APPENDIX_THREADS = 12
APPENDIX_ACTIX, APPENDIX_ROCKET = 203133.2, 159194.28  # the appendix's Rust servers, natively
LOSS = {"docker": 65.83, "kubernetes": 83.59}  # the table's «Loss wrt native» of net/http, %
# The table's «Latency» (ms) per engine and server: natively, in the engine, and their ratio.
LATENCY_MS = {"docker_nethttp": (5.47, 11.16), "kubernetes_nethttp": (5.47, 24.50)}
LATENCY_MS |= {"docker_gin": (5.65, 11.37), "kubernetes_gin": (5.65, 23.76)}
LATENCY_MS = {k: (native, engine, engine / native) for k, (native, engine) in LATENCY_MS.items()}
CLAIMED = {f"{engine}_pierde": -pct for engine, pct in LOSS.items()}
CLAIMED |= {"gin": 9.01 / 8.78, "actix": APPENDIX_ACTIX / APPENDIX_ROCKET}
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
    native's) of `metric` on `server` (the run's main one, or a name), e.g. Ratio or Difference with
    `figure_options`, no claim for a path the run did not measure; its quantity `words` with {} for the
    path, the server named."""

    def judged(said: Said, df: pd.DataFrame, meta: dict | None) -> list[Claim]:
        out = []
        name = server(df, meta) if callable(server) else server
        for variant, path in K8S_PATHS.items():
            detail = lambda df, meta, v=variant: {**({"servidor": name} if name else {}), "camino": v}
            kube, native = arm("kubernetes", variant, server, metric), arm(*BASELINE, server, metric)
            figure = shape(kube, native, detail=detail, optional=True, **figure_options)
            quantity = words.format(path) + (f" ({servers.SERVERS[name].label})" if name else "")
            claim = figure.claim(said.but(quantity=quantity), Data(df, meta))
            if claim is not None:
                out.append(claim)
        return out or [missing(said.but(note=K8S_NOT_RUN))]

    return judged


def latency(engine: str, server: str, how: str, duration: str, why: str) -> Figure:
    """The table's «Latency» of one server in one engine over its native one, as a ratio: wrk's average
    latency (ms) by round, judged only at the document's load (wrk's duration read from `duration`),
    `why` and `how` to judge it otherwise."""
    options = {
        "detail": {"servidor": server},
        "incomparable": at_document_load(duration, how, "esta proporción", why),
    }
    if engine == "docker":
        docker, native = (arm(*a, server, "latencia_media") for a in (("docker", "puerto"), BASELINE))
        return Ratio(docker, native, **options)
    words = "la latencia media de {} / sin contenedor"
    return Custom(on_kubernetes_paths(Ratio, words, server, "latencia_media"), **options)


SAID = declared.read(__package__, globals()).said


def as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The declaration on the run's main server, with what our load and our Docker were."""
    note = {"docker_pierde_66": conditions, "causa_seguridad": security_setup}.get(said.key)
    if (server := main_server(df)) is None or note is None:
        return said
    return said.but(quantity=f"{said.quantity} ({servers.SERVERS[server].label})", note=note(meta))


claims = judging(SAID, adapt=as_run)
