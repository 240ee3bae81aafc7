"""An image's root filesystem exported from an engine, ready to `chroot` into.

Several experiments run the image's own binaries without a container: experiment 3 (a bare-metal
baseline with the same userland as the containers), experiment 4 (the chroot rung and the OCI bundles
of runc/runsc) and experiment 7 (level 0 of the nesting ladder). They all take the root filesystem from
here: exported once per engine and image ID (`create` + `export`), with the character devices the
workloads need, and cached under CACHE_DIR/rootfs-exportado.

Entering it (`chroot`, `mknod`) needs root: `CHROOT_WHAT` is the one Spanish description of that arm,
for `ctx.require_root("chroot", CHROOT_WHAT)` and each experiment's `NEEDS_ROOT`.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from .. import system
from ..paths import CACHE_DIR
from .registry import get_engine

ROOTFS_CACHE = CACHE_DIR / "rootfs-exportado"
CHROOT_WHAT = "la línea base chroot (chroot y mknod)"
# The character devices a workload reads (/dev/urandom for hash, /dev/null for output): (name, minor).
DEV_NODES = (("null", 3), ("zero", 5), ("random", 8), ("urandom", 9))


def chroot_unavailable_reason() -> str | None:
    """Why a chroot into an exported image cannot run here (one Spanish sentence), or None as root."""
    return system.needs_root_reason(CHROOT_WHAT)


def make_dev_nodes(root: Path) -> None:
    """The character devices the workloads need, so chroot works without mounting anything, and a
    world-writable /tmp. Without root there is no mknod: the devices are left out (chroot needs root
    anyway and is skipped; a rootless runc builds its own /dev, so the rootfs is still of use)."""
    dev = root / "dev"
    dev.mkdir(exist_ok=True)
    for name, minor in DEV_NODES:
        path = dev / name
        if path.is_symlink() or (path.exists() and not stat.S_ISCHR(path.lstat().st_mode)):
            path.unlink() if not path.is_dir() or path.is_symlink() else shutil.rmtree(path)
        if not path.exists():
            try:
                os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
            except PermissionError:
                continue
            os.chmod(path, 0o666)
    tmp = root / "tmp"
    tmp.mkdir(exist_ok=True)
    tmp.chmod(0o1777)


def exported_rootfs(engine_name: str, image: dict, run_id: str, log: Callable[[str], None] = print) -> Path:
    """The root filesystem of `image` (an entry of ctx.images: name and id), exported from the engine
    with the device nodes the workloads need; cached by image ID, so a second run reuses it. The export
    goes to a temporary folder renamed into place only when complete: an interrupted export is never
    taken for a good one."""
    engine = get_engine(engine_name)
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
        make_dev_nodes(tmp)
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
        stamp.write_text(f"{image['name']} {image['id']}\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target
