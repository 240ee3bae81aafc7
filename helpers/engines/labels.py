"""The labels every course container carries (built here and nowhere else), and who owns a container.

A container's labels say which run made it and who owns that run (process, its start time, this boot,
the run folder), so a later run can tell a live run's container from an orphan.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import psutil

LABEL = "curso-contenedores"
LABEL_RUN = "curso-contenedores.run"
LABEL_PID = "curso-contenedores.pid"  # the process that owns the run (a kernel, a terminal)
LABEL_PID_START = "curso-contenedores.inicio"  # its start time: a reused pid is not the owner
LABEL_BOOT = "curso-contenedores.arranque"  # this boot: after a reboot no owner is alive
LABEL_DIR = "curso-contenedores.dir"  # the run folder: its meta.json says if the run still runs
_RUN_DIRS: dict[str, str] = {}


def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "desconocido"


def start_time(pid: int) -> str | None:
    try:
        return f"{psutil.Process(pid).create_time():.2f}"
    except psutil.Error:
        return None


def register_run(run_id: str, run_dir: Path | str) -> None:
    """Remember where a run lives, so its containers carry the folder in a label."""
    _RUN_DIRS[run_id] = str(run_dir)


def labels_for(run_id: str | None) -> dict[str, str]:
    """Every label a course container carries (built here and nowhere else): the course mark, the run,
    and who owns it (process, its start time, this boot, the run folder), so that a later run can tell
    a live run's container from an orphan."""
    labels = {LABEL: "1"}
    if run_id:
        labels[LABEL_RUN] = run_id
    labels[LABEL_PID] = str(os.getpid())
    labels[LABEL_PID_START] = start_time(os.getpid()) or ""
    labels[LABEL_BOOT] = boot_id()
    if run_id and run_id in _RUN_DIRS:
        labels[LABEL_DIR] = _RUN_DIRS[run_id]
    return labels


def orphan_reason(
    labels: dict, *, created: float | None = None, now: float | None = None, legacy_age: float = 6 * 3600
) -> str | None:
    """Why a course container is an orphan (Spanish), or None if its run may still be alive.

    Orphan: made in another boot; its owner process is gone (or the pid now belongs to another
    process); or its run has ended (meta.json no longer says "running") while the owner lives on, as
    when the engine died mid-run and came back. A container from before owner labels existed counts
    as an orphan only when it is older than `legacy_age`."""
    if LABEL_PID not in labels:
        if created is not None and (now or time.time()) - created > legacy_age:
            return "es de una versión anterior del curso y tiene más de 6 horas"
        return None
    if labels.get(LABEL_BOOT) and labels[LABEL_BOOT] != boot_id():
        return "se creó antes del último arranque de la máquina"
    pid = int(labels.get(LABEL_PID) or 0)
    started = start_time(pid) if pid > 0 else None
    if started is None or (labels.get(LABEL_PID_START) and started != labels[LABEL_PID_START]):
        return f"su proceso dueño (pid {pid}) ya no existe"
    run_dir = labels.get(LABEL_DIR)
    if run_dir:
        try:
            status = json.loads((Path(run_dir) / "meta.json").read_text()).get("status")
        except (OSError, ValueError):
            status = None
        if status not in (None, "running"):
            return f"su corrida ya terminó (estado «{status}»)"
    return None


def label_args(run_id: str | None) -> list[str]:
    args: list[str] = []
    for key, value in labels_for(run_id).items():
        args += ["--label", f"{key}={value}"]
    return args
