"""09's answer about Kubernetes, tied to notebook 04's page on synthetic runs: a Pod's LAUNCH (apply →
Ready beside `docker run` and `podman run`, which way by the one rule, the phase that dominates) and the
cluster's CAPACITY (fixed processes, one more Pod, beside 02's Docker and Podman) are the sentences 04's
page prints, with the figures the test recomputes from the rows; where Kubernetes did not run, one line
says why; the closing table carries the Pod's rows."""

from __future__ import annotations

import IPython.display
import numpy as np
import pytest

from helpers import cierre, results, stats
from helpers.course.facts import kit_facts
from helpers.experiments import verdict
from helpers.experiments.anatomia import pod
from helpers.experiments.escala.probing import FIXED, KB, memory_rows
from helpers.experiments.runner import Resultado
from helpers.view import anatomia_pod as vista_pod
from helpers.view import cierre as vista
from helpers.view.common import direction_words, fmt_ratio, fmt_value_interval

ROUNDS = 8
T0 = 1_800_000_000 * 1_000_000_000
MS = 1_000_000
K8S_META = {"parameters": {"peldaños": ["motor", "kubernetes"]}, "kubernetes": {"arranque_s": 7.4}}


def _write(root, experiment: str, rows: list[tuple], **meta) -> None:
    """A run of `experiment` under `root` from (engine, variant, rep, metric, value, unit) rows."""
    with results.Run(experiment, {}, root) as run:
        run.update_meta(**meta)
        for engine, variant, rep, metric, value, unit in rows:
            run.append(
                engine=engine, image="img", variant=variant, rep=rep, metric=metric, value=value, unit=unit
            )


def _ladder(docker_ms: float, podman_ms: float) -> list[tuple]:
    """04's `run --rm` with the default network, both engines, a little jitter per round."""
    return [
        (engine, "run_red", k, "arranque", center * (1 + 0.01 * (k % 3)), "ms")
        for engine, center in (("docker", docker_ms), ("podman", podman_ms))
        for k in range(1, ROUNDS + 1)
    ]


def _launches(sandbox_ms: float, ready_ms: float) -> list[tuple]:
    """A Pod launched per round, its points placed by pod.launch_rows (API 100 ms, scheduling 30, kubelet
    80, sandbox and network `sandbox_ms`, container 90, then Ready `ready_ms`), each with some jitter."""
    rng = np.random.default_rng(11)
    rows = []
    for k in range(1, ROUNDS + 1):
        at, points = T0, {}
        for point, center in (
            ("creado", 100),
            ("planificado", 30),
            ("sandbox_inicio", 80),
            ("sandbox_fin", sandbox_ms),
            ("contenedor", 90),
            ("listo", ready_ms),
        ):
            at += int(center * rng.uniform(0.9, 1.1) * MS)
            points[point] = at
        rows += [(pod.ENGINE, pod.LAUNCH, k, m, v, u) for m, v, u in pod.launch_rows(T0, points)]
    return rows


def _bill(fixed_mib: float, per_pod_mib: float) -> list[tuple]:
    """The cluster's bill at N = 0 and 5 Pods: each fixed process `fixed_mib` ÷ 7 (PSS), each Pod half in
    its shim, half in its cgroup."""
    rows = []
    for k in range(1, ROUNDS + 1):
        jitter = 1 + 0.01 * (k % 4)
        for n in pod.BILL_PODS:
            each = fixed_mib / len(FIXED[pod.ENGINE]) * 2**20 * jitter
            totals = {key: {"rss": each, "pss": each} for key in FIXED[pod.ENGINE]}
            half = n * per_pod_mib / 2 * 2**20 * jitter
            totals |= {"shims_total": {"rss": half, "pss": half}, "pause_total": {"rss": 0.0, "pss": 0.0}}
            bill = [*memory_rows(totals), ("memoria_cgroup_total", half / 1024, "KB")]
            rows += [(pod.ENGINE, f"n={n}", k, m, v, u) for m, v, u in bill]
    return rows


def _escala(docker_fixed_mib: float, per_container_kb: dict) -> list[tuple]:
    """02's bill at N = 1 and 10: dockerd and containerd's PSS, and each container's cgroup and helper."""
    rows = []
    for engine, kb in per_container_kb.items():
        helper = {"docker": "shims", "podman": "conmon"}[engine]
        for n in (1, 10):
            for k in range(1, 7):
                jitter = 1 + 0.01 * (k % 3)
                rows += [
                    (engine, f"n={n}", k, "memoria_cgroup_total", kb / 2 * n * jitter, "KB"),
                    (engine, f"n={n}", k, f"pss_{helper}_total", kb / 2 * n * jitter, "KB"),
                    (engine, f"n={n}", k, "lanzamiento_por_contenedor", 300 * jitter, "ms"),
                ]
                if engine == "docker":
                    rows += [
                        (engine, f"n={n}", k, f"pss_{name}", docker_fixed_mib / 2 * KB * jitter, "KB")
                        for name in FIXED["docker"]
                    ]
    return rows


def _shown(monkeypatch, module) -> list[str]:
    """What a view prints (markdown and tables), as text."""
    out: list[str] = []
    monkeypatch.setattr(module, "markdown", lambda text: out.append(text or ""))
    monkeypatch.setattr(module, "show", lambda styler: out.append(styler.data.to_string()))
    return out


def _answer(root, monkeypatch) -> str:
    """09's paragraph about Kubernetes, from its header to the next question."""
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.preguntas(root=root)
    text = "\n".join(o.data for o in shown if isinstance(getattr(o, "data", None), str))
    return text.split(vista.POD_QUESTION)[1].split("####")[0]


def _page(root, monkeypatch) -> list[str]:
    """04's Kubernetes section of its latest run, as its page prints it."""
    out = _shown(monkeypatch, vista_pod)
    run, escala = results_of(root, "anatomia"), results_of(root, "escala")
    vista_pod.lanzamiento(run)
    vista_pod.factura(run, escala=escala)
    return out


def results_of(root, experiment: str) -> Resultado | None:
    return Resultado.latest(experiment, root)


@pytest.fixture
def root(tmp_path):
    return tmp_path / "resultados"


# (docker ms, podman ms, sandbox ms, Ready ms): the Pod slower than both, its sandbox dominating; the Pod
# faster than Docker and level with Podman, Ready and sandbox too close to tell apart.
SLOWER_SANDBOX = (340.0, 400.0, 900.0, 200.0)
FASTER_NO_WINNER = (3000.0, 1050.0, 400.0, 400.0)


@pytest.mark.parametrize("case", [SLOWER_SANDBOX, FASTER_NO_WINNER])
def test_the_pods_launch_and_capacity_in_09_are_04s_sentences_and_follow_the_rows(root, monkeypatch, case):
    docker_ms, podman_ms, sandbox_ms, ready_ms = case
    rows = _ladder(docker_ms, podman_ms) + _launches(sandbox_ms, ready_ms) + _bill(700.0, 5.0)
    _write(root, "anatomia", rows, run_id="k8s", **K8S_META)
    _write(
        root,
        "escala",
        _escala(60.0, {"docker": 2048.0, "podman": 1024.0}),
        run_id="e02",
        host={"memory_available_bytes": 8 * 2**30},
    )
    answer = _answer(root, monkeypatch)
    page = _page(root, monkeypatch)

    # LAUNCH: 04's two paragraphs open with the sentences 09 quotes, word for word
    launch = next(line for line in answer.splitlines() if line.startswith("- **LAUNCH:**"))
    said = [p.split(" No es el mismo trabajo")[0] for p in page if p.startswith("Un Pod, de `kubectl apply`")]
    phase = [p.split(" Las fases van una tras otra")[0] for p in page if "«" in p and "fase" in p[:40]]
    assert len(said) == 1 and len(phase) == 1
    assert f"- **LAUNCH:** {said[0]} {phase[0]}" in launch
    assert "El clúster mismo arrancó en 7.4 s" in launch

    # …and those sentences are the rows': apply → Ready over each `run`, round by round, by the one rule
    df = results_of(root, "anatomia").df
    total = df[(df["metric"] == pod.TOTAL)].set_index("rep")["value"].astype(float)
    for engine, label in (("docker", "Docker"), ("podman", "Podman")):
        run = (
            df[(df["engine"] == engine) & (df["variant"] == "run_red")]
            .set_index("rep")["value"]
            .astype(float)
        )
        ratio = stats.ratio_ci(total, run)
        side = direction_words(
            verdict.direction(ratio.low, ratio.high, ratio.n), "tarda más el Pod", "tarda menos el Pod"
        )
        assert (
            f"{fmt_ratio(*ratio.triple)} lo que `{engine} run --rm` ({label}, red por defecto): {side}"
            in launch
        )
    expected = "tarda más el Pod" if case is SLOWER_SANDBOX else "tarda menos el Pod"
    assert f"(Docker, red por defecto): {expected}" in launch
    s = stats.summarize(total.to_numpy())
    assert fmt_value_interval(s.median, s.ci_low, s.ci_high, "ms") in launch

    # the phase that dominates: named only when its share leads the next one round by round
    phases = df[df["metric"].isin(pod.PHASE_METRICS)].pivot_table(
        index="rep", columns="metric", values="value"
    )
    shares = {m: stats.median_ci((phases[m] / total).to_numpy()) for m in phases}
    ranked = sorted(shares, key=lambda m: shares[m].value, reverse=True)
    name = {m: n for m, _p, n, _h in pod.PHASES}
    lead = stats.median_ci((100 * (phases[ranked[0]] - phases[ranked[1]]) / total).to_numpy())
    apart = lead.has_interval and lead.low > 0  # the top's lead over the next, round by round
    if apart:
        assert f"La fase que domina es «{name[ranked[0]]}»" in launch
    else:
        assert (
            f"la fase más larga es «{name[ranked[0]]}»" in launch and "no se distingue cuál domina" in launch
        )
    assert apart == (case is SLOWER_SANDBOX)

    # CAPACITY: 04's bill sentence, its figures recomputed from the rows, Docker's and Podman's beside it
    capacity = next(line for line in answer.splitlines() if line.startswith("- **CAPACITY:**"))
    bill = next(p for p in page if "El clúster de un nodo retiene" in p).split("\n\n")[-1]
    assert capacity == f"- **CAPACITY:** {bill}"
    fixed = df[(df["variant"] == "n=5") & df["metric"].isin([f"pss_{k}" for k in FIXED[pod.ENGINE]])]
    fixed = stats.median_ci(fixed.groupby("rep")["value"].sum().to_numpy() / KB)  # at 02's largest N
    assert f"retiene {fmt_value_interval(*fixed.triple, 'MiB')} en sus procesos fijos" in capacity
    assert fixed.value == pytest.approx(700, rel=0.05)
    five = df[(df["variant"] == "n=5") & df["metric"].isin(["pss_shims_total", "memoria_cgroup_total"])]
    per_pod = stats.median_ci(five.groupby("rep")["value"].sum().to_numpy() / 5 / KB)
    assert f"cada Pod más en reposo, {fmt_value_interval(*per_pod.triple, 'MiB')}" in capacity
    e02 = results_of(root, "escala").df
    daemon = e02[(e02["variant"] == "n=10") & e02["metric"].isin(["pss_daemon", "pss_containerd"])]
    daemon = stats.median_ci(daemon.groupby("rep")["value"].sum().to_numpy() / KB)  # as 02's closing row
    each = {}
    for engine, helper in (("docker", "shims"), ("podman", "conmon")):
        ten = e02[(e02["engine"] == engine) & (e02["variant"] == "n=10")]
        ten = ten[ten["metric"].isin([f"pss_{helper}_total", "memoria_cgroup_total"])]
        each[engine] = stats.median_ci(ten.groupby("rep")["value"].sum().to_numpy() / 10 / KB)
    assert (
        f"Docker, {fmt_value_interval(*daemon.triple, 'MiB')} fijos (dockerd y containerd) y "
        f"{fmt_value_interval(*each['docker'].triple, 'MiB')} por contenedor (N = 10)"
    ) in capacity
    assert (
        f"Podman, nada fijo (sin demonio) y {fmt_value_interval(*each['podman'].triple, 'MiB')}" in capacity
    )
    assert "`e02`" in capacity and "sin veredicto" in capacity
    table = cierre.gather(root=root).rows.set_index(["experimento", "entorno", "concepto"])
    daemon_row = table.loc[("escala", "docker", "procesos fijos del motor (dockerd + containerd, PSS)")]
    cluster_row = table.loc[("anatomia", "Kubernetes")].iloc[1]  # the same page's table says the same
    for row in (daemon_row, cluster_row):
        assert fmt_value_interval(row["valor"], row["ic_bajo"], row["ic_alto"], "MiB") in capacity

    # the instructor's guide and 09's solution get the same sentences (the kit's facts)
    facts = kit_facts(root)
    tag = "En la corrida `k8s` de `04_anatomia_arranque`: "  # then the sentence, mid-sentence: lower case
    assert facts["cierre.pod_lanzamiento"] == f"{tag}u{said[0][1:]} {phase[0]}" and said[0].startswith("U")
    assert facts["cierre.pod_capacidad"] == f"{tag}e{bill[1:]}" and bill.startswith("E")

    # 06's Pods serving HTTP are RUNNING: cited, their rows in the table
    assert "`06_red_http.ipynb` aún no tiene corrida" in answer
    served = [("kubernetes", "nodeport", k, "req_s", 5e4, "req/s") for k in range(1, 4)]
    _write(root, "red", served, parameters={"brazos": ["nativo", "k8s-nodeport"]})
    assert "- **RUNNING:** en `06_red_http.ipynb`, Pods sirvieron HTTP" in _answer(root, monkeypatch)


def test_the_closing_table_carries_the_pods_launch_and_the_clusters_capacity(root):
    _write(root, "anatomia", _ladder(340, 400) + _launches(900, 200) + _bill(700.0, 5.0), **K8S_META)
    rows = cierre.gather(root=root).rows
    k8s = rows[(rows["experimento"] == "anatomia") & (rows["entorno"] == "Kubernetes")]
    assert list(k8s["tipo"]) == ["LAUNCH", "CAPACITY", "CAPACITY"]
    assert k8s["valor"].iloc[0] == pytest.approx(1300, rel=0.1)  # ms: apply → Ready
    assert k8s["valor"].iloc[1] == pytest.approx(700, rel=0.05) and k8s["valor"].iloc[2] == pytest.approx(
        5, rel=0.05
    )
    assert list(k8s["unidad"]) == ["ms", "MiB", "MiB"]
    assert (rows["tipo"].isin(["LAUNCH", "RUNNING", "CAPACITY"])).all()


@pytest.mark.parametrize(
    "meta, line",
    [
        ({"parameters": {"peldaños": ["proceso", "runc", "motor"]}}, "El perfil rápido lo deja fuera"),
        (
            {
                "parameters": {"peldaños": ["motor", "kubernetes"]},
                "skipped_arms": {"Kubernetes (Pod y factura de memoria)": "Kubernetes no está construido."},
            },
            "Se omitió Kubernetes en esta corrida: Kubernetes no está construido.",
        ),
    ],
)
def test_where_kubernetes_did_not_run_one_line_says_why(root, monkeypatch, meta, line):
    answer = _answer(root, monkeypatch)
    assert "04_anatomia_arranque.ipynb`, que aún no tiene corrida" in answer
    assert "06_red_http.ipynb` aún no tiene corrida" in answer
    _write(root, "anatomia", _ladder(340, 400), **meta)
    _write(root, "red", [], parameters={"brazos": ["nativo", "docker-puerto"]})
    answer = _answer(root, monkeypatch)
    assert line in answer and "**LAUNCH:**" not in answer and "**CAPACITY:**" not in answer
    assert "no pidió los brazos de Kubernetes (el perfil rápido los omite" in answer  # 06's own line
    page = _page(root, monkeypatch)
    assert any(line in p for p in page)  # the same line as 04's page
    facts = kit_facts(root)
    for key in ("cierre.pod_lanzamiento", "cierre.pod_capacidad"):  # mid-sentence: its first letter lowered
        assert line[1:] in facts[key] and "`04_anatomia_arranque`" in facts[key]
