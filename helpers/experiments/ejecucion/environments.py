"""Experiment 3's containers: started once (`sleep`), measured through `exec`, and what their
filesystems are (the writable overlay layer, the bind-mounted volume, the options of `/`). `copia`
has a container of its own, started afresh before each repetition (outside the timed window), so the
image's file it modifies is still in the image's layer: overlay copies it up every time.

The bare-metal baselines of the I/O arms write on the same filesystem as the arm they are compared with:
beside the volumes, and in the engine's storage (`layer_storage`: the directory that holds the layers,
found from the container's own upper directory). `host_filesystem` says what a host directory sits on,
for meta.json. The host's binaries run as they are; the chroot into the image's exported root
filesystem comes from helpers.engines.rootfs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psutil

from ... import engines as eng
from .arms import PROBE, PROBE_IN_CONTAINER, SCRATCH_IN_CONTAINER, VOLUME_IN_CONTAINER

FS_MAGIC = {
    "794c7630": "overlay",
    "ef53": "ext4",
    "58465342": "xfs",
    "1021994": "tmpfs",
    "9123683e": "btrfs",
    "65735546": "fuse",
}


# The image's file `copia` modifies: the largest regular, non-executable file (a running binary
# cannot be opened for writing) between these sizes, found inside the container.
COPY_MIN_BYTES = 256 * 1024
COPY_MAX_BYTES = 32 * 1024 * 1024


def container_options(volume_dir: Path | None, cpu: int | None) -> eng.RunOptions:
    volumes = [(str(PROBE), PROBE_IN_CONTAINER, "ro")]
    if volume_dir is not None:
        volumes.append((str(volume_dir), VOLUME_IN_CONTAINER, ""))
    # stop timeout 0: `sleep` as PID 1 ignores SIGTERM, and `podman rm -f` would wait 10 s for it.
    return eng.RunOptions(network="none", volumes=volumes, cpuset=cpu, stop_timeout=0)


def start_container(
    engine_name: str, image: str, name: str, run_id: str, volume_dir: Path | None, cpu: int | None
) -> str:
    # No --rm: Podman mounts the overlay of a --rm container with fsync=volatile (fsync becomes a
    # no-op), which would fake the writable-layer write speed. Clean-up removes it by the run's label.
    eng.get_engine(engine_name).launch(
        image, ["sleep", "86400"], run_id=run_id, name=name, opts=container_options(volume_dir, cpu)
    )
    return name


def restart_fresh(engine_name: str, image: str, name: str, run_id: str, cpu: int | None) -> str:
    """Remove the container `name` (if any) and start a new one from the image: a writable layer with
    nothing copied up yet."""
    engine = eng.get_engine(engine_name)
    engine.remove([name])
    return start_container(engine_name, image, name, run_id, None, cpu)


def copy_target(engine_name: str, container: str) -> tuple[str, int] | None:
    """(path, bytes) of the image's file `copia` modifies, or None when the image has none (a busybox
    image holds little more than its one binary, which is always running)."""
    line = (
        f"find / -xdev -type f -size +{COPY_MIN_BYTES // 1024}k ! -perm -u+x 2>/dev/null | "
        'while read f; do echo "$(wc -c < "$f") $f"; done'
    )
    found = []
    for row in _inside(engine_name, container, ["sh", "-c", line]).splitlines():
        size, _, path = row.strip().partition(" ")
        if size.isdigit() and path and " " not in path and int(size) <= COPY_MAX_BYTES:
            found.append((int(size), path))
    if not found:
        return None
    size, path = max(found)
    return path, size


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


def container_filesystems(engine_name: str, container: str) -> dict[str, str]:
    """What each place `escritura` writes to is inside a running container, for meta.json: its
    writable layer, its volume and the mount options of /."""
    return {
        f"{engine_name}:capa": filesystem_type(SCRATCH_IN_CONTAINER, engine_name, container),
        f"{engine_name}:volumen": filesystem_type(VOLUME_IN_CONTAINER, engine_name, container),
        f"{engine_name}:opciones_de_/": root_mount_options(engine_name, container),
    }


def host_filesystem(path: str | Path) -> dict:
    """What a host directory sits on, for meta.json: its filesystem type, the device number
    (major:minor, what «the same filesystem» is tested on), the mount point and its source (psutil)."""
    real = os.path.realpath(path)
    dev = os.stat(real).st_dev
    mounts = [p for p in psutil.disk_partitions(all=True) if _under(real, p.mountpoint)]
    mount = max(mounts, key=lambda p: len(p.mountpoint), default=None)
    return {
        "ruta": real,
        "tipo": mount.fstype if mount else filesystem_type(real),
        "dispositivo": f"{os.major(dev)}:{os.minor(dev)}",
        "montaje": mount.mountpoint if mount else "desconocido",
        "origen": mount.device if mount else "desconocido",
    }


def _under(path: str, mountpoint: str) -> bool:
    return mountpoint == "/" or path == mountpoint or path.startswith(mountpoint.rstrip("/") + "/")


def same_filesystem(a: str | Path, b: str | Path) -> bool:
    return os.stat(a).st_dev == os.stat(b).st_dev


def layer_storage(engine_name: str, container: str) -> tuple[str, str] | None:
    """(the container's upper directory on the host, the engine's storage directory that holds it), or
    None when the engine does not say (a storage driver without an upper directory)."""
    data = eng.get_engine(engine_name).inspect_container(container) or {}
    upper = ((data.get("GraphDriver") or {}).get("Data") or {}).get("UpperDir") or ""
    if not upper or not os.path.isdir(upper):
        return None
    # <storage>/overlay2/<id>/diff (Docker), <storage>/overlay/<id>/diff (Podman)
    return upper, str(Path(upper).parents[2])
