"""The guest with systemd (a Debian image for Podman and a disk for the VM)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

from .. import engines, images, system
from ..errors import ErrorDelCurso
from .assets import READY, VM_DIR, Assets, Log, manifest_path
from .disk import build_disk

SYSTEMD_IMAGE = "curso/debian-systemd:bookworm"
SYSTEMD_PACKAGES = ("systemd", "systemd-sysv")
SYSTEMD_DISK_MB = 1024
READY_UNIT_NAME = "curso-listo.service"


def ready_unit(target: str = "/dev/console") -> str:
    """Ready when systemd says the boot is over (`is-system-running --wait`, run once inside): the
    instance itself then writes the marker to `target`. The same unit in the container image and the
    VM's disk (their console) and in every LXD system container (a named pipe the host blocks on).
    Type=simple, so this unit's own job does not keep the boot waiting."""
    return f"""[Unit]
Description=Marca de «listo» del curso
After=multi-user.target

[Service]
Type=simple
ExecStart=/bin/sh -c 'systemctl is-system-running --wait >/dev/null 2>&1; echo {READY} > {target}'

[Install]
WantedBy=multi-user.target
"""


# The VM only: a root shell on the serial console, for the course's commands (a container uses exec).
UNIT_CONSOLE = """[Unit]
Description=Consola del curso en ttyS0

[Service]
ExecStart=/bin/sh
StandardInput=tty-force
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
Restart=always

[Install]
WantedBy=multi-user.target
"""


def _add_unit(root: Path, name: str, text: str) -> None:
    unit = root / "etc" / "systemd" / "system" / name
    unit.parent.mkdir(parents=True, exist_ok=True)
    unit.write_text(text)
    wants = unit.parent / "multi-user.target.wants" / name
    wants.parent.mkdir(parents=True, exist_ok=True)
    wants.unlink(missing_ok=True)
    wants.symlink_to(f"/etc/systemd/system/{name}")


def _tar_add_unit(tar_path: Path, name: str, text: str) -> None:
    with tarfile.open(tar_path, "a") as archive:
        data = text.encode()
        info = tarfile.TarInfo(f"./etc/systemd/system/{name}")
        info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
        archive.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo(f"./etc/systemd/system/multi-user.target.wants/{name}")
        link.type, link.linkname, link.mtime = (
            tarfile.SYMTYPE,
            f"/etc/systemd/system/{name}",
            int(time.time()),
        )
        archive.addfile(link)


def systemd_reason() -> str | None:
    """Why the systemd pair (container image and VM disk) cannot be built here, or None."""
    if os.geteuid() != 0:
        return (
            "hace falta root para crear el disco de la VM con systemd (los archivos del sistema deben "
            "pertenecer a root); como usuario, el curso compara solo con busybox init."
        )
    return images.rootfs_builder_reason()


def provision_systemd(found: Assets, log: Log = print) -> Path | None:
    """Build once: a Debian minbase with systemd as a tarball (mmdebstrap), the ready unit added; import
    it into Podman as SYSTEMD_IMAGE; and a VM base disk from the same files plus the console unit, the
    probes and the gzip input. Returns the disk, or None (said in Spanish) if it cannot be built."""
    why = systemd_reason()
    if why:
        log(f"[AVISO] Sin la pareja con systemd: {why}")
        return None
    tar = VM_DIR / "debian-systemd.tar"
    disk = VM_DIR / "base-systemd.qcow2"
    try:
        if not tar.exists():
            log("Construyendo Debian con systemd para el contenedor de sistema y la VM (una sola vez)…")
            partial = images.build_rootfs_tar(
                VM_DIR / "debian-systemd.base.tar", include=SYSTEMD_PACKAGES, log=log
            )
            _tar_add_unit(partial, READY_UNIT_NAME, ready_unit())
            partial.rename(tar)
        podman = engines.get_engine("podman")
        if podman.available and podman.image_info(f"localhost/{SYSTEMD_IMAGE}") is None:
            log(f"    importando {SYSTEMD_IMAGE} en Podman…")
            images.import_tar(podman, tar, SYSTEMD_IMAGE, changes=('CMD ["/sbin/init"]',))
        if not disk.exists():
            with tempfile.TemporaryDirectory(dir=VM_DIR) as tmp:
                root = Path(tmp) / "raiz"
                root.mkdir()
                system.run_checked(
                    ["tar", "-x", "--numeric-owner", "-f", str(tar), "-C", str(root)], timeout=600
                )
                _add_unit(root, "curso-consola.service", UNIT_CONSOLE)
                # The serial console belongs to the course's shell: the stock getty on ttyS0 would wait
                # 90 s for a device unit that never appears on this machine type, delaying the boot.
                (root / "etc" / "systemd" / "system" / "serial-getty@ttyS0.service").symlink_to("/dev/null")
                shutil.copytree(found.probes, root / "sonda", dirs_exist_ok=True)
                shutil.copytree(found.data_file.parent, root / "datos", dirs_exist_ok=True)
                build_disk(root, disk, label="curso-systemd", size_mb=SYSTEMD_DISK_MB)
    except (ErrorDelCurso, OSError, subprocess.SubprocessError) as exc:
        log(f"[AVISO] No pude construir la pareja con systemd: {exc}")
        return None
    info = json.loads(manifest_path().read_text())
    info["systemd_disk"] = str(disk)
    manifest_path().write_text(json.dumps(info, indent=2))
    return disk
