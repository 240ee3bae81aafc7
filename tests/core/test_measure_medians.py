"""helpers.measure: bootstrap intervals of a difference and of any function of several medians, and
rounds in a seeded order of their own (experiment 4 uses both)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import measure


def test_bootstrap_difference_and_share_of_medians():
    rng = np.random.default_rng(3)
    a, b = rng.normal(300, 5, 40), rng.normal(200, 5, 40)
    diff, lo, hi = measure.bootstrap_diff_ci(a, b)
    assert diff == pytest.approx(np.median(a) - np.median(b))
    assert lo < diff < hi and 90 < lo and hi < 110
    assert measure.bootstrap_diff_ci(a, b) == (diff, lo, hi)  # seeded, reproducible
    share, slo, shi = measure.bootstrap_medians_ci(lambda x, y: (x - y) / x, a, b)
    assert share == pytest.approx((np.median(a) - np.median(b)) / np.median(a))
    assert slo < share < shi


def test_bootstrap_of_medians_says_nan_without_data():
    assert all(np.isnan(v) for v in measure.bootstrap_diff_ci([], [1.0, 2.0]))
    value, lo, hi = measure.bootstrap_medians_ci(lambda x, y: x / y, [1.0, 2.0], [0.0, 0.0])
    assert np.isnan(lo) and np.isnan(hi)


def test_shuffled_rounds_visit_every_arm_once_in_a_seeded_order():
    arms = list("ABCDEFGH")
    plain = measure.round_robin(arms, 3, 1)
    assert [s.arm for s in plain] == arms * 4
    steps = measure.round_robin(arms, 3, 1, shuffle_seed=7)
    assert steps == measure.round_robin(arms, 3, 1, shuffle_seed=7)  # reproducible
    rounds = [[s.arm for s in steps[i : i + 8]] for i in range(0, 32, 8)]
    assert all(sorted(r) == arms for r in rounds)
    assert len({tuple(r) for r in rounds}) > 1
    assert [s.warmup for s in steps] == [True] * 8 + [False] * 24
    assert [s.rep for s in steps[8:]] == [1] * 8 + [2] * 8 + [3] * 8
