"""The timing loop of experiment 1 in a few lines a student can read: notebook 01 prints
`time_launches` and runs it.

It is a faithful copy of what `helpers.measure.spawn_and_wait` does around each launch: the clock
starts right before `posix_spawnp` and stops right after `waitpid` reaps the child; stdout goes to
/dev/null. What the course's version adds (a watchdog for a hung engine, stderr kept for error
messages, Ctrl-C handling) is not what this loop is about; `side_by_side` times the two interleaved
on the same command, in one run, so a reader (and a test) can see that they give the same figure.
"""

from __future__ import annotations

import os
import statistics
import time

import pandas as pd

from ... import measure, stats


def time_launches(argv: list[str], repetitions: int = 5) -> list[float]:
    """Milliseconds of each of `repetitions` launches of argv (a program and its arguments)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1)]  # stdout to /dev/null, as `> /dev/null`
    times = []
    try:
        for _ in range(repetitions):
            start = time.perf_counter_ns()  # the clock starts...
            pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)  # a new process
            _, status = os.waitpid(pid, 0)  # wait until it ends
            end = time.perf_counter_ns()  # ...and stops
            if os.waitstatus_to_exitcode(status) != 0:
                raise RuntimeError(f"«{' '.join(argv)}» terminó con error")
            times.append((end - start) / 1e6)
    finally:
        os.close(devnull)
    return times


def side_by_side(argv: list[str], repetitions: int = 5) -> dict:
    """`time_launches` and the course's timer (measure.time_command) on the same command, one launch
    each in turn; the medians (ms), and their ratio launch by launch with its IC 95 % (stats.ratio_ci,
    paired: «proporcion», «ic_bajo», «ic_alto»)."""
    loop, course = [], []
    for _ in range(repetitions):
        loop += time_launches(argv, 1)
        course.append(measure.time_command(argv))
    pairs = pd.RangeIndex(1, repetitions + 1)
    ratio = stats.ratio_ci(pd.Series(loop, index=pairs), pd.Series(course, index=pairs))
    return {
        "bucle_ms": statistics.median(loop),
        "curso_ms": statistics.median(course),
        "proporcion": ratio.value,
        "ic_bajo": ratio.low,
        "ic_alto": ratio.high,
        "repeticiones": repetitions,
    }
