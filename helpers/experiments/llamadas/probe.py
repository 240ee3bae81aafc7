"""The probe of experiment 5 (`probes/llamadas.c`): its arguments, its output and one run of it.

One static binary runs a tight loop of one operation N times, pinned to one CPU, and prints one line per
operation: ns per call by the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) and by the wall clock, and how
many PID namespaces it sees itself in (NSpid in /proc/self/status). The same binary runs in every arm; it
times its own loop, so nothing outside the loop (`exec`, `unshare`) is in the figure.
"""

from __future__ import annotations

import re

from ... import engines as eng
from ... import probes
from ...errors import ComandoFallido

PROBE = "llamadas"
PROBE_IN_CONTAINER = probes.in_container(PROBE)
OPERATIONS = ("getpid", "clock_gettime", "read", "open_close", "stat")
OPERATION_LABEL = {
    "getpid": "getpid (syscall directa)",
    "clock_gettime": "clock_gettime (vDSO, sin entrar al kernel)",
    "read": "read de 1 byte de /dev/zero",
    "open_close": "open + close",
    "stat": "stat",
}
MAX_CALLS = 50_000_000
UNIT = "ns"
WALL_SUFFIX = ":pared"  # "<op>:pared": wall-clock ns per call (CLOCK_MONOTONIC, the clock the seed read)
LEVELS_METRIC = "niveles_pid"  # how many PID namespaces the probe saw itself in
PROBE_LINE = re.compile(
    r"^llamadas operacion=(\S+) n=(\d+) cpu=(-?\d+) ns_total=(\d+) "
    r"ns_por_llamada=([\d.]+) ns_cpu_por_llamada=([\d.]+) pid=(\d+) niveles_pid=(-?\d+)\s*$",
    re.MULTILINE,
)


def probe_args(operations, calls: int, cpu: int | None, cap_ms: int) -> list[str]:
    """The probe's arguments (without the program): operations, calls, CPU (-1: not pinned), time cap."""
    return [",".join(operations), str(calls), str(-1 if cpu is None else cpu), str(cap_ms)]


def parse_probe(stdout: str) -> dict[str, dict]:
    """{operation: {ns_cpu, ns_pared, n, cpu, niveles_pid}} from the probe's lines; other lines are ignored."""
    out = {}
    for op, n, cpu, _total, wall, cpu_ns, _pid, levels in PROBE_LINE.findall(stdout or ""):
        out[op] = {
            "ns_cpu": float(cpu_ns),
            "ns_pared": float(wall),
            "n": int(n),
            "cpu": int(cpu),
            "niveles_pid": int(levels),
        }
    return out


def run_probe(argv: list[str], engine_name: str, operations, *, timeout: float = 600) -> dict[str, dict]:
    """Run the probe once (outside any host-side timer: the probe times its own loop)."""
    result = eng.get_engine(engine_name).call(argv, timeout=timeout)
    found = parse_probe(result.stdout)
    missing = [op for op in operations if op not in found]
    if result.returncode != 0 or missing:
        detail = (result.stderr or result.stdout or "").strip()[-300:] or "(sin mensaje)"
        raise ComandoFallido(
            f"La sonda «llamadas» falló en «{' '.join(argv)[:160]}» (código {result.returncode}): {detail}"
        )
    return found
