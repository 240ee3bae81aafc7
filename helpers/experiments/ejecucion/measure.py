"""Experiment 3's parameters and its run.

Containers are started once (`sleep`), then each workload runs in them through `docker/podman exec`,
and on bare metal twice: with the host's binaries (as the chapter did) and chrooted into the image's
root filesystem exported from the engine (the same userland as the containers, with no namespaces and
no cgroups). Every arm is interleaved round-robin through `measure_rounds`; warm-ups are discarded.
Values are seconds.

The I/O arms start from the same state every time, outside the timed window: the disk is synced first
(`sync`: no other arm's dirty pages are written back inside this one), the small files go to a fresh
directory, and `copia` gets a fresh file (on the host and in the volume) or a fresh container (on the
writable layer, so overlay copies the image's file up again); `copia` reads its file before modifying
it, so the page cache holds it alike on every arm.

Each I/O arm in a container is compared with bare metal writing on the same filesystem: the volumes live
in the run's scratch directory, beside bare metal's `host` directory; bare metal's `almacen-<motor>`
directory is created in the engine's storage, on the filesystem of the container's writable layer, when
this user may write there and it is the same filesystem (else the layer's comparison is «no
comparable», with the reason in meta.json `lineas_base`). Every directory is removed when the run ends,
on error and on Ctrl-C too (RunContext.defer); meta.json `sistemas_de_archivos` records what each place
sits on.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from ... import engines as eng
from ... import images, probes, workloads
from ...engines import rootfs
from ...errors import ComandoFallido, ParametroInvalido
from ..params import Params, param
from ..runner import (
    Log,
    Progress,
    Resultado,
    RunContext,
    experiment_run,
    measure_rounds,
    no_progress,
    print_log,
)
from . import arms as arms_mod
from .arms import (
    EXEC_TRUE,
    IO_WORKLOADS,
    LAYER_BASE,
    MEMORY_METRICS,
    METRIC_E2E,
    METRIC_WORK,
    PEEKED,
    SCRATCH_IN_CONTAINER,
    VOLUME_IN_CONTAINER,
    WORKLOADS,
    Arm,
    copy_key,
)
from .environments import (
    container_alive,
    container_filesystems,
    copy_target,
    filesystem_type,
    host_filesystem,
    layer_storage,
    restart_fresh,
    same_filesystem,
    start_container,
)

EXPERIMENT = "ejecucion"
CPUS = (None, *sorted(os.sched_getaffinity(0)))  # FIJAR_CPU: not pinned, or one CPU this process may use


def cpu_label(cpu: int | None) -> str:
    return "sin fijar" if cpu is None else f"CPU {cpu}"


@dataclass
class Config(Params):
    # 15 rounds after one warm-up, with 50 MiB and 500 files (the chapter hashed 100 MiB: MEGAS = 100
    # repeats it). verdict.MIN_N (6) is enough for a figure of this run's own arms, but 6, 7 and 8 rounds
    # all give the order-statistic interval [min, max], and 9 drops only one value at each end
    # (stats.order_k): at 9 rounds the fresh course's run read hash overhead +0.85 % [−0.78, +2.8] in
    # Podman and sort −0.6 to +8.8, wider than the chapter's «6-8 %» and its «0 %» ± 5; at 15 (k = 4) two
    # runs on the same machine gave the four hash and sort overheads intervals 2.3 to 6.6 points wide (half
    # widths 1.1-3.3), in 135-147 s of notebook (74 s at 9). `exec` ÷ experiment 1's `run`
    # (claims.exec_over_run) is a ratio of independent arms, whose interval needs 7 in each
    # (stats.figure_ci).
    repeticiones: int = param(15, "Repeticiones", minimum=1, maximum=100)
    calentamiento: int = param(1, minimum=0, maximum=100)
    cargas: list = param(list(WORKLOADS), "Cargas de trabajo", options=WORKLOADS)
    motores: list = param(
        list(eng.CONTAINER_ENGINES), "Motores", options=eng.CONTAINER_ENGINES, allow_empty=True
    )
    imagen: str = param("ubuntu", "Imagen", options=images.ROLE_NAMES)
    megas: int = param(50, "MiB de hash y escritura", minimum=1, maximum=2048)
    archivos: int = param(500, "Archivos pequeños", minimum=1, maximum=200_000)
    fijar_cpu: int | None = param(None, "Fijar a una CPU", kind="choice", options=CPUS)
    chroot: bool = param(True)

    def check(self) -> None:
        if isinstance(self.fijar_cpu, bool):  # True == 1 would pass as CPU 1
            raise ParametroInvalido(
                f"FIJAR_CPU debe ser None o una de las CPU disponibles "
                f"({', '.join(str(c) for c in CPUS[1:])}), pero recibió {self.fijar_cpu!r}."
            )

    @classmethod
    def controls(cls) -> list[dict]:
        # The panel names each CPU in Spanish; the values (and so the validation) stay the declared ones.
        out = super().controls()
        for control in out:
            if control["name"] == "fijar_cpu":
                control["options"] = [(cpu_label(c), c) for c in control["options"]]
        return out


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm round-robin; rows are written as they are measured. Returns the Resultado."""
    cfg = cfg.validated()
    probes.ensure("cronometro", log)
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        workdir = Path(tempfile.mkdtemp(prefix=f"curso-ejecucion-{ctx.run_id}-"))
        # Runs after the run's containers are removed (a bind-mounted directory is in use until then).
        ctx.defer(_remove_dir, ctx, workdir, "host_scratch_removed")
        ctx.run.update_meta(host_scratch_dir=str(workdir))
        Execution(cfg, ctx, workdir, log).measure(progress)
    return Resultado.load(ctx.run.dir)


class Execution:
    """One run: the chroot baseline, the long-lived containers, then every arm round-robin."""

    def __init__(self, cfg: Config, ctx: RunContext, workdir: Path, log: Log):
        self.cfg, self.ctx, self.workdir, self.log = cfg, ctx, workdir, log
        self.containers = [e for e in ctx.engines if e != "bare"]
        self.image_names = {e: ctx.images[e][cfg.imagen]["name"] for e in self.containers}
        self.host_dirs = {w: str(workdir / w) for w in IO_WORKLOADS}  # + `w:almacen-<motor>`: layer_bases
        self.layer_dirs: dict[str, str] = {}  # engine -> bare metal's directory in its storage
        self.baselines: dict[str, dict] = {}  # meta.json `lineas_base`
        self.rootfs: Path | None = None
        self.chroot_meta: dict = {"usada": False}
        self.running: dict[str, str] = {}
        self.volumes: dict[str, str] = {}
        self.envs = {e: eng.get_engine(e).env() for e in ["bare", *self.containers]}
        self.cargas = list(cfg.cargas)  # what is measured (copia leaves when the image has no file for it)
        self.copy: tuple[str, int] = ("", 0)  # the image's file `copia` modifies, and its size

    def measure(self, progress: Progress) -> None:
        for d in self.host_dirs.values():
            Path(d).mkdir()
        self.prepare_chroot()
        self.start_containers()
        self.find_copy_target()
        self.layer_bases()
        self.describe()
        running = [e for e in self.containers if e in self.running]
        chroot_image = self.chroot_meta.get("imagen", "") if self.rootfs else ""
        measure_rounds(
            self.ctx,
            arms_mod.plan(self.cargas, running, self.image_names, chroot_image, list(self.layer_dirs)),
            measure=self.measure_one,
            progress=progress,
            meta={
                "timer": "time.perf_counter_ns + os.posix_spawnp (extremo a extremo); "
                "probes/cronometro, CLOCK_MONOTONIC dentro del entorno (trabajo)",
                "preparacion_es": "fuera del tiempo medido, antes de cada carga de E/S: sync; archivos en un "
                "directorio nuevo; copia: un archivo nuevo (host, volumen) o un contenedor nuevo (capa), y "
                "el archivo se lee antes de modificarlo en todos los brazos",
            },
        )

    # -- preparing
    def prepare_chroot(self) -> None:
        """The image's own binaries on bare metal: its root filesystem, exported from the first engine
        that has the image (helpers.engines.rootfs). Needs root; skipped with its reason otherwise."""
        if not self.cfg.chroot:
            return
        if not self.containers:
            self.chroot_meta["motivo"] = "no hay motor del que exportar la imagen."
            self.ctx.skip_arm("chroot", self.chroot_meta["motivo"])
            return
        if not self.ctx.require_root("chroot", rootfs.CHROOT_WHAT):
            self.chroot_meta["motivo"] = self.ctx.run.meta["skipped_arms"]["chroot"]
            return
        source = self.containers[0]
        image = self.ctx.images[source][self.cfg.imagen]
        with self.ctx.guard(source):
            self.rootfs = rootfs.exported_rootfs(source, image, self.ctx.run_id, self.log)
        if self.rootfs is None:  # the engine was lost while exporting (ctx.guard said so)
            self.chroot_meta["motivo"] = f"{eng.DISPLAY[source]} dejó de responder al exportar la imagen."
            self.ctx.skip_arm("chroot", self.chroot_meta["motivo"])
            return
        self.chroot_meta = {
            "usada": True,
            "origen": f"{source} create + {source} export",
            "motor": source,
            "imagen": image["name"],
            "imagen_id": image["id"],
            "imagen_origen": image["origin"],
            "directorio": str(self.rootfs),
            "dispositivos": "mknod " + ", ".join(name for name, _ in rootfs.DEV_NODES),
            "sin": "namespaces, cgroups, seccomp, overlay",
        }

    def start_containers(self) -> None:
        for e in self.containers:
            with self.ctx.guard(e):
                volume = self.workdir / f"volumen-{e}"
                volume.mkdir(exist_ok=True)
                self.volumes[e] = str(volume)
                name = self.ctx.container_name(e)
                start_container(e, self.image_names[e], name, self.ctx.run_id, volume, self.cfg.fijar_cpu)
                self.running[e] = name
                self.log(f"{eng.DISPLAY[e]}: contenedor {name} en marcha ({self.image_names[e]}).")

    def layer_bases(self) -> None:
        """For each running container, a directory for bare metal in its engine's storage, on the
        filesystem of the container's writable layer; or the reason there is none (meta `lineas_base`)."""
        if not any(w in IO_WORKLOADS for w in self.cargas):
            return
        for e, container in list(self.running.items()):
            if e not in self.containers:
                continue  # copia's own container
            with self.ctx.guard(e):
                found = layer_storage(e, container)
            reason = ""
            if found is None:
                reason = (
                    f"{eng.DISPLAY[e]} no deja ver en qué directorio del host guarda la capa del contenedor "
                    "(sin permisos sobre su almacén, o un driver sin directorio superior): bare metal no "
                    "puede escribir en el mismo sistema de archivos que la capa."
                )
            else:
                upper, storage = found
                try:
                    folder = Path(tempfile.mkdtemp(prefix=f"curso-ejecucion-{self.ctx.run_id}-", dir=storage))
                except OSError as exc:
                    reason = (
                        f"este usuario no puede escribir en el almacén de {eng.DISPLAY[e]} ({storage}: "
                        f"{exc.strerror or exc}), así que bare metal no puede escribir en el sistema de "
                        "archivos de la capa (con Docker sin root o con Podman sin root, su almacén está "
                        "en tu directorio personal y sí se puede)."
                    )
                else:
                    self.ctx.defer(_remove_dir, self.ctx, folder, f"almacen_{e}_removed")
                    if not same_filesystem(folder, upper):
                        reason = f"el almacén de {eng.DISPLAY[e]} ({storage}) no está en el sistema de archivos de su capa."
                    else:
                        self.layer_dirs[e] = str(folder)
                        for w in IO_WORKLOADS:
                            path = folder / w
                            path.mkdir()
                            self.host_dirs[f"{w}:{LAYER_BASE}-{e}"] = str(path)
            key = f"{e}:capa"
            if reason:
                self.baselines[key] = {"comparable": False, "motivo": reason}
                self.log(f"Aviso: la capa de {eng.DISPLAY[e]} queda sin línea base comparable: {reason}")
            else:
                self.baselines[key] = {
                    "comparable": True,
                    "lugar": f"{LAYER_BASE}-{e}",
                    "directorio": self.layer_dirs[e],
                    "capa_en_el_host": found[0],
                }
            self.baselines[f"{e}:volumen"] = {
                "comparable": True,
                "lugar": "host",
                "directorio": self.host_dirs["escritura"],
            }

    def find_copy_target(self) -> None:
        """The image's file `copia` modifies (found in the first running container), or the arm is
        skipped with its reason."""
        if "copia" not in self.cargas or not self.running:
            return
        engine, container = next(iter(self.running.items()))
        with self.ctx.guard(engine):
            found = copy_target(engine, container)
            if found is None:
                self.ctx.skip_arm(
                    "copia",
                    f"la imagen {self.image_names[engine]} no tiene un archivo de datos de más de "
                    "256 KiB que modificar (sus binarios están en uso: no se pueden abrir para escribir).",
                )
                self.cargas.remove("copia")
                return
            self.copy = found
            self.ctx.run.update_meta(copia={"archivo": found[0], "bytes": found[1]})

    def describe(self) -> None:
        """What meta.json says about the environments: the chroot, the filesystems written to, the
        volume, the workloads' command lines and the CPU pinning."""
        filesystems = {"host": filesystem_type(self.host_dirs["escritura"])}
        places = {"host": host_filesystem(self.host_dirs["escritura"])}
        for e, container in self.running.items():
            if e not in self.containers:
                continue
            with self.ctx.guard(e):
                filesystems.update(container_filesystems(e, container))
                places[f"{e}:volumen"] = {
                    "dentro": filesystems[f"{e}:volumen"],
                    **host_filesystem(self.volumes[e]),
                }
                layer = {"dentro": filesystems[f"{e}:capa"]}
                found = self.baselines.get(f"{e}:capa", {}).get("capa_en_el_host")
                if found:
                    layer.update(host_filesystem(found))
                places[f"{e}:capa"] = layer
            if e in self.layer_dirs:
                places[f"bare:{LAYER_BASE}-{e}"] = host_filesystem(self.layer_dirs[e])
        if self.rootfs is not None:
            places["chroot"] = host_filesystem(self.rootfs / SCRATCH_IN_CONTAINER.lstrip("/"))
        cpu = self.cfg.fijar_cpu
        self.ctx.run.update_meta(
            chroot=self.chroot_meta,
            filesystems=filesystems,
            sistemas_de_archivos=places,
            lineas_base=self.baselines,
            volume={
                "tipo": "directorio del host montado con -v",
                "host": self.volumes,
                "contenedor": VOLUME_IN_CONTAINER,
            },
            workloads={
                w: workloads.script(
                    w,
                    directory="DIR",
                    size_mb=self.cfg.megas,
                    files=self.cfg.archivos,
                    target=self.copy[0],
                    target_bytes=self.copy[1],
                )
                for w in self.cargas
            },
            memoria={
                w: f"cronometro --pico {name}: el VmHWM de «{name}» y sus regiones de /proc/PID/smaps, "
                "leídos cada 25 ms mientras corre, en cada ronda"
                for w, name in PEEKED.items()
                if w in self.cargas
            },
            pinning=(
                {
                    "cpu": cpu,
                    "bare": "sched_setaffinity (como taskset -c)",
                    "contenedores": f"--cpuset-cpus {cpu}",
                }
                if cpu is not None
                else None
            ),
        )

    # -- measuring
    def prepare(self, arm: Arm) -> None:
        """The same starting state for every I/O arm, outside the timed window: `copia`'s fresh file
        or fresh container, then `sync`."""
        if arm.workload == "copia":
            if arm.place == "capa":
                key = copy_key(arm.engine)
                name = self.running.setdefault(key, self.ctx.container_name(arm.engine, "copia"))
                restart_fresh(
                    arm.engine, self.image_names[arm.engine], name, self.ctx.run_id, self.cfg.fijar_cpu
                )
            else:
                folder = self.volumes[arm.engine] if arm.place == "volumen" else self.bare_dir(arm)
                _fresh_file(Path(folder) / workloads.COPY_NAME, self.copy[1])
        if arm.workload in IO_WORKLOADS:
            os.sync()

    def bare_dir(self, arm: Arm) -> str:
        """Bare metal's directory for an I/O arm: beside the volumes (`host`) or in an engine's storage."""
        return self.host_dirs[arm.workload if arm.place == "host" else f"{arm.workload}:{arm.place}"]

    def argv(self, arm: Arm) -> list[str]:
        return arms_mod.argv_for(
            arm,
            size_mb=self.cfg.megas,
            files=self.cfg.archivos,
            containers=self.running,
            rootfs=self.rootfs,
            host_dirs=self.host_dirs,
            copy=self.copy,
        )

    def measure_one(self, arm: Arm) -> list[tuple[str, float, str]]:
        self.prepare(arm)
        argv = self.argv(arm)
        probe = arm.workload != EXEC_TRUE
        env = self.envs[arm.engine]
        try:
            with arms_mod.pinned(self.cfg.fijar_cpu if arm.engine == "bare" else None):
                e2e, work, memory = arms_mod.time_arm(argv, env, probe=probe)
        except ComandoFallido:
            # On a shared machine someone else's clean-up may remove our container: start it again, once.
            if arm.engine == "bare" or container_alive(arm.engine, self.running[arm.engine]):
                raise
            self.restart(arm)
            self.prepare(arm)
            e2e, work, memory = arms_mod.time_arm(argv, env, probe=probe)
        rows = [(METRIC_E2E, round(e2e, 6), "s")]
        if work is not None:
            rows.append((METRIC_WORK, round(work, 6), "s"))
        rows += [(MEMORY_METRICS[k], float(kb), "KB") for k, kb in memory.items()]
        return rows

    def restart(self, arm: Arm) -> None:
        e = arm.engine
        if arm.workload == "copia" and arm.place == "capa":
            return  # prepare() starts it afresh anyway
        self.log(
            f"Aviso: el contenedor de {eng.DISPLAY[e]} desapareció (¿lo borró otro proceso?); "
            "lo arranco de nuevo y repito esta medición."
        )
        start_container(
            e,
            self.image_names[e],
            self.running[e],
            self.ctx.run_id,
            Path(self.volumes[e]),
            self.cfg.fijar_cpu,
        )
        restarted = self.ctx.run.meta.setdefault("contenedores_reiniciados", [])
        restarted.append({"engine": e, "variante": arm.variant, "motivo": "el contenedor desapareció"})
        self.ctx.run.write_meta()


def _remove_dir(ctx: RunContext, folder: Path, key: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    ctx.run.meta[key] = not folder.exists()


def _fresh_file(path: Path, size: int) -> None:
    """A new file of `size` bytes (written and fsynced), in place of any earlier one."""
    path.unlink(missing_ok=True)
    with open(path, "wb") as f:
        f.write(b"\0" * size)
        f.flush()
        os.fsync(f.fileno())
