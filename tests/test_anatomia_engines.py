"""Experiment 4 (anatomy of LAUNCH) with the real tools: every rung that runs here, the process chain,
and clean-up (containers, bundles, runtime state) on success, on error and on Ctrl-C."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers import engines as eng
from helpers import proc_events
from helpers.engines import oci
from helpers.experiments import anatomia

pytestmark = pytest.mark.engines

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="necesita root (unshare, chroot, runc, conector de procesos)"
)


def _temp_dirs(run_id: str) -> list[Path]:
    import tempfile

    return sorted(Path(tempfile.gettempdir()).glob(f"curso-anatomia-*{run_id.lower()}*"))


@needs_root
def test_every_rung_runs_and_leaves_nothing_behind(container_engines):
    res = anatomia.run(anatomia.config(repeticiones=2, calentamiento=1, motores=container_engines))
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
    expected |= {("bare", k) for k, _, _ in anatomia.NAMESPACES}
    for engine in container_engines:
        expected |= {(engine, v) for v in ("run_sin_red", "run_red", "fases", "pool", "pool_exec", "cadena")}
    if "runsc (gVisor)" not in " ".join(skipped):
        expected.add(("bare", "runsc"))
    assert expected <= measured, (expected - measured, skipped)
    # Two repetitions per rung (the warm-up was discarded and recorded as such).
    counts = res.df[res.df["metric"] == anatomia.METRIC].groupby(["engine", "variant"]).size()
    assert (counts == 2).all()
    assert res.meta["warmup_discarded"] == 1 and "barajado" in res.meta["schedule"]
    phases = res.df[res.df["variant"] == "fases"]
    assert set(phases["metric"]) == {m for m, _ in anatomia.PHASES} | {anatomia.PHASE_TOTAL}
    # The process chain: the container's echo and the runtime appear for each engine.
    chain = anatomia.load_chain(res)
    for engine in container_engines:
        names = set(chain[chain["engine"] == engine]["name"])
        assert "runc" in names and names & {"echo", proc_events.CONTAINER_PROCESS}, names
    if "podman" in container_engines:
        assert "conmon" in set(chain[chain["engine"] == "podman"]["name"])
    if "docker" in container_engines:  # dockerd and containerd: no new process, their CPU time instead
        daemons = chain[(chain["engine"] == "docker") & chain["start_ms"].isna()]
        assert set(daemons["name"]) == {"dockerd", "containerd"} and (daemons["cpu_ms"] >= 0).all()
    # Clean-up: containers by label, bundles, runtime state, cidfiles.
    for engine in container_engines:
        assert eng.get_engine(engine).list_labelled(res.meta["run_id"]) == []
    assert res.meta["cleanup_leftovers"] == {e: 0 for e in container_engines}
    assert _temp_dirs(res.meta["run_id"]) == []
    assert not res.meta.get("cleanup_failures")


@needs_root
def test_an_error_midway_still_removes_containers_and_bundles(monkeypatch, container_engines):
    real = anatomia.measure_arm
    calls = {"n": 0}

    def failing(arm, setup):
        calls["n"] += 1
        calls[arm.variant] = calls.get(arm.variant, 0) + 1
        if arm.variant == "pool" and calls["pool"] > 1:  # the untimed try passes; the first round fails
            raise RuntimeError("fallo inyectado")
        return real(arm, setup)

    monkeypatch.setattr(anatomia, "measure_arm", failing)
    with pytest.raises(RuntimeError, match="fallo inyectado"):
        anatomia.run(
            anatomia.config(
                repeticiones=1, calentamiento=0, peldanos=["runc", "pool"], motores=container_engines[:1]
            )
        )
    meta_path = next(Path(os.environ["CURSO_RESULTADOS"]).glob("anatomia/*/meta.json"))
    meta = json.loads(meta_path.read_text())
    assert meta["status"] == "failed" and calls["n"] >= 3
    assert (
        eng.get_engine(container_engines[0]).list_labelled(meta["run_id"]) == []
    )  # the running pool one too
    assert _temp_dirs(meta["run_id"]) == []


@needs_root
def test_ctrl_c_during_the_warm_pool_cleans_up(monkeypatch, container_engines):
    real = anatomia.measure_pool
    calls = []

    def interrupted(engine, image, name, run_id, env):
        calls.append(name)
        if len(calls) == 1:  # the untimed try
            return real(engine, image, name, run_id, env)
        engine.create(image, anatomia.COMMAND, run_id=run_id, name=name + "-extra")  # left for the clean-up
        raise KeyboardInterrupt

    monkeypatch.setattr(anatomia, "measure_pool", interrupted)
    with pytest.raises(KeyboardInterrupt):
        anatomia.run(
            anatomia.config(
                repeticiones=2,
                calentamiento=0,
                peldanos=["proceso", "runc", "pool"],
                motores=container_engines[:1],
            )
        )
    meta = json.loads(next(Path(os.environ["CURSO_RESULTADOS"]).glob("anatomia/*/meta.json")).read_text())
    assert meta["status"] == "interrupted"
    assert eng.get_engine(container_engines[0]).list_labelled(meta["run_id"]) == []
    assert _temp_dirs(meta["run_id"]) == []


@needs_root
def test_runc_runs_the_bundle_with_and_without_a_network_namespace(tmp_path):
    rootfs = tmp_path / "rootfs"
    (rootfs / "bin").mkdir(parents=True)
    for d in ("proc", "dev", "sys"):
        (rootfs / d).mkdir()
    busybox = next((p for p in ("/bin/busybox", "/usr/bin/busybox") if Path(p).exists()), None)
    if busybox is None:
        pytest.skip("no hay busybox estático en el host para construir un rootfs mínimo")
    import shutil

    shutil.copy(busybox, rootfs / "bin" / "busybox")
    (rootfs / "bin" / "echo").symlink_to("busybox")
    (rootfs / "bin" / "readlink").symlink_to("busybox")
    for netns in (False, True):
        bundle = oci.make_bundle(
            rootfs, ["readlink", "/proc/self/ns/net"], network_namespace=netns, parent=tmp_path
        )
        config = json.loads((bundle.path / "config.json").read_text())
        assert any(ns["type"] == "network" for ns in config["linux"]["namespaces"]) == netns
        assert config["root"] == {"path": str(rootfs.resolve()), "readonly": True}
        out = subprocess.run(
            oci.runc_argv(bundle, f"curso-anatomia-prueba-{int(netns)}"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        host = os.readlink("/proc/self/ns/net")
        assert (out.stdout.strip() != host) == netns
        assert oci.leftover_containers(bundle) == []
        bundle.remove()
        assert not bundle.path.exists() and not bundle.state.exists()


@needs_root
def test_proc_connector_sees_a_real_process_tree():
    ok, why = proc_events.availability()
    if not ok:
        pytest.skip(why)
    cap = proc_events.capture(["sh", "-c", "sleep 0.05; true"], settle=0.1)
    assert cap.exit_code == 0 and not cap.lost
    chain = proc_events.chain(cap)
    names = [p.name for p in chain]
    assert names[0] == "sh" and "sleep" in names
    sleep = chain[names.index("sleep")]
    assert sleep.ppid == cap.root_pid
    assert 0 <= sleep.start_ms <= sleep.end_ms and sleep.end_ms - sleep.start_ms >= 40
    assert chain[0].end_ms >= sleep.end_ms


def test_docker_phases_through_the_sdk(docker_engine):
    from helpers import images

    image = images.resolve("alpine", docker_engine)["name"]
    rows = anatomia.measure_phases(
        docker_engine, image, f"curso-anatomia-fases-{os.getpid()}", "prueba-fases", docker_engine.env()
    )
    values = dict((m, v) for m, v, _ in rows)
    assert set(values) == {m for m, _ in anatomia.PHASES} | {anatomia.PHASE_TOTAL}
    assert values[anatomia.PHASE_TOTAL] == pytest.approx(sum(values[m] for m, _ in anatomia.PHASES), abs=1e-3)
    assert docker_engine.list_labelled("prueba-fases") == []


def test_podman_phases_through_the_cli(podman_engine):
    from helpers import images

    image = images.resolve("alpine", podman_engine)["name"]
    rows = anatomia.measure_phases(
        podman_engine, image, f"curso-anatomia-fases-{os.getpid()}", "prueba-fases-p", podman_engine.env()
    )
    assert all(v > 0 for _, v, _ in rows)
    assert podman_engine.list_labelled("prueba-fases-p") == []


def test_bad_input_fails_before_launching(results_tmp):
    with pytest.raises(Exception, match="PELDANOS"):
        anatomia.run(anatomia.Config(peldanos=["proceso", "nada"]))
    assert not results_tmp.exists()


def test_docker_daemons_are_the_ones_serving_this_client(docker_engine):
    procs = docker_engine.daemon_processes()
    assert len(procs["daemon"]) >= 1 and procs["containerd"]
    if os.geteuid() == 0:  # root can see which dockerd has the socket open
        assert len(procs["daemon"]) == 1
        from helpers import system

        others = {p.pid for p in system.processes_named("dockerd")} - {procs["daemon"][0].pid}
        assert not [p for p in procs["containerd"] if p.ppid() in others]
        assert docker_engine._socket_path() in eng._unix_sockets(procs["daemon"][0])
