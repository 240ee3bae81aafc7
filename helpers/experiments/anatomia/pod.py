"""The Kubernetes rungs of the ladder, on the single-node cluster of helpers.engines.kubernetes, measured in
a loop of their own (LOOP): the cluster is started once the ladder's rounds are over (never inside a timed
window, and never idling beside a rung that is not about it) and torn down at the run's end:

- `pod`: LAUNCH of one Pod, from `kubectl apply` to the Pod's Ready condition, with the same image as
  `docker run` (imported from Docker, imagePullPolicy: Never), running `sleep` (a Pod that exits is never
  Ready), deleted after its round. Where the time goes: the API server's watch (opened before the apply)
  dates, on this machine's clock, the moment the Pod exists, is scheduled and is Ready; the cluster's
  containerd dates, in nanoseconds, the sandbox (pause + CNI network) and the container's creation and
  start. The API's own timestamps (conditions' lastTransitionTime, events) have a resolution of one
  second: they are not used for the phases.
- `run_red_con_cluster` (BESIDE): each engine's `run` with the default network again, in the same rounds
  as the Pod, with the cluster up: what the Pod is compared with, round by round.
- `n=0`, `n=5`: CAPACITY, the cluster's memory bill with N idle Pods, in notebook 02's rows
  (escala.probing: PSS and RSS of each control-plane process, the per-Pod containerd shims and pause
  processes, and the Pods' cgroups), in a loop of their own after the Pod's (BILL_LOOP), in at most
  MIN_N rounds: memory hardly moves from round to round, and five Pods up and down take seconds.
"""

from __future__ import annotations

import re
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath

import psutil

from ... import cgroups
from ...engines import kubernetes, kubernetes_build
from ...errors import ErrorDelCurso
from ..escala.probing import KB, groups_memory, memory_rows
from ..runner import Arm, Log

ENGINE = "kubernetes"
LOOP = "kubernetes"  # the loop measured with the cluster up (results.round_metric): the Pod's LAUNCH
BILL_LOOP = "kubernetes_memoria"  # then the memory bill's, in as few rounds as a verdict needs
# Each engine's `run` with the default network, again in the cluster's loop: the Pod's comparison
BESIDE = "run_red_con_cluster"


def in_cluster_loop(engine: str, variant: str) -> bool:
    """Whether a rung is measured in the cluster's loop (its rounds are not the ladder's)."""
    return engine == ENGINE or variant == BESIDE


GROUP = "kubernetes"
LAUNCH = "pod"
TOTAL = "pod_total"
BILL_PODS = (0, 5)  # N idle Pods billed (0: the cluster alone)
SLEEP = ["sleep", "3600"]
READY_TIMEOUT = 90.0
ROOT_WHAT = "arrancar un clúster de Kubernetes (el peldaño del Pod y la factura de memoria del clúster)"
GONE_TIMEOUT = 60.0
SETTLED_S = 0.5  # a Pod count held this long is the cluster's own, not a clean-up in between

# The launch's points in time, in order; each phase ends at its point (the first starts at the apply).
# (metric, point, Spanish name, what it holds)
PHASES = (
    (
        "pod_api",
        "creado",
        "API",
        "kubectl apply: el cliente, la API (validar, admitir) y etcd guardan el Pod",
    ),
    (
        "pod_planificar",
        "planificado",
        "planificación",
        "el planificador elige el nodo y lo escribe en la API",
    ),
    (
        "pod_kubelet",
        "sandbox_inicio",
        "kubelet",
        "el kubelet se entera del Pod y lo prepara (cgroup, volúmenes) hasta pedir el sandbox a containerd",
    ),
    (
        "pod_sandbox_red",
        "sandbox_fin",
        "sandbox y red",
        "containerd arranca el contenedor pause y la red del Pod (CNI: bridge, veth, dirección IP)",
    ),
    ("pod_contenedor", "contenedor", "contenedor", "containerd crea e inicia el contenedor (shim y runc)"),
    (
        "pod_listo",
        "listo",
        "Ready",
        "el kubelet ve el contenedor en marcha (lo revisa cada segundo, PLEG), escribe el estado y la "
        "API avisa: Ready",
    ),
)
PHASE_METRICS = tuple(metric for metric, *_ in PHASES)
COMPONENTS = {
    "kube-apiserver": "apiserver",
    "etcd": "etcd",
    "kube-controller-manager": "controller_manager",
    "kube-scheduler": "scheduler",
    "kubelet": "kubelet",
    "kube-proxy": "kube_proxy",
    "containerd": "containerd",
}
RUNG_LABEL = {
    LAUNCH: "Pod: kubectl apply → Ready",
    **{f"n={n}": f"factura de memoria con {n} Pods" for n in BILL_PODS},
}


def arms(image: str) -> list[Arm]:
    """The launch rung and one bill arm per N."""
    return [Arm(ENGINE, variant, image, f"Kubernetes: {label}") for variant, label in RUNG_LABEL.items()]


def is_bill(arm: Arm) -> bool:
    """A memory bill's arm (CAPACITY: `n=0`, `n=5`), measured in BILL_LOOP."""
    return arm.engine == ENGINE and arm.variant != LAUNCH


def availability() -> tuple[bool, str | None]:
    if not kubernetes_build.wanted():
        return False, kubernetes_build.NOT_WANTED
    return kubernetes.availability()


def manifest(name: str, image: str) -> dict:
    """A Pod running `sleep` in a local image, never pulled, deleted at once (no grace period)."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"curso": "anatomia"}},
        "spec": {
            "containers": [{"name": name, "image": image, "imagePullPolicy": "Never", "command": SLEEP}],
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "terminationGracePeriodSeconds": 0,
        },
    }


# ---------------------------------------------------------------- where a launch goes (pure)
def watch_points(events: list[tuple[int, str, dict]]) -> dict[str, int]:
    """From a Pod's watch events (arrival ns, type, Pod): when it was first seen (creado), scheduled
    (planificado) and Ready (listo)."""
    points: dict[str, int] = {}
    for arrived, kind, pod in events:
        if kind == "ERROR":  # the object is a Status: why the API ended the watch
            raise ErrorDelCurso(
                f"Kubernetes: el watch del Pod terminó con un error: {pod.get('message', pod)}"
            )
        points.setdefault("creado", arrived)
        if pod.get("spec", {}).get("nodeName") or kubernetes.has_condition(pod, "PodScheduled"):
            points.setdefault("planificado", arrived)
        if kubernetes.has_condition(pod, "Ready"):
            points.setdefault("listo", arrived)
    return points


_LOG_LINE = re.compile(r'^time="(?P<time>[^"]+)" level=\w+ msg="(?P<msg>.*)"\s*$')


def log_time_ns(stamp: str) -> int:
    """containerd's RFC 3339 time with nanoseconds («2026-11-27T05:59:08.320159604Z») in ns since the epoch."""
    main, _, rest = stamp.rstrip("Z").partition(".")
    digits = (re.match(r"\d*", rest).group(0) + "000000000")[:9]
    seconds = datetime.fromisoformat(main + "+00:00").timestamp()
    return int(seconds) * 1_000_000_000 + int(digits)


def containerd_points(lines: list[str], pod_uid: str) -> dict[str, int]:
    """From the cluster's containerd log: when it began and finished the Pod's sandbox (RunPodSandbox)
    and when its container had started (StartContainer … returns successfully)."""
    points: dict[str, int] = {}
    sandbox = container = None
    for line in lines:
        found = _LOG_LINE.match(line)
        if not found:
            continue
        msg = found.group("msg").replace('\\"', '"')
        if msg.startswith("RunPodSandbox for") and f"Uid:{pod_uid}," in msg:
            id_match = re.search(r'returns sandbox id "(\w+)"', msg)
            if id_match:
                sandbox = id_match.group(1)
                points["sandbox_fin"] = log_time_ns(found.group("time"))
            else:
                points["sandbox_inicio"] = log_time_ns(found.group("time"))
        elif sandbox and msg.startswith(f'CreateContainer within sandbox "{sandbox}"'):
            id_match = re.search(r'returns container id "(\w+)"', msg)
            if id_match:
                container = id_match.group(1)
        elif container and msg == f'StartContainer for "{container}" returns successfully':
            points["contenedor"] = log_time_ns(found.group("time"))
    return points


def launch_rows(start_ns: int, points: dict[str, int]) -> list[tuple[str, float, str]]:
    """The launch's total (apply → Ready) and its phases, in ms. Each phase runs from the previous point
    to its own; a point earlier than the one before it (two clocks read by two processes: the watch's
    arrival and containerd's log) counts as that one, so no phase is negative and the phases always add
    up to the total. A point containerd's log lacks leaves its phase out and the next one takes its time."""
    if "listo" not in points:
        raise ErrorDelCurso("Kubernetes: el watch no vio el Pod listo.")
    rows = [(TOTAL, round((points["listo"] - start_ns) / 1e6, 4), "ms")]
    previous = start_ns
    for metric, point, *_ in PHASES:
        if point not in points:
            continue
        at = max(points[point], previous)
        rows.append((metric, round((at - previous) / 1e6, 4), "ms"))
        previous = at
    return rows


# ---------------------------------------------------------------- running it on the cluster
@dataclass
class PodSetup:
    cluster: kubernetes.Cluster
    image: str
    counter: int = 0
    names: list[str] = field(default_factory=list)


def start(ctx, image_names: dict[str, str], wanted: set, log: Log) -> PodSetup | None:
    """The cluster, started once (untimed) with Docker's image imported; None, with one Spanish line
    (ctx.skip_arm), where it cannot run. Torn down when the run ends (ctx.defer)."""
    if GROUP not in wanted:
        return None
    key = "Kubernetes (Pod y factura de memoria)"
    if not ctx.require_root(key, ROOT_WHAT):
        return None
    ok, why = availability()
    if not ok:
        ctx.skip_arm(key, why)
        return None
    if "docker" not in image_names:
        ctx.skip_arm(key, "hace falta Docker: el Pod usa su misma imagen, importada sin registro.")
        return None
    cluster = kubernetes.Cluster(ctx.run_id, log)
    ctx.defer(cluster.stop)
    try:
        cluster.start()
        cluster.import_images([image_names["docker"]])
    except ErrorDelCurso as exc:
        ctx.skip_arm(key, f"el clúster no arrancó: {exc}")
        return None
    ctx.run.update_meta(
        kubernetes={
            "arranque_s": round(cluster.timings["arranque"], 2),
            "componentes": sorted(COMPONENTS.values()),
            "fases": "watch de la API (reloj de esta máquina) y registro de containerd (ns)",
        }
    )
    return PodSetup(cluster, image_names["docker"])


def _watch_pod(cluster: kubernetes.Cluster, name: str, events: list, opened: threading.Event, done):
    """The Pod's watch, in its own thread: `opened` once the API answered, `done` once Ready (or over)."""
    selector = urllib.parse.quote(f"metadata.name={name}")
    try:
        # resourceVersion=0: from the API server's cache as it is (etcd 3.4 sends no progress notices, so
        # a watch «from now» can wait for a version the cache of an idle cluster never reaches)
        path = f"/api/v1/namespaces/default/pods?fieldSelector={selector}&resourceVersion=0"
        stream = cluster.watch(path, READY_TIMEOUT)
        opened.set()
        for event in stream:
            events.append(event)
            if event[1] == "ERROR" or kubernetes.has_condition(event[2], "Ready"):
                return
    finally:
        opened.set()
        done.set()


def measure_launch(setup: PodSetup) -> list[tuple[str, float, str]]:
    """One Pod: watch opened, `kubectl apply`, Ready seen on the watch; its phases; then deleted."""
    setup.counter += 1
    name = f"lanzamiento-{setup.counter}"
    cluster = setup.cluster
    events: list = []
    opened, done = threading.Event(), threading.Event()
    watcher = threading.Thread(target=_watch_pod, args=(cluster, name, events, opened, done), daemon=True)
    watcher.start()
    opened.wait(10)
    try:
        start_ns = time.time_ns()
        cluster.apply(manifest(name, setup.image))
        done.wait(READY_TIMEOUT + 5)
        points = watch_points(events)
        uid = events[0][2].get("metadata", {}).get("uid", "") if events else ""
        log = (cluster.layout.logs / "containerd.log").read_text(errors="replace").splitlines()
        points.update(containerd_points(log, uid))
        return launch_rows(start_ns, points)
    finally:
        cluster.delete_pod(name)
        wait_settled(cluster)


# ---------------------------------------------------------------- the memory bill
def pod_processes(cluster: kubernetes.Cluster) -> dict[str, list[psutil.Process]]:
    """This cluster's containerd shims (by the socket in their command line) and the Pods' pause
    processes (their children)."""
    socket = str(cluster.layout.containerd_socket)
    shims, pauses = [], []
    for proc in psutil.process_iter(["name", "cmdline"]):
        if (proc.info["name"] or "").startswith("containerd-shim") and socket in (proc.info["cmdline"] or []):
            shims.append(proc)
            try:
                pauses += [c for c in proc.children() if c.name() == "pause"]
            except psutil.Error:
                continue
    return {"shims_total": shims, "pause_total": pauses}


def wait_settled(cluster: kubernetes.Cluster, pods: int = 0, timeout: float = GONE_TIMEOUT) -> None:
    """Wait until this cluster has exactly `pods` shims, and has kept that number for SETTLED_S. A forced
    delete removes a Pod from the API at once while the kubelet stops its containers and sandbox
    afterwards: the next round must not share the machine with that clean-up, nor a bill count a Pod it
    did not launch (on a loaded CI machine, a bill with 0 Pods once counted one shim right after the
    previous round had seen none) (untimed)."""
    deadline = time.monotonic() + timeout
    steady_since = None
    while True:
        now = time.monotonic()
        if len(pod_processes(cluster)["shims_total"]) != pods:
            steady_since = None
        elif steady_since is None:
            steady_since = now
        elif now - steady_since >= SETTLED_S:
            return
        if now > deadline:
            raise ErrorDelCurso(
                f"Kubernetes: en {timeout:.0f} s el clúster no se quedó con {pods} Pods en marcha (sus "
                "procesos shim)."
            )
        time.sleep(0.1)


def pod_cgroups(pauses: list[psutil.Process]) -> list[str]:
    """Each Pod's cgroup: the parent of its pause container's."""
    found = []
    for proc in pauses:
        path = cgroups.cgroup_of_pid(proc.pid)
        if path:
            found.append(str(PurePosixPath(path).parent))
    return sorted(set(found))


def bill_rows(cluster: kubernetes.Cluster) -> list[tuple[str, float, str]]:
    """Notebook 02's rows for this cluster as it is now: rss_/pss_ of each fixed component, of the
    shims and of the pause processes, how many shims, and the Pods' cgroups (KB)."""
    pids = cluster.pids()
    fixed = {key: [psutil.Process(pids[name])] for name, key in COMPONENTS.items() if name in pids}
    per_pod = pod_processes(cluster)
    rows = memory_rows(groups_memory({**fixed, **per_pod}))
    rows.append(("shims_procesos", float(len(per_pod["shims_total"])), "procesos"))
    readings, _ = cgroups.read_many(pod_cgroups(per_pod["pause_total"]))
    rows.append(("memoria_cgroup_total", round(sum(r.usage for r in readings) / KB, 4), "KB"))
    return rows


def measure_bill(setup: PodSetup, pods: int) -> list[tuple[str, float, str]]:
    """N idle Pods launched and Ready (untimed), the bill read, the Pods deleted."""
    cluster = setup.cluster
    setup.counter += 1
    names = [f"factura-{setup.counter}-{k}" for k in range(1, pods + 1)]
    try:
        if names:
            cluster.apply(*[manifest(name, setup.image) for name in names])
            for name in names:
                cluster.wait_ready(name, READY_TIMEOUT)
        wait_settled(cluster, pods)
        return bill_rows(cluster)
    finally:
        if names:
            cluster.kubectl(
                "delete", "pod", *names, "--grace-period=0", "--force", "--wait=true", timeout=120
            )
            wait_settled(cluster)


def measure(arm: Arm, setup: PodSetup) -> list[tuple[str, float, str]]:
    if arm.variant == LAUNCH:
        return measure_launch(setup)
    return measure_bill(setup, int(arm.variant.removeprefix("n=")))
