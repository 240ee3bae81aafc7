"""Experiment 8's phases, each over the arms that take part in it:

1. provisioning (LAUNCH): a fresh instance per kind per round, interleaved; launch to ready, then the
   disk it added (a container's writable layer, LXD's full copy on `dir` or its snapshot on the
   copy-on-write pool, the VM's qcow2 overlay), then removal (not timed);
2. memory: N idle instances per kind (PSS of every process involved; LXD's monitor and daemon apart),
   then touch-and-free inside every one of them at once (each instance's own view from the host: before,
   while touched and after freeing);
3. workloads (RUNNING): gzip (CPU) and fio (disk I/O), workload.measure, in one instance of each kind,
   in a container nested in a system container, and on bare metal, interleaved.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import psutil

from ...engines import DISPLAY, lxd
from ..runner import Log, Progress, RunContext, measure_rounds
from . import disk_io, workload
from .density import at_once
from .kinds import (
    ARRANQUE,
    BASELINE,
    DISCO,
    DISPONIBLE,
    FASES_LXD,
    LXD_COW,
    LXD_KINDS,
    MB,
    NESTED,
    PSS,
    PSS_DAEMON,
    PSS_MONITOR,
    RETENIDA,
    SYSTEMD_KINDS,
    VM_KINDS,
    Arm,
)
from .lxd_instances import InnerContainer, daemon_pss_mb
from .memory import memory_given_back, pss


def _mb(nbytes: float) -> float:
    return round(float(nbytes) / MB, 4)


# The launch loop has no warm-up round (CALENTAMIENTO counts for the loops that work inside running
# instances: the workloads' and the nested engine's). Every round launches fresh instances, and a first
# launch is not an outlier on this machine: 01's stored run, first launch / median of the rest, 0.91-1.07
# for containers without a network (1.29 at most with one); this experiment run without warm-up (3 rounds,
# loaded machine): the first launch of the VM and of LXD was not the slowest of their rounds. The warm-up
# round cost 16 s of the quiet run's 127 s of launches (the whole LXD `dir` copy is in every round).
LAUNCH_WARMUP = 0


def provisioning(ctx: RunContext, cfg, arms: list[Arm], make, progress: Progress, log: Log) -> None:
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

    log(
        "1/3 Arranque hasta «listo» y disco por instancia, intercalados (cada ronda lanza instancias nuevas)."
    )
    measure_rounds(
        ctx,
        [a for a in arms if a.kind != NESTED],
        measure=provision_one,
        warmup=LAUNCH_WARMUP,
        progress=progress,
    )


def memory(ctx: RunContext, cfg, arms: list[Arm], make, progress: Progress, log: Log) -> dict[Arm, list]:
    """N idle instances per kind, one kind after another; then memory given back in all of them at once
    (each instance's figures are its own: its cgroup, or its QEMU process). Returns the instances kept for
    the workloads (one per kind, busybox and LXD kinds; the others are stopped here)."""
    log(
        f"2/3 Memoria: {cfg.instancias} instancia(s) en reposo por tipo; luego todas a la vez tocan y "
        f"liberan {cfg.memoria_mb} MiB."
    )
    running: dict[Arm, list] = {}
    measured = [a for a in arms if a.kind not in (NESTED, LXD_COW)]
    total = len(measured) * cfg.instancias + 1
    done = 0
    for arm in measured:
        before = psutil.virtual_memory().available
        group: list = []
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
            log(f"{arm.label}: sin cgroup legible (¿sin root?); su memoria se lee como RSS de sus procesos.")
    # Touch and free in every instance at once: one after another, the quiet run spent 15 s here
    everyone = [(arm, i, instance) for arm, group in running.items() for i, instance in enumerate(group, 1)]
    progress(done, total, f"todas a la vez: tocan y liberan {cfg.memoria_mb} MiB")
    freed = at_once(lambda item: memory_given_back(item[2], cfg.memoria_mb), everyone)
    for (arm, i, _), figures in zip(everyone, freed, strict=True):
        for metric, value in figures.items():
            ctx.record(arm, metric, round(float(value), 4), "%" if metric == RETENIDA else "MB", rep=i)
    for arm in list(running):
        group = running[arm]
        stop = group if arm.kind in SYSTEMD_KINDS else group[1:]  # the gzip/fio rounds use busybox kinds
        for instance in stop:
            instance.stop()
        del group[len(group) - len(stop) :]
        if not group:
            del running[arm]
    progress(total, total, "memoria medida")
    return running


def workloads(
    ctx: RunContext, cfg, guest, running: dict, nested, nested_engine, progress: Progress, log: Log
) -> None:
    """gzip and fio (workload.measure) in one instance of each kind (`running`: arm -> its instances, the
    first is used), in a container of the nested engine (if `nested`), and on bare metal: one
    measure_rounds, so every arm shares the noise. Every instance in `running` is stopped at the end."""
    fio = disk_io.available()
    log(
        f"3/3 Trabajo de CPU: {workload.tool()}, nivel {workload.LEVEL}, sobre "
        f"{workload.part(workload.metadata())} (el mismo en todas)"
        + (
            f"; de disco: fio, E/S directa, 4 KiB al azar sobre {disk_io.FILE_MB} MiB durante "
            f"{disk_io.RUNTIME_S:g} s"
            if fio
            else ""
        )
        + ", dentro de cada instancia."
    )
    if not fio:
        ctx.skip_arm("fio", disk_io.reason())
    if not workload.gnu():
        log(f"[AVISO] {workload.GZIP_BUNDLE.reason('la prueba de CPU')} Mientras tanto, gzip de busybox.")
    scratch = Path(tempfile.mkdtemp(prefix="curso-fio-", dir="/var/tmp"))  # on disk, never a tmpfs
    ctx.defer(shutil.rmtree, scratch, ignore_errors=True)
    targets = {arm.variant: group[0] for arm, group in running.items()}
    targets[BASELINE[1]] = workload.Bare(scratch, guest)
    arms = [Arm("bare", BASELINE[1], "", "bare metal", "bare"), *running]
    if nested is not None and nested_engine:
        label = f"{DISPLAY[nested_engine]} anidado en LXD"
        arms.append(Arm(nested_engine, NESTED, nested.images[nested_engine], label, NESTED))
        targets[NESTED] = InnerContainer(nested.instance, nested_engine, nested.workers[nested_engine])

    measure_rounds(
        ctx,
        arms,
        measure=lambda arm: workload.measure(targets[arm.variant], fio),
        progress=progress,
        loop="cargas",  # the run's second loop: its round rows carry its name
        meta={
            "gzip": workload.metadata(),
            "fio": {
                **disk_io.JOB,
                "target": "el sistema de archivos raíz de cada instancia",
                "vm_disk_cache": disk_io.VM_DISK_CACHE,
            }
            if fio
            else None,
        },
    )
    at_once(lambda instance: instance.stop(), [instance for group in running.values() for instance in group])
