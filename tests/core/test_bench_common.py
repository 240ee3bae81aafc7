"""bench.common: how a `make bench-*` judges two paths and what it exits with (synthetic figures)."""

from __future__ import annotations

import math

from helpers import stats
from helpers.bench import anatomia, common, escala, harness, http, llamadas
from helpers.experiments import verdict


def _quiet(*_a, **_k):
    return None


def _compare(rounds, tolerance):
    return common.compare("x", rounds, unit="ms", tolerance=tolerance, names=("a", "b"), log=_quiet)


def test_rounds_are_paired_so_drift_between_rounds_does_not_count():
    # The machine slows down 3x from round to round; within each round both paths agree within 2 %.
    rounds = [([1.00 * s, 1.01 * s], [0.99 * s, 1.00 * s]) for s in (1, 3, 9, 1, 3, 9)]
    c = _compare(rounds, common.Tolerance(relative=0.05))
    assert c.ok and abs(c.ratio.value - 1.01) < 0.01 and c.ratio.has_interval


def test_a_bias_outside_the_tolerance_fails_and_inside_passes():
    rounds = [([1.2], [1.0]), ([1.21], [1.0]), ([1.19], [1.0])] * 2
    assert _compare(rounds, common.Tolerance(relative=0.10)).outside
    assert _compare(rounds, common.Tolerance(relative=0.25)).ok


def test_the_interval_decides_not_the_median():
    """The per-round ratios straddle the band's edge: the median alone (1.04) would say «inside», the
    interval says «no concluyente», and the exit code says the comparison was not decided."""
    rounds = [([r], [1.0]) for r in (0.98, 1.02, 1.03, 1.05, 1.07, 1.09)]
    c = _compare(rounds, common.Tolerance(relative=common.TIGHTEST))
    assert abs(c.ratio.value - 1.04) < 1e-9 and c.status == verdict.NO_CONCLUYENTE
    assert not c.ok and not c.outside
    assert common.exit_code([c], log=_quiet) == common.NOT_MADE


def test_too_few_rounds_give_no_interval_and_no_verdict():
    c = _compare([([1.0], [1.0])] * (stats.MIN_N - 1), common.Tolerance(relative=0.5))
    assert not c.ratio.has_interval and c.status == verdict.SIN_DATOS and not c.ok


def test_absolute_tolerance_judges_the_difference():
    rounds = [([0.95], [0.80])] * 6  # +0.15 ms: 19 % but more than 0.1 ms
    tol = common.Tolerance(absolute=0.1)
    c = _compare(rounds, tol)
    assert c.outside and math.isclose(c.difference.value, 0.15)
    assert _compare([([0.85], [0.80])] * 6, tol).ok


def test_missing_values_make_no_round_and_no_rounds_is_no_verdict():
    c = _compare([([float("nan")], [1.0])], common.Tolerance(relative=1))
    assert not c.ok and math.isnan(c.ratio.value)


def test_tolerances_are_no_wider_than_the_margins_they_back():
    for tol in (
        anatomia.TOLERANCE,
        escala.TOLERANCE,
        harness.DOCKER_TOLERANCE,
        http.TOLERANCE,
        llamadas.TOLERANCE,
    ):
        assert tol.relative is not None and tol.relative <= common.TIGHTEST


def test_exit_codes():
    est = stats.median_ci([1.0] * 6)
    ok = common.Comparison("a", 1, 1, est, est, "ms", common.Tolerance(relative=0.1), verdict.SE_CONFIRMA)
    bad = common.Comparison("b", 2, 1, est, est, "ms", common.Tolerance(relative=0.1), verdict.NO_SE_SOSTIENE)
    assert common.exit_code([ok], log=_quiet) == common.OK
    assert common.exit_code([ok, bad], ["sin docker"], log=_quiet) == common.OUTSIDE
    assert common.exit_code([ok], ["sin docker"], log=_quiet) == common.NOT_MADE
    assert common.exit_code([], log=_quiet) == common.NOT_MADE
