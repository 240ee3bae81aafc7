"""A real single-node Kubernetes cluster, started on demand and torn down: etcd, the API server,
controller-manager and scheduler on 127.0.0.1; the kubelet on its own containerd (never Docker's), on the
run's bridge address; kube-proxy in iptables mode answering NodePorts on 127.0.0.1; Pods on a CNI bridge
in 198.18.0.0/24 (services 198.18.128.0/24). Images come from the course's local engines (`docker save`
→ `ctr images import`): no registry, Pods use imagePullPolicy: Never.

    with Cluster(run_id, log) as cluster:      # torn down on success, error, Ctrl-C and SIGTERM
        cluster.import_images(["curso/servidor-http:…"])
        cluster.apply(manifest); cluster.wait_ready("web")

A killed kernel leaves the cluster behind: the next run (or `make setup`) reaps it (kubernetes_host).
The parts are built once by `make setup` (kubernetes_build)."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from .. import system
from ..errors import ErrorDelCurso
from . import kubernetes_config as cfg
from .kubernetes_build import BIN_DIR, PAUSE_TAR, etcd_binary, missing_part
from .kubernetes_host import (
    bridge_exists,
    create_bridge,
    create_cgroups,
    host_before,
    orphan,
    read_owner,
    reap_orphans,
    teardown,
    write_owner,
)
from .labels import LABEL_PID, labels_for

Log = Callable[[str], None]
HOST_TOOLS = ("containerd", "runc", "ctr", "openssl", "ip", "iptables", "iptables-save", "ip6tables")
START_TIMEOUT = 150.0
PROXY_VARIABLES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy")


def cni_bin_dir() -> str | None:
    for candidate in cfg.CNI_BIN_DIRS:
        if all(Path(candidate, plugin).is_file() for plugin in ("bridge", "host-local", "loopback")):
            return candidate
    return None


def availability() -> tuple[bool, str | None]:
    """Whether a cluster can start here, and if not, why (one Spanish sentence naming what is missing)."""
    reason = system.needs_root_reason("Arrancar un clúster de Kubernetes")
    if reason:
        return False, reason
    missing = missing_part()
    if missing:
        return False, f"Kubernetes no está construido ({missing}): ejecuta «make setup»."
    absent = [tool for tool in HOST_TOOLS if shutil.which(tool) is None]
    if absent:
        return False, f"faltan {', '.join(absent)} para el clúster de Kubernetes: ejecuta «make setup»."
    if cni_bin_dir() is None:
        return False, "faltan los plugins CNI (containernetworking-plugins): ejecuta «make setup»."
    if system.cgroup_version() == "desconocido":
        return False, "no encuentro los cgroups del sistema en /sys/fs/cgroup."
    return True, None


def _port_open(port: int, host: str = cfg.LOCALHOST) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class Cluster:
    """One single-node cluster owned by this process (see the module's docstring)."""

    def __init__(self, run_id: str | None = None, log: Log = print, layout: cfg.Layout | None = None):
        self.run_id = run_id
        self.log = log
        self.layout = layout or cfg.Layout(cfg.STATE_ROOT)
        self.record: dict = {}
        self.started_at: float | None = None
        self.timings: dict[str, float] = {}
        self._previous_sigterm = None
        self._procs: dict[str, subprocess.Popen] = {}

    # ---------------------------------------------------------------- lifecycle
    def __enter__(self) -> Cluster:
        if threading.current_thread() is threading.main_thread():
            self._previous_sigterm = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            self.start()
        except BaseException:
            self._exit()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._exit()

    def _exit(self) -> None:
        try:
            self.stop()
        finally:
            if self._previous_sigterm is not None:
                signal.signal(signal.SIGTERM, self._previous_sigterm)
                self._previous_sigterm = None

    def start(self) -> float:
        """Start every component and wait for the node to be Ready and the default ServiceAccount to
        exist; returns the seconds it took. On failure everything started is removed and it raises
        ErrorDelCurso with the end of the failing component's log."""
        ok, why = availability()
        if not ok:
            raise ErrorDelCurso(f"No puedo arrancar Kubernetes: {why}")
        reap_orphans(self.log)
        if orphan(self.layout) is None and (self.layout.root.exists() or bridge_exists()):
            owner = read_owner(self.layout).get("etiquetas", {}).get(LABEL_PID, "?")
            raise ErrorDelCurso(
                f"Ya hay un clúster de Kubernetes del curso en marcha (lo arrancó el proceso {owner}); "
                "solo cabe uno por máquina."
            )
        begin = time.monotonic()
        try:
            self._prepare()
            self._start_runtime()
            self._start_control_plane()
            self._start_node()
            self._wait_node()
        except BaseException:
            self.stop()
            raise
        self.started_at = time.monotonic()
        self.timings["arranque"] = self.started_at - begin
        return self.timings["arranque"]

    def stop(self) -> float:
        """Tear everything down (never raises); returns the seconds it took."""
        begin = time.monotonic()
        if self.layout.root.exists() or self.record:
            problems = teardown(self.layout)
            if problems:
                self.log(f"[AVISO] El clúster de Kubernetes no se desmontó del todo: {'; '.join(problems)}.")
        self.record = {}
        self.timings["desmontaje"] = time.monotonic() - begin
        return self.timings["desmontaje"]

    # ---------------------------------------------------------------- steps
    def _prepare(self) -> None:
        layout = self.layout
        layout.root.mkdir(parents=True, exist_ok=True)
        layout.logs.mkdir(exist_ok=True)
        self.record = {"etiquetas": labels_for(self.run_id), "antes": host_before(), "procesos": {}}
        write_owner(layout, self.record)  # first of all: what the next run needs to reap this one
        cfg.make_certificates(layout)
        layout.admin_kubeconfig.write_text(cfg.kubeconfig(layout))
        layout.containerd_config.parent.mkdir(parents=True, exist_ok=True)
        layout.containerd_config.write_text(cfg.containerd_config(layout, cni_bin_dir() or "/usr/lib/cni"))
        layout.cni_conf_dir.mkdir(parents=True, exist_ok=True)
        (layout.cni_conf_dir / "10-curso.conflist").write_text(cfg.cni_network(layout))
        layout.kubelet_config.write_text(cfg.kubelet_config(layout))
        layout.proxy_config.write_text(cfg.proxy_config(layout))
        create_bridge()
        create_cgroups()

    def _start_runtime(self) -> None:
        self._spawn("containerd", ["containerd", "--config", str(self.layout.containerd_config)])
        self._wait("containerd", lambda: self._ctr("version").returncode == 0, 30)
        self._import_tar(PAUSE_TAR)

    def _start_control_plane(self) -> None:
        layout = self.layout
        self._spawn("etcd", cfg.etcd_command(etcd_binary(), layout))
        self._wait("etcd", lambda: _port_open(cfg.ETCD_CLIENT_PORT), 30)
        self._spawn("kube-apiserver", cfg.apiserver_command(BIN_DIR / "kube-apiserver", layout))
        self._wait("kube-apiserver", lambda: self._raw("/readyz") == "ok", 90)
        self.timings["apiserver"] = time.monotonic()
        self._spawn(
            "kube-controller-manager",
            cfg.controller_manager_command(BIN_DIR / "kube-controller-manager", layout),
        )
        self._spawn("kube-scheduler", cfg.scheduler_command(BIN_DIR / "kube-scheduler", layout))

    def _start_node(self) -> None:
        self._spawn("kubelet", cfg.kubelet_command(BIN_DIR / "kubelet", self.layout))
        self._spawn("kube-proxy", cfg.proxy_command(BIN_DIR / "kube-proxy", self.layout))

    def _wait_node(self) -> None:
        self._wait("kubelet", self.node_ready, 90)
        self._wait("kube-controller-manager", self._default_service_account, 60)

    # ---------------------------------------------------------------- processes
    def _spawn(self, name: str, argv: list[str]) -> None:
        env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
        with open(self.layout.logs / f"{name}.log", "ab") as out:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                start_new_session=True,
            )  # fmt: skip
        self.record["procesos"][name] = {"pid": proc.pid, "orden": argv[0]}
        write_owner(self.layout, self.record)
        self._procs[name] = proc

    def _log_tail(self, name: str, lines: int = 12) -> str:
        try:
            text = (self.layout.logs / f"{name}.log").read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(text[-lines:])

    def _wait(self, name: str, ready: Callable[[], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for proc_name, proc in self._procs.items():
                if proc.poll() is not None:
                    raise ErrorDelCurso(
                        f"Kubernetes: {proc_name} terminó al arrancar (código {proc.returncode}).",
                        detail=self._log_tail(proc_name),
                    )
            try:
                if ready():
                    return
            except (OSError, ValueError, http.client.HTTPException, ssl.SSLError):
                pass
            time.sleep(0.2)
        raise ErrorDelCurso(
            f"Kubernetes: {name} no estuvo listo en {timeout:.0f} s.", detail=self._log_tail(name)
        )

    def pids(self) -> dict[str, int]:
        """The component processes of this cluster, by name."""
        return {name: info["pid"] for name, info in self.record.get("procesos", {}).items()}

    # ---------------------------------------------------------------- API and tools
    def _ssl(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.layout.cert("ca")))
        context.load_cert_chain(str(self.layout.cert("admin")), str(self.layout.key("admin")))
        return context

    def _raw(self, path: str) -> str:
        conn = http.client.HTTPSConnection(cfg.LOCALHOST, cfg.API_PORT, context=self._ssl(), timeout=5)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read().decode(errors="replace")
            return body if response.status == 200 else ""
        finally:
            conn.close()

    def get(self, path: str) -> dict | None:
        """GET on the API server (JSON), or None when it does not exist (yet)."""
        body = self._raw(path)
        return json.loads(body) if body else None

    def watch(self, path: str, timeout: float = 60) -> Iterator[tuple[int, str, dict]]:
        """Watch a list path of the API server (`/api/v1/namespaces/default/pods?fieldSelector=…`).
        Returns once the server has answered (start it before creating what it watches); iterating
        yields (time.time_ns() when the event arrived, its type, the object) until the server ends the
        watch (after `timeout` seconds) or the caller stops."""
        conn = http.client.HTTPSConnection(
            cfg.LOCALHOST, cfg.API_PORT, context=self._ssl(), timeout=timeout + 5
        )
        separator = "&" if "?" in path else "?"
        try:
            conn.request("GET", f"{path}{separator}watch=1&timeoutSeconds={int(timeout)}")
            response = conn.getresponse()
        except BaseException:
            conn.close()
            raise
        if response.status != 200:
            conn.close()
            raise ErrorDelCurso(f"Kubernetes: la API no aceptó el watch de {path} ({response.status}).")
        return _watch_events(conn, response)

    def node_ready(self) -> bool:
        node = self.get(f"/api/v1/nodes/{cfg.NODE_NAME}")
        return bool(node) and has_condition(node, "Ready")

    def _default_service_account(self) -> bool:
        return self.get("/api/v1/namespaces/default/serviceaccounts/default") is not None

    def kubectl_argv(self, *args: str) -> list[str]:
        """The command line of kubectl against this cluster (for a long-lived one: port-forward)."""
        return [str(BIN_DIR / "kubectl"), f"--kubeconfig={self.layout.admin_kubeconfig}", *args]

    def kubectl(self, *args: str, stdin: str | None = None, timeout: float = 60) -> str:
        """kubectl against this cluster; a failure raises ErrorDelCurso with its words as detail."""
        result = subprocess.run(
            self.kubectl_argv(*args),
            input=stdin, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
        if result.returncode != 0:
            raise ErrorDelCurso(f"kubectl {args[0]} falló.", detail=result.stderr.strip()[-800:])
        return result.stdout

    def apply(self, *manifests: dict) -> None:
        items = {"apiVersion": "v1", "kind": "List", "items": list(manifests)}
        self.kubectl("apply", "-f", "-", stdin=json.dumps(items))

    def delete_pod(self, name: str) -> None:
        self.kubectl("delete", "pod", name, "--grace-period=0", "--force", "--wait=true", timeout=60)

    def pod(self, name: str) -> dict | None:
        return self.get(f"/api/v1/namespaces/default/pods/{name}")

    def wait_ready(self, name: str, timeout: float = 60) -> dict:
        """Wait for a Pod's Ready condition; returns the Pod."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.pod(name)
            if found and has_condition(found, "Ready"):
                return found
            time.sleep(0.05)
        raise ErrorDelCurso(
            f"Kubernetes: el Pod {name} no quedó listo en {timeout:.0f} s.",
            detail=json.dumps((self.pod(name) or {}).get("status", {}))[-800:],
        )

    def node_port(self, service: str) -> int:
        found = self.get(f"/api/v1/namespaces/default/services/{service}")
        if not found:
            raise ErrorDelCurso(f"Kubernetes: no existe el Service {service}.")
        return int(found["spec"]["ports"][0]["nodePort"])

    def _ctr(self, *args: str, stdin=None, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["ctr", "--address", str(self.layout.containerd_socket), "-n", cfg.CONTAINERD_NAMESPACE, *args],
            stdin=stdin, capture_output=True, timeout=timeout,
        )  # fmt: skip

    def _import_tar(self, tar: Path) -> None:
        with open(tar, "rb") as fh:
            result = self._ctr("images", "import", "-", stdin=fh, timeout=300)
        if result.returncode != 0:
            raise ErrorDelCurso(
                f"Kubernetes: no pude importar {tar.name} en su containerd.",
                detail=result.stderr.decode(errors="replace")[-500:],
            )

    def import_images(self, refs: Sequence[str], engine: str = "docker") -> None:
        """Import local images of a course engine (`docker save`, no registry) into the cluster."""
        for ref in refs:
            save = subprocess.Popen([engine, "save", ref], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            result = self._ctr("images", "import", "-", stdin=save.stdout, timeout=300)
            save.stdout.close()
            save_err = save.communicate(timeout=60)[1]
            if save.returncode != 0 or result.returncode != 0:
                raise ErrorDelCurso(
                    f"Kubernetes: no pude importar la imagen {ref} desde {engine}.",
                    detail=(save_err + result.stderr).decode(errors="replace")[-500:],
                )


def has_condition(obj: dict, kind: str) -> bool:
    return any(
        c.get("type") == kind and c.get("status") == "True"
        for c in obj.get("status", {}).get("conditions", [])
    )


def _watch_events(conn: http.client.HTTPSConnection, response) -> Iterator[tuple[int, str, dict]]:
    try:
        while line := response.readline():
            arrived = time.time_ns()
            event = json.loads(line)
            yield arrived, event.get("type", ""), event.get("object", {})
    finally:
        conn.close()


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"señal {signum}")
