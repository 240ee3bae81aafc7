"""Experiment 8's parameters (Config), its arms (plan) and how they run: run().

The phases (phases.py): provisioning and disk per instance, idle memory and memory given back, then the
workloads (gzip, fio); scenario 3 (lxd_nested.py): an engine nested in a system container, prepared
once, measured in the workloads and against the same engine on the host; last, density (density.py):
N instances of each kind at once, limited, with the CPUs overcommitted.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import asdict, dataclass

import psutil

from ... import engines as eng
from ... import vm
from ...engines import lxd
from ...errors import ParametroInvalido
from ..params import Params, param
from ..runner import Log, Progress, Resultado, experiment_run, no_progress, print_log
from . import density, disk_io, lxd_nested, network, phases, workload
from .instances import ContainerInstance, VMInstance
from .kinds import (
    DEFAULT_KINDS,
    EXPERIMENT,
    KINDS,
    LXD_COW,
    LXD_ENGINE,
    LXD_KINDS,
    MB,
    NESTED,
    VM_ENGINE,
    VM_KINDS,
    Arm,
    kind_label,
    variant_of,
)
from .lxd_instances import LXDInstance, lxd_name

# The pool of each LXD kind: `dir` (ext4, like the host engine's overlay2) except the copy-on-write kind.
POOLS = {"sistema_lxd": lxd.POOL, LXD_COW: lxd.POOL_COW, NESTED: lxd.POOL}


@dataclass
class Config(Params):
    tipos: list = param(list(DEFAULT_KINDS), "Tipos de instancia", options=KINDS)
    instancias: int = param(1, "Instancias en reposo", minimum=1, maximum=8)
    repeticiones: int = param(6, "Repeticiones", minimum=1, maximum=50)
    calentamiento: int = param(1, minimum=0, maximum=5)
    memoria_mb: int = param(256, "Memoria a tocar (MiB)", minimum=16, maximum=1024)
    aceleracion: str = param("auto", "Aceleración de la VM", options=("auto", "kvm", "tcg"))
    motor: str = param("docker", "Motor de los contenedores", options=tuple(eng.CONTAINER_ENGINES))
    densidad: int = param(
        4, "Instancias a la vez (densidad), como mucho; 0: sin densidad", minimum=0, maximum=8
    )

    def check(self) -> None:
        self.check_fits()

    @property
    def vm_memory_mb(self) -> int:
        """The guest's RAM: room for the touched chunk on top of the guest's own ~60 MB."""
        return max(vm.BASE_MEMORY_MB, self.memoria_mb + 128)

    def check_fits(self) -> None:
        """Refuse, before launching anything, a plan the host's memory cannot hold."""
        per_vm = sum(self.vm_memory_mb + 64 for k in self.tipos if k in VM_KINDS)  # guest RAM + QEMU, at most
        per_container = 16
        containers = sum(k not in VM_KINDS for k in self.tipos)
        most = max(self.instancias, self.densidad)
        need = most * (per_vm + containers * per_container) + self.memoria_mb * max(1, self.densidad)
        available = psutil.virtual_memory().available / MB
        if need > 0.6 * available:
            raise ParametroInvalido(
                f"{most} instancias de cada tipo podrían necesitar hasta {need:.0f} MiB y esta "
                f"máquina tiene {available:.0f} MiB disponibles: baja INSTANCIAS, DENSIDAD o MEMORIA_MB."
            )


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
    tipos = list(cfg.tipos)
    lxd_ok, lxd_why = lxd.availability() if any(k in LXD_KINDS for k in tipos) else (True, None)
    if not lxd_ok and "sistema_lxd" in tipos and "sistema_systemd" not in tipos:
        tipos.append("sistema_systemd")  # the stand-in where LXD is absent, named as such
    for kind in tipos:
        variant = variant_of(kind, accel)
        if kind in LXD_KINDS and not lxd_ok:
            instead = (
                " En su lugar: Podman con --systemd=always (sustituto)." if kind == "sistema_lxd" else ""
            )
            skip(kind_label(kind), f"{lxd_why}{instead}")
        elif kind == LXD_COW and lxd.POOL_COW not in lxd.pools():
            skip(
                kind_label(kind),
                "LXD no tiene el pool con copia en escritura (btrfs: hace falta que el kernel lo tenga y el "
                "paquete btrfs-progs); lo crea «sudo make setup».",
            )
        elif kind in LXD_KINDS:
            arms.append(Arm(LXD_ENGINE, kind, "", kind_label(kind), kind))
        elif kind == "vm_systemd" and (vm.assets() is None or vm.assets().systemd_disk is None):
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
    lxd_wanted = any(k in LXD_KINDS for k in cfg.tipos)
    if "sistema_systemd" in cfg.tipos or ("sistema_lxd" in cfg.tipos and not lxd.availability()[0]):
        motores.append("podman")
    if NESTED in cfg.tipos:
        motores += list(eng.CONTAINER_ENGINES)  # the same engine on the host, for the nested comparison
    motores = list(dict.fromkeys(motores))
    with experiment_run(
        EXPERIMENT, asdict(cfg), motores, image_roles=["alpine"] if motores else [], root=root, log=log
    ) as ctx:
        if vm_wanted and not vm_ok:
            ctx.skip_arm("VM", vm_reason)
        # The run's overlays live in one folder, removed with the run (after every VM of it has stopped:
        # clean-up steps run last-in first-out).
        ctx.defer(shutil.rmtree, vm.VM_DIR / "instancias" / ctx.run_id, ignore_errors=True)
        if lxd_wanted and lxd.availability()[0]:
            lxd.reap_orphans(log)
            ctx.defer(lxd.cleanup, ctx.run_id)  # every instance of this run, whatever happens
            pools = {k: POOLS[k] for k in cfg.tipos if k in POOLS}
            ctx.run.update_meta(lxd={"version": lxd.version(), "pools": pools, "network": "ninguna"})
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
                "Sin root: la PSS de los procesos del motor (shim, conmon) puede no ser legible; se usa su RSS."
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

        def make(arm: Arm, tag: str, cpus: int | None = None, memory_mb: int | None = None):
            """A new instance of `arm`, owned by the run; cpus and memory_mb: its limits (the density
            phase's), none by default."""
            name = ctx.container_name(arm.kind, tag, next(counter))
            limits = {"cpus": cpus, "memory_mb": memory_mb}
            if arm.kind in LXD_KINDS:
                name = lxd_name(ctx, arm.kind, tag, next(counter))
                pool = POOLS[arm.kind]
                return LXDInstance(ctx, arm.kind, name, nested=arm.kind == NESTED, pool=pool, **limits)
            if arm.kind in VM_KINDS:
                memory = max(cfg.vm_memory_mb, 384) if arm.kind == "vm_systemd" else cfg.vm_memory_mb
                return VMInstance(ctx, accel, memory_mb or memory, name, arm.kind, cpus=cpus or 1)
            return ContainerInstance(ctx, arm.engine, arm.image, arm.kind, name, **limits)

        phases.provisioning(ctx, cfg, arms, make, progress, log)
        running = phases.memory(ctx, cfg, arms, make, progress, log)
        nested_arm = next((a for a in arms if a.kind == NESTED), None)
        nested = lxd_nested.prepare(ctx, make, nested_arm, log) if nested_arm else None
        engine = None
        if nested is not None:
            try:
                engine = nested.workload_engine(cfg.motor)
            except Exception as exc:  # noqa: BLE001 - the nested run comparison can still go on
                ctx.skip_arm("gzip y fio en el motor anidado", f"su contenedor no arrancó: {exc}")
        network.rounds(ctx, cfg, arms, running, nested, accel, progress, log)
        phases.workloads(ctx, cfg, guest, running, nested, engine, progress, log)
        if nested is not None:
            lxd_nested.run_rounds(ctx, cfg, nested, progress, log)
            lxd_nested.finish(ctx, nested, nested_arm)
        density.run(ctx, cfg, arms, make, progress, log)
    return Resultado.load(ctx.run.dir)


def _qemu_version() -> str | None:
    binary = vm.qemu_binary()
    if not binary:
        return None
    return subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split("\n")[0]


def provision(log: Log = print_log) -> None:
    """`make setup`: build the course's VM once (kernel, initramfs, base disk), gather GNU gzip, fio and
    iperf3 for the instances and probe KVM."""
    found = vm.provision(log)
    if found is None:
        return
    workload.provision(log)
    disk_io.provision(log)
    network.provision(log)
    ok, why = vm.kvm_status()
    log(f"KVM: {'funciona' if ok else 'no disponible'}: {why}")
