"""The students' usual host, checked on every test run: a Debian 13 guest with cgroup v2 under QEMU
(issue 24, `make test-huesped`).

- build.py builds it once, offline afterwards, into the course cache (CACHE_DIR / "huesped"): a root
  filesystem from the Debian mirror (mmdebstrap, package versions pinned in paquetes.txt), the course's
  Python dependencies as wheels (requisitos.txt) in a venv, the course's two stand-in images as rootfs
  tarballs, a student user «alumno» with a lingering systemd user session, and a boot unit that runs
  guest.sh. Kernel and initrd come out of that same root filesystem.
- boot.py boots it (KVM only if the course's probe boots a guest with it, TCG otherwise), with no
  network device, a copy-on-write overlay on the cached disk and a second disk carrying the course in
  and the run folders out; it reads progress markers on the serial console, and the guest powers off.
  QEMU is a child process group the run owns and kills on success, error, Ctrl-C and timeout.
- capa.py imports the course's images once into a cached layer of the disk (one boot); run.py is a
  whole course run on that layer, one at a time on a machine, its folder kept in the cache.
- Inside, guest.sh runs the course's own code: notebook 00 and the quick profile of the first
  class headless (python -m helpers.course): 02 and 03 as root (Docker, Podman), 01, 02 and 03 as «alumno»
  (rootless Podman).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..images import find_tool
from ..paths import CACHE_DIR

GUEST_DIR = CACHE_DIR / "huesped"
RUNS_DIR = GUEST_DIR / "corridas"
HERE = Path(__file__).resolve().parent
PACKAGES_FILE = HERE / "paquetes.txt"
REQUIREMENTS_FILE = HERE / "requisitos.txt"
GUEST_SCRIPT = HERE / "guest.sh"
SUITE = "trixie"
MIRROR = "http://deb.debian.org/debian"
STUDENT = "alumno"
STUDENT_UID = 1000
MARK = "CURSO-HUESPED-"
# How the class comparison and the tests name this machine.
LABEL_TCG = "VM emulada (TCG), Debian 13, cgroup v2"
LABEL_KVM = "VM acelerada (KVM), Debian 13, cgroup v2"
# What the host needs, and the Debian package `make setup` installs it from: the guest installs nothing
# itself (it runs beside the other tests, which must not race it for dpkg's lock).
HOST_PACKAGES = {
    "mmdebstrap": "mmdebstrap",
    "mke2fs": "e2fsprogs",
    "debugfs": "e2fsprogs",
    "qemu-system-x86_64": "qemu-system-x86",
    "qemu-img": "qemu-utils",
}
HOST_TOOLS = tuple(HOST_PACKAGES)


def label(accel: str) -> str:
    return LABEL_KVM if accel == "kvm" else LABEL_TCG


def availability() -> tuple[bool, str | None]:
    """Can this machine build and boot the guest? (ok, Spanish reason)."""
    if os.geteuid() != 0:
        return False, (
            "la VM Debian 13 con cgroups v2 necesita root (mmdebstrap y los dueños de los archivos de su "
            "disco); ejecuta «sudo make test-huesped»."
        )
    missing = [tool for tool in HOST_TOOLS if not find_tool(tool)]
    if missing:
        packages = " ".join(sorted({HOST_PACKAGES[tool] for tool in missing}))
        return False, (
            f"falta {', '.join(missing)} (paquetes de Debian {packages}; «sudo make setup» los instala)."
        )
    return True, None


def pinned_packages(text: str | None = None) -> dict[str, str | None]:
    """{package: pinned version or None} from paquetes.txt (comments and blank lines skipped)."""
    text = PACKAGES_FILE.read_text() if text is None else text
    out: dict[str, str | None] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, version = line.partition("=")
        out[name.strip()] = version.strip() or None
    return out


def version_drift(
    pins: dict[str, str | None], installed: dict[str, str]
) -> dict[str, tuple[str, str | None]]:
    """{package: (pinned, installed)} for every pinned package whose installed version differs."""
    return {
        name: (want, installed.get(name))
        for name, want in pins.items()
        if want is not None and installed.get(name) != want
    }


def parse_dpkg_list(text: str) -> dict[str, str]:
    """`dpkg-query -W` output ("name<TAB>version" per line; architecture qualifiers dropped)."""
    out = {}
    for line in text.splitlines():
        name, _, version = line.partition("\t")
        if name.strip() and version.strip():
            out[name.strip().split(":")[0]] = version.strip()
    return out
