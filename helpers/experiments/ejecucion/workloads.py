"""Experiment 3's workloads: what runs, how its command line is built in each environment, how it is timed.

Every workload runs under the probe `probes/bin/cronometro`, which times the work from inside its
environment, so each measurement gives two rows: `extremo_a_extremo` (the whole command as a student
types it, timed from the host) and `trabajo` (the work alone, as the probe reports it).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ... import engines as eng
from ... import measure, probes
from ...errors import ComandoFallido

if TYPE_CHECKING:
    from . import Config

WORKLOADS = ("hash", "sort", "archivos", "escritura")
CPU_WORKLOADS = ("hash", "sort", "archivos")  # the ones that also run under chroot
PLACES = ("capa", "volumen", "host")
EXEC_TRUE = "exec_true"
METRIC_E2E = "extremo_a_extremo"
METRIC_WORK = "trabajo"
# Spanish names, for every table that shows them (the views and the closing table).
WORKLOAD_NAMES = {
    EXEC_TRUE: "exec true",
    "hash": "hash (SHA-256)",
    "sort": "sort (1 M enteros)",
    "archivos": "archivos pequeños",
    "escritura": "escritura con fsync",
}
PLACE_NAMES = {
    "": "",
    "capa": "capa del contenedor (overlay)",
    "volumen": "volumen (-v)",
    "host": "disco del host",
}
# What an overhead is measured against, worded to follow «frente a».
BASE_NAMES = {
    "bare": "los binarios del host",
    "chroot": "un chroot con la misma imagen",
    "host": "bare metal escribiendo en el disco del host",
}

PROBE = probes.path("cronometro")
PROBE_IN_CONTAINER = probes.in_container("cronometro")
VOLUME_IN_CONTAINER = "/datos"
SCRATCH_IN_CONTAINER = "/tmp"  # on the container's writable (overlay) layer


def workload_script(workload: str, *, directory: str = "/tmp", size_mb: int = 100, files: int = 2000) -> str:
    """The shell command of a workload; POSIX sh, so dash, bash and busybox all run it."""
    if workload == "hash":
        return f"dd if=/dev/urandom bs=1M count={size_mb} 2>/dev/null | sha256sum > /dev/null"
    if workload == "sort":
        return "seq 1 1000000 | shuf | sort -n > /dev/null"
    if workload == "archivos":
        return (
            f'd={directory}/curso-archivos.$$; mkdir -p "$d"; i=0; '
            f'while [ $i -lt {files} ]; do echo $i > "$d/f$i"; i=$((i+1)); done; '
            'ls -ln "$d" > /dev/null; rm -r "$d"'
        )
    if workload == "escritura":
        return (
            f"dd if=/dev/zero of={directory}/curso-escritura.bin bs=1M count={size_mb} conv=fsync 2>/dev/null"
        )
    raise KeyError(workload)


@dataclass(frozen=True)
class Arm:
    workload: str  # hash, sort, archivos, escritura, exec_true
    place: str  # escritura only: capa / volumen / host
    env: str  # bare, chroot, docker, podman
    image: str = ""  # real image name ("" = the host's binaries)

    @property
    def engine(self) -> str:
        return "bare" if self.env in ("bare", "chroot") else self.env

    @property
    def variant(self) -> str:
        return f"{self.workload}:{self.place}" if self.place else self.workload

    @property
    def label(self) -> str:
        return f"{self.variant} en {self.env}"


def plan(
    cfg: Config, engines_ok: list[str], image_names: dict[str, str], chroot_image: str | None
) -> list[Arm]:
    """Every arm of the run. exec_true first, then each workload: bare, chroot, engines."""
    containers = [e for e in engines_ok if e != "bare"]
    arms = [Arm(EXEC_TRUE, "", "bare")] + [Arm(EXEC_TRUE, "", e, image_names[e]) for e in containers]
    for workload in cfg.cargas:
        if workload == "escritura":
            arms.append(Arm(workload, "host", "bare"))
            for e in containers:
                arms += [
                    Arm(workload, "capa", e, image_names[e]),
                    Arm(workload, "volumen", e, image_names[e]),
                ]
            continue
        arms.append(Arm(workload, "", "bare"))
        if chroot_image:
            arms.append(Arm(workload, "", "chroot", chroot_image))
        arms += [Arm(workload, "", e, image_names[e]) for e in containers]
    return arms


def _dir_for(arm: Arm, host_dirs: dict[str, str]) -> str:
    if arm.workload == "escritura":
        return {"host": host_dirs["escritura"], "capa": SCRATCH_IN_CONTAINER, "volumen": VOLUME_IN_CONTAINER}[
            arm.place
        ]
    if arm.workload == "archivos" and arm.env == "bare":
        return host_dirs["archivos"]
    return "/tmp"  # chroot: the exported rootfs's /tmp; containers: the writable layer


def argv_for(
    arm: Arm, cfg: Config, *, containers: dict[str, str], rootfs: Path | None, host_dirs: dict[str, str]
) -> list[str]:
    if arm.workload == EXEC_TRUE:
        return (
            ["true"]
            if arm.env == "bare"
            else eng.get_engine(arm.env).exec_argv(containers[arm.env], ["true"])
        )
    script = workload_script(
        arm.workload, directory=_dir_for(arm, host_dirs), size_mb=cfg.tamano_mb, files=cfg.archivos
    )
    if arm.env == "bare":
        return [str(PROBE), "sh", "-c", script]
    if arm.env == "chroot":
        return [str(PROBE), "--root", str(rootfs), "sh", "-c", script]
    return eng.get_engine(arm.env).exec_argv(containers[arm.env], [PROBE_IN_CONTAINER, "sh", "-c", script])


@contextlib.contextmanager
def pinned(cpu: int | None):
    """Pin this thread (and so the processes it spawns) to one CPU, like `taskset -c CPU`."""
    if cpu is None:
        yield
        return
    previous = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, previous)


def measure_arm(argv: list[str], env: dict, *, probe: bool = True) -> tuple[float, float | None]:
    """(end-to-end seconds, work-alone seconds or None). Raises ComandoFallido on failure."""
    elapsed, code, stderr = measure.spawn_and_wait(argv, env, keep_stderr=True)
    if code != 0:
        raise ComandoFallido(
            f"El comando «{' '.join(argv)[:200]}» terminó con código {code}: "
            f"{stderr[-400:] or '(sin mensaje)'}"
        )
    if not probe:
        return elapsed / 1e9, None
    work_ns, status = probes.parse_cronometro(stderr)
    if status != 0:
        raise ComandoFallido(f"La carga terminó con código {status} dentro de «{' '.join(argv)[:200]}».")
    return elapsed / 1e9, work_ns / 1e9
