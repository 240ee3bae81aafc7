"""Experiment 3: the cost of running (RUNNING) inside a container that is already up.

Containers are started once (`sleep`), then each workload runs in them through `docker/podman exec`,
and on bare metal. Every workload runs under the probe `probes/bin/cronometro`, which times the work
from inside its environment, so each measurement gives two rows:
- metric `extremo_a_extremo`: the whole command as a student types it (`docker exec C ...`), timed
  from the host; this is how the seed measured;
- metric `trabajo`: the work alone, as reported by the probe; the cost of `exec` is outside it.
The cost of `exec true` is measured on its own (variant `exec_true`).

Two bare-metal baselines:
- the host's own binaries (image ""), as in the seed;
- the image's binaries: chroot into the image's root filesystem exported from the engine (image = the
  real image name), with no namespaces and no cgroups. Same userland as the containers.

Rows: engine bare/docker/podman; variant `<carga>` or `escritura:<lugar>` (lugar: capa = the
container's writable overlay layer, volumen = a host directory bind-mounted into the container,
host = a host directory written by a bare-metal process). Values are seconds. Arms are interleaved
round-robin; warm-ups are discarded.

The package is split by job: `workloads` (what runs and how it is timed), `environments` (host binaries,
chroot of the exported image, containers), `analysis` (summaries, overheads, claims, comparison, the
closing rows). This module holds the contract (see CONTRIBUTING.md) and the run loop.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ... import engines as eng
from ... import images, probes, validate
from ...errors import ComandoFallido, ParametroInvalido
from ..base import Log, Progress, Resultado, experiment_run, measure_rounds, no_progress, print_log
from .analysis import (
    claims,
    closing_rows,
    compare,
    exec_costs,
    noise_verdict,
    overhead_pct,
    overheads,
    summarize,
    tidy,
)
from .environments import (
    CHROOT_WHAT,
    ENVIRONMENTS,
    FS_MAGIC,
    NEEDS_ROOT,
    ROOTFS_CACHE,
    chroot_unavailable_reason,
    container_alive,
    container_options,
    exported_rootfs,
    filesystem_type,
    root_mount_options,
    start_container,
)
from .workloads import (
    BASE_NAMES,
    CPU_WORKLOADS,
    EXEC_TRUE,
    METRIC_E2E,
    METRIC_WORK,
    PLACE_NAMES,
    PLACES,
    PROBE,
    PROBE_IN_CONTAINER,
    SCRATCH_IN_CONTAINER,
    VOLUME_IN_CONTAINER,
    WORKLOAD_NAMES,
    WORKLOADS,
    Arm,
    argv_for,
    measure_arm,
    pinned,
    plan,
    workload_script,
)

__all__ = [
    "EXPERIMENT",
    "TITLE",
    "NOTEBOOK",
    "QUICK",
    "BASELINE",
    "CONTROLS",
    "NEEDS_ROOT",
    "Config",
    "config",
    "run",
    "summarize",
    "claims",
    "compare",
    "exec_costs",
    "closing_rows",
    "noise_verdict",
    "overhead_pct",
    "overheads",
    "tidy",
    "CHROOT_WHAT",
    "ENVIRONMENTS",
    "FS_MAGIC",
    "ROOTFS_CACHE",
    "chroot_unavailable_reason",
    "container_alive",
    "container_options",
    "exported_rootfs",
    "filesystem_type",
    "root_mount_options",
    "start_container",
    "CPU_WORKLOADS",
    "EXEC_TRUE",
    "METRIC_E2E",
    "METRIC_WORK",
    "PLACES",
    "PROBE",
    "PROBE_IN_CONTAINER",
    "WORKLOAD_NAMES",
    "PLACE_NAMES",
    "BASE_NAMES",
    "SCRATCH_IN_CONTAINER",
    "VOLUME_IN_CONTAINER",
    "WORKLOADS",
    "Arm",
    "argv_for",
    "measure_arm",
    "pinned",
    "plan",
    "workload_script",
]

EXPERIMENT = "ejecucion"
TITLE = "Experimento 3: costo de ejecución (RUNNING)"
NOTEBOOK = "03_ejecucion"
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0, "TAMANO_MB": 8}
# Comparable across machines: the work alone (cronometro), and end to end (what the chapter timed,
# exec included: the only one the reference has).
COMPARABLE = [METRIC_WORK, METRIC_E2E]
BASELINE = ("bare", "hash")  # each workload against the same workload on bare metal; hash by default

# Widget description for the view layer (no ipywidgets here).
CONTROLS = [
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 100},
    {"name": "cargas", "kind": "multi", "label": "Cargas de trabajo", "options": list(WORKLOADS)},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
    {"name": "imagen", "kind": "choice", "label": "Imagen", "options": list(images.ROLE_NAMES)},
    {"name": "tamano_mb", "kind": "int", "label": "Tamaño (MB) de hash y escritura", "min": 1, "max": 2048},
    {
        "name": "fijar_cpu",
        "kind": "choice",
        "label": "Fijar a una CPU",
        "options": [("sin fijar", None)] + [(f"CPU {i}", i) for i in range(os.cpu_count() or 1)],
    },
]


@dataclass
class Config:
    repeticiones: int = 7
    calentamiento: int = 1
    cargas: list = field(default_factory=lambda: list(WORKLOADS))
    motores: list = field(default_factory=lambda: ["docker", "podman"])
    imagen: str = "ubuntu"
    tamano_mb: int = 100
    archivos: int = 2000
    fijar_cpu: int | None = None
    chroot: bool = True

    def validated(self) -> Config:
        """A checked copy; raises ParametroInvalido (Spanish) before anything is launched."""
        imagen = validate.choices("IMAGEN", self.imagen, images.ROLE_NAMES)
        if len(imagen) != 1:
            raise ParametroInvalido(
                f"IMAGEN debe ser una sola imagen ({', '.join(images.ROLE_NAMES)}), "
                f"pero recibió {self.imagen!r}."
            )
        if not isinstance(self.chroot, bool):
            raise ParametroInvalido(f"chroot debe ser True o False, pero recibió {self.chroot!r}.")
        return Config(
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=1000),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=100),
            cargas=validate.choices("CARGAS", self.cargas, WORKLOADS),
            motores=[
                m
                for m in validate.choices("MOTORES", self.motores, eng.ENGINE_NAMES, allow_empty=True)
                if m != "bare"
            ],
            imagen=imagen[0],
            tamano_mb=validate.positive_int("TAMANO_MB", self.tamano_mb, maximum=4096),
            archivos=validate.positive_int("ARCHIVOS", self.archivos, maximum=200_000),
            fijar_cpu=_valid_cpu(self.fijar_cpu),
            chroot=self.chroot,
        )


def _valid_cpu(value) -> int | None:
    if value is None:
        return None
    allowed = sorted(os.sched_getaffinity(0))
    cpu = validate.non_negative_int("FIJAR_CPU", value)
    if cpu not in allowed:
        raise ParametroInvalido(
            f"FIJAR_CPU debe ser None o una de las CPU disponibles "
            f"({', '.join(map(str, allowed))}), pero recibió {value}."
        )
    return cpu


def config(**params) -> Config:
    """Build and validate a Config from the notebook's parameters (lower-case names)."""
    return Config(**params).validated()


# ---------------------------------------------------------------- running
def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm round-robin; rows are written as they are measured. Returns the Resultado."""
    cfg = cfg.validated()
    probes.ensure("cronometro", log)
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        containers = [e for e in ctx.engines if e != "bare"]
        image_names = {e: ctx.images[e][cfg.imagen]["name"] for e in containers}
        workdir = Path(tempfile.mkdtemp(prefix=f"curso-ejecucion-{ctx.run_id}-"))
        # Runs after the run's containers are removed (a bind-mounted directory is in use until then).
        ctx.defer(_remove_scratch, ctx, workdir)
        ctx.run.update_meta(host_scratch_dir=str(workdir))
        _measure_all(cfg, ctx, containers, image_names, workdir, progress, log)
    return Resultado.load(ctx.run.dir)


def _remove_scratch(ctx, workdir: Path) -> None:
    shutil.rmtree(workdir, ignore_errors=True)
    ctx.run.meta["host_scratch_removed"] = not workdir.exists()


def _measure_all(
    cfg: Config,
    ctx,
    containers: list[str],
    image_names: dict[str, str],
    workdir: Path,
    progress: Progress,
    log: Log,
) -> None:
    host_dirs = {"archivos": str(workdir / "archivos"), "escritura": str(workdir / "escritura")}
    for d in host_dirs.values():
        Path(d).mkdir()
    # Chroot baseline: the image's own binaries, exported from the first engine that has the image.
    rootfs, chroot_meta = None, {"usada": False}
    if cfg.chroot and any(w in CPU_WORKLOADS for w in cfg.cargas):
        if not containers:
            chroot_meta["motivo"] = "no hay motor del que exportar la imagen."
            ctx.skip_arm("chroot", chroot_meta["motivo"])
        elif not ctx.require_root("chroot", CHROOT_WHAT):
            chroot_meta["motivo"] = ctx.run.meta["skipped_arms"]["chroot"]
        else:
            source = containers[0]
            image = ctx.images[source][cfg.imagen]
            rootfs = exported_rootfs(source, image, ctx.run_id, log)
            chroot_meta = {
                "usada": True,
                "origen": f"{source} create + {source} export",
                "motor": source,
                "imagen": image["name"],
                "imagen_id": image["id"],
                "imagen_origen": image["origin"],
                "directorio": str(rootfs),
                "dispositivos": "mknod null, zero, random, urandom",
                "sin": "namespaces, cgroups, seccomp, overlay",
            }
    chroot_image = chroot_meta.get("imagen") if rootfs else None
    # Containers: started once, measured through exec.
    running: dict[str, str] = {}
    volumes: dict[str, str] = {}
    for e in containers:
        vol = workdir / f"volumen-{e}"
        vol.mkdir()
        volumes[e] = str(vol)
        running[e] = start_container(e, image_names[e], ctx.container_name(e), ctx.run_id, vol, cfg.fijar_cpu)
        log(f"{eng.DISPLAY[e]}: contenedor {running[e]} en marcha ({image_names[e]}).")
    envs = {e: eng.get_engine(e).env() for e in ["bare", *containers]}
    filesystems = {"host": filesystem_type(host_dirs["escritura"])}
    for e in containers:
        filesystems[f"{e}:capa"] = filesystem_type(SCRATCH_IN_CONTAINER, e, running[e])
        filesystems[f"{e}:volumen"] = filesystem_type(VOLUME_IN_CONTAINER, e, running[e])
        filesystems[f"{e}:opciones_de_/"] = root_mount_options(e, running[e])
    ctx.run.update_meta(
        chroot=chroot_meta,
        filesystems=filesystems,
        volume={
            "tipo": "directorio del host montado con -v",
            "host": volumes,
            "contenedor": VOLUME_IN_CONTAINER,
        },
        workloads={
            w: workload_script(w, directory="DIR", size_mb=cfg.tamano_mb, files=cfg.archivos)
            for w in cfg.cargas
        },
        pinning=(
            {
                "cpu": cfg.fijar_cpu,
                "bare": "sched_setaffinity (como taskset -c)",
                "contenedores": f"--cpuset-cpus {cfg.fijar_cpu}",
            }
            if cfg.fijar_cpu is not None
            else None
        ),
    )

    def measure_one(arm: Arm) -> list[tuple[str, float, str]]:
        argv = argv_for(arm, cfg, containers=running, rootfs=rootfs, host_dirs=host_dirs)
        probe = arm.workload != EXEC_TRUE
        try:
            with pinned(cfg.fijar_cpu if arm.engine == "bare" else None):
                e2e, work = measure_arm(argv, envs[arm.engine], probe=probe)
        except ComandoFallido:
            # On a shared machine someone else's clean-up may remove our container: start it again, once.
            if arm.engine == "bare" or container_alive(arm.engine, running[arm.engine]):
                raise
            log(
                f"Aviso: el contenedor de {eng.DISPLAY[arm.engine]} desapareció (¿lo borró otro proceso?); "
                "lo arranco de nuevo y repito esta medición."
            )
            start_container(
                arm.engine,
                image_names[arm.engine],
                running[arm.engine],
                ctx.run_id,
                Path(volumes[arm.engine]),
                cfg.fijar_cpu,
            )
            restarted = ctx.run.meta.setdefault("contenedores_reiniciados", [])
            restarted.append(
                {"engine": arm.engine, "variante": arm.variant, "motivo": "el contenedor desapareció"}
            )
            ctx.run.write_meta()
            e2e, work = measure_arm(argv, envs[arm.engine], probe=probe)
        rows = [(METRIC_E2E, round(e2e, 6), "s")]
        if work is not None:
            rows.append((METRIC_WORK, round(work, 6), "s"))
        return rows

    measure_rounds(
        ctx,
        plan(cfg, ["bare", *containers], image_names, chroot_image),
        repetitions=cfg.repeticiones,
        warmup=cfg.calentamiento,
        measure=measure_one,
        progress=progress,
        meta={
            "timer": "time.perf_counter_ns + os.posix_spawnp (extremo a extremo); "
            "probes/cronometro, CLOCK_MONOTONIC dentro del entorno (trabajo)"
        },
    )
