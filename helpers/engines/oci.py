"""OCI bundles for running an OCI runtime by hand (runc, runsc), with no engine and no daemon.

A bundle is a directory with a `config.json`; its `root.path` points at an image's exported root
filesystem (read-only, so one cached copy serves every run). The configuration comes from the
runtime's own generator (`runc spec`, `runc spec --rootless` without root); the course changes only
the command, the terminal, the root and, on request, drops the network namespace.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ErrorDelCurso


def runc_path() -> str | None:
    return shutil.which("runc") or next(
        (p for p in ("/usr/sbin/runc", "/usr/bin/runc") if Path(p).exists()), None
    )


def runc_availability() -> tuple[bool, str | None]:
    if runc_path() is None:
        return False, "no se encuentra el binario «runc» (viene con el paquete «runc» de Debian)."
    if os.geteuid() != 0 and not Path("/proc/self/ns/user").exists():
        return False, "runc sin root necesita espacios de nombres de usuario, y este kernel no los ofrece."
    return True, None


@dataclass
class Bundle:
    """A bundle directory and the runtime state directory that goes with it (both temporary)."""

    path: Path
    state: Path
    network_namespace: bool
    rootless: bool

    def remove(self) -> None:
        """Delete the bundle and the state directory, unmounting first what a runtime left mounted
        there (runsc keeps a `null-netns` bind mount in its state directory)."""
        for path in (self.state, self.path):
            unmount_under(path)
            shutil.rmtree(path, ignore_errors=True)


def unmount_under(directory: Path) -> list[str]:
    """Lazily unmount every mount point at or below `directory` (deepest first); returns them."""
    root = str(Path(directory).resolve())
    try:
        with open("/proc/self/mounts", encoding="utf-8") as fh:
            points = [line.split()[1].replace("\\040", " ") for line in fh]
    except OSError:
        return []
    inside = sorted({p for p in points if p == root or p.startswith(root + "/")}, key=len, reverse=True)
    for point in inside:
        subprocess.run(["umount", "-l", point], capture_output=True, timeout=30)
    return inside


def overlay_paths(base: Path) -> dict[str, Path]:
    base = Path(base)
    return {"upper": base / "upper", "work": base / "work", "merged": base / "merged"}


# mount(2) and umount2(2) straight from libc: no `mount`/`umount` binary to spawn, so a timed window
# around them holds the system calls and nothing else.
_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_LIBC.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]


def _check(code: int, what: str) -> None:
    if code != 0:
        err = ctypes.get_errno()
        raise ErrorDelCurso(f"{what} falló: {os.strerror(err)} (errno {err}).")


def fresh_layer(base: Path) -> dict[str, Path]:
    """New empty upper and work directories (and the merged mount point) under `base`: the writable
    layer an engine gives each container, before it is mounted."""
    paths = overlay_paths(base)
    for key in ("upper", "work"):
        shutil.rmtree(paths[key], ignore_errors=True)
        paths[key].mkdir(parents=True)
    paths["merged"].mkdir(parents=True, exist_ok=True)
    return paths


def mount_layer(lower: Path, base: Path) -> Path:
    """mount(2) an overlay over `lower` at base/merged, on the layer fresh_layer prepared.
    ErrorDelCurso (Spanish) if the kernel refuses."""
    paths = overlay_paths(base)
    options = f"lowerdir={Path(lower).resolve()},upperdir={paths['upper']},workdir={paths['work']}"
    code = _LIBC.mount(b"overlay", str(paths["merged"]).encode(), b"overlay", 0, options.encode())
    _check(code, "mount(2) de la capa overlay")
    return paths["merged"]


def umount_layer(base: Path) -> None:
    """umount2(2) of base/merged."""
    _check(_LIBC.umount2(str(overlay_paths(base)["merged"]).encode(), 0), "umount2(2) de la capa overlay")


def clear_layer(base: Path) -> None:
    """Delete the writable layer (upper and work directories)."""
    paths = overlay_paths(base)
    for key in ("upper", "work"):
        shutil.rmtree(paths[key], ignore_errors=True)


def mount_overlay(lower: Path, base: Path) -> Path:
    """Mount a fresh overlay (new empty upper and work directories) over `lower` at base/merged, the
    way an engine gives each container its writable layer. ErrorDelCurso if the kernel refuses."""
    fresh_layer(base)
    return mount_layer(lower, base)


def unmount_overlay(base: Path) -> None:
    """Unmount base/merged and delete the writable layer."""
    try:
        umount_layer(base)
    finally:
        clear_layer(base)


def make_bundle(
    rootfs: Path,
    command: Sequence[str],
    *,
    network_namespace: bool = True,
    parent: Path | None = None,
    prefix: str = "bundle-",
    readonly: bool = True,
) -> Bundle:
    """Write a bundle for `command` on `rootfs` (generated by `runc spec`; rootless without root).
    The root is read-only unless readonly=False (a writable layer, as an engine gives a container)."""
    runc = runc_path()
    if runc is None:
        raise ErrorDelCurso(runc_availability()[1])
    rootless = os.geteuid() != 0
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    state = Path(tempfile.mkdtemp(prefix=prefix + "estado-", dir=parent))
    bundle = Bundle(path, state, network_namespace, rootless)
    try:
        argv = [runc, "spec", "--bundle", str(path)] + (["--rootless"] if rootless else [])
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise ErrorDelCurso(f"«runc spec» falló: {result.stderr.strip()[-300:]}")
        config_path = path / "config.json"
        config = json.loads(config_path.read_text())
        config["process"]["terminal"] = False
        config["process"]["args"] = list(command)
        config["root"] = {"path": str(Path(rootfs).resolve()), "readonly": readonly}
        config.setdefault("hostname", "curso")
        namespaces = config["linux"].get("namespaces", [])
        if not network_namespace:
            namespaces = [ns for ns in namespaces if ns.get("type") != "network"]
        elif not any(ns.get("type") == "network" for ns in namespaces):
            namespaces.append({"type": "network"})
        config["linux"]["namespaces"] = namespaces
        config_path.write_text(json.dumps(config, indent=1))
    except BaseException:
        bundle.remove()
        raise
    return bundle


def runc_argv(bundle: Bundle, container_id: str) -> list[str]:
    """`runc run` in the foreground: creates, starts, waits for and deletes the container."""
    return [
        runc_path() or "runc",
        "--root",
        str(bundle.state),
        "run",
        "--bundle",
        str(bundle.path),
        container_id,
    ]


def runsc_argv(runsc: Path | str, bundle: Bundle, container_id: str) -> list[str]:
    """gVisor on the same bundle; its own network stack is switched off (the bundle's network
    namespace holds only loopback), and cgroups are left to the host as runc does for a bundle."""
    return [
        str(runsc),
        "--root",
        str(bundle.state),
        "--network=none",
        "run",
        "--bundle",
        str(bundle.path),
        container_id,
    ]


def leftover_containers(bundle: Bundle) -> list[str]:
    """Containers a runtime left in this bundle's state directory (after a kill, say)."""
    if not bundle.state.is_dir():
        return []
    return sorted(p.name for p in bundle.state.iterdir() if p.is_dir())


def delete_leftovers(bundle: Bundle, runtime: str | None = None) -> None:
    """`runtime delete --force` for every container left in the state directory; never raises."""
    runtime = runtime or runc_path() or "runc"
    for cid in leftover_containers(bundle):
        try:
            subprocess.run(
                [runtime, "--root", str(bundle.state), "delete", "--force", cid],
                capture_output=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            pass


@contextlib.contextmanager
def mounted_overlay(lower: Path, base: Path) -> Iterator[Path]:
    """A fresh overlay over `lower` at base/merged for the duration of the block (mount_overlay), then
    unmounted and its writable layer deleted (unmount_overlay), even if the block fails."""
    merged = mount_overlay(lower, base)
    try:
        yield merged
    finally:
        unmount_overlay(base)
