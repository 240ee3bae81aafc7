"""Experiment 4 (anatomy of LAUNCH) with the real tools: every rung that runs here, the process chain,
the engine's phases, and clean-up (containers, bundles, runtime state) on success, on error and on
Ctrl-C."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from helpers import images, proc_events
from helpers.experiments import anatomia
from helpers.experiments.anatomia import measure as anatomy_measure
from helpers.experiments.anatomia import phases, rungs
from helpers.experiments.anatomia import rungs as anatomia_rungs
from helpers.experiments.anatomia.chain import load_chain
from helpers.experiments.anatomia.phases import PHASE_TOTAL, PHASES
from helpers.experiments.anatomia.rungs import METRIC, NAMESPACES

pytestmark = pytest.mark.engines

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="necesita root (unshare, chroot, runc, conector de procesos)"
)
PHASE_METRICS = {m for m, _ in PHASES} | {PHASE_TOTAL}


def _temp_dirs(run_id: str) -> list[Path]:
    return sorted(Path(tempfile.gettempdir()).glob(f"curso-anatomia-*{run_id.lower()}*"))


def _only_meta() -> dict:
    (path,) = Path(os.environ["CURSO_RESULTADOS"]).glob("anatomia/*/meta.json")
    return json.loads(path.read_text())


@needs_root
def test_every_rung_runs_and_leaves_nothing_behind(container_engines, results_tmp):
    groups = [g for g in rungs.GROUPS if g != "kubernetes"]  # its own test: test_pod_cluster.py
    res = anatomia.run(
        anatomia.config(repeticiones=2, calentamiento=1, peldaños=groups, motores=container_engines)
    )
    assert res.status == "complete"
    skipped = res.meta.get("skipped_arms") or {}
    measured = set(zip(res.df["engine"], res.df["variant"]))
    expected = {
        ("bare", "proceso"),
        ("bare", "chroot"),
        ("bare", "runc_sin_netns"),
        ("bare", "runc_con_netns"),
        ("bare", "runc_overlay"),
    }
    expected |= {("bare", k) for k, _, _ in NAMESPACES}
    for engine in container_engines:
        expected |= {(engine, v) for v in ("run_sin_red", "run_red", "fases", "pool", "pool_exec", "cadena")}
    if "runsc run (gVisor)" not in skipped:
        expected.add(("bare", "runsc"))
    assert measured == expected, (expected ^ measured, skipped)
    # Two repetitions per rung (the warm-up was discarded and recorded as such).
    counts = res.df[res.df["metric"] == METRIC].groupby(["engine", "variant"]).size()
    assert (counts == 2).all()
    assert res.meta["warmup_discarded"] == 1 and "barajado" in res.meta["schedule"]
    assert set(res.df[res.df["variant"] == "fases"]["metric"]) == PHASE_METRICS
    # The process chain: the container's echo and the runtime appear for each engine.
    chain = load_chain(res)
    for engine in container_engines:
        names = set(chain[chain["engine"] == engine]["name"])
        assert "runc" in names and names & {"echo", proc_events.CONTAINER_PROCESS}, names
    if "podman" in container_engines:
        assert "conmon" in set(chain[chain["engine"] == "podman"]["name"])
    if "docker" in container_engines:  # dockerd and containerd: no new process, their CPU time instead
        daemons = chain[(chain["engine"] == "docker") & chain["start_ms"].isna()]
        assert set(daemons["name"]) == {"dockerd", "containerd"} and daemons["cpu_ms"].notna().all()
    # Clean-up: containers by label, bundles, runtime state, cidfiles.
    assert res.meta["cleanup_leftovers"] == {e: 0 for e in container_engines}
    assert _temp_dirs(res.meta["run_id"]) == []
    assert not res.meta.get("cleanup_failures")


@needs_root
def test_an_error_midway_still_removes_containers_and_bundles(monkeypatch, container_engines, results_tmp):
    real = anatomy_measure.measure_arm
    calls: dict[str, int] = {}

    def failing(arm, setup):
        calls[arm.variant] = calls.get(arm.variant, 0) + 1
        if arm.variant == "pool" and calls["pool"] > 1:  # the untimed try passes; the first round fails
            raise RuntimeError("fallo inyectado")
        return real(arm, setup)

    monkeypatch.setattr(anatomy_measure, "measure_arm", failing)
    with pytest.raises(RuntimeError, match="fallo inyectado"):
        anatomia.run(
            anatomia.config(
                repeticiones=1, calentamiento=0, peldaños=["runc", "pool"], motores=container_engines[:1]
            )
        )
    meta = _only_meta()
    assert meta["status"] == "failed" and calls["pool"] == 2  # the untimed try, then the failing round
    assert meta["cleanup_leftovers"] == {container_engines[0]: 0}  # the running pool container too
    assert _temp_dirs(meta["run_id"]) == []


@needs_root
def test_ctrl_c_during_the_warm_pool_cleans_up(monkeypatch, container_engines, results_tmp):
    real = phases.measure_pool
    calls = []

    def interrupted(engine, image, name, run_id, env):
        calls.append(name)
        if len(calls) == 1:  # the untimed try
            return real(engine, image, name, run_id, env)
        engine.create(
            image, anatomia_rungs.COMMAND, run_id=run_id, name=name + "-extra"
        )  # left for the clean-up
        raise KeyboardInterrupt

    monkeypatch.setattr(phases, "measure_pool", interrupted)
    with pytest.raises(KeyboardInterrupt):
        anatomia.run(
            anatomia.config(
                repeticiones=2,
                calentamiento=0,
                peldaños=["proceso", "runc", "pool"],
                motores=container_engines[:1],
            )
        )
    meta = _only_meta()
    assert meta["status"] == "interrupted"
    assert meta["cleanup_leftovers"] == {container_engines[0]: 0}
    assert _temp_dirs(meta["run_id"]) == []


@pytest.mark.parametrize("engine_name", ["docker", "podman"])  # both: one CLI process per phase
def test_the_phases_are_timed_apart_and_leave_no_container(engine_name, request):
    engine = request.getfixturevalue(f"{engine_name}_engine")
    image = images.resolve("alpine", engine)["name"]
    run_id = f"prueba-fases-{engine_name}"
    rows = phases.measure_phases(engine, image, f"curso-anatomia-fases-{os.getpid()}", run_id, engine.env())
    values = {m: v for m, v, _ in rows}
    assert set(values) == PHASE_METRICS
    assert values[PHASE_TOTAL] == pytest.approx(sum(values[m] for m, _ in PHASES), abs=1e-3)
    assert engine.list_labelled(run_id) == []


def test_bad_input_fails_before_launching(results_tmp):
    with pytest.raises(Exception, match="PELDAÑOS"):
        anatomia.run(anatomia.Config(peldaños=["proceso", "nada"]))
    assert not results_tmp.exists()


def test_without_root_the_namespace_and_chroot_rungs_run_in_a_user_namespace(tmp_path):
    """The argv a user without root gets (unshare -r), run as `nobody`: every namespace rung and chroot
    answer «ok» (a kernel that refuses user namespaces would make the run skip them, with the reason)."""
    import shutil
    import subprocess

    if not shutil.which("setpriv"):
        pytest.skip("falta setpriv (util-linux)")
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    for key, _, _ in NAMESPACES:
        argv = anatomia_rungs.namespace_argv(key, without_root=True)
        out = subprocess.run([*as_nobody, *argv], capture_output=True, text=True, timeout=30)
        assert (out.returncode, out.stdout.strip()) == (0, "ok"), (key, out.stderr)
    out = subprocess.run(
        [*as_nobody, "unshare", *rungs.USERNS, "chroot", "/", *anatomia_rungs.COMMAND],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (out.returncode, out.stdout.strip()) == (0, "ok"), out.stderr
