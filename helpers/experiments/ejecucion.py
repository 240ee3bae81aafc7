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
"""
from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import engines as eng
from .. import images, measure, probes, system, validate
from ..errors import ComandoFallido, ParametroInvalido
from .base import Claim, Log, Progress, Resultado, experiment_run, no_progress, print_log

EXPERIMENT = "ejecucion"
TITLE = "Experimento 3: costo de ejecución (RUNNING)"
NOTEBOOK = "03_ejecucion"
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0, "TAMANO_MB": 8}
BASELINE = ("bare", "hash")  # each workload against the same workload on bare metal; hash by default
WORKLOADS = ("hash", "sort", "archivos", "escritura")
CPU_WORKLOADS = ("hash", "sort", "archivos")  # the ones that also run under chroot
PLACES = ("capa", "volumen", "host")
EXEC_TRUE = "exec_true"
METRIC_E2E = "extremo_a_extremo"
METRIC_WORK = "trabajo"
ENVIRONMENTS = ("bare", "chroot", "docker", "podman")

PROBE = probes.path("cronometro")
PROBE_IN_CONTAINER = probes.in_container("cronometro")
VOLUME_IN_CONTAINER = "/datos"
SCRATCH_IN_CONTAINER = "/tmp"  # on the container's writable (overlay) layer
ROOTFS_CACHE = eng.CACHE_DIR / "rootfs-exportado"
FS_MAGIC = {"794c7630": "overlay", "ef53": "ext4", "58465342": "xfs", "1021994": "tmpfs",
            "9123683e": "btrfs", "65735546": "fuse"}

# Widget description for the view layer (no ipywidgets here).
CONTROLS = [
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 100},
    {"name": "cargas", "kind": "multi", "label": "Cargas de trabajo", "options": list(WORKLOADS)},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
    {"name": "imagen", "kind": "choice", "label": "Imagen", "options": list(images.ROLE_NAMES)},
    {"name": "tamano_mb", "kind": "int", "label": "Tamaño (MB) de hash y escritura", "min": 1, "max": 2048},
    {"name": "fijar_cpu", "kind": "choice", "label": "Fijar a una CPU",
     "options": [("sin fijar", None)] + [(f"CPU {i}", i) for i in range(os.cpu_count() or 1)]},
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
            raise ParametroInvalido(f"IMAGEN debe ser una sola imagen ({', '.join(images.ROLE_NAMES)}), "
                                    f"pero recibió {self.imagen!r}.")
        if not isinstance(self.chroot, bool):
            raise ParametroInvalido(f"chroot debe ser True o False, pero recibió {self.chroot!r}.")
        return Config(
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=1000),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=100),
            cargas=validate.choices("CARGAS", self.cargas, WORKLOADS),
            motores=[m for m in validate.choices("MOTORES", self.motores, eng.ENGINE_NAMES, allow_empty=True)
                     if m != "bare"],
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
        raise ParametroInvalido(f"FIJAR_CPU debe ser None o una de las CPU disponibles "
                                f"({', '.join(map(str, allowed))}), pero recibió {value}.")
    return cpu


def config(**params) -> Config:
    """Build and validate a Config from the notebook's parameters (lower-case names)."""
    return Config(**params).validated()


# ---------------------------------------------------------------- workloads
def workload_script(workload: str, *, directory: str = "/tmp", size_mb: int = 100, files: int = 2000) -> str:
    """The shell command of a workload; POSIX sh, so dash, bash and busybox all run it."""
    if workload == "hash":
        return f"dd if=/dev/urandom bs=1M count={size_mb} 2>/dev/null | sha256sum > /dev/null"
    if workload == "sort":
        return "seq 1 1000000 | shuf | sort -n > /dev/null"
    if workload == "archivos":
        return (f'd={directory}/curso-archivos.$$; mkdir -p "$d"; i=0; '
                f'while [ $i -lt {files} ]; do echo $i > "$d/f$i"; i=$((i+1)); done; '
                'ls -ln "$d" > /dev/null; rm -r "$d"')
    if workload == "escritura":
        return f"dd if=/dev/zero of={directory}/curso-escritura.bin bs=1M count={size_mb} conv=fsync 2>/dev/null"
    raise KeyError(workload)


@dataclass(frozen=True)
class Arm:
    workload: str    # hash, sort, archivos, escritura, exec_true
    place: str       # escritura only: capa / volumen / host
    env: str         # bare, chroot, docker, podman
    image: str = ""  # real image name ("" = the host's binaries)

    @property
    def engine(self) -> str:
        return "bare" if self.env in ("bare", "chroot") else self.env

    @property
    def variant(self) -> str:
        return f"{self.workload}:{self.place}" if self.place else self.workload


def plan(cfg: Config, engines_ok: list[str], image_names: dict[str, str], chroot_image: str | None) -> list[Arm]:
    """Every arm of the run. exec_true first, then each workload: bare, chroot, engines."""
    containers = [e for e in engines_ok if e != "bare"]
    arms = [Arm(EXEC_TRUE, "", "bare")] + [Arm(EXEC_TRUE, "", e, image_names[e]) for e in containers]
    for workload in cfg.cargas:
        if workload == "escritura":
            arms.append(Arm(workload, "host", "bare"))
            for e in containers:
                arms += [Arm(workload, "capa", e, image_names[e]), Arm(workload, "volumen", e, image_names[e])]
            continue
        arms.append(Arm(workload, "", "bare"))
        if chroot_image:
            arms.append(Arm(workload, "", "chroot", chroot_image))
        arms += [Arm(workload, "", e, image_names[e]) for e in containers]
    return arms


def _dir_for(arm: Arm, host_dirs: dict[str, str]) -> str:
    if arm.workload == "escritura":
        return {"host": host_dirs["escritura"], "capa": SCRATCH_IN_CONTAINER,
                "volumen": VOLUME_IN_CONTAINER}[arm.place]
    if arm.workload == "archivos" and arm.env == "bare":
        return host_dirs["archivos"]
    return "/tmp"  # chroot: the exported rootfs's /tmp; containers: the writable layer


def argv_for(arm: Arm, cfg: Config, *, containers: dict[str, str], rootfs: Path | None,
             host_dirs: dict[str, str]) -> list[str]:
    if arm.workload == EXEC_TRUE:
        return ["true"] if arm.env == "bare" else eng.get_engine(arm.env).exec_argv(containers[arm.env], ["true"])
    script = workload_script(arm.workload, directory=_dir_for(arm, host_dirs), size_mb=cfg.tamano_mb,
                             files=cfg.archivos)
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
        raise ComandoFallido(f"El comando «{' '.join(argv)[:200]}» terminó con código {code}: "
                             f"{stderr[-400:] or '(sin mensaje)'}")
    if not probe:
        return elapsed / 1e9, None
    work_ns, status = probes.parse_cronometro(stderr)
    if status != 0:
        raise ComandoFallido(f"La carga terminó con código {status} dentro de «{' '.join(argv)[:200]}».")
    return elapsed / 1e9, work_ns / 1e9


# ---------------------------------------------------------------- environments
def _make_dev_nodes(root: Path) -> None:
    """The character devices the workloads need, so chroot works without mounting anything (as root;
    without root they are left out)."""
    dev = root / "dev"
    dev.mkdir(exist_ok=True)
    for name, minor in (("null", 3), ("zero", 5), ("random", 8), ("urandom", 9)):
        path = dev / name
        if path.is_symlink() or (path.exists() and not stat.S_ISCHR(path.lstat().st_mode)):
            path.unlink() if not path.is_dir() or path.is_symlink() else shutil.rmtree(path)
        if not path.exists():
            try:
                os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
            except PermissionError:
                # Without root there is no mknod. Chroot needs root anyway (it is skipped); a rootless
                # runc (experiment 4) builds its own /dev, so the rootfs is still of use.
                continue
            os.chmod(path, 0o666)
    tmp = root / "tmp"
    tmp.mkdir(exist_ok=True)
    tmp.chmod(0o1777)


CHROOT_WHAT = "la línea base chroot (chroot y mknod)"
NEEDS_ROOT = {"chroot": CHROOT_WHAT}  # listed for a student without root in notebook 00


def chroot_unavailable_reason() -> str | None:
    """Why the chroot baseline cannot run here (Spanish), or None as root (also used by anatomia)."""
    return system.needs_root_reason(CHROOT_WHAT)


def exported_rootfs(engine_name: str, image: dict, run_id: str, log: Log = print_log) -> Path:
    """The image's root filesystem, exported from the engine, with the device nodes the workloads need;
    cached by image ID (CACHE_DIR/rootfs-exportado)."""
    engine = eng.get_engine(engine_name)
    key = str(image["id"]).split(":")[-1][:16]
    target = ROOTFS_CACHE / f"{engine_name}-{key}"
    stamp = ROOTFS_CACHE / f"{engine_name}-{key}.ok"
    if stamp.exists() and target.is_dir():
        return target
    ROOTFS_CACHE.mkdir(parents=True, exist_ok=True)
    log(f"Exportando el sistema de archivos de {image['name']} desde {engine.display} (una sola vez)…")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=ROOTFS_CACHE))
    try:
        engine.export_rootfs(image["name"], tmp, run_id=run_id)
        _make_dev_nodes(tmp)
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
        stamp.write_text(f"{image['name']} {image['id']}\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def container_options(volume_dir: Path, cpu: int | None) -> eng.RunOptions:
    return eng.RunOptions(network="none", volumes=[(str(PROBE), PROBE_IN_CONTAINER, "ro"),
                                                   (str(volume_dir), VOLUME_IN_CONTAINER, "")],
                          cpuset=cpu)


def start_container(engine_name: str, image: str, name: str, run_id: str, volume_dir: Path,
                    cpu: int | None) -> str:
    # No --rm: Podman mounts the overlay of a --rm container with fsync=volatile (fsync becomes a
    # no-op), which would fake the writable-layer write speed. Clean-up removes it by the run's label.
    eng.get_engine(engine_name).launch(image, ["sleep", "86400"], run_id=run_id, name=name,
                                       opts=container_options(volume_dir, cpu))
    return name


def container_alive(engine_name: str, name: str) -> bool:
    return eng.get_engine(engine_name).is_running(name)


def _inside(engine_name: str | None, container: str | None, argv: list[str]) -> str:
    """stdout of argv, on the host (engine_name None) or by exec in a container."""
    if engine_name is None:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout
    engine = eng.get_engine(engine_name)
    return engine.call(engine.exec_argv(container, argv), timeout=60).stdout


def root_mount_options(engine_name: str, container: str) -> str:
    """Mount options of / inside a container (e.g. to spot overlay's fsync=volatile)."""
    for line in _inside(engine_name, container, ["cat", "/proc/mounts"]).splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[1] == "/":
            return ",".join(o for o in parts[3].split(",") if not o.startswith(("lowerdir", "upperdir", "workdir")))
    return "desconocido"


def filesystem_type(path: str, engine_name: str | None = None, container: str | None = None) -> str:
    """Filesystem type of `path` (via `stat -f`, on the host or through exec)."""
    magic = _inside(engine_name, container, ["stat", "-f", "-c", "%t", path]).strip().lower()
    return FS_MAGIC.get(magic, f"0x{magic}" if magic else "desconocido")


# ---------------------------------------------------------------- running
def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm round-robin; rows are written as they are measured. Returns the Resultado."""
    cfg = cfg.validated()
    probes.ensure("cronometro", log)
    with experiment_run(EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[cfg.imagen],
                        root=root, log=log) as ctx:
        containers = [e for e in ctx.engines if e != "bare"]
        image_names = {e: ctx.images[e][cfg.imagen]["name"] for e in containers}
        workdir = Path(tempfile.mkdtemp(prefix=f"curso-ejecucion-{ctx.run_id}-"))
        ctx.run.update_meta(host_scratch_dir=str(workdir))
        try:
            _measure_all(cfg, ctx, containers, image_names, workdir, progress, log)
        finally:
            # Containers first (a bind-mounted directory is in use until then), then the files.
            for name in containers:
                with contextlib.suppress(Exception):
                    eng.get_engine(name).cleanup(ctx.run_id)
            shutil.rmtree(workdir, ignore_errors=True)
            ctx.run.meta["host_scratch_removed"] = not workdir.exists()
    return Resultado.load(ctx.run.dir)


def _measure_all(cfg: Config, ctx, containers: list[str], image_names: dict[str, str], workdir: Path,
                 progress: Progress, log: Log) -> None:
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
            chroot_meta = {"usada": True, "origen": f"{source} create + {source} export", "motor": source,
                           "imagen": image["name"], "imagen_id": image["id"], "imagen_origen": image["origin"],
                           "directorio": str(rootfs), "dispositivos": "mknod null, zero, random, urandom",
                           "sin": "namespaces, cgroups, seccomp, overlay"}
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
    arms = plan(cfg, ["bare", *containers], image_names, chroot_image)
    steps = measure.round_robin(arms, cfg.repeticiones, cfg.calentamiento)
    ctx.run.update_meta(
        arms=[{**asdict(a), "variant": a.variant} for a in arms], warmup_discarded=cfg.calentamiento,
        schedule="round-robin", timer="time.perf_counter_ns + os.posix_spawnp (extremo a extremo); "
                                      "probes/cronometro, CLOCK_MONOTONIC dentro del entorno (trabajo)",
        quantile_method=measure.QUANTILE_METHOD, chroot=chroot_meta, filesystems=filesystems,
        volume={"tipo": "directorio del host montado con -v", "host": volumes, "contenedor": VOLUME_IN_CONTAINER},
        workloads={w: workload_script(w, directory="DIR", size_mb=cfg.tamano_mb, files=cfg.archivos)
                   for w in cfg.cargas},
        pinning=({"cpu": cfg.fijar_cpu, "bare": "sched_setaffinity (como taskset -c)",
                  "contenedores": f"--cpuset-cpus {cfg.fijar_cpu}"} if cfg.fijar_cpu is not None else None),
    )
    for done, step in enumerate(steps, 1):
        arm: Arm = step.arm
        label = f"{arm.variant} en {arm.env}"
        progress(done - 1, len(steps), label + (" (calentamiento)" if step.warmup else f" #{step.rep}"))
        argv = argv_for(arm, cfg, containers=running, rootfs=rootfs, host_dirs=host_dirs)
        try:
            with pinned(cfg.fijar_cpu if arm.engine == "bare" else None):
                e2e, work = measure_arm(argv, envs[arm.engine], probe=arm.workload != EXEC_TRUE)
        except ComandoFallido:
            # On a shared machine someone else's clean-up may remove our container: start it again, once.
            if arm.engine == "bare" or container_alive(arm.engine, running[arm.engine]):
                raise
            log(f"Aviso: el contenedor de {eng.DISPLAY[arm.engine]} desapareció (¿lo borró otro proceso?); "
                "lo arranco de nuevo y repito esta medición.")
            start_container(arm.engine, image_names[arm.engine], running[arm.engine], ctx.run_id,
                            Path(volumes[arm.engine]), cfg.fijar_cpu)
            restarted = ctx.run.meta.setdefault("contenedores_reiniciados", [])
            restarted.append({"engine": arm.engine, "paso": done, "motivo": "el contenedor desapareció"})
            ctx.run.write_meta()
            with pinned(None):
                e2e, work = measure_arm(argv, envs[arm.engine], probe=arm.workload != EXEC_TRUE)
        if step.warmup:
            continue
        ctx.run.append(engine=arm.engine, image=arm.image, variant=arm.variant, rep=step.rep,
                       metric=METRIC_E2E, value=round(e2e, 6), unit="s")
        if work is not None:
            ctx.run.append(engine=arm.engine, image=arm.image, variant=arm.variant, rep=step.rep,
                           metric=METRIC_WORK, value=round(work, 6), unit="s")
    progress(len(steps), len(steps), "listo")


# ---------------------------------------------------------------- analysis
def tidy(df: pd.DataFrame) -> pd.DataFrame:
    """Add carga, lugar and entorno (bare / chroot / docker / podman) to raw or reference rows."""
    df = df.copy()
    split = df["variant"].fillna("").str.partition(":")
    df["carga"], df["lugar"] = split[0], split[2]
    image = df["image"].fillna("")
    df["entorno"] = np.where((df["engine"] == "bare") & (image != ""), "chroot", df["engine"])
    return df


def _values(df: pd.DataFrame, metric: str, carga: str, entorno: str, lugar: str = "") -> np.ndarray:
    sel = df[(df["metric"] == metric) & (df["carga"] == carga) & (df["entorno"] == entorno) & (df["lugar"] == lugar)]
    return sel["value"].to_numpy(dtype=float)


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    rank = {name: i for i, name in enumerate((EXEC_TRUE, *WORKLOADS, *PLACES, *ENVIRONMENTS))}
    key = lambda col: col.map(lambda v: rank.get(v, 99)) if col.name in ("carga", "lugar", "entorno") else col
    return frame.sort_values([c for c in ("carga", "lugar", "entorno", "metric") if c in frame], key=key
                             ).reset_index(drop=True)


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per (carga, lugar, entorno, metric): n, median, IQR, min and IC 95 % of the median, in
    seconds; MB/s for `escritura` and `hash` when the size is known."""
    data = tidy(df)
    size = ((meta or {}).get("parameters") or {}).get("tamano_mb")
    rows = []
    for (carga, lugar, entorno, metric), group in data.groupby(["carga", "lugar", "entorno", "metric"], sort=False):
        s = measure.summarize(group["value"].to_numpy(dtype=float))
        rows.append({"carga": carga, "lugar": lugar, "entorno": entorno, "metric": metric,
                     "image": group["image"].iloc[0], "n": s.n, "mediana_s": s.median, "q1_s": s.q1,
                     "q3_s": s.q3, "min_s": s.minimum, "ic_bajo_s": s.ci_low, "ic_alto_s": s.ci_high,
                     "mb_por_s": (size / s.median) if size and carga in ("hash", "escritura") and s.median
                     else np.nan})
    out = pd.DataFrame(rows)
    return _order(out) if not out.empty else out


def exec_costs(df: pd.DataFrame) -> pd.DataFrame:
    """What `exec` costs, per environment, in ms: `exec true` end to end, and for each workload the
    paired difference (end to end − work alone) of the same repetition."""
    data = tidy(df)
    rows = []
    for entorno in ENVIRONMENTS:
        values = _values(data, METRIC_E2E, EXEC_TRUE, entorno) * 1e3
        if values.size:
            s = measure.summarize(values)
            rows.append({"entorno": entorno, "medida": EXEC_TRUE, "n": s.n, "mediana_ms": s.median,
                         "ic_bajo_ms": s.ci_low, "ic_alto_ms": s.ci_high})
    keys = ["engine", "image", "variant", "rep"]
    wide = data[data["carga"] != EXEC_TRUE].pivot_table(index=keys + ["carga", "lugar", "entorno"],
                                                        columns="metric", values="value", aggfunc="first")
    if {METRIC_E2E, METRIC_WORK} <= set(wide.columns):
        wide = wide.dropna(subset=[METRIC_E2E, METRIC_WORK]).reset_index()
        wide["diff_ms"] = (wide[METRIC_E2E] - wide[METRIC_WORK]) * 1e3
        for (carga, lugar, entorno), group in wide.groupby(["carga", "lugar", "entorno"], sort=False):
            s = measure.summarize(group["diff_ms"].to_numpy())
            rows.append({"entorno": entorno, "medida": f"{carga}:{lugar}" if lugar else carga, "n": s.n,
                         "mediana_ms": s.median, "ic_bajo_ms": s.ci_low, "ic_alto_ms": s.ci_high})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    rank = {e: i for i, e in enumerate(ENVIRONMENTS)}
    return out.sort_values("entorno", key=lambda c: c.map(rank), kind="stable").reset_index(drop=True)


def noise_verdict(low_pct: float, high_pct: float) -> str:
    """Spanish verdict on an overhead interval (in %)."""
    if any(np.isnan(v) for v in (low_pct, high_pct)):
        return "sin datos"
    if low_pct <= 0 <= high_pct:
        return "indistinguible del ruido"
    return "más lento" if low_pct > 0 else "más rápido"


def overhead_pct(values, baseline) -> tuple[float, float, float]:
    """Overhead % of the median against the baseline's, with a bootstrap IC 95 %."""
    ratio, low, high = measure.bootstrap_ratio_ci(values, baseline)
    return (ratio - 1) * 100, (low - 1) * 100, (high - 1) * 100


def overheads(df: pd.DataFrame, metric: str = METRIC_WORK) -> pd.DataFrame:
    """Overhead % against bare metal per workload and environment, with IC 95 % and a verdict.

    CPU workloads: every environment against both baselines (base `bare` = host binaries, base
    `chroot` = the image's binaries). escritura: each place against the host (bare metal, `host`)."""
    data = tidy(df)
    rows = []

    def add(carga, lugar, entorno, base, values, base_values):
        if values.size and base_values.size:
            pct, lo, hi = overhead_pct(values, base_values)
            rows.append({"carga": carga, "lugar": lugar, "entorno": entorno, "base": base, "metric": metric,
                         "sobrecarga_pct": pct, "ic_bajo_pct": lo, "ic_alto_pct": hi,
                         "veredicto": noise_verdict(lo, hi)})

    for carga in [c for c in WORKLOADS if c in set(data["carga"])]:
        if carga == "escritura":
            host = _values(data, metric, carga, "bare", "host")
            for entorno in ("docker", "podman"):
                for lugar in ("capa", "volumen"):
                    add(carga, lugar, entorno, "host", _values(data, metric, carga, entorno, lugar), host)
            continue
        for base in ("bare", "chroot"):
            base_values = _values(data, metric, carga, base)
            for entorno in ENVIRONMENTS:
                if entorno != base and not (base == "chroot" and entorno == "bare"):
                    add(carga, "", entorno, base, _values(data, metric, carga, entorno), base_values)
    return pd.DataFrame(rows, columns=["carga", "lugar", "entorno", "base", "metric", "sobrecarga_pct",
                                       "ic_bajo_pct", "ic_alto_pct", "veredicto"])


def _pick(table: pd.DataFrame, **where) -> pd.Series | None:
    sel = table
    for column, value in where.items():
        sel = sel[sel[column] == value]
    return sel.iloc[0] if len(sel) else None


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The seed's three claims, tested per engine. status: confirmada / refutada / ruido / parcial / sin_datos."""
    data = tidy(df)
    out: list[Claim] = []
    work, e2e = overheads(df, METRIC_WORK), overheads(df, METRIC_E2E)
    for engine_name in eng.CONTAINER_ENGINES:
        # 1. exec costs less than 1 ms
        values = _values(data, METRIC_E2E, EXEC_TRUE, engine_name) * 1e3
        statement = f"«exec» cuesta menos de 1 ms ({eng.DISPLAY[engine_name]})"
        if values.size:
            s = measure.summarize(values)
            status = "confirmada" if s.ci_high < 1 else "refutada" if s.ci_low > 1 else "ruido"
            out.append(Claim("exec_1ms", statement, status, s.median, s.ci_low, s.ci_high,
                             {"engine": engine_name, "unidad": "ms"}))
        else:
            out.append(Claim("exec_1ms", statement, "sin_datos", detail={"engine": engine_name}))
    for engine_name in eng.CONTAINER_ENGINES:
        # 2. containers are ~24 % faster than bare metal on hash
        statement = f"Los contenedores son ~24 % más rápidos que bare metal en hash ({eng.DISPLAY[engine_name]})"
        seed_way = _pick(e2e, carga="hash", entorno=engine_name, base="bare")
        if seed_way is None:
            out.append(Claim("hash_24", statement, "sin_datos", detail={"engine": engine_name}))
            continue
        lo, hi = seed_way["ic_bajo_pct"], seed_way["ic_alto_pct"]
        if hi < 0:
            status = "confirmada" if lo <= -24 * 0.5 else "parcial"
        else:
            status = "ruido" if lo <= 0 else "refutada"
        detail = {"engine": engine_name}
        for key, table, base, entorno in (("e2e_vs_host", e2e, "bare", engine_name),
                                          ("trabajo_vs_host", work, "bare", engine_name),
                                          ("trabajo_vs_chroot", work, "chroot", engine_name),
                                          ("chroot_vs_host", work, "bare", "chroot")):
            row = _pick(table, carga="hash", entorno=entorno, base=base)
            if row is not None:
                detail[key] = (row["sobrecarga_pct"], row["ic_bajo_pct"], row["ic_alto_pct"])
        detail["explicacion"] = _hash_explanation(detail)
        out.append(Claim("hash_24", statement, status, seed_way["sobrecarga_pct"], lo, hi, detail))
    for engine_name in eng.CONTAINER_ENGINES:
        # 3. overlay writes ~20 % slower; volumes recover native speed
        for key, place, statement, decide in (
                ("overlay_20", "capa", "Escribir en la capa overlay es ~20 % más lento que en el host",
                 _overlay_status),
                ("volumen_nativo", "volumen", "Un volumen recupera la velocidad nativa de escritura",
                 lambda lo, hi: "confirmada" if lo <= 0 <= hi or (lo > -5 and hi < 5) else "refutada")):
            row = _pick(work, carga="escritura", lugar=place, entorno=engine_name)
            statement = f"{statement} ({eng.DISPLAY[engine_name]})"
            if row is None:
                out.append(Claim(key, statement, "sin_datos", detail={"engine": engine_name}))
                continue
            lo, hi = row["ic_bajo_pct"], row["ic_alto_pct"]
            out.append(Claim(key, statement, decide(lo, hi), row["sobrecarga_pct"], lo, hi, {"engine": engine_name}))
    return out


def _overlay_status(lo: float, hi: float) -> str:
    if lo <= 0 <= hi:
        return "ruido"
    if hi < 0:
        return "refutada"
    return "confirmada" if lo <= 30 and hi >= 10 else "parcial"  # slower, and is it near +20 %?


def _hash_explanation(detail: dict) -> str:
    """Which baseline explains a hash difference: `userland` (the image's binaries differ from the host's),
    `contenedor` (the container itself), `ninguna` (no measurable difference) or `sin_datos`."""
    def differs(key):
        value = detail.get(key)
        return value is not None and not (value[1] <= 0 <= value[2])

    if "trabajo_vs_chroot" not in detail or "chroot_vs_host" not in detail:
        return "sin_datos"
    if differs("trabajo_vs_chroot"):
        return "contenedor"
    if differs("chroot_vs_host"):
        return "userland"
    return "ninguna"


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Seed 000 next to this run for hash and sort: medians (s) and overhead % against bare metal.

    The seed timed `exec` end to end against the host's binaries; this run adds the work alone against
    the image's own binaries (chroot)."""
    live, ref = summarize(df, meta), summarize(reference)
    live_e2e, live_work, ref_e2e = overheads(df, METRIC_E2E), overheads(df, METRIC_WORK), overheads(reference, METRIC_E2E)
    rows = []
    for carga in ("hash", "sort"):
        for entorno in ("bare", "docker", "podman"):
            r = _pick(ref, carga=carga, entorno=entorno, metric=METRIC_E2E)
            if r is None:
                continue
            row = {"carga": carga, "entorno": entorno, "ref_mediana_s": r["mediana_s"],
                   "tu_mediana_e2e_s": np.nan, "tu_mediana_trabajo_s": np.nan,
                   "ref_sobrecarga_pct": np.nan, "tu_sobrecarga_e2e_pct": np.nan,
                   "tu_sobrecarga_e2e_ic": (np.nan, np.nan), "tu_sobrecarga_trabajo_chroot_pct": np.nan,
                   "tu_sobrecarga_trabajo_chroot_ic": (np.nan, np.nan)}
            for column, metric in (("tu_mediana_e2e_s", METRIC_E2E), ("tu_mediana_trabajo_s", METRIC_WORK)):
                m = _pick(live, carga=carga, entorno=entorno, metric=metric)
                if m is not None:
                    row[column] = m["mediana_s"]
            if entorno != "bare":
                rr = _pick(ref_e2e, carga=carga, entorno=entorno, base="bare")
                row["ref_sobrecarga_pct"] = rr["sobrecarga_pct"] if rr is not None else np.nan
                le = _pick(live_e2e, carga=carga, entorno=entorno, base="bare")
                if le is not None:
                    row["tu_sobrecarga_e2e_pct"] = le["sobrecarga_pct"]
                    row["tu_sobrecarga_e2e_ic"] = (le["ic_bajo_pct"], le["ic_alto_pct"])
                lw = _pick(live_work, carga=carga, entorno=entorno, base="chroot")
                if lw is not None:
                    row["tu_sobrecarga_trabajo_chroot_pct"] = lw["sobrecarga_pct"]
                    row["tu_sobrecarga_trabajo_chroot_ic"] = (lw["ic_bajo_pct"], lw["ic_alto_pct"])
            rows.append(row)
    return pd.DataFrame(rows)


def launch_vs_running(arranque_df: pd.DataFrame | None, arranque_meta: dict | None,
                      df: pd.DataFrame | None, meta: dict | None) -> pd.DataFrame:
    """The closing numbers: LAUNCH (experiment 1) next to RUNNING (this experiment), per environment.

    Rows: concepto, tipo (LAUNCH / RUNNING), entorno, valor, ic_bajo, ic_alto, unidad."""
    from . import arranque

    rows = []
    role = ((meta or {}).get("parameters") or {}).get("imagen", "ubuntu")
    if arranque_df is not None and len(arranque_df):
        summary = arranque.summarize(arranque_df, arranque_meta)
        for _, r in summary.iterrows():
            if (r["engine"] == "bare" and r["variant"] == arranque.BASELINE[1]) or \
                    (r["engine"] != "bare" and r["role"] == role):
                rows.append({"concepto": "arranque", "tipo": "LAUNCH", "entorno": r["engine"],
                             "valor": r["mediana_ms"], "ic_bajo": r["ic_bajo_ms"], "ic_alto": r["ic_alto_ms"],
                             "unidad": "ms"})
    if df is not None and len(df):
        for _, r in exec_costs(df).iterrows():
            if r["medida"] == EXEC_TRUE:
                rows.append({"concepto": EXEC_TRUE, "tipo": "RUNNING", "entorno": r["entorno"],
                             "valor": r["mediana_ms"], "ic_bajo": r["ic_bajo_ms"], "ic_alto": r["ic_alto_ms"],
                             "unidad": "ms"})
        table = overheads(df, METRIC_WORK)
        # Against the same userland (chroot) when it was measured, else against the host's binaries.
        with_chroot = set(table.loc[table["base"] == "chroot", "carga"])
        for _, r in table.iterrows():
            wanted = "host" if r["carga"] == "escritura" else "chroot" if r["carga"] in with_chroot else "bare"
            if r["entorno"] in eng.CONTAINER_ENGINES and r["base"] == wanted:
                concepto = f"{r['carga']}:{r['lugar']}" if r["lugar"] else r["carga"]
                rows.append({"concepto": concepto, "tipo": "RUNNING", "entorno": r["entorno"],
                             "valor": r["sobrecarga_pct"], "ic_bajo": r["ic_bajo_pct"],
                             "ic_alto": r["ic_alto_pct"], "unidad": "%"})
    return pd.DataFrame(rows, columns=["concepto", "tipo", "entorno", "valor", "ic_bajo", "ic_alto", "unidad"])
