"""Experiment 4's parameters and its run: every rung of the ladder timed exactly like experiment 1
(spawn to reap, `perf_counter_ns`, `echo ok`), interleaved round-robin in a seeded order per round;
then, for one run per engine, the chain of processes the launch creates (chain.py)."""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import asdict, dataclass

from ... import engines as eng
from ... import images, proc_events
from ...engines import oci
from ...errors import ErrorDelCurso
from ..params import Params, param
from ..runner import Arm, Log, Progress, Resultado, experiment_run, measure_rounds, no_progress, print_log
from . import phases, pod, rungs
from .chain import capture_chains
from .rungs import COMMAND, GROUPS, Setup, Skips

EXPERIMENT = "anatomia"


@dataclass
class Config(Params):
    # 12 rounds: with the spread of a stored run (8 rounds in 29 s, medido con carga), «runtime_pequeno»
    # is decided in ~99 % of simulated runs at 12 against ~74 % at 8 (helpers.stats, the one rule).
    repeticiones: int = param(12, "Repeticiones", minimum=1, maximum=200)
    calentamiento: int = param(1, "Calentamiento", minimum=0, maximum=20)
    peldaños: list = param(list(GROUPS), "Peldaños", options=GROUPS)
    imagen: str = param("alpine", "Imagen", options=images.ROLE_NAMES)
    motores: list = param(
        list(eng.CONTAINER_ENGINES), "Motores", options=eng.CONTAINER_ENGINES, allow_empty=True
    )


def measure_arm(arm: Arm, setup: Setup) -> list[tuple]:
    """One repetition of one rung: its (metric, ms, "ms") rows."""
    n = next(setup.counter)
    if arm.engine == "bare":
        return [(rungs.METRIC, round(rungs.measure_bare(arm, setup, n), 4), "ms")]
    if arm.engine == pod.ENGINE:
        return pod.measure(arm, setup.pods)
    return phases.measure_engine(arm, setup, n)


def try_once(arm: Arm, setup: Setup) -> str | None:
    """Run a rung once, untimed (its result is discarded): None if it works here, else the Spanish
    reason it cannot (a missing tool, no root, an engine that cannot set up its network…)."""
    try:
        measure_arm(arm, setup)
    except ErrorDelCurso as exc:
        if os.geteuid() != 0 and arm.engine == "bare":
            return f"sin root no se pudo ni con un espacio de nombres de usuario (unshare -r): {exc}"
        return f"no funciona en esta máquina: {exc}"
    except OSError as exc:
        return f"no se puede ejecutar: {exc.strerror or exc}."
    except Exception as exc:  # noqa: BLE001 - an SDK error (docker.errors.APIError) says why in its text
        return f"no funciona en esta máquina: {type(exc).__name__}: {str(exc)[-300:]}"
    return None


def prepare(cfg: Config, ctx, log: Log) -> tuple[Setup, list[Arm]]:
    """Rootfs, bundles, the warm pool's running containers and a first untimed try of every rung;
    what cannot run here is skipped with its reason (ctx.skip_arm), the rest is measured."""
    image_names = {e: ctx.images[e][cfg.imagen]["name"] for e in ctx.engines if e in ctx.images}
    setup = Setup(
        ctx.run_id,
        envs={e: eng.get_engine(e).env() for e in ctx.engines if e != "bare"},
        names=ctx.container_name,
    )
    arms = rungs.plan(cfg.peldaños, list(image_names), image_names)
    skip: Skips = {}
    dropped: set[tuple[str, str]] = set()  # skipped already, with their line (ctx.require_root)
    rungs.prepare_rootfs(ctx, setup, arms, cfg.imagen, skip, log)
    rungs.note_rootless(ctx, arms, log)
    rungs.prepare_bundles(ctx, setup, set(cfg.peldaños), skip, dropped)
    phases.start_running(ctx, arms, setup, skip)
    setup.pods = pod.start(ctx, image_names, set(cfg.peldaños), log)
    if setup.pods:
        arms += pod.arms(setup.pods.image)
    # One untimed try of each rung: a rung that fails here is skipped with its reason, the rest runs.
    for arm in arms:
        key = (arm.engine, arm.variant)
        if key not in skip and key not in dropped:
            reason = try_once(arm, setup)
            if reason:
                skip[key] = reason
    for (engine, variant), reason in skip.items():
        ctx.skip_arm(rungs.rung_label(engine, variant), reason)
    gone = set(skip) | dropped
    return setup, [a for a in arms if (a.engine, a.variant) not in gone]


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure the ladder (rows written as they are measured), then capture the chains."""
    cfg = cfg.validated()
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        setup, arms = prepare(cfg, ctx, log)
        measure_rounds(
            ctx,
            arms,
            measure=functools.partial(measure_arm, setup=setup),
            progress=progress,
            meta={
                "command": " ".join(COMMAND),
                "rootfs": str(setup.rootfs or ""),
                "bundles": {
                    k: {"network_namespace": b.network_namespace, "rootless": b.rootless}
                    for k, b in setup.bundles.items()
                },
                "runsc": str(setup.runsc or ""),
            },
        )
        if "cadena" in cfg.peldaños:
            capture_chains(ctx, cfg.imagen, setup.envs, log)
    return Resultado.load(ctx.run.dir)


def provision(log: Log = print_log) -> None:
    """Nothing to build: runc and unshare come from Debian packages, the rootfs is exported on first
    use. Says what is missing, in Spanish, and never raises."""
    ok, why = oci.runc_availability()
    if not ok:
        log(f"Anatomía del arranque: {why}")
    if not shutil.which("unshare"):
        log("Anatomía del arranque: falta «unshare» (paquete util-linux); se omitirán esos peldaños.")
    ok, why = proc_events.availability()
    if not ok:
        log(f"Anatomía del arranque: sin cadena de procesos ({why})")
    if os.geteuid() != 0:
        log(
            "Anatomía del arranque: sin root, los espacios de nombres y chroot se miden dentro de un espacio "
            "de usuario (unshare -r); la cadena de procesos y la capa overlay necesitan root."
        )
