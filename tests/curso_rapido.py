"""One quick headless run of the whole course per test session, shared by the course tests
(tests/course/) and every notebook test of an experiment (tests/experiments/<name>/test_notebook.py),
which read its pages instead of executing a notebook a second time."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from helpers import PROJECT_ROOT


@dataclass
class CourseRun:
    build: Path
    results: Path
    returncode: int
    output: str
    seconds: float


@functools.cache
def quick_course() -> CourseRun:
    """`python -m helpers.course --rapido` into a temporary build/ with its own CURSO_RESULTADOS."""
    base = Path(tempfile.mkdtemp(prefix="curso-rapido-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    build, res = base / "build", base / "results"
    env = dict(os.environ, CURSO_RESULTADOS=str(res), PYTHONUNBUFFERED="1")
    env.pop("CURSO_SIN_INTERFAZ", None)  # the runner must set it for its kernels by itself
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "helpers.course", "--rapido", "--salida", str(build)],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    return CourseRun(build, res, proc.returncode, proc.stdout + proc.stderr, time.monotonic() - start)
