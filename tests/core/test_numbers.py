"""helpers.view.numbers: the one number format of the course."""

from __future__ import annotations

from helpers.view import numbers


def test_a_value_that_rounds_to_zero_has_no_sign():
    assert numbers.num(-0.3) == "0" and numbers.num(-0.04, 1) == "0.0"
    assert numbers.num(-0.6) == "−1" and numbers.num(-0.06, 1) == "−0.1"
    assert numbers.fmt_value_interval(-0.3, -1.2, 3.4, "ms") == "0 ms [−1, 3]"
