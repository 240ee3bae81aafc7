"""A course run in the guest: build the guest (build), prepare the images layer (capa), boot it once
(boot), keep the run folder in the cache; one run at a time on a machine."""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

from . import GUEST_DIR, RUNS_DIR, capa, label
from . import build as guest_build
from .boot import DEFAULT_TIMEOUT, GuestRun, Log, acceleration, boot_and_run, copy_out


def run_guest(log: Log = print, *, timeout: float = DEFAULT_TIMEOUT, keep: int = 5) -> GuestRun:
    """Build (once) and boot the guest; returns the run with its folder under RUNS_DIR. One guest at a
    time on a machine (a lock in the cache): a second caller waits for the first."""
    GUEST_DIR.mkdir(parents=True, exist_ok=True)
    with open(GUEST_DIR / "uso.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log("Otra corrida del huésped está en marcha en esta máquina: espero a que termine…")
            fcntl.flock(lock, fcntl.LOCK_EX)
        # What a killed run (SIGKILL) could not remove: its instance and build folders.
        for stale in [*GUEST_DIR.glob("instancia-*"), *GUEST_DIR.glob("construccion-*")]:
            shutil.rmtree(stale, ignore_errors=True)
        capa.PARTIAL.unlink(missing_ok=True)
        return _run_locked(log, timeout, keep)


def _run_locked(log: Log, timeout: float, keep: int) -> GuestRun:
    started = _dt.datetime.now(_dt.timezone.utc)
    guest, build_seconds = guest_build.ensure(log)
    accel, why = acceleration()
    log(f"Aceleración: {accel.upper()} ({why})")
    layer = capa.ensure(guest, accel, log, timeout)
    folder = RUNS_DIR / f"{started:%Y%m%dT%H%M%SZ}-{os.getpid()}"
    result = GuestRun(str(folder), accel, why, label(accel), build_seconds, started=started.isoformat())
    result.images_layer = layer
    GUEST_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=GUEST_DIR, prefix="instancia-") as tmp:
        work = Path(tmp)
        try:
            boot_and_run(guest, work, accel, result, log, timeout, backing=capa.LAYER)
            copy_out(work / "io.raw", work / "copia")
            shutil.move(work / "copia" / "salida", folder)
            # How the images this run found were imported (once, by the boot that prepared the layer).
            shutil.copytree(
                capa.LAYER_LOGS,
                folder / "hechos" / "imagenes-preparadas",
                ignore=shutil.ignore_patterns("journal.txt"),
            )
        finally:
            folder.mkdir(parents=True, exist_ok=True)
            if (work / "consola.log").exists():
                shutil.copy2(work / "consola.log", folder / "consola.log")
            (folder / "resumen.json").write_text(json.dumps(asdict(result), indent=2, ensure_ascii=False))
    prune(keep)
    return result


def prune(keep: int) -> None:
    """Keep the last `keep` runs in the cache."""
    runs = sorted(p for p in RUNS_DIR.glob("*") if p.is_dir())
    for old in runs[:-keep]:
        shutil.rmtree(old, ignore_errors=True)


def load(folder: Path) -> GuestRun:
    data = json.loads((Path(folder) / "resumen.json").read_text())
    return GuestRun(**data)


def latest() -> GuestRun | None:
    runs = sorted(p for p in RUNS_DIR.glob("*") if (p / "resumen.json").is_file())
    return load(runs[-1]) if runs else None
