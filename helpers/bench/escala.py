"""Benchmark for experiment 2: the memory of N idle containers as the experiment reads it, next to `stats`.

For each available engine, N idle containers (labelled with this benchmark's own run id) are launched the
experiment's way, then read in rounds by two paths that share no measuring code:
- the experiment's: `probing.inspect_all` finds each cgroup, `cgroups.read_many` reads its files in bytes,
  and the figure `docker stats` would print is usage minus the inactive file cache (what the experiment
  records as `memoria_stats_por_contenedor`);
- by hand: `docker stats --no-stream` / `podman stats --no-stream` typed as in a terminal, its memory
  column parsed here ("848KiB", "749.6kB").
Both per-container medians are compared, judged on the median over rounds of each round's ratio
(bench.common); the times of the two readings are printed too, unjudged. Exit code as in bench.common.

    python -m helpers.bench.escala [-n 10] [--rondas 5]
"""

from __future__ import annotations

import argparse
import re
import secrets
import statistics
import subprocess
import sys
import time

from .. import cgroups, images
from .. import engines as eng
from ..experiments import escala
from ..experiments.escala.probing import SETTLE_SECONDS, inspect_all, launch, launch_argv
from .common import TIGHTEST, Tolerance, compare, exit_code, figure

# Idle memory moves by a few pages between two readings; `stats` prints three or four digits.
TOLERANCE = Tolerance(relative=TIGHTEST)
KIB = 1024
SIZE = re.compile(r"^\s*([\d.]+)\s*([KMG]i?B|[kKMG]B|B)\s*$")
FACTOR = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def stats_by_hand(engine: eng.Engine, names: list[str]) -> tuple[dict[str, float], float]:
    """`<engine> stats --no-stream` as typed in a terminal: ({name: bytes}, seconds it took)."""
    argv = [engine.name, "stats", "--no-stream", "--format", "{{.Name}}\t{{.MemUsage}}", *names]
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, env=engine.env(), timeout=300)
    seconds = time.perf_counter() - start
    out = {}
    for line in result.stdout.splitlines():
        name, _, usage = line.partition("\t")
        found = SIZE.match(usage.split("/")[0])
        if found and found.group(2) in FACTOR:
            out[name.strip()] = float(found.group(1)) * FACTOR[found.group(2)]
    return out, seconds


def experiment_reading(engine: eng.Engine, names: list[str]) -> tuple[dict[str, float], float]:
    """The experiment's reading: ({name: bytes as `stats` would print them}, seconds for inspect + read)."""
    start = time.perf_counter()
    containers = inspect_all(engine, names)
    readings, _ = cgroups.read_many([c.cgroup for c in containers])
    seconds = time.perf_counter() - start
    return {c.name: r.stats_view for c, r in zip(containers, readings, strict=True)}, seconds


def bench_engine(name: str, n: int, rounds: int, role: str = "alpine"):
    """The comparison for one engine (None with the reason when it cannot be made)."""
    engine = eng.get_engine(name)
    image = images.resolve(role, engine)
    if image is None:
        return None, f"{engine.display} no tiene la imagen «{role}»: ejecuta «make setup»."
    run_id = f"bench-escala-{secrets.token_hex(3)}"
    names = [f"curso-bench-escala-{run_id[-6:]}-{name}-{k}" for k in range(1, n + 1)]
    pairs, times = [], {"experimento": [], "a_mano": []}
    try:
        env = engine.env()
        argvs = [launch_argv(engine, image["name"], run_id=run_id, name=nm) for nm in names]
        launch(engine, argvs, 1, env)
        time.sleep(SETTLE_SECONDS)
        probe = inspect_all(engine, names)
        reason = cgroups.per_container_reason(engine, [c.cgroup for c in probe])
        if reason:
            return None, f"{engine.display}: {reason}"
        for k in range(rounds):
            order = ("experimento", "a_mano") if k % 2 == 0 else ("a_mano", "experimento")
            got = {}
            for who in order:
                got[who], seconds = (experiment_reading if who == "experimento" else stats_by_hand)(
                    engine, names
                )
                times[who].append(seconds)
            common = sorted(set(got["experimento"]) & set(got["a_mano"]))
            pairs.append(
                ([got["experimento"][c] / KIB for c in common], [got["a_mano"][c] / KIB for c in common])
            )
    finally:
        engine.cleanup(run_id)
    result = compare(
        f"{engine.display}: memoria por contenedor, {n} contenedores en reposo",
        pairs,
        unit="KiB",
        tolerance=TOLERANCE,
        names=("experimento (cgroup, uso − caché inactiva)", f"a mano («{name} stats --no-stream»)"),
    )
    print(
        f"  tiempo de lectura, sin juzgar: inspect + archivos del cgroup "
        f"{figure(statistics.median(times['experimento']))} s; «{name} stats» "
        f"{figure(statistics.median(times['a_mano']))} s\n"
    )
    return result, None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Banco de pruebas del experimento 2 (escala).")
    parser.add_argument("-n", type=int, default=10, help="contenedores por motor (por defecto 10)")
    parser.add_argument("--rondas", type=int, default=6)  # an IC 95 % needs 6
    args = parser.parse_args(argv)
    n = escala.Config.build(cantidades=[args.n]).cantidades[0]
    print(f"Banco del experimento 2: {n} contenedores en reposo por motor, {args.rondas} rondas.\n")
    comparisons, not_made = [], []
    for name in eng.CONTAINER_ENGINES:
        engine = eng.get_engine(name)
        if not engine.available:
            not_made.append(f"{engine.display}: {engine.reason}")
            continue
        result, why = bench_engine(name, n, args.rondas)
        if result is None:
            not_made.append(why)
        else:
            comparisons.append(result)
    return exit_code(comparisons, not_made)


if __name__ == "__main__":
    sys.exit(main())
