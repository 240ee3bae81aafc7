"""bench.common: how a `make bench-*` judges two paths and what it exits with (synthetic figures)."""

from __future__ import annotations

import math

from helpers.bench import common


def _quiet(*_a, **_k):
    return None


def test_rounds_are_paired_so_drift_between_rounds_does_not_count():
    # The machine slows down 3x from round to round; within each round both paths agree within 2 %.
    rounds = [([1.00 * s, 1.01 * s], [0.99 * s, 1.00 * s]) for s in (1, 3, 9)]
    c = common.compare(
        "x", rounds, unit="ms", tolerance=common.Tolerance(relative=0.05), names=("a", "b"), log=_quiet
    )
    assert c.ok and abs(c.ratio - 1.01) < 0.01


def test_a_bias_outside_the_tolerance_fails_and_inside_passes():
    rounds = [([1.2], [1.0]), ([1.21], [1.0]), ([1.19], [1.0])]
    tol = common.Tolerance(relative=0.10)
    assert not common.compare("x", rounds, unit="ms", tolerance=tol, names=("a", "b"), log=_quiet).ok
    wider = common.Tolerance(relative=0.25)
    assert common.compare("x", rounds, unit="ms", tolerance=wider, names=("a", "b"), log=_quiet).ok


def test_absolute_tolerance_judges_the_difference():
    rounds = [([0.95], [0.80])] * 3  # +0.15 ms: 19 % but more than 0.1 ms
    tol = common.Tolerance(absolute=0.1)
    c = common.compare("x", rounds, unit="ms", tolerance=tol, names=("a", "b"), log=_quiet)
    assert not c.ok and math.isclose(c.difference, 0.15)
    rounds = [([0.85], [0.80])] * 3
    assert common.compare("x", rounds, unit="ms", tolerance=tol, names=("a", "b"), log=_quiet).ok


def test_missing_values_make_no_round_and_no_rounds_is_outside():
    c = common.compare(
        "x",
        [([float("nan")], [1.0])],
        unit="ms",
        tolerance=common.Tolerance(relative=1),
        names=("a", "b"),
        log=_quiet,
    )
    assert not c.ok and math.isnan(c.ratio)


def test_exit_codes():
    ok = common.Comparison("a", 1, 1, 1, 0, "ms", common.Tolerance(relative=0.1), True)
    bad = common.Comparison("b", 2, 1, 2, 1, "ms", common.Tolerance(relative=0.1), False)
    assert common.exit_code([ok], log=_quiet) == common.OK
    assert common.exit_code([ok, bad], ["sin docker"], log=_quiet) == common.OUTSIDE
    assert common.exit_code([ok], ["sin docker"], log=_quiet) == common.NOT_MADE
    assert common.exit_code([], log=_quiet) == common.NOT_MADE
