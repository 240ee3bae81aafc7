"""A real single-node Kubernetes (the engine in helpers/engines/kubernetes*.py): a Pod running one of the
course's local server images answers through a NodePort on 127.0.0.1, every component listens on
127.0.0.1 (the kubelet on the run's bridge), and the teardown (or the reaping of a killed run) leaves
nothing on the host while Docker keeps working."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
import uuid

import psutil
import pytest

from helpers import PROJECT_ROOT, engines, images
from helpers.engines import kubernetes, kubernetes_build, kubernetes_host
from helpers.engines import kubernetes_config as cfg
from helpers.experiments.red import servers
from tests.conftest import require_engine
from tests.support import setup_step_missing

pytestmark = [pytest.mark.engines, pytest.mark.kubernetes]
SERVER = servers.SERVERS["nethttp"]


@pytest.fixture(scope="module")
def cluster_parts():
    if not kubernetes_build.wanted():
        pytest.skip(kubernetes_build.NOT_WANTED)
    ok, why = kubernetes.availability()
    if not ok:
        setup_step_missing("Kubernetes (la construcción de Kubernetes de «make setup»)", why)
    kubernetes_host.reap_orphans()


@pytest.fixture(scope="module")
def server_image(cluster_parts):
    require_engine("docker")
    found = servers.ensure_image("docker", SERVER.key, log=lambda _line: None)
    if found is None:
        setup_step_missing(
            f"el servidor {SERVER.label} (la preparación del cuaderno 06)", "no está compilado."
        )
    return found["name"]


def _engines_still_run() -> None:
    """Docker and Podman (where present) still run a container after the cluster is gone."""
    require_engine("docker")
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        if not engine.available:
            continue
        image = images.resolve("alpine", engine)
        assert image, f"{engine.display} no tiene la imagen mínima del curso"
        argv = engine.run_argv(image["name"], ["true"], run_id=f"prueba-k8s-{name}", remove=True)
        engine.call(argv, check=True, what=f"arrancar un contenedor de {engine.display}")


def _get(url: str, timeout: float = 30) -> str:
    """GET with no proxy, retried while kube-proxy writes the NodePort's rules."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while True:
        try:
            with opener.open(url, timeout=3) as response:
                return response.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _listeners(pids) -> set[str]:
    addresses = set()
    for pid in pids:
        try:
            for conn in psutil.Process(pid).net_connections(kind="inet"):
                if conn.status == psutil.CONN_LISTEN:
                    addresses.add(conn.laddr.ip)
        except psutil.Error:
            continue
    return addresses


def test_pod_answers_on_a_localhost_nodeport_and_teardown_leaves_nothing(server_image):
    lines: list[str] = []
    with kubernetes.Cluster(f"prueba-k8s-{uuid.uuid4().hex[:6]}", log=lines.append) as cluster:
        cluster.import_images([server_image])
        labels = {"app": "web"}
        cluster.apply(
            cfg.pod_manifest(
                "web", server_image, SERVER.args(f":{servers.CONTAINER_PORT}"), servers.CONTAINER_PORT, labels
            ),
            cfg.nodeport_manifest("web", labels, servers.CONTAINER_PORT),
        )
        pod = cluster.wait_ready("web", timeout=90)
        assert pod["status"]["podIP"].startswith("198.18.0."), pod["status"]
        body = _get(f"http://{cfg.LOCALHOST}:{cluster.node_port('web')}/")
        assert servers.BODY in body
        listening = _listeners(cluster.pids().values())
        assert listening and listening <= {cfg.LOCALHOST, cfg.NODE_IP}, listening
        print(f"\n[kubernetes] arranque {cluster.timings['arranque']:.1f} s")
    print(f"[kubernetes] desmontaje {cluster.timings['desmontaje']:.1f} s")
    assert kubernetes_host.leftovers() == []
    assert not [line for line in lines if "[AVISO]" in line], lines
    _engines_still_run()


def _cluster_in_a_child(script: str) -> subprocess.Popen:
    """A Python process that starts a cluster and says «LISTO» (read here) once it is up."""
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
    child = subprocess.Popen(
        [sys.executable, "-c", script, f"prueba-k8s-{uuid.uuid4().hex[:6]}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=PROJECT_ROOT,
    )  # fmt: skip
    line = child.stdout.readline()
    if line.strip() != "LISTO":
        child.kill()
        pytest.fail(f"el clúster no arrancó en el proceso hijo: {line} {child.stderr.read()[-1500:]}")
    return child


KILLED_RUN = textwrap.dedent(
    """
    import sys, time
    from helpers.engines import kubernetes
    cluster = kubernetes.Cluster(sys.argv[1], log=lambda line: None)
    cluster.start()
    print("LISTO", flush=True)
    time.sleep(600)
    """
)


def test_a_killed_run_leaves_a_cluster_that_the_next_run_reaps(cluster_parts):
    child = _cluster_in_a_child(KILLED_RUN)
    try:
        os.kill(child.pid, signal.SIGKILL)  # a killed kernel: no finally, no signal handler runs
        child.wait(timeout=30)
        left = kubernetes_host.leftovers()
        assert any(item.startswith("procesos") for item in left), left
        assert kubernetes_host.orphan() is not None
        reaped = kubernetes_host.reap_orphans()
        assert [r["engine"] for r in reaped.values()] == ["kubernetes"], reaped
        assert kubernetes_host.leftovers() == []
    finally:
        if child.poll() is None:
            child.kill()
        kubernetes_host.reap_orphans()
    _engines_still_run()


CTRL_C_RUN = textwrap.dedent(
    """
    import sys, time
    from helpers.engines import kubernetes
    try:
        with kubernetes.Cluster(sys.argv[1], log=print):
            print("LISTO", flush=True)
            time.sleep(600)
    except KeyboardInterrupt:
        print("INTERRUMPIDO", flush=True)
    """
)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_tears_the_cluster_down(cluster_parts, signum):
    child = _cluster_in_a_child(CTRL_C_RUN)
    try:
        os.kill(child.pid, signum)
        out, err = child.communicate(timeout=90)
        assert "INTERRUMPIDO" in out and child.returncode == 0, (out, err)
        assert kubernetes_host.leftovers() == []
    finally:
        if child.poll() is None:
            child.kill()
        kubernetes_host.reap_orphans()
