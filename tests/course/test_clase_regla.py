"""The class rule (helpers/clase/rule.py): its error and power by seeded simulation at 2, 10, 30 and 60
machines, the figures the page prints recomputed (helpers/clase/power.py), the interval of the typical
machine, and which machines enter (their own run's claim, never a run under load)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from helpers import clase, results, stats
from helpers.clase import deferred, power, rule
from helpers.experiments import verdict as vd
from helpers.view import clase as vista
from tests.course.test_clase import llamadas_rows, write_run


def test_the_table_the_page_prints_is_what_the_rule_does():
    """One source of truth: the seeded simulation recomputed here gives SIMULATED and COVERAGE exactly
    (a change of the rule that moves a figure fails until the table is regenerated), and the page's
    table is built from them."""
    assert power.simulate() == power.SIMULATED
    assert power.coverage() == power.COVERAGE
    frame = vista._simulated_frame()
    confirm, refute = power.SIMULATED[("entre_cpus", "verdadera")][60]
    row = frame[frame["Caso"] == power.SCENARIO_WORDS["verdadera"]].iloc[0]
    assert (
        f"se confirma {confirm:.2f}" in row["60 máquinas"]
        and f"no se sostiene {refute:.2f}" in row["60 máquinas"]
    )
    assert len(frame) == len(power.MODELS) * len(power.SCENARIOS)


@pytest.mark.parametrize("model", sorted(power.MODELS))
def test_a_true_claim_grows_surer_with_the_class_and_a_share_apart_is_seen(model):
    table = {scenario: power.SIMULATED[(model, scenario)] for scenario in power.SCENARIOS}
    true = table["verdadera"]
    # confirmed at least as often with 60 machines as with 30 and with 10; two decide nothing
    assert true[60][0] >= true[30][0] >= true[10][0] >= 0.9 and true[2] == (0.0, 0.0)
    for scenario in ("verdadera", "bajo_carga_30"):  # a false «no se sostiene» stays within 5 %
        assert all(refute <= 0.05 for _confirm, refute in table[scenario].values()), scenario
    # the claim off by one margin: refuted from 10 machines on, never confirmed
    assert all(table["un_margen_fuera"][m] == (0.0, 1.0) for m in (10, 30, 60))
    # a fifth of the machines apart is seen from 30 machines on, a tenth at 60
    assert table["apartadas_20"][30][1] >= 0.9 and table["apartadas_20"][60][1] >= 0.9
    assert table["apartadas_10"][60][1] >= 0.9
    # machines under load do not vote: the class behaves as the quiet machines alone
    assert table["bajo_carga_30"][60] == true[60]


def test_the_typical_machines_interval_covers_95_percent():
    draws = power.COVERAGE_DRAWS
    for law, by_size in power.COVERAGE.items():
        for m, covered in by_size.items():
            assert covered >= stats.LEVEL - 3 * (stats.LEVEL * (1 - stats.LEVEL) / draws) ** 0.5, (law, m)


def test_each_simulated_machine_is_judged_as_an_experiment_judges_it():
    rng = np.random.default_rng(1)
    rounds = rng.lognormal(0, 0.1, (5, power.ROUNDS))
    values, lows, highs = power.machine_figures(rounds)
    for i in range(5):
        assert stats.median_ci(rounds[i]).triple == (values[i], lows[i], highs[i])


def test_apart_threshold_is_the_exact_binomial_test():
    for m in (2, 6, 10, 30, 40, 60):
        k = rule.apart_threshold(m)
        assert sps.binom.sf(k - 1, m, rule.SIDE_MISS) <= rule.ALPHA_SIDE
        assert k == 1 or sps.binom.sf(k - 2, m, rule.SIDE_MISS) > rule.ALPHA_SIDE
    assert rule.apart_threshold(1) == 2  # one machine alone never says «more than chance»


def test_two_machines_apart_on_the_same_side_refute_and_never_confirm():
    said = power.RATIO_SAID
    judged = rule.ClassRule(said).judge(["a", "b"], [1.6, 1.7], [1.5, 1.6], [1.7, 1.8])
    assert judged.above == ["a", "b"] and judged.status == vd.NO_SE_SOSTIENE
    inside = rule.ClassRule(said).judge(["a", "b"], [1.0, 1.01], [0.98, 0.99], [1.02, 1.03])
    assert inside.status == vd.SIN_DATOS and inside.typical.more_reps == rule.MIN_MACHINES


def test_how_many_machines_the_spread_seen_needs():
    said = power.RATIO_SAID
    tight = rule.ClassRule(said)
    values = np.array([0.98, 1.0, 1.01, 1.03])
    needed = power.machines_needed(tight, values, values - 0.02, values + 0.02)
    assert needed.machines == rule.MIN_MACHINES and needed.seen == 4
    # machines right on the margin's edge (1.25×), none apart: no class of a reasonable size decides
    edge = np.array([1.22, 1.25, 1.28, 1.24, 1.26, 1.27])
    assert power.machines_needed(tight, edge, edge * 0.9, edge * 1.1).machines is None
    # half the machines clearly apart: a dozen machines say «no se sostiene»
    split = np.array([1.0, 1.6, 0.95, 1.7, 1.05, 1.55])
    assert power.machines_needed(tight, split, split * 0.8, split * 1.25).machines <= 15
    assert power.machines_needed(tight, [1.0], [0.9], [1.1]) is None  # no spread seen yet


def loaded_rows(host=100.0, overhead=0.26, reps=8):
    """A getpid run whose machine was busy in most rounds (CPU pressure 0-40 %): no interval to claim."""
    rows = llamadas_rows(host=host, overhead=overhead, reps=reps)
    pressure = [0.0, 40.0, 35.0, 38.0, 42.0, 37.0, 2.0, 39.0]
    return rows + [
        (results.MACHINE, "", "", rep, results.LOAD_PRESSURE, pressure[rep - 1], "%")
        for rep in range(1, reps + 1)
    ]


def test_a_machine_whose_own_run_was_under_load_does_not_enter(tmp_path):
    """05's own claim on a busy machine is «bajo carga» (its load reaches the claim from raw.csv): that
    machine is listed with its reason and its figure never reaches the class."""
    root = tmp_path / "carga"
    for i in range(1, 7):
        write_run(root / f"pc-{i}", "llamadas", llamadas_rows(host=80 + i, overhead=0.26), host=f"pc-{i}")
    write_run(root / "ocupada", "llamadas", loaded_rows(overhead=3.0), host="ocupada")
    verdict = deferred.across_cpus(clase.recolectar(root))
    assert verdict.per_machine["ocupada"].status == vd.BAJO_CARGA
    assert verdict.left_out == {"ocupada": vd.BAJO_CARGA} and "ocupada" not in verdict.judgement.figures
    assert verdict.judgement.machines == 6 and verdict.status == vd.SE_CONFIRMA
