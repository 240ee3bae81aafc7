"""Experiment 1 against the real Docker and Podman engines."""

import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import PROJECT_ROOT, engines, results
from helpers import measure as measure_mod
from helpers.experiments import arranque
from helpers.experiments.arranque import measure as arranque_measure
from helpers.experiments.arranque.analysis import summarize
from helpers.experiments.arranque.measure import METRIC

pytestmark = pytest.mark.engines


def test_a_small_run_measures_every_combination_and_records_real_images(container_engines):
    res = arranque.run(arranque.config(repeticiones=2, calentamiento=1, motores=container_engines))
    assert res.status == "complete"
    combos = set(zip(res.df.engine, res.df.variant))
    assert {("bare", "proceso"), ("bare", "metodo_semilla"), ("bare", "builtin")} <= combos
    for name in container_engines:
        used = res.meta["images"][name]
        assert set(used) == {"ubuntu", "alpine"}
        for _role, info in used.items():
            assert info["id"] and info["size_bytes"] > 0
            # The row holds the image's real name, which the engine really has.
            assert engines.get_engine(name).image_info(info["name"]) is not None
            rows = res.df[(res.df.engine == name) & (res.df.image == info["name"])]
            # 2 repetitions in each network condition, and the first launch of each (kept apart)
            assert (rows.metric == METRIC).sum() == 2 * len(arranque_measure.NETWORK_VARIANTS)
            assert (rows.metric == arranque_measure.FIRST_METRIC).sum() == len(
                arranque_measure.NETWORK_VARIANTS
            )
        assert res.meta["engines"][name]["server_version"]
        assert res.meta["cleanup_leftovers"][name] == 0
    # Repetitions are interleaved: every arm's rep 1 comes before any arm's rep 2.
    reps = list(res.df["rep"])
    assert reps == sorted(reps)
    # A container launch costs far more than spawning a process (ratio within this run).
    s = summarize(res.df, res.meta)
    assert (s[s.engine != "bare"]["x_bare"] > 5).all()


def test_containers_carry_the_project_label(docker_engine):
    argv = docker_engine.run_argv("x", ["true"], run_id="r1", name="n1")
    assert "--label" in argv and "curso-contenedores=1" in argv and "curso-contenedores.run=r1" in argv


def _interrupt_while_a_container_runs(monkeypatch, engine_name):
    """Fault injection: the 1st container launch of `engine_name` starts a real long-lived labelled
    container, then Ctrl-C arrives while it runs (as it would in the middle of `docker run`)."""
    real = measure_mod.time_command
    seen = {}

    def launch_then_interrupt(argv, env=None):
        if argv[0] != engine_name:
            return real(argv, env)
        argv = list(argv)
        argv[argv.index("echo") :] = ["sleep", "60"]
        cli = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        run_label = argv[argv.index("--label", argv.index("--label") + 1) + 1]
        run_id = run_label.split("=", 1)[1]
        engine = engines.get_engine(engine_name)
        deadline = time.monotonic() + 30
        while not engine.list_labelled(run_id) and time.monotonic() < deadline:
            time.sleep(0.2)
        seen["running"] = engine.list_labelled(run_id)
        seen["run_id"] = run_id
        measure_mod.stop_child(cli.pid)  # what spawn_and_wait does to its child on Ctrl-C
        cli.returncode = -9  # reaped by stop_child
        raise KeyboardInterrupt

    monkeypatch.setattr(measure_mod, "time_command", launch_then_interrupt)
    return seen


@pytest.mark.parametrize("engine_name", ["docker", "podman"])
def test_ctrl_c_removes_the_running_container_and_keeps_rows(engine_name, monkeypatch, results_tmp):
    from tests.conftest import require_engine

    require_engine(engine_name)
    seen = _interrupt_while_a_container_runs(monkeypatch, engine_name)
    with pytest.raises(KeyboardInterrupt):
        arranque.run(arranque.config(repeticiones=3, calentamiento=0, motores=[engine_name]))
    assert seen["running"], "the injected container never started"
    engine = engines.get_engine(engine_name)
    assert engine.list_labelled(seen["run_id"]) == []
    run_dir = results.list_runs("arranque")[-1]
    df, meta = results.load_run(run_dir)
    assert meta["status"] == "interrupted"
    assert meta["cleanup_leftovers"] == {engine_name: 0}
    # Kept: the bare-metal rows measured before the first container step, wherever the round's
    # shuffled order (its seed is in meta.json) put that step.
    steps = measure_mod.round_robin(meta["arms"], 3, 0, seed=meta["shuffle_seeds"]["rondas"])
    before = next(i for i, s in enumerate(steps) if s.arm["engine"] != "bare")
    assert len(df) == before and set(df["engine"]) <= {"bare"}


def test_real_sigint_to_a_headless_run_cleans_up(container_engines, results_tmp):
    """A real Ctrl-C (SIGINT) sent to a Python process running experiment 1."""
    code = (
        "from helpers.experiments import arranque\n"
        f"arranque.run(arranque.config(repeticiones=50, calentamiento=0, motores={container_engines!r}))\n"
    )
    env = dict(os.environ, CURSO_RESULTADOS=str(results_tmp))
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    run_dir = None
    while time.monotonic() < deadline:
        run_dir = (results.list_runs("arranque", results_tmp) or [None])[-1]
        if run_dir and len(results.measurements(results.read_raw(run_dir / "raw.csv"))) >= 8:
            break
        time.sleep(0.2)
    assert run_dir is not None, "the run never started"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    df, meta = results.load_run(run_dir)
    assert meta["status"] == "interrupted"
    assert len(df) >= 8
    for name in container_engines:
        assert engines.get_engine(name).list_labelled(meta["run_id"]) == []
