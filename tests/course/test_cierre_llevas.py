"""«Lo que te llevas», 09's first screen: one sentence per finding, one figure each, from the page that
decided it (01, 03, 05, 06 twice, 02), concluded by the one rule, and what a run does not have named as
missing. Toy runs written as each experiment writes them, judged by each experiment's own claims."""

from __future__ import annotations

import json

import IPython.display
import numpy as np
import pandas as pd
import pytest

from helpers import PROJECT_ROOT, cierre, experiments, results
from helpers.experiments.red import arms as red_arms
from helpers.view import cierre as vista
from helpers.view.common import fmt, fmt_ratio, fmt_value_interval, verdict_words
from tests.course.test_cierre import _run, _running, _scale_rows, _startup
from tests.experiments.llamadas.test_unit import synthetic as calls
from tests.experiments.red.test_kubernetes import AT_DOCUMENT_LOAD, OURS
from tests.experiments.red.test_unit import _rows as http_rows
from tests.experiments.red.test_unit import synthetic as http

LABELS = {key: words.label for key, words in vista.TAKEAWAY_WORDS.items()}
PAGES = {  # each finding, and the page that decides it
    "arranque_frente_proceso": "01",
    "hash_0": "03",
    "contenedor_11": "05",
    "docker_pierde_66": "06",
    "kubernetes_pierde_84": "06",
    "cgroup_4x": "02",
}


@pytest.fixture
def root(tmp_path):
    return tmp_path / "resultados"


def _shown(root) -> str:
    shown = []
    original = IPython.display.display
    IPython.display.display = lambda obj, *a, **k: shown.append(obj)
    try:
        vista.lo_que_te_llevas(root=root)
    finally:
        IPython.display.display = original
    return "\n".join(o.data for o in shown)


def _sentences(root) -> dict[str, str]:
    """{finding: its sentence}, by its label."""
    lines = [ln for ln in _shown(root).splitlines() if ln.startswith("- **")]
    assert len(lines) == len(LABELS)
    return {
        key: next(ln for ln in lines if ln.startswith(f"- **{label}.**")) for key, label in LABELS.items()
    }


def _running_frame(reps: int) -> pd.DataFrame:
    """03's hash, the work alone, on bare metal and in Docker, `reps` rounds."""
    return pd.DataFrame(
        [
            {"engine": e, "image": i, "variant": "hash", "rep": k, "metric": "trabajo", "unit": "s"}
            | {"value": 1.0 * (1 + 0.01 * (k % 3))}
            for e, i in (("bare", ""), ("docker", "img"))
            for k in range(1, reps + 1)
        ]
    )


def _network(root, docker_p: float, forward: float, meta: dict) -> None:
    """06: native, Docker -p and the other arms (the red unit tests' rows), and `kubectl port-forward`
    beside native again with the cluster idling (80 000 req/s), 8 rounds."""
    rng = np.random.default_rng(5)
    rows = http_rows(
        "bare", red_arms.CLUSTER_NATIVE.variant, "nethttp", list(80_000 * (1 + rng.normal(0, 0.005, 8)))
    )
    rows += http_rows("kubernetes", "port_forward", "nethttp", list(forward * (1 + rng.normal(0, 0.005, 8))))
    frame = pd.concat([http(docker_p=docker_p), pd.DataFrame(rows, columns=results.COLUMNS)])
    _run(root, "red", frame, **meta)


def _memory(root, podman_stats_kb: float) -> None:
    """02 at N = 20: Docker 3.3 MiB and Podman 0.75 MiB per idle container (cgroup + helper), and the
    memory `stats` shows per container (Docker 440 KB, Podman `podman_stats_kb`)."""
    frame = _scale_rows(
        20, {"docker": 3.3 * 1024, "podman": 0.75 * 1024}, {"docker": "shims", "podman": "conmon"}
    )
    extra = [
        {"engine": e, "variant": "n=20", "rep": k, "metric": "memoria_stats_por_contenedor", "unit": "KB"}
        | {"value": kb * (1 + 0.01 * (k % 3)), "image": "img"}
        for e, kb in (("docker", 440.0), ("podman", podman_stats_kb))
        for k in range(1, 7)
    ]
    host = {"memory_available_bytes": 8 * 2**30, "memory_total_bytes": 16 * 2**30}
    _run(root, "escala", pd.concat([frame, pd.DataFrame(extra)]), host=host, launch_network="por_defecto")


def _all(root, *, confirming: bool) -> None:
    """A run of every page the take-home reads, all of whose claims are confirmed, or all refuted."""
    _run(root, "arranque", _startup(docker=300.0, podman=150.0) if confirming else _startup(0.5, 0.4))
    _running(root, 1.0 if confirming else 1.2)  # hash: ~0 %, or +20 %
    seccomp = 111 if confirming else 127  # getpid: +11 %, or +27 %
    _run(root, "llamadas", calls({("bare", "host"): 100, ("docker", "seccomp"): seccomp}))
    _network(root, 34_000 if confirming else 90_000, 12_000 if confirming else 60_000, AT_DOCUMENT_LOAD)
    _memory(root, 97.0 if confirming else 440.0)  # Podman/Docker with `stats`: 0.22×, or 1×


def test_without_runs_every_finding_names_the_page_it_waits_for(root):
    found = _sentences(root)
    for key, page in PAGES.items():
        assert f"Aún no corriste {page}:" in found[key] and f"(cuaderno {page})" in found[key]
        assert "[" not in found[key]  # no figure invented


@pytest.mark.parametrize(
    "confirming, word, launch", [(True, "se confirma", "más lento"), (False, "no se sostiene", "más rápido")]
)
def test_each_sentence_follows_its_run_both_ways(root, confirming, word, launch):
    """Each claim's sentence carries the figure it was judged on, with its IC, and its page's verdict:
    a confirming run says «se confirma», a refuting one «no se sostiene»; 01's launch over a process is
    read by the rule's direction; every sentence credits the page that decided it."""
    _all(root, confirming=confirming)
    found = _sentences(root)
    items = {t.key: t for t in cierre.takeaways(root)}
    for key, page in PAGES.items():
        assert found[key].endswith(f"(cuaderno {page}).") or f"(cuaderno {page})." in found[key], found[key]
        assert "Aún no corriste" not in found[key]
    for key in ("hash_0", "contenedor_11", "docker_pierde_66", "kubernetes_pierde_84"):
        claim = items[key].claim
        assert items[key].judged and verdict_words(claim) == word
        assert fmt_value_interval(claim.value, claim.low, claim.high, claim.unit) in found[key]
        assert f"»: **{word}** (cuaderno" in found[key]
    assert f"**{launch} que un proceso**" in found["arranque_frente_proceso"]
    reading = items["arranque_frente_proceso"].reading.estimate
    assert fmt_ratio(reading.value, reading.low, reading.high) in found["arranque_frente_proceso"]
    # CAPACITY: memory first, each engine's MiB per container, then 02's verdict; the bridge as a ceiling
    memory = found["cgroup_4x"]
    docker, podman = (c.memory_kb for c in items["cgroup_4x"].capacity)
    assert fmt_value_interval(docker.value / 1024, docker.low / 1024, docker.high / 1024, "MiB") in memory
    assert fmt_value_interval(podman.value / 1024, podman.low / 1024, podman.high / 1024, "MiB") in memory
    assert f"**{word}**" in memory and memory.index("memoria") < memory.index(fmt(cierre.BRIDGE_PORTS, 0))
    assert "techo de configuración" in memory


def test_a_run_at_another_load_reads_06s_own_ratio_by_the_rule(root):
    """06 at another load than the document's: its losses are «no comparable» (no figure); the sentence
    then gives 06's own ratio to native, read by the one rule, and says the claim was not compared."""
    _network(root, 34_000, 12_000, OURS)
    found = _sentences(root)
    items = {t.key: t for t in cierre.takeaways(root)}
    for key in ("docker_pierde_66", "kubernetes_pierde_84"):
        e = items[key].reading.estimate
        assert not items[key].judged and items[key].claim.status == "no_comparable"
        assert (
            fmt_ratio(e.value, e.low, e.high) in found[key]
            and "**menos peticiones que nativo**" in found[key]
        )
        assert "»: **no comparable** (cuaderno 06)." in found[key]
    assert "Aún no corriste 01:" in found["arranque_frente_proceso"]


def test_a_run_without_the_cluster_names_kubernetes_as_missing(root):
    _run(root, "red", http(), **AT_DOCUMENT_LOAD)
    found = _sentences(root)
    assert "«pierde un 65.83 %»: **se confirma**" in found["docker_pierde_66"]
    forward = found["kubernetes_pierde_84"]
    assert "no da esta cifra: sin Kubernetes" in forward and "[" not in forward


def test_a_quick_run_says_how_many_repetitions_it_lacks_instead_of_a_figure(root):
    """The quick profile's two repetitions give no IC 95 %: the sentence says so in the rule's words
    (01's direction, 03's verdict), never a figure without its interval read as a result."""
    startup = _startup(docker=300.0, podman=150.0)
    _run(root, "arranque", startup[startup["rep"] <= 2])
    _run(root, "ejecucion", _running_frame(reps=2))
    found = _sentences(root)
    assert (
        "`docker run --rm` frente a un proceso nuevo: **no se puede juzgar con 2 repeticiones"
        in (found["arranque_frente_proceso"])
    )
    assert "«la sobrecarga de hash es ~0 %»: **no se puede juzgar con 2 repeticiones" in found["hash_0"]
    assert "×" not in found["arranque_frente_proceso"] and "[" not in found["hash_0"]


def test_each_page_is_read_once_and_judged_once(root, monkeypatch):
    _all(root, confirming=True)
    calls_made: dict[str, int] = {}
    for name in cierre.TAKEAWAY_READS:
        module = experiments.get(name)
        original = module.claims

        def counted(df, meta=None, name=name, original=original):
            calls_made[name] = calls_made.get(name, 0) + 1
            return original(df, meta)

        monkeypatch.setattr(module, "claims", counted)
    cierre.takeaways(root)
    assert calls_made == {name: 1 for name in cierre.TAKEAWAY_READS}


def test_the_first_screen_stays_short(root):
    """09's first screen (its heading cell and «Lo que te llevas», with every page run) is at most about
    400 words; the short answers below it are folded."""
    _all(root, confirming=True)
    cells = json.loads((PROJECT_ROOT / "notebooks" / "09_cierre.ipynb").read_text())["cells"]
    first = [c for c in cells[:3] if c["cell_type"] == "markdown"]
    assert "".join(first[-1]["source"]) == "## Lo que te llevas"
    words = sum(len("".join(c["source"]).split()) for c in first) + len(_shown(root).split())
    assert words <= 400
