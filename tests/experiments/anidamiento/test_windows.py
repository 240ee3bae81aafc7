"""Experiment 7: what is inside each timed window of the nesting ladder (anidamiento/measure.py:
Nesting.commands and time_arm), held to the code that measures it. An arm of level N has N-1 nesting
containers already running (outer[0] on the host, each next one inside the previous) and a busybox
`sleep` worker at level N; each round runs two commands from the host, and each has two timers:

- `arranque` (ms): from the host (time.perf_counter_ns around posix_spawn and wait), the whole command:
  the `exec` into each of the N-1 outer containers, then cronometro, then `ENGINE run --rm busybox
  echo ok` run by the engine of level N-1 (its client's start, create, start, `echo ok`, and as much
  of the `--rm` removal as its client waits for). At level 0 it is cronometro running `echo ok` as a
  plain process;
- `arranque_interior` (ms): cronometro, one level up from the container it times (inside outer[N-2],
  on the host at level 1): from its fork to its waitpid of that `run --rm … echo ok` alone; the `exec`s
  that bring it there are outside;
- `trabajo` (s): cronometro inside the worker, at the arm's own level: `sh -c` with experiment 3's
  hash work (dd | sha256sum) alone; every `exec` that reaches the worker is outside. At level 0 it runs
  on the host, chrooted into the exported busybox root filesystem when root allows it;
- `trabajo_extremo` (s): from the host, that work plus every `exec` on the way (N-1 outer ones and
  the one into the worker).
Outside every window of the rounds: preparing the nesting image, the ladder of attempts without
--privileged, starting the chain, loading busybox inside, and the one-off memory and disk reads.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from helpers import probes
from helpers.engines.nested import Chain
from helpers.errors import ErrorDelCurso
from helpers.experiments import anidamiento as exp
from helpers.experiments.anidamiento import measure as nest
from helpers.experiments.anidamiento.build import PROBE_IN_CONTAINER
from helpers.experiments.anidamiento.chains import startup_argv
from helpers.experiments.anidamiento.levels import (
    METRIC_START,
    METRIC_START_INNER,
    METRIC_WORK,
    METRIC_WORK_E2E,
)

SCRIPT = "echo trabajo"
HOST_PROBE = str(probes.path("cronometro"))


def nesting(engine: str = "podman") -> nest.Nesting:
    """A Nesting with no run behind it: enough to build the command lines of its arms."""
    ctx = SimpleNamespace(engines=["bare", engine], run_id="prueba-ventanas")
    return nest.Nesting(exp.Config().validated(), ctx, None, lambda _: None)


def unwrap(engine: str, argv: list[str]) -> tuple[list[str], list[str]]:
    """(containers the command is `exec`ed through, in order from the host; what runs in the last)."""
    through = []
    while argv[:2] == [engine, "exec"]:
        through.append(argv[2])
        argv = argv[3:]
    return through, argv


def test_at_level_0_both_timers_run_on_the_host_around_the_bare_command(tmp_path):
    runner = nesting()
    arm = nest.NestArm("bare", "nivel0", "", "bare metal", 0)
    start, work = runner.commands(arm, SCRIPT)
    assert start == [HOST_PROBE, "echo", "ok"]
    assert work == [HOST_PROBE, "sh", "-c", SCRIPT]
    runner.rootfs = tmp_path
    assert runner.commands(arm, SCRIPT)[1] == [HOST_PROBE, "--root", str(tmp_path), "sh", "-c", SCRIPT]


@pytest.mark.parametrize("engine", ["docker", "podman"])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_each_timer_runs_inside_the_level_it_names(engine, level):
    """The startup's cronometro is one level up from the container it starts (inside the last outer
    container); the work's cronometro is inside the worker, at the arm's level."""
    runner = nesting(engine)
    arm = nest.NestArm(engine, f"nivel{level}", "busybox-real", f"nivel {level}", level)
    outer = [f"exterior-{i + 1}" for i in range(level - 1)]  # build_chain: level - 1 of them
    runner.chains[arm] = Chain(engine, outer=outer, worker="trabajador")
    start, work = runner.commands(arm, SCRIPT)

    through, timed = unwrap(engine, start)
    assert through == outer
    timer = HOST_PROBE if level == 1 else PROBE_IN_CONTAINER
    assert timed == [timer, *startup_argv(engine, "busybox-real", "prueba-ventanas")]
    assert timed[1:3] == [engine, "run"] and "--rm" in timed and timed[-2:] == ["echo", "ok"]

    through, timed = unwrap(engine, work)
    assert through == [*outer, "trabajador"]
    assert timed == [PROBE_IN_CONTAINER, "sh", "-c", SCRIPT]


# ---------------------------------------------------------------- the two timers of a round, real
@pytest.fixture
def cronometro():
    try:
        return probes.ensure("cronometro", lambda _: None)
    except ErrorDelCurso as exc:  # no compiler here: the test cannot run
        pytest.skip(f"sin la sonda cronometro: {exc}")


def test_each_inner_window_is_inside_its_host_window(cronometro):
    """Level 0, for real: each metric from the host holds the one cronometro reports (never less), and
    the rows pair them as the page names them."""
    runner = nesting()
    arm = nest.NestArm("bare", "nivel0", "", "bare metal", 0)
    rows = runner.time_arm(arm, "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done")
    assert [(metric, unit) for metric, _, unit in rows] == [
        (METRIC_START, "ms"),
        (METRIC_START_INNER, "ms"),
        (METRIC_WORK_E2E, "s"),
        (METRIC_WORK, "s"),
    ]
    value = {metric: v for metric, v, _ in rows}
    assert 0 < value[METRIC_START_INNER] <= value[METRIC_START]
    assert 0 < value[METRIC_WORK] <= value[METRIC_WORK_E2E]
