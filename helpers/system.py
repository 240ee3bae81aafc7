"""Host facts: CPU, kernel, cgroup version, processes, and running a host command. Nothing here launches
a container."""

from __future__ import annotations

import grp
import os
import platform
import pwd
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import psutil

from .errors import ComandoFallido

CGROUP_ROOT = Path("/sys/fs/cgroup")


def capture(argv: Sequence, **kw) -> subprocess.CompletedProcess:
    """Run a host command, its output captured as text; the caller reads the exit code."""
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)


def run_checked(argv: Sequence, *, timeout: float = 600, cwd=None) -> str:
    """Run a host command (building a guest, a disk, an overlay) and return its output; a failure raises
    ComandoFallido with the command and the end of what it said."""
    result = capture(argv, timeout=timeout, cwd=cwd, errors="replace")
    if result.returncode != 0:
        err = (result.stderr or result.stdout).strip()[-1500:]
        raise ComandoFallido(f"«{' '.join(map(str, argv[:4]))}» falló (código {result.returncode}): {err}")
    return result.stdout


def is_root() -> bool:
    """True when this process runs as root (uid 0). The one check every root-only step uses."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def user_name() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return os.environ.get("USER") or os.environ.get("LOGNAME") or "usuario"


def in_group(group: str) -> bool:
    """True if this process carries `group` among its groups (as the docker socket checks)."""
    try:
        gid = grp.getgrnam(group).gr_gid
    except (ImportError, KeyError):
        return False
    return gid in os.getgroups() or gid == os.getgid()


def needs_root_reason(what: str) -> str | None:
    """None as root; otherwise one Spanish sentence: «<what> necesita privilegios de root, y …»."""
    if is_root():
        return None
    return f"{what} necesita privilegios de root, y este curso corre como «{user_name()}», sin root."


def free_subid_start(path: Path = Path("/etc/subuid"), floor: int = 100000) -> int:
    """The first id after every range already given in /etc/subuid (or /etc/subgid)."""
    start = floor
    try:
        for line in Path(path).read_text().splitlines():
            fields = line.strip().split(":")
            if len(fields) == 3 and fields[1].isdigit() and fields[2].isdigit():
                start = max(start, int(fields[1]) + int(fields[2]))
    except OSError:
        pass
    return start


def subid_command(user: str | None = None) -> str:
    """The command an administrator runs to give `user` the 65536 subordinate ids rootless containers
    (and mmdebstrap without root) need, in a range nobody else has."""
    user = user or user_name()
    start = max(free_subid_start(Path("/etc/subuid")), free_subid_start(Path("/etc/subgid")))
    span = f"{start}-{start + 65535}"
    return f"sudo usermod --add-subuids {span} --add-subgids {span} {user}"


def cgroup_version(root: Path = CGROUP_ROOT) -> str:
    """ "v2" (unified), "v1 (híbrido)" (v1 controllers plus an empty cgroup2 tree), "v1", or
    "desconocido"."""
    root = Path(root)
    if (root / "cgroup.controllers").is_file():
        return "v2"
    if (root / "unified").is_dir():
        return "v1 (híbrido)"
    if (root / "memory").is_dir() or (root / "cpu").is_dir():
        return "v1"
    return "desconocido"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}"


DMI_DIR = Path("/sys/class/dmi/id")
# DMI vendor / product strings that name a hypervisor (lower case, substring match).
DMI_HYPERVISORS = {
    "qemu": "QEMU",
    "kvm": "KVM",
    "vmware": "VMware",
    "virtualbox": "VirtualBox",
    "innotek": "VirtualBox",
    "xen": "Xen",
    "microsoft corporation": "Hyper-V",
    "amazon ec2": "Amazon EC2",
    "google compute engine": "Google Compute Engine",
    "bochs": "Bochs",
    "parallels": "Parallels",
    "openstack": "OpenStack",
    "cloud hypervisor": "Cloud Hypervisor",
    "firecracker": "Firecracker",
}


def _read(path: Path) -> str:
    try:
        return Path(path).read_text(errors="replace").strip()
    except OSError:
        return ""


def cpu_hypervisor_flag(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """The CPUID "hypervisor" bit, as the kernel lists it among the CPU flags."""
    for line in _read(cpuinfo).splitlines():
        if line.lower().startswith("flags"):
            return "hypervisor" in line.split(":", 1)[-1].split()
    return False


def dmi_hypervisor(dmi_dir: Path = DMI_DIR) -> str | None:
    """The hypervisor named by the firmware's DMI tables (sys_vendor, product_name, bios_vendor)."""
    text = " ".join(_read(Path(dmi_dir) / f) for f in ("sys_vendor", "product_name", "bios_vendor")).lower()
    for needle, name in DMI_HYPERVISORS.items():
        if needle in text:
            return name
    return None


def systemd_detect_virt(program: str = "systemd-detect-virt") -> str | None:
    """`systemd-detect-virt --vm` where the program exists: the VM technology, or None ("none",
    missing program, error)."""
    path = shutil.which(program)
    if not path:
        return None
    try:
        out = subprocess.run([path, "--vm"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    answer = out.stdout.strip()
    return answer if out.returncode == 0 and answer and answer != "none" else None


def virtualization(
    *,
    cpuinfo: Path = Path("/proc/cpuinfo"),
    dmi_dir: Path = DMI_DIR,
    cmdline: Path = Path("/proc/cmdline"),
    detect_program: str = "systemd-detect-virt",
) -> dict:
    """Is this "bare metal" a virtual machine? Three independent witnesses: the CPUID hypervisor flag,
    the DMI tables, and `systemd-detect-virt --vm` where present (plus Firecracker's own boot line,
    which has no DMI). Returns {"es_vm", "tecnologia", "pistas", "descripcion" (one Spanish sentence)}."""
    clues = {}
    if cpu_hypervisor_flag(cpuinfo):
        clues["cpuid"] = "la CPU anuncia el bit «hypervisor»"
    dmi = dmi_hypervisor(dmi_dir)
    if dmi:
        clues["dmi"] = f"el firmware (DMI) se presenta como {dmi}"
    detected = systemd_detect_virt(detect_program)
    if detected:
        clues["systemd-detect-virt"] = f"systemd-detect-virt --vm responde «{detected}»"
    boot = _read(cmdline).lower()
    firecracker = "firecracker" in boot
    if firecracker:
        clues["cmdline"] = "la línea de arranque del kernel menciona Firecracker"
    technology = "Firecracker" if firecracker else dmi or (detected.upper() if detected else None)
    is_vm = bool(clues)
    if is_vm:
        what = f" ({technology})" if technology else ""
        text = (
            f"Esta máquina es una máquina virtual{what}: {'; '.join(clues.values())}. Aquí «bare metal» "
            "significa «sin contenedor, dentro de la VM»: la línea base ya paga la virtualización."
        )
    else:
        text = "No hay señales de virtualización: «bare metal» es la máquina física."
    return {"es_vm": is_vm, "tecnologia": technology, "pistas": clues, "descripcion": text}


def host_metadata() -> dict:
    mem = psutil.virtual_memory()
    return {
        "hostname": platform.node(),
        "os": os_name(),
        "kernel": platform.release(),
        "architecture": platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_cores": os.cpu_count(),
        "memory_total_bytes": mem.total,
        "memory_available_bytes": mem.available,
        "cgroup_version": cgroup_version(),
        "virtualization": virtualization(),
        "python": sys.version.split()[0],
        "is_root": is_root(),
        "user": user_name(),
        "limits": {"pid_max": pid_max()},
    }


def pid_max(path: Path = Path("/proc/sys/kernel/pid_max")) -> int | None:
    """kernel.pid_max: how many PIDs the kernel hands out (every process and thread takes one), or None
    where it cannot be read."""
    try:
        return int(_read(path).strip())
    except ValueError:
        return None


def processes_named(*names: str) -> list[psutil.Process]:
    """Running processes whose executable name is one of `names`."""
    wanted = set(names)
    found = []
    for proc in psutil.process_iter(["name"]):
        if proc.info.get("name") in wanted:
            found.append(proc)
    return found


def process_memory(proc: psutil.Process) -> dict:
    """RSS and PSS in bytes (PSS needs /proc/<pid>/smaps_rollup; None where not readable)."""
    try:
        full = proc.memory_full_info()
        return {"pid": proc.pid, "name": proc.name(), "rss": full.rss, "pss": getattr(full, "pss", None)}
    except (psutil.AccessDenied, psutil.NoSuchProcess):
        try:
            return {"pid": proc.pid, "name": proc.name(), "rss": proc.memory_info().rss, "pss": None}
        except psutil.Error:
            return {"pid": proc.pid, "name": "?", "rss": None, "pss": None}


def memory_totals(readings) -> dict:
    """Sum the RSS and PSS (bytes) of process_memory() readings; PSS is None if any is unknown."""
    readings = [r for r in readings if r.get("rss") is not None]
    pss = [r.get("pss") for r in readings]
    return {
        "count": len(readings),
        "rss": sum(r["rss"] for r in readings),
        "pss": None if any(p is None for p in pss) else sum(pss),
    }
