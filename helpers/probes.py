"""The course's probes: small static C programs in probes/, built once into probes/bin/.

One place locates them, builds them (`make -C probes`, also called by `make setup`) and parses what
they print. PROBES_DIR is defined in helpers.paths.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from .errors import ComandoFallido, ErrorDelCurso
from .paths import PROBES_DIR

BIN_DIR = PROBES_DIR / "bin"
IN_CONTAINER_DIR = "/opt/curso"  # where experiments mount a probe read-only inside a container

# «cronometro ns=… estado=… cpu_ns=…», then with --pico the memory it saw: «pico_kb=… mmap_kb=… …»
_CRONOMETRO_LINE = re.compile(r"^cronometro ns=(\d+) estado=(-?\d+)((?: [a-z_]+=-?\d+)*)\s*$", re.MULTILINE)
CRONOMETRO_PEAK = ("pico_kb", "mmap_kb", "mmap_rss_kb", "heap_kb")  # what `cronometro --pico` adds, in kB


def path(name: str) -> Path:
    return BIN_DIR / name


def in_container(name: str) -> str:
    return f"{IN_CONTAINER_DIR}/{name}"


# What happens to a probe not built yet: nobody has to build it by hand.
BUILT_ON_USE = "el primer cuaderno que la usa la compila sola (también `make setup`)"


def cannot_build(directory: Path = PROBES_DIR) -> str:
    """Why the probes cannot be built here (Spanish), or "" when they can."""
    if not (Path(directory) / "Makefile").exists():
        return "no está probes/Makefile."
    if not (shutil.which("make") and shutil.which("cc")):
        return "no hay compilador de C (instala los paquetes «gcc» y «make»)."
    return ""


def build(log: Callable[[str], None] = print) -> tuple[bool, str]:
    """`make -s -C probes`: (ok, Spanish message)."""
    why = cannot_build()
    if why:
        return False, why
    result = subprocess.run(["make", "-s", "-C", str(PROBES_DIR)], capture_output=True, text=True)
    if result.returncode != 0:
        return False, f"la compilación falló: {result.stderr.strip()[-300:]}"
    return True, "sondas compiladas en probes/bin/"


def ensure(name: str, log: Callable[[str], None] = print) -> Path:
    """probes/bin/<name>, built now if needed (missing, or older than its source: a probe that gained an
    option since it was built); ErrorDelCurso (Spanish) if it cannot be built."""
    target = path(name)
    source = PROBES_DIR / f"{name}.c"
    stale = target.exists() and source.exists() and source.stat().st_mtime > target.stat().st_mtime
    if not target.exists() or stale:
        log(f"Compilando la sonda «{name}» (make -C probes)…")
        ok, message = build(log)
        if not ok and not target.exists():
            raise ErrorDelCurso(
                f"Falta la sonda probes/bin/{name} y no se pudo compilar: {message} Cuando se pueda, "
                "el cuaderno la compila solo al volver a ejecutarlo."
            )
    if not target.exists():
        raise ErrorDelCurso(f"Falta la sonda probes/bin/{name}: la compilación no la dejó en probes/bin/.")
    return target


def parse_cronometro(stderr: str) -> tuple[int, int]:
    """(elapsed_ns, exit status) from `cronometro`'s last report line; other lines are ignored."""
    found = _CRONOMETRO_LINE.findall(stderr or "")
    if not found:
        tail = (stderr or "").strip()[-300:] or "(nada)"
        raise ComandoFallido(
            f"La sonda «cronometro» no informó el tiempo del trabajo. Salida de error: {tail}"
        )
    ns, code, _ = found[-1]
    return int(ns), int(code)


def parse_cronometro_cpu(stderr: str) -> int | None:
    """The CPU time (user + system, ns) the command and the descendants it waited for used, from
    `cronometro`'s last report line; None from a line without it (a probe built before it had it, or a
    kernel that would not say)."""
    found = _CRONOMETRO_LINE.findall(stderr or "")
    if not found:
        raise ComandoFallido(
            "La sonda «cronometro» no informó el tiempo del trabajo. Salida de error: "
            f"{(stderr or '').strip()[-300:] or '(nada)'}"
        )
    fields = dict(pair.split("=") for pair in found[-1][2].split())
    cpu = int(fields.get("cpu_ns", -1))
    return cpu if cpu >= 0 else None


def parse_cronometro_peak(stderr: str) -> dict[str, int]:
    """What `cronometro --pico NOMBRE` saw of the processes called NOMBRE, from its last report line
    (CRONOMETRO_PEAK, in kB): only the fields it read (a field at −1 was never read: no such process
    lived long enough to be seen); {} from a line without them."""
    found = _CRONOMETRO_LINE.findall(stderr or "")
    if not found:
        return {}
    fields = dict(pair.split("=") for pair in found[-1][2].split())
    return {k: int(fields[k]) for k in CRONOMETRO_PEAK if k in fields and int(fields[k]) >= 0}
