"""The course's guest: its constants, where its built files live (Assets) and the host's QEMU."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..paths import CACHE_DIR

VM_DIR = CACHE_DIR / "vm"
KERNEL_PACKAGE = "linux-image-cloud-amd64"
DEBIAN_PACKAGES = ["qemu-system-x86", "qemu-utils", "lz4", "e2fsprogs", "busybox-static"]
QEMU = "qemu-system-x86_64"
# microvm with the legacy PIC, PIT and RTC. microvm has no HPET nor ACPI PM timer: under TCG on a loaded
# host the guest's PIT-based TSC calibration fails and the boot hangs, so the guest is told the TSC
# frequency (under TCG the guest reads the host's TSC).
MACHINE = "microvm,pit=on,pic=on,rtc=on"
READY = "CURSO-LISTO"
FORMAT_VERSION = 3  # bump when the guest's layout changes: provision() rebuilds
MODULES = ("virtio_ring", "virtio", "virtio_mmio", "virtio_blk", "virtio_balloon")
MODULE_PATHS = {
    "virtio": "drivers/virtio/virtio.ko",
    "virtio_ring": "drivers/virtio/virtio_ring.ko",
    "virtio_mmio": "drivers/virtio/virtio_mmio.ko",
    "virtio_blk": "drivers/block/virtio_blk.ko",
    "virtio_balloon": "drivers/virtio/virtio_balloon.ko",
}
GUEST_DATA_MB = 8  # gzip input, in MB (the same file on every side)
DISK_MB = 64  # size of the guest's ext4 file system
BOOT_TIMEOUT = 90  # s; TCG on a loaded machine is slow, but a boot never takes this long
KVM_PROBE_TIMEOUT = 20  # s; a working KVM boots the guest in well under a second
BASE_MEMORY_MB = 256

Log = Callable[[str], None]

# The inittab line shared by the VM and the system container; the VM adds a shell on its console.
INITTAB_COMMON = f"::sysinit:/bin/echo {READY}\n"
INITTAB_VM = INITTAB_COMMON + "ttyS0::respawn:/bin/sh\n"

INIT_SCRIPT = """#!/bin/busybox sh
# The course's initramfs: load the virtio modules, mount the disk, hand over to busybox init.
/bin/busybox mkdir -p /proc /sys /dev /newroot
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
for m in %(modules)s; do /bin/busybox insmod /lib/modules/$m.ko; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 1000 ]; do /bin/busybox usleep 10000; i=$((i+1)); done
if ! /bin/busybox mount -t ext4 /dev/vda /newroot; then
    echo "CURSO-ERROR: no se pudo montar el disco"; /bin/busybox poweroff -f
fi
for d in proc sys dev; do /bin/busybox mount --move /$d /newroot/$d; done
# The disk's init: busybox init by default, systemd with curso.init=/sbin/init on the kernel command line.
INIT="/bin/busybox init"
for arg in $(/bin/busybox cat /newroot/proc/cmdline); do
    case "$arg" in curso.init=*) INIT="${arg#curso.init=}" ;; esac
done
exec /bin/busybox switch_root /newroot $INIT
"""


@dataclass(frozen=True)
class Assets:
    kernel: Path
    initramfs: Path
    base_disk: Path
    kernel_version: str
    rootfs: Path  # the guest's root file system as a directory (system containers mount from it)
    systemd_disk: Path | None = None  # a Debian base disk whose init is systemd (built as root only)

    @property
    def probes(self) -> Path:
        return self.rootfs / "sonda"

    @property
    def data_file(self) -> Path:
        return self.rootfs / "datos" / "entrada.txt"


def manifest_path() -> Path:
    return VM_DIR / "manifest.json"


def assets() -> Assets | None:
    """The built guest, or None if `make setup` has not built it (or built an older layout)."""
    try:
        info = json.loads(manifest_path().read_text())
    except (OSError, ValueError):
        return None
    if info.get("format") != FORMAT_VERSION:
        return None
    systemd_disk = Path(info["systemd_disk"]) if info.get("systemd_disk") else None
    found = Assets(
        Path(info["kernel"]),
        Path(info["initramfs"]),
        Path(info["base_disk"]),
        info["kernel_version"],
        Path(info["rootfs"]),
        systemd_disk if systemd_disk and systemd_disk.exists() else None,
    )
    if not all(p.exists() for p in (found.kernel, found.initramfs, found.base_disk, found.rootfs)):
        return None
    return found


def qemu_binary() -> str | None:
    return shutil.which(QEMU)


def qemu_img_binary() -> str | None:
    return shutil.which("qemu-img")


def availability() -> tuple[bool, str | None]:
    """Can this machine boot the course's VM (under TCG at least)? (ok, Spanish reason)."""
    if not qemu_binary():
        return False, f"falta {QEMU} (paquete de Debian qemu-system-x86; «make setup» lo instala como root)."
    if not qemu_img_binary():
        return False, "falta qemu-img (paquete de Debian qemu-utils; «make setup» lo instala como root)."
    if assets() is None:
        return False, "la VM del curso aún no está construida: ejecuta «make setup»."
    return True, None
