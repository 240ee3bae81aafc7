"""The claims of «Container Performance Testing» (seed 003) on HTTP in containers, declared once as the
document states them (its section or table in `where`) and judged by the builders of the verdict module,
on the main server of the run (net/http if present):

- docker_pierde_66: the table's «Loss wrt native» for Docker, net/http (65.83 %), judged as the change of
  Docker -p against native (−65.83 %), paired by round;
- causa_seguridad: the Conclusion's «Docker applies a lot of security processing… if this is switched off
  or tuned, performance might be better», judged in its own words: the same Docker -p container with its
  security filter (seccomp) switched off, against the default one;
- gin_igual_nethttp: the table's two native figures (8.78k and 9.01k: gin / net/http = 1.03);
- columna_por_hilo: the table's «Requests/s» for native net/http (8.78k). An absolute figure of another
  machine: «no comparable», with the reading (the column is wrk's per-thread Req/Sec; the total was
  104 418 req/s; the view shows this run's total / per-thread);
- kubernetes_pierde_84: the table's Kubernetes loss (83.59 %): no cluster runs here, «no comparable».
"""

from __future__ import annotations

import pandas as pd

from ..verdict import Claim, Said, difference, missing, not_comparable, ratio, ref
from . import servers
from .analysis import BASELINE, arm_values, main_server

SOURCE = "«Container Performance Testing»"  # its title, quoted like every source title
RESULTS = "tabla «Results»"
CONCLUSION = "sección «Conclusion»"
APPENDIX_PER_THREAD = 8780.0  # net/http natively: the per-thread Req/Sec the table copied (8.78k)
APPENDIX_TOTAL = 104418.14  # and wrk's total Requests/sec in the appendix, with 12 threads
APPENDIX_THREADS = 12
SECURITY_ARM = ("docker", "sin_seccomp")
SEED = "seed003"  # the document's rows in data/reference/red.csv
# The table's columns come from wrk's per-thread Req/Sec (its «Requests/s»): its figures are read there.
TABLE = {"source": SEED, "metric": "req_s_hilo"}

DOCKER_LOSS = Said(
    "docker_pierde_66",
    "En Docker, net/http (http-pkg) pierde un 65.83 % de las peticiones por segundo frente a nativo.",
    SOURCE,
    where=f"{RESULTS}, fila Docker · http-pkg, columna «Loss wrt native»",
    claimed=-65.83,
    kind="percent_about",
    quantity="el cambio de peticiones por segundo de Docker -p frente a nativo",
    unit="%",
    ref=ref(**TABLE, engine="docker", image="nethttp", over={"engine": "bare"}, percent=True),
)
SECURITY_CAUSE = Said(
    "causa_seguridad",
    "El autor oyó que Docker aplica mucho procesamiento de seguridad además de reenviar las peticiones, "
    "y que si se apaga o se ajusta el rendimiento podría mejorar.",
    SOURCE,
    where=CONCLUSION,
    kind="adds",
    quantity="Docker -p sin seccomp / Docker -p, en peticiones por segundo",
    unit="x",
)
GIN_NETHTTP = Said(
    "gin_igual_nethttp",
    "Sin contenedor, net/http (http-pkg) atiende 8.78k peticiones por segundo y gin (go-gin) 9.01k.",
    SOURCE,
    where=f"{RESULTS}, filas Native",
    claimed=9.01 / 8.78,
    kind="no_difference",
    quantity="la proporción gin / net/http, sin contenedor",
    unit="x",
    ref=ref(**TABLE, engine="bare", image="gin", over={"image": "nethttp"}),
)
PER_THREAD = Said(
    "columna_por_hilo",
    "Sin contenedor, net/http (http-pkg) atiende 8.78k peticiones por segundo (columna «Requests/s»).",
    SOURCE,
    where=f"{RESULTS}, fila Native · http-pkg",
    claimed=APPENDIX_PER_THREAD,
    kind="about",
    quantity="peticiones por segundo de net/http sin contenedor",
    unit="",
    ref=ref(**TABLE, engine="bare", image="nethttp"),
)
# Why the per-thread claim is «no comparable», and how its column reads (the figures are the appendix's:
# a test ties them to data/reference/red.csv).
PER_THREAD_READING = (
    "Una cifra absoluta de otra máquina no se compara con la tuya. Además, esa columna se lee mal: es el "
    "«Req/Sec» de wrk, la media de cada uno de sus 12 hilos (apéndice, «native - http-pkg»); el total de "
    "esa corrida («Requests/sec») fue 104\u202f418 peticiones por segundo, 11.9 veces la cifra de la tabla. "
    "Debajo de los veredictos, la misma lectura en tu corrida."
)
KUBERNETES_LOSS = Said(
    "kubernetes_pierde_84",
    "En Kubernetes, net/http (http-pkg) pierde un 83.59 % de las peticiones por segundo frente a nativo.",
    SOURCE,
    where=f"{RESULTS}, fila Kubernetes · http-pkg, columna «Loss wrt native»",
    claimed=-83.59,
    kind="percent_about",
    quantity="el cambio de peticiones por segundo de Kubernetes frente a nativo",
    unit="%",
    ref=ref(**TABLE, engine="kubernetes", image="nethttp", over={"engine": "bare"}, percent=True),
)
CLAIMS = (DOCKER_LOSS, SECURITY_CAUSE, GIN_NETHTTP, PER_THREAD, KUBERNETES_LOSS)

KUBERNETES_REASON = (
    "En esta máquina no se puede levantar un clúster: la cifra queda como referencia. El documento no dice "
    "por qué camino llegó wrk al pod; la hipótesis del cuaderno (sin medir) es `kubectl port-forward`."
)
SAID = CLAIMS


def _on(said: Said, server: str) -> Said:
    """The declaration with the server it was measured on named in its quantity."""
    return said.but(quantity=f"{said.quantity} ({servers.SERVERS[server].label})")


def _parameters(meta: dict | None) -> dict:
    return (meta or {}).get("parameters") or {}


def conditions(meta: dict | None) -> str:
    """Our load beside the document's, from the run's parameters (a sentence for the verdict line)."""
    p = _parameters(meta)
    ours = f"wrk -t{p.get('hilos', '?')} -c{p.get('conexiones', '?')} -d{p.get('duracion_s', '?')}s"
    cores = ((meta or {}).get("host") or {}).get("cpu_cores", "?")
    return (
        f"Condiciones: aquí {ours} contra 127.0.0.1 en {cores} núcleos, servidor y wrk en CPU distintas; "
        "el documento, wrk -t12 -c400 -d30s contra localhost en una máquina que no describe."
    )


def security_setup(meta: dict | None) -> str:
    """What «switched off» means here, and what differs from the document's Docker (from the run's meta)."""
    docker = ((meta or {}).get("engines") or {}).get("docker") or {}
    options = " ".join(str(o) for o in docker.get("security_options") or [])
    apparmor = (
        "AppArmor también está activo y queda encendido"
        if "apparmor" in options
        else "AppArmor no está activo en este Docker"
        if docker.get("security_options") is not None
        else "no sabemos si AppArmor está activo"
    )
    version = docker.get("server_version") or "?"
    return (
        "Lo que se apaga aquí es seccomp, el filtro que revisa cada llamada al sistema del servidor: lo "
        "único de la seguridad de Docker que actúa en cada petición. Namespaces y cgroups no se apagan sin "
        f"dejar de ser un contenedor; {apparmor}. Docker {version} aquí; el documento no dice su versión "
        "ni su configuración."
    )


def docker_loss(df: pd.DataFrame, meta: dict | None, server: str) -> Claim:
    """Docker -p against native, as the change in % the source's loss is (paired by round)."""
    said = _on(DOCKER_LOSS, server).but(note=conditions(meta))
    return difference(
        said,
        arm_values(df, "req_s", "docker", "puerto", server),
        arm_values(df, "req_s", *BASELINE, server),
        percent=True,
        detail={"servidor": server},
    )


def security_cause(df: pd.DataFrame, meta: dict | None, server: str) -> Claim:
    """The same Docker -p container with seccomp off, against the default one."""
    said = _on(SECURITY_CAUSE, server).but(note=security_setup(meta))
    return ratio(
        said,
        arm_values(df, "req_s", *SECURITY_ARM, server),
        arm_values(df, "req_s", "docker", "puerto", server),
        detail={"servidor": server},
    )


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The five claims: three decided by the one verdict rule, two «no comparable» with the reason."""
    server = main_server(df)
    per_thread = not_comparable(PER_THREAD, PER_THREAD_READING)
    kubernetes = not_comparable(KUBERNETES_LOSS, KUBERNETES_REASON)
    if server is None:
        return [missing(DOCKER_LOSS), missing(SECURITY_CAUSE), missing(GIN_NETHTTP), per_thread, kubernetes]
    return [
        docker_loss(df, meta, server),
        security_cause(df, meta, server),
        ratio(
            GIN_NETHTTP,
            arm_values(df, "req_s", *BASELINE, "gin"),
            arm_values(df, "req_s", *BASELINE, "nethttp"),
        ),
        per_thread,
        kubernetes,
    ]
