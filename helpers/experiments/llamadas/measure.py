"""Experiment 5's parameters and its run: every arm visited once per round (round-robin), the probe
timing its own loop in each; one measurement runs every chosen operation one after the other.

Each measurement gives, per operation, metric `<op>` = the thread's CPU time per call
(CLOCK_THREAD_CPUTIME_ID: on a shared machine it leaves out the time spent waiting for a CPU, which the
wall clock counts) and `<op>:pared` = wall-clock ns per call (CLOCK_MONOTONIC, the clock the document's
`getpid_bench.c` read after its 1 000 warm-up calls), in every arm: one metric, one clock. Which clock
stands for an arm's cost (the wall clock under gVisor) is the analysis' choice (`arms.primary_clock`), and
a ratio always takes both arms through the same clock. Plus one row `niveles_pid` (how many PID
namespaces the probe saw itself in: the proof that nesting happened). The `nsenter` arm (the
repository's «Test C») gives one row `nsenter`: the mean µs of one `nsenter … /bin/true`, each timed from
the host (helpers.measure.spawn_and_wait), over `nsenter` entries per measurement.
"""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import asdict, dataclass

from ... import engines as eng
from ... import images, probes
from ... import measure as timing
from ...engines import runtimes
from ...errors import ComandoFallido, ErrorDelCurso, ParametroInvalido
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
    NSENTER,
    NSENTER_METRIC,
    NSENTER_UNIT,
    Arm,
    argv_for,
    bare_arms,
    container_options,
    engine_arms,
    namespaces_unavailable,
    nsenter_argv,
    unshare_prefix,
)
from .probe import LEVELS_METRIC, MAX_CALLS, OPERATIONS, PROBE, UNIT, WALL_SUFFIX, probe_args, run_probe

EXPERIMENT = "llamadas"
NEEDS_ROOT = {  # listed for a student without root in notebook 00
    "gvisor": "Un contenedor con gVisor (runsc)",
    NSENTER: "Entrar con nsenter en el namespace PID de un contenedor («Test C» del documento)",
}
CPUS = (*sorted(os.sched_getaffinity(0)), None)  # None: the probe is not pinned
DOCUMENT_CALLS = 10_000_000  # «Runs getpid() syscall 10 million times» (its tests A and B)
DOCUMENT_ENTRIES = 1000  # «Running 1000 nsenter operations...» (Test C, the first run.sh)


def cpu_label(cpu: int | None) -> str:
    return "sin fijar" if cpu is None else f"CPU {cpu}"


@dataclass
class Config(Params):
    llamadas: int = param(200_000, "Llamadas por medición", minimum=1000, maximum=MAX_CALLS)
    # 12: 6, 7 and 8 rounds all give the order-statistic interval [min, max]; 9 drops the extremes
    # (stats.order_k), 12 the next two; a power calculation on the fresh course's run (9 rounds, 69 s of
    # notebook) asked 12 for «Container syscall overhead: 25%» in Docker
    repeticiones: int = param(12, "Repeticiones", minimum=1, maximum=100)
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
    # Test C: how many `nsenter … /bin/true` one measurement times (the document ran 1 000 in one loop).
    nsenter: int = param(40, "Entradas con nsenter por medición («Test C»)", minimum=1, maximum=10_000)

    def check(self) -> None:
        if isinstance(self.cpu, bool):
            raise ParametroInvalido(
                f"CPU debe ser None (sin fijar) o una de {CPUS[:-1]}, pero recibió {self.cpu!r}."
            )


def measure_nsenter(pid: int, entries: int) -> float:
    """Test C: the mean µs of one `nsenter --target PID --pid -- /bin/true`, each entry timed from the
    host (spawn to exit, stdout and stderr discarded as run.sh's `> /dev/null 2>&1` did)."""
    argv = nsenter_argv(pid)
    total_ns = 0
    for _ in range(entries):
        elapsed, code, stderr = timing.spawn_and_wait(argv)
        if code != 0:
            raise ComandoFallido(
                f"«{' '.join(argv)}» terminó con código {code}: {stderr.strip()[-200:] or '(sin mensaje)'}"
            )
        total_ns += elapsed
    return total_ns / entries / 1000


def measure_arm(
    arm: Arm, *, cfg: Config, probe_path: str, containers: dict, pids: dict | None = None
) -> list[tuple[str, float, str]]:
    """One run of the probe in `arm`: (metric, value, unit) rows for every chosen operation; for the
    `nsenter` arm, one row of Test C."""
    if arm.variant == NSENTER:
        return [(NSENTER_METRIC, measure_nsenter((pids or {})[arm.engine], cfg.nsenter), NSENTER_UNIT)]
    args = probe_args(cfg.operaciones, cfg.llamadas, cfg.cpu, cfg.tope_ms)
    argv = argv_for(arm, args, probe_path=probe_path, container=containers.get((arm.engine, arm.variant)))
    found = run_probe(argv, arm.engine, cfg.operaciones)
    rows = [(op, found[op]["ns_cpu"], UNIT) for op in cfg.operaciones]
    rows += [(op + WALL_SUFFIX, found[op]["ns_pared"], UNIT) for op in cfg.operaciones]
    return rows + [(LEVELS_METRIC, float(found[cfg.operaciones[0]]["niveles_pid"]), "niveles")]


def _start_container(ctx: RunContext, arm: Arm, probe_path: str):
    """Start the long-lived container of an engine arm and return it (name and host PID); None (with
    the reason, ctx.skip_arm) if it cannot run here."""
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
        return engine.launch(
            arm.image,
            ["sleep", "86400"],
            run_id=ctx.run_id,
            name=name,
            opts=container_options(arm.variant, probe_path),
        )
    except ErrorDelCurso as exc:
        ctx.skip_arm(arm.label, f"no arrancó: {exc}")
        return None


def _nsenter_target(ctx: RunContext, arm: Arm, probe_path: str, started: dict):
    """The container whose process Test C enters: the engine's running `seccomp` container (the
    repository's was a plain `alpine sleep 600`), or one started for it; None (skipped, with the reason)
    without root or without `nsenter`."""
    if not ctx.require_root(arm.label, NEEDS_ROOT[NSENTER]):
        return None
    if not shutil.which("nsenter"):
        ctx.skip_arm(arm.label, "no está el programa «nsenter» (paquete util-linux).")
        return None
    return started.get((arm.engine, "seccomp")) or _start_container(ctx, arm, probe_path)


def plan(ctx: RunContext, cfg: Config, probe_path: str) -> tuple[list[Arm], dict, dict, dict]:
    """The arms that can run here (the others skipped with their reason), the engine arms' running
    containers {(engine, variant): name}, per engine the runsc that serves its gVisor arm, and per
    engine the host PID its `nsenter` arm enters."""
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
    started: dict[tuple[str, str], object] = {}
    gvisor: dict[str, dict] = {}
    pids: dict[str, int] = {}
    for arm in engine_arms(cfg.brazos, [e for e in ctx.engines if e != "bare"], image_names):
        if not ctx.engine_ok(arm.engine):
            continue
        with ctx.guard(arm.engine):
            if arm.variant == NSENTER:
                target = _nsenter_target(ctx, arm, probe_path, started)
                if target:
                    pids[arm.engine] = target.pid
                    containers[(arm.engine, NSENTER)] = target.name
                    arms.append(arm)
                continue
            container = _start_container(ctx, arm, probe_path)
            if container:
                containers[(arm.engine, arm.variant)] = container.name
                started[(arm.engine, arm.variant)] = container
                arms.append(arm)
                if arm.variant == "gvisor":
                    gvisor[arm.engine] = runtimes.runsc_info()
    return arms, containers, gvisor, pids


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm round-robin; rows are written as they are measured."""
    cfg = cfg.validated()
    probe_path = str(probes.ensure(PROBE, log))
    wants_containers = any(k in cfg.brazos for k in (*ENGINE_VARIANTS, NSENTER))
    engine_names = ["bare"] + (cfg.motores if wants_containers else [])
    with experiment_run(
        EXPERIMENT, asdict(cfg), engine_names, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        arms, containers, gvisor, pids = plan(ctx, cfg, probe_path)
        if not arms:
            raise ErrorDelCurso("No quedó ningún brazo que medir: revisa BRAZOS y MOTORES.")
        as_root = os.geteuid() == 0
        measure_rounds(
            ctx,
            arms,
            measure=functools.partial(
                measure_arm, cfg=cfg, probe_path=probe_path, containers=containers, pids=pids
            ),
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
                "nsenter": {
                    "command": "nsenter --target PID --pid -- /bin/true",
                    "entries": cfg.nsenter,
                    "targets": pids,
                    "containers": {e: containers[(e, NSENTER)] for e in pids},
                    "timer": "time.perf_counter_ns + os.posix_spawnp, una entrada a la vez; la media en µs",
                    "document": "1 000 entradas en un bucle de bash con date +%s%N alrededor (primer run.sh)",
                },
                "clocks": {
                    "<op>": "tiempo de CPU del hilo (CLOCK_THREAD_CPUTIME_ID), en todos los brazos",
                    "<op>" + WALL_SUFFIX: "reloj de pared (CLOCK_MONOTONIC, el de getpid_bench.c del "
                    "documento), en todos los brazos",
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
NSENTER_S = 0.01  # one `nsenter … /bin/true` (the document's took 1.9 ms)
CONTAINER_START_S = 3.0  # each engine arm's container, started once


def estimated_seconds(cfg: Config) -> float:
    """About how long a run of `cfg` takes (every chosen arm runs): each round runs the probe once per
    arm, every operation up to its time cap; the containers start once."""
    per_round = 0.0
    for kind in cfg.brazos:
        if kind == NSENTER:
            per_round += len(cfg.motores) * cfg.nsenter * NSENTER_S
            continue
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


# The document's own settings, as its repository's first run.sh ran them: tests A and B, 10 million getpid
# on the host and in a Docker container with the default seccomp profile, unpinned (its README's «Already
# done in script with taskset -c 0» holds for no version of run.sh: the first pinned test A only under a
# working perf, and its recorded run says «Running without perf»); the loop is never cut short; and Test C,
# 1 000 `nsenter --target PID --pid -- /bin/true` per measurement (as root).
DOCUMENT_PRESET = {
    "llamadas": DOCUMENT_CALLS,
    "operaciones": ["getpid"],
    "brazos": ["host", "seccomp", NSENTER],
    "motores": ["docker"],
    "cpu": None,
    "tope_ms": 0,
    "nsenter": DOCUMENT_ENTRIES,
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
