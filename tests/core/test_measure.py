import pytest

from helpers import measure
from helpers.errors import ComandoFallido


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
