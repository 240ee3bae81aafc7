"""Benchmark for experiment 5: per-arm medians of the experiment next to the probe run by hand.

Prints figures; asserts nothing. First the experiment measures getpid in every arm (containers started
once, the probe by `exec`, arms interleaved). Then, in the same session, the same probe is run "by hand"
the way a student would type it: directly on the host, under `unshare --pid --fork`, and with a fresh
`docker/podman run --rm` per repetition (default seccomp, `seccomp=unconfined`, gVisor). Both report the
probe's own per-call figures (CPU time of the thread and wall clock), so their medians should agree within
the machine's noise: how the probe gets into the container must not change what one call costs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from .. import engines, images, probes
from ..experiments import llamadas as exp


def by_hand(arm: exp.Arm, probe: Path, args: list[str], image: str) -> list[str]:
    if arm.engine == "bare":
        return exp.unshare_prefix(arm.depth, as_root=os.geteuid() == 0) + [str(probe), *args]
    engine = engines.get_engine(arm.engine)
    return engine.run_argv(
        image,
        [exp.PROBE_IN_CONTAINER, *args],
        run_id="bench-llamadas",
        remove=True,
        opts=exp.container_options(arm.variant, str(probe)),
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Llamadas al sistema: el experimento junto a la sonda a mano."
    )
    parser.add_argument("--llamadas", type=int, default=200_000)
    parser.add_argument("--repeticiones", type=int, default=5)
    parser.add_argument("--cpu", type=int, default=0)
    args = parser.parse_args(argv)
    motores = [n for n in engines.CONTAINER_ENGINES if engines.get_engine(n).available]
    root = Path(tempfile.mkdtemp(prefix="curso-bench-llamadas-"))
    cfg = exp.config(
        llamadas=args.llamadas,
        repeticiones=args.repeticiones,
        operaciones=["getpid"],
        brazos=["host", "pid", "seccomp", "sin_seccomp", "gvisor"],
        motores=motores,
        cpu=args.cpu,
    )
    print(
        f"Experimento: getpid, {cfg.llamadas} llamadas, {cfg.repeticiones} repeticiones, CPU {cfg.cpu}…",
        flush=True,
    )
    res = exp.run(cfg, root=root, log=lambda line: print("  " + line, flush=True))
    cpu = exp.summarize(res.df)
    wall = exp.summarize(exp.wall_clock(res.df))
    probe = probes.ensure(exp.PROBE)
    probe_args = exp.probe_args(cfg.operaciones, cfg.llamadas, cfg.cpu, cfg.tope_ms)
    print(f"\n{'brazo':32s} {'experimento (exec)':>28s}   {'a mano (run --rm / directo)':>28s}")
    print(f"{'':32s} {'CPU ns':>13s} {'pared ns':>14s}   {'CPU ns':>13s} {'pared ns':>14s}")
    for _, row in cpu[cpu["operacion"] == "getpid"].iterrows():
        arm = exp.Arm(row["engine"], row["variant"], depth=1 if row["variant"] == "pid:1" else 0)
        image = ""
        if arm.engine != "bare":
            found = images.resolve_all([cfg.imagen], [arm.engine]).get(arm.engine, {}).get(cfg.imagen)
            image = found["name"] if found else ""
        cpu_hand, wall_hand = [], []
        for _ in range(cfg.repeticiones):
            argv = by_hand(arm, probe, probe_args, image)
            try:
                found = exp.run_probe(argv, arm.engine, ["getpid"], timeout=300)
            except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
                print(f"  {row['brazo']}: a mano falló: {exc}", file=sys.stderr)
                break
            cpu_hand.append(found["getpid"]["ns_cpu"])
            wall_hand.append(found["getpid"]["ns_pared"])
        w = wall[
            (wall["engine"] == arm.engine)
            & (wall["variant"] == arm.variant)
            & (wall["operacion"] == "getpid")
        ]
        hand = (
            f"{statistics.median(cpu_hand):13.1f} {statistics.median(wall_hand):14.1f}"
            if cpu_hand
            else f"{'—':>13s} {'—':>14s}"
        )
        print(
            f"{row['brazo']:32s} {row['mediana_ns']:13.1f} {w['mediana_ns'].iloc[0]:14.1f}   {hand}",
            flush=True,
        )
    print(f"\nCorrida del experimento: {res.run_dir}")
    for key, why in (res.meta.get("skipped_arms") or {}).items():
        print(f"Se omitió {key}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
