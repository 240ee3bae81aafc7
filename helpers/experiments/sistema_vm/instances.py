"""The three kinds of instance behind one small interface: an application or system container
(ContainerInstance), a QEMU guest (VMInstance) and a command on the guest's console (VMCommand)."""

from __future__ import annotations

import os

import psutil

from ... import cgroups, measure, vm
from ... import engines as eng
from ..runner import RunContext
from . import disk_io, workload
from .bundle import vm_disks
from .kinds import READY
from .memory import pss
from .workload import GZIP_BUNDLE, cronometro_ms

APP_COMMAND = ["/bin/sh", "-c", f"echo {READY}; exec sleep 100000000"]
SYSTEM_COMMAND = ["/bin/busybox", "init"]
LAUNCH_TIMEOUT = 120
VM_LIMITS = "vCPU en /proc/cpuinfo del huésped, RAM de QEMU (-m)"


class ContainerInstance:
    """An application or system container, launched attached until its marker, then left running."""

    def __init__(self, ctx: RunContext, engine_name: str, image: str, kind: str, name: str, **limits):
        """limits: cpus and memory_mb, as RunOptions takes them (`--cpus`, `--memory`); none by default."""
        self.ctx, self.kind, self.name, self.image = ctx, kind, name, image
        self.engine = eng.get_engine(engine_name)
        self.container: eng.Container | None = None
        guest = vm.assets()
        volumes = [(str(guest.probes), "/sonda", "ro"), (str(guest.data_file.parent), "/datos", "ro")]
        if kind == "sistema":
            volumes.append((str(guest.rootfs / "etc" / "inittab.contenedor"), "/etc/inittab", "ro"))
        for bundle in (disk_io.FIO, GZIP_BUNDLE):
            if bundle.available():
                volumes.append((str(bundle.folder), bundle.where, "ro"))
        # systemd as PID 1: Podman prepares the container for it (--systemd=always); a terminal (-t) gives
        # it a /dev/console, where the image's ready unit prints the marker.
        extra = ["-t", "--systemd=always"] if kind == "sistema_systemd" else []
        self.opts = eng.RunOptions(network="none", volumes=volumes, extra=extra, **limits)
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
        procs = [int(x) for x in text.split()]
        return procs if procs and self._only_mine(procs) else None

    def _only_mine(self, procs: list[int]) -> bool:
        """Is this cgroup the container's own? Rootless Podman on cgroup v1 reports the cgroup of the user's
        session, shared with every other process of the user (its memory is not the container's): a
        process in another PID namespace than the container's PID 1 says so."""
        try:
            target = os.readlink(f"/proc/{self.container.pid}/ns/pid")
        except OSError:
            return True  # cannot tell: the engine's word
        for pid in procs:
            try:
                if os.readlink(f"/proc/{pid}/ns/pid") != target:
                    return False
            except OSError:
                continue  # gone, or another user's: not evidence either way
        return True

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
        return pss(self.processes())[1]

    def resident_split(self) -> None:
        """A container's memory has no guest RAM to tell apart (see VMInstance.resident_split)."""
        return None

    def disk_bytes(self) -> int:
        return self.engine.writable_layer_bytes(self.name)

    def limits(self) -> cgroups.Limits:
        """Its CPU quota and memory limit, read back from its cgroup."""
        return cgroups.read_limits(self.container.cgroup)

    def start_command(self, command: list[str]) -> measure.Child:
        return measure.Child(self.engine.exec_argv(self.name, command), env=self.engine.env())

    def timed_gzip(self, mib: int = workload.INPUT_MIB) -> float:
        """workload.gzip_script on the file's first `mib` MiB, timed inside, in ms."""
        script = workload.gzip_script(mib=mib)
        argv = self.engine.exec_argv(self.name, ["/sonda/cronometro", "sh", "-c", script])
        _, code, stderr = measure.spawn_and_wait(argv, self.engine.env(), keep_stderr=True)
        return cronometro_ms(stderr, code)

    def timed_fio(self) -> float:
        """fio's read + write IOPS on the container's own root file system."""
        return disk_io.run_checked(self.engine.exec_argv(self.name, disk_io.command()), self.engine.env())

    def stop(self) -> None:
        self.engine.remove([self.name])


class VMInstance:
    """The course's VM (helpers.vm.VM) behind the same small interface."""

    def __init__(
        self, ctx: RunContext, accel: str, memory_mb: int, name: str, kind: str = "vm", *, cpus: int = 1
    ):
        self.kind = kind
        self.name = name
        flavor = "systemd" if kind == "vm_systemd" else "busybox"
        # fio's and gzip's folders as read-only disks of their own (the busybox guest has neither)
        bundles = [b for b in (disk_io.FIO, GZIP_BUNDLE) if flavor == "busybox" and b.available()]
        self.fio = disk_io.FIO in bundles
        drives, self.mounts = vm_disks(bundles)
        self.vm = vm.VM(
            name,
            accel=accel,
            memory_mb=memory_mb,
            workdir=vm.VM_DIR / "instancias" / ctx.run_id,
            flavor=flavor,
            extra_drives=drives,
            disk_cache=disk_io.VM_DISK_CACHE,
            cpus=cpus,
        )
        ctx.defer(self.vm.stop)

    def launch(self) -> None:
        """Start QEMU without waiting for the guest (density boots its N at once); start() then waits."""
        self.vm.spawn()

    @property
    def cpus(self) -> int:
        return self.vm.cpus

    def start(self, timeout: float | None = None) -> float:
        """Launch (unless launch() did) to ready, in ms; then a quiet console and the disks, not timed.
        timeout: seconds to wait for the marker (vm.BOOT_TIMEOUT, four times that with systemd)."""
        if self.vm.child is None:
            self.vm.spawn()
        elapsed = self.vm.ready(timeout or vm.BOOT_TIMEOUT * (4 if self.kind == "vm_systemd" else 1))
        self.vm.sh("stty -echo; PS1=''")  # a quiet console for the commands that follow (not timed)
        for mount in self.mounts:
            self.vm.sh(mount)
        return elapsed

    def pids(self) -> list[int]:
        return [self.vm.pid] if self.vm.pid else []

    def host_memory(self) -> int:
        """What the host holds for this instance: QEMU's resident memory (bytes)."""
        return psutil.Process(self.vm.pid).memory_info().rss

    def resident_split(self) -> tuple[int, int] | None:
        """host_memory split into the guest's RAM and QEMU's own (VM.resident_split), in bytes."""
        return self.vm.resident_split()

    def disk_bytes(self) -> int:
        return self.vm.overlay_bytes()

    def limits(self) -> cgroups.Limits:
        """Its vCPUs as the guest counts them and its RAM (-m): QEMU's own cgroup sets no limit."""
        lines = self.vm.sh("grep -c ^processor /proc/cpuinfo")
        cpus = next((int(line) for line in reversed(lines) if line.strip().isdigit()), None)
        return cgroups.Limits(cpus, self.vm.memory_mb * 2**20, VM_LIMITS)

    def start_command(self, command: list[str]) -> VMCommand:
        return VMCommand(self.vm, command)

    def timed_gzip(self, mib: int = workload.INPUT_MIB) -> float:
        script = workload.gzip_script(mib=mib)
        lines = self.vm.sh(f"/sonda/cronometro sh -c '{script}' 2>&1", timeout=600)
        return cronometro_ms("\n".join(lines), 0)

    def timed_fio(self) -> float:
        """fio's read + write IOPS on the guest's disk (its qcow2 overlay, through virtio)."""
        return disk_io.iops("\n".join(self.vm.sh(" ".join(disk_io.command()), timeout=180)))

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
