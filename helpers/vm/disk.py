"""A guest's base disk from a directory: ext4 without root or loop devices (mke2fs -d), then qcow2."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .. import system


def build_disk(rootfs: Path, dest: Path, *, label: str, size_mb: int) -> Path:
    """An ext4 file system `label` of `size_mb` MiB holding `rootfs` (its root directory owned by root),
    converted to a qcow2 base image at `dest`: written under another name and renamed when complete, so
    an interrupted build never leaves a disk that looks finished."""
    raw = dest.with_name(dest.name + ".raw")
    partial = dest.with_name(dest.name + ".parcial")
    mkfs = shutil.which("mke2fs") or "/sbin/mke2fs"
    raw.unlink(missing_ok=True)
    try:
        system.run_checked(
            [mkfs, "-q", "-F", "-t", "ext4", "-L", label, "-E", "root_owner=0:0", "-d", str(rootfs)]
            + [str(raw), f"{size_mb}M"]
        )
        system.run_checked(["qemu-img", "convert", "-O", "qcow2", str(raw), str(partial)])
    finally:
        raw.unlink(missing_ok=True)
    os.rename(partial, dest)
    return dest
