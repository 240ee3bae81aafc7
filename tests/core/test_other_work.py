"""The gate sees other work, not ours (helpers/other_work.py, experiments/load.py): a busy loop outside
the run's process tree shows up in a round's «otra CPU»; the same loop as the run's own child, a
container under its shim and a kernel thread do not; a loop that recorded its other work is judged on
it, never on its CPU pressure, and a load that stays the whole run leaves no verdict."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd

from helpers import measure, other_work, results
from helpers.experiments import figures as fg
from helpers.experiments import verdict as vd
from helpers.view import common
from tests.core.test_load import PODMAN_FASTER

BUSY = "import time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end: pass\n"


def _own_child(seconds):
    child = subprocess.Popen([sys.executable, "-c", BUSY.format(s=seconds)])
    return child.pid, lambda: child.wait(timeout=10)


def _someone_else(seconds):
    """A busy loop that is not ours: double-forked into its own session, so its parent is PID 1."""
    script = (
        "import os, sys, time\n"
        "if os.fork(): sys.exit(0)\n"
        "os.setsid()\n"
        "if os.fork(): sys.exit(0)\n"
        "print(os.getpid(), flush=True)\n" + BUSY.format(s=seconds)
    )
    launcher = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    pid = int(launcher.stdout.readline())
    launcher.wait(timeout=10)

    def stop():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    return pid, stop


def test_a_busy_loop_outside_the_run_is_other_work_and_our_own_child_is_not():
    """Real processes: the CPU time another session's busy loop used in the window is in the other
    work's ticks, all of it; the same loop as our child adds nothing; the share is recorded by round."""
    theirs, stop_theirs = _someone_else(3)
    ours, stop_ours = _own_child(3)
    try:
        begin = measure.load_counters()
        time.sleep(0.5)
        end = measure.load_counters()
    finally:
        stop_theirs()
        stop_ours()
    own = other_work.own_pids(end.processes)
    assert ours in own and theirs not in own
    used = end.processes[theirs].own_ticks - begin.processes[theirs].own_ticks
    assert used > 0 and end.processes[ours].own_ticks > begin.processes[ours].own_ticks

    def without(pid):
        return other_work.other_ticks(
            {k: v for k, v in begin.processes.items() if k != pid},
            {k: v for k, v in end.processes.items() if k != pid},
        )

    counted = other_work.other_ticks(begin.processes, end.processes)
    assert counted - without(theirs) == used
    assert counted == without(ours)
    share = measure.load_between(begin, end).other_pct
    assert share is not None and share >= other_work.share(used, end.all_ticks - begin.all_ticks)


def _p(start, ppid, comm, own=0, children=0):
    return other_work.Process(start, ppid, comm, own, children)


def test_containers_under_their_shim_kernel_threads_and_our_tree_are_ours():
    me = 500
    processes = {
        1: _p(1, 0, "init"),
        2: _p(1, 0, "kthreadd"),
        30: _p(2, 2, "kworker/0:1"),
        400: _p(3, 1, "jupyter-lab"),
        500: _p(4, 400, "python"),
        501: _p(5, 500, "wrk"),
        600: _p(6, 1, "containerd-shim"),
        601: _p(7, 600, "sh"),
        602: _p(8, 601, "sha256sum"),
        700: _p(9, 1, "firefox"),
        701: _p(10, 700, "Web Content"),
        800: _p(11, 400, "python"),  # another notebook's kernel under the same server: not ours
    }
    own = other_work.own_pids(processes, me)
    assert {2, 30, 400, 500, 501, 600, 601, 602} <= own
    assert not {1, 700, 701, 800} & own


def test_other_ticks_count_cpu_time_deltas_a_new_process_whole_and_a_reused_pid_anew():
    me = 500
    start = {1: _p(1, 0, "init", 5, 100), 500: _p(4, 400, "python", 0), 700: _p(9, 1, "firefox", 40, 3)}
    end = {
        1: _p(1, 0, "init", 6, 900),  # it reaped our orphans: its children's time is not counted
        500: _p(4, 400, "python", 999),
        700: _p(9, 1, "firefox", 50, 5),  # 10 + 2
        701: _p(12, 700, "Web Content", 7),  # born in the window: 7
        600: _p(13, 1, "conmon", 30),  # ours
    }
    assert other_work.other_ticks(start, end, me) == 1 + 12 + 7
    reused = {**end, 700: _p(99, 1, "make", 4, 1)}  # PID 700 is another process now: all of it
    assert other_work.other_ticks(start, reused, me) == 1 + 5 + 7


def _run(pressure, other, added, said=PODMAN_FASTER):
    rng = np.random.default_rng(5)
    rows = []
    for rep, (p, o, extra) in enumerate(zip(pressure, other, added, strict=True), start=1):
        docker = 100 * np.exp(rng.normal(0, 0.02))
        rows += [
            ("docker", rep, "arranque", docker + extra),
            ("podman", rep, "arranque", docker / 2 + extra),
            (results.MACHINE, rep, results.LOAD_PRESSURE, p),
            (results.MACHINE, rep, results.STEAL, 0.0),
            (results.MACHINE, rep, results.OTHER_CPU, o),
        ]
    raw = pd.DataFrame(rows, columns=["engine", "rep", "metric", "value"]).assign(
        experiment="arranque", image="", variant="", unit="ms"
    )
    (claim,) = fg.judge_all([said], *results.split_run(raw, {"experiment": "arranque"}))
    return claim


def test_our_own_pressure_does_not_gate_a_loop_that_recorded_its_other_work():
    """The run's own launches move the pressure from 15 % to 45 % round to round; nothing else ran."""
    pressure = [15, 45, 20, 40, 18, 44, 25, 38, 16, 42]
    claim = _run(pressure, [0.5, 1, 0, 2, 0.5, 0, 1, 0, 0.5, 1], [0] * 10)
    assert claim.status == vd.SE_CONFIRMA and claim.n == 10 and "carga_metrica" not in claim.detail


def test_a_load_that_stays_the_whole_run_leaves_no_verdict_and_says_whose_cpu():
    """A background job at 30 % of the machine in every round: no range would see it, its level does."""
    claim = _run([20] * 10, [30 + d for d in (0, 1, -1, 0.5, 0, -0.5, 1, 0, 0.5, -1)], [40] * 10)
    assert claim.status == vd.BAJO_CARGA
    assert "la CPU que usó el resto de la máquina (sin esta corrida) fue de 29.0 % a 31.0 %" in (
        common.claim_sentence(claim)
    )


def test_a_burst_of_other_work_leaves_the_figure_to_the_rounds_without_it():
    claim = _run([20] * 10, [0] * 7 + [40] * 3, [0] * 7 + [80] * 3)
    assert claim.status == vd.SE_CONFIRMA and claim.n == 7 and claim.detail["rondas_tranquilas"] == 7


def test_a_figure_cpu_load_does_not_move_is_not_gated_by_it():
    """Memory, a size, a count (Said.moved_by_cpu=False): the same loaded run keeps its verdict."""
    loaded = [30 + d for d in (0, 1, -1, 0.5, 0, -0.5, 1, 0, 0.5, -1)]
    memory = PODMAN_FASTER.but(key="memoria", moved_by_cpu=False)
    assert _run([20] * 10, loaded, [0] * 10).status == vd.BAJO_CARGA
    claim = _run([20] * 10, loaded, [0] * 10, said=memory)
    assert claim.status == vd.SE_CONFIRMA and "carga_metrica" not in claim.detail
