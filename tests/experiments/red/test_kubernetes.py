"""The Kubernetes arms of notebook 06: their claims and the sentence that answers the document's «I can't
tell why» on synthetic rows (fast), their Pods' manifests, the plan where a cluster cannot run, and one
brief real run of the three arms on the single-node cluster (marked `kubernetes`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import psutil
import pytest

from helpers import results
from helpers.engines import kubernetes, kubernetes_build, kubernetes_host
from helpers.experiments import red as exp
from helpers.experiments import verdict
from helpers.experiments.red import arms as red_arms
from helpers.experiments.red import kube
from helpers.experiments.red import measure as red_measure
from helpers.experiments.red.analysis import summarize
from helpers.experiments.red.measure import SEED_PRESET, UNPINNED
from helpers.experiments.runner import Resultado
from tests.experiments.red.test_engines import require_servers
from tests.experiments.red.test_unit import _rows, synthetic
from tests.support import setup_step_missing

AT_DOCUMENT_LOAD = {"parameters": {**SEED_PRESET, "duracion_s": 2}, UNPINNED: True}
OURS = {"parameters": {"hilos": 2, "conexiones": 50, "duracion_s": 2}, UNPINNED: True}
# Per path: req/s (native is 100 000 in `synthetic`, and native again beside the cluster 80 000) and the
# CPU µs per request of its processes.
PATHS = {"port_forward": 12_000, "nodeport": 76_000, "host": 78_400}
CLUSTER_NATIVE = 80_000
# The real run: our load, briefly (two rounds of 1 s per arm).
BRIEF = dict(servidores=["nethttp"], motores=["docker"], hilos=2, conexiones=50, duracion_s=1)
FORWARD_US = {"cpu_kubectl": 60.0, "cpu_apiserver": 50.0, "cpu_kubelet": 40.0, "cpu_containerd": 45.0}


def with_kubernetes(paths: dict[str, float] = PATHS, reps: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = _rows(
        "bare",
        red_arms.CLUSTER_NATIVE.variant,
        "nethttp",
        list(CLUSTER_NATIVE * (1 + rng.normal(0, 0.005, reps))),
    )
    for variant, rate in paths.items():
        values = list(rate * (1 + rng.normal(0, 0.005, reps)))
        rows += _rows("kubernetes", variant, "nethttp", values)
        if variant == "port_forward":
            for rep, v in enumerate(values, 1):
                for metric, us in FORWARD_US.items():
                    rows.append(
                        {
                            "experiment": "red",
                            "engine": "kubernetes",
                            "image": "nethttp",
                            "variant": variant,
                            "rep": rep,
                            "metric": metric,
                            "value": v * 3 * us * 1e-6,
                            "unit": "s",
                        }
                    )
    extra = pd.DataFrame(rows, columns=results.COLUMNS)
    return pd.concat([synthetic(), extra], ignore_index=True)


def by_path(claims) -> dict[str, verdict.Claim]:
    return {c.detail.get("camino"): c for c in claims if c.key == "kubernetes_pierde_84"}


# ------------------------------------------------------------------ claims
def test_the_kubernetes_loss_is_judged_on_each_path_at_the_documents_load():
    found = by_path(exp.claims(with_kubernetes(), AT_DOCUMENT_LOAD))
    assert set(found) == set(PATHS)
    forward, nodeport, host = found["port_forward"], found["nodeport"], found["host"]
    # against native again beside the cluster (80 000), never the first native (100 000)
    assert forward.value == pytest.approx(-85, abs=1) and forward.status == verdict.SE_CONFIRMA
    assert nodeport.status == verdict.NO_SE_SOSTIENE and host.status == verdict.NO_SE_SOSTIENE
    assert "`kubectl port-forward`" in forward.quantity and "Go net/http" in forward.quantity
    assert all(c.source == "«Container Performance Testing»" and c.claimed == -83.59 for c in found.values())


def test_both_losses_are_not_comparable_at_our_load_with_the_reason():
    claims = exp.claims(with_kubernetes(), OURS)
    docker = next(c for c in claims if c.key == "docker_pierde_66")
    k8s = [c for c in claims if c.key == "kubernetes_pierde_84"]
    assert docker.status == verdict.NO_COMPARABLE and len(k8s) == 1 and k8s[0].status == verdict.NO_COMPARABLE
    assert "wrk -t12 -c400" in docker.note and "wrk -t2 -c50" in docker.note
    assert "HILOS = 12 y CONEXIONES = 400" in docker.note and "HILOS = 12 y CONEXIONES = 400" in k8s[0].note
    # The document's threads and connections, but windows too short, or every server pinned (older runs)
    short = {"parameters": {**SEED_PRESET, "duracion_s": 1}, UNPINNED: True}
    pinned = {"parameters": {**SEED_PRESET, "duracion_s": 30}}
    for meta, words in ((short, "DURACION_S = 2 o más"), (pinned, "fijó el servidor a una CPU")):
        claims = {c.key: c for c in exp.claims(with_kubernetes(), meta)}
        for key in ("docker_pierde_66", "kubernetes_pierde_84"):
            assert claims[key].status == verdict.NO_COMPARABLE and words in claims[key].note, key


# ------------------------------------------------------------------ the sentence
def _shown(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    return shown


def _text(shown) -> str:
    return " ".join(str(getattr(o, "data", "")) for o in shown)


def test_the_sentence_says_which_path_loses_what(monkeypatch, tmp_path):
    from helpers.view import red as vista

    shown = _shown(monkeypatch)
    meta = {"parameters": {**OURS["parameters"], "brazos": list(red_arms.DEFAULT_ARMS)}, UNPINNED: True}
    vista.por_que_kubernetes(Resultado("red", with_kubernetes(), tmp_path, meta))
    text = _text(shown)
    assert "El «no sé por qué» del documento, con Go net/http" in text
    forward = text[text.index("Por `kubectl port-forward`") :]
    assert forward.startswith(
        "Por `kubectl port-forward` (`k8s-port-forward`), el camino del documento, atiende 0.150"
    )
    assert "n = 8 rondas): menos, con todo el IC 95 %" in forward[: forward.index("NodePort")]
    assert "es el túnel" in text
    assert "kubectl 60.0 µs, kube-apiserver 50.0 µs, el kubelet 40.0 µs y containerd 45.0 µs" in text
    assert "el servidor, 20.0 µs" in text
    # Without the tunnel's loss the page does not say the tunnel loses it: read by the one rule.
    shown.clear()
    level = with_kubernetes({**PATHS, "port_forward": 95_000})
    vista.por_que_kubernetes(Resultado("red", level, tmp_path, meta))
    assert "es el túnel" not in _text(shown)


def test_without_kubernetes_the_page_says_why(monkeypatch, tmp_path):
    from helpers.view import red as vista

    shown = _shown(monkeypatch)
    quick = {k.lower(): v for k, v in exp.QUICK.items()}
    vista.por_que_kubernetes(Resultado("red", synthetic(), tmp_path, {"parameters": quick}))
    assert "el perfil rápido los omite" in _text(shown)
    shown.clear()
    skipped = {"Kubernetes (k8s-port-forward, k8s-nodeport, k8s-host)": "no está construido."}
    meta = {"parameters": {"brazos": list(red_arms.DEFAULT_ARMS)}, "skipped_arms": skipped}
    vista.por_que_kubernetes(Resultado("red", synthetic(), tmp_path, meta))
    assert "no pudo medir Kubernetes" in _text(shown) and "no está construido." in _text(shown)


def test_summary_has_the_cpu_per_request_of_each_kubernetes_process():
    s = summarize(with_kubernetes())
    forward = s[(s["engine"] == "kubernetes") & (s["variant"] == "port_forward")].iloc[0]
    for metric, us in FORWARD_US.items():
        assert forward[f"us_{metric}"] == pytest.approx(us)
    docker = s[(s["engine"] == "docker") & (s["variant"] == "puerto")].iloc[0]
    assert np.isnan(docker["us_cpu_kubectl"])


# ------------------------------------------------------------------ plan, manifests, time
def test_where_kubernetes_cannot_run_its_arms_are_skipped_with_one_line(monkeypatch):
    monkeypatch.setattr(
        red_arms.kubernetes, "availability", lambda: (False, "Kubernetes no está construido.")
    )
    cfg = exp.config(servidores=["nethttp"], brazos=["nativo", *red_arms.KUBERNETES_ARMS])
    arms, skipped = red_arms.plan(cfg, ["docker"])
    assert all(a.engine != "kubernetes" for a in arms)
    k8s = [k for k in skipped if "k8s" in k]
    assert k8s == ["Kubernetes (k8s-port-forward, k8s-nodeport, k8s-host)"]
    assert "no está construido" in skipped[k8s[0]] and "referencia" in skipped[k8s[0]]


def test_the_pods_are_the_documents_deployment_local_and_unprivileged():
    """The document's deployment.yml: a Deployment of one replica, a memory limit of 32M and no CPU request
    or limit, no GOMAXPROCS, no Service of its own (a NodePort only on the course's NodePort arm)."""
    arms = {
        spec.variant: red_arms.HttpArm("kubernetes", spec.variant, "nethttp", spec.label, spec)
        for key, spec in red_arms.ARM_SPECS.items()
        if key in red_arms.KUBERNETES_ARMS
    }
    for variant, arm in arms.items():
        objects = kube.manifests(arm, "20261127-run", "curso/servidor-http:abc", host_port=18123)
        deployment = objects[0]
        assert deployment["kind"] == "Deployment" and deployment["spec"]["replicas"] == 1
        assert deployment["spec"]["selector"]["matchLabels"] == {"app": kube.pod_name(arm)}
        pod = deployment["spec"]["template"]
        assert pod["metadata"]["labels"]["app"] == kube.pod_name(arm)
        (container,) = pod["spec"]["containers"]
        assert container["imagePullPolicy"] == "Never" and container["image"] == "curso/servidor-http:abc"
        assert container["resources"] == {"limits": {"memory": "32M"}}  # as the document's, nothing else
        assert "env" not in container  # Go's default GOMAXPROCS, as the document ran it
        assert container["securityContext"] == {"allowPrivilegeEscalation": False}
        assert pod["spec"]["hostNetwork"] is (variant == "host")
        assert [o["kind"] for o in objects] == (
            ["Deployment", "Service"] if variant == "nodeport" else ["Deployment"]
        )
    host = kube.manifests(arms["host"], None, "x", host_port=18123)[0]["spec"]["template"]["spec"][
        "containers"
    ][0]
    assert host["args"][-1] == "127.0.0.1:18123"  # the node's loopback only
    assert host["readinessProbe"]["httpGet"] == {"path": "/", "port": 18123, "host": "127.0.0.1"}
    assert kube.pod_name(arms["port_forward"]) == "port-forward-nethttp"


def test_the_cluster_is_counted_once_in_the_estimate():
    """The cluster once, and every Kubernetes arm with native again beside it, in its own loop."""
    base = dict(servidores=["nethttp"], repeticiones=6, calentamiento=0, duracion_s=2)
    none = exp.estimated_seconds(exp.config(brazos=["nativo"], **base))
    one = exp.estimated_seconds(exp.config(brazos=["nativo", "k8s-host"], **base))
    three = exp.estimated_seconds(exp.config(brazos=["nativo", *red_arms.KUBERNETES_ARMS], **base))
    window = 6 * (2 + red_measure.WINDOW_OVERHEAD_S) + 1.0
    assert one - none == pytest.approx(red_measure.K8S_OVERHEAD_S + 2 * window)  # the Pod and native again
    assert three - one == pytest.approx(2 * window)


# ------------------------------------------------------------------ a real cluster
@pytest.fixture
def cluster_parts(tmp_path, monkeypatch):
    if not kubernetes_build.wanted():
        pytest.skip(kubernetes_build.NOT_WANTED)
    ok, why = kubernetes.availability()
    if not ok:
        setup_step_missing("Kubernetes (la construcción de Kubernetes de «make setup»)", why)
    require_servers(["nethttp"])
    monkeypatch.setenv("CURSO_RESULTADOS", str(tmp_path / "resultados"))


def _cluster_processes() -> list[int]:
    return [p.pid for p in kubernetes_host.cluster_processes()]


@pytest.mark.engines
@pytest.mark.kubernetes
def test_the_three_kubernetes_arms_measure_on_loopback_and_leave_nothing(cluster_parts):
    lines: list[str] = []
    cfg = exp.config(brazos=["nativo", *red_arms.KUBERNETES_ARMS], repeticiones=2, calentamiento=0, **BRIEF)
    res = exp.run(cfg, log=lines.append)
    assert res.status == "complete", (res.meta.get("skipped_arms"), lines)
    assert not res.meta.get("skipped_arms"), res.meta.get("skipped_arms")
    s = summarize(res.df, res.meta).set_index("variant")
    assert {"nativo", *PATHS} <= set(s.index)
    assert (s["req_s"] > 0).all() and (s["n"] == 2).all()
    # every load target was 127.0.0.1, on a port this run published
    assert set(res.meta["targets"]) == set(res.meta["ports"])
    for label, url in res.meta["targets"].items():
        assert url == f"http://127.0.0.1:{res.meta['ports'][label]}/", url
    # the CPU of the processes on each path was read
    assert s.loc["port_forward", "us_cpu_kubectl"] > 0 and s.loc["port_forward", "us_cpu_apiserver"] > 0
    assert s.loc["port_forward", "us_cpu_kubelet"] > 0 and s.loc["port_forward", "us_cpu_servidor"] > 0
    assert s.loc["nodeport", "us_cpu_servidor"] > 0 and s.loc["host", "us_cpu_servidor"] > 0
    cluster = res.meta["kubernetes"]
    assert cluster["arranque_s"] > 0 and cluster["desmontaje_s"] > 0
    # nothing is left: processes, Pods (their shims and namespaces), the bridge, kubectl port-forward
    assert kubernetes_host.leftovers() == [] and _cluster_processes() == []
    assert not [p for p in psutil.process_iter(["name"]) if p.info["name"] == "kubectl"]
    print(
        "\n[k8s-red] req/s: "
        + ", ".join(f"{variant} {row['req_s']:.0f}" for variant, row in s.iterrows())
        + f"; arranque {cluster['arranque_s']} s, pods {cluster['pods_s']} s, desmontaje {cluster['desmontaje_s']} s"
    )
