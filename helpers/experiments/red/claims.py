"""The claims of «Container Performance Testing» on HTTP in containers, declared once and judged by the
builders of the verdict module, on the main server of the run (net/http if present):

- docker_pierde_66: Docker -p loses about 66 % of native's requests per second;
- causa_seguridad: the loss is Docker's «security processing». The same container with --network host
  keeps every security layer (namespaces, seccomp, cgroups) and drops only the proxy: if the claim held,
  host / -p would be 1;
- gin_igual_nethttp: gin and net/http serve about the same natively;
- columna_por_hilo: the table's «Requests/s» column (wrk's per-thread Req/Sec) read as the server's
  throughput predicts total / per-thread = 1.
"""

from __future__ import annotations

import pandas as pd

from ... import measure
from ..verdict import Claim, Said, estimate, median, missing, ratio
from . import servers
from .analysis import BASELINE, arm_values, loss_pct, main_server, per_rep_ratio

SOURCE = "Container Performance Testing"
RESULTS = "tabla «Results»"
APPENDIX_PER_THREAD = 8780.0  # net/http natively: the per-thread Req/Sec the table copied (8.78k)
APPENDIX_TOTAL = 104418.14  # and wrk's total Requests/sec in the appendix, with 12 threads

DOCKER_LOSS = Said(
    "docker_pierde_66",
    "Docker pierde alrededor del 66 % del rendimiento HTTP frente a la ejecución nativa.",
    SOURCE,
    where=RESULTS,
    claimed=66.0,
    region=(61.0, 71.0),
    quantity="la pérdida de peticiones por segundo de Docker -p frente a nativo",
    unit="%",
)
SECURITY_CAUSE = Said(
    "causa_seguridad",
    "El autor no sabe por qué, pero ha oído que Docker aplica mucho procesamiento de seguridad además "
    "de reenviar las peticiones, y que apagarlo o ajustarlo mejoraría el rendimiento.",
    SOURCE,
    where="«Conclusion»",
    claimed=1.0,
    region=(0.9, 1.1),
    quantity="Docker `--network host` / Docker `-p`",
    unit="x",
    note="El contenedor con `--network host` conserva namespaces, seccomp y cgroups y solo se salta "
    "docker-proxy: si la pérdida fuera la seguridad, esa proporción daría 1.",
)
GIN_NETHTTP = Said(
    "gin_igual_nethttp",
    "net/http y gin rinden casi igual: 8,78k y 9,01k peticiones por segundo sin contenedor.",
    SOURCE,
    where=RESULTS,
    claimed=1.0,
    region=(0.9, 1.1),
    quantity="la proporción gin / net/http, sin contenedor",
    unit="x",
)
PER_THREAD = Said(
    "columna_por_hilo",
    "Sin contenedor, net/http atiende 8,78k peticiones por segundo (columna Requests/s de la tabla).",
    SOURCE,
    where=RESULTS,
    claimed=1.0,
    region=(0.9, 1.1),
    quantity="el total de wrk / su Req/Sec por hilo, sin contenedor",
    unit="x",
    note="En el apéndice del documento, con 12 hilos, el total es "
    f"{APPENDIX_TOTAL / APPENDIX_PER_THREAD:.1f} veces la cifra por hilo.",
)
PER_THREAD_ONE_THREAD = PER_THREAD.but(
    note="Con `HILOS = 1` el total y la cifra por hilo son el mismo número: usa 2 o más hilos."
)
CLAIMS = (DOCKER_LOSS, SECURITY_CAUSE, GIN_NETHTTP, PER_THREAD)


def _on(said: Said, server: str) -> Said:
    """The declaration with the server it was measured on named in its quantity."""
    return said.but(quantity=f"{said.quantity} ({servers.SERVERS[server].label})")


def docker_loss(df: pd.DataFrame, server: str) -> Claim:
    """Docker -p against native, as the loss the source wrote (%), with the ratio's bootstrap IC."""
    native = arm_values(df, "req_s", *BASELINE, server)
    docker_p = arm_values(df, "req_s", "docker", "puerto", server)
    said, detail = _on(DOCKER_LOSS, server), {"servidor": server}
    if not (native.size and docker_p.size):
        return missing(said, detail)
    value, low, high = loss_pct(docker_p, native)
    shaky = measure.unstable(docker_p) or measure.unstable(native)
    return estimate(said, value, low, high, n=min(native.size, docker_p.size), unstable=shaky, detail=detail)


def per_thread(df: pd.DataFrame, meta: dict | None, server: str) -> Claim:
    """Total / per-thread req/s natively, repetition by repetition; with one wrk thread they coincide."""
    threads = ((meta or {}).get("parameters") or {}).get("hilos")
    detail = {"servidor": server, "hilos": threads}
    if threads == 1:
        return missing(_on(PER_THREAD_ONE_THREAD, server), detail)
    ratios = per_rep_ratio(df, "req_s", "req_s_hilo", *BASELINE, server)
    return median(_on(PER_THREAD, server), ratios, detail=detail)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The four claims, each decided by the one verdict rule."""
    server = main_server(df)
    if server is None:
        return [missing(said) for said in CLAIMS]
    where = {"servidor": server}
    return [
        docker_loss(df, server),
        ratio(
            _on(SECURITY_CAUSE, server),
            arm_values(df, "req_s", "docker", "host", server),
            arm_values(df, "req_s", "docker", "puerto", server),
            detail=where,
        ),
        ratio(
            GIN_NETHTTP,
            arm_values(df, "req_s", *BASELINE, "gin"),
            arm_values(df, "req_s", *BASELINE, "nethttp"),
        ),
        per_thread(df, meta, server),
    ]
