import pytest

from helpers import measure
from helpers.errors import ComandoFallido


def test_spawn_times_a_real_process_and_a_longer_one_takes_longer():
    quick = min(measure.time_command(["true"]) for _ in range(5))
    slow = min(measure.time_command(["sleep", "0.05"]) for _ in range(3))
    assert quick > 0
    assert slow > quick  # ratio within one run; no absolute threshold


def test_failed_command_raises_with_its_stderr():
    with pytest.raises(ComandoFallido) as err:
        measure.time_command(["sh", "-c", "echo algo salió mal >&2; exit 3"])
    assert "código 3" in str(err.value) and "algo salió mal" in str(err.value)
