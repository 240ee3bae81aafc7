"""helpers.stats: the median's order-statistic interval, figures paired by round, independent arms,
summaries and published ranges, on constructed data. (Coverage by simulation: test_coverage.py.)"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from helpers import stats


# ---------------------------------------------------------------- the order-statistic interval
def test_the_minimum_is_six_values_because_min_max_of_six_covers_the_median_96_9_percent():
    assert stats.MIN_N == 6
    assert stats.order_k(5) == 0 and stats.order_k(6) == 1
    assert stats.coverage(6) == pytest.approx(1 - 2 / 2**6)  # 96.9 %
    assert math.isnan(stats.coverage(5))


@pytest.mark.parametrize("n", range(6, 60))
def test_order_k_is_the_largest_k_that_keeps_95_percent(n):
    k = stats.order_k(n)
    assert 1 - 2 * sps.binom.cdf(k - 1, n, 0.5) >= 0.95  # reaches the level
    assert 1 - 2 * sps.binom.cdf(k, n, 0.5) < 0.95  # one step narrower does not
    assert stats.coverage(n) >= 0.95


def test_scipys_quantile_test_gives_the_same_interval():
    """The same distribution-free interval as SciPy's own quantile test (a second path)."""
    rng = np.random.default_rng(7)
    for n in (6, 9, 10, 17, 30):
        x = rng.lognormal(0, 1, n)
        ci = sps.quantile_test(x, p=0.5).confidence_interval(0.95)
        assert stats.median_ci(x).interval == pytest.approx((ci.low, ci.high))


def test_median_ci_is_nan_below_the_minimum_and_min_max_at_it():
    assert all(math.isnan(v) for v in stats.median_ci([1, 2, 3, 4, 5]).interval)
    assert stats.median_ci([6, 1, 5, 2, 4, 3]).interval == (1.0, 6.0)
    assert stats.median_ci([float("nan")] + list(range(1, 7))).interval == (1.0, 6.0)  # NaN dropped
    lo, hi = stats.median_ci(range(1, 11)).interval
    assert (lo, hi) == (2.0, 9.0)  # k = 2 with 10 values


def test_summary_of_known_values():
    s = stats.summarize([1, 2, 3, 4, 100, 5])
    assert (s.n, s.median, s.minimum) == (6, 3.5, 1)
    assert (s.q1, s.q3) == pytest.approx((2.25, 4.75))  # linear (type 7) quantiles
    assert (s.ci_low, s.ci_high) == (1, 100)
    few = stats.summarize([1, 2, 3])
    assert few.median == 2 and math.isnan(few.ci_low)  # no interval called 95 % below six values
    assert math.isnan(stats.summarize([]).median)


def test_iqr_matches_numpy_linear_method():
    values = np.random.default_rng(1).normal(10, 2, 37)
    assert stats.iqr(values) == pytest.approx(tuple(np.quantile(values, [0.25, 0.75])))


# ---------------------------------------------------------------- paired by round
def _rounds(a, b, start=1):
    index = range(start, start + len(a))
    return pd.Series(a, index=index, dtype=float), pd.Series(
        b, index=range(start, start + len(b)), dtype=float
    )


def test_a_drift_shared_by_each_round_cancels_in_the_paired_ratio():
    rng = np.random.default_rng(2)
    drift = np.exp(rng.normal(0, 0.5, 10))  # the machine's load, round by round
    a, b = 2 * drift * rng.normal(1, 0.01, 10), drift * rng.normal(1, 0.01, 10)
    paired = stats.ratio_ci(*_rounds(a, b)).triple
    independent = stats.ratio_ci(a, b).triple
    assert paired[1] <= 2 <= paired[2] and paired[2] - paired[1] < 0.1
    assert independent[2] - independent[1] > 4 * (paired[2] - paired[1])  # ignoring rounds: far wider


def test_paired_samples_align_on_their_common_rounds():
    a = pd.Series([10.0, 20, 30, 40, 50, 60, 70], index=[1, 2, 3, 4, 5, 6, 7])
    b = pd.Series([5.0, 10, 15, float("nan"), 25, 30, 35, 99], index=[1, 2, 3, 4, 5, 6, 7, 8])
    assert stats.n_of(a, b) == 6  # round 4 lacks b, round 8 lacks a
    assert stats.ratio_ci(a, b).triple == (2.0, 2.0, 2.0)
    value, low, high = stats.difference_ci(a, b, percent=True).triple
    assert (value, low, high) == (100.0, 100.0, 100.0)
    value, low, high = stats.difference_ci(a, b).triple
    assert value == pytest.approx(np.median([5, 10, 15, 25, 30, 35])) and (low, high) == (5, 35)


def test_several_values_of_one_round_count_once():
    a = pd.Series([1.0, 3.0] + [2.0] * 6, index=[1, 1, 2, 3, 4, 5, 6, 7])
    b = pd.Series([1.0] * 7, index=range(1, 8))
    assert stats.n_of(a, b) == 7
    assert stats.ratio_ci(a, b).triple[0] == 2.0


def test_paired_below_the_minimum_has_a_figure_but_no_interval():
    value, low, high = stats.ratio_ci(*_rounds([2, 4, 6], [1, 2, 3])).triple
    assert value == 2 and math.isnan(low) and math.isnan(high)


def test_a_figure_of_three_arms_is_computed_round_by_round():
    p, d, r = (pd.Series(v, index=range(1, 8), dtype=float) for v in ([3] * 7, [5] * 7, [1] * 7))
    assert stats.figure_ci(lambda p, d, r: (p - r) / (d - r), p, d, r).triple == (0.5, 0.5, 0.5)


# ---------------------------------------------------------------- independent arms
def test_independent_ratio_separates_a_real_difference_and_contains_one_for_noise():
    rng = np.random.default_rng(3)
    r, lo, hi = stats.ratio_ci(rng.normal(200, 5, 30), rng.normal(100, 5, 30)).triple
    assert 1.8 < lo <= r <= hi < 2.2
    r, lo, hi = stats.ratio_ci(rng.normal(100, 5, 30), rng.normal(100, 5, 30)).triple
    assert lo < 1 < hi
    x, y = rng.normal(300, 5, 12), rng.normal(200, 5, 12)
    diff = stats.difference_ci(x, y).triple
    assert diff == stats.difference_ci(x, y).triple  # no resampling: the same every time
    assert diff[0] == pytest.approx(np.median(x) - np.median(y)) and 80 < diff[1] < diff[0] < diff[2] < 120


def test_independent_arms_below_the_minimum_have_no_interval():
    value, lo, hi = stats.ratio_ci([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]).triple
    assert value == 2 and math.isnan(lo) and math.isnan(hi)


def test_nothing_to_divide_is_nan_not_a_crash():
    assert all(math.isnan(v) for v in stats.ratio_ci([], [1.0]).triple)
    assert all(math.isnan(v) for v in stats.ratio_ci([1.0, 2.0, 3.0], [0.0, 0.0, 1.0]).triple)
    value, lo, hi = stats.figure_ci(lambda x, y: x / y, [1.0] * 6, [0.0] * 6).triple
    assert math.isnan(lo) and math.isnan(hi)


# ---------------------------------------------------------------- published figures
def test_a_published_range_is_a_range_and_repetitions_are_summarised():
    rows = pd.DataFrame(
        [
            ("tabla", "docker", "", "seccomp", 1, "sobrecarga", 24.0, "%"),
            ("tabla", "docker", "", "seccomp", 2, "sobrecarga", 28.0, "%"),
            ("corrida", "docker", "", "seccomp", 1, "sobrecarga", 11.0, "%"),
        ]
        + [("capitulo", "bare", "", "x", r, "t", float(r), "ms") for r in range(1, 11)],
        columns=["source", "engine", "image", "variant", "rep", "metric", "value", "unit"],
    )
    out = stats.published(rows, ranges={"tabla"}).set_index("source")
    assert tuple(out.loc["tabla", ["low", "high", "value", "forma"]]) == (24.0, 28.0, 26.0, "rango")
    assert out.loc["tabla", "n"] == 0  # never resampled
    assert out.loc["corrida", "forma"] == "cifra" and math.isnan(out.loc["corrida", "low"])
    assert tuple(out.loc["capitulo", ["value", "low", "high", "n"]]) == (5.5, 2.0, 9.0, 10)


# ---------------------------------------------------------------- the method, where a reader finds it
def test_every_run_records_the_method_in_meta_json(results_tmp):
    import json

    from helpers.experiments import runner

    with runner.experiment_run("estadistica", {}, ["bare"], log=lambda s: None) as ctx:
        folder = ctx.run.dir
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    method = meta["estadistica"]
    assert method == json.loads(json.dumps(stats.method()))
    assert method["repeticiones_minimas"] == stats.MIN_N and method["nivel"] == 0.95
    assert set(method["cobertura_probada"]) == set(stats.TESTED_COVERAGE)
    assert all(v >= 0.93 for by_n in stats.TESTED_COVERAGE.values() for v in by_n.values())


def test_como_medimos_shows_the_method_and_only_the_margins_a_notebook_uses(monkeypatch):
    import IPython.display

    from helpers.experiments import anatomia
    from helpers.view import common

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    assert common.como_medimos(anatomia, completo=True) is None  # notebook 01's: the method, once
    text, frame = shown[0].data, shown[-1].data
    worst6 = min(by_n[6] for by_n in stats.TESTED_COVERAGE.values() if 6 in by_n)
    assert "Cómo medimos" in text and f"{common.num(100 * worst6, 1)} %" in text
    kinds = {s.kind for s in anatomia.SAID}
    assert len(frame) == len(kinds) and len(common.margins_frame()) > len(kinds)
    shown.clear()
    common.como_medimos(anatomia)  # every other notebook links to it instead
    assert not any("Cómo medimos" in str(getattr(obj, "data", "")) for obj in shown)
    assert len(shown[-1].data) == len(kinds)


# ---------------------------------------------------------------- the Estimate every interval function returns
def test_an_estimate_says_its_n_its_method_and_whether_it_was_paired():
    paired = stats.ratio_ci(*_rounds([2.0] * 7, [1.0] * 7))
    assert (paired.n, paired.method, paired.paired) == (7, stats.ORDER, True)
    independent = stats.difference_ci([3.0] * 8, [1.0] * 6)
    assert (independent.n, independent.method, independent.paired) == (6, stats.BOX, False)
    one = stats.median_ci(range(1, 11))
    assert (one.value, one.n, one.method, one.paired) == (5.5, 10, stats.ORDER, False)
    none = stats.Estimate.missing(n=4)
    assert none.n == 4 and all(math.isnan(v) for v in none.triple) and not none.has_interval
    assert stats.ratio_ci([], [1.0]).n == 0
