"""HTTP load with wrk (the tool of the original benchmark), aimed only at loopback.

SAFETY: the only way to get a load target is `target_url(port, published)`, which builds
`http://127.0.0.1:PORT/` for a port the experiment itself published on 127.0.0.1, and refuses
anything else. `run()` accepts only a `Target` built by it and checks its address again right
before starting wrk. Every load run is bounded by wrk's `-d` plus a hard timeout.
"""

from __future__ import annotations

import ipaddress
import re
import resource
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ...errors import ErrorDelCurso, ParametroInvalido

LOOPBACK = "127.0.0.1"
# wrk exits by itself after -d; this is only a guard against a stuck process.
TIMEOUT_MARGIN_S = 15.0


# ------------------------------------------------------------------ the one way to build a target
@dataclass(frozen=True)
class Target:
    """A load target that passed `target_url`: loopback address, a port the experiment published."""

    url: str
    port: int


def target_url(port, published: Collection[int], host: str = LOOPBACK) -> Target:
    """The wrk target for `port`. Refuses any host other than 127.0.0.1 (no bridge or container
    address, no name to resolve) and any port the experiment did not publish on 127.0.0.1."""
    if host != LOOPBACK:
        raise ErrorDelCurso(
            f"Por seguridad, la carga solo se dirige a {LOOPBACK}; rechazo la dirección {host!r}."
        )
    if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
        raise ErrorDelCurso(f"Puerto de carga inválido: {port!r}.")
    if port not in set(published):
        raise ErrorDelCurso(
            f"Por seguridad, la carga solo va a puertos que el experimento publicó en {LOOPBACK}; "
            f"el puerto {port} no es uno de ellos."
        )
    return Target(url=f"http://{LOOPBACK}:{port}/", port=port)


def _check_target(target) -> str:
    """Last check before traffic: the URL must be exactly what target_url builds."""
    if not isinstance(target, Target):
        raise ErrorDelCurso("La carga solo acepta un objetivo construido por target_url().")
    parts = urlsplit(target.url)
    try:
        address = ipaddress.ip_address(parts.hostname or "")
    except ValueError:
        address = None
    if (
        parts.scheme != "http"
        or address is None
        or str(address) != LOOPBACK
        or parts.port != target.port
        or target.url != f"http://{LOOPBACK}:{target.port}/"
    ):
        raise ErrorDelCurso(f"Por seguridad, rechazo el objetivo de carga {target.url!r}.")
    return target.url


# ------------------------------------------------------------------ ports
def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def free_port(preferred: int | None = None, exclude: Collection[int] = ()) -> int:
    """`preferred` if it is free on 127.0.0.1, otherwise a free port the kernel picks."""
    if preferred and preferred not in exclude and port_is_free(preferred):
        return preferred
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((LOOPBACK, 0))
            port = sock.getsockname()[1]
        if port not in exclude:
            return port
    raise ErrorDelCurso("No encontré un puerto libre en 127.0.0.1.")


def wait_ready(
    target: Target, timeout: float = 8.0, expect: str | None = None, alive: Callable[[], bool] | None = None
) -> tuple[bool, str]:
    """Poll GET / until the server answers 200 (and `expect` is in the body). (ok, Spanish reason)."""
    url = _check_target(target)
    deadline = time.monotonic() + timeout
    last = "sin respuesta"
    while time.monotonic() < deadline:
        if alive is not None and not alive():
            return False, "el servidor terminó antes de responder"
        try:
            with urllib.request.urlopen(url, timeout=1.0) as response:  # noqa: S310 - loopback only
                body = response.read(4096).decode("utf-8", "replace")
                if response.status == 200 and (expect is None or expect in body):
                    return True, ""
                last = f"respondió {response.status}"
        except (urllib.error.URLError, OSError) as exc:
            last = type(exc).__name__
        time.sleep(0.1)
    return False, f"no respondió en {timeout:.0f} s en {url} ({last})"


# ------------------------------------------------------------------ running wrk
def available() -> tuple[bool, str | None]:
    if shutil.which("wrk"):
        return True, None
    return False, "wrk no está instalado (paquete Debian «wrk»; lo instala «make setup»)."


def check_load(threads: int, connections: int) -> None:
    """wrk's own rule on its parameters (their limits are declared once, in the experiment's Config)."""
    if connections < threads:
        raise ParametroInvalido(
            f"CONEXIONES ({connections}) debe ser al menos HILOS ({threads}): wrk reparte las conexiones "
            "entre los hilos."
        )


def argv(
    target: Target,
    threads: int,
    connections: int,
    duration_s: int,
    cpus: str | None = None,
    timeout_s: int = 2,
) -> list[str]:
    url = _check_target(target)
    cmd = [
        "wrk",
        "-t",
        str(threads),
        "-c",
        str(connections),
        "-d",
        f"{duration_s}s",
        "--latency",
        "--timeout",
        f"{timeout_s}s",
        url,
    ]
    if cpus is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", cpus] + cmd
    return cmd


@dataclass
class WrkRun:
    stats: dict
    output: str
    pid: int
    cpu_s: float = 0.0
    extra: dict = field(default_factory=dict)


def run(
    target: Target,
    threads: int,
    connections: int,
    duration_s: int,
    *,
    cpus: str | None = None,
    during: Callable[[int], None] | None = None,
) -> WrkRun:
    """Run wrk once against a loopback target and parse it. `during(pid)` is called right after wrk
    starts (to sample other processes' CPU). wrk's own CPU time comes from its rusage."""
    cmd = argv(target, threads, connections, duration_s, cpus)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if during is not None:
            during(proc.pid)
        out, err = proc.communicate(timeout=duration_s + TIMEOUT_MARGIN_S)
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise ErrorDelCurso(f"wrk falló ({proc.returncode}): {(err or out).strip()[-300:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return WrkRun(stats=parse(out), output=out, pid=proc.pid, cpu_s=cpu)


# ------------------------------------------------------------------ parsing wrk's text
_TIME_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}
_COUNT_UNITS = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_SIZE_UNITS = {"B": 1e-6, "KB": 1e-3, "MB": 1.0, "GB": 1e3, "TB": 1e6}
_NUM = r"([0-9]+(?:\.[0-9]+)?)"


def _scaled(text: str, units: dict[str, float], what: str) -> float:
    """A number with one of `units` right after it, scaled by that unit's factor."""
    m = re.fullmatch(_NUM + "(" + "|".join(map(re.escape, units)) + ")", text)
    if not m:
        raise ValueError(f"{what} de wrk no reconocido: {text!r}")
    return float(m.group(1)) * units[m.group(2)]


def _time_ms(text: str) -> float:
    return _scaled(text, _TIME_UNITS, "tiempo")


def _count(text: str) -> float:
    return _scaled(text, _COUNT_UNITS, "número")


def _size_mb(text: str) -> float:
    return _scaled(text, _SIZE_UNITS, "tamaño")


def parse(text: str) -> dict:
    """wrk's report as numbers: req_s (total), req_s_hilo (per-thread Req/Sec average, the figure the
    original table reported as "Requests/s"), its stdev/max, latency mean/stdev/max and percentiles
    (ms), requests, duration (s), MB read, socket errors, non-2xx/3xx responses, threads, connections."""
    out: dict[str, float] = {}
    m = re.search(r"(\d+) threads and (\d+) connections", text)
    if m:
        out["hilos"], out["conexiones"] = float(m.group(1)), float(m.group(2))
    m = re.search(r"^\s*Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+%", text, re.M)
    if m:
        out["latencia_media"], out["latencia_desv"], out["latencia_max"] = (_time_ms(g) for g in m.groups())
    m = re.search(r"^\s*Req/Sec\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+%", text, re.M)
    if m:
        out["req_s_hilo"], out["req_s_hilo_desv"], out["req_s_hilo_max"] = (_count(g) for g in m.groups())
    for pct, value in re.findall(r"^\s*(50|75|90|99)%\s+(\S+)\s*$", text, re.M):
        out[f"latencia_p{pct}"] = _time_ms(value)
    m = re.search(r"(\d+) requests in (\S+), (\S+) read", text)
    if not m:
        raise ValueError("la salida de wrk no trae la línea «N requests in …»")
    out["peticiones"] = float(m.group(1))
    out["duracion"] = _time_ms(m.group(2)) / 1e3
    out["leido"] = _size_mb(m.group(3))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    errors = [float(g) for g in m.groups()] if m else [0.0, 0.0, 0.0, 0.0]
    for name, value in zip(("connect", "read", "write", "timeout"), errors):
        out[f"errores_{name}"] = value
    out["errores_socket"] = sum(errors)
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out["respuestas_no_2xx"] = float(m.group(1)) if m else 0.0
    m = re.search(r"Requests/sec:\s+" + _NUM, text)
    if not m:
        raise ValueError("la salida de wrk no trae «Requests/sec»")
    out["req_s"] = float(m.group(1))
    return out


UNITS = {
    "req_s": "req/s",
    "req_s_hilo": "req/s",
    "req_s_hilo_desv": "req/s",
    "req_s_hilo_max": "req/s",
    "latencia_media": "ms",
    "latencia_desv": "ms",
    "latencia_max": "ms",
    "latencia_p50": "ms",
    "latencia_p75": "ms",
    "latencia_p90": "ms",
    "latencia_p99": "ms",
    "peticiones": "peticiones",
    "duracion": "s",
    "leido": "MB",
    "errores_connect": "errores",
    "errores_read": "errores",
    "errores_write": "errores",
    "errores_timeout": "errores",
    "errores_socket": "errores",
    "respuestas_no_2xx": "respuestas",
    "hilos": "hilos",
    "conexiones": "conexiones",
}
