"""Experiment 8's parameters (Config), its arms and how they run: run().

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

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil

from ... import engines as eng
from ... import measure, probes, vm
from ...engines import lxd, lxd_nested
from ...errors import ParametroInvalido
from .. import runner
from ..params import Params, param
from ..runner import Log, Progress, Resultado, experiment_run, measure_rounds, no_progress, print_log
from .instances import ContainerInstance, VMInstance, cronometro_ms
from .kinds import (
    ARRANQUE,
    BASELINE,
    DEFAULT_KINDS,
    DISCO,
    DISPONIBLE,
    EXPERIMENT,
    FASES_LXD,
    GZIP,
    HOST_RUN,
    KINDS,
    LXD_ENGINE,
    LXD_KINDS,
    MB,
    PSS,
    PSS_DAEMON,
    PSS_MONITOR,
    RETENIDA,
    RUN_MOTOR,
    SYSTEMD_KINDS,
    VM_ENGINE,
    VM_KINDS,
    kind_label,
    variant_of,
)
from .lxd_instances import LXDInstance, daemon_pss_mb, lxd_name, timed_host_run
from .memory import memory_given_back, pss


@dataclass
class Config(Params):
    tipos: list = param(list(DEFAULT_KINDS), "Tipos de instancia", options=KINDS)
    instancias: int = param(2, "Instancias en reposo", minimum=1, maximum=8)
    repeticiones: int = param(5, "Repeticiones", minimum=1, maximum=50)
    calentamiento: int = param(1, minimum=0, maximum=5)
    memoria_mb: int = param(256, "Memoria a tocar (MB)", minimum=16, maximum=1024)
    aceleracion: str = param("auto", "Aceleración de la VM", options=("auto", "kvm", "tcg"))
    motor: str = param("docker", "Motor de los contenedores", options=tuple(eng.CONTAINER_ENGINES))

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
        need = self.instancias * (per_vm + containers * per_container) + self.memoria_mb
        available = psutil.virtual_memory().available / MB
        if need > 0.6 * available:
            raise ParametroInvalido(
                f"{self.instancias} instancias de cada tipo podrían necesitar hasta {need:.0f} MB y esta "
                f"máquina tiene {available:.0f} MB disponibles: baja INSTANCIAS o MEMORIA_MB."
            )


@dataclass(frozen=True)
class Arm(runner.Arm):
    kind: str = ""


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
            skip(kind_label(kind), f"{lxd_why} En su lugar: Podman con --systemd=always (sustituto).")
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


def _mb(nbytes: float) -> float:
    return round(float(nbytes) / MB, 4)


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
    if "anidado_lxd" in cfg.tipos:
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
            ctx.run.update_meta(lxd={"version": lxd.version(), "pool": "dir", "network": "ninguna"})
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
            if arm.kind in LXD_KINDS:
                name = lxd_name(ctx, arm.kind, tag, next(counter))
                return LXDInstance(ctx, arm.kind, name, nested=arm.kind == "anidado_lxd")
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
            rows = [(ARRANQUE, round(elapsed, 3), "ms"), (DISCO, round(disk, 4), "MB")]
            for phase, value in getattr(instance, "phases", {}).items():
                rows.append((FASES_LXD[phase], round(value, 3), "ms"))
            return rows

        log("1/3 Arranque hasta «listo» y disco por instancia, intercalados.")
        measure_rounds(
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
        total = len([a for a in arms if a.kind != "anidado_lxd"]) * cfg.instancias * 2
        done = 0
        for arm in [a for a in arms if a.kind != "anidado_lxd"]:
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
                pss_bytes, rss_bytes = pss(instance.pids())
                ctx.record(arm, PSS, _mb(pss_bytes), "MB", rep=i)
                ctx.record(arm, "memoria_rss_instancia", _mb(rss_bytes), "MB", rep=i)
                if arm.kind in LXD_KINDS:  # its `[lxc monitor]` (inside the figure above), also apart
                    monitor = lxd.monitor_pid(instance.name)
                    ctx.record(arm, PSS_MONITOR, _mb(pss([monitor] if monitor else [])[0]), "MB", rep=i)
            ctx.record(arm, DISPONIBLE, _mb((before - after) / cfg.instancias), "MB", rep=1)
            if arm.kind in LXD_KINDS and (daemon := daemon_pss_mb()) is not None:
                ctx.record(arm, PSS_DAEMON, round(daemon, 4), "MB", rep=1)  # once, for all instances
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
                    unit = "%" if metric == RETENIDA else "MB"
                    ctx.record(arm, metric, round(float(value), 4), unit, rep=i)
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
                return [(GZIP, round(cronometro_ms(stderr, code), 3), "ms")]
            return [(GZIP, round(first[arm.variant].timed_gzip(), 3), "ms")]

        gzip_arms = [a for a in arms if a.kind not in SYSTEMD_KINDS and a.kind != "anidado_lxd"]
        measure_rounds(
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

        # 4. an engine nested in an unprivileged system container, against the same engine on the host
        if any(a.kind == "anidado_lxd" for a in arms):
            nested_phase(ctx, cfg, make, [a for a in arms if a.kind == "anidado_lxd"][0], progress, log)
    return Resultado.load(ctx.run.dir)


def nested_phase(ctx, cfg: Config, make, arm: Arm, progress: Progress, log: Log) -> None:
    """`ENGINE run --rm --network none IMAGE echo ok` on the host and inside one system container
    (security.nesting, no --privileged), each engine's image handed in offline; interleaved."""
    log("4/4 Motor anidado: el mismo «run --rm … echo ok» en el host y dentro de un contenedor de sistema.")
    inner = [e for e in eng.CONTAINER_ENGINES if e in ctx.engines]
    if not inner:
        ctx.skip_arm("motor anidado", "no hay Docker ni Podman en el host para pasarle una imagen.")
        return
    instance = make(arm, "anidado")
    instance.start()
    work = Path(tempfile.mkdtemp(prefix="curso-anidado-"))
    ctx.defer(shutil.rmtree, work, ignore_errors=True)
    arms, host_argv, inner_ref = [], {}, {}
    for engine in inner:
        image = ctx.images[engine]["alpine"]["name"]
        try:
            with ctx.guard(engine):
                lxd_nested.inner_ready(instance.name, engine)
                inner_ref[engine] = lxd_nested.hand_in_image(instance.name, engine, image, work)
        except Exception as exc:  # noqa: BLE001 - one nested engine failing leaves the other
            ctx.skip_arm(f"{engine} anidado", f"no arrancó dentro del contenedor de sistema: {exc}")
            continue
        host = eng.get_engine(engine)
        host_argv[engine] = (
            host.run_argv(image, ["echo", "ok"], run_id=ctx.run_id, opts=eng.RunOptions(network="none")),
            host.env(),
        )
        arms += [
            Arm(engine, HOST_RUN, image, f"{eng.DISPLAY[engine]} en el host", "anfitrion"),
            Arm(engine, "anidado_lxd", image, f"{eng.DISPLAY[engine]} anidado en LXD", "anidado_lxd"),
        ]
    ctx.run.update_meta(
        nested={
            "security.nesting": True,
            "privileged": False,
            "uid_map": lxd.uid_map(instance.name).split(),
            "engines": list(inner_ref),
        }
    )

    def run_one(a: Arm):
        if a.variant == HOST_RUN:
            return [(RUN_MOTOR, round(timed_host_run(*host_argv[a.engine]), 3), "ms")]
        return [(RUN_MOTOR, round(instance.timed_inner_run(a.engine, inner_ref[a.engine]), 3), "ms")]

    measure_rounds(
        ctx, arms, repetitions=cfg.repeticiones, warmup=cfg.calentamiento, measure=run_one, progress=progress
    )
    instance.stop()


def _qemu_version() -> str | None:
    binary = vm.qemu_binary()
    if not binary:
        return None
    return subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split("\n")[0]


def provision(log: Log = print_log) -> None:
    """`make setup`: build the course's VM once (kernel, initramfs, base disk) and probe KVM."""
    found = vm.provision(log)
    if found is None:
        return
    ok, why = vm.kvm_status()
    log(f"KVM: {'funciona' if ok else 'no disponible'}: {why}")
