"""The containers of one arm, started level by level (helpers.engines.nested.Chain drives them): the
options of an outer container, the worker at the arm's level and the command whose startup is timed."""

from __future__ import annotations

from pathlib import Path

from ... import engines as eng
from ... import probes
from ...engines.nested import Chain, entry, wait_inner_engine
from .build import INNER_CONF, NESTED, PROBE_IN_CONTAINER, SHARE, SHARE_IN_CONTAINER, busybox_tar
from .footprint import process_tree

SLEEP = ["sleep", "86400"]


def probe_path(depth: int) -> str:
    """Where cronometro is, seen from inside `depth` nested containers (0 = the host)."""
    return str(probes.path("cronometro")) if depth == 0 else PROBE_IN_CONTAINER


def nested_options(engine_name: str, *, mode: dict, store: str, inner: bool) -> eng.RunOptions:
    """The options of a container that runs an engine inside. `mode`: privileged / security_opt / devices /
    cap_add / extra; `store`: the host (or outer) directory holding the inner engine's image store."""
    spec = NESTED[engine_name]
    share = SHARE_IN_CONTAINER if inner else str(SHARE)
    probe = PROBE_IN_CONTAINER if inner else str(probes.path("cronometro"))
    return eng.RunOptions(
        network="none",
        privileged=bool(mode.get("privileged")),
        security_opt=tuple(mode.get("security_opt", ())),
        devices=tuple(mode.get("devices", ())),
        cap_add=tuple(mode.get("cap_add", ())),
        volumes=[
            (share, SHARE_IN_CONTAINER, "ro"),
            (probe, PROBE_IN_CONTAINER, "ro"),
            (store, spec.store, ""),
        ],
        env={"CONTAINERS_CONF": f"{SHARE_IN_CONTAINER}/{INNER_CONF.name}"} if engine_name == "podman" else {},
        stop_timeout=0,
        extra=tuple(mode.get("extra", ())),
    )


def worker_options(depth: int) -> eng.RunOptions:
    probe = probe_path(depth)
    # stop_timeout 0: `sleep` as PID 1 ignores SIGTERM, and `podman rm -f` would wait 10 s for it.
    return eng.RunOptions(network="none", volumes=[(probe, PROBE_IN_CONTAINER, "ro")], stop_timeout=0)


def startup_argv(engine_name: str, image: str, run_id: str) -> list[str]:
    """The `run --rm IMAGE echo ok` whose startup is measured (the same command at every level)."""
    return eng.get_engine(engine_name).run_argv(
        image, ["echo", "ok"], run_id=run_id, remove=True, opts=eng.RunOptions(network="none")
    )


def load_in_chain(chain: Chain, tar: Path) -> None:
    """Load a saved image (from the shared folder) into the engine inside the innermost outer container."""
    chain.call(
        [chain.engine, "load", "-q", "-i", f"{SHARE_IN_CONTAINER}/{tar.name}"], what=f"cargar {tar.name}"
    )


def _note_outer_pid(ctx, chain: Chain, pid: int) -> None:
    chain.outer_pid = pid
    ctx.run.meta.setdefault("pids_exteriores", []).append(pid)


def _start_host_outer(ctx, chain: Chain, name: str, mode: dict, nested_image: str, workdir: Path, tag: str):
    """The level-2 container, on the host, with its inner image store in the run's scratch folder."""
    chain.store_dir = workdir / f"almacen-{tag}"
    chain.store_dir.mkdir(parents=True, exist_ok=True)
    opts = nested_options(chain.engine, mode=mode, store=str(chain.store_dir), inner=False)
    container = chain.cli.launch(nested_image, entry(chain.engine), run_id=ctx.run_id, name=name, opts=opts)
    _note_outer_pid(ctx, chain, container.pid)


def _start_inner_outer(ctx, chain: Chain, name: str, mode: dict, nested_image: str, depth: int) -> None:
    """The container of level depth+1, started by the engine inside the current innermost one."""
    inner_store = f"{NESTED[chain.engine].store}/curso-nivel{depth + 2}"
    chain.call(["mkdir", "-p", inner_store], what="preparar el almacén del nivel siguiente")
    opts = nested_options(chain.engine, mode=mode, store=inner_store, inner=True)
    argv = chain.cli.run_argv(
        nested_image, entry(chain.engine), run_id=ctx.run_id, name=name, remove=False, detach=True, opts=opts
    )
    chain.call(argv, what=f"arrancar el contenedor de nivel {depth + 1}")


def _start_worker(ctx, chain: Chain, busybox: str, level: int, tag: str) -> None:
    """The busybox `sleep` container at the arm's level, that the CPU work is `exec`ed into."""
    chain.worker = ctx.container_name(tag, "trabajo")
    argv = chain.cli.run_argv(
        busybox,
        SLEEP,
        run_id=ctx.run_id,
        name=chain.worker,
        remove=False,
        detach=True,
        opts=worker_options(level - 1),
    )
    chain.call(argv, what="arrancar el contenedor de trabajo")


def build_chain(
    ctx,
    engine_name: str,
    level: int,
    mode: dict,
    busybox: str,
    nested_image: str,
    workdir: Path,
    tag: str,
    adopt: tuple[str, Path] | None = None,
) -> Chain:
    """Start the containers of one arm: level-1 arms get a worker on the host; deeper arms get
    `level - 1` nesting containers, each one inside the previous, then the worker inside the last.
    `adopt`: (name, store) of a level-2 container already running with busybox loaded (the attempt
    without --privileged that worked), used as the outer container instead of starting another."""
    chain = Chain(engine_name)
    for depth in range(level - 1):  # start the container at level depth+1
        name = ctx.container_name(tag, f"n{depth + 1}")
        if depth == 0 and adopt and level == 2:
            name, chain.store_dir = adopt
            _note_outer_pid(ctx, chain, chain.cli.container(name).pid)
            chain.outer.append(name)
            continue
        if depth == 0:
            _start_host_outer(ctx, chain, name, mode, nested_image, workdir, tag)
        else:
            _start_inner_outer(ctx, chain, name, mode, nested_image, depth)
        chain.outer.append(name)
        wait_inner_engine(chain, depth + 1)
        # What the engine inside needs: the nesting image (to go one level deeper) or busybox.
        load_in_chain(
            chain, NESTED[engine_name].saved_tar if depth + 1 < level - 1 else busybox_tar(engine_name)
        )
    _start_worker(ctx, chain, busybox, level, tag)
    if chain.outer_pid:
        # Recorded so anyone can check afterwards that every nested process died with its outer container.
        ctx.run.meta.setdefault("procesos_anidados", []).extend(process_tree(chain.outer_pid))
        ctx.run.write_meta()
    return chain
