"""Experiment 6: what is inside each timed window of one measurement (red/measure.py: measure_arm, and
red/load.py: run), held to the code that measures it.

- the load window is one `wrk` process (`taskset -c LOAD_CPU wrk …` beside a pinned server when there
  are two CPUs, free beside every other), from its spawn to its exit: `-t HILOS -c CONEXIONES
  -d DURACION_Ss`, the same on every arm, Kubernetes included, `--latency`, and one URL, `http://127.0.0.1:PORT/`, a port the run published on loopback; nothing
  else is a target. req/s, latency and requests are wrk's own figures over its own `-d` run (its
  connections are opened inside it); the server's start, its readiness poll (`wait_ready`) and the
  other arms' runs are outside it;
- the CPU window of the processes on the path (cpu_servidor, cpu_proxy, cpu_ayudante, and on a
  Kubernetes path each component's metric) is read with psutil right before wrk is spawned and right
  after it exits (nothing is read while it runs): the wrk run's window, plus the moments of reading the
  counters. A process on the path the run did not list (dockerd, the kernel's softirq work charged to
  no listed process) is left out;
- cpu_carga is wrk's own CPU time: RUSAGE_CHILDREN of the course's process read right before wrk's
  spawn and after its exit (measure_arm reaps no other child in that window).
The target's safety (loopback only, published ports only) has its own tests in test_unit.
"""

from __future__ import annotations

import subprocess
import sys

import psutil
import pytest

from helpers.experiments import red
from helpers.experiments.red import load
from helpers.experiments.red import measure as red_measure
from helpers.experiments.red.arms import ARM_SPECS, KUBERNETES_ARMS, HttpArm
from helpers.experiments.red.start import Started

NATIVE = HttpArm("bare", "nativo", "nethttp", "nativo", ARM_SPECS["nativo"])
K8S = HttpArm("kubernetes", KUBERNETES_ARMS[0], "nethttp", "k8s", ARM_SPECS[KUBERNETES_ARMS[0]])
PINNED = HttpArm("bare", "nativo_fijo", "nethttp", "nativo fijo", ARM_SPECS["nativo-fijo"])


def _flag(cmd: list[str], name: str) -> str:
    return cmd[cmd.index(name) + 1]


@pytest.mark.parametrize("arm", [NATIVE, K8S, PINNED], ids=["nativo", "kubernetes", "fijado"])
def test_wrk_runs_the_stated_load_for_the_arms_duration_against_loopback_only(arm, monkeypatch):
    """Every arm's window is the same wrk run (paired arms share it); wrk is pinned only beside a pinned
    server."""
    cfg = red.Config(hilos=3, conexiones=7, duracion_s=5).validated()
    target = load.target_url(8123, {8123})
    seen = []
    monkeypatch.setattr(
        load, "run", lambda *a, **k: seen.append((a, k)) or (_ for _ in ()).throw(ValueError("x"))
    )
    started = Started(arm, port=8123, target=target)
    red_measure.measure_arm(started, cfg, "1", lambda _: None)
    ((args, kwargs),) = seen
    cmd = load.argv(*args, **kwargs)
    wrk = cmd[3:] if arm.spec.pinned else cmd
    assert cmd[:4] == ["taskset", "-c", "1", "wrk"] if arm.spec.pinned else cmd[0] == "wrk"
    assert (_flag(wrk, "-t"), _flag(wrk, "-c"), _flag(wrk, "-d")) == ("3", "7", "5s")
    assert "--latency" in wrk
    urls = [word for word in wrk if "://" in word]
    assert urls == ["http://127.0.0.1:8123/"] == [wrk[-1]]


# ---------------------------------------------------------------- one real measurement, tiny
@pytest.fixture
def tiny_server():
    """A loopback HTTP server (Python's own), as the arm's server process."""
    port = load.free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", load.LOOPBACK, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd="/",
    )
    try:
        target = load.target_url(port, {port})
        ok, why = load.wait_ready(target, timeout=20)
        assert ok, why
        yield Started(NATIVE, port=port, target=target, server=[psutil.Process(proc.pid)])
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.skipif(not load.available()[0], reason="wrk no está instalado")
def test_the_cpu_window_of_the_path_is_the_wrk_runs(tiny_server, monkeypatch):
    """Every CPU read and the wrk run are recorded in order (all still run): every group read once
    before wrk starts and once after it exits, nothing read while it runs; the rows are those reads."""
    events: list[tuple] = []
    real_cpu, real_run = red_measure.cpu_seconds, load.run

    def reading(procs):
        value = real_cpu(procs)
        events.append(("cpu", value))
        return value

    def running(target, threads, connections, duration_s, **kw):
        events.append(("wrk-start", (threads, connections, duration_s, target.url)))
        result = real_run(target, threads, connections, duration_s, **kw)
        events.append(("wrk-end", result.cpu_s))
        return result

    monkeypatch.setattr(red_measure, "cpu_seconds", reading)
    monkeypatch.setattr(load, "run", running)
    cfg = red.Config(hilos=1, conexiones=2, duracion_s=1).validated()
    rows = {m: v for m, v, _ in red_measure.measure_arm(tiny_server, cfg, None, lambda _: None)}
    kinds = [kind for kind, _ in events]
    groups = 3  # cpu_servidor, cpu_proxy, cpu_ayudante (no Kubernetes components on a native path)
    assert kinds == ["cpu"] * groups + ["wrk-start", "wrk-end"] + ["cpu"] * groups
    assert events[groups][1] == (1, 2, 1, tiny_server.target.url)
    before, after = events[0][1], events[groups + 2][1]
    assert rows["cpu_servidor"] == round(after - before, 4)
    assert rows["cpu_servidor"] > 0  # the server answered wrk inside the window
    assert rows["cpu_carga"] == round(events[groups + 1][1], 4)
    assert rows["peticiones"] > 0 and rows["duracion"] > 0
