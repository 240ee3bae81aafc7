"""Benchmark for the network experiment: its req/s next to `wrk` typed by hand, arm by arm.

The same arms as notebook 06 (native, Docker -p, Docker --network host; Go net/http), each loaded in
turn by the experiment (experiments.red.measure_arm, through red/load.py) and by a plain `wrk` command line
as a student would type it, its Requests/sec read here by a regular expression of its own: on the same
server and port, the order swapping every round. Each arm is judged on the median over rounds of the
round's ratio (bench.common): its IC 95 % within ±5 % (TIGHTEST), the narrowest margin its figures back.
Exit code as in bench.common.

    python -m helpers.bench.http [--repeticiones 3] [--duracion 3] [--semilla]

--semilla uses the seed's load (wrk -t12 -c400 -d30s) instead of -t2 -c50.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile

from .. import engines as eng
from ..experiments import red
from ..experiments.red import servers
from ..experiments.red.arms import plan
from ..experiments.red.measure import SEED_PRESET, measure_arm
from ..experiments.red.start import start_all
from ..experiments.runner import experiment_run
from ..view.common import num
from .common import TIGHTEST, Tolerance, compare, exit_code

TOLERANCE = Tolerance(relative=TIGHTEST)  # no wider than the margins it backs

ARMS = ("nativo", "docker-puerto", "docker-host")


def by_hand(url: str, threads: int, connections: int, duration: int, cpu: str | None) -> tuple[float, str]:
    """`wrk` exactly as typed in a terminal; its Requests/sec read with a plain regular expression."""
    argv = (["taskset", "-c", cpu] if cpu else []) + [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{duration}s",
        url,
    ]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 30).stdout
    found = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    return (float(found.group(1)) if found else float("nan")), " ".join(argv)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Compara la cifra de los helpers con wrk a mano, brazo por brazo."
    )
    parser.add_argument("--repeticiones", type=int, default=5)
    parser.add_argument("--duracion", type=int, default=3)
    parser.add_argument("--semilla", action="store_true", help="carga del documento: -t12 -c400 -d30s")
    args = parser.parse_args(argv)
    load = dict(SEED_PRESET) if args.semilla else {"hilos": 2, "conexiones": 50, "duracion_s": args.duracion}
    engines = [n for n in ("docker",) if eng.get_engine(n).available]
    cfg = red.config(
        servidores=["nethttp"],
        brazos=list(ARMS),
        motores=engines,
        repeticiones=args.repeticiones,
        calentamiento=0,
        **load,
    )
    server_cpu, load_cpu = red.cpu_layout()
    with (
        tempfile.TemporaryDirectory(prefix="bench-http-") as root,
        experiment_run(red.EXPERIMENT, {"bench": True}, engines, root=root, log=print) as ctx,
    ):
        arms, skipped = plan(cfg, ctx.engines)
        for key, why in skipped.items():
            print(f"Se omite {key}: {why}")
        images = {a: servers.ensure_image(a.engine, a.image)["name"] for a in arms if a.engine != "bare"}
        started_all = start_all(arms, images, server_cpu, ctx)
        live = [s for s in started_all if not s.failed]
        not_made = [f"{key}: {why}" for key, why in skipped.items()]
        not_made += [f"{s.arm.label}: {s.failed}" for s in started_all if s.failed]
        figures = {s.arm.label: {"helpers": [], "a_mano": [], "comando": ""} for s in live}
        for rep in range(1, args.repeticiones + 1):
            for started in live:
                label = started.arm.label
                # Alternate which of the two goes first, so neither always meets a server just warmed up.
                for who in ("helpers", "a_mano") if rep % 2 else ("a_mano", "helpers"):
                    if who == "helpers":
                        rows = dict((m, v) for m, v, _u in measure_arm(started, cfg, load_cpu, print))
                        figures[label]["helpers"].append(rows.get("req_s", float("nan")))
                    else:
                        value, command = by_hand(
                            started.target.url, cfg.hilos, cfg.conexiones, cfg.duracion_s, load_cpu
                        )
                        figures[label]["a_mano"].append(value)
                        figures[label]["comando"] = command
                print(
                    f"  ronda {rep}: {label}: helpers {num(rows.get('req_s', 0))} req/s, "
                    f"a mano {num(value)} req/s"
                )
    print(
        f"\nwrk -t{cfg.hilos} -c{cfg.conexiones} -d{cfg.duracion_s}s, {args.repeticiones} rondas intercaladas, "
        "peticiones por segundo:\n"
    )
    comparisons = []
    for label, f in figures.items():
        rounds = [([a], [b]) for a, b in zip(f["helpers"], f["a_mano"], strict=True)]
        names = ("experimento (red.measure_arm)", "wrk a mano")
        comparisons.append(compare(label, rounds, unit="req/s", tolerance=TOLERANCE, names=names))
        print(f"  a mano: {f['comando']}")
    return exit_code(comparisons, not_made)


if __name__ == "__main__":
    raise SystemExit(main())
