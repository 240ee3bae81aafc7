import numpy as np
import pytest

from helpers import measure
from helpers.errors import ComandoFallido


def test_summary_of_known_values():
    values = [1, 2, 3, 4, 100]
    s = measure.summarize(values)
    assert s.n == 5
    assert s.median == 3
    assert s.minimum == 1
    assert (s.q1, s.q3) == (2, 4)  # linear (type 7) quantiles
    assert s.ci_low <= s.median <= s.ci_high


def test_iqr_matches_numpy_linear_method():
    rng = np.random.default_rng(1)
    values = rng.normal(10, 2, 37)
    assert measure.iqr(values) == pytest.approx(tuple(np.quantile(values, [0.25, 0.75])))


def test_bootstrap_median_interval_is_reproducible_and_narrows_with_more_data():
    rng = np.random.default_rng(2)
    small = rng.normal(100, 10, 10)
    large = rng.normal(100, 10, 400)
    a = measure.bootstrap_median_ci(small)
    assert a == measure.bootstrap_median_ci(small)  # seeded
    b = measure.bootstrap_median_ci(large)
    assert (b[1] - b[0]) < (a[1] - a[0])
    assert b[0] < 100 < b[1]


def test_ratio_interval_separates_a_real_difference_and_contains_one_for_noise():
    rng = np.random.default_rng(3)
    slow = rng.normal(200, 5, 30)
    fast = rng.normal(100, 5, 30)
    r, lo, hi = measure.bootstrap_ratio_ci(slow, fast)
    assert lo > 1.8 and hi < 2.2 and lo <= r <= hi
    same_a, same_b = rng.normal(100, 5, 30), rng.normal(100, 5, 30)
    r, lo, hi = measure.bootstrap_ratio_ci(same_a, same_b)
    assert lo < 1 < hi


def test_empty_and_single_values():
    assert np.isnan(measure.summarize([]).median)
    assert measure.bootstrap_median_ci([5.0]) == (5.0, 5.0)
    assert all(np.isnan(v) for v in measure.bootstrap_ratio_ci([], [1.0]))


def test_round_robin_interleaves_and_puts_warmups_first():
    steps = measure.round_robin(["A", "B", "C"], repetitions=2, warmup=1)
    assert [(s.arm, s.rep, s.warmup) for s in steps] == [
        ("A", 1, True),
        ("B", 1, True),
        ("C", 1, True),
        ("A", 1, False),
        ("B", 1, False),
        ("C", 1, False),
        ("A", 2, False),
        ("B", 2, False),
        ("C", 2, False),
    ]


def test_spawn_times_a_real_process_and_a_longer_one_takes_longer():
    quick = min(measure.time_command(["true"]) for _ in range(5))
    slow = min(measure.time_command(["sleep", "0.05"]) for _ in range(3))
    assert quick > 0
    assert slow > quick  # ratio within one run; no absolute threshold


def test_failed_command_raises_with_its_stderr():
    with pytest.raises(ComandoFallido) as err:
        measure.time_command(["sh", "-c", "echo algo salió mal >&2; exit 3"])
    assert "código 3" in str(err.value) and "algo salió mal" in str(err.value)


def test_ratio_against_a_zero_median_is_not_a_number_instead_of_a_crash():
    r, lo, hi = measure.bootstrap_ratio_ci([1.0, 2.0, 3.0], [0.0, 0.0, 1.0])
    assert np.isnan(r) and np.isnan(lo) and np.isnan(hi)
