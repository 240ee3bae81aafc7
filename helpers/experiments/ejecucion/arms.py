"""Experiment 3's arms: what runs (a workload, where it writes, in which environment), its command
line in each environment, and how one repetition is timed.

Every workload runs under the probe `probes/bin/cronometro`, which times the work from inside its
environment, so each measurement gives two rows: `extremo_a_extremo` (the whole command as a student
types it, timed from the host) and `trabajo` (the work alone, as the probe reports it).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ... import engines as eng
from ... import measure, probes, workloads
from ...errors import ComandoFallido
from ..runner import Arm as BaseArm

WORKLOADS = workloads.SCRIPTS  # hash, sort, archivos, escritura
CPU_WORKLOADS = ("hash", "sort", "archivos")  # the ones that also run under chroot
PLACES = ("capa", "volumen", "host")
ENVIRONMENTS = ("bare", "chroot", "docker", "podman")
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


@dataclass(frozen=True)
class Arm(BaseArm):
    """One workload in one environment: `env` is bare, chroot, docker or podman (chroot runs on the
    host's engine "bare", with the image's name in `image`); `place` says where `escritura` writes."""

    workload: str = ""  # hash, sort, archivos, escritura, exec_true
    place: str = ""  # escritura only: capa / volumen / host
    env: str = ""


def make_arm(workload: str, place: str, env: str, image: str = "") -> Arm:
    engine = "bare" if env in ("bare", "chroot") else env
    variant = f"{workload}:{place}" if place else workload
    return Arm(engine, variant, image, f"{variant} en {env}", workload, place, env)


def plan(
    workloads_wanted: Sequence[str], containers: Sequence[str], image_names: dict[str, str], chroot_image: str
) -> list[Arm]:
    """Every arm of the run: exec_true first, then each workload on bare metal, in the chroot (when
    `chroot_image` is set) and in each container; `escritura` in each place instead."""
    arms = [make_arm(EXEC_TRUE, "", "bare")]
    arms += [make_arm(EXEC_TRUE, "", e, image_names[e]) for e in containers]
    for workload in workloads_wanted:
        if workload == "escritura":
            arms.append(make_arm(workload, "host", "bare"))
            for e in containers:
                arms += [make_arm(workload, p, e, image_names[e]) for p in ("capa", "volumen")]
            continue
        arms.append(make_arm(workload, "", "bare"))
        if chroot_image:
            arms.append(make_arm(workload, "", "chroot", chroot_image))
        arms += [make_arm(workload, "", e, image_names[e]) for e in containers]
    return arms


def _dir_for(arm: Arm, host_dirs: dict[str, str]) -> str:
    if arm.workload == "escritura":
        places = {
            "host": host_dirs["escritura"],
            "capa": SCRATCH_IN_CONTAINER,
            "volumen": VOLUME_IN_CONTAINER,
        }
        return places[arm.place]
    if arm.workload == "archivos" and arm.env == "bare":
        return host_dirs["archivos"]
    return "/tmp"  # chroot: the exported rootfs's /tmp; containers: the writable layer


def argv_for(
    arm: Arm,
    *,
    size_mb: int,
    files: int,
    containers: dict[str, str],
    rootfs: Path | None,
    host_dirs: dict[str, str],
) -> list[str]:
    """The command line of one arm, as run from the host (the engine builds its own `exec`)."""
    if arm.workload == EXEC_TRUE:
        if arm.env == "bare":
            return ["true"]
        return eng.get_engine(arm.env).exec_argv(containers[arm.env], ["true"])
    script = workloads.script(arm.workload, directory=_dir_for(arm, host_dirs), size_mb=size_mb, files=files)
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


def time_arm(argv: list[str], env: dict, *, probe: bool = True) -> tuple[float, float | None]:
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
