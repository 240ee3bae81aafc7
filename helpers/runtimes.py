"""OCI runtimes beyond the engines' default: gVisor's `runsc` (a kernel in user space).

`runsc` is built once by `make setup` (the system-call experiment's provision step) into
CACHE_DIR/bin/runsc. Docker uses it only when its daemon lists it (a daemon the course starts is
started with `--add-runtime runsc=<that path>`); Podman takes the path with `--runtime`.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from .engines import CACHE_DIR

BIN_DIR = CACHE_DIR / "bin"
RUNSC = BIN_DIR / "runsc"


def runsc_path() -> Path | None:
    """The course's runsc, or one on PATH; None if there is none."""
    if RUNSC.is_file() and os.access(RUNSC, os.X_OK):
        return RUNSC
    found = shutil.which("runsc")
    return Path(found) if found else None


def runsc_availability() -> tuple[bool, str | None]:
    if runsc_path() is None:
        return False, ("gVisor (runsc) no está instalado: «make setup» lo compila desde su módulo de Go "
                       "si hay un Go reciente.")
    if os.geteuid() != 0:
        return False, "gVisor (runsc) necesita privilegios de root en este curso."
    return True, None


def dockerd_args() -> list[str]:
    """Flags for a dockerd the course starts itself: register runsc at its fixed path (the binary may
    appear later; the daemon only looks for it when a container uses it)."""
    return ["--add-runtime", f"runsc={RUNSC}"]
