"""Benchmark of the measuring harness itself: helpers.measure against hyperfine, in one run.

Prints figures; asserts nothing. Blocks alternate (helpers, hyperfine, helpers, ...) so that the
machine's drift falls on both tools alike.
- docker run --rm IMAGE echo ok: the helpers' median should be within ±10 % of hyperfine's;
- bare metal echo ok: the helpers' median should be within 0.5 ms of `hyperfine -N`.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile

from .. import engines, images, measure


def hyperfine_times(argv: list[str], runs: int, shell_none: bool, env=None) -> list[float]:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [
            "hyperfine",
            "--runs",
            str(runs),
            "--warmup",
            "1",
            "--style",
            "none",
            "--export-json",
            out.name,
        ]
        if shell_none:
            cmd.append("-N")
        cmd.append(subprocess.list2cmdline(argv))
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        data = json.load(open(out.name))
    return [t * 1000 for t in data["results"][0]["times"]]


def helper_times(argv: list[str], runs: int, env=None) -> list[float]:
    measure.time_command(argv, env)  # warm-up, discarded
    return [measure.time_command(argv, env) for _ in range(runs)]


def compare(label: str, argv: list[str], blocks: int, runs: int, *, shell_none: bool, env=None):
    ours, theirs = [], []
    for _ in range(blocks):
        ours += helper_times(argv, runs, env)
        theirs += hyperfine_times(argv, runs, shell_none, env)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"{label}")
    print(f"  helpers:   mediana {a:9.3f} ms  (n={len(ours)}, mín {min(ours):.3f})")
    print(f"  hyperfine: mediana {b:9.3f} ms  (n={len(theirs)}, mín {min(theirs):.3f})")
    return a, b


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Compara el cronómetro del curso con hyperfine.")
    parser.add_argument("--bloques", type=int, default=3)
    parser.add_argument("--corridas-bare", type=int, default=100)
    parser.add_argument("--corridas-docker", type=int, default=8)
    args = parser.parse_args(argv)
    if not shutil.which("hyperfine"):
        print("hyperfine no está instalado (paquete Debian «hyperfine»): ejecuta «make setup».")
        return 1
    a, b = compare(
        "bare metal: echo ok (hyperfine -N)",
        ["echo", "ok"],
        args.bloques,
        args.corridas_bare,
        shell_none=True,
    )
    diff = a - b
    print(
        f"  diferencia: {diff:+.3f} ms -> {'dentro' if abs(diff) <= 0.5 else 'FUERA'} del margen de 0.5 ms\n"
    )
    docker = engines.get_engine("docker")
    if not docker.available:
        print(f"Docker no está disponible ({docker.reason}); se omite esa comparación.")
        return 0
    info = images.resolve("alpine", docker)
    if info is None:
        print("Docker no tiene la imagen «alpine»: ejecuta «make setup».")
        return 1
    run_id = f"bench-{secrets.token_hex(3)}"
    argv_docker = docker.run_argv(info["name"], ["echo", "ok"], run_id=run_id)
    a, b = compare(
        f"docker run --rm {info['name']} echo ok",
        argv_docker,
        args.bloques,
        args.corridas_docker,
        shell_none=True,
    )
    rel = (a - b) / b * 100
    print(f"  diferencia: {rel:+.1f} % -> {'dentro' if abs(rel) <= 10 else 'FUERA'} del margen de ±10 %")
    docker.cleanup(run_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
