"""Experiment 4's Kubernetes rungs on the real single-node cluster, after the ladder: a few Pod launches
beside `docker run` again in the same shuffled rounds, whose phases add up to apply → Ready with nothing left over, and the
cluster's memory bill with 0 and 5 Pods; the cluster and every Pod are gone afterwards."""

from __future__ import annotations

import pytest

from helpers.engines import kubernetes_host
from helpers.experiments import anatomia
from helpers.experiments.anatomia import pod, pod_analysis
from helpers.experiments.escala.probing import FIXED
from tests.conftest import require_engine
from tests.support import setup_step_missing

pytestmark = [pytest.mark.engines, pytest.mark.kubernetes]


def test_pod_launches_split_into_phases_and_the_cluster_is_billed(results_tmp):
    require_engine("docker")
    ok, why = pod.availability()
    if not ok:
        setup_step_missing("Kubernetes (la construcción de Kubernetes de «make setup»)", why)
    kubernetes_host.reap_orphans()
    res = anatomia.run(
        anatomia.config(repeticiones=3, calentamiento=0, peldaños=["motor", "kubernetes"], motores=["docker"])
    )
    assert res.status == "complete", res.meta.get("skipped_arms")
    assert not res.meta.get("skipped_arms"), res.meta["skipped_arms"]
    rows = pod_analysis.launch_rows(res.df)
    assert len(rows) == 3
    phases = [metric for metric, *_ in pod.PHASES]
    assert set(phases) <= set(rows.columns), rows.columns  # containerd's log dated every point
    assert (rows[phases] >= 0).all().all()
    assert pod_analysis.unaccounted_ms(res.df) < 0.01  # the phases add up to the total
    summary = pod_analysis.launch_summary(res.df)
    assert summary["pod"].n == 3 and summary["docker"].n == 3
    # the ladder's rounds ran before the cluster started; the Pod beside `docker run` again, then the bill
    loops = {(a["variant"], a.get("loop", "")) for a in res.meta["arms"]}
    assert loops == {("run_sin_red", ""), ("run_red", ""), (pod.LAUNCH, pod.LOOP), (pod.BESIDE, pod.LOOP)} | {
        (f"n={n}", pod.BILL_LOOP) for n in pod.BILL_PODS
    }

    bill = pod_analysis.cluster_bill(res.df).set_index("n")
    assert list(bill.index) == list(pod.BILL_PODS)
    assert (bill["fijo_kb"] > 0).all()
    assert bill.loc[5, "cgroup_kb"] > bill.loc[0, "cgroup_kb"]
    parts = pod_analysis.components(res.df).set_index("n")
    assert set(FIXED["kubernetes"]) <= set(parts.columns)
    assert (parts.loc[:, list(FIXED["kubernetes"])] > 0).all().all()
    shims = res.df[(res.df["engine"] == "kubernetes") & (res.df["metric"] == "shims_procesos")]
    assert set(shims[shims["variant"] == "n=5"]["value"]) == {5.0}
    assert set(shims[shims["variant"] == "n=0"]["value"]) == {0.0}

    table = pod_analysis.phase_table(res.df)
    print(
        "\n[kubernetes] apply → Ready, mediana",
        round(summary["pod"].median, 1),
        "ms; docker run",
        round(summary["docker"].median, 1),
        "ms",
    )
    print(table[["fase", "mediana_ms", "fraccion"]].round(3).to_string(index=False))
    print(pod_analysis.components(res.df).round(1).to_string(index=False))
    print(bill.round(0).to_string())
    assert kubernetes_host.leftovers() == []
