"""Benchmark for experiment 5: getpid per arm as the experiment measures it, next to the probe run by hand.

The experiment (`llamadas.run`) starts its containers once and runs the probe in them by `exec`. The second
path shares none of that: the same static probe started the way a student would type it, directly on the
host, under `unshare --pid --fork`, and with a fresh `docker run --rm` / `podman run --rm` per repetition
(default seccomp, `--security-opt seccomp=unconfined`, `--runtime runsc`), its output read here by its own
regular expression. How the probe gets into the container must not change what one call costs.

Both paths report the probe's two clocks per call; each is compared with itself: the thread's CPU time
(every arm but gVisor, where the call is served by another thread) and the wall clock (every arm). They
run in rounds (experiment, then by hand, the order swapping every round) and are judged on the medians
over rounds of each round's ratio (bench.common); exit code as there.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import engines, images, probes
from ..experiments import llamadas as exp
from ..experiments.llamadas.arms import arm_label
from ..experiments.llamadas.probe import PROBE, WALL_SUFFIX
from .common import TIGHTEST, Tolerance, compare, exit_code

# Single runs of 200 000 calls spread by about ±10 % here (more with a busy CPU); medians over rounds.
TOLERANCE = Tolerance(relative=TIGHTEST)  # no wider than the margins it backs
NAMES = ("experimento (exec)", "a mano (run --rm / directo)")
PROBE_INSIDE = "/sonda-a-mano"
LINE = re.compile(r"operacion=getpid .*?ns_por_llamada=([\d.]+) ns_cpu_por_llamada=([\d.]+)")
ARMS = [("bare", "host"), ("bare", "pid:1")] + [
    (name, variant) for name in engines.CONTAINER_ENGINES for variant in ("seccomp", "sin_seccomp", "gvisor")
]


def by_hand_argv(engine_name: str, variant: str, probe: Path, args: list[str], image: str, run_id: str):
    """The command a student would type for one arm (the probe's path as it is seen where it runs)."""
    if engine_name == "bare":
        if variant == "host":
            return [str(probe), *args]
        unshare = ["unshare", "--pid", "--fork"]
        if os.geteuid() != 0:
            unshare = ["unshare", "--user", "--map-root-user", "--pid", "--fork"]
        return [*unshare, str(probe), *args]
    opts = engines.RunOptions(
        network="none",
        volumes=[(str(probe), PROBE_INSIDE, "ro")],
        security_opt=["seccomp=unconfined"] if variant == "sin_seccomp" else [],
        runtime="runsc" if variant == "gvisor" else None,
    )
    return engines.get_engine(engine_name).run_argv(image, [PROBE_INSIDE, *args], run_id=run_id, opts=opts)


def run_by_hand(argv: list[str], env: dict | None) -> tuple[float, float]:
    """(wall ns, CPU ns) per getpid call, read from the probe's own line."""
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    found = LINE.search(result.stdout)
    if result.returncode != 0 or not found:
        detail = (result.stderr or result.stdout).strip()[-200:]
        raise RuntimeError(f"«{' '.join(argv)[:120]}» falló (código {result.returncode}): {detail}")
    return float(found.group(1)), float(found.group(2))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Llamadas al sistema: el experimento junto a la sonda a mano."
    )
    parser.add_argument("--llamadas", type=int, default=200_000)
    parser.add_argument("--rondas", type=int, default=6)  # an IC 95 % needs 6
    parser.add_argument("--repeticiones", type=int, default=3, help="por ronda, en cada camino")
    parser.add_argument("--cpu", type=int, default=0)
    args = parser.parse_args(argv)
    motores = [n for n in engines.CONTAINER_ENGINES if engines.get_engine(n).available]
    root = Path(tempfile.mkdtemp(prefix="curso-bench-llamadas-"))
    run_id = f"bench-{secrets.token_hex(3)}"
    probe = probes.ensure(PROBE)
    cfg = exp.config(
        llamadas=args.llamadas,
        repeticiones=args.repeticiones,
        calentamiento=0,
        operaciones=["getpid"],
        brazos=["host", "pid", "seccomp", "sin_seccomp", "gvisor"],
        motores=motores,
        cpu=args.cpu,
    )
    # The probe's usage, typed: OPERATIONS N CPU MAX_MS (the same cap on a slow kernel as the experiment's).
    probe_args = ["getpid", str(args.llamadas), str(args.cpu), str(cfg.tope_ms)]
    cpu_rounds: dict = {arm: [] for arm in ARMS}
    wall_rounds: dict = {arm: [] for arm in ARMS}
    failed: dict = {}
    try:
        for k in range(args.rondas):
            hand = {}
            if k % 2:
                hand = _by_hand_round(probe, probe_args, run_id, args.repeticiones, failed)
            print(f"Ronda {k + 1} de {args.rondas}: el experimento…", flush=True)
            res = exp.run(cfg, root=root, log=lambda line: None)
            if k % 2 == 0:
                hand = _by_hand_round(probe, probe_args, run_id, args.repeticiones, failed)
            df = res.df
            for arm in ARMS:
                rows = df[(df["engine"] == arm[0]) & (df["variant"] == arm[1])]
                cpu = rows[rows["metric"] == "getpid"]["value"].astype(float).tolist()
                wall = rows[rows["metric"] == "getpid" + WALL_SUFFIX]["value"].astype(float).tolist()
                if arm in hand and wall:
                    wall_rounds[arm].append((wall, [w for w, _ in hand[arm]]))
                    if arm[1] != "gvisor":
                        cpu_rounds[arm].append((cpu, [c for _, c in hand[arm]]))
        skipped = res.meta.get("skipped_arms") or {}
    finally:
        for name in motores:
            engines.get_engine(name).cleanup(run_id)
        shutil.rmtree(root, ignore_errors=True)

    print(f"\ngetpid, {args.llamadas} llamadas por medición, sonda fijada a la CPU {args.cpu}:\n")
    comparisons, not_made = [], []
    for arm in ARMS:
        label = arm_label(*arm)
        if not wall_rounds[arm]:
            why = failed.get(arm) or next((v for k, v in skipped.items() if label in k), None)
            if arm[0] == "bare" or arm[0] in motores:
                not_made.append(f"{label}: {why or 'el experimento no lo midió.'}")
            continue
        if cpu_rounds[arm]:
            comparisons.append(
                compare(
                    f"{label}, CPU del hilo", cpu_rounds[arm], unit="ns", tolerance=TOLERANCE, names=NAMES
                )
            )
        comparisons.append(
            compare(f"{label}, reloj de pared", wall_rounds[arm], unit="ns", tolerance=TOLERANCE, names=NAMES)
        )
    return exit_code(comparisons, not_made)


def _by_hand_round(probe: Path, probe_args: list[str], run_id: str, reps: int, failed: dict) -> dict:
    """One round by hand: every arm `reps` times, arms interleaved; {arm: [(wall ns, cpu ns), ...]}."""
    out: dict = {}
    image_of = {}
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        info = images.resolve("alpine", engine) if engine.available else None
        image_of[name] = info["name"] if info else None
    for _ in range(reps):
        for arm in ARMS:
            if arm in failed or (arm[0] != "bare" and not image_of.get(arm[0])):
                continue
            env = engines.get_engine(arm[0]).env() if arm[0] != "bare" else None
            command = by_hand_argv(*arm, probe, probe_args, image_of.get(arm[0]) or "", run_id)
            try:
                out.setdefault(arm, []).append(run_by_hand(command, env))
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                failed[arm] = f"a mano falló: {exc}"
                out.pop(arm, None)
    return out


if __name__ == "__main__":
    sys.exit(main())
