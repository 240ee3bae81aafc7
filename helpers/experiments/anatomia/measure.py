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
from .. import verdict
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
    """Rootfs, bundles, the warm pool's running containers and a first untimed try of every rung of the
    ladder (the Kubernetes rungs come after it: cluster_arms); what cannot run here is skipped with its
    reason (ctx.skip_arm), the rest is measured."""
    setup = Setup(
        ctx.run_id,
        envs={e: eng.get_engine(e).env() for e in ctx.engines if e != "bare"},
        names=ctx.container_name,
    )
    arms = rungs.plan(cfg.peldaños, list(image_names(cfg, ctx)), image_names(cfg, ctx))
    skip: Skips = {}
    dropped: set[tuple[str, str]] = set()  # skipped already, with their line (ctx.require_root)
    rungs.prepare_rootfs(ctx, setup, arms, cfg.imagen, skip, log)
    rungs.note_rootless(ctx, arms, log)
    rungs.prepare_bundles(ctx, setup, set(cfg.peldaños), skip, dropped)
    phases.start_running(ctx, arms, setup, skip)
    return setup, working(ctx, arms, setup, skip, dropped)


def image_names(cfg: Config, ctx) -> dict[str, str]:
    """{engine: the name of the run's image in it}, for the engines that have it."""
    return {e: ctx.images[e][cfg.imagen]["name"] for e in ctx.engines if e in ctx.images}


def working(ctx, arms: list[Arm], setup: Setup, skip: Skips, dropped=frozenset()) -> list[Arm]:
    """The arms that work here: each tried once, untimed; one that fails (or was skipped already) is left
    out with its reason (ctx.skip_arm)."""
    for arm in arms:
        key = (arm.engine, arm.variant)
        if key not in skip and key not in dropped:
            reason = try_once(arm, setup)
            if reason:
                skip[key] = reason
    for (engine, variant), reason in skip.items():
        ctx.skip_arm(rungs.rung_label(engine, variant), reason)
    gone = set(skip) | set(dropped)
    return [a for a in arms if (a.engine, a.variant) not in gone]


def cluster_arms(cfg: Config, ctx, setup: Setup, log: Log) -> list[Arm]:
    """The Kubernetes rungs, once the ladder is measured: the cluster started (untimed), the Pod's and the
    memory bill's arms and each engine's `run` again beside them (pod.BESIDE), each tried once; [] when
    the run does not ask for them or the cluster cannot start (its line said why)."""
    names = image_names(cfg, ctx)
    setup.pods = pod.start(ctx, names, set(cfg.peldaños), log)
    if not setup.pods:
        return []
    beside = [Arm(e, pod.BESIDE, image, rungs.rung_label(e, pod.BESIDE)) for e, image in names.items()]
    return working(ctx, [*pod.arms(setup.pods.image), *beside], setup, {})


def measure_cluster(cfg: Config, ctx, setup: Setup, log: Log, progress) -> None:
    """The Kubernetes rungs after the ladder, with the cluster up: the Pod and each engine's `run` in
    the ladder's number of rounds (pod.LOOP), then the memory bill in at most MIN_N (pod.BILL_LOOP).
    progress(steps done in these loops, what)."""
    progress(0, "arrancando el clúster de Kubernetes")
    cluster = cluster_arms(cfg, ctx, setup, log)
    if not cluster:
        return  # the cluster did not start, or no rung of it works here: its line said why
    launch = [a for a in cluster if not pod.is_bill(a)]
    measure = functools.partial(measure_arm, setup=setup)
    measure_rounds(ctx, launch, measure=measure, progress=lambda d, _t, w: progress(d, w), loop=pod.LOOP)
    done = len(launch) * (cfg.repeticiones + cfg.calentamiento)
    measure_rounds(
        ctx,
        [a for a in cluster if pod.is_bill(a)],
        measure=measure,
        repetitions=min(cfg.repeticiones, verdict.MIN_N),
        progress=lambda d, _t, w: progress(done + d, w),
        loop=pod.BILL_LOOP,
    )


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure the ladder (rows written as they are measured), then the Kubernetes rungs in their own
    loop with the cluster up (pod.LOOP), then capture the chains."""
    cfg = cfg.validated()
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        setup, arms = prepare(cfg, ctx, log)
        rounds = cfg.repeticiones + cfg.calentamiento
        cluster_planned = pod.GROUP in cfg.peldaños
        launch_arms = (1 + len(image_names(cfg, ctx))) if cluster_planned else 0  # the Pod, each `run` again
        bill_steps = len(pod.BILL_PODS) * (min(cfg.repeticiones, verdict.MIN_N) + cfg.calentamiento)
        ladder_steps = len(arms) * rounds
        total = ladder_steps + (launch_arms * rounds + bill_steps if cluster_planned else 0)
        measure_rounds(
            ctx,
            arms,
            measure=functools.partial(measure_arm, setup=setup),
            progress=lambda done, _total, what: progress(done, total, what),
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
        if cluster_planned:
            measure_cluster(
                cfg, ctx, setup, log, lambda done, what: progress(ladder_steps + done, total, what)
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
