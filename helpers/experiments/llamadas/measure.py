"""Experiment 5's parameters and its run: every arm visited once per round (round-robin), the probe
timing its own loop in each; one measurement runs every chosen operation one after the other.

Each measurement gives, per operation, metric `<op>` = the thread's CPU time per call
(CLOCK_THREAD_CPUTIME_ID: on a shared machine it leaves out the time spent waiting for a CPU, which the
wall clock counts) and `<op>:pared` = wall-clock ns per call (the seed never says which clock it read), in every arm: one metric,
one clock. Which clock stands for an arm's cost (the wall clock under gVisor) is the analysis' choice
(`arms.primary_clock`), and a ratio always takes both arms through the same clock. Plus one row
`niveles_pid` (how many PID namespaces the probe saw itself in: the proof that nesting happened).
"""

from __future__ import annotations

import functools
import os
from dataclasses import asdict, dataclass

from ... import engines as eng
from ... import images, probes
from ...engines import runtimes
from ...errors import ErrorDelCurso, ParametroInvalido
from ..params import Params, param
from ..runner import (
    Log,
    Progress,
    Resultado,
    RunContext,
    experiment_run,
    measure_rounds,
    no_progress,
    print_log,
)
from .arms import (
    ARM_KINDS,
    ENGINE_VARIANTS,
    Arm,
    argv_for,
    bare_arms,
    container_options,
    engine_arms,
    namespaces_unavailable,
    unshare_prefix,
)
from .probe import LEVELS_METRIC, MAX_CALLS, OPERATIONS, PROBE, UNIT, WALL_SUFFIX, probe_args, run_probe

EXPERIMENT = "llamadas"
NEEDS_ROOT = {
    "gvisor": "Un contenedor con gVisor (runsc)"
}  # listed for a student without root in notebook 00
CPUS = (*sorted(os.sched_getaffinity(0)), None)  # None: the probe is not pinned
DOCUMENT_CALLS = 10_000_000  # «Runs getpid() syscall 10 million times» (its tests A and B)


def cpu_label(cpu: int | None) -> str:
    return "sin fijar" if cpu is None else f"CPU {cpu}"


@dataclass
class Config(Params):
    llamadas: int = param(200_000, "Llamadas por medición", minimum=1000, maximum=MAX_CALLS)
    repeticiones: int = param(8, "Repeticiones", minimum=1, maximum=100)
    calentamiento: int = param(1, "Rondas de calentamiento (descartadas)", minimum=0, maximum=20)
    operaciones: list = param(list(OPERATIONS), "Operaciones", options=OPERATIONS)
    brazos: list = param(list(ARM_KINDS), "Brazos", options=ARM_KINDS)
    motores: list = param(
        list(eng.CONTAINER_ENGINES), "Motores", options=eng.CONTAINER_ENGINES, allow_empty=True
    )
    cpu: int | None = param(
        0,
        "CPU de la sonda",
        kind="choice",
        options=CPUS,
        labels=cpu_label,
        help="La CPU a la que se fija la sonda («sin fijar»: la que elija el kernel).",
    )
    imagen: str = param("alpine", options=images.ROLE_NAMES)
    # An operation's loop stops early after this long (gVisor is ~100x slower): ns per call stay exact.
    # 0: never (every call is made).
    tope_ms: int = param(250, minimum=0, maximum=600_000)

    def check(self) -> None:
        if isinstance(self.cpu, bool):
            raise ParametroInvalido(
                f"CPU debe ser None (sin fijar) o una de {CPUS[:-1]}, pero recibió {self.cpu!r}."
            )


def measure_arm(arm: Arm, *, cfg: Config, probe_path: str, containers: dict) -> list[tuple[str, float, str]]:
    """One run of the probe in `arm`: (metric, value, unit) rows for every chosen operation."""
    args = probe_args(cfg.operaciones, cfg.llamadas, cfg.cpu, cfg.tope_ms)
    argv = argv_for(arm, args, probe_path=probe_path, container=containers.get((arm.engine, arm.variant)))
    found = run_probe(argv, arm.engine, cfg.operaciones)
    rows = [(op, found[op]["ns_cpu"], UNIT) for op in cfg.operaciones]
    rows += [(op + WALL_SUFFIX, found[op]["ns_pared"], UNIT) for op in cfg.operaciones]
    return rows + [(LEVELS_METRIC, float(found[cfg.operaciones[0]]["niveles_pid"]), "niveles")]


def _start_container(ctx: RunContext, arm: Arm, probe_path: str) -> str | None:
    """Start the long-lived container of an engine arm; None (with the reason, ctx.skip_arm) if it
    cannot run here."""
    engine = eng.get_engine(arm.engine)
    if arm.variant == "gvisor":
        if not ctx.require_root(arm.label, NEEDS_ROOT["gvisor"]):
            return None
        ok, why = engine.runtime_availability("runsc")
        if not ok:
            ctx.skip_arm(arm.label, why or "gVisor no está disponible.")
            return None
    name = ctx.container_name(arm.engine, arm.variant.replace("_", ""))
    try:
        engine.launch(
            arm.image,
            ["sleep", "86400"],
            run_id=ctx.run_id,
            name=name,
            opts=container_options(arm.variant, probe_path),
        )
    except ErrorDelCurso as exc:
        ctx.skip_arm(arm.label, f"no arrancó: {exc}")
        return None
    return name


def plan(ctx: RunContext, cfg: Config, probe_path: str) -> tuple[list[Arm], dict, dict]:
    """The arms that can run here (the others skipped with their reason), the engine arms' running
    containers {(engine, variant): name} and, per engine, the runsc that serves its gVisor arm."""
    arms = bare_arms(cfg.brazos)
    if any(a.depth > 0 for a in arms):
        reason = namespaces_unavailable()
        if reason:
            for a in arms:
                if a.depth > 0:
                    ctx.skip_arm(a.label, reason)
            arms = [a for a in arms if a.depth == 0]
    image_names = {e: ctx.images[e][cfg.imagen]["name"] for e in ctx.engines if e in ctx.images}
    containers: dict[tuple[str, str], str] = {}
    gvisor: dict[str, dict] = {}
    for arm in engine_arms(cfg.brazos, [e for e in ctx.engines if e != "bare"], image_names):
        if not ctx.engine_ok(arm.engine):
            continue
        with ctx.guard(arm.engine):
            name = _start_container(ctx, arm, probe_path)
            if name:
                containers[(arm.engine, arm.variant)] = name
                arms.append(arm)
                if arm.variant == "gvisor":
                    gvisor[arm.engine] = runtimes.runsc_info()
    return arms, containers, gvisor


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm round-robin; rows are written as they are measured."""
    cfg = cfg.validated()
    probe_path = str(probes.ensure(PROBE, log))
    wants_containers = any(k in cfg.brazos for k in ENGINE_VARIANTS)
    engine_names = ["bare"] + (cfg.motores if wants_containers else [])
    with experiment_run(
        EXPERIMENT, asdict(cfg), engine_names, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        arms, containers, gvisor = plan(ctx, cfg, probe_path)
        if not arms:
            raise ErrorDelCurso("No quedó ningún brazo que medir: revisa BRAZOS y MOTORES.")
        as_root = os.geteuid() == 0
        measure_rounds(
            ctx,
            arms,
            measure=functools.partial(measure_arm, cfg=cfg, probe_path=probe_path, containers=containers),
            progress=progress,
            meta={
                "timer": "la sonda: CLOCK_THREAD_CPUTIME_ID y CLOCK_MONOTONIC alrededor de su bucle",
                "probe": {
                    "name": PROBE,
                    "path": probe_path,
                    "operations": cfg.operaciones,
                    "calls": cfg.llamadas,
                    "cpu": cfg.cpu,
                    "max_ms_per_operation": cfg.tope_ms,
                    "open_stat_path": "/dev/null",
                },
                "gvisor": gvisor,
                "clocks": {
                    "<op>": "tiempo de CPU del hilo (CLOCK_THREAD_CPUTIME_ID), en todos los brazos",
                    "<op>" + WALL_SUFFIX: "reloj de pared (CLOCK_MONOTONIC), en todos los brazos",
                    "costo": "CPU del hilo; en gVisor, reloj de pared (y una proporción con gVisor usa el "
                    "reloj de pared en sus dos brazos)",
                },
                "pid_namespaces": {
                    "as_root": as_root,
                    "command": " ".join(unshare_prefix(1, as_root=as_root)),
                },
            },
        )
    return Resultado.load(ctx.run.dir)


# Rough wall-clock ns per call on a shared two-core machine, to say beforehand how long a run takes.
EXPECTED_NS = {"getpid": 400, "clock_gettime": 60, "read": 700, "open_close": 3000, "stat": 1500}
GVISOR_FACTOR = 100  # a call served by gVisor's Sentry: about a hundred times slower
START_S = {"bare": 0.01, "pid": 0.02, "container": 0.4}  # starting the probe in an arm (exec, unshare)
CONTAINER_START_S = 3.0  # each engine arm's container, started once


def estimated_seconds(cfg: Config) -> float:
    """About how long a run of `cfg` takes (every chosen arm runs): each round runs the probe once per
    arm, every operation up to its time cap; the containers start once."""
    per_round = 0.0
    for kind in cfg.brazos:
        if kind in ENGINE_VARIANTS:
            arms, start = len(cfg.motores), START_S["container"]
        else:
            arms = len(bare_arms([kind]))
            start = START_S["bare" if kind == "host" else "pid"]
        cap = cfg.tope_ms / 1000 if cfg.tope_ms else float("inf")
        factor = GVISOR_FACTOR if kind == "gvisor" else 1
        work = sum(min(cfg.llamadas * EXPECTED_NS[op] * factor / 1e9, cap) for op in cfg.operaciones)
        per_round += arms * (start + work)
    containers = sum(len(cfg.motores) for k in cfg.brazos if k in ENGINE_VARIANTS)
    return (cfg.repeticiones + cfg.calentamiento) * per_round + containers * CONTAINER_START_S


# The document's own settings (its tests A and B): 10 million getpid on the host and in a Docker container
# with the default seccomp profile, pinned to CPU 0 (`taskset -c 0`); the loop is never cut short.
DOCUMENT_PRESET = {
    "llamadas": DOCUMENT_CALLS,
    "operaciones": ["getpid"],
    "brazos": ["host", "seccomp"],
    "motores": ["docker"],
    "cpu": CPUS[0],
    "tope_ms": 0,
}


DEBIAN_PACKAGES: list[str] = []  # unshare comes with util-linux (essential); gVisor is built from Go


def provision(log: Log = print_log) -> None:
    """`make setup`: the probe and gVisor's runsc (built once, cached). Never raises for gVisor."""
    ok, message = probes.build(log)
    if not ok:
        log(f"[AVISO] Sondas: {message}")
    try:
        built, message = runtimes.build_runsc(log)
    except Exception as exc:  # noqa: BLE001 - gVisor is optional: say so and go on
        built, message = False, f"{type(exc).__name__}: {exc}"
    log(("[ OK ] " if built else "[AVISO] gVisor: ") + message)
