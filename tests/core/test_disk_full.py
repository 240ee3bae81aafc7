"""A results disk that fills up in the middle of a run (fault injection: the third measurement's write
fails with ENOSPC): one Spanish sentence naming the folder and its free space, the rows already written
kept, and the run's status saying why it stopped."""

from __future__ import annotations

import errno

import pytest

from helpers import results
from helpers.experiments.runner import Resultado, SinEspacio
from tests import experimento_juguete as juguete


def test_a_full_disk_mid_run_stops_with_one_spanish_sentence(results_tmp, monkeypatch):
    real_append = results.Run.append
    calls = {"n": 0}

    def append(self, **row):
        calls["n"] += row["engine"] != results.MACHINE and row["metric"] not in results.ROUND_METRICS
        if calls["n"] == 3:  # the third measurement (the rows of the rounds in between are written)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_append(self, **row)

    monkeypatch.setattr(results.Run, "append", append)
    with pytest.raises(SinEspacio) as caught:
        juguete.run(juguete.Config.build(repeticiones=3), log=lambda _: None)
    message = str(caught.value)
    assert str(results_tmp / "juguete") in message and "MiB libres" in message
    assert "Errno" not in message and "No space" not in message  # the English stays in the detail
    assert "No space left on device" in caught.value.detail
    run_dir = next((results_tmp / "juguete").iterdir())
    res = Resultado.load(run_dir)
    assert len(res.df) == 2  # the rows measured before the disk filled are kept
    assert res.status == "failed" and "Se llenó el disco" in res.meta["reason"]


def test_other_write_errors_are_not_disguised_as_a_full_disk(results_tmp, monkeypatch):
    def append(self, **row):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(results.Run, "append", append)
    with pytest.raises(OSError) as caught:
        juguete.run(juguete.Config.build(repeticiones=2), log=lambda _: None)
    assert not isinstance(caught.value, SinEspacio)
