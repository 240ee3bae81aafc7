"""Build the Debian 13 guest once into the course cache (CACHE_DIR / "huesped"); offline afterwards.

Pinning: snapshot.debian.org is not reachable from our machines, only the Debian mirror, which keeps
the current version of each package. So the packages the course measures (engines, runtimes, network
helpers, systemd, Python, the kernel) are pinned to exact versions in paquetes.txt and handed to apt as
`name=version`: a build can only produce those versions, or fail saying which pin the mirror no longer
has. Their dependencies are resolved by apt and recorded (manifest.json here, hechos/paquetes.txt in
every run), and every run checks the pins against what the guest really has. The Python wheels are
pinned the same way (requisitos.txt, `==` on every distribution, installed with --no-deps).

The cached guest is keyed by the package list, the wheel list, the guest script and the stand-in
images; a change to any of them rebuilds it. The course itself is not in the image: each run hands in
the working tree on a second disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import images, system
from ..errors import ComandoFallido
from ..images import find_tool
from . import (
    GUEST_DIR,
    MIRROR,
    PACKAGES_FILE,
    REQUIREMENTS_FILE,
    STUDENT,
    STUDENT_UID,
    SUITE,
    availability,
    parse_dpkg_list,
    pinned_packages,
    version_drift,
)

Log = Callable[[str], None]
FORMAT_VERSION = 1  # bump when the layout of the guest changes
DISK_SIZE = "12G"  # sparse: the base holds ~1.6 GB; the rest is room for the engines' storage
PYTHON_VERSION = "3.13"
WHEELS_DIR = GUEST_DIR / "ruedas"
MANIFEST = GUEST_DIR / "manifest.json"
ROLES = ("alpine", "ubuntu")

# The image only mounts the run's disk and hands over to the guest.sh it carries (so a change to the
# script does not rebuild the image).
BOOTSTRAP = """#!/bin/sh
mkdir -p /mnt/io
if mount LABEL=curso-io /mnt/io && [ -f /mnt/io/guest.sh ]; then
    exec /bin/sh /mnt/io/guest.sh
fi
echo "CURSO-HUESPED-ERROR no se pudo montar el disco curso-io"
echo "CURSO-HUESPED-FIN 90"
systemctl poweroff --no-block
"""

UNIT = """[Unit]
Description=Curso: el guest.sh del disco curso-io (los cuadernos de la primera clase), luego apagar
After=multi-user.target docker.service user@{uid}.service
Wants=docker.service

[Service]
Type=simple
ExecStart=/bin/sh /usr/local/sbin/curso-huesped
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
"""


@dataclass(frozen=True)
class Guest:
    kernel: Path
    initrd: Path
    disk: Path
    manifest: dict


def cache_key() -> str:
    h = hashlib.sha256(f"{FORMAT_VERSION}|{SUITE}|{MIRROR}".encode())
    for path in (PACKAGES_FILE, REQUIREMENTS_FILE):
        h.update(path.read_bytes())
    for role in ROLES:
        tar = images.standin_tar(role)
        st = tar.stat() if tar.exists() else None
        h.update(f"{role}:{st.st_size if st else 0}:{int(st.st_mtime) if st else 0}".encode())
    return h.hexdigest()[:16]


def cached() -> Guest | None:
    """The built guest if it matches the current lists, else None."""
    try:
        manifest = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return None
    guest = Guest(GUEST_DIR / "vmlinuz", GUEST_DIR / "initrd.img", GUEST_DIR / "base.raw", manifest)
    if manifest.get("key") != cache_key() or not all(
        p.exists() for p in (guest.kernel, guest.initrd, guest.disk)
    ):
        return None
    return guest


def fetch_wheels(log: Log) -> Path:
    """The wheels of requisitos.txt for CPython 3.13 (pip download on the host, binary only)."""
    WHEELS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = WHEELS_DIR / ".requisitos"
    if stamp.exists() and stamp.read_text() == REQUIREMENTS_FILE.read_text():
        return WHEELS_DIR
    log("    descargando las ruedas de Python para el huésped (pip download, Python 3.13)…")
    pip = [sys_python(), "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"]
    system.run_checked(
        pip + ["--python-version", PYTHON_VERSION, "-d", WHEELS_DIR, "-r", REQUIREMENTS_FILE],
        timeout=1200,
    )
    stamp.write_text(REQUIREMENTS_FILE.read_text())
    return WHEELS_DIR


def sys_python() -> str:
    return sys.executable


def package_args() -> list[str]:
    return [f"{name}={version}" if version else name for name, version in pinned_packages().items()]


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def customize(root: Path) -> None:
    """Files the guest needs, written straight into the root filesystem."""
    _write(root / "etc" / "hostname", "curso-huesped\n")
    _write(root / "etc" / "hosts", "127.0.0.1 localhost\n127.0.1.1 curso-huesped\n")
    _write(root / "usr" / "local" / "sbin" / "curso-huesped", BOOTSTRAP, 0o755)
    system = root / "etc" / "systemd" / "system"
    _write(system / "curso-huesped.service", UNIT.format(uid=STUDENT_UID))
    wants = system / "multi-user.target.wants" / "curso-huesped.service"
    wants.parent.mkdir(parents=True, exist_ok=True)
    wants.unlink(missing_ok=True)
    wants.symlink_to("/etc/systemd/system/curso-huesped.service")
    # The serial console is the course's: no login prompt on it; nothing to do for the timers.
    for unit in ("serial-getty@ttyS0.service", "apt-daily.timer", "apt-daily-upgrade.timer", "fstrim.timer"):
        masked = system / unit
        masked.unlink(missing_ok=True)
        masked.symlink_to("/dev/null")
    # The student's systemd user session starts at boot (as after a login) and stays.
    _write(root / "var" / "lib" / "systemd" / "linger" / STUDENT, "")
    for name in ("subuid", "subgid"):
        path = root / "etc" / name
        text = path.read_text() if path.exists() else ""
        if not any(line.startswith(f"{STUDENT}:") for line in text.splitlines()):
            path.write_text(text + f"{STUDENT}:100000:65536\n")
    # The stand-in images, as the tarballs the course imports by itself (images.ensure), for both users.
    for role in ROLES:
        dest = root / "opt" / "imagenes" / f"{role}.tar"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(images.standin_tar(role), dest)
        dest.chmod(0o644)
        for home, uid in (("root", 0), (f"home/{STUDENT}", STUDENT_UID)):
            cache = root / home / ".cache" / "curso-contenedores"
            link = cache / "images" / role / "rootfs.tar"
            link.parent.mkdir(parents=True, exist_ok=True)
            link.unlink(missing_ok=True)
            link.symlink_to(f"/opt/imagenes/{role}.tar")
            for part in [cache.parent, cache, cache / "images", link.parent]:
                os.chown(part, uid, uid)


def build(log: Log = print) -> Guest:
    """Build (or rebuild) the guest. Raises ComandoFallido (Spanish) if something cannot be built."""
    ok, why = availability()
    if not ok:
        raise ComandoFallido(f"No puedo construir el huésped: {why}")
    start = time.monotonic()
    GUEST_DIR.mkdir(parents=True, exist_ok=True)
    for role in ROLES:
        images.build_standin(role, log)
    wheels = fetch_wheels(log)
    with tempfile.TemporaryDirectory(dir=GUEST_DIR, prefix="construccion-") as tmp:
        root = Path(tmp) / "raiz"
        log(f"    mmdebstrap {SUITE} ({len(pinned_packages())} paquetes pedidos, versiones fijadas)…")
        hooks = [
            f'--customize-hook=mkdir -p "$1/tmp/ruedas" && cp {wheels}/*.whl {REQUIREMENTS_FILE} "$1/tmp/ruedas/"',
            f'--customize-hook=chroot "$1" useradd -m -u {STUDENT_UID} -s /bin/bash {STUDENT}',
            '--customize-hook=chroot "$1" python3 -m venv /opt/venv',
            '--customize-hook=chroot "$1" /opt/venv/bin/pip install -q --no-index --no-deps '
            "--no-compile --find-links /tmp/ruedas -r /tmp/ruedas/requisitos.txt",
            '--customize-hook=chroot "$1" /opt/venv/bin/python -m compileall -q /opt/venv',
            '--customize-hook=rm -rf "$1/tmp/ruedas"',
        ]
        excludes = [
            f"--dpkgopt=path-exclude=/usr/share/{d}/*" for d in ("man", "doc", "info", "locale", "lintian")
        ]
        try:
            system.run_checked(
                [
                    "mmdebstrap",
                    "--variant=apt",
                    "--aptopt=Acquire::Retries=3",
                    f"--include={','.join(package_args())}",
                    *excludes,
                    *hooks,
                    SUITE,
                    root,
                    MIRROR,
                ],
                timeout=1800,
            )
        except ComandoFallido as exc:
            if "has no installation candidate" in str(exc) or "was not found" in str(exc):
                raise ComandoFallido(
                    "La réplica de Debian ya no tiene alguna de las versiones fijadas en "
                    f"helpers/guest/paquetes.txt; actualiza esa lista a propósito. Detalle: {exc}"
                ) from exc
            raise
        installed = parse_dpkg_list(system.run_checked(["chroot", root, "dpkg-query", "-W"]))
        drift = version_drift(pinned_packages(), installed)
        if drift:
            raise ComandoFallido(f"Versiones distintas de las fijadas en paquetes.txt: {drift}")
        customize(root)
        kernels = sorted((root / "boot").glob("vmlinuz-*"))
        initrds = sorted((root / "boot").glob("initrd.img-*"))
        if not kernels or not initrds:
            raise ComandoFallido("El sistema del huésped no trae kernel o initrd en /boot.")
        shutil.copyfile(kernels[-1], GUEST_DIR / "vmlinuz")
        shutil.copyfile(initrds[-1], GUEST_DIR / "initrd.img")
        log("    creando el disco (mke2fs -d)…")
        partial = GUEST_DIR / "base.raw.parcial"
        partial.unlink(missing_ok=True)
        system.run_checked(
            [
                find_tool("mke2fs"),
                "-q",
                "-F",
                "-t",
                "ext4",
                "-L",
                "curso-huesped",
                "-d",
                root,
                partial,
                DISK_SIZE,
            ]
        )
        partial.replace(GUEST_DIR / "base.raw")
    manifest = {
        "key": cache_key(),
        "suite": SUITE,
        "kernel": kernels[-1].name.removeprefix("vmlinuz-"),
        "packages": installed,
        "build_seconds": round(time.monotonic() - start, 1),
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    MANIFEST.write_text(json.dumps(manifest, indent=2))
    log(f"    huésped construido en {manifest['build_seconds']:.0f} s.")
    return cached()


def ensure(log: Log = print) -> tuple[Guest, float | None]:
    """The cached guest, built first if needed. Returns (guest, build seconds or None if cached)."""
    found = cached()
    if found is not None:
        log("Huésped Debian 13: ya construido (caché).")
        return found, None
    log("Construyendo el huésped Debian 13 con cgroups v2 (una sola vez; unos minutos)…")
    start = time.monotonic()
    guest = build(log)
    if guest is None:
        raise ComandoFallido("El huésped se construyó, pero su manifiesto no coincide.")
    return guest, time.monotonic() - start
