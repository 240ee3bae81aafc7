"""helpers.view.numbers: the one number format of the course."""

from __future__ import annotations

import pytest

from helpers import stats
from helpers.view import numbers


def test_a_value_that_rounds_to_zero_has_no_sign():
    assert numbers.num(-0.3) == "0" and numbers.num(-0.04, 1) == "0.0"
    assert numbers.num(-0.6) == "−1" and numbers.num(-0.06, 1) == "−0.1"
    assert numbers.num(-40, -2) == "0" and numbers.num(-60, -2) == "−100"


def test_a_wide_interval_of_a_ratio_keeps_two_significant_digits_of_each_number():
    # «0.54× [0.03, 3.4]» printed as «1× [0, 3]», and 07's «2× [1, 4]».
    assert numbers.fmt_ratio(0.54, 0.03, 3.4) == "0.54× [0.03, 3.4]"
    assert numbers.fmt_ratio(0.54, 0.0312, 3.4) == "0.54× [0.031, 3.4]"
    assert numbers.fmt_ratio(2.13, 1.24, 3.81) == "2.1× [1.2, 3.8]"
    assert numbers.fmt_value_interval(-0.3, -1.2, 3.4, "ms") == "−0.3 ms [−1.2, 3.4]"
    # a narrow interval is unchanged: the interval's decimals
    assert numbers.fmt_ratio(0.571, 0.54, 0.62) == "0.57× [0.54, 0.62]"
    assert numbers.fmt_value_interval(12.34, 11.9, 12.8, "ms") == "12.3 ms [11.9, 12.8]"
    given = stats.Estimate(12.34, 11.9, 12.8, n=10)
    assert numbers.fmt_value_interval(given, unit="ms") == "12.3 ms [11.9, 12.8]"
    assert numbers.fmt_value_interval(stats.Estimate.missing(n=3), unit="ms") == "—"


def test_a_large_value_is_rounded_to_what_its_interval_supports():
    # «29 946 [3 446, 89 605]» req/s
    assert (
        numbers.fmt_value_interval(29946, 3446, 89605, "req/s")
        == "30\u202f000 req/s [3\u202f400, 90\u202f000]"
    )
    assert numbers.fmt_ratio(221.76, 164.49, 241.83) == "220× [160, 240]"


def test_a_figure_without_interval_shows_two_significant_digits_without_trailing_zeros():
    nan = float("nan")
    assert numbers.fmt_value_interval(-0.4101, nan, nan, "%") == "−0.41 %"
    assert numbers.fmt_value_interval(2.0, nan, nan, "ms") == "2 ms"
    assert numbers.fmt_value_interval(1234.0, nan, nan, "ms") == "1\u202f200 ms"
    assert numbers.fmt_ratio(1.234) == "1.2×"


def test_a_ratio_keeps_its_two_digits_with_or_without_interval():
    """«0.50×» beside «0.56×» and «0.50× [0.46, 0.55]»: never «0.5×» for a measured ratio (a source's
    figure or a margin's end, written as declared, may: «de 0.4× a 0.625×»)."""
    nan = float("nan")
    assert numbers.fmt_ratio(0.5) == "0.50×" and numbers.fmt_ratio(0.556) == "0.56×"
    assert numbers.fmt_ratio(2.0) == "2.0×" and numbers.fmt_ratio(10.0) == "10×"
    assert (
        numbers.fmt_value_interval(0.5, nan, nan, "x")
        == "0.50×"
        == numbers.value_and_interval(0.5, unit="x")[0]
    )
    assert numbers.fmt_ratio(0.5, 0.46, 0.55) == "0.50× [0.46, 0.55]"
    assert numbers.fmt_margin((0.4, 0.625), "x") == "de 0.4× a 0.625×"


def test_an_extrapolated_count_is_rounded_to_two_significant_digits():
    assert numbers.approx(2054) == "2\u202f100" and numbers.approx(37) == "37" and numbers.approx(8) == "8"


def test_value_and_interval_are_the_two_parts_of_one_format():
    assert numbers.value_and_interval(12.34, 11.9, 12.8, "ms") == ("12.3 ms", "[11.9, 12.8]")
    assert numbers.value_and_interval(stats.Estimate(0.571, 0.54, 0.62, n=8), unit="x") == (
        "0.57×",
        "[0.54, 0.62]",
    )
    assert numbers.value_and_interval(-0.0041, unit="%") == ("−0.0041 %", "")
    assert numbers.value_and_interval(float("nan")) == ("—", "")


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(None, "?"), (0.4, "0 s"), (47.2, "47 s"), (122, "2 min 2 s"), (180, "3 min"), (725, "12 min")],
)
def test_durations_read_like_a_clock(seconds, words):
    assert numbers.fmt_duration(seconds) == words


def test_a_difference_of_percentages_is_written_in_points():
    """Unit «pp» (percentage points, the class comparison's distance between two overheads): signed like
    a percentage, named «puntos»."""
    assert numbers.fmt_value_interval(2.1, -0.5, 4.0, "pp") == "+2.1 puntos [−0.5, +4.0]"
    assert numbers.fmt_margin((-3.0, 3.0), "pp") == "de −3 puntos a +3 puntos"
    assert numbers.fmt_value(-15.9, "pp", 1) == "−15.9 puntos"
