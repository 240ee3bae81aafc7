"""The claims of «Container Performance Testing» (seed 003) on HTTP in containers, judged on the run's main
server (net/http if present), arms paired by round: Docker's loss against native, the security processing
the Conclusion blames for it (the same Docker -p container with seccomp off), gin against net/http, and
its Kubernetes loss on each Kubernetes path this run measured. Its two losses are judged only on a run
with its load (`wrk -t12 -c400 -d30s`, `at_document_load`): at any other they are «no comparable», with
the reason. Its absolute per-thread column is «no comparable» too."""

from __future__ import annotations

from functools import partial

import pandas as pd

from ..figures import Custom, Data, Difference, NotComparable, Ratio, Sel, judge_all
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


def at_document_load(duration_key: str, button: str):
    """incomparable(df, meta) for a loss the document measured with its load: "" on a run with that
    load (wrk's duration read from `duration_key`: duracion_s, or duracion_k8s_s on Kubernetes),
    otherwise why the percentages cannot be compared (Spanish)."""

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
            f"El documento midió esta pérdida con {DOCUMENT_LOAD}; esta corrida usó "
            f"{load_words(*(v if v is not None else '?' for v in ours.values()))}. Con otra concurrencia la "
            "pérdida de un camino de red cambia (con pocas conexiones pesa más la latencia de cada salto, con "
            f"muchas, la CPU de quien copia los bytes): no se juzga su porcentaje con otra carga. El botón "
            f"«{button}» del panel la juzga con la suya."
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
        incomparable=at_document_load("duracion_s", "Configuración del documento"),
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


def kubernetes_paths(said: Said, df: pd.DataFrame, meta: dict | None) -> list[Claim]:
    """The document's Kubernetes loss judged on each Kubernetes path of the run, against native."""
    out = []
    for variant, words in K8S_PATHS.items():
        figure = Difference(
            arm("kubernetes", variant),
            NATIVE,
            percent=True,
            detail=lambda df, meta, v=variant: {**on_server(df, meta), "camino": v},
            optional=True,
        )
        quantity = f"el cambio de peticiones por segundo de {words} frente a nativo"
        if server := main_server(df):
            quantity += f" ({servers.SERVERS[server].label})"
        claim = figure.claim(said.but(quantity=quantity), Data(df, meta))
        if claim is not None:
            out.append(claim)
    return out or [missing(said.but(note=K8S_NOT_RUN))]


KUBERNETES_LOSS = loss(
    "kubernetes",
    83.59,
    "Kubernetes",
    Custom(
        kubernetes_paths,
        incomparable=at_document_load("duracion_k8s_s", "Kubernetes con la carga del documento"),
    ),
)
SAID = (DOCKER_LOSS, SECURITY_CAUSE, GIN_NETHTTP, PER_THREAD, KUBERNETES_LOSS)


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
    """The five claims: three decided by the one verdict rule, two «no comparable» with the reason."""
    return judge_all(SAID, df, meta, adapt=as_run)
