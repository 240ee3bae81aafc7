"""The Kubernetes arms of the network experiment: the run's one cluster, each arm's Deployment (the
document's `deployment.yml`: one replica of the server's image, imported from Docker or Podman and never
pulled, a memory limit of 32M, no CPU request or limit, no Service of its own), its way in from 127.0.0.1,
and the processes whose CPU time a measurement reads.

    k8s-port-forward  `kubectl port-forward --address 127.0.0.1 deployment/…`, as the document's `wrk` at
                      localhost:8080 reached its Deployment (it has no Service): kubectl, the API server,
                      the kubelet and containerd's streaming server carry every connection
    k8s-nodeport      the same Deployment behind a NodePort Service that kube-proxy answers on 127.0.0.1
                      (NAT rules): the course's, to show where port-forward's loss goes
    k8s-host          the same Deployment with `hostNetwork: true`, listening on 127.0.0.1 itself

The servers run as the document's did: nothing pinned, Go's default GOMAXPROCS (every CPU the node has,
as no CPU limit caps it). The course adds what it needs to wait and stay safe: a readiness probe on `/`,
`imagePullPolicy: Never` (the document's `IfNotPresent` pulls nothing either when the image is present),
no privilege escalation. The cluster starts once, after the other arms' rounds, and is torn down by its
context manager (success, error, Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
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

MEMORY_LIMIT = "32M"  # the document's deployment.yml: resources.limits.memory, and no other resource
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


def manifests(arm: HttpArm, run_id: str | None, image: str, host_port: int = 0) -> list[dict]:
    """The Deployment of one arm running `image` (the one the cluster imported), and its NodePort Service:
    a hostNetwork Pod listens on 127.0.0.1:host_port and is probed there; the others listen on the Pod's
    own address."""
    server = servers.SERVERS[arm.image]
    host = arm.spec.network == "host"
    port = host_port if host else servers.CONTAINER_PORT
    address = f"{load.LOOPBACK}:{port}" if host else f"0.0.0.0:{port}"
    labels = pod_labels(arm, run_id)
    pod = kcfg.pod_manifest(pod_name(arm), image, server.args(address), port, labels, host_network=host)
    container = pod["spec"]["containers"][0]
    container["resources"] = {"limits": {"memory": MEMORY_LIMIT}}
    if env := server.env():
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    if host:
        container["readinessProbe"]["httpGet"]["host"] = load.LOOPBACK
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": pod_name(arm), "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": pod_name(arm)}},
            "template": {"metadata": {"labels": labels}, "spec": pod["spec"]},
        },
    }
    out = [deployment]
    if arm.variant == "nodeport":
        out.append(kcfg.nodeport_manifest(pod_name(arm), {"app": pod_name(arm)}, port))
    return out


def wait_pod(cluster: kubernetes.Cluster, name: str, timeout: float = READY_TIMEOUT_S) -> dict:
    """The Ready Pod of the Deployment `name` (its Pods carry app=name)."""
    deadline = time.monotonic() + timeout
    found: list = []
    while time.monotonic() < deadline:
        listed = cluster.get(f"/api/v1/namespaces/default/pods?labelSelector=app%3D{name}") or {}
        found = listed.get("items") or []
        ready = [pod for pod in found if kubernetes.has_condition(pod, "Ready")]
        if ready:
            return ready[0]
        time.sleep(0.1)
    status = json.dumps([pod.get("status", {}) for pod in found])[-800:]
    raise ErrorDelCurso(
        f"Kubernetes: el Deployment {name} no tuvo un Pod listo en {timeout:.0f} s.", detail=status
    )


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
def _server(started: Started, pod: dict) -> None:
    statuses = pod.get("status", {}).get("containerStatuses") or [{}]
    container_id = (statuses[0].get("containerID") or "").split("://")[-1]
    procs = container_processes(container_id) if container_id else []
    if not procs:
        raise ErrorDelCurso(f"no encontré el proceso del servidor del Pod {pod_name(started.arm)}.")
    root = min(procs, key=lambda p: p.pid)
    started.server = process_tree(root.pid)
    try:  # the Pod's containerd shim, the container's parent (its share of the work, like Docker's)
        shim = root.parent()
        started.helpers = [shim] if shim is not None and "shim" in shim.name() else []
    except psutil.Error:
        started.helpers = []


def _port_forward(started: Started, cluster: kubernetes.Cluster, port: int, ctx) -> None:
    argv = cluster.kubectl_argv(
        "port-forward", "--address", load.LOOPBACK, f"deployment/{pod_name(started.arm)}",
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
    ctx,
    published: set[int],
) -> list[Started]:
    """Start every Kubernetes arm: one `kubectl apply` each, then each Pod's way in from 127.0.0.1. An arm
    that fails says why in `failed` (Spanish); the others go on."""
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
        objects = manifests(arm, ctx.run_id, images[arm], port)
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
            pod = wait_pod(cluster, pod_name(arm))
            _server(started, pod)
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
