"""Experiment 5 against the real engines (gVisor included where it runs), on small sizes.

Only behaviour is asserted (rows, namespace levels, skipped arms, clean-up, statuses), never times.
Containers are found by this run's label only; other people's containers are never touched.
"""

from __future__ import annotations

import importlib
import json

import pytest

from helpers import engines as eng
from helpers.experiments import llamadas as exp
from helpers.experiments.llamadas import arms as llamadas_arms
from helpers.experiments.llamadas import probe as llamadas_probe
from helpers.experiments.llamadas.arms import arm_label
from helpers.experiments.llamadas.probe import WALL_SUFFIX
from tests.support import available_engines, interrupt_run, leftovers, setup_step_missing

measure = importlib.import_module("helpers.experiments.llamadas.measure")
pytestmark = pytest.mark.engines

SMALL = dict(llamadas=3000, repeticiones=1, calentamiento=0, operaciones=["getpid", "clock_gettime"])


@pytest.fixture
def results(tmp_path, monkeypatch):
    if not available_engines():
        setup_step_missing(
            "Docker o Podman instalado y en marcha", "No hay Docker ni Podman disponibles en esta máquina."
        )
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
    levels = df[df["metric"] == llamadas_probe.LEVELS_METRIC].set_index(["engine", "variant"])["value"]
    for depth in (1, *llamadas_arms.NESTED_DEPTHS):
        variant = f"pid:{depth}"
        if ("bare", variant) in measured:
            assert levels[("bare", variant)] == depth + 1
        else:
            assert arm_label("bare", variant) in skipped, skipped
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
            assert arm_label(engine, "gvisor") in skipped
    # One repetition: every measured arm has exactly one row of each operation on each clock, and its levels.
    wanted = {
        *SMALL["operaciones"],
        *(op + WALL_SUFFIX for op in SMALL["operaciones"]),
        llamadas_probe.LEVELS_METRIC,
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
    run = interrupt_run(
        "llamadas",
        dict(
            motores=engines,
            brazos=["host", "seccomp", "gvisor"],
            llamadas=3000,
            repeticiones=100,
            calentamiento=0,
            operaciones=["getpid"],
        ),
        results,
        ready=lambda meta, rows: rows >= 4 and all(leftovers(meta["run_id"]).values()),
    )
    assert run.meta["rows"] >= 4
    assert leftovers(run.run_id) == {n: [] for n in engines}
