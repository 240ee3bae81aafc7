"""Experiment 3's arms: what runs (a workload, where it writes, in which environment), its command
line in each environment, and how one repetition is timed.

Every workload runs under the probe `probes/bin/cronometro`, which times the work from inside its
environment, so each measurement gives two rows: `extremo_a_extremo` (the whole command as a student
types it, timed from the host) and `trabajo` (the work alone, as the probe reports it).

Two arms time `exec` itself: `exec_true` (`exec CONTENEDOR true` from the host, what a user waits for;
`true` as a new process on bare metal) and `exec_dentro` (`cronometro true` inside the environment: the
fork + exec + wait of one process, the «solo la syscall exec» of the chapter).

`sort` runs under `cronometro --pico sort`: while it runs, the probe reads the memory of the `sort`
process (its peak, VmHWM, and the anonymous mapping outside the heap that holds most of it: the buffer
it asked for with mmap) from /proc, in every environment and every round, with no round of its own;
those readings are rows of the same arm (MEMORY_METRICS, in KB), never timed figures.

The I/O workloads (`archivos`, `escritura`, `copia`) name where they write (`lugar`): `capa` (the
container's writable overlay layer), `volumen` (a host directory bind-mounted into the container), and on
bare metal, the baseline of each on the same filesystem: `host` (a fresh directory beside the volumes, in
the run's scratch directory) and `almacen-<motor>` (a fresh directory in the engine's storage, on the
filesystem that holds its layers: `layer_base`). The chroot runs only the CPU workloads: it writes under
the course's cache, a filesystem no container arm writes to.
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

WORKLOADS = workloads.SCRIPTS  # hash, sort, archivos, escritura, copia
CPU_WORKLOADS = ("hash", "sort")
IO_WORKLOADS = ("archivos", "escritura", "copia")  # written to a place; the disk is synced before each
CHROOT_WORKLOADS = ("hash", "sort")  # the ones that also run under chroot (no I/O: see the docstring)
LAYER_BASE = "almacen"  # bare metal in the engine's storage: `almacen-docker`, `almacen-podman`
PLACES = ("host", *(f"{LAYER_BASE}-{e}" for e in eng.CONTAINER_ENGINES), "capa", "volumen")
ENVIRONMENTS = ("bare", "chroot", "docker", "podman")
EXEC_TRUE = "exec_true"
EXEC_INSIDE = "exec_dentro"
METRIC_E2E = "extremo_a_extremo"
METRIC_WORK = "trabajo"
TIMED_METRICS = (METRIC_E2E, METRIC_WORK)  # in seconds; the memory rows are in KB
PEEKED = {"sort": "sort"}  # a workload → the process whose memory `cronometro --pico` reads
# What `cronometro --pico` reports (probes.CRONOMETRO_PEAK) → the metric of its row, in KB.
MEMORY_METRICS = {
    "pico_kb": "memoria_pico",  # the largest VmHWM of the process
    "mmap_kb": "memoria_mmap",  # the size of its anonymous mapping holding most resident memory
    "mmap_rss_kb": "memoria_mmap_residente",  # that mapping's resident part
    "heap_kb": "memoria_heap",  # the size of its [heap] (what brk gave it)
}
# Spanish names, for every table that shows them (the views and the closing table).
WORKLOAD_NAMES = {
    EXEC_TRUE: "exec true",
    EXEC_INSIDE: "un proceso nuevo dentro del entorno",
    "hash": "hash (SHA-256)",
    "sort": "sort (1 M enteros)",
    "archivos": "archivos pequeños",
    "escritura": "escritura con fsync",
    "copia": "modificar un archivo de la imagen",
}
PLACE_NAMES = {
    "": "",
    "capa": "capa del contenedor (overlay)",
    "volumen": "volumen (-v)",
    "host": "disco del host, junto a los volúmenes",
    **{
        f"{LAYER_BASE}-{e}": f"sistema de archivos de la capa de {eng.DISPLAY[e]}"
        for e in eng.CONTAINER_ENGINES
    },
}
# What an overhead is measured against, worded to follow «frente a».
BASE_NAMES = {
    "bare": "los binarios del host",
    "chroot": "un chroot con la misma imagen",
    "host": "bare metal en el mismo sistema de archivos que el volumen",
    LAYER_BASE: "bare metal en el mismo sistema de archivos que la capa",
}


def same_fs_base(workload: str, env: str, place: str) -> tuple[str, str] | None:
    """The bare-metal baseline of an I/O arm on the same filesystem, as (base, lugar): a volume against
    bare metal beside it (`host`), a container's layer against bare metal in its engine's storage
    (`almacen-<motor>`). None for anything else (the chroot's I/O, a CPU workload)."""
    if workload not in IO_WORKLOADS or env not in eng.CONTAINER_ENGINES:
        return None
    if place == "volumen":
        return "host", "host"
    if place == "capa":
        return LAYER_BASE, f"{LAYER_BASE}-{env}"
    return None


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
    return Arm(engine, variant, image, arm_label(workload, place, env), workload, place, env)


ENV_NAMES = {"bare": "bare metal", "chroot": "chroot", "docker": "Docker", "podman": "Podman"}


def arm_label(workload: str, place: str, env: str) -> str:
    """The arm as the progress line names it, in Spanish: «escritura con fsync, volumen (-v), en Podman»."""
    name = "un proceso nuevo" if workload == EXEC_INSIDE else WORKLOAD_NAMES.get(workload, workload)
    where = f", {PLACE_NAMES[place]}" if place else ""
    return f"{name}{where}, en {ENV_NAMES.get(env, env)}"


def plan(
    workloads_wanted: Sequence[str],
    containers: Sequence[str],
    image_names: dict[str, str],
    chroot_image: str,
    layer_bases: Sequence[str] = (),
) -> list[Arm]:
    """Every arm of the run: `exec` first (exec_true, exec_dentro), then each workload on bare metal, in
    the chroot (when `chroot_image` is set and the workload runs there) and in each container; an I/O
    workload in each place (capa and volumen in each container; on bare metal, `host` beside the volumes
    and `almacen-<motor>` for each engine in `layer_bases`, the engines whose layer's filesystem bare
    metal can write on)."""
    arms = []
    for workload in (EXEC_TRUE, EXEC_INSIDE, *workloads_wanted):
        place = "host" if workload in IO_WORKLOADS else ""
        arms.append(make_arm(workload, place, "bare"))
        if workload in IO_WORKLOADS:
            arms += [make_arm(workload, f"{LAYER_BASE}-{e}", "bare") for e in containers if e in layer_bases]
        if chroot_image and workload in (EXEC_INSIDE, *CHROOT_WORKLOADS):
            arms.append(make_arm(workload, place, "chroot", chroot_image))
        for e in containers:
            places = ("capa", "volumen") if workload in IO_WORKLOADS else ("",)
            arms += [make_arm(workload, p, e, image_names[e]) for p in places]
    return arms


def _dir_for(arm: Arm, host_dirs: dict[str, str]) -> str:
    """Where an I/O workload writes, as seen from where it runs (`host_dirs`: bare metal's directory per
    `workload` beside the volumes, and per `workload:almacen-<motor>` in the engine's storage)."""
    if arm.place == "volumen":
        return VOLUME_IN_CONTAINER
    if arm.place == "capa" or arm.env == "chroot":
        return SCRATCH_IN_CONTAINER  # the writable layer; for the chroot, its /tmp
    if arm.place.startswith(LAYER_BASE):
        return host_dirs[f"{arm.workload}:{arm.place}"]
    return host_dirs.get(arm.workload, "/tmp")


def argv_for(
    arm: Arm,
    *,
    size_mb: int,
    files: int,
    containers: dict[str, str],
    rootfs: Path | None,
    host_dirs: dict[str, str],
    copy: tuple[str, int] = ("", 0),
) -> list[str]:
    """The command line of one arm, as run from the host (the engine builds its own `exec`). `copy` is
    (the image's file `copia` modifies on the writable layer, its size in bytes); `containers` maps an
    engine (or `engine:capa` for `copia`'s fresh container) to the container's name."""
    if arm.workload == EXEC_TRUE:
        if arm.env == "bare":
            return ["true"]
        return eng.get_engine(arm.env).exec_argv(containers[arm.env], ["true"])
    if arm.workload == EXEC_INSIDE:
        inner = ["true"]
    else:
        target = copy[0] if (arm.workload == "copia" and arm.place == "capa") else ""
        line = workloads.script(
            arm.workload,
            directory=_dir_for(arm, host_dirs),
            size_mb=size_mb,
            files=files,
            target=target,
            target_bytes=copy[1],
        )
        inner = ["sh", "-c", line]
    if arm.workload in PEEKED:
        inner = ["--pico", PEEKED[arm.workload], "--", *inner]
    if arm.env == "bare":
        return [str(PROBE), *inner]
    if arm.env == "chroot":
        return [str(PROBE), "--root", str(rootfs), *inner]
    container = containers[copy_key(arm.env)] if arm.workload == "copia" and arm.place == "capa" else None
    return eng.get_engine(arm.env).exec_argv(container or containers[arm.env], [PROBE_IN_CONTAINER, *inner])


def copy_key(engine: str) -> str:
    """The key of `copia`'s own container (started afresh before each repetition) in `containers`."""
    return f"{engine}:capa"


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


def time_arm(argv: list[str], env: dict, *, probe: bool = True) -> tuple[float, float | None, dict[str, int]]:
    """(end-to-end seconds, work-alone seconds or None, the memory `cronometro --pico` read in KB: {}
    without it). Raises ComandoFallido on failure."""
    elapsed, code, stderr = measure.spawn_and_wait(argv, env, keep_stderr=True)
    if code != 0:
        raise ComandoFallido(
            f"El comando «{' '.join(argv)[:200]}» terminó con código {code}: "
            f"{stderr[-400:] or '(sin mensaje)'}"
        )
    if not probe:
        return elapsed / 1e9, None, {}
    work_ns, status = probes.parse_cronometro(stderr)
    if status != 0:
        raise ComandoFallido(f"La carga terminó con código {status} dentro de «{' '.join(argv)[:200]}».")
    return elapsed / 1e9, work_ns / 1e9, probes.parse_cronometro_peak(stderr)
