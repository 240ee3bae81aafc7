"""Is "bare metal" a virtual machine? system.virtualization on constructed files, and on this machine."""

import subprocess
from pathlib import Path

from helpers import system

FLAGS_VM = "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm\n"
FLAGS_METAL = "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr lahf_lm\n"


def _files(tmp_path, flags, vendor="", cmdline="BOOT_IMAGE=/vmlinuz root=/dev/sda1"):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(flags)
    dmi = tmp_path / "dmi"
    dmi.mkdir()
    if vendor:
        (dmi / "sys_vendor").write_text(vendor + "\n")
    boot = tmp_path / "cmdline"
    boot.write_text(cmdline)
    return {"cpuinfo": cpuinfo, "dmi_dir": dmi, "cmdline": boot, "detect_program": "no-such-program-here"}


def test_physical_machine_has_no_clue(tmp_path):
    v = system.virtualization(**_files(tmp_path, FLAGS_METAL, vendor="Dell Inc."))
    assert v["es_vm"] is False and v["pistas"] == {}
    assert "máquina física" in v["descripcion"]


def _dir(tmp_path, name):
    (tmp_path / name).mkdir()
    return tmp_path / name


def test_each_witness_alone_is_enough(tmp_path):
    v = system.virtualization(**_files(_dir(tmp_path, "a"), FLAGS_VM))
    assert v["es_vm"] and set(v["pistas"]) == {"cpuid"}
    v = system.virtualization(**_files(_dir(tmp_path, "b"), FLAGS_METAL, vendor="QEMU"))
    assert v["es_vm"] and v["tecnologia"] == "QEMU" and set(v["pistas"]) == {"dmi"}
    v = system.virtualization(
        **_files(_dir(tmp_path, "c"), FLAGS_METAL, cmdline="console=ttyS0 -- --firecracker-init")
    )
    assert v["es_vm"] and v["tecnologia"] == "Firecracker"
    assert "máquina virtual (Firecracker)" in v["descripcion"] and "bare metal" in v["descripcion"]


def test_this_machine_is_detected_as_what_it_is():
    """Independent evidence, read here without the helper: the raw CPU flags, the boot line, and
    systemd-detect-virt. This project's machines are Firecracker guests: there it must say so."""
    v = system.virtualization()
    flags = any(
        "hypervisor" in line.split()
        for line in Path("/proc/cpuinfo").read_text().splitlines()
        if line.startswith("flags")
    )
    boot = Path("/proc/cmdline").read_text().lower()
    detect = None
    try:
        out = subprocess.run(["systemd-detect-virt", "--vm"], capture_output=True, text=True, timeout=5)
        detect = out.stdout.strip() if out.returncode == 0 else None
    except OSError:
        pass
    evidence = flags or "firecracker" in boot or (detect not in (None, "", "none"))
    assert v["es_vm"] == evidence
    if "firecracker" in boot:
        assert v["tecnologia"] == "Firecracker" and "cpuid" in v["pistas"]
    assert system.host_metadata()["virtualization"]["es_vm"] == v["es_vm"]


def test_pid_max_is_recorded_from_the_kernel_and_none_where_unreadable(tmp_path):
    """meta.json records kernel.pid_max (09 counts CAPACITY against it); an unreadable file gives None."""
    limit = tmp_path / "pid_max"
    limit.write_text("32768\n")
    assert system.pid_max(limit) == 32768
    assert system.pid_max(tmp_path / "missing") is None
    live = Path("/proc/sys/kernel/pid_max")
    expected = int(live.read_text()) if live.exists() else None
    assert system.host_metadata()["limits"]["pid_max"] == expected
