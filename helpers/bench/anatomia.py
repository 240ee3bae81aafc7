"""Benchmark for experiment 4: the ladder of LAUNCH next to `hyperfine -N` on three of its rungs.

Prints figures; asserts nothing. First a short ladder measured by the experiment itself (a process,
the namespaces, runc, docker run); then, in the same run, three rungs timed in alternating blocks by the
course's timer and by `hyperfine -N` (no shell): `echo ok`, `runc run` on the course's bundle, and
`docker run --rm IMAGE echo ok`. Their medians should agree within the machine's noise.
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from .. import engines, images
from ..engines import oci
from ..experiments import anatomia
from .harness import helper_times, hyperfine_times


def _row(label: str, ours: list[float], theirs: list[float]) -> None:
    a, b = statistics.median(ours), statistics.median(theirs)
    print(
        f"{label:50s} curso {a:9.2f} ms   hyperfine -N {b:9.2f} ms   diferencia {100 * (a - b) / b:+6.1f} %"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="La escalera del arranque junto a hyperfine -N.")
    parser.add_argument("--repeticiones", type=int, default=10)
    parser.add_argument("--bloques", type=int, default=3)
    parser.add_argument("--corridas", type=int, default=5, help="corridas por bloque (runc y docker)")
    args = parser.parse_args(argv)
    if not shutil.which("hyperfine"):
        print("hyperfine no está instalado (paquete Debian «hyperfine»): ejecuta «make setup».")
        return 1
    docker = engines.get_engine("docker")
    motores = ["docker"] if docker.available else []
    root = Path(tempfile.mkdtemp(prefix="curso-bench-anatomia-"))
    try:
        cfg = anatomia.config(
            repeticiones=args.repeticiones,
            calentamiento=1,
            motores=motores,
            peldanos=["proceso", "espacios", "runc", "motor"],
        )
        res = anatomia.run(cfg, root=root, log=lambda line: print(f"  {line}"))
        table = anatomia.summarize(res.df, res.meta)
        print(f"\nLa escalera ({args.repeticiones} repeticiones por peldaño, intercaladas):")
        for _, r in table.iterrows():
            print(
                f"  {r['engine']:7s} {r['peldano']:40s} mediana {r['mediana_ms']:9.2f} ms  "
                f"IC 95 % [{r['ic_bajo_ms']:.2f}, {r['ic_alto_ms']:.2f}]"
            )
        for why in (res.meta.get("skipped_arms") or {}).items():
            print(f"  omitido: {why[0]}: {why[1]}")

        print(f"\nTres peldaños, curso frente a hyperfine -N ({args.bloques} bloques alternados):")
        rungs = [("proceso: echo ok", list(anatomia.COMMAND), 20 * args.corridas, None)]
        bundle = None
        if res.meta.get("rootfs") and oci.runc_availability()[0]:
            bundle = oci.make_bundle(Path(res.meta["rootfs"]), anatomia.COMMAND, parent=root)
            rungs.append(
                (
                    "runc run (bundle del curso, con espacio de red)",
                    oci.runc_argv(bundle, f"curso-bench-{secrets.token_hex(3)}"),
                    args.corridas,
                    None,
                )
            )
        run_id = f"bench-{secrets.token_hex(3)}"
        if docker.available and (info := images.resolve("alpine", docker)):
            rungs.append(
                (
                    f"docker run --rm {info['name']} echo ok",
                    docker.run_argv(info["name"], anatomia.COMMAND, run_id=run_id),
                    args.corridas,
                    docker.env(),
                )
            )
        try:
            for label, command, runs, env in rungs:
                ours, theirs = [], []
                for _ in range(args.bloques):
                    ours += helper_times(command, runs, env)
                    theirs += hyperfine_times(command, runs, True, env)
                _row(label, ours, theirs)
        finally:
            if bundle is not None:
                bundle.remove()
            if docker.available:
                docker.cleanup(run_id)
    finally:
        oci.unmount_under(root)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
