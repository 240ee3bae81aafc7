"""The engine rungs: `run` with and without network, the engine's phases apart (create, start, wait,
remove: one CLI process each, the same way for Docker and Podman, as `run` itself is timed), and the warm
pool (a container created beforehand, started on demand with `start -a`; a container kept running,
entered with `exec`)."""

from __future__ import annotations

from ... import engines as eng
from ... import measure
from ...errors import ErrorDelCurso
from ..runner import Arm
from . import pod
from .rungs import COMMAND, METRIC, Setup, Skips

PHASES = (
    ("fase_crear", "crear"),
    ("fase_iniciar", "iniciar"),
    ("fase_esperar", "esperar"),
    ("fase_borrar", "borrar"),
)
PHASE_TOTAL = "fases_total"
# The process each phase's window holds, from its spawn to its exit (measure.time_command), the same for
# both engines: metric -> its argv, from the engine, the image, the container's name and the run's id.
PHASE_ARGV = {
    "fase_crear": lambda engine, image, name, run_id: engine.create_argv(
        image, COMMAND, run_id=run_id, name=name
    ),
    "fase_iniciar": lambda engine, image, name, run_id: engine.start_argv(name),
    "fase_esperar": lambda engine, image, name, run_id: engine.wait_argv(name),
    "fase_borrar": lambda engine, image, name, run_id: engine.rm_argv([name]),
}
CLIENT_WINDOW = {  # the client's share of every phase's window, per engine
    "docker": "un proceso del CLI, de lanzarlo a que sale: su propio arranque y su llamada a dockerd",
    "podman": "un proceso del CLI, de lanzarlo a que sale: su propio arranque y el trabajo, que hace él "
    "mismo (no hay daemon)",
}
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
    ("docker", "fase_esperar"): "que el contenedor termine: `docker wait` pide a la API que avise cuando "
    "sale (no hay sondeo)",
    ("podman", "fase_iniciar"): "conmon, el runtime y la red por defecto (netavark)",
    ("docker", "fase_iniciar"): "containerd, el shim, runc y la red por defecto (bridge y veth, que prepara "
    "dockerd en sus propios hilos)",
}


def phase_window(engine: str, metric: str) -> str:
    """What the window of `metric` holds for `engine`, in Spanish: the command the code times (its verb,
    read from the same PHASE_ARGV), the client's share, and PHASE_INCLUDES where it adds something."""
    verb = " ".join(PHASE_ARGV[metric](eng.get_engine(engine), "IMAGEN", "NOMBRE", None)[:2])
    extra = PHASE_INCLUDES.get((engine, metric))
    return f"`{verb} …`, {CLIENT_WINDOW[engine]}" + (f"; dentro, {extra}" if extra else "")


def measure_phases(engine: eng.Engine, image: str, name: str, run_id: str, env: dict) -> list[tuple]:
    """create, start, wait, remove, each timed on its own: one CLI process per phase (PHASE_ARGV), for
    Docker as for Podman, so the phases of the two engines hold the same kind of window."""
    values = {}
    try:
        for metric, _ in PHASES:
            argv = PHASE_ARGV[metric](engine, image, name, run_id)
            values[metric] = measure.time_command(argv, env)
    finally:
        if len(values) < len(PHASES):  # a phase failed: do not leave the container for the next one's name
            engine.remove([name])
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
    if arm.variant in ("run_sin_red", "run_red", pod.BESIDE):
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
