"""An engine nested inside an unprivileged system container (the Sysbox post's scenario 3).

The instance runs with `security.nesting=true` and never `security.privileged`: its root is a high
host uid (a user namespace), and Docker (overlay2) and Podman run inside it without `--privileged`.
Images are handed in offline (`save` on the host, `load` inside); inner containers get no network.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from . import lxd
from .registry import get_engine

INNER_ENGINES = ("docker", "podman")
WORKER = "curso-trabajo"  # the inner container the workloads run in (it goes with the instance)


def inner_ready(name: str, engine: str, timeout: float = 60) -> None:
    """Wait until the engine inside the instance answers (Docker's daemon starts with the instance's
    systemd; Podman has no daemon)."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        result = lxd.execute(name, [engine, "info"], timeout=30)
        if result.returncode == 0:
            return
        last = (result.stderr or result.stdout).strip()[-300:]
        time.sleep(0.3)
    raise lxd.LxdError(f"{engine} no responde dentro de {name}: {last}")


def hand_in_image(name: str, engine: str, image: str, workdir: Path) -> str:
    """Give the inner engine an image offline: `save` on the host, push the file, `load` inside.
    Returns the reference the inner engine knows it by."""
    tarball = get_engine(engine).save_image(image, Path(workdir) / f"{engine}-imagen.tar")
    lxd.push_file(name, tarball, "/root/imagen.tar")
    result = lxd.execute(name, [engine, "load", "-i", "/root/imagen.tar"], timeout=300)
    lxd.check(result, f"{engine} load")
    lxd.execute(name, ["rm", "-f", "/root/imagen.tar"])
    return image.removeprefix("localhost/")


def inner_run_command(
    engine: str,
    image: str,
    command: Sequence[str] = ("echo", "ok"),
    *,
    volumes: Sequence[str] = (),
) -> list[str]:
    """What a student types inside the system container: `ENGINE run --rm --network none` (no network,
    like on the host arm), with read-only bind mounts of the instance's own paths (`volumes`)."""
    return [engine, "run", "--rm", "--network", "none", *_mounts(volumes), image, *command]


def _mounts(volumes: Sequence[str]) -> list[str]:
    return [arg for path in volumes for arg in ("-v", f"{path}:{path}:ro")]


def start_worker(name: str, engine: str, image: str, *, volumes: Sequence[str] = ()) -> str:
    """A container the inner engine keeps running (no network, `volumes` read-only), for workloads run
    by `exec` into it, as in the other kinds. Deleting the instance removes it with everything inside."""
    worker = f"{WORKER}-{engine}"
    argv = [engine, "run", "-d", "--name", worker, "--network", "none", *_mounts(volumes), image]
    lxd.check(lxd.execute(name, [*argv, "sleep", "100000000"], timeout=120), f"{engine} run -d")
    return worker


def worker_exec(engine: str, worker: str, command: Sequence[str]) -> list[str]:
    """`ENGINE exec WORKER COMMAND…`, to run inside the instance (lxd.exec_argv)."""
    return [engine, "exec", worker, *command]


INNER_NETWORK = "curso-red"  # a bridge of the inner engine's own, inside the instance (which has no NIC)
SERVER = "curso-servidor"


def start_server(
    name: str, engine: str, image: str, command: Sequence[str], port: int, *, volumes: Sequence[str] = ()
) -> None:
    """A server container of the inner engine on a bridge of its own, its `port` published on the
    instance's 127.0.0.1 (the engine's own proxy: the inner Docker writes no firewall rule). The instance
    has no network card, so the bridge leads nowhere off the machine."""
    lxd.check(lxd.execute(name, [engine, "network", "create", INNER_NETWORK]), f"{engine} network create")
    argv = [engine, "run", "-d", "--name", SERVER, "--network", INNER_NETWORK]
    argv += ["-p", f"127.0.0.1:{port}:{port}", *_mounts(volumes), image, *command]
    lxd.check(lxd.execute(name, argv, timeout=120), f"{engine} run -d (servidor)")


def stop_server(name: str, engine: str) -> None:
    """Remove the server container and its bridge (never raises: clean-up)."""
    lxd.execute(name, [engine, "rm", "-f", SERVER])
    lxd.execute(name, [engine, "network", "rm", INNER_NETWORK])
