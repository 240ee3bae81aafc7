"""The Kubernetes arms of the network experiment: the run's one cluster, each arm's Pod (the same
binary-only server image, imported from Docker or Podman, never pulled), its way in from 127.0.0.1, and
the processes whose CPU time a measurement reads.

    k8s-port-forward  `kubectl port-forward --address 127.0.0.1`: kubectl, the API server, the kubelet and
                      containerd's streaming server carry every connection
    k8s-nodeport      a NodePort Service that kube-proxy answers on 127.0.0.1 (NAT rules)
    k8s-host          a `hostNetwork: true` Pod listening on 127.0.0.1 itself

The cluster starts once, before the first timed window, and is torn down by its context manager (success,
error, Ctrl-C, SIGTERM). Pods ask for a share of CPU (`CPU_REQUEST`, no limit: no quota throttles them),
run unprivileged, and their server's threads are pinned to the server's CPU like every other arm's.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import psutil

from ... import measure
from ...engines import kubernetes
from ...engines import kubernetes_config as kcfg
from ...engines.labels import labels_for
from ...errors import ErrorDelCurso
from . import load, servers
from .arms import HttpArm
from .start import Started, process_tree

# Six Pods (three paths × two servers) on two cores: a request each (Burstable QoS: cpu.shares as a
# request, never the BestEffort share of 2), and no CPU limit, so no CFS quota caps the server.
CPU_REQUEST = "250m"
READY_TIMEOUT_S = 90.0
ANSWER_TIMEOUT_S = 20.0  # kube-proxy writes a NodePort's rules a moment after the Service exists
# The cluster's processes on some path, by the CPU metric each one's time goes to (Cluster.pids names).
COMPONENTS = {
    "cpu_apiserver": "kube-apiserver",
    "cpu_kubelet": "kubelet",
    "cpu_containerd": "containerd",
    "cpu_kube_proxy": "kube-proxy",
}
CPU_METRICS = ("cpu_kubectl", *COMPONENTS)
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


def pod_name(arm: HttpArm) -> str:
    """A DNS-1123 name per arm: «port-forward-nethttp»."""
    return f"{arm.variant.replace('_', '-')}-{arm.image}"


def pod_labels(arm: HttpArm, run_id: str | None) -> dict[str, str]:
    """The run's labels (those Kubernetes accepts as label values) and the arm's own."""
    labels = {k: v for k, v in labels_for(run_id).items() if _LABEL_VALUE.match(str(v)) and "/" not in k}
    return {**labels, "app": pod_name(arm)}


def manifests(arm: HttpArm, run_id: str | None, host_port: int = 0) -> list[dict]:
    """The Pod of one arm (and its NodePort Service): a hostNetwork Pod listens on 127.0.0.1:host_port
    and is probed there; the others listen on the Pod's own address."""
    server = servers.SERVERS[arm.image]
    host = arm.spec.network == "host"
    port = host_port if host else servers.CONTAINER_PORT
    address = f"{load.LOOPBACK}:{port}" if host else f"0.0.0.0:{port}"
    labels = pod_labels(arm, run_id)
    pod = kcfg.pod_manifest(
        pod_name(arm), "", server.args(address), port, labels, cpu=CPU_REQUEST, host_network=host
    )
    container = pod["spec"]["containers"][0]
    container.pop("image")  # set by the caller: the image the cluster imported
    del container["resources"]["limits"]["cpu"]
    # Go follows the CPUs it sees at start: one, as in every container arm (pinned below).
    container["env"] = [{"name": k, "value": v} for k, v in {"GOMAXPROCS": "1", **server.env()}.items()]
    if host:
        container["readinessProbe"]["httpGet"]["host"] = load.LOOPBACK
    out = [pod]
    if arm.variant == "nodeport":
        out.append(kcfg.nodeport_manifest(pod_name(arm), {"app": pod_name(arm)}, port))
    return out


# ------------------------------------------------------------------ processes
def container_processes(container_id: str) -> list[psutil.Process]:
    """The processes whose cgroup path names this container (containerd's id, without «containerd://»)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if container_id in (entry / "cgroup").read_text():
                found.append(psutil.Process(int(entry.name)))
        except (OSError, psutil.Error):
            continue
    return found


def pin(procs: Sequence[psutil.Process], cpu: str | None) -> None:
    """Pin every thread of these processes to one CPU (threads created later inherit it)."""
    if cpu is None:
        return
    for proc in procs:
        try:
            for task in os.listdir(f"/proc/{proc.pid}/task"):
                os.sched_setaffinity(int(task), {int(cpu)})
        except OSError:
            continue


def components(cluster: kubernetes.Cluster) -> dict[str, list[psutil.Process]]:
    """{CPU metric: [process]} for the cluster's components on some path."""
    pids = cluster.pids()
    out = {}
    for metric, name in COMPONENTS.items():
        try:
            out[metric] = [psutil.Process(pids[name])] if name in pids else []
        except psutil.Error:
            out[metric] = []
    return out


# ------------------------------------------------------------------ starting the arms
def _server(started: Started, pod: dict, cpu: str | None) -> None:
    statuses = pod.get("status", {}).get("containerStatuses") or [{}]
    container_id = (statuses[0].get("containerID") or "").split("://")[-1]
    procs = container_processes(container_id) if container_id else []
    if not procs:
        raise ErrorDelCurso(f"no encontré el proceso del servidor del Pod {pod_name(started.arm)}.")
    root = min(procs, key=lambda p: p.pid)
    started.server = process_tree(root.pid)
    pin(started.server, cpu)
    try:  # the Pod's containerd shim, the container's parent (its share of the work, like Docker's)
        shim = root.parent()
        started.helpers = [shim] if shim is not None and "shim" in shim.name() else []
    except psutil.Error:
        started.helpers = []


def _port_forward(started: Started, cluster: kubernetes.Cluster, port: int, ctx) -> None:
    argv = cluster.kubectl_argv(
        "port-forward", "--address", load.LOOPBACK, f"pod/{pod_name(started.arm)}",
        f"{port}:{servers.CONTAINER_PORT}",
    )  # fmt: skip
    started.popen = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    ctx.defer(measure.stop_child, started.popen.pid)
    started.components["cpu_kubectl"] = process_tree(started.popen.pid)


def start_arms(
    arms: Sequence[HttpArm],
    cluster: kubernetes.Cluster,
    images: dict[HttpArm, str | None],
    cpu: str | None,
    ctx,
    published: set[int],
) -> list[Started]:
    """Start every Kubernetes arm: one `kubectl apply`, then each Pod's way in from 127.0.0.1. An arm that
    fails says why in `failed` (Spanish); the others go on."""
    out = {arm: Started(arm) for arm in arms}
    ready = []
    for arm, started in out.items():
        if not images.get(arm):
            started.failed = "falta su imagen (ejecuta «make setup»)."
            continue
        port = 0
        if arm.spec.network == "host":
            port = load.free_port(None, exclude=published)
            published.add(port)
        objects = manifests(arm, ctx.run_id, port)
        objects[0]["spec"]["containers"][0]["image"] = images[arm]
        try:
            cluster.apply(*objects)
        except ErrorDelCurso as exc:
            started.failed = f"no arrancó: {exc} {getattr(exc, 'detail', '') or ''}"[-300:]
            continue
        started.port = port
        ready.append(arm)
    shared = components(cluster)
    for arm in ready:
        started = out[arm]
        try:
            pod = cluster.wait_ready(pod_name(arm), timeout=READY_TIMEOUT_S)
            _server(started, pod, cpu)
            if arm.variant == "nodeport":
                started.port = cluster.node_port(pod_name(arm))
                published.add(started.port)
            elif arm.variant == "port_forward":
                started.port = load.free_port(None, exclude=published)
                published.add(started.port)
                _port_forward(started, cluster, started.port, ctx)
        except (ErrorDelCurso, OSError, subprocess.SubprocessError) as exc:
            started.failed = f"no arrancó: {exc}"[-300:]
            continue
        started.components.update(shared)
        started.target = load.target_url(started.port, published)
        alive = (lambda s=started: s.popen.poll() is None) if started.popen is not None else None
        ok, why = load.wait_ready(started.target, timeout=ANSWER_TIMEOUT_S, expect=servers.BODY, alive=alive)
        if not ok:
            started.failed = f"el servidor {why}"
    return [out[arm] for arm in arms]
