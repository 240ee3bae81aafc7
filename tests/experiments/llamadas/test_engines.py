"""Experiment 5 against the real engines (gVisor included where it runs), on small sizes.

Only behaviour is asserted (rows, namespace levels, skipped arms, clean-up, statuses), never times.
Containers are found by this run's label only; other people's containers are never touched.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import PROJECT_ROOT
from helpers import engines as eng
from helpers.experiments import llamadas as exp

measure = importlib.import_module("helpers.experiments.llamadas.measure")
pytestmark = pytest.mark.engines

SMALL = dict(llamadas=3000, repeticiones=1, calentamiento=0, operaciones=["getpid", "clock_gettime"])


def available_engines() -> list[str]:
    return [n for n in eng.CONTAINER_ENGINES if eng.get_engine(n).available]


def leftovers(run_id: str) -> dict[str, list[str]]:
    return {n: eng.get_engine(n).list_labelled(run_id) for n in available_engines()}


@pytest.fixture
def results(tmp_path, monkeypatch):
    if not available_engines():
        pytest.skip("No hay Docker ni Podman disponibles en esta máquina.")
    folder = tmp_path / "resultados"
    monkeypatch.setenv("CURSO_RESULTADOS", str(folder))
    return folder


def test_every_arm_runs_once_through_the_same_probe_and_cleans_up(results):
    engines = available_engines()
    res = exp.run(exp.config(motores=engines, **SMALL), log=lambda _: None)
    assert res.status == "complete"
    df, skipped = res.df, res.meta.get("skipped_arms") or {}
    measured = set(zip(df["engine"], df["variant"]))
    assert ("bare", "host") in measured
    # Nesting really happened: the probe counts its PID namespaces (NSpid) from inside.
    levels = df[df["metric"] == exp.LEVELS_METRIC].set_index(["engine", "variant"])["value"]
    for depth in (1, *exp.NESTED_DEPTHS):
        variant = f"pid:{depth}"
        if ("bare", variant) in measured:
            assert levels[("bare", variant)] == depth + 1
        else:
            assert exp.arm_label("bare", variant) in skipped, skipped
    assert levels[("bare", "host")] == 1
    for engine in engines:
        for variant in ("seccomp", "sin_seccomp"):
            assert (engine, variant) in measured
            # The container mounts its own /proc: NSpid there starts at the container's namespace.
            assert levels[(engine, variant)] == 1
        ok, _ = eng.get_engine(engine).runtime_availability("runsc")
        if ok:
            assert (engine, "gvisor") in measured
            assert res.meta["gvisor"][engine]["platform"]
        else:
            assert exp.arm_label(engine, "gvisor") in skipped
    # One repetition: every measured arm has exactly one row of each operation on each clock, and its levels.
    wanted = {
        *SMALL["operaciones"],
        *(op + exp.WALL_SUFFIX for op in SMALL["operaciones"]),
        exp.LEVELS_METRIC,
    }
    counts = df.groupby(["engine", "variant", "metric"]).size()
    for arm in measured:
        assert {m: counts[(*arm, m)] for m in wanted} == dict.fromkeys(wanted, 1), arm
    assert set(df["metric"]) == wanted
    assert leftovers(res.meta["run_id"]) == {n: [] for n in engines}


def test_containers_removed_when_a_measurement_fails(results, monkeypatch):
    real, calls = measure.run_probe, {"n": 0}

    def failing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:  # containers are up and measuring by now
            raise RuntimeError("fallo inyectado por la prueba")
        return real(*args, **kwargs)

    monkeypatch.setattr(measure, "run_probe", failing)
    with pytest.raises(RuntimeError, match="fallo inyectado"):
        exp.run(
            exp.config(
                motores=available_engines()[:1], brazos=["host", "seccomp"], **dict(SMALL, repeticiones=3)
            ),
            log=lambda _: None,
        )
    meta = json.loads(next(results.glob(f"{exp.EXPERIMENT}/*/meta.json")).read_text())
    assert meta["status"] == "failed" and "fallo inyectado" in meta["reason"]
    assert leftovers(meta["run_id"]) == {n: [] for n in available_engines()}


def test_containers_removed_on_ctrl_c(results):
    """A real SIGINT to a separate Python process in the middle of the measurements."""
    engines = available_engines()
    script = (
        "from helpers.experiments import llamadas as exp\n"
        f"exp.run(exp.config(motores={engines!r}, brazos=['host', 'seccomp', 'gvisor'], llamadas=3000, "
        "repeticiones=100, calentamiento=0, operaciones=['getpid']))\n"
    )
    env = dict(os.environ, CURSO_RESULTADOS=str(results), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        run_id, deadline = None, time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            metas = list(results.glob(f"{exp.EXPERIMENT}/*/meta.json"))
            if metas:
                meta = json.loads(metas[0].read_text())
                run_id = meta["run_id"]
                raw = metas[0].parent / "raw.csv"
                rows = len(raw.read_text().splitlines()) - 1 if raw.exists() else 0
                if rows >= 4 and all(leftovers(run_id).values()):
                    break
            time.sleep(0.3)
        assert run_id and proc.poll() is None, (
            proc.stdout.read() if proc.poll() is not None else "sin corrida"
        )
        proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0, output
    meta = json.loads(next(results.glob(f"{exp.EXPERIMENT}/*/meta.json")).read_text())
    assert meta["status"] == "interrupted" and meta["rows"] >= 4
    assert leftovers(run_id) == {n: [] for n in engines}
