"""The claims of «Container Performance Testing» (seed 003) on HTTP in containers, declared in claims.toml
(helpers/experiments/declared.py) and judged on the run's main server (net/http if present), arms paired by
round: Docker's loss against native, the security processing the Conclusion blames for it (the same Docker
-p container with seccomp off), gin against net/http, and its Kubernetes loss on each Kubernetes path this
run measured. Its two losses are judged only on a run with its load (`wrk -t12 -c400 -d30s`,
`at_document_load`): at any other they are «no comparable», with the reason. So are its latency column
(Docker and Kubernetes over native, per server: wrk's average latency, mostly queueing at that load) and
actix-web against Rocket in its appendix. Its absolute per-thread column is «no comparable» at any load."""

from __future__ import annotations

import pandas as pd

from .. import declared
from ..figures import Custom, Data, Difference, Figure, Ratio, Sel, judge_all
from ..verdict import OTHER_MACHINE, Claim, Said, missing
from . import servers
from .analysis import BASELINE, main_server
from .measure import SEED_PRESET

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


def on_kubernetes_paths(figure_of_path, quantity_of_path: str, server=main_server):
    """Custom(fn): a claim on Kubernetes judged on each Kubernetes path of the run: figure_of_path(variant,
    detail) → an optional Figure on that path's arm; quantity_of_path, its quantity with {} for the path,
    with the server (`server(df)`) named."""

    def judged(said: Said, df: pd.DataFrame, meta: dict | None) -> list[Claim]:
        out = []
        name = server(df)
        for variant, words in K8S_PATHS.items():
            figure = figure_of_path(
                variant, lambda df, meta, v=variant: {**({"servidor": name} if name else {}), "camino": v}
            )
            quantity = quantity_of_path.format(words)
            if name:
                quantity += f" ({servers.SERVERS[name].label})"
            claim = figure.claim(said.but(quantity=quantity), Data(df, meta))
            if claim is not None:
                out.append(claim)
        return out or [missing(said.but(note=K8S_NOT_RUN))]

    return judged


def path_loss(variant: str, detail) -> Figure:
    """One Kubernetes path's change of requests per second against native, on the run's main server."""
    return Difference(arm("kubernetes", variant), arm(*BASELINE), percent=True, detail=detail, optional=True)


def latency(engine: str, server: str, how: str, duration: str, why: str) -> Figure:
    """The table's «Latency» of one server in one engine over its native one, as a ratio: wrk's average
    latency (ms) by round, judged only at the document's load (wrk's duration read from `duration`),
    `why` and `how` to judge it otherwise."""
    options = {
        "detail": {"servidor": server},
        "incomparable": at_document_load(duration, how, "esta proporción", why),
    }
    native = arm(*BASELINE, server, "latencia_media")
    if engine == "docker":
        return Ratio(arm("docker", "puerto", server, "latencia_media"), native, **options)
    in_path = lambda variant, detail: Ratio(
        arm("kubernetes", variant, server, "latencia_media"), native, detail=detail, optional=True
    )
    words = "la latencia media de {} / sin contenedor"
    return Custom(on_kubernetes_paths(in_path, words, server=lambda df: server), **options)


SAID = declared.read(__package__, globals()).said


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
    note = {"docker_pierde_66": conditions, "causa_seguridad": security_setup}.get(said.key)
    if (server := main_server(df)) is None or note is None:
        return said
    return said.but(quantity=f"{said.quantity} ({servers.SERVERS[server].label})", note=note(meta))


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The document's claims, each decided by the one verdict rule or «no comparable» with the reason."""
    return judge_all(SAID, df, meta, adapt=as_run)
