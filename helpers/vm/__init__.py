"""Virtual machines with QEMU, built offline from Debian packages (experiment sistema_vm).

The guest is the course's own, kept small so it boots in about a second and a half even under
software emulation:
- kernel: the uncompressed kernel (vmlinux) of Debian's `linux-image-cloud-amd64`; the .deb is fetched
  with `apt-get download` (no root needed) and unpacked with `dpkg-deb -x`. Its vmlinuz is a bzImage
  with an lz4 payload; `lz4` unpacks it, and the ELF boots directly on QEMU's `microvm` machine (PVH);
- initramfs: busybox-static plus the virtio modules of that same kernel; its /init mounts the disk
  and hands over to busybox init (`switch_root`);
- disk: an ext4 image holding a busybox root filesystem (the same busybox the course's «alpine»
  stand-in image holds), the probes and the gzip input. Every VM boots from its own copy-on-write
  qcow2 overlay on that shared base, like a VM cloned from a master image.
busybox init runs the same /etc/inittab line in the VM and in the system container, and that line
prints the ready marker on the console.

Acceleration: KVM only if a probe boots the guest under `-accel kvm` within a short time (on this
course's machines /dev/kvm exists but a guest does not boot on it); otherwise TCG, QEMU's software
emulation, whose figures are labelled «emulada» everywhere.

Every VM is a child process in its own process group, owned by the run: `VM.stop()` kills the group
and removes the overlay; experiments register it with `ctx.defer`.

Modules: assets (constants, the built files, the host's QEMU), build (kernel, initramfs, root file
system, provision), disk (a base disk from a directory), systemd (the guest with systemd), run (the KVM
probe, the QEMU process group: VM). `from helpers import vm` holds what the experiment uses; the rest is
in its module.
"""

from __future__ import annotations

from .assets import (
    BASE_MEMORY_MB,
    BOOT_TIMEOUT,
    DEBIAN_PACKAGES,
    GUEST_DATA_MB,
    MACHINE,
    READY,
    VM_DIR,
    assets,
    availability,
    qemu_binary,
)
from .build import guest_modules, provision
from .run import VM, kvm_status, qemu_command, resolve_acceleration
from .systemd import READY_UNIT_NAME, SYSTEMD_IMAGE, ready_unit, systemd_reason

__all__ = [
    "BASE_MEMORY_MB",
    "BOOT_TIMEOUT",
    "DEBIAN_PACKAGES",
    "GUEST_DATA_MB",
    "MACHINE",
    "READY",
    "READY_UNIT_NAME",
    "SYSTEMD_IMAGE",
    "VM",
    "VM_DIR",
    "assets",
    "availability",
    "guest_modules",
    "kvm_status",
    "provision",
    "qemu_binary",
    "qemu_command",
    "ready_unit",
    "resolve_acceleration",
    "systemd_reason",
]
