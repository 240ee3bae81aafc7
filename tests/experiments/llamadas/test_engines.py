"""Experiment 5 against the real engines (gVisor included where it runs), on small sizes.

Only behaviour is asserted (rows, namespace levels, skipped arms, clean-up, statuses), never times.
Containers are found by this run's label only; other people's containers are never touched.
"""

from __future__ import annotations

import importlib
import json
import os

import pytest

from helpers import engines as eng
from helpers.experiments import llamadas as exp
from helpers.experiments import verdict
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
    as_root = os.geteuid() == 0
    for engine in engines:
        # Test C runs as root only; without it, it is skipped with its reason.
        assert ((engine, "nsenter") in measured) == as_root
        if not as_root:
            assert arm_label(engine, "nsenter") in skipped
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
        mine = {llamadas_arms.NSENTER_METRIC} if arm[1] == llamadas_arms.NSENTER else wanted
        assert {m: counts[(*arm, m)] for m in mine} == dict.fromkeys(mine, 1), arm
    assert set(df["metric"]) == wanted | ({llamadas_arms.NSENTER_METRIC} if as_root else set())
    assert leftovers(res.meta["run_id"]) == {n: [] for n in engines}


def test_test_c_enters_a_running_container_as_the_repository_did(results):
    """The nsenter arm (as root): `nsenter --target PID --pid -- /bin/true` against each engine's running
    container, in the same rounds as the probe's arms, one row per round in µs; with the seccomp arm it
    enters that very container, alone it starts its own; nothing is left behind."""
    if os.geteuid() != 0:
        pytest.skip("El «Test C» (nsenter) necesita root.")
    engines = available_engines()
    small = {**SMALL, "repeticiones": 2, "nsenter": 3}
    res = exp.run(
        exp.config(motores=engines, brazos=["host", "seccomp", "nsenter"], **small), log=lambda _: None
    )
    assert res.status == "complete" and not (res.meta.get("skipped_arms") or {})
    df = res.df
    for engine in engines:
        rows = df[(df["engine"] == engine) & (df["variant"] == llamadas_arms.NSENTER)]
        assert sorted(rows["rep"]) == [1, 2] and set(rows["metric"]) == {llamadas_arms.NSENTER_METRIC}
        assert set(rows["unit"]) == {"µs"} and (rows["value"] > 0).all()
        # Same rounds as the probe's arms: each round places the nsenter arm among the others.
        assert set(df[(df["engine"] == engine) & (df["variant"] == "seccomp")]["rep"]) == {1, 2}
    meta = res.meta["nsenter"]
    assert meta["entries"] == 3 and meta["command"] == "nsenter --target PID --pid -- /bin/true"
    assert set(meta["targets"]) == set(engines) and all(pid > 1 for pid in meta["targets"].values())
    seccomp = {a["engine"]: a for a in res.meta["arms"] if a["variant"] == "seccomp"}
    assert set(seccomp) == set(engines)
    assert all(name.endswith("-seccomp") for name in meta["containers"].values())  # that very container
    found = {c.detail.get("engine"): c for c in exp.claims(df, res.meta) if c.key == "test_c_nsenter"}
    for engine in engines:
        assert found[engine].detail[verdict.BESIDE]["unidad"] == "µs"
    assert leftovers(res.meta["run_id"]) == {n: [] for n in engines}
    # Alone, the arm starts its own container to enter.
    alone = exp.run(exp.config(motores=engines[:1], brazos=["nsenter"], **small), log=lambda _: None)
    assert alone.status == "complete" and llamadas_arms.NSENTER in set(alone.df["variant"])
    assert alone.meta["nsenter"]["containers"][engines[0]].endswith("-nsenter")
    assert leftovers(alone.meta["run_id"], engines[:1]) == {engines[0]: []}


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
