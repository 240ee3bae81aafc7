"""helpers.measure: rounds in a seeded order of their own (experiment 4 uses them). The statistics are
tested in test_stats.py."""

from __future__ import annotations

from helpers import measure


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
