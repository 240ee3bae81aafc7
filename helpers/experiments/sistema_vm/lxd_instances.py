"""A real system container (LXD or Incus, helpers.engines.lxd) behind the same small interface as the
other kinds: start to its own «listo» (kinds.LXD_WINDOWS), its processes, the host's view of its memory, its disk, a
command inside, gzip and fio inside; and, nested inside it, an engine running the same work in a
container of its own (scenario 3 of the post)."""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ... import cgroups, measure, probes, vm
from ...engines import lxd, lxd_nested
from ..runner import RunContext
from . import disk_io, network, workload
from .kinds import LXD_READY_DIR, LXD_READY_PIPE, LXD_WINDOWS, READY
from .memory import pss
from .workload import GZIP_BUNDLE, cronometro_ms

BUSYBOX = "/opt/curso/busybox"  # busybox's gzip, where GNU gzip's folder is missing (mounted read-only)
SHARED = ("/sonda", "/datos")  # what a nested container gets, read-only, for gzip


def lxd_name(ctx: RunContext, *parts) -> str:
    """An instance name LXD accepts (a host name: letters, digits and dashes, at most 63)."""
    short = {"sistema_lxd": "sis", "sistema_lxd_cow": "cow", "anidado_lxd": "anid"}
    tail = "-".join(str(short.get(p, p)) for p in parts)
    return f"curso-{ctx.run.id.lower()}-{tail}".replace("_", "-")[:63].rstrip("-")


class LXDInstance:
    """An unprivileged system container with systemd as PID 1 and no network device, on `pool`."""

    def __init__(
        self,
        ctx: RunContext,
        kind: str,
        name: str,
        *,
        nested: bool = False,
        pool: str = lxd.POOL,
        cpus: int | None = None,
        memory_mb: int | None = None,
    ):
        """cpus, memory_mb: its limits (lxd.limits_config), None for none."""
        self.ctx, self.kind, self.name, self.nested, self.pool = ctx, kind, name, nested, pool
        self.config = lxd.limits_config(cpus, memory_mb) if cpus and memory_mb else None
        self.image = lxd.IMAGE_NESTED if nested else lxd.IMAGE_SYSTEM
        self.phases: dict[str, float] = {}
        self.created_bytes = 0  # its disk right after `init`, before it ran (the copy of its image)

    def start(self) -> float:
        """`lxc init` + `lxc start` + the instance's own «listo», in ms, each phase kept apart under
        LXD_WINDOWS' keys (what each holds is said there). The devices and the ready unit are added
        between the first two, not timed."""
        t0 = time.perf_counter_ns()
        lxd.create(
            self.name,
            self.image,
            run_id=self.ctx.run_id,
            nesting=self.nested,
            pool=self.pool,
            limits=self.config,
        )
        create = (time.perf_counter_ns() - t0) / 1e6
        if self.nested:
            self.created_bytes = lxd.disk_bytes(self.name)
        guest = vm.assets()
        if guest is not None:  # not timed: the probes, the data file and fio, read-only
            lxd.add_disk(self.name, "sonda", guest.probes, "/sonda")
            lxd.add_disk(self.name, "datos", guest.data_file.parent, "/datos")
            lxd.add_disk(self.name, "busybox", guest.rootfs / "bin" / "busybox", BUSYBOX)
        for bundle in (disk_io.FIO, GZIP_BUNDLE):
            if bundle.available():
                lxd.add_disk(self.name, bundle.name, bundle.folder, bundle.where)
        if network.IPERF.available():
            lxd.add_disk(self.name, "iperf3", network.IPERF.folder, network.IPERF.where)
        signal = self.ready_signal()
        try:
            t1 = time.perf_counter_ns()
            lxd.start(self.name)
            t2 = time.perf_counter_ns()
            signal.wait_for(READY, lxd.READY_TIMEOUT)
            t3 = time.perf_counter_ns()
        finally:
            signal.close()
        self.phases = dict(zip(LXD_WINDOWS, (create, (t2 - t1) / 1e6, (t3 - t2) / 1e6), strict=True))
        return sum(self.phases.values())

    def ready_signal(self) -> measure.Fifo:
        """The ready unit (vm.ready_unit, the VM's own, writing to LXD_READY_PIPE) pushed into the
        instance and enabled, and the host's folder with the named pipe mounted at LXD_READY_DIR; the
        pipe, already open on the host."""
        folder = Path(tempfile.mkdtemp(prefix="curso-listo-", dir="/var/tmp"))
        folder.chmod(0o755)  # the instance's root, a high host uid, must reach the pipe
        self.ctx.defer(shutil.rmtree, folder, ignore_errors=True)
        unit, wants = folder / vm.READY_UNIT_NAME, folder / "listo.conf"
        unit.write_text(vm.ready_unit(LXD_READY_PIPE))
        wants.write_text(f"[Unit]\nWants={vm.READY_UNIT_NAME}\n")  # what the unit's WantedBy= would link
        lxd.push_file(self.name, unit, f"/etc/systemd/system/{vm.READY_UNIT_NAME}")
        lxd.push_file(self.name, wants, "/etc/systemd/system/multi-user.target.d/curso-listo.conf")
        lxd.add_disk(self.name, "listo", folder, LXD_READY_DIR, readonly=False)
        return measure.Fifo(folder)

    def processes(self) -> list[int]:
        return lxd.payload_pids(self.name)

    def pids(self) -> list[int]:
        """The instance's processes plus its `[lxc monitor]` (the daemon itself is counted apart)."""
        monitor = lxd.monitor_pid(self.name)
        return self.processes() + ([monitor] if monitor else [])

    memory_basis = "cgroup (memoria anónima)"

    @property
    def cgroup(self) -> str:
        """The instance's top cgroup (its systemd makes sub-cgroups of its own below it)."""
        return f"/lxc.payload.{self.name}"

    def host_memory(self) -> int:
        try:
            return cgroups.read_memory(self.cgroup).anon
        except OSError:
            pass
        return pss(self.processes())[1]

    def resident_split(self) -> None:
        """A system container's memory has no guest RAM to tell apart (see VMInstance.resident_split)."""
        return None

    def disk_bytes(self) -> int:
        return lxd.disk_bytes(self.name)

    def limits(self) -> cgroups.Limits:
        """Its CPU quota and memory limit, read back from its cgroup (the instance's top one)."""
        return cgroups.read_limits(self.cgroup)

    def start_command(self, command: list[str]) -> measure.Child:
        return measure.Child(lxd.exec_argv(self.name, command), env=lxd.proxy_env())

    def _cronometro(self, command: list[str]) -> float:
        _, code, stderr = measure.spawn_and_wait(
            lxd.exec_argv(self.name, command), lxd.proxy_env(), keep_stderr=True
        )
        return cronometro_ms(stderr, code)

    def timed_gzip(self, mib: int = workload.INPUT_MIB) -> float:
        script = workload.gzip_script(busybox=BUSYBOX, mib=mib)
        return self._cronometro(["/sonda/cronometro", "sh", "-c", script])

    def timed_fio(self) -> float:
        return disk_io.run_checked(lxd.exec_argv(self.name, disk_io.command()), lxd.proxy_env())

    # ------------------------------------------------------------ an engine nested inside
    def timed_inner_run(self, engine: str, image: str) -> float:
        """`ENGINE run --rm --network none IMAGE echo ok` typed inside, timed inside by cronometro."""
        return self._cronometro(["/sonda/cronometro", *lxd_nested.inner_run_command(engine, image)])

    def start_worker(self, engine: str, image: str) -> str:
        """A container of the inner engine, kept running for the workloads (probes, data, fio and gzip
        mounted)."""
        bundles = tuple(b.where for b in (disk_io.FIO, GZIP_BUNDLE) if b.available())
        volumes = (*SHARED, *bundles)
        return lxd_nested.start_worker(self.name, engine, image, volumes=volumes)

    def timed_inner_gzip(self, engine: str, worker: str, mib: int = workload.INPUT_MIB) -> float:
        """gzip of the file's first `mib` MiB in the inner engine's container, by `exec`, timed inside
        it by cronometro."""
        inner = ["/sonda/cronometro", "sh", "-c", workload.gzip_script(mib=mib)]
        return self._cronometro(lxd_nested.worker_exec(engine, worker, inner))

    def timed_inner_fio(self, engine: str, worker: str) -> float:
        """fio in the inner engine's container, on that container's own root file system."""
        argv = lxd_nested.worker_exec(engine, worker, disk_io.command())
        return disk_io.run_checked(lxd.exec_argv(self.name, argv), lxd.proxy_env())

    def stop(self) -> None:
        lxd.delete([self.name])


@dataclass(frozen=True)
class InnerContainer:
    """The container an engine nested in `instance` keeps running, as a target of workload.measure."""

    instance: LXDInstance
    engine: str
    worker: str

    def timed_gzip(self, mib: int = workload.INPUT_MIB) -> float:
        return self.instance.timed_inner_gzip(self.engine, self.worker, mib)

    def timed_fio(self) -> float:
        return self.instance.timed_inner_fio(self.engine, self.worker)


def timed_host_run(argv: list[str], env: dict | None) -> float:
    """The same run on the host's engine, timed the same way (cronometro around the CLI)."""
    _, code, stderr = measure.spawn_and_wait([str(probes.path("cronometro")), *argv], env, keep_stderr=True)
    return cronometro_ms(stderr, code)


def daemon_pss_mb() -> float | None:
    proc = lxd.daemon_process()
    if proc is None:
        return None
    return pss([proc.pid])[0] / 2**20
