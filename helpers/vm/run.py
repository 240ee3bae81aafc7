"""Running a guest: the KVM probe, the QEMU child process group (VM) and leftovers."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from pathlib import Path

import psutil

from .. import measure, system
from ..errors import ComandoFallido, ErrorDelCurso, ParametroInvalido
from .assets import (
    BASE_MEMORY_MB,
    BOOT_TIMEOUT,
    KVM_PROBE_TIMEOUT,
    MACHINE,
    QEMU,
    READY,
    VM_DIR,
    Assets,
    assets,
    availability,
)


# ---------------------------------------------------------------- acceleration
def _kvm_state_path() -> Path:
    return VM_DIR / "kvm.json"


def _kvm_key(found: Assets) -> str:
    uname = os.uname()
    qemu = subprocess.run([QEMU, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    return hashlib.sha256(
        f"{uname.release}|{uname.version}|{qemu}|{found.kernel_version}".encode()
    ).hexdigest()


def kvm_status(*, refresh: bool = False, timeout: float = KVM_PROBE_TIMEOUT) -> tuple[bool, str]:
    """(works, Spanish explanation). Works only if a guest really boots under -accel kvm; the answer
    is cached per host kernel, QEMU and guest kernel."""
    if not os.path.exists("/dev/kvm"):
        return False, "no existe /dev/kvm (sin virtualización por hardware, o el módulo kvm no está cargado)."
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "no tienes permiso sobre /dev/kvm (en Debian: entra en el grupo «kvm»)."
    found = assets()
    ok, why = availability()
    if not ok or found is None:
        return False, why or "la VM del curso no está construida."
    key = _kvm_key(found)
    state = _kvm_state_path()
    if not refresh:
        try:
            cached = json.loads(state.read_text())
            if cached.get("key") == key:
                return bool(cached["ok"]), cached["reason"]
        except (OSError, ValueError, KeyError):
            pass
    vm = VM("sonda-kvm", accel="kvm", memory_mb=BASE_MEMORY_MB, found=found)
    try:
        vm.boot(timeout=timeout)
        ok, reason = True, f"un huésped arrancó con KVM en {vm.boot_ms / 1000:.1f} s."
    except (TimeoutError, ErrorDelCurso, OSError) as exc:
        detail = str(exc).split(";")[0][:160]
        ok, reason = (
            False,
            (f"/dev/kvm existe, pero un huésped no arranca con KVM en {timeout:.0f} s ({detail})."),
        )
    finally:
        vm.stop()
    state.write_text(json.dumps({"key": key, "ok": ok, "reason": reason}))
    return ok, reason


def resolve_acceleration(requested: str) -> tuple[str, str]:
    """("kvm"|"tcg", Spanish reason). `kvm` where it does not work raises ParametroInvalido."""
    if requested not in ("auto", "kvm", "tcg"):
        raise ParametroInvalido(f"ACELERACION debe ser «auto», «kvm» o «tcg», no «{requested}».")
    if requested == "tcg":
        return "tcg", "pediste emulación por software (TCG)."
    ok, why = kvm_status()
    if ok:
        return "kvm", why
    if requested == "kvm":
        raise ParametroInvalido(
            f"Pediste ACELERACION = «kvm», pero KVM no funciona aquí: {why} Usa «auto» o «tcg»."
        )
    return "tcg", f"KVM no funciona aquí: {why} Se usa la emulación por software (TCG)."


def host_tsc_khz() -> int | None:
    """The host's TSC frequency in kHz as /proc/cpuinfo reports it (constant on machines with a TSC
    that does not follow the CPU's frequency; good enough for the guest's early calibration)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return int(float(line.split(":", 1)[1]) * 1000)
    except (OSError, ValueError):
        pass
    return None


def qemu_command(
    qemu: str,
    machine: str,
    accel: list[str],
    *,
    memory_mb: int,
    cpus: int,
    kernel: Path,
    initrd: Path,
    append: str,
) -> list[str]:
    """The start of every course guest's QEMU command line, the devices to be added after it: `kernel`
    booted directly with `initrd` and `append`, no default devices, display, monitor nor user config, the
    serial console on stdio, and a guest reboot ending QEMU. accel: its -accel/-cpu arguments."""
    return [
        qemu,
        "-M",
        machine,
        *accel,
        "-m",
        str(memory_mb),
        "-smp",
        str(cpus),
        "-nodefaults",
        "-no-user-config",
        "-display",
        "none",
        "-serial",
        "stdio",
        "-monitor",
        "none",
        "-no-reboot",
        "-kernel",
        str(kernel),
        "-initrd",
        str(initrd),
        "-append",
        append,
    ]


def kernel_cmdline(init: str | None = None) -> str:
    args = ["console=ttyS0", "quiet", "panic=-1", "reboot=t"] + ([f"curso.init={init}"] if init else [])
    khz = host_tsc_khz()
    if khz:
        args += [f"tsc_early_khz={khz}", "tsc=reliable"]
    return " ".join(args)


# ---------------------------------------------------------------- a running VM
class VM:
    """One guest: a qcow2 overlay on the base disk and a QEMU child process with its serial console
    on a pipe. `boot()` times overlay creation + QEMU start until the ready marker; `sh()` runs a
    command on the console; `stop()` kills QEMU's process group and removes the overlay."""

    def __init__(
        self,
        name: str,
        *,
        accel: str,
        memory_mb: int = BASE_MEMORY_MB,
        workdir: Path | None = None,
        found: Assets | None = None,
        balloon_reporting: bool = False,
        flavor: str = "busybox",
        extra_drives: tuple[Path, ...] = (),
        forward: tuple[int, int] | None = None,
        cpus: int = 1,
        disk_cache: str = "writeback",
    ):
        self.name = name
        self.cpus = int(cpus)  # vCPUs (-smp)
        self.accel = accel
        self.memory_mb = int(memory_mb)
        self.assets = found or assets()
        if self.assets is None:
            raise ErrorDelCurso("La VM del curso aún no está construida: ejecuta «make setup».")
        self.workdir = Path(workdir or VM_DIR / "instancias")
        self.overlay = self.workdir / f"{name}.qcow2"
        self.flavor = flavor
        if flavor == "systemd" and self.assets.systemd_disk is None:
            raise ErrorDelCurso(
                "No hay disco con systemd para la VM (se construye solo como root, con «make setup»)."
            )
        self.base_disk = self.assets.systemd_disk if flavor == "systemd" else self.assets.base_disk
        self.balloon_reporting = balloon_reporting
        self.extra_drives = tuple(extra_drives)  # read-only raw images: /dev/vdb, /dev/vdc… in the guest
        # (host port on 127.0.0.1, guest port): one NIC on QEMU's user network, restricted (the guest
        # reaches nothing, not even the host), with that one TCP forward into it; None: no NIC at all
        self.forward = forward
        # QEMU's cache mode of the guest's disk: "writeback" goes through the host's page cache (even the
        # guest's direct I/O); "none" opens the overlay with O_DIRECT, past it
        self.disk_cache = disk_cache
        self.child: measure.Child | None = None
        self._spawned_ns = 0
        self.boot_ms = float("nan")
        self._seq = 0

    def argv(self) -> list[str]:
        accel = (
            ["-accel", "kvm", "-cpu", "host"]
            if self.accel == "kvm"
            else ["-accel", "tcg,tb-size=32", "-cpu", "max"]
        )
        balloon = "virtio-balloon-device" + (",free-page-reporting=on" if self.balloon_reporting else "")
        extra = []
        for i, drive in enumerate(self.extra_drives, 1):
            extra += ["-drive", f"id=d{i},file={drive},format=raw,if=none,readonly=on"]
            extra += ["-device", f"virtio-blk-device,drive=d{i}"]
        if self.forward:
            host_port, guest_port = self.forward
            user = f"user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:{host_port}-:{guest_port}"
            extra += ["-netdev", user, "-device", "virtio-net-device,netdev=n0"]
        return [
            *qemu_command(
                QEMU,
                MACHINE,
                accel,
                memory_mb=self.memory_mb,
                cpus=self.cpus,
                kernel=self.assets.kernel,
                initrd=self.assets.initramfs,
                append=kernel_cmdline("/sbin/init" if self.flavor == "systemd" else None),
            ),
            "-drive",
            f"id=d0,file={self.overlay},format=qcow2,if=none,cache={self.disk_cache}",
            "-device",
            "virtio-blk-device,drive=d0",
            "-device",
            balloon,
            *extra,
            "-name",
            f"curso-{self.name}",
        ]

    def create_overlay(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        system.run_checked(
            [
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-F",
                "qcow2",
                "-b",
                str(self.base_disk),
                str(self.overlay),
            ]
        )

    def boot(self, timeout: float = BOOT_TIMEOUT) -> float:
        """Overlay + QEMU until the guest's init prints the ready marker; returns (and keeps) ms."""
        self.spawn()
        return self.ready(timeout)

    def spawn(self) -> None:
        """boot()'s first half: the overlay and QEMU, without waiting for the guest (several VMs can
        boot at once: spawn each, then ready() each, on the same thread, since QEMU dies with it)."""
        self._spawned_ns = time.perf_counter_ns()
        self.create_overlay()
        self.child = measure.Child(self.argv(), stdin=True)

    def ready(self, timeout: float = BOOT_TIMEOUT) -> float:
        """boot()'s second half: wait for the ready marker; returns (and keeps) ms since spawn()."""
        self.child.wait_for(READY, timeout)
        self.boot_ms = (self.child.marked_ns - self._spawned_ns) / 1e6
        return self.boot_ms

    @property
    def pid(self) -> int | None:
        return self.child.pid if self.child else None

    def sh(self, command: str, timeout: float = 60) -> list[str]:
        """Run a shell command on the guest's console; returns its output lines."""
        if not self.child or not self.child.alive():
            raise ComandoFallido(f"La VM {self.name} no está corriendo.")
        self._seq += 1
        tag = f"CURSO-FIN-{self._seq}"
        start = len(self.child.lines)
        # Split the marker in the command so the console's echo of the input never matches it.
        head, tail = tag[:5], tag[5:]
        self.child.send(f'{command}; echo "{head}""{tail}:$?"\n')
        line = self.child.wait_for(f"{tag}:", timeout, start=start)
        end = self.child.lines.index(line, start)
        out = [x for x in self.child.lines[start:end] if tag[5:] not in x]
        if line.index(f"{tag}:") > 0:  # output without a final newline shares the marker's line
            out.append(line[: line.index(f"{tag}:")])
        code = int(line.rsplit(":", 1)[1].strip() or 0)
        if code != 0:
            raise ComandoFallido(f"En la VM, «{command}» terminó con código {code}: {' | '.join(out[-5:])}")
        return out

    def send(self, command: str) -> None:
        """Type a command on the guest's console without waiting (read its output with wait_for)."""
        if not self.child or not self.child.alive():
            raise ComandoFallido(f"La VM {self.name} no está corriendo.")
        self.child.send(command + "\n")

    def wait_for(self, marker: str, timeout: float) -> str:
        return self.child.wait_for(marker, timeout)

    def resident_split(self) -> tuple[int, int] | None:
        """(guest RAM, QEMU itself): the bytes the host holds for this VM, split between the guest's RAM
        (QEMU's anonymous mapping of exactly -m MiB, resident only where the guest touched it) and
        everything else QEMU holds (the emulator, its TCG code cache, the kernel and initramfs it
        loaded, device buffers); from /proc/<pid>/smaps. None when the process is gone or no mapping
        has the RAM's size."""
        ram_kb = self.memory_mb * 1024
        try:
            text = Path(f"/proc/{self.pid}/smaps").read_text()
        except (OSError, TypeError):
            return None
        guest = total = 0
        found, size, anonymous = False, 0, False
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if " " in key:  # a mapping's header: «start-end perms offset dev inode [path]»
                size, anonymous = 0, len(line.split()) == 5  # no path: anonymous memory
            elif key == "Size":
                size = int(value.split()[0])
            elif key == "Rss":
                rss = int(value.split()[0]) * 1024
                total += rss
                if anonymous and size == ram_kb:
                    guest, found = guest + rss, True
        return (guest, total - guest) if found else None

    def overlay_bytes(self) -> int:
        """Bytes the overlay really occupies on the host's disk (allocated blocks)."""
        try:
            return self.overlay.stat().st_blocks * 512
        except OSError:
            return 0

    def stop(self) -> None:
        if self.child:
            self.child.stop()
        self.overlay.unlink(missing_ok=True)


def leftover_processes(tag: str = "curso-") -> list[int]:
    """PIDs of QEMU processes started by the course (-name curso-...) still alive."""
    pids = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if cmd and os.path.basename(cmd[0]) == QEMU and any(a.startswith(tag) for a in cmd):
            pids.append(proc.pid)
    return pids
