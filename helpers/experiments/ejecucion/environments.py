"""Experiment 3's environments: bare metal with the host's binaries, a chroot into the image's root
filesystem exported from the engine (the same userland as the containers, with no namespaces and no
cgroups), and long-lived containers measured through `exec`."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from ... import engines as eng
from ... import system
from ..base import Log, print_log
from .workloads import PROBE, PROBE_IN_CONTAINER, VOLUME_IN_CONTAINER

ENVIRONMENTS = ("bare", "chroot", "docker", "podman")
ROOTFS_CACHE = eng.CACHE_DIR / "rootfs-exportado"
FS_MAGIC = {
    "794c7630": "overlay",
    "ef53": "ext4",
    "58465342": "xfs",
    "1021994": "tmpfs",
    "9123683e": "btrfs",
    "65735546": "fuse",
}


def _make_dev_nodes(root: Path) -> None:
    """The character devices the workloads need, so chroot works without mounting anything (as root;
    without root they are left out)."""
    dev = root / "dev"
    dev.mkdir(exist_ok=True)
    for name, minor in (("null", 3), ("zero", 5), ("random", 8), ("urandom", 9)):
        path = dev / name
        if path.is_symlink() or (path.exists() and not stat.S_ISCHR(path.lstat().st_mode)):
            path.unlink() if not path.is_dir() or path.is_symlink() else shutil.rmtree(path)
        if not path.exists():
            try:
                os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
            except PermissionError:
                # Without root there is no mknod. Chroot needs root anyway (it is skipped); a rootless
                # runc (experiment 4) builds its own /dev, so the rootfs is still of use.
                continue
            os.chmod(path, 0o666)
    tmp = root / "tmp"
    tmp.mkdir(exist_ok=True)
    tmp.chmod(0o1777)


CHROOT_WHAT = "la línea base chroot (chroot y mknod)"
NEEDS_ROOT = {"chroot": CHROOT_WHAT}  # listed for a student without root in notebook 00


def chroot_unavailable_reason() -> str | None:
    """Why the chroot baseline cannot run here (Spanish), or None as root (also used by anatomia)."""
    return system.needs_root_reason(CHROOT_WHAT)


def exported_rootfs(engine_name: str, image: dict, run_id: str, log: Log = print_log) -> Path:
    """The image's root filesystem, exported from the engine, with the device nodes the workloads need;
    cached by image ID (CACHE_DIR/rootfs-exportado)."""
    engine = eng.get_engine(engine_name)
    key = str(image["id"]).split(":")[-1][:16]
    target = ROOTFS_CACHE / f"{engine_name}-{key}"
    stamp = ROOTFS_CACHE / f"{engine_name}-{key}.ok"
    if stamp.exists() and target.is_dir():
        return target
    ROOTFS_CACHE.mkdir(parents=True, exist_ok=True)
    log(f"Exportando el sistema de archivos de {image['name']} desde {engine.display} (una sola vez)…")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=ROOTFS_CACHE))
    try:
        engine.export_rootfs(image["name"], tmp, run_id=run_id)
        _make_dev_nodes(tmp)
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
        stamp.write_text(f"{image['name']} {image['id']}\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def container_options(volume_dir: Path, cpu: int | None) -> eng.RunOptions:
    return eng.RunOptions(
        network="none",
        volumes=[(str(PROBE), PROBE_IN_CONTAINER, "ro"), (str(volume_dir), VOLUME_IN_CONTAINER, "")],
        cpuset=cpu,
    )


def start_container(
    engine_name: str, image: str, name: str, run_id: str, volume_dir: Path, cpu: int | None
) -> str:
    # No --rm: Podman mounts the overlay of a --rm container with fsync=volatile (fsync becomes a
    # no-op), which would fake the writable-layer write speed. Clean-up removes it by the run's label.
    eng.get_engine(engine_name).launch(
        image, ["sleep", "86400"], run_id=run_id, name=name, opts=container_options(volume_dir, cpu)
    )
    return name


def container_alive(engine_name: str, name: str) -> bool:
    return eng.get_engine(engine_name).is_running(name)


def _inside(engine_name: str | None, container: str | None, argv: list[str]) -> str:
    """stdout of argv, on the host (engine_name None) or by exec in a container."""
    if engine_name is None:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout
    engine = eng.get_engine(engine_name)
    return engine.call(engine.exec_argv(container, argv), timeout=60).stdout


def root_mount_options(engine_name: str, container: str) -> str:
    """Mount options of / inside a container (e.g. to spot overlay's fsync=volatile)."""
    for line in _inside(engine_name, container, ["cat", "/proc/mounts"]).splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[1] == "/":
            return ",".join(
                o for o in parts[3].split(",") if not o.startswith(("lowerdir", "upperdir", "workdir"))
            )
    return "desconocido"


def filesystem_type(path: str, engine_name: str | None = None, container: str | None = None) -> str:
    """Filesystem type of `path` (via `stat -f`, on the host or through exec)."""
    magic = _inside(engine_name, container, ["stat", "-f", "-c", "%t", path]).strip().lower()
    return FS_MAGIC.get(magic, f"0x{magic}" if magic else "desconocido")
