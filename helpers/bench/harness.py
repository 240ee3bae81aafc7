"""Benchmark of the measuring harness itself: helpers.measure against `hyperfine -N`, in one run.

The two share no measuring code: hyperfine spawns, waits and times in its own process. They run in many
short rounds (a block of each, the first one swapping every round) and are judged on the medians over
rounds of each round's difference and ratio, so the drift of a loaded machine falls on both alike.
- bare metal, `true`: the course's median within 0.1 ms of hyperfine's (what a spawn of the course's
  timer may add: no thread, no timer in the window);
- `docker run --rm IMAGE echo ok`, where Docker is running: within ±5 % (bench.common.TIGHTEST), judged on the IC 95 % of the per-round ratio.
A bare `posix_spawnp` + `waitpid` loop in Python is printed too (not judged): it shows how much of a
difference is Python's and how much is the harness's. Exit code as in bench.common (0 / 1 / 2).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time

from .. import engines, images, measure
from .common import TIGHTEST, Tolerance, compare, exit_code, figure, need

BARE_TOLERANCE = Tolerance(absolute=0.1)  # ms
DOCKER_TOLERANCE = Tolerance(relative=TIGHTEST)
NAMES = ("curso (helpers.measure)", "hyperfine -N")


def hyperfine_times(argv: list[str], runs: int, env=None, *, warmup: int = 3) -> list[float]:
    """`hyperfine -N` (no shell) on argv: its own per-run times, in ms, read from its JSON export."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = ["hyperfine", "-N", "--runs", str(runs), "--warmup", str(warmup), "--style", "none"]
        cmd += ["--export-json", out.name, subprocess.list2cmdline(argv)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        data = json.load(open(out.name))
    return [t * 1000 for t in data["results"][0]["times"]]


def helper_times(argv: list[str], runs: int, env=None, *, warmup: int = 3) -> list[float]:
    """The course's timer (measure.time_command) on argv, after `warmup` discarded runs; ms."""
    for _ in range(warmup):
        measure.time_command(argv, env)
    return [measure.time_command(argv, env) for _ in range(runs)]


def bare_loop_times(argv: list[str], runs: int) -> list[float]:
    """A bare posix_spawnp + waitpid loop in Python (stdio to /dev/null), ms: the floor of any Python timer."""
    devnull = os.open(os.devnull, os.O_RDWR)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, fd) for fd in (0, 1, 2)]
    env = dict(os.environ)
    times = []
    try:
        for _ in range(runs):
            start = time.perf_counter_ns()
            pid = os.posix_spawnp(argv[0], argv, env, file_actions=actions)
            os.waitpid(pid, 0)
            times.append((time.perf_counter_ns() - start) / 1e6)
    finally:
        os.close(devnull)
    return times


def alternate(argv: list[str], rounds: int, runs: int, env=None, *, bare_loop: list | None = None):
    """`rounds` rounds of one short block each (course and hyperfine, the first one swapping every round),
    as [(course ms, hyperfine ms), ...]; with `bare_loop` (a list), a bare-loop block per round too."""
    out = []
    for k in range(rounds):
        if k % 2 == 0:
            ours = helper_times(argv, runs, env, warmup=1)
            theirs = hyperfine_times(argv, runs, env, warmup=1)
        else:
            theirs = hyperfine_times(argv, runs, env, warmup=1)
            ours = helper_times(argv, runs, env, warmup=1)
        out.append((ours, theirs))
        if bare_loop is not None:
            bare_loop += bare_loop_times(argv, runs)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Compara el cronómetro del curso con hyperfine -N.")
    parser.add_argument("--rondas", type=int, default=60)
    parser.add_argument("--corridas-bare", type=int, default=10, help="corridas por bloque")
    parser.add_argument("--rondas-docker", type=int, default=12)
    parser.add_argument("--corridas-docker", type=int, default=3, help="corridas por bloque")
    args = parser.parse_args(argv)
    if not need("hyperfine", "hyperfine"):
        return exit_code([], ["hyperfine no está instalado."])
    comparisons, not_made = [], []

    loop: list[float] = []
    rounds = alternate(["true"], args.rondas, args.corridas_bare, bare_loop=loop)
    comparisons.append(
        compare(
            "bare metal: true",
            rounds,
            unit="ms",
            tolerance=BARE_TOLERANCE,
            names=NAMES,
        )
    )
    print(
        f"  (bucle desnudo posix_spawnp + waitpid en Python, sin juzgar: mediana {figure(statistics.median(loop))} ms)\n"
    )

    docker = engines.get_engine("docker")
    if not docker.available:
        not_made.append(f"Docker no está disponible ({docker.reason}).")
        return exit_code(comparisons, not_made)
    info = images.resolve("alpine", docker)
    if info is None:
        not_made.append("Docker no tiene la imagen «alpine»: ejecuta «make setup».")
        return exit_code(comparisons, not_made)
    run_id = f"bench-{secrets.token_hex(3)}"
    try:
        argv_docker = docker.run_argv(info["name"], ["echo", "ok"], run_id=run_id)
        rounds = alternate(argv_docker, args.rondas_docker, args.corridas_docker, docker.env())
        comparisons.append(
            compare(
                f"docker run --rm {info['name']} echo ok",
                rounds,
                unit="ms",
                tolerance=DOCKER_TOLERANCE,
                names=NAMES,
            )
        )
    finally:
        docker.cleanup(run_id)
    return exit_code(comparisons, not_made)


if __name__ == "__main__":
    sys.exit(main())
