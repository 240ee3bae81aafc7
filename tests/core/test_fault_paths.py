"""Fault paths of a run, against a fake engine (tests/core/fake_engine.py): an engine that dies mid-run,
one that hangs, one that answers slowly. No daemon is touched; the real-daemon version of the first case
is test_robustez.py (a throwaway dockerd killed mid-run)."""

from __future__ import annotations

import json
import time

import pytest

from helpers import engines as eng
from helpers import measure, results
from helpers.engines import registry
from helpers.errors import ComandoFallido
from helpers.experiments import runner

from .fake_engine import FakeEngine

TOY_TIMEOUT = 1.0  # seconds the toy arm gives one command before its watchdog stops it


def _toy_measure(arm):
    """The toy arm: time one command handed out by the engine, with a short watchdog."""
    engine = eng.get_engine(arm.engine)
    argv = engine.run_argv("curso/juguete", ["true"], run_id=None)
    elapsed, code, stderr = measure.spawn_and_wait(argv, env=engine.env(), timeout=TOY_TIMEOUT)
    if code != 0:
        raise measure.command_failed(argv, code, stderr)
    return [("arranque", elapsed / 1e6, "ms")]


def _run(fakes: dict[str, FakeEngine], repetitions: int) -> tuple[dict, object, list[str]]:
    lines: list[str] = []
    with registry.substituted("docker", fakes["docker"]), registry.substituted("podman", fakes["podman"]):
        with runner.experiment_run("fallos", {}, ["docker", "podman"], log=lines.append) as ctx:
            arms = [runner.Arm(name, "juguete", "curso/juguete") for name in ("docker", "podman")]
            runner.measure_rounds(ctx, arms, repetitions=repetitions, warmup=0, measure=_toy_measure)
            run_dir = ctx.run.dir
    meta = json.loads((run_dir / "meta.json").read_text())
    return meta, results.load_run(run_dir)[0], lines


def test_substituted_engine_is_returned_and_the_real_one_comes_back():
    real = eng.get_engine("docker")
    fake = FakeEngine("docker")
    with registry.substituted("docker", fake):
        assert eng.get_engine("docker") is fake
        eng.reset_cache()  # forgetting the shared adapters keeps what a test put in place
        assert eng.get_engine("docker") is fake
    assert eng.get_engine("docker") is not fake
    assert type(eng.get_engine("docker")) is type(real)


def test_install_returns_what_was_there_and_none_restores_the_real_engine():
    first, second = FakeEngine("podman"), FakeEngine("podman")
    try:
        assert registry.install("podman", first) is None
        assert registry.install("podman", second) is first
        assert eng.get_engine("podman") is second
    finally:
        registry.install("podman", None)
    assert not isinstance(eng.get_engine("podman"), FakeEngine)


def test_an_engine_that_dies_mid_run_leaves_a_partial_run_and_the_other_goes_on(results_tmp):
    fakes = {"docker": FakeEngine("docker", die_at=3), "podman": FakeEngine("podman")}
    meta, rows, lines = _run(fakes, repetitions=4)
    assert meta["status"] == results.STATUS_PARTIAL and "Docker" in meta["reason"]
    assert (rows["engine"] == "docker").sum() == 2, "las filas medidas antes de perder el motor se guardan"
    assert (rows["engine"] == "podman").sum() == 4, "Podman debía completar sus 4 repeticiones"
    lost = meta["engines_lost"]["docker"]
    assert "no responde" in lost["error"] and "connection refused" in lost["detalle"]
    said = [line for line in lines if "dejó de responder" in line]
    assert len(said) == 1 and "Podman sigue midiendo" in said[0]
    assert not any("Traceback" in line or "ComandoFallido" in line for line in lines)
    assert fakes["docker"].forgotten >= 1, "un motor perdido olvida lo que sabía (disponibilidad, clientes)"


def test_a_hung_engine_is_stopped_by_the_watchdog_with_a_spanish_error(results_tmp):
    fakes = {"docker": FakeEngine("docker", hang_at=2, hang_seconds=60), "podman": FakeEngine("podman")}
    start = time.monotonic()
    meta, rows, lines = _run(fakes, repetitions=3)
    assert time.monotonic() - start < 30, "el cronómetro debía cortar el comando colgado"
    assert meta["status"] == results.STATUS_PARTIAL
    error = meta["engines_lost"]["docker"]["error"]
    assert f"no terminó en {TOY_TIMEOUT:.0f} s" in error and "colgado" in error
    assert (rows["engine"] == "docker").sum() == 1 and (rows["engine"] == "podman").sum() == 3
    said = [line for line in lines if "dejó de responder" in line]
    assert len(said) == 1 and "colgado" in said[0]


def test_a_hung_command_of_an_engine_that_still_answers_fails_the_run_in_spanish(results_tmp):
    class HangsButAnswers(FakeEngine):
        def healthy(self, timeout=10.0):
            return True  # the engine answers: the command itself is what hangs

    fakes = {"docker": HangsButAnswers("docker", hang_at=1), "podman": FakeEngine("podman")}
    with pytest.raises(ComandoFallido, match="el motor parece colgado"):
        _run(fakes, repetitions=2)
    run_dir = results.list_runs("fallos", results_tmp)[-1]
    meta = results.read_meta(run_dir)
    assert meta["status"] == results.STATUS_FAILED and "no terminó" in meta["reason"]


def test_slow_answers_still_complete(results_tmp):
    delay = 0.3
    fakes = {"docker": FakeEngine("docker", delay=delay), "podman": FakeEngine("podman", delay=delay)}
    meta, rows, lines = _run(fakes, repetitions=3)
    assert meta["status"] == results.STATUS_COMPLETE and not meta.get("engines_lost")
    assert len(rows) == 6 and (rows["value"] >= delay * 1000).all()
    assert not any("dejó de responder" in line for line in lines)
