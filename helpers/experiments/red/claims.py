"""The claims of «Container Performance Testing» (seed 003) on HTTP in containers, declared once as the
document states them (its section or table in `where`) and judged on its figure by the one rule (verdict.judge_all),
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

from ..verdict import Claim, Difference, NotComparable, Ratio, Said, Sel, judge_all, ref
from . import servers
from .analysis import BASELINE, main_server

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


def _server(df: pd.DataFrame, meta: dict | None) -> str | None:
    return main_server(df)


def _arm(engine: str, variant: str, server=_server) -> Sel:
    """The requests per second of one arm on one server (the run's main one unless named), by round."""
    return Sel(metric="req_s", engine=engine, variant=variant, image=server)


def _server_detail(df: pd.DataFrame, meta: dict | None) -> dict:
    server = main_server(df)
    return {"servidor": server} if server else {}


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
    figure=Difference(_arm("docker", "puerto"), _arm(*BASELINE), percent=True, detail=_server_detail),
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
    figure=Ratio(_arm(*SECURITY_ARM), _arm("docker", "puerto"), detail=_server_detail),
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
    figure=Ratio(_arm(*BASELINE, "gin"), _arm(*BASELINE, "nethttp")),
)
# Why the per-thread claim is «no comparable», and how its column reads (the figures are the appendix's:
# a test ties them to data/reference/red.csv).
PER_THREAD_READING = (
    "Una cifra absoluta de otra máquina no se compara con la tuya. Además, esa columna se lee mal: es el "
    "«Req/Sec» de wrk, la media de cada uno de sus 12 hilos (apéndice, «native - http-pkg»); el total de "
    "esa corrida («Requests/sec») fue 104\u202f418 peticiones por segundo, 11.9 veces la cifra de la tabla. "
    "Debajo de los veredictos, la misma lectura en tu corrida."
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
    figure=NotComparable(PER_THREAD_READING),
)
KUBERNETES_REASON = (
    "En esta máquina no se puede levantar un clúster: la cifra queda como referencia. El documento no dice "
    "por qué camino llegó wrk al pod; la hipótesis del cuaderno (sin medir) es `kubectl port-forward`."
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
    figure=NotComparable(KUBERNETES_REASON),
)
SAID = (DOCKER_LOSS, SECURITY_CAUSE, GIN_NETHTTP, PER_THREAD, KUBERNETES_LOSS)


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


def _as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The declaration on the run's main server, with what our load and our Docker were."""
    server = main_server(df)
    if server is None or said.key not in (DOCKER_LOSS.key, SECURITY_CAUSE.key):
        return said
    note = conditions(meta) if said.key == DOCKER_LOSS.key else security_setup(meta)
    return _on(said, server).but(note=note)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The five claims: three decided by the one verdict rule, two «no comparable» with the reason."""
    return judge_all(SAID, df, meta, adapt=_as_run)
