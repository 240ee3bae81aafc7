"""The document's latency column (Docker and Kubernetes over native, per server) and its actix-web against
Rocket, on synthetic rows: judged by the one rule only at the document's load, paired by round, and «no
comparable» at any other load with the reason."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers import results
from helpers.experiments import red as exp
from helpers.experiments import verdict
from helpers.experiments.red.arms import CLUSTER_NATIVE
from helpers.experiments.red.measure import SEED_PRESET, UNPINNED
from tests.experiments.red.test_unit import _rows, synthetic

AT_DOCUMENT_LOAD = {"parameters": {**SEED_PRESET, "duracion_s": 2}, UNPINNED: True}
OURS = {"parameters": {"hilos": 2, "conexiones": 50, "duracion_s": 2}, UNPINNED: True}
NEW = (
    "latencia_docker_nethttp",
    "latencia_kubernetes_nethttp",
    "latencia_docker_gin",
    "latencia_kubernetes_gin",
    "actix_rocket_128",
)


def latency_rows(arms: dict[tuple[str, str, str], float], reps: int = 8, drift=None) -> pd.DataFrame:
    """wrk's average latency (ms) of each (engine, variant, server), noisy, times drift(rep) if given."""
    rng = np.random.default_rng(11)
    rows = []
    for (engine, variant, server), ms in arms.items():
        for rep, noise in enumerate(rng.normal(0, 0.005, reps), 1):
            value = ms * (1 + noise) * (drift(rep) if drift else 1.0)
            rows.append(
                {
                    "experiment": "red",
                    "engine": engine,
                    "image": server,
                    "variant": variant,
                    "rep": rep,
                    "metric": "latencia_media",
                    "value": value,
                    "unit": "ms",
                }
            )
    return pd.DataFrame(rows, columns=results.COLUMNS)


def with_latencies(docker_ms=10.0, k8s_ms=22.0, gin_docker_ms=5.2, actix=128_000, rocket=100_000, drift=None):
    """`synthetic()` plus latencies (native 5 ms on both Go servers), Kubernetes port-forward on net/http,
    and actix-web and Rocket natively."""
    rng = np.random.default_rng(5)
    rust = _rows("bare", "nativo", "actix", list(actix * (1 + rng.normal(0, 0.005, 8)))) + _rows(
        "bare", "nativo", "rocket", list(rocket * (1 + rng.normal(0, 0.005, 8)))
    )
    latencies = latency_rows(
        {
            ("bare", "nativo", "nethttp"): 5.0,
            ("docker", "puerto", "nethttp"): docker_ms,
            ("kubernetes", "port_forward", "nethttp"): k8s_ms,
            ("bare", CLUSTER_NATIVE.variant, "nethttp"): 5.0,
            ("bare", "nativo", "gin"): 5.0,
            ("docker", "puerto", "gin"): gin_docker_ms,
        },
        drift=drift,
    )
    return pd.concat([synthetic(), pd.DataFrame(rust, columns=results.COLUMNS), latencies], ignore_index=True)


def by_key(df, meta) -> dict[str, verdict.Claim]:
    return {c.key: c for c in exp.claims(df, meta)}


def test_the_latency_ratios_follow_the_one_rule_at_the_documents_load():
    claims = by_key(with_latencies(), AT_DOCUMENT_LOAD)
    docker = claims["latencia_docker_nethttp"]
    assert docker.status == verdict.SE_CONFIRMA and docker.value == pytest.approx(2.0, abs=0.05)
    assert docker.claimed == pytest.approx(11.16 / 5.47) and docker.kind == "about"
    k8s = claims["latencia_kubernetes_nethttp"]
    assert k8s.status == verdict.SE_CONFIRMA and k8s.value == pytest.approx(4.4, abs=0.1)
    assert k8s.detail["camino"] == "port_forward" and "`kubectl port-forward`" in k8s.quantity
    # gin's Docker latency barely moves: the document's 2× does not hold.
    assert claims["latencia_docker_gin"].status == verdict.NO_SE_SOSTIENE
    assert claims["latencia_kubernetes_gin"].status == verdict.SIN_DATOS  # no Kubernetes arm on gin
    assert "Kubernetes no corrió" in claims["latencia_kubernetes_gin"].note
    slow = by_key(with_latencies(docker_ms=5.1, k8s_ms=40.0), AT_DOCUMENT_LOAD)
    assert slow["latencia_docker_nethttp"].status == verdict.NO_SE_SOSTIENE
    assert slow["latencia_kubernetes_nethttp"].status == verdict.NO_SE_SOSTIENE  # 8×, beyond «about 4.5×»


def test_actix_against_rocket_follows_the_one_rule_at_the_documents_load():
    claim = by_key(with_latencies(), AT_DOCUMENT_LOAD)["actix_rocket_128"]
    assert claim.status == verdict.SE_CONFIRMA and claim.value == pytest.approx(1.28, abs=0.02)
    assert claim.claimed == pytest.approx(203133.2 / 159194.28) and claim.detail.get("rondas")
    even = by_key(with_latencies(actix=100_000), AT_DOCUMENT_LOAD)["actix_rocket_128"]
    assert even.status == verdict.NO_SE_SOSTIENE and even.value == pytest.approx(1.0, abs=0.02)
    no_rust = synthetic()
    assert by_key(no_rust, AT_DOCUMENT_LOAD)["actix_rocket_128"].status == verdict.SIN_DATOS


def test_the_latency_ratio_is_paired_by_round():
    """A drift shared by a round (every arm's latency alike) cancels in the ratio."""
    steady = by_key(with_latencies(), AT_DOCUMENT_LOAD)["latencia_docker_nethttp"]
    drifted = by_key(with_latencies(drift=lambda r: 0.5 + 0.2 * r), AT_DOCUMENT_LOAD)[
        "latencia_docker_nethttp"
    ]
    assert drifted.value == pytest.approx(steady.value, abs=0.02) and drifted.status == steady.status
    assert steady.n == 8 and steady.detail.get("rondas") and steady.low <= steady.value <= steady.high


def test_at_another_load_the_new_claims_are_not_comparable_with_the_reason():
    claims = by_key(with_latencies(), OURS)
    for key in NEW:
        assert claims[key].status == verdict.NO_COMPARABLE, key
        assert "wrk -t12 -c400" in claims[key].note and "wrk -t2 -c50" in claims[key].note, key
    assert "actix-web" in claims["actix_rocket_128"].note and "Rocket" in claims["actix_rocket_128"].note
    assert "HILOS = 12 y CONEXIONES = 400" in claims["latencia_docker_nethttp"].note
    # The document's threads and connections decide, with a window long enough: 30 s is not needed.
    for seconds in (2, 30):
        ours = by_key(
            with_latencies(), {"parameters": {**SEED_PRESET, "duracion_s": seconds}, UNPINNED: True}
        )
        assert ours["latencia_docker_nethttp"].status == verdict.SE_CONFIRMA
        assert ours["actix_rocket_128"].status == verdict.SE_CONFIRMA
