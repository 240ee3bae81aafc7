"""Boot the Debian 13 guest once and bring its run folders back.

The guest boots from a qcow2 overlay on the cached disk (the cache is never written), with a second
disk (ext4, label curso-io) holding the course's working tree and guest.sh; the guest writes its run
folders into salida/ on that disk and powers off; the host copies them out with debugfs (no mount, no
loop device). No network device: `-nic none` and `-nodefaults`.

QEMU runs as a child in its own process group (measure.Child) that this run owns: it is killed on
success, error, Ctrl-C and timeout, and receives SIGKILL if this process dies first.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import PROJECT_ROOT, measure, probes, system, vm
from ..errors import ComandoFallido
from ..images import find_tool
from . import GUEST_SCRIPT, MARK
from . import build as guest_build

Log = Callable[[str], None]
MEMORY_MB = 4096
CPUS = 2
IO_DISK_SIZE = "3G"
# s, boot to power-off: the first class (00-03) as root and as «alumno» took 49 min under TCG here with the
# machine loaded (load 4-6; 00-02 alone, 15-35 min); `make test` waits for it (CI gives up at 90 min)
DEFAULT_TIMEOUT = 65 * 60
BOOT_TIMEOUT = 300  # s until the guest's unit starts (multi-user takes ~30 s under TCG)
POWEROFF_TIMEOUT = 120  # s from the last marker to QEMU's exit
# Under TCG, a CPU model without AVX: QEMU 7.2 (Debian 12) emulates AVX/AVX2 since that release only,
# and with `-cpu max` numpy's AVX2 loops died in the guest with a general protection fault (a notebook's
# kernel crashed at random). Nehalem (x86-64-v2: SSE4.2, POPCNT) is what every wheel needs at least.
TCG_CPU = "Nehalem"


@dataclass
class GuestRun:
    """What one boot of the guest returned (resumen.json in its folder)."""

    folder: str
    accel: str
    accel_reason: str
    label: str
    build_seconds: float | None
    boot_seconds: float | None = None  # QEMU start to the unit's first marker
    system_seconds: float | None = None  # QEMU start to `is-system-running` answering
    total_seconds: float | None = None  # QEMU start to QEMU's exit
    exit_code: int | None = None  # guest.sh's verdict: 0 when both course runs exited 0
    powered_off: bool | None = None  # QEMU exited by itself after FIN (not stopped by the host)
    images_layer: dict | None = None  # the cached layer with the images imported (capa.py)
    phases: dict = field(default_factory=dict)  # guest uptime (s) at the end of each phase
    started: str = ""

    @property
    def dir(self) -> Path:
        return Path(self.folder)


def course_files(root: Path = PROJECT_ROOT) -> list[str]:
    """The course as a clone would have it (git ls-files), plus the compiled probes if present."""
    listed = subprocess.run(
        ["git", "-c", f"safe.directory={root}", "ls-files", "-z"], cwd=root, capture_output=True, timeout=60
    )
    if listed.returncode != 0:
        raise ComandoFallido("No pude listar los archivos del curso con «git ls-files».")
    files = [f for f in listed.stdout.decode().split("\0") if f and (root / f).is_file()]
    files += [str(p.relative_to(root)) for p in sorted((root / "probes" / "bin").glob("*")) if p.is_file()]
    return files


def io_disk(dest: Path, work: Path, flags: tuple[str, ...] = ()) -> Path:
    """The run's second disk: curso/ (the working tree), guest.sh, an empty salida/, and an empty file
    for each of `flags` (what guest.sh is asked to do instead of the course: capa.FLAG)."""
    probes.build(lambda line: None)  # static C probes: notebook 00 checks them, the guest has no compiler
    stage = work / "io"
    (stage / "salida").mkdir(parents=True)
    for rel in course_files():
        target = stage / "curso" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT_ROOT / rel, target)
    shutil.copy2(GUEST_SCRIPT, stage / "guest.sh")
    for flag in flags:
        (stage / flag).touch()
    system.run_checked(
        [find_tool("mke2fs"), "-q", "-F", "-t", "ext4", "-L", "curso-io", "-d", stage, dest, IO_DISK_SIZE]
    )
    shutil.rmtree(stage)
    return dest


def acceleration() -> tuple[str, str]:
    """("kvm"|"tcg", Spanish reason): KVM only where the course's probe boots a guest with it."""
    if vm.assets() is None:
        return "tcg", "sin la VM pequeña del curso no puedo probar KVM; se usa la emulación (TCG)."
    try:
        return vm.resolve_acceleration("auto")
    except Exception as exc:  # noqa: BLE001 - a failed probe means TCG
        return "tcg", f"la prueba de KVM falló ({type(exc).__name__}); se usa la emulación (TCG)."


def qemu_argv(guest: guest_build.Guest, overlay: Path, io: Path, accel: str) -> list[str]:
    accel_args = (
        ["-accel", "kvm", "-cpu", "host"]
        if accel == "kvm"
        else ["-accel", "tcg,thread=multi", "-cpu", TCG_CPU]
    )
    return [
        *vm.qemu_command(
            find_tool("qemu-system-x86_64"),
            "q35",
            accel_args,
            memory_mb=MEMORY_MB,
            cpus=CPUS,
            kernel=guest.kernel,
            initrd=guest.initrd,
            append="console=ttyS0 root=LABEL=curso-huesped rw quiet loglevel=3 panic=-1",
        ),
        "-nic",
        "none",
        "-drive",
        f"file={overlay},format=qcow2,if=virtio,cache=unsafe",
        "-drive",
        f"file={io},format=raw,if=virtio,cache=unsafe",
        "-device",
        "virtio-rng-pci",
        "-name",
        "curso-huesped",
    ]


def _uptime(line: str) -> float | None:
    try:
        return float(line.split()[-1])
    except (ValueError, IndexError):
        return None


def boot_and_run(
    guest: guest_build.Guest,
    work: Path,
    accel: str,
    result: GuestRun,
    log: Log,
    timeout: float,
    *,
    backing: Path | None = None,
    overlay: Path | None = None,
    flags: tuple[str, ...] = (),
) -> list[str]:
    """Boot on a new qcow2 `overlay` (default: in `work`, thrown away with it) of `backing` (default:
    the cached base disk), follow the markers until FIN, wait for the power-off. Returns the console's
    lines."""
    backing = Path(backing or guest.disk)
    overlay = overlay or work / "raiz.qcow2"
    fmt = "qcow2" if backing.suffix == ".qcow2" else "raw"
    system.run_checked(
        ["qemu-img", "create", "-q", "-f", "qcow2", "-F", fmt, "-b", backing, overlay], timeout=60
    )
    io = io_disk(work / "io.raw", work, flags)
    deadline = time.monotonic() + timeout
    child = measure.Child(qemu_argv(guest, overlay, io, accel))
    t0 = time.monotonic()
    try:
        while True:
            left = deadline - time.monotonic()
            if result.boot_seconds is None:
                left = min(left, BOOT_TIMEOUT)
            try:
                line = child.wait_for(MARK, max(left, 1))
            except TimeoutError as exc:
                raise ComandoFallido(
                    f"El huésped no terminó a tiempo ({timeout / 60:.0f} min en total, "
                    f"{BOOT_TIMEOUT} s para arrancar); lo detengo. Consola: {child.tail(5)}"
                ) from exc
            text = line[line.index(MARK) + len(MARK) :].strip()
            log(f"    [huésped {time.monotonic() - t0:6.0f} s] {text}")
            word = text.split()[0] if text else ""
            if word == "INICIO":
                result.boot_seconds = round(time.monotonic() - t0, 1)
            elif word == "SISTEMA":
                result.system_seconds = round(time.monotonic() - t0, 1)
            elif word == "FASE" and len(text.split()) >= 3:
                result.phases[text.split()[1]] = _uptime(text)
            elif word == "FIN":
                result.exit_code = int(text.split()[1]) if len(text.split()) > 1 else None
                break
        end = time.monotonic() + POWEROFF_TIMEOUT
        while child.alive() and time.monotonic() < end:
            child.read(0.5)
        result.total_seconds = round(time.monotonic() - t0, 1)
        result.powered_off = not child.alive()
        if child.alive():
            log("    el huésped no se apagó solo: lo detengo.")
    finally:
        child.stop()  # kills QEMU's process group, whatever happened
        if child.proc.stdout and not child.proc.stdout.closed:  # it exited by itself: read what is left
            for _ in range(10_000):
                if not child.read(0.1):
                    break
        (work / "consola.log").write_text("\n".join(child.lines) + "\n", errors="replace")
    return child.lines


def copy_out(io: Path, dest: Path) -> None:
    """salida/ of the run's disk into dest (debugfs rdump: no mount needed)."""
    dest.mkdir(parents=True, exist_ok=True)
    system.run_checked([find_tool("debugfs"), "-R", f"rdump /salida {dest}", io], timeout=600)
    if not (dest / "salida").is_dir():
        raise ComandoFallido("El disco del huésped no trae la carpeta salida/.")
