"""The engine rungs: `run` with and without network, the engine's phases apart (create, start, wait,
remove: Docker through the SDK's low-level API, Podman through its CLI), and the warm pool (a container
created beforehand, started on demand with `start -a`; a container kept running, entered with `exec`)."""

from __future__ import annotations

import time

from ... import engines as eng
from ... import measure
from ...errors import ComandoFallido, ErrorDelCurso
from ..runner import Arm
from .rungs import COMMAND, METRIC, Setup, Skips

PHASES = (
    ("fase_crear", "crear"),
    ("fase_iniciar", "iniciar"),
    ("fase_esperar", "esperar"),
    ("fase_borrar", "borrar"),
)
PHASE_TOTAL = "fases_total"
# What each phase's window holds beyond its name, where it is not obvious (engine, metric) -> Spanish.
# Podman's «esperar» was checked on this kind of machine: `podman wait --interval 10ms` takes as long
# as the default 250 ms (medians 463 and 460 ms, 6 each, loaded machine), and strace shows the CLI
# blocked on a futex (the container's lock) rather than sleeping between polls; the lock is held by the
# cleanup conmon starts when the container exits (`podman container cleanup`: network teardown,
# unmounting the layer), which the process chain shows.
PHASE_INCLUDES = {
    ("podman", "fase_esperar"): "que el contenedor termine y que se limpie: `podman wait` espera el "
    "cerrojo del contenedor mientras la limpieza que lanza conmon (`podman container cleanup`) deshace la "
    "red y desmonta la capa; no es su intervalo de sondeo (con `--interval 10ms` tarda lo mismo)",
    ("docker", "fase_esperar"): "que el contenedor termine: la API avisa cuando sale (no hay sondeo)",
    ("podman", "fase_iniciar"): "conmon, el runtime y la red por defecto (netavark)",
    ("docker", "fase_iniciar"): "containerd, el shim, runc y la red por defecto (bridge y veth, que prepara "
    "dockerd en sus propios hilos)",
}


def _timed(fn, *args, **kw) -> float:
    start = time.perf_counter_ns()
    fn(*args, **kw)
    return (time.perf_counter_ns() - start) / 1e6


def measure_phases(engine: eng.Engine, image: str, name: str, run_id: str, env: dict) -> list[tuple]:
    """create, start, wait, remove, each timed on its own. Docker: the SDK's low-level API (what the
    docker CLI itself calls); Podman: its CLI (it has no daemon to call)."""
    removed = False
    try:
        if engine.name == "docker":
            holder = {}
            create = _timed(
                lambda: holder.setdefault("id", engine.api_create(image, COMMAND, run_id=run_id, name=name))
            )
            start = _timed(engine.api_start, holder["id"])
            wait = _timed(lambda: holder.setdefault("rc", engine.api_wait(holder["id"])))
            if holder["rc"] != 0:
                raise ComandoFallido(f"El contenedor {name} terminó con código {holder['rc']}.")
            remove = _timed(engine.api_remove, holder["id"])
        else:
            create = measure.time_command(engine.create_argv(image, COMMAND, run_id=run_id, name=name), env)
            start = measure.time_command(engine.start_argv(name), env)
            wait = measure.time_command(engine.wait_argv(name), env)
            remove = measure.time_command(engine.rm_argv([name]), env)
        removed = True
    finally:
        if not removed:  # a phase failed: do not leave the container for the next repetition's name
            engine.remove([name])
    values = dict(zip([m for m, _ in PHASES], (create, start, wait, remove)))
    rows = [(metric, round(value, 4), "ms") for metric, value in values.items()]
    rows.append((PHASE_TOTAL, round(sum(values.values()), 4), "ms"))
    return rows


def measure_pool(engine: eng.Engine, image: str, name: str, run_id: str, env: dict) -> float:
    """A container created beforehand (not timed), then `start -a` timed: the warm-pool trick."""
    engine.create(image, COMMAND, run_id=run_id, name=name)
    try:
        return measure.time_command(engine.start_argv(name, attach=True), env)
    finally:
        engine.remove([name])


def measure_engine(arm: Arm, setup: Setup, n: int) -> list[tuple]:
    """One engine rung, timed: its (metric, ms, "ms") rows."""
    engine = eng.get_engine(arm.engine)
    env = setup.envs[arm.engine]
    name = setup.names(arm.engine, arm.variant, n)
    if arm.variant in ("run_sin_red", "run_red"):
        opts = eng.RunOptions(network="none") if arm.variant == "run_sin_red" else None
        argv = engine.run_argv(arm.image, COMMAND, run_id=setup.run_id, name=name, opts=opts)
        return [(METRIC, round(measure.time_command(argv, env), 4), "ms")]
    if arm.variant == "fases":
        return measure_phases(engine, arm.image, name, setup.run_id, env)
    if arm.variant == "pool":
        return [(METRIC, round(measure_pool(engine, arm.image, name, setup.run_id, env), 4), "ms")]
    if arm.variant == "pool_exec":
        argv = engine.exec_argv(setup.running[arm.engine], COMMAND)
        return [(METRIC, round(measure.time_command(argv, env), 4), "ms")]
    raise KeyError(arm.variant)


def start_running(ctx, arms: list[Arm], setup: Setup, skip: Skips) -> None:
    """The running half of the warm pool: one container per engine, started now (not timed, no
    network: exec does not use it); the run's label removes it at the end, as every container."""
    for arm in arms:
        if arm.variant != "pool_exec":
            continue
        name = ctx.container_name(arm.engine, "en-marcha")
        try:
            eng.get_engine(arm.engine).launch(
                arm.image,
                ["sleep", "86400"],
                run_id=ctx.run_id,
                name=name,
                opts=eng.RunOptions(network="none"),
            )
            setup.running[arm.engine] = name
        except ErrorDelCurso as exc:
            skip[(arm.engine, arm.variant)] = f"no pude dejar un contenedor en marcha: {exc}"
