import json

import pytest

from helpers import results


def _row(run, rep, value=1.0):
    run.append(engine="bare", image="", variant="proceso", rep=rep, metric="arranque", value=value, unit="ms")


def test_rows_are_on_disk_as_soon_as_they_are_appended(tmp_path):
    run = results.Run("prueba", {"a": 1}, root=tmp_path)
    _row(run, 1)
    _row(run, 2)
    df = results.read_raw(run.raw_path)  # read while the run is still open
    assert list(df["rep"]) == [1, 2]
    assert list(df.columns) == results.COLUMNS
    run.finish(results.STATUS_COMPLETE)


def test_run_folder_layout_and_meta(tmp_path):
    with results.Run("prueba", {"REPETICIONES": 3}, root=tmp_path) as run:
        _row(run, 1)
    assert run.dir.parent == tmp_path / "prueba"
    meta = json.loads(run.meta_path.read_text())
    assert meta["status"] == "complete" and meta["rows"] == 1
    assert meta["parameters"] == {"REPETICIONES": 3}
    assert meta["started"].endswith("Z") and meta["ended"].endswith("Z")


def test_runs_never_overwrite_each_other(tmp_path):
    dirs = set()
    for _ in range(5):
        with results.Run("prueba", root=tmp_path) as run:
            _row(run, 1)
        dirs.add(run.dir)
    assert len(dirs) == 5
    assert len(results.list_runs("prueba", tmp_path)) == 5


def test_interrupted_run_keeps_rows_and_says_interrupted(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with results.Run("prueba", root=tmp_path) as run:
            _row(run, 1)
            raise KeyboardInterrupt
    df, meta = results.load_run(run.dir)
    assert meta["status"] == "interrupted" and len(df) == 1


def test_failed_run_records_the_reason(tmp_path):
    with pytest.raises(RuntimeError):
        with results.Run("prueba", root=tmp_path) as run:
            raise RuntimeError("se cayó el motor")
    meta = results.read_meta(run.dir)
    assert meta["status"] == "failed" and "se cayó el motor" in meta["reason"]


def test_latest_is_the_latest_complete_run_else_the_latest_with_rows(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with results.Run("prueba", root=tmp_path) as early:
            _row(early, 1)
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        with results.Run("prueba", root=tmp_path):
            raise KeyboardInterrupt  # before measuring: no rows
    assert results.latest("prueba", tmp_path) == early.dir  # no complete run: the latest with rows
    with results.Run("prueba", root=tmp_path) as complete:
        _row(complete, 1)
    with pytest.raises(KeyboardInterrupt):
        with results.Run("prueba", root=tmp_path) as newer:
            _row(newer, 1)
            raise KeyboardInterrupt
    assert results.list_runs("prueba", tmp_path)[-1] == newer.dir
    assert results.latest("prueba", tmp_path) == complete.dir  # a newer interrupted run never hides it
    assert results.latest("otro", tmp_path) is None


def test_runs_started_in_the_same_second_keep_their_order(tmp_path):
    made = []
    for _ in range(6):
        with results.Run("prueba", root=tmp_path) as run:
            _row(run, 1)
        made.append(run.dir)
    assert results.list_runs("prueba", tmp_path) == made
    assert results.latest("prueba", tmp_path) == made[-1]
