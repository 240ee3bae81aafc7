"""Experiment 8: system containers versus virtual machines (the Sysbox post, seed 002).

Three kinds of instance, each ready when its init (or its command) prints the ready marker:
- aplicacion: an application container: `sh -c 'echo CURSO-LISTO; exec sleep …'` in the «alpine» image;
- sistema: a system container: PID 1 is busybox init, whose /etc/inittab line prints the marker;
- vm: a QEMU guest (helpers.vm) whose busybox init runs that same inittab line; KVM only if a probe
  boots a guest with it, else TCG (variant `vm_emulada`, labelled «emulada» wherever it appears).
Containers run with no network, like the VM (which has no network card).

Phases:
1. provisioning (LAUNCH): one fresh instance per kind per round, interleaved; time from the launch to
   the marker (`arranque_listo`), then the disk the instance added (`disco_instancia`: the container's
   writable layer, the VM's qcow2 overlay), then removal (not timed);
2. memory: N idle instances of each kind: PSS of every process involved per instance (container:
   its cgroup's processes plus its shim/conmon; VM: QEMU) and the drop of MemAvailable per instance;
   then in each instance `memtoca` allocates, touches and frees MEMORIA_MB: the host's view of the
   instance (cgroup anon memory / QEMU's RSS) before, while touched and after freeing, and the share
   kept (`memoria_retenida_pct`);
3. CPU (RUNNING): gzip of the same 8 MB file with busybox, timed inside by `cronometro`, in one
   instance of each kind and on bare metal, interleaved; the ratio against bare metal.
"""

from __future__ import annotations

import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
import psutil

from .. import cgroups, measure, probes, system, validate, vm
from .. import engines as eng
from ..errors import ComandoFallido, ParametroInvalido
from . import base
from .base import Log, Progress, Resultado, experiment_run, no_progress, print_log

EXPERIMENT = "sistema_vm"
TITLE = "Experimento 8: contenedores de sistema frente a máquinas virtuales"
NOTEBOOK = "08_sistema_vs_vm"
SOURCE = "el artículo sobre el rendimiento de Sysbox"
KINDS = ("aplicacion", "sistema", "vm", "sistema_systemd", "vm_systemd")
DEFAULT_KINDS = ("aplicacion", "sistema", "vm")
VM_KINDS = ("vm", "vm_systemd")
SYSTEMD_KINDS = ("sistema_systemd", "vm_systemd")
VM_ENGINE = "qemu"
BASELINE = ("bare", "proceso")
QUICK = {"REPETICIONES": 1, "INSTANCIAS": 1, "MEMORIA_MB": 32, "CALENTAMIENTO": 0}
DEBIAN_PACKAGES = list(vm.DEBIAN_PACKAGES)
COMPARABLE = ["arranque_listo", "gzip", "memoria_retenida_pct", "memoria_pss_instancia", "disco_instancia"]

CONTROLS = [
    {"name": "tipos", "kind": "multi", "label": "Tipos de instancia", "options": list(KINDS)},
    {"name": "instancias", "kind": "int", "label": "Instancias en reposo", "min": 1, "max": 8},
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 50},
    {"name": "memoria_mb", "kind": "int", "label": "Memoria a tocar (MB)", "min": 16, "max": 1024},
    {
        "name": "aceleracion",
        "kind": "choice",
        "label": "Aceleración de la VM",
        "options": ["auto", "kvm", "tcg"],
    },
    {
        "name": "motor",
        "kind": "choice",
        "label": "Motor de los contenedores",
        "options": list(eng.CONTAINER_ENGINES),
    },
]

# Metrics (unit)
ARRANQUE = "arranque_listo"  # ms, LAUNCH to ready marker
DISCO = "disco_instancia"  # MB on the host's disk added by one instance
PSS = "memoria_pss_instancia"  # MB, PSS of every process of one idle instance
DISPONIBLE = "memoria_disponible_instancia"  # MB, drop of MemAvailable per idle instance
ANTES, DURANTE, DESPUES = "memoria_antes", "memoria_durante", "memoria_despues"  # MB, host's view
RETENIDA = "memoria_retenida_pct"  # % of the touched memory the host still holds after the free
GZIP = "gzip"  # ms of work alone (cronometro)

READY = vm.READY
PAUSE_S = 2  # memtoca's pause between phases
APP_COMMAND = ["/bin/sh", "-c", f"echo {READY}; exec sleep 100000000"]
SYSTEM_COMMAND = ["/bin/busybox", "init"]
GZIP_SCRIPT = "gzip -c /datos/entrada.txt > /dev/null"
LAUNCH_TIMEOUT = 120
MB = 1024 * 1024


def variant_of(kind: str, accel: str) -> str:
    """The variant stored in raw.csv: the VM's carries its acceleration, so emulated figures are never
    mixed with accelerated ones (here, in the class comparison or anywhere else)."""
    if kind in VM_KINDS:
        return f"{kind}_kvm" if accel == "kvm" else f"{kind}_emulada"
    return kind


def is_emulated(variant: str) -> bool:
    return variant.endswith("_emulada")


@dataclass
class Config:
    tipos: list = field(default_factory=lambda: list(DEFAULT_KINDS))
    instancias: int = 2
    repeticiones: int = 5
    calentamiento: int = 1
    memoria_mb: int = 256
    aceleracion: str = "auto"
    motor: str = "docker"

    def validated(self) -> Config:
        tipos = validate.choices("TIPOS", self.tipos, KINDS)
        aceleracion = str(self.aceleracion).strip().lower()
        if aceleracion not in ("auto", "kvm", "tcg"):
            raise ParametroInvalido(f"ACELERACION debe ser «auto», «kvm» o «tcg», no «{self.aceleracion}».")
        motor = str(self.motor).strip().lower()
        if motor not in eng.CONTAINER_ENGINES:
            raise ParametroInvalido(
                f"MOTOR debe ser uno de {', '.join(eng.CONTAINER_ENGINES)}, no «{self.motor}»."
            )
        cfg = Config(
            tipos=tipos,
            instancias=validate.positive_int("INSTANCIAS", self.instancias, maximum=8),
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=50),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=5),
            memoria_mb=validate.positive_int("MEMORIA_MB", self.memoria_mb, minimum=16, maximum=1024),
            aceleracion=aceleracion,
            motor=motor,
        )
        cfg.check_fits()
        return cfg

    @property
    def vm_memory_mb(self) -> int:
        """The guest's RAM: room for the touched chunk on top of the guest's own ~60 MB."""
        return max(vm.BASE_MEMORY_MB, self.memoria_mb + 128)

    def check_fits(self) -> None:
        """Refuse, before launching anything, a plan the host's memory cannot hold."""
        per_vm = sum(self.vm_memory_mb + 64 for k in self.tipos if k in VM_KINDS)  # guest RAM + QEMU, at most
        per_container = 16
        containers = sum(k not in VM_KINDS for k in self.tipos)
        need = self.instancias * (per_vm + containers * per_container) + self.memoria_mb
        available = psutil.virtual_memory().available / MB
        if need > 0.6 * available:
            raise ParametroInvalido(
                f"{self.instancias} instancias de cada tipo podrían necesitar hasta {need:.0f} MB y esta "
                f"máquina tiene {available:.0f} MB disponibles: baja INSTANCIAS o MEMORIA_MB."
            )


def config(**params) -> Config:
    return Config(**params).validated()


# ---------------------------------------------------------------- instances
def _pss(pids) -> tuple[int, int]:
    """(PSS, RSS) in bytes summed over pids (processes that vanished count 0)."""
    pss = rss = 0
    for pid in pids:
        try:
            reading = system.process_memory(psutil.Process(pid))
        except psutil.Error:
            continue
        rss += reading.get("rss") or 0
        pss += reading.get("pss") or reading.get("rss") or 0
    return pss, rss


class ContainerInstance:
    """An application or system container, launched attached until its marker, then left running."""

    def __init__(self, ctx: base.RunContext, engine_name: str, image: str, kind: str, name: str):
        self.ctx, self.kind, self.name, self.image = ctx, kind, name, image
        self.engine = eng.get_engine(engine_name)
        self.container: eng.Container | None = None
        guest = vm.assets()
        volumes = [(str(guest.probes), "/sonda", "ro"), (str(guest.data_file.parent), "/datos", "ro")]
        if kind == "sistema":
            volumes.append((str(guest.rootfs / "etc" / "inittab.contenedor"), "/etc/inittab", "ro"))
        # systemd as PID 1: Podman prepares the container for it (--systemd=always); a terminal (-t) gives
        # it a /dev/console, where the image's ready unit prints the marker.
        extra = ["-t", "--systemd=always"] if kind == "sistema_systemd" else []
        self.opts = eng.RunOptions(network="none", volumes=volumes, extra=extra)
        self.command = {"sistema": SYSTEM_COMMAND, "sistema_systemd": ["/sbin/init"]}.get(kind, APP_COMMAND)

    def start(self) -> float:
        """Launch to ready marker, in ms. The attached client is then killed (SIGKILL is not forwarded
        to the container, which keeps running under its shim / conmon)."""
        argv = self.engine.run_argv(
            self.image, self.command, run_id=self.ctx.run_id, name=self.name, remove=False, opts=self.opts
        )
        child = measure.Child(argv, env=self.engine.env())
        try:
            child.wait_for(READY, LAUNCH_TIMEOUT)
        finally:
            child.detach()
        self.container = self.engine.container(self.name)
        return child.elapsed_ms

    def _cgroup_procs(self) -> list[int] | None:
        """The PIDs in the container's memory cgroup, or None where it cannot be read (rootless Podman
        on cgroup v1 has no cgroup of its own)."""
        if not (self.container and self.container.cgroup):
            return None
        try:
            text = (cgroups.memory_dir(self.container.cgroup) / "cgroup.procs").read_text()
        except OSError:
            return None
        return [int(x) for x in text.split()] or None

    def _namespace_procs(self) -> list[int]:
        """The processes that share the PID namespace of the container's PID 1 (without a cgroup)."""
        try:
            target = os.readlink(f"/proc/{self.container.pid}/ns/pid")
        except OSError:
            return [self.container.pid]
        found = []
        for proc in psutil.process_iter():
            try:
                if os.readlink(f"/proc/{proc.pid}/ns/pid") == target:
                    found.append(proc.pid)
            except OSError:
                continue
        return found

    def processes(self) -> list[int]:
        """Every process of the container itself (not its shim / conmon)."""
        return self._cgroup_procs() or self._namespace_procs()

    def pids(self) -> list[int]:
        procs = self.processes()
        if self.container and self.container.helper_pid:
            procs.append(self.container.helper_pid)
        return procs

    @property
    def memory_basis(self) -> str:
        return (
            "cgroup (memoria anónima)" if self._cgroup_procs() else "RSS de sus procesos (sin cgroup legible)"
        )

    def host_memory(self) -> int:
        """What the host holds for this instance's work: its cgroup's anonymous memory, or, where the
        cgroup cannot be read, the RSS of its processes (bytes)."""
        if self._cgroup_procs():
            try:
                return cgroups.read_memory(self.container.cgroup).anon
            except OSError:
                pass
        return _pss(self.processes())[1]

    def disk_bytes(self) -> int:
        return self.engine.writable_layer_bytes(self.name)

    def start_command(self, command: list[str]) -> measure.Child:
        return measure.Child(self.engine.exec_argv(self.name, command), env=self.engine.env())

    def timed_gzip(self) -> float:
        argv = self.engine.exec_argv(self.name, ["/sonda/cronometro", "sh", "-c", GZIP_SCRIPT])
        _, code, stderr = measure.spawn_and_wait(argv, self.engine.env(), keep_stderr=True)
        return _cronometro_ms(stderr, code)

    def stop(self) -> None:
        self.engine.remove([self.name])


class VMInstance:
    """The course's VM (helpers.vm.VM) behind the same small interface."""

    def __init__(self, ctx: base.RunContext, accel: str, memory_mb: int, name: str, kind: str = "vm"):
        self.kind = kind
        self.name = name
        flavor = "systemd" if kind == "vm_systemd" else "busybox"
        self.vm = vm.VM(
            name,
            accel=accel,
            memory_mb=memory_mb,
            workdir=vm.VM_DIR / "instancias" / ctx.run_id,
            flavor=flavor,
        )
        ctx.defer(self.vm.stop)

    def start(self) -> float:
        elapsed = self.vm.boot(vm.BOOT_TIMEOUT * (4 if self.kind == "vm_systemd" else 1))
        self.vm.sh("stty -echo; PS1=''")  # a quiet console for the commands that follow (not timed)
        return elapsed

    def pids(self) -> list[int]:
        return [self.vm.pid] if self.vm.pid else []

    def host_memory(self) -> int:
        """What the host holds for this instance: QEMU's resident memory (bytes)."""
        return psutil.Process(self.vm.pid).memory_info().rss

    def disk_bytes(self) -> int:
        return self.vm.overlay_bytes()

    def start_command(self, command: list[str]) -> VMCommand:
        return VMCommand(self.vm, command)

    def timed_gzip(self) -> float:
        lines = self.vm.sh(f"/sonda/cronometro sh -c '{GZIP_SCRIPT}' 2>&1", timeout=600)
        return _cronometro_ms("\n".join(lines), 0)

    def stop(self) -> None:
        self.vm.stop()


class VMCommand:
    """A command started on the VM's console, read like a measure.Child."""

    def __init__(self, machine: vm.VM, command: list[str]):
        self.machine = machine
        machine.send(" ".join(command))

    def wait_for(self, marker: str, timeout: float) -> str:
        return self.machine.wait_for(marker, timeout)

    def finish(self, timeout: float = 60) -> None:
        self.machine.sh("true", timeout=timeout)

    def detach(self) -> None:
        pass


def _cronometro_ms(text: str, code: int) -> float:
    elapsed_ns, status = probes.parse_cronometro(text)
    if code != 0 or status != 0:
        raise ComandoFallido(f"gzip falló dentro de la instancia (código {code or status}): {text[-300:]}")
    return elapsed_ns / 1e6


# ---------------------------------------------------------------- run
@dataclass(frozen=True)
class Arm:
    engine: str
    variant: str
    image: str = ""
    label: str = ""
    kind: str = ""


def kind_label(variant: str) -> str:
    return {
        "aplicacion": "contenedor de aplicación",
        "sistema": "contenedor de sistema",
        "vm_emulada": "VM emulada (TCG)",
        "vm_kvm": "VM (KVM)",
        "proceso": "bare metal",
        "sistema_systemd": "contenedor de sistema con systemd (Podman)",
        "vm_systemd_emulada": "VM con systemd, emulada (TCG)",
        "vm_systemd_kvm": "VM con systemd (KVM)",
    }.get(variant, variant)


def systemd_image() -> str | None:
    """The name under which Podman holds the course's Debian image with systemd, or None."""
    podman = eng.get_engine("podman")
    for ref in (f"localhost/{vm.SYSTEMD_IMAGE}", vm.SYSTEMD_IMAGE):
        if podman.image_info(ref):
            return ref
    return None


def plan(cfg: Config, engines_ok: list[str], imgs: dict, accel: str, skip=lambda key, why: None) -> list[Arm]:
    """The arms that can run here; `skip(key, reason)` is told about the others."""
    arms = []
    for kind in cfg.tipos:
        variant = variant_of(kind, accel)
        if kind == "vm_systemd" and (vm.assets() is None or vm.assets().systemd_disk is None):
            skip(
                kind_label(variant),
                vm.systemd_reason() or "falta el disco con systemd: ejecuta «make setup».",
            )
        elif kind in VM_KINDS:
            arms.append(Arm(VM_ENGINE, variant, "", kind_label(variant), kind))
        elif kind == "sistema_systemd":
            image = systemd_image() if "podman" in engines_ok else None
            if image is None:
                skip(
                    kind_label(kind),
                    "hace falta Podman con la imagen curso/debian-systemd (la prepara "
                    "«make setup» como root): Podman sabe arrancar systemd como PID 1 (--systemd=always).",
                )
            else:
                arms.append(Arm("podman", kind, image, kind_label(kind), kind))
        elif cfg.motor in engines_ok:
            arms.append(Arm(cfg.motor, kind, imgs[cfg.motor]["alpine"]["name"], kind_label(kind), kind))
    return arms


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    cfg = cfg.validated()
    vm_wanted = any(k in VM_KINDS for k in cfg.tipos)
    vm_ok, vm_reason = vm.availability() if vm_wanted else (False, None)
    accel, accel_reason = ("tcg", "")
    if vm_wanted and vm_ok:
        accel, accel_reason = vm.resolve_acceleration(cfg.aceleracion)  # kvm that does not work: error now
    if any(k not in VM_KINDS for k in cfg.tipos) and vm.assets() is None:
        raise ParametroInvalido(
            "Faltan las sondas y el disco del curso (~/.cache/curso-contenedores/vm): ejecuta «make setup»."
        )
    motores = [cfg.motor] if any(k in ("aplicacion", "sistema") for k in cfg.tipos) else []
    if "sistema_systemd" in cfg.tipos:
        motores.append("podman")
    with experiment_run(
        EXPERIMENT, asdict(cfg), motores, image_roles=["alpine"] if motores else [], root=root, log=log
    ) as ctx:
        if vm_wanted and not vm_ok:
            ctx.skip_arm("VM", vm_reason)
        # The run's overlays live in one folder, removed with the run (after every VM of it has stopped:
        # clean-up steps run last-in first-out).
        ctx.defer(shutil.rmtree, vm.VM_DIR / "instancias" / ctx.run_id, ignore_errors=True)
        arms = plan(cfg, ctx.engines, ctx.images, accel, skip=ctx.skip_arm)
        if any(a.kind == "vm_systemd" for a in arms) and accel == "tcg":
            log("Aviso: una VM emulada con systemd tarda entre medio minuto y dos minutos en arrancar aquí.")
        if vm_wanted and vm_ok:
            log(f"VM: {accel_reason}")
            if accel == "tcg":
                log(
                    "Las cifras de la VM son de una VM emulada (TCG): sirven para ver mecanismos, "
                    "no para juzgar la velocidad de una VM."
                )
        if os.geteuid() != 0:
            log(
                "Sin root: la PSS de los procesos del motor (shim, conmon) puede no ser legible; "
                "se usa su RSS."
            )
        guest = vm.assets()
        ctx.run.update_meta(
            vm={
                "acceleration": accel,
                "reason": accel_reason,
                "machine": vm.MACHINE,
                "memory_mb": cfg.vm_memory_mb,
                "kernel": guest.kernel_version if guest else None,
                "qemu": _qemu_version(),
                "emulated": accel == "tcg",
            },
            kinds={a.variant: a.label for a in arms},
        )
        if not arms:
            log("No queda ningún tipo de instancia que medir aquí.")
            return Resultado.load(ctx.run.dir)
        counter = iter(range(1, 10**6))

        def make(arm: Arm, tag: str):
            name = ctx.container_name(arm.kind, tag, next(counter))
            if arm.kind in VM_KINDS:
                memory = max(cfg.vm_memory_mb, 384) if arm.kind == "vm_systemd" else cfg.vm_memory_mb
                return VMInstance(ctx, accel, memory, name, arm.kind)
            return ContainerInstance(ctx, arm.engine, arm.image, arm.kind, name)

        # 1. provisioning time and disk per instance
        def provision_one(arm: Arm):
            instance = make(arm, "arranque")
            try:
                elapsed = instance.start()
                disk = instance.disk_bytes() / MB
            finally:
                instance.stop()
            return [(ARRANQUE, round(elapsed, 3), "ms"), (DISCO, round(disk, 4), "MB")]

        log("1/3 Arranque hasta «listo» y disco por instancia, intercalados.")
        base.measure_rounds(
            ctx,
            arms,
            repetitions=cfg.repeticiones,
            warmup=cfg.calentamiento,
            measure=provision_one,
            progress=progress,
        )

        # 2. memory: N idle instances per kind, then memory given back
        log(
            f"2/3 Memoria: {cfg.instancias} instancia(s) en reposo por tipo; luego cada una toca y "
            f"libera {cfg.memoria_mb} MB."
        )
        running: dict[Arm, list] = {}
        total = len(arms) * cfg.instancias * 2
        done = 0
        for arm in arms:
            before = psutil.virtual_memory().available
            group = []
            running[arm] = group
            for i in range(cfg.instancias):
                progress(done, total, f"{arm.label}: arrancando {i + 1}/{cfg.instancias}")
                instance = make(arm, "reposo")
                group.append(instance)
                instance.start()
                done += 1
            time.sleep(2)  # let the instances settle before reading their memory
            after = psutil.virtual_memory().available
            for i, instance in enumerate(group, 1):
                pss, rss = _pss(instance.pids())
                _append(ctx, arm, i, PSS, pss / MB, "MB")
                _append(ctx, arm, i, "memoria_rss_instancia", rss / MB, "MB")
            _append(ctx, arm, 1, DISPONIBLE, (before - after) / MB / cfg.instancias, "MB")
            basis = getattr(group[0], "memory_basis", "RSS del proceso de QEMU")
            ctx.run.meta.setdefault("memory_basis", {})[arm.variant] = basis
            if arm.kind not in VM_KINDS and not basis.startswith("cgroup"):
                log(
                    f"{arm.label}: sin cgroup legible (¿sin root?); su memoria se lee como RSS de sus procesos."
                )
            for i, instance in enumerate(group, 1):
                progress(
                    done, total, f"{arm.label}: toca y libera {cfg.memoria_mb} MB ({i}/{cfg.instancias})"
                )
                for metric, value in memory_given_back(instance, cfg.memoria_mb).items():
                    _append(ctx, arm, i, metric, value, "%" if metric == RETENIDA else "MB")
                done += 1
            if arm.kind in SYSTEMD_KINDS:  # the gzip comparison uses the busybox kinds only
                for instance in group:
                    instance.stop()
                del running[arm]
            elif arm.kind in VM_KINDS:  # VMs hold memory: stop them before the next kind is measured
                for instance in group[1:]:
                    instance.stop()
                del group[1:]
        progress(total, total, "memoria medida")

        # 3. gzip in one instance of each kind and on bare metal, interleaved
        log("3/3 Trabajo de CPU: gzip del mismo archivo de 8 MB con busybox, dentro de cada instancia.")
        for group in running.values():
            for instance in group[1:]:
                instance.stop()
        first = {arm.variant: group[0] for arm, group in running.items()}
        bare_arm = Arm("bare", BASELINE[1], "", "bare metal", "bare")
        busybox = guest.rootfs / "bin" / "busybox"
        bare_argv = [
            str(probes.path("cronometro")),
            str(busybox),
            "sh",
            "-c",
            f"{busybox} gzip -c {guest.data_file} > /dev/null",
        ]

        def gzip_one(arm: Arm):
            if arm.engine == "bare":
                _, code, stderr = measure.spawn_and_wait(bare_argv, keep_stderr=True)
                return [(GZIP, round(_cronometro_ms(stderr, code), 3), "ms")]
            return [(GZIP, round(first[arm.variant].timed_gzip(), 3), "ms")]

        gzip_arms = [a for a in arms if a.kind not in SYSTEMD_KINDS]
        base.measure_rounds(
            ctx,
            [bare_arm, *gzip_arms],
            repetitions=cfg.repeticiones,
            warmup=cfg.calentamiento,
            measure=gzip_one,
            progress=progress,
            meta={
                "gzip": {
                    "input_mb": vm.GUEST_DATA_MB,
                    "tool": "busybox gzip",
                    "timer": "probes/cronometro (CLOCK_MONOTONIC dentro)",
                }
            },
        )
        for group in running.values():
            for instance in group:
                instance.stop()
    return Resultado.load(ctx.run.dir)


def _append(ctx, arm: Arm, rep: int, metric: str, value: float, unit: str) -> None:
    ctx.run.append(
        engine=arm.engine,
        image=arm.image,
        variant=arm.variant,
        rep=rep,
        metric=metric,
        value=round(float(value), 4),
        unit=unit,
    )


def memory_given_back(instance, megabytes: int) -> dict[str, float]:
    """Touch and free `megabytes` inside the instance; the host's view before, while touched, after."""
    before = instance.host_memory()
    command = instance.start_command(["/sonda/memtoca", str(megabytes), str(PAUSE_S)])
    try:
        command.wait_for("memtoca tocado", 300)
        during = instance.host_memory()
        command.wait_for("memtoca liberado", 300)
        time.sleep(0.5)  # the host's accounting settles
        after = instance.host_memory()
    finally:
        if isinstance(command, measure.Child):
            command.stop()
        else:
            command.finish()
    touched = during - before
    kept = 100.0 * (after - before) / touched if touched > 0 else float("nan")
    return {ANTES: before / MB, DURANTE: during / MB, DESPUES: after / MB, RETENIDA: kept}


def _qemu_version() -> str | None:
    import subprocess

    binary = vm.qemu_binary()
    if not binary:
        return None
    return subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split("\n")[0]


# ---------------------------------------------------------------- analysis
def _values(df: pd.DataFrame, metric: str, variant: str) -> np.ndarray:
    sel = df[(df["metric"] == metric) & (df["variant"] == variant)]
    return sel["value"].astype(float).to_numpy()


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per (metric, variant): n, median, IQR, min, IC 95 %; gzip also as x bare metal."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows)
    bare = _values(df, GZIP, BASELINE[1])
    for (metric, engine, variant), group in df.groupby(["metric", "engine", "variant"], sort=False):
        values = group["value"].astype(float).to_numpy()
        s = measure.summarize(values)
        row = {
            "metrica": metric,
            "motor": engine,
            "tipo": variant,
            "n": s.n,
            "mediana": s.median,
            "q1": s.q1,
            "q3": s.q3,
            "minimo": s.minimum,
            "ic_bajo": s.ci_low,
            "ic_alto": s.ci_high,
            "unidad": group["unit"].iloc[0],
            "emulada": is_emulated(variant),
            "inestable": measure.unstable(values) if hasattr(measure, "unstable") else False,
        }
        if metric == GZIP and variant != BASELINE[1] and bare.size:
            row["x_bare"], row["x_bare_bajo"], row["x_bare_alto"] = measure.bootstrap_ratio_ci(values, bare)
        rows.append(row)
    return pd.DataFrame(rows)


def ratio(
    df: pd.DataFrame, metric: str, num_variant: str, den_variant: str
) -> tuple[float, float, float, int]:
    a, b = _values(df, metric, num_variant), _values(df, metric, den_variant)
    value, low, high = measure.bootstrap_ratio_ci(a, b)
    return value, low, high, int(min(a.size, b.size))


def vm_variant(df: pd.DataFrame) -> str | None:
    present = set(df["variant"]) if df is not None and not df.empty else set()
    for variant in ("vm_kvm", "vm_emulada"):
        if variant in present:
            return variant
    return None


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[base.Claim]:
    out: list[base.Claim] = []
    vmv = vm_variant(df)
    emulated = vmv == "vm_emulada"
    defer = (
        "La VM de esta máquina es emulada (TCG, sin KVM que funcione): su velocidad no dice nada de "
        "una VM acelerada. Lo decide la comparación de la clase, con las máquinas que tienen KVM."
    )

    # Provisioning: system containers 10x faster than VMs (busybox init on both sides; systemd too if measured)
    statement = "Los contenedores de sistema se aprovisionan unas 10 veces más rápido que las VMs."
    present = set(df["variant"]) if df is not None and not df.empty else set()
    if vmv and "sistema" in present:
        out.append(_provision_claim("arranque_10x", statement, df, vmv, "sistema", defer, "busybox init"))
    else:
        out.append(base.no_data("arranque_10x", statement, SOURCE))
    sd_vm = next((v for v in ("vm_systemd_kvm", "vm_systemd_emulada") if v in present), None)
    if sd_vm and "sistema_systemd" in present:
        out.append(
            _provision_claim(
                "arranque_10x_systemd",
                statement + " (systemd en los dos lados)",
                df,
                sd_vm,
                "sistema_systemd",
                defer,
                "systemd",
            )
        )

    # Memory the guest freed stays with the VM
    statement = "Las VMs se quedan con la memoria que el sistema huésped ya liberó."
    if vmv:
        kept = _values(df, RETENIDA, vmv)
        s = measure.summarize(kept)
        out.append(
            _judge(
                "vm_retiene_memoria",
                statement,
                SOURCE,
                s.median,
                s.ci_low,
                s.ci_high,
                claimed=100.0,
                region=(80.0, 120.0),
                n=s.n,
                unit="%",
                detail={"variante_vm": vmv, "emulada": emulated},
            )
        )
    else:
        out.append(base.no_data("vm_retiene_memoria", statement, SOURCE))
    statement = "En un contenedor, la memoria liberada vuelve al host de inmediato."
    kind = "sistema" if df is not None and (df["variant"] == "sistema").any() else "aplicacion"
    kept = _values(df, RETENIDA, kind) if df is not None and not df.empty else np.array([])
    if kept.size:
        s = measure.summarize(kept)
        out.append(
            _judge(
                "contenedor_devuelve_memoria",
                statement,
                SOURCE,
                s.median,
                s.ci_low,
                s.ci_high,
                claimed=0.0,
                region=(-10.0, 10.0),
                n=s.n,
                unit="%",
                detail={"tipo": kind},
            )
        )
    else:
        out.append(base.no_data("contenedor_devuelve_memoria", statement, SOURCE))

    # Disk per instance
    statement = "Cada VM añade unos 650 MB de disco, aunque todas partan de la misma imagen maestra."
    if vmv:
        disk = _values(df, DISCO, vmv)
        s = measure.summarize(disk)
        out.append(
            _judge(
                "vm_disco_650",
                statement,
                SOURCE,
                s.median,
                s.ci_low,
                s.ci_high,
                claimed=650.0,
                region=(650 / 1.5, 650 * 1.5),
                n=s.n,
                unit="MB",
                detail={"variante_vm": vmv, "emulada": emulated},
            )
        )
    else:
        out.append(base.no_data("vm_disco_650", statement, SOURCE))
    statement = "Cada contenedor añade solo unos pocos MB de disco."
    disk = _values(df, DISCO, kind) if df is not None and not df.empty else np.array([])
    if disk.size:
        s = measure.summarize(disk)
        out.append(
            _judge(
                "contenedor_disco_pocos_mb",
                statement,
                SOURCE,
                s.median,
                s.ci_low,
                s.ci_high,
                claimed=3.0,
                region=(0.0, 10.0),
                n=s.n,
                unit="MB",
                detail={"tipo": kind},
            )
        )
    else:
        out.append(base.no_data("contenedor_disco_pocos_mb", statement, SOURCE))

    # CPU-bound work: alike in every kind (the VM only with KVM)
    statement = (
        "El trabajo de CPU (gzip) rinde casi igual en un contenedor, en un contenedor de sistema y en una VM."
    )
    for variant in [k for k in ("sistema", "aplicacion") if df is not None and (df["variant"] == k).any()][
        :1
    ]:
        value, low, high, n = _gzip_ratio(df, variant)
        out.append(
            _judge(
                f"gzip_{variant}",
                statement,
                SOURCE,
                value,
                low,
                high,
                claimed=1.0,
                region=(0.95, 1.05),
                n=n,
                unit="x bare metal",
                detail={"tipo": variant},
                unstable=measure.unstable(_values(df, GZIP, variant)),
            )
        )
    if vmv:
        value, low, high, n = _gzip_ratio(df, vmv)
        detail = {"tipo": vmv, "emulada": emulated}
        if emulated:
            detail["tcg"] = True
            detail["motivo"] = defer + " La proporción medida es el costo de emular la CPU, no el de una VM."
            out.append(
                base.Claim(
                    f"gzip_{vmv}",
                    statement,
                    base.NO_CONCLUYENTE,
                    value,
                    low,
                    high,
                    detail,
                    SOURCE,
                    1.0,
                    (0.95, 1.05),
                    "x bare metal",
                    n,
                )
            )
        else:
            out.append(
                _judge(
                    f"gzip_{vmv}",
                    statement,
                    SOURCE,
                    value,
                    low,
                    high,
                    claimed=1.0,
                    region=(0.95, 1.05),
                    n=n,
                    unit="x bare metal",
                    detail=detail,
                )
            )
    return out


MIN_N = 3  # fewer values than this give no interval worth the name: no verdict either way


def _judge(
    key: str, statement: str, source: str, value: float, low: float, high: float, *, n: int, **kw
) -> base.Claim:
    """base.judge, except that with fewer than MIN_N values the interval is a point and decides
    nothing: «no concluyente», saying why."""
    if 0 < n < MIN_N:
        detail = dict(kw.get("detail") or {})
        detail["motivo"] = (
            f"Con n = {n} no hay intervalo de confianza: hacen falta al menos {MIN_N} "
            "repeticiones (o instancias) para decidir."
        )
        return base.Claim(
            key,
            statement,
            base.NO_CONCLUYENTE,
            value,
            low,
            high,
            detail,
            source,
            kw.get("claimed", float("nan")),
            tuple(kw.get("region", (float("-inf"), float("inf")))),
            kw.get("unit", ""),
            n,
            MIN_N,
        )
    return base.judge(key, statement, source, value, low, high, n=n, **kw)


def _provision_claim(
    key: str, statement: str, df: pd.DataFrame, vm_variant_: str, system_variant: str, defer: str, init: str
) -> base.Claim:
    value, low, high, n = ratio(df, ARRANQUE, vm_variant_, system_variant)
    detail = {"variante_vm": vm_variant_, "emulada": is_emulated(vm_variant_), "init": init}
    if is_emulated(vm_variant_):
        detail["tcg"] = True
        detail["motivo"] = defer
        return base.Claim(
            key, statement, base.NO_CONCLUYENTE, value, low, high, detail, SOURCE, 10.0, (7.5, 13.3), "x", n
        )
    return _judge(
        key,
        statement,
        SOURCE,
        value,
        low,
        high,
        claimed=10.0,
        region=(7.5, 13.3),
        n=n,
        unit="x",
        detail=detail,
        unstable=measure.unstable(_values(df, ARRANQUE, vm_variant_)),
    )


def _gzip_ratio(df: pd.DataFrame, variant: str) -> tuple[float, float, float, int]:
    return ratio(df, GZIP, variant, BASELINE[1])


def _median(df: pd.DataFrame, metric: str, variant: str | None) -> float:
    values = _values(df, metric, variant) if variant else np.array([])
    return float(np.median(values)) if values.size else float("nan")


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Our figures next to the post's, as ratios where the post gives them."""
    rows = []
    if reference is None or reference.empty:
        return pd.DataFrame(rows)
    vmv = vm_variant(df) if df is not None else None
    suffix = " (VM emulada)" if vmv == "vm_emulada" else ""

    def ref(metric: str) -> float:
        sel = reference[reference["metric"] == metric]
        return float(sel["value"].iloc[0]) if len(sel) else float("nan")

    def add(concepto, nuestro, low, high, referencia, unidad):
        rows.append(
            {
                "concepto": concepto,
                "aquí": nuestro,
                "ic_bajo": low,
                "ic_alto": high,
                "referencia": referencia,
                "unidad": unidad,
            }
        )

    have = df is not None and not df.empty
    if have and vmv and (df["variant"] == "sistema").any():
        value, low, high, _ = ratio(df, ARRANQUE, vmv, "sistema")
        add(
            "arranque VM / contenedor de sistema" + suffix,
            value,
            low,
            high,
            ref("arranque_vm_vs_sistema"),
            "x",
        )
        value, low, high, _ = ratio(df, PSS, vmv, "sistema")
        add(
            "memoria en reposo VM / contenedor de sistema" + suffix,
            value,
            low,
            high,
            ref("memoria_vm_vs_sistema"),
            "x",
        )
    if have and vmv:
        s = measure.summarize(_values(df, DISCO, vmv))
        add("disco que añade cada VM" + suffix, s.median, s.ci_low, s.ci_high, ref("disco_vm"), "MB")
        s = measure.summarize(_values(df, RETENIDA, vmv))
        add(
            "memoria liberada que la VM retiene" + suffix,
            s.median,
            s.ci_low,
            s.ci_high,
            ref("memoria_vm_retenida"),
            "%",
        )
    if have and (df["variant"] == "sistema").any():
        value, low, high, _ = _gzip_ratio(df, "sistema")
        add("gzip en contenedor de sistema / bare metal", value, low, high, ref("gzip_sistema_vs_bare"), "x")
    return pd.DataFrame(rows)


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows, columns=base.CLOSING_COLUMNS)
    for variant in (
        "aplicacion",
        "sistema",
        "vm_kvm",
        "vm_emulada",
        "sistema_systemd",
        "vm_systemd_kvm",
        "vm_systemd_emulada",
    ):
        values = _values(df, ARRANQUE, variant)
        if values.size and not measure.unstable(values):
            s = measure.summarize(values)
            rows.append(
                {
                    "concepto": f"arranque hasta «listo»: {kind_label(variant)}",
                    "tipo": "LAUNCH",
                    "entorno": kind_label(variant),
                    "valor": s.median,
                    "ic_bajo": s.ci_low,
                    "ic_alto": s.ci_high,
                    "unidad": "ms",
                }
            )
        values = _values(df, GZIP, variant)
        if values.size and not measure.unstable(values):
            value, low, high, _ = _gzip_ratio(df, variant)
            if not math.isnan(value):
                concepto = (
                    f"gzip: costo de emular la CPU ({kind_label(variant)}; no es el costo de una VM)"
                    if is_emulated(variant)
                    else f"gzip: {kind_label(variant)}"
                )
                rows.append(
                    {
                        "concepto": concepto,
                        "tipo": "RUNNING",
                        "entorno": kind_label(variant),
                        "valor": value,
                        "ic_bajo": low,
                        "ic_alto": high,
                        "unidad": "x bare metal",
                    }
                )
    return pd.DataFrame(rows, columns=base.CLOSING_COLUMNS)


def provision(log: Log = print_log) -> None:
    """`make setup`: build the course's VM once (kernel, initramfs, base disk) and probe KVM."""
    found = vm.provision(log)
    if found is None:
        return
    ok, why = vm.kvm_status()
    log(f"KVM: {'funciona' if ok else 'no disponible'}: {why}")
