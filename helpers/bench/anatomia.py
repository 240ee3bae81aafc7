"""Benchmark for experiment 4: rungs of the ladder as the experiment measures them, next to `hyperfine -N`.

The experiment runs in several short rounds (`anatomia.run`, its rungs interleaved as always); after or
before each round (alternating), `hyperfine -N` (no shell) times the same commands, typed as in a terminal:
`echo ok`, `unshare -m -u -i -p -f -n echo ok`, `runc run` on a bundle of the same image with a network
namespace, and `docker run --rm IMAGE echo ok` / `podman run --rm ...`. The experiment's figure is read
from its own run (raw.csv); hyperfine's from its JSON export: no measuring code is shared. Each rung is
judged on the medians over rounds of the round's difference and ratio (bench.common); exit code as there.
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

from .. import engines, images
from ..engines import oci
from ..experiments import anatomia
from ..experiments.anatomia.analysis import values
from ..experiments.anatomia.rungs import RUNG_LABEL
from .common import TIGHTEST, Tolerance, compare, exit_code, need
from .harness import hyperfine_times

ECHO = ["echo", "ok"]
# A sub-millisecond rung is judged by its difference (what a spawn of the course's timer may add); the
# others by their ratio.
TOLERANCE = Tolerance(relative=TIGHTEST, absolute=0.1)
NAMES = ("experimento (anatomia.run)", "hyperfine -N")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="La escalera del arranque junto a hyperfine -N.")
    parser.add_argument("--rondas", type=int, default=6)
    parser.add_argument("--repeticiones", type=int, default=4, help="repeticiones del experimento por ronda")
    args = parser.parse_args(argv)
    if not need("hyperfine", "hyperfine"):
        return exit_code([], ["hyperfine no está instalado."])
    motores = [n for n in engines.CONTAINER_ENGINES if engines.get_engine(n).available]
    root = Path(tempfile.mkdtemp(prefix="curso-bench-anatomia-"))
    run_id = f"bench-{secrets.token_hex(3)}"
    # rung -> (label, argv for hyperfine, env, runs per block); filled once the first round has shown
    # what runs here (a rung the experiment skips is not compared).
    commands: dict[tuple[str, str], tuple[str, list[str], dict | None, int]] = {}
    rounds: dict[tuple[str, str], list] = {}
    bundle = None
    skipped: dict = {}
    try:
        for k in range(args.rondas):
            cfg = anatomia.config(
                repeticiones=args.repeticiones,
                calentamiento=1,
                motores=motores,
                peldaños=["proceso", "espacios", "runc", "motor"],
            )
            hand_first = k % 2 == 1  # round 0 shows which rungs run here: hyperfine goes after it
            if hand_first:
                hand = _hyperfine(commands)
            print(f"Ronda {k + 1} de {args.rondas}: el experimento…", flush=True)
            res = anatomia.run(cfg, root=root, log=lambda line: None)
            skipped = res.meta.get("skipped_arms") or {}
            if not commands:
                bundle = _fill(commands, res, root, run_id)
            if not hand_first:
                hand = _hyperfine(commands)
            for key in commands:
                rounds.setdefault(key, []).append((list(values(res.df, *key)), hand[key]))
        print()
        comparisons = [
            compare(commands[key][0], rounds[key], unit="ms", tolerance=TOLERANCE, names=NAMES)
            for key in commands
        ]
    finally:
        if bundle is not None:
            bundle.remove()
        for name in motores:
            engines.get_engine(name).cleanup(run_id)
        oci.unmount_under(root)
        shutil.rmtree(root, ignore_errors=True)
    expected = [("bare", "proceso"), ("bare", "ns_red"), ("bare", "runc_con_netns")]
    expected += [(name, "run_red") for name in engines.CONTAINER_ENGINES]
    not_made = []
    for engine, variant in expected:
        if (engine, variant) not in commands:
            label = RUNG_LABEL[variant]
            label = label if engine == "bare" else f"{engines.DISPLAY[engine]}: {label}"
            not_made.append(f"{label}: {skipped.get(label, 'no se midió aquí (motor no disponible).')}")
    return exit_code(comparisons, not_made)


def _hyperfine(commands: dict) -> dict:
    return {key: hyperfine_times(argv, runs, env, warmup=1) for key, (_, argv, env, runs) in commands.items()}


def _fill(commands: dict, res, root: Path, run_id: str):
    """The commands hyperfine times, for the rungs the experiment measured here; returns the bundle it
    wrote for runc (removed by the caller)."""
    present = set(zip(res.df["engine"], res.df["variant"], strict=True))
    if ("bare", "proceso") in present:
        commands[("bare", "proceso")] = ("proceso: echo ok", ECHO, None, 20)
    if ("bare", "ns_red") in present:
        argv = ["unshare", "-m", "-u", "-i", "-p", "-f", "-n", *ECHO]
        commands[("bare", "ns_red")] = (" ".join(argv), argv, None, 20)
    bundle = None
    if ("bare", "runc_con_netns") in present and res.meta.get("rootfs"):
        bundle = oci.make_bundle(Path(res.meta["rootfs"]), ECHO, network_namespace=True, parent=root)
        argv = oci.runc_argv(bundle, f"curso-bench-{secrets.token_hex(3)}")
        commands[("bare", "runc_con_netns")] = (
            "runc run (bundle de la imagen, con espacio de red)",
            argv,
            None,
            5,
        )
    for name in engines.CONTAINER_ENGINES:
        if (name, "run_red") not in present:
            continue
        engine = engines.get_engine(name)
        info = images.resolve("alpine", engine)
        argv = engine.run_argv(info["name"], ECHO, run_id=run_id)
        commands[(name, "run_red")] = (f"{name} run --rm {info['name']} echo ok", argv, engine.env(), 4)
    return bundle


if __name__ == "__main__":
    sys.exit(main())
