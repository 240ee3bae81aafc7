"""helpers.vm without booting a guest: the acceleration choice and the guest's build pieces
(cpio, initramfs, vmlinux, gzip input, base disk, inittab, kernel command line)."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess

import pytest

from helpers import vm
from helpers.errors import ParametroInvalido
from helpers.vm import build as vm_build
from helpers.vm.assets import INITTAB_COMMON, INITTAB_VM, MODULE_PATHS, MODULES
from helpers.vm.disk import build_disk
from tests.support import setup_step_missing


def test_kvm_requested_where_it_does_not_work_is_refused(monkeypatch):
    monkeypatch.setattr(vm.run, "kvm_status", lambda **kw: (False, "no existe /dev/kvm."))
    with pytest.raises(ParametroInvalido, match="KVM no funciona aquí: no existe /dev/kvm"):
        vm.resolve_acceleration("kvm")
    assert vm.resolve_acceleration("auto")[0] == "tcg"
    assert vm.resolve_acceleration("tcg")[0] == "tcg"
    monkeypatch.setattr(vm.run, "kvm_status", lambda **kw: (True, "arrancó."))
    assert vm.resolve_acceleration("auto")[0] == "kvm"


def _read_cpio(data: bytes) -> dict[str, tuple[int, bytes]]:
    out, pos = {}, 0
    while True:
        header = data[pos : pos + 110]
        assert header[:6] == b"070701"
        fields = [int(header[6 + 8 * i : 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name = data[pos + 110 : pos + 110 + namesize - 1].decode()
        pos += 110 + namesize
        pos += -pos % 4
        body = data[pos : pos + size]
        pos += size
        pos += -pos % 4
        if name == "TRAILER!!!":
            return out
        out[name] = (mode, body)


def test_cpio_newc_round_trip():
    entries = [("bin", 0o040755, b""), ("bin/sh", 0o120777, b"busybox"), ("init", 0o100755, b"#!/bin/sh\n")]
    parsed = _read_cpio(vm_build.cpio_newc(entries))
    assert parsed == {name: (mode, data) for name, mode, data in entries}


def test_initramfs_loads_the_modules_in_dependency_order(tmp_path):
    fake_busybox = tmp_path / "busybox"
    fake_busybox.write_text("#!/bin/sh\necho 'sh mount insmod busybox'\n")
    fake_busybox.chmod(0o755)
    modules = tmp_path / "mods"
    for rel in MODULE_PATHS.values():
        (modules / rel).parent.mkdir(parents=True, exist_ok=True)
        (modules / rel).write_bytes(b"\x7fELF" + rel.encode())
    dest = vm_build.build_initramfs(fake_busybox, modules, tmp_path / "initramfs.cpio.gz")
    files = _read_cpio(gzip.decompress(dest.read_bytes()))
    init = files["init"][1].decode()
    assert init.index("virtio_ring virtio virtio_mmio") >= 0  # virtio needs virtio_ring first
    assert 'INIT="/bin/busybox init"' in init and "switch_root /newroot $INIT" in init
    assert "curso.init=" in init  # systemd disks: curso.init=/sbin/init
    assert files["bin/sh"] == (0o120777, b"busybox")
    assert all(f"lib/modules/{m}.ko" in files for m in MODULES)


def test_extract_vmlinux_finds_the_lz4_payload(tmp_path):
    if not shutil.which("lz4"):
        setup_step_missing(
            "lz4 (la instalación de paquetes)", "falta la herramienta lz4 (paquete de Debian lz4)."
        )
    elf = b"\x7fELF" + bytes(range(256)) * 64
    packed = subprocess.run(["lz4", "-l", "-c"], input=elf, capture_output=True, check=True).stdout
    bz = tmp_path / "vmlinuz"
    bz.write_bytes(b"MZ" + b"\0" * 500 + packed + b"trailing bytes")
    assert vm_build.extract_vmlinux(bz, tmp_path / "vmlinux").read_bytes() == elf


def test_gzip_input_is_deterministic(tmp_path):
    a = vm_build.gzip_input(tmp_path / "a.txt", 1).read_bytes()
    b = vm_build.gzip_input(tmp_path / "b.txt", 1).read_bytes()
    assert a == b and len(a) >= 1 << 20
    assert len(gzip.compress(a)) < len(a) / 2  # text-like: gzip has real work to do


@pytest.mark.skipif(
    not all(shutil.which(t) or shutil.which(f"/sbin/{t}") for t in ("mke2fs", "debugfs", "qemu-img")),
    reason="sin mke2fs, debugfs o qemu-img (e2fsprogs, qemu-utils)",
)
def test_a_base_disk_holds_the_directory_and_nothing_is_left_behind(tmp_path):
    rootfs = tmp_path / "raiz"
    (rootfs / "sonda").mkdir(parents=True)
    (rootfs / "sonda" / "hola.txt").write_text("hola\n")
    dest = build_disk(rootfs, tmp_path / "disco.qcow2", label="prueba", size_mb=8)
    assert dest.read_bytes()[:4] == b"QFI\xfb"  # qcow2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disco.qcow2", "raiz"]  # no .raw, no .parcial
    raw = tmp_path / "vuelta.raw"
    subprocess.run(["qemu-img", "convert", "-O", "raw", str(dest), str(raw)], check=True)
    assert raw.stat().st_size == 8 * 2**20
    debugfs = shutil.which("debugfs") or shutil.which("/sbin/debugfs")
    read = subprocess.run([debugfs, "-R", "cat /sonda/hola.txt", str(raw)], capture_output=True, text=True)
    assert read.stdout == "hola\n"
    root = subprocess.run([debugfs, "-R", "stat /", str(raw)], capture_output=True, text=True).stdout
    assert re.search(r"User:\s+0\s+Group:\s+0", root)  # the root directory is root's, whoever built it
    label = subprocess.run([debugfs, "-R", "show_super_stats -h", str(raw)], capture_output=True, text=True)
    assert re.search(r"Filesystem volume name:\s+prueba", label.stdout)


def test_the_same_inittab_line_on_both_sides():
    assert INITTAB_VM.startswith(INITTAB_COMMON)
    assert vm.READY in INITTAB_COMMON


def test_kernel_cmdline_gives_the_tsc_frequency_when_known(monkeypatch):
    monkeypatch.setattr(vm.run, "host_tsc_khz", lambda: 2_300_000)
    assert "tsc_early_khz=2300000" in vm.run.kernel_cmdline() and "console=ttyS0" in vm.run.kernel_cmdline()
    monkeypatch.setattr(vm.run, "host_tsc_khz", lambda: None)
    assert "tsc_early_khz" not in vm.run.kernel_cmdline()


def test_a_guest_boots_its_kernel_on_the_serial_console_and_a_reboot_ends_qemu(tmp_path):
    argv = vm.qemu_command(
        "qemu",
        "microvm",
        ["-accel", "tcg"],
        memory_mb=256,
        cpus=2,
        kernel=tmp_path / "k",
        initrd=tmp_path / "i",
        append="console=ttyS0",
    )
    assert argv[0] == "qemu" and argv[argv.index("-M") + 1] == "microvm"
    assert argv[argv.index("-kernel") + 1] == str(tmp_path / "k") and argv[-1] == "console=ttyS0"
    assert argv[argv.index("-serial") + 1] == "stdio" and argv[argv.index("-m") + 1] == "256"
    assert {"-nodefaults", "-no-reboot"} <= set(argv) and argv[argv.index("-smp") + 1] == "2"


def test_systemd_reason_imports_what_it_needs():
    """provision() and systemd_reason() import lazily; a wrong relative import only showed up as a
    warning of `make setup`. Calling it must give None or a Spanish reason, never ImportError."""
    from helpers.vm import systemd

    reason = systemd.systemd_reason()
    assert reason is None or "root" in reason or "imagen" in reason or isinstance(reason, str) and reason
