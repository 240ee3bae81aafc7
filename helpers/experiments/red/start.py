"""Starting an arm's server (a process on the host, or a container) on a free 127.0.0.1 port, waiting
until it answers, and finding the processes whose CPU time a measurement reads.

The load target of each server comes from `load.target_url` (loopback, a port this run published),
the only way to get one.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import psutil

from ... import engines as eng
from ... import measure
from ...engines import bridges
from ...errors import ErrorDelCurso
from . import load, servers
from .arms import HttpArm

READY_TIMEOUT_S = 8.0
START_WORKERS = 4  # servers started in parallel (each waits on its engine's CLI)
FIRST_PORT = 8080
PROXY_NAMES = ("docker-proxy", "rootlessport", "rootlessport-child", "slirp4netns", "pasta")
_PORT_LOCK = threading.Lock()
OWN_BRIDGE_META = "sin_puente_propio"  # meta.json: {engine: why its -p arms ran on its default network}


@dataclass
class Started:
    """An arm's running server: its port and load target, the processes whose CPU time a measurement
    reads (the server, the user-space forwarders, the engine's per-container helper) and what to stop.
    `failed` is a Spanish reason when it did not start: the run goes on without this arm."""

    arm: HttpArm
    port: int = 0
    target: load.Target | None = None
    server: list = field(default_factory=list)  # psutil processes of the server
    proxies: list = field(default_factory=list)  # docker-proxy / rootlessport / slirp4netns / pasta
    helpers: list = field(default_factory=list)  # containerd shim / conmon
    # Kubernetes: {CPU metric: processes} of kubectl and the cluster's components (red/kube.py)
    components: dict = field(default_factory=dict)
    popen: subprocess.Popen | None = None
    container: str | None = None
    failed: str | None = None


# ------------------------------------------------------------------ processes and their CPU time
def _proc(pid: int | None) -> psutil.Process | None:
    try:
        return psutil.Process(pid) if pid else None
    except psutil.Error:
        return None


def process_tree(pid: int | None) -> list[psutil.Process]:
    root = _proc(pid)
    if root is None:
        return []
    try:
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return [root]


def proxy_processes(port: int) -> list[psutil.Process]:
    """The user-space forwarders that carry this host port (docker-proxy `-host-port PORT`; Podman
    rootless: rootlessport / slirp4netns / pasta)."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        name = proc.info["name"] or ""
        if name not in PROXY_NAMES:
            continue
        cmd = proc.info["cmdline"] or []
        if name == "docker-proxy":
            if "-host-port" in cmd and cmd[cmd.index("-host-port") + 1 :][:1] == [str(port)]:
                found.append(proc)
        else:
            found.append(proc)
    return found


def cpu_seconds(procs) -> float:
    total = 0.0
    for proc in procs:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


# ------------------------------------------------------------------ starting one server
def _start_native(started: Started, port: int, cpu: str | None, ctx) -> None:
    server = servers.SERVERS[started.arm.image]
    argv = [str(server.path), *server.args(f"{load.LOOPBACK}:{port}")]
    if cpu is not None:
        argv = ["taskset", "-c", cpu, *argv]
    # GOMAXPROCS and the Rust servers' workers as the CPUs they see decide, never inherited from the course
    inherited = {k: v for k, v in os.environ.items() if k not in ("GOMAXPROCS", "SERVIDOR_HILOS")}
    started.popen = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env={**inherited, **server.env(pinned=cpu is not None)},
        start_new_session=True,
    )
    ctx.defer(measure.stop_child, started.popen.pid)
    started.server = process_tree(started.popen.pid)


def _start_container(started: Started, port: int, cpu: str | None, ctx, image: str) -> None:
    arm = started.arm
    server = servers.SERVERS[arm.image]
    engine = eng.get_engine(arm.engine)
    if arm.spec.publish:
        address = f"0.0.0.0:{servers.CONTAINER_PORT}"
        publish = [(port, servers.CONTAINER_PORT)]
    else:
        address, publish = f"{load.LOOPBACK}:{port}", []  # host network: listen on loopback only
    network = arm.spec.network
    if wants_own_bridge(arm) and bridges.availability(arm.engine)[0]:
        # the run's own bridge, with no route off the machine (the engine's default one has NAT out)
        network = bridges.of_run(arm.engine, ctx.run_id, engine.env(), ctx.defer).name
    opts = eng.RunOptions(
        network=network,
        publish=publish,
        runtime=arm.spec.runtime,
        security_opt=arm.spec.security_opt,
        cpuset=cpu,
        env=server.env(pinned=cpu is not None),
        stop_timeout=0 if arm.engine == "podman" else None,
    )
    started.container = ctx.container_name(arm.spec.key, arm.image)
    launched = engine.launch(
        image, server.args(address), run_id=ctx.run_id, name=started.container, opts=opts
    )
    started.server = process_tree(launched.pid)
    helper = engine.helper_process(launched)
    started.helpers = [helper] if helper is not None else []


def wants_own_bridge(arm: HttpArm) -> bool:
    """A container arm that publishes a port and names no network: it runs on the run's own bridge
    (bridges.of_run, no route off the machine) where bridges.availability allows, else on the engine's
    default network."""
    return arm.engine in eng.CONTAINER_ENGINES and arm.spec.publish and arm.spec.network is None


def note_default_networks(ctx, arms: Sequence[HttpArm]) -> dict[str, str]:
    """Say once per engine whose `-p` arms run on its default network, because this process cannot give
    them a bridge of the run's own (bridges.availability says why): one Spanish line in the run's log and
    in meta.json's OWN_BRIDGE_META, which the page shows. Returns {engine: line}."""
    lines: dict[str, str] = {}
    for arm in arms:
        if wants_own_bridge(arm) and arm.engine not in lines:
            ok, why = bridges.availability(arm.engine)
            if not ok:
                lines[arm.engine] = (
                    f"{eng.get_engine(arm.engine).display}: sus brazos con -p van por la red por defecto del "
                    f"motor, que sí tiene salida fuera de esta máquina, y no por un puente propio de la corrida: "
                    f"{why}"
                )
                ctx.log(lines[arm.engine])
    if lines:
        ctx.run.update_meta(**{OWN_BRIDGE_META: lines})
    return lines


def server_cpu(arm: HttpArm, cpu: str | None) -> str | None:
    """The CPU an arm's server is pinned to: `cpu` for the course's pinned arms, None (unpinned, as the
    document ran it) for every other."""
    return cpu if arm.spec.pinned else None


def start_arm(arm: HttpArm, cpu: str | None, ctx, published: set[int], image: str = "") -> Started:
    """Start the server of one arm on a free 127.0.0.1 port (pinned to `cpu` if the arm is pinned) and
    wait until it answers. On failure the result's `failed` says why, in Spanish (the run goes on without
    this arm). Safe to call from several threads at once (the port choice is serialised)."""
    started = Started(arm)
    cpu = server_cpu(arm, cpu)
    last_error = ""
    for _attempt in range(3):  # a port taken between the check and the bind: take another one
        with _PORT_LOCK:
            port = load.free_port(FIRST_PORT, exclude=published)
            published.add(port)
        try:
            if arm.engine == "bare":
                _start_native(started, port, cpu, ctx)
            else:
                _start_container(started, port, cpu, ctx, image)
        except ErrorDelCurso as exc:
            last_error = str(exc)
            if "address already in use" in last_error or "port is already allocated" in last_error:
                if started.container:  # created but not started: free its name for the next try
                    eng.get_engine(arm.engine).remove([started.container])
                continue
            started.failed = f"no arrancó: {last_error[-300:]}"
            return started
        break
    else:
        started.failed = f"no encontré un puerto libre que el motor aceptara ({last_error[-200:]})"
        return started
    started.port = port
    started.target = load.target_url(port, published)
    alive = (lambda: started.popen.poll() is None) if started.popen is not None else None
    ok, why = load.wait_ready(started.target, timeout=READY_TIMEOUT_S, expect=servers.BODY, alive=alive)
    if not ok:
        started.failed = f"el servidor {why}"
        return started
    if arm.spec.publish:
        started.proxies = proxy_processes(port)
    if started.container and not started.server:
        started.server = process_tree(eng.get_engine(arm.engine).container(started.container).pid)
    return started


def start_all(
    arms: Sequence[HttpArm],
    images: dict[HttpArm, str | None],
    cpu: str | None,
    ctx,
    published: set[int] | None = None,
) -> list[Started]:
    """Start every arm's server, START_WORKERS at a time, in the order of `arms`. `images` holds the
    image of each container arm (None: it is missing, and that arm fails with the reason); `published`
    collects the 127.0.0.1 ports the run publishes (the Kubernetes arms add theirs to it)."""
    published = set() if published is None else published
    with ThreadPoolExecutor(max_workers=START_WORKERS) as pool:
        futures = {
            arm: pool.submit(start_arm, arm, cpu, ctx, published, images.get(arm) or "")
            for arm in arms
            if arm.engine == "bare" or images.get(arm)
        }
        out = []
        for arm in arms:
            if arm in futures:
                out.append(futures[arm].result())
            else:
                out.append(Started(arm, failed="falta su imagen (ejecuta «make setup»)."))
    return out
