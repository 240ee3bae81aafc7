"""Experiment 4's Kubernetes rungs without a cluster: containerd's log and the watch's events become a
launch's points, the points become consecutive phases that add up to apply → Ready, and the bill's rows
(notebook 02's) become the cluster's bill; the views say why when there is nothing to show."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")


import numpy as np
import pandas as pd
import pytest

from helpers.errors import ErrorDelCurso
from helpers.experiments import verdict
from helpers.experiments.anatomia import pod, pod_analysis
from helpers.experiments.anatomia.analysis import summarize
from helpers.experiments.escala.probing import FIXED, KB, memory_rows
from helpers.experiments.runner import Resultado
from helpers.view import anatomia as vista
from helpers.view import anatomia_pod as vista_pod
from tests.experiments.anatomia.test_unit import _rows, _synthetic

UID = "6457d98b-fbf0-4929-87ad-de40d56727f6"
SANDBOX = "8882104df373"
CONTAINER = "c3369b270d68"
LOG = [
    'time="2026-11-27T05:59:08.320159604Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:p1,'
    f'Uid:{UID},Namespace:default,Attempt:0,}}"',
    'time="2026-11-27T05:59:08.400000000Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:otro,'
    'Uid:0000,Namespace:default,Attempt:0,}"',
    'time="2026-11-27T05:59:08.559191424Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:p1,'
    f'Uid:{UID},Namespace:default,Attempt:0,}} returns sandbox id \\"{SANDBOX}\\""',
    f'time="2026-11-27T05:59:08.566727019Z" level=info msg="CreateContainer within sandbox \\"{SANDBOX}\\" '
    'for container &ContainerMetadata{Name:p1,Attempt:0,}"',
    f'time="2026-11-27T05:59:08.588992542Z" level=info msg="CreateContainer within sandbox \\"{SANDBOX}\\" '
    f'for &ContainerMetadata{{Name:p1,Attempt:0,}} returns container id \\"{CONTAINER}\\""',
    f'time="2026-11-27T05:59:08.590298797Z" level=info msg="StartContainer for \\"{CONTAINER}\\""',
    f'time="2026-11-27T05:59:08.670082049Z" level=info msg="StartContainer for \\"{CONTAINER}\\" returns '
    'successfully"',
]
T0 = pod.log_time_ns("2026-11-27T05:59:08.000000000Z")
MS = 1_000_000


def test_containerd_log_dates_the_sandbox_and_the_container_in_nanoseconds():
    points = pod.containerd_points(LOG, UID)
    assert points == {
        "sandbox_inicio": T0 + 320159604,
        "sandbox_fin": T0 + 559191424,
        "contenedor": T0 + 670082049,
    }
    assert pod.containerd_points(LOG, "otro-uid") == {}


def _pod(node: str = "", ready: bool = False) -> dict:
    conditions = [{"type": "Ready", "status": "True"}] if ready else []
    return {
        "metadata": {"uid": UID},
        "spec": {"nodeName": node} if node else {},
        "status": {"conditions": conditions},
    }


def test_the_watch_dates_creation_scheduling_and_ready_and_says_why_it_ended():
    events = [
        (T0 + 100 * MS, "ADDED", _pod()),
        (T0 + 150 * MS, "MODIFIED", _pod("nodo")),
        (T0 + 700 * MS, "MODIFIED", _pod("nodo")),
        (T0 + 1500 * MS, "MODIFIED", _pod("nodo", ready=True)),
    ]
    assert pod.watch_points(events) == {
        "creado": T0 + 100 * MS,
        "planificado": T0 + 150 * MS,
        "listo": T0 + 1500 * MS,
    }
    with pytest.raises(ErrorDelCurso, match="Too large"):
        pod.watch_points([(T0, "ERROR", {"kind": "Status", "status": "Failure", "message": "Too large"})])


def test_the_phases_are_consecutive_and_add_up_to_the_total():
    points = {"creado": T0 + 100 * MS, "planificado": T0 + 150 * MS, "listo": T0 + 1500 * MS}
    points.update(pod.containerd_points(LOG, UID))
    rows = dict((m, v) for m, v, _ in pod.launch_rows(T0, points))
    assert rows[pod.TOTAL] == pytest.approx(1500)
    assert rows["pod_api"] == pytest.approx(100) and rows["pod_planificar"] == pytest.approx(50)
    assert rows["pod_kubelet"] == pytest.approx(170.159604)
    assert rows["pod_listo"] == pytest.approx(1500 - 670.082049)
    assert sum(rows[m] for m in pod.PHASE_METRICS) == pytest.approx(rows[pod.TOTAL], abs=1e-3)


def test_a_point_behind_the_one_before_gives_a_zero_phase_and_a_missing_one_merges():
    # the watch saw the scheduling after containerd had already begun the sandbox (two clocks)
    points = {"creado": T0 + 100 * MS, "planificado": T0 + 400 * MS, "listo": T0 + 1500 * MS}
    points.update(pod.containerd_points(LOG, UID))
    rows = dict((m, v) for m, v, _ in pod.launch_rows(T0, points))
    assert rows["pod_kubelet"] == 0 and min(rows.values()) >= 0
    assert sum(rows[m] for m in pod.PHASE_METRICS) == pytest.approx(rows[pod.TOTAL], abs=1e-3)
    del points["sandbox_fin"]  # a log line lost: its time goes to the next phase
    rows = dict((m, v) for m, v, _ in pod.launch_rows(T0, points))
    assert "pod_sandbox_red" not in rows
    assert sum(v for m, v in rows.items() if m != pod.TOTAL) == pytest.approx(rows[pod.TOTAL], abs=1e-3)
    with pytest.raises(ErrorDelCurso):
        pod.launch_rows(T0, {"creado": T0 + MS})


def _launch_frame(n: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for rep in range(1, n + 1):
        centers = {
            "creado": 120,
            "planificado": 40,
            "sandbox_inicio": 90,
            "sandbox_fin": 250,
            "contenedor": 110,
        }
        points, at = {}, T0
        for key, center in centers.items():
            at += int(center * rng.uniform(0.8, 1.2) * MS)
            points[key] = at
        points["listo"] = at + int(rng.uniform(100, 1000) * MS)
        for metric, value, _unit in pod.launch_rows(T0, points):
            rows += _rows("kubernetes", "pod", [value], metric)
            rows[-1]["rep"] = rep
    return pd.DataFrame(rows)


def _bill_frame() -> pd.DataFrame:
    rows = []
    for rep in (1, 2, 3):
        for n in pod.BILL_PODS:
            totals = {k: {"rss": 60 * 2**20, "pss": 50 * 2**20} for k in FIXED["kubernetes"]}
            totals["shims_total"] = {"rss": n * 13 * 2**20, "pss": n * 9 * 2**20}
            totals["pause_total"] = {"rss": n * 2**20, "pss": n * 0.3 * 2**20}
            bill = [*memory_rows(totals), ("memoria_cgroup_total", n * 500.0, "KB")]
            for metric, value, unit in bill:
                row = _rows("kubernetes", f"n={n}", [value], metric)[0]
                rows.append({**row, "rep": rep, "unit": unit})
    return pd.DataFrame(rows)


def test_the_phase_table_holds_every_phase_and_nothing_is_left():
    df = _launch_frame()
    table = pod_analysis.phase_table(df)
    assert list(table["metric"]) == list(pod.PHASE_METRICS)
    assert pod_analysis.unaccounted_ms(df) < 1e-3
    assert table.set_index("metric").loc["pod_sandbox_red", "mediana_ms"] == pytest.approx(250, rel=0.25)
    assert pod_analysis.phase_table(_synthetic()).empty


def test_the_pod_is_set_beside_docker_run_round_by_round():
    df = pd.concat([_synthetic(n=8), _launch_frame()], ignore_index=True)
    s = pod_analysis.launch_summary(df)
    assert s["pod"].n == 8 and s["docker"].n == 8 and s["podman"].n == 8
    for engine, (ratio, code) in pod_analysis.pod_over_engines(df).items():
        assert ratio.paired and ratio.value == pytest.approx(s["pod"].median / s[engine].median, rel=0.3)
        assert code == verdict.direction(ratio.low, ratio.high, ratio.n)
    assert set(pod_analysis.pod_over_engines(df)) == {"docker", "podman"}


def test_the_pod_is_set_beside_each_engines_run_of_the_clusters_loop():
    """The ladder ran before the cluster; each engine's `run` again in the cluster's rounds (pod.BESIDE) is
    what the Pod is paired with. The ladder's table keeps that arm out of its pairing with the process
    (other rounds: independent arms)."""
    rng = np.random.default_rng(3)
    again = [
        row
        for engine, ms in (("docker", 380.0), ("podman", 400.0))
        for row in _rows(engine, pod.BESIDE, ms * rng.normal(1, 0.02, 8))
    ]
    df = pd.concat([_synthetic(n=8), _launch_frame(), pd.DataFrame(again)], ignore_index=True)
    s = pod_analysis.launch_summary(df)
    assert s["docker"].median == pytest.approx(380, rel=0.05)  # the cluster's loop, not the ladder's 340
    assert all(ratio.paired for ratio, _ in pod_analysis.pod_over_engines(df).values())
    table = summarize(df).set_index(["engine", "variant"])
    assert table.loc[("docker", pod.BESIDE), "peldano"].endswith("con el clúster de Kubernetes en marcha")
    assert table.loc[("docker", pod.BESIDE), "x_proceso"] == pytest.approx(380, rel=0.1)
    assert "antes de arrancar el clúster" in vista_pod.launch_sentence(df, {})


def test_the_cluster_bill_uses_notebook_02s_columns():
    df = _bill_frame()
    bill = pod_analysis.cluster_bill(df).set_index("n")
    fixed_kb = 50 * KB * len(FIXED["kubernetes"])
    assert bill.loc[0, "fijo_kb"] == pytest.approx(fixed_kb)
    assert bill.loc[5, "ayudantes_kb"] == pytest.approx(45 * KB)
    assert bill.loc[5, "total_kb"] == pytest.approx(fixed_kb + 45 * KB + 2500)
    memory = pod_analysis.cluster_memory(df)
    assert memory["n"] == 5 and memory["fijo"].value == pytest.approx(fixed_kb)
    assert memory["por_pod"].value == pytest.approx(9 * KB + 500)  # 02's per container: shim and cgroup
    assert pod_analysis.cluster_memory(_synthetic()) == {}
    parts = pod_analysis.components(df).set_index("n")
    assert parts.loc[5, "apiserver"] == pytest.approx(50) and parts.loc[5, "pause_total"] == pytest.approx(
        1.5
    )


def test_the_views_show_the_section_and_say_why_it_is_absent(tmp_path, monkeypatch):
    shown: list[str] = []
    monkeypatch.setattr(vista_pod, "show", lambda styler: shown.append(styler.data.to_string()))
    monkeypatch.setattr(vista_pod, "markdown", shown.append)
    df = pd.concat([_synthetic(n=8), _launch_frame(), _bill_frame()], ignore_index=True)
    res = Resultado("anatomia", df, tmp_path, {"run_id": "r1", "kubernetes": {"arranque_s": 8.2}})
    for view in (vista.tabla, vista.grafico, vista.fases, vista.cascada):  # the ladder ignores the Pods
        view(res)
    vista_pod.lanzamiento(res)
    vista_pod.factura(res, escala=Resultado("escala", pd.DataFrame(), tmp_path, {}))
    out = "\n".join(shown)
    assert "Pod: `kubectl apply` → Ready" in out and "sandbox y red" in out and "kube-apiserver" in out
    assert "resolución de un segundo" in out
    quick = Resultado("anatomia", _synthetic(), tmp_path, {"parameters": {"peldaños": ["proceso", "runc"]}})
    vista_pod.lanzamiento(quick)
    assert "perfil rápido lo deja fuera" in shown[-1]
    skipped = Resultado(
        "anatomia",
        _synthetic(),
        tmp_path,
        {
            "parameters": {"peldaños": ["kubernetes"]},
            "skipped_arms": {"Kubernetes (Pod y factura)": "sin root."},
        },
    )
    vista_pod.lanzamiento(skipped)
    assert shown[-1] == "_Se omitió Kubernetes en esta corrida: sin root._"
    vista_pod.factura(skipped)  # the page says why once, in the section above
    assert shown[-1] == vista_pod.NO_BILL and "sin root" not in shown[-1]


def test_the_cluster_counts_as_settled_only_once_its_pods_stay_put(monkeypatch):
    """Fault injection: a sandbox the kubelet starts again after the last shim was gone must not reach
    the next round, nor a bill count a Pod it did not launch; a count that never settles is an error."""
    seen = iter([[1], [], [], [1], [1], *[[]] * 100])
    polls = []

    def shims(_cluster):
        polls.append(1)
        return {"shims_total": next(seen), "pause_total": []}

    monkeypatch.setattr(pod, "pod_processes", shims)
    monkeypatch.setattr(pod, "SETTLED_S", 0.25)
    monkeypatch.setattr(pod.time, "sleep", lambda _s: None)
    clock = iter(range(1000))
    monkeypatch.setattr(pod.time, "monotonic", lambda: next(clock) * 0.1)
    pod.wait_settled(None)
    # the reappearing shim restarted the wait; then 0.25 s of none, polled every 0.1 s
    assert len(polls) == 5 + 4
    monkeypatch.setattr(pod, "pod_processes", lambda _c: {"shims_total": [1], "pause_total": []})
    with pytest.raises(ErrorDelCurso, match="no se quedó con 0 Pods en marcha"):
        pod.wait_settled(None, timeout=2)
