"""Nothing left behind, whatever kills a run (issue 9).

- orphan_reason on constructed labels (unit);
- a process killed with SIGKILL while it holds containers: the next run reaps them, while a live run's
  containers (another process) survive (real engines);
- the Docker daemon dies in the middle of a two-engine run: one Spanish line, the Podman arms complete,
  the run ends «partial» with the reason in meta.json, and once the daemon is back the next run removes
  what was left. The daemon here is a throwaway dockerd of the test's own (its own socket and data
  folder), so the machine's daemon is never touched;
- two runs in parallel from two processes both complete;
- an unwritable results folder, or a full disk, is refused before anything is launched.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import PROJECT_ROOT, images, results
from helpers import engines as eng
from helpers.engines import labels
from helpers.errors import ErrorDelCurso
from helpers.experiments import runner
from tests.support import holding_run

from ..conftest import require_engine


# ---------------------------------------------------------------- unit: who owns a container
def _labels(pid: int, **extra) -> dict:
    marks = eng.labels_for("20260101T000000Z-abcdef")
    marks[labels.LABEL_PID] = str(pid)
    marks[labels.LABEL_PID_START] = labels.start_time(pid) or "0"
    marks.update(extra)
    return marks


def test_a_live_owner_keeps_its_containers():
    assert labels.orphan_reason(eng.labels_for("x")) is None


def test_a_dead_owner_or_a_reused_pid_makes_an_orphan():
    child = subprocess.Popen(["true"])
    child.wait()
    assert "ya no existe" in labels.orphan_reason(_labels(child.pid, **{labels.LABEL_PID_START: "1.00"}))
    reused = _labels(os.getpid(), **{labels.LABEL_PID_START: "12345.00"})  # same pid, other process
    assert "ya no existe" in labels.orphan_reason(reused)


def test_another_boot_makes_an_orphan():
    assert "arranque" in labels.orphan_reason(_labels(os.getpid(), **{labels.LABEL_BOOT: "otro-arranque"}))


def test_a_finished_run_leaves_orphans_even_if_its_owner_lives(tmp_path):
    (tmp_path / "meta.json").write_text(json.dumps({"status": "partial"}))
    assert "terminó" in labels.orphan_reason(_labels(os.getpid(), **{labels.LABEL_DIR: str(tmp_path)}))
    (tmp_path / "meta.json").write_text(json.dumps({"status": "running"}))
    assert labels.orphan_reason(_labels(os.getpid(), **{labels.LABEL_DIR: str(tmp_path)})) is None


def test_containers_of_older_versions_are_reaped_only_when_old():
    old = {labels.LABEL: "1", labels.LABEL_RUN: "x"}
    assert labels.orphan_reason(old, created=time.time() - 60) is None
    assert labels.orphan_reason(old, created=time.time() - 7 * 3600) is not None


# ---------------------------------------------------------------- the results folder
def test_unwritable_results_folder_is_refused_before_launch(tmp_path, monkeypatch):
    blocker = tmp_path / "archivo"
    blocker.write_text("no soy una carpeta")
    monkeypatch.setenv("CURSO_RESULTADOS", str(blocker / "resultados"))
    launched = []
    monkeypatch.setattr(runner, "split_engines", lambda names: launched.append(names) or ([], {}))
    with pytest.raises(ErrorDelCurso, match="No puedo escribir en la carpeta de resultados"):
        with runner.experiment_run("robustez", {}, ["docker"]):
            pass
    assert not launched


def test_a_full_disk_is_refused_before_launch(tmp_path, monkeypatch):
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(results.shutil, "disk_usage", lambda p: usage._replace(free=5 * 2**20))
    with pytest.raises(ErrorDelCurso, match="muy poco espacio"):
        with runner.experiment_run("robustez", {}, ["bare"], root=tmp_path / "r"):
            pass
    assert not (tmp_path / "r" / "robustez").exists()


# ---------------------------------------------------------------- a killed kernel
HOLDER = """
import sys, time
from helpers import engines as eng
from helpers.experiments.runner import experiment_run
name = sys.argv[1]
with experiment_run("robustez", {}, [name], image_roles=["alpine"], log=lambda s: None) as ctx:
    engine = eng.get_engine(name)
    image = ctx.images[name]["alpine"]["name"]
    for k in range(2):
        engine.launch(image, ["sleep", "600"], run_id=ctx.run_id, name=ctx.container_name(name, k),
                      opts=eng.RunOptions(network="none", stop_timeout=0))
    print("LISTO", ctx.run_id, flush=True)
    time.sleep(600)
"""


def _holder(engine_name: str) -> tuple[subprocess.Popen, str]:
    proc, (run_id,) = holding_run(HOLDER, engine_name)
    return proc, run_id


@pytest.mark.engines
@pytest.mark.parametrize("engine_name", ["podman", "docker"])
def test_a_killed_run_is_reaped_and_a_live_one_is_not(engine_name, results_tmp):
    engine = require_engine(engine_name)
    victim, victim_run = _holder(engine_name)
    survivor, survivor_run = _holder(engine_name)
    try:
        victim.send_signal(signal.SIGKILL)  # as when JupyterLab restarts a busy kernel
        victim.wait()
        assert len(engine.list_labelled(victim_run)) == 2
        lines = []
        with runner.experiment_run("robustez", {}, [engine_name], log=lines.append) as ctx:
            reaped = ctx.run.meta["orphans_reaped"]
        assert engine.list_labelled(victim_run) == []
        assert len(engine.list_labelled(survivor_run)) == 2, "se borraron contenedores de una corrida viva"
        assert any(victim_run in key for key in reaped)
        assert any("huérfano" in line and victim_run in line for line in lines)
        assert not any(survivor_run in key for key in reaped)
    finally:
        survivor.send_signal(signal.SIGTERM)  # the live run ends the normal way: it cleans up itself
        survivor.wait(timeout=120)
        victim.kill()
    assert engine.list_labelled(survivor_run) == []


# ---------------------------------------------------------------- an engine that dies mid-run
@pytest.fixture
def throwaway_dockerd(tmp_path, monkeypatch):
    """A second dockerd with its own socket, data and exec folders, its own bridge and no iptables rules,
    used as «Docker» by this test only; stopped and removed afterwards. (Not `--bridge=none`: a dockerd
    started that way deletes the docker0 interface of the machine's own daemon.)"""
    if os.geteuid() != 0 or not shutil.which("dockerd"):
        pytest.skip("hace falta root y dockerd para arrancar un daemon de prueba")
    require_engine("podman")
    folder = Path("/tmp") / f"curso-dockerd-{os.getpid()}"
    sock = folder / "d.sock"
    bridge = f"cursobr{os.getpid() % 100000}"
    subprocess.run(["ip", "link", "add", bridge, "type", "bridge"], capture_output=True)
    subprocess.run(["ip", "link", "set", bridge, "up"], capture_output=True)
    argv = [
        "dockerd",
        "-H",
        f"unix://{sock}",
        "--data-root",
        str(folder / "data"),
        "--exec-root",
        str(folder / "exec"),
        "--pidfile",
        str(folder / "d.pid"),
        f"--bridge={bridge}",
        "--iptables=false",
        "--ip-masq=false",
    ]

    def start():
        folder.mkdir(exist_ok=True)
        stale = folder / "exec" / "containerd"  # the killed daemon's containerd: pid file and sockets
        for leftover in [*stale.glob("containerd.pid"), *stale.glob("*.sock*")]:
            leftover.unlink(missing_ok=True)
        log = open(folder / "log", "ab")
        proc = subprocess.Popen(argv, stdout=log, stderr=log, start_new_session=True)
        for _ in range(240):
            if (
                subprocess.run(["docker", "-H", f"unix://{sock}", "info"], capture_output=True).returncode
                == 0
            ):
                return proc
            time.sleep(0.5)
        proc.kill()
        tail = (folder / "log").read_text(errors="replace")[-600:]
        pytest.fail(f"el daemon de prueba no arrancó en 120 s: {tail}")

    def stop(proc):
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        subprocess.run(["pkill", "-KILL", "-f", f"containerd.*{folder}"], capture_output=True)

    monkeypatch.setenv("DOCKER_HOST", f"unix://{sock}")
    eng.reset_cache()
    daemon = {"proc": start(), "start": start, "stop": stop}
    images.ensure(["alpine"], ["docker"], log=lambda s: None, try_pull=False)
    try:
        yield daemon
    finally:
        if daemon["proc"].poll() is None:
            subprocess.run(
                [
                    "docker",
                    "-H",
                    f"unix://{sock}",
                    "rm",
                    "-f",
                    *subprocess.run(
                        ["docker", "-H", f"unix://{sock}", "ps", "-aq"], capture_output=True, text=True
                    ).stdout.split(),
                ],
                capture_output=True,
            )
            stop(daemon["proc"])
        for netns in sorted((folder / "exec" / "netns").glob("*")):
            subprocess.run(["umount", "-l", str(netns)], capture_output=True)
        for sub in ("exec", "data"):
            subprocess.run(["umount", "-R", "-l", str(folder / sub)], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(["ip", "link", "del", bridge], capture_output=True)
        monkeypatch.delenv("DOCKER_HOST")
        eng.reset_cache()


@pytest.mark.engines
def test_docker_dies_mid_run_and_podman_goes_on(throwaway_dockerd, results_tmp):
    assert subprocess.run(
        ["ip", "link", "show", "docker0"], capture_output=True
    ).returncode == 0 or not shutil.which("ip"), "el daemon de prueba no debe tocar docker0"
    lines: list[str] = []
    state = {"docker_runs": 0}

    def measure(arm):
        engine = eng.get_engine(arm.engine)
        if arm.engine == "docker":
            state["docker_runs"] += 1
            if state["docker_runs"] == 3:  # the daemon dies right before the third Docker launch
                throwaway_dockerd["stop"](throwaway_dockerd["proc"])
            # a container left running, as a detached launch would leave it
            engine.launch(
                arm.image,
                ["sleep", "600"],
                run_id=ctx.run_id,
                name=ctx.container_name("docker", state["docker_runs"]),
                opts=eng.RunOptions(network="none", stop_timeout=0),
            )
        argv = engine.run_argv(arm.image, ["true"], run_id=ctx.run_id, opts=eng.RunOptions(network="none"))
        return [("arranque", eng_time(argv, engine), "ms")]

    def eng_time(argv, engine):
        from helpers import measure as m

        return m.time_command(argv, env=engine.env())

    with runner.experiment_run(
        "robustez", {}, ["docker", "podman"], image_roles=["alpine"], log=lines.append
    ) as ctx:
        arms = [runner.Arm(e, "por_defecto", ctx.images[e]["alpine"]["name"]) for e in ("docker", "podman")]
        runner.measure_rounds(ctx, arms, repetitions=4, warmup=0, measure=measure)
        run_dir = ctx.run.dir
    meta = json.loads((run_dir / "meta.json").read_text())
    rows = results.load_run(run_dir)[0]  # the measurements (the rows of the rounds left out)
    assert meta["status"] == results.STATUS_PARTIAL and "Docker" in meta["reason"]
    assert "docker" in meta["engines_lost"] and meta["engines_lost"]["docker"]["detalle"]
    assert (rows["engine"] == "podman").sum() == 4, "Podman debía completar sus 4 repeticiones"
    assert (rows["engine"] == "docker").sum() == 2, "las filas de Docker medidas antes de perderlo se guardan"
    said = [line for line in lines if "dejó de responder" in line]
    assert len(said) == 1 and "Podman sigue midiendo" in said[0]
    assert not any("Traceback" in line or "ConnectionError" in line for line in lines)
    assert (run_dir / "registro.log").is_file()

    # The daemon comes back with Docker's containers of that run; the next run removes them.
    throwaway_dockerd["proc"] = throwaway_dockerd["start"]()
    eng.reset_cache()
    docker = eng.get_engine("docker")
    left = docker.list_labelled(meta["run_id"])
    assert left, "el daemon de prueba debía volver con los contenedores de la corrida"
    with runner.experiment_run("robustez", {}, ["docker"], log=lines.append):
        pass
    assert docker.list_labelled(meta["run_id"]) == []


# ---------------------------------------------------------------- two kernels at once
@pytest.mark.engines
def test_two_runs_in_parallel_both_complete(container_engines, results_tmp):
    code = (
        "import sys\nfrom helpers.experiments import arranque\n"
        f"arranque.run(arranque.config(repeticiones=3, calentamiento=0, imagenes=['alpine'], "
        f"motores={container_engines!r}), log=lambda s: None)\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=PROJECT_ROOT,
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    runs = results.list_runs("arranque", results_tmp)
    assert len(runs) == 2
    for run in runs:
        meta = results.read_meta(run)
        assert meta["status"] == "complete", meta.get("reason")
        assert len(results.read_raw(run / "raw.csv")) == meta["rows"] > 0
