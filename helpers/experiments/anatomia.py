"""Experiment 4: the anatomy of LAUNCH (where the milliseconds of `docker run` go).

A ladder of rungs, each timed exactly like experiment 1 (spawn to reap, `perf_counter_ns`, `echo ok`),
interleaved round-robin (each round in its own seeded order):
- a process;
- `unshare`, adding one namespace per rung (mount, UTS, IPC, PID, network, user, cgroup);
- `chroot` into the image's exported root filesystem;
- the OCI runtime alone: `runc run` on a bundle the course writes (no engine, no daemon), with and
  without a network namespace, and on a freshly mounted overlay layer (what an engine does for storage);
  gVisor's `runsc` on the same bundle where it is installed;
- `docker run` / `podman run`, with `--network none` and with the default network;
- the engine's phases apart: create, start, wait, remove (Docker through the SDK's low-level API,
  Podman through its CLI);
- the warm pool: a container created beforehand, started on demand (`start -a`), and a container kept
  running, entered with `exec`.
Then, for one run per engine, the chain of processes the launch creates (the kernel's proc connector).

Every share of the total that is a difference of two rungs is an inference, reported with a bootstrap
interval of the difference of medians.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import engines as eng
from .. import images, measure, proc_events, validate
from ..engines import oci
from ..errors import ComandoFallido, ErrorDelCurso, ParametroInvalido
from .base import (
    Arm,
    Claim,
    Log,
    Progress,
    Resultado,
    experiment_run,
    judge,
    measure_rounds,
    no_data,
    no_progress,
    print_log,
)

EXPERIMENT = "anatomia"
TITLE = "Anatomía del arranque: ¿en qué se van los milisegundos de LAUNCH?"
NOTEBOOK = "04_anatomia_arranque"
METRIC = "arranque"
BASELINE = ("bare", "proceso")
COMPARABLE = [METRIC]
COMMAND = ["echo", "ok"]
CHAIN_FILE = "cadena.csv"
DEBIAN_PACKAGES = ["runc", "util-linux", "coreutils"]

# The groups of rungs a student can pick (PELDANOS), in ladder order.
GROUPS = ("proceso", "espacios", "chroot", "runc", "runsc", "motor", "fases", "pool", "cadena")
GROUP_LABEL = {
    "proceso": "un proceso (echo ok)",
    "espacios": "unshare, un espacio de nombres más en cada peldaño",
    "chroot": "chroot al sistema de archivos de la imagen",
    "runc": "runc run sobre un bundle OCI (sin motor)",
    "runsc": "runsc (gVisor) sobre el mismo bundle",
    "motor": "docker/podman run, con y sin red",
    "fases": "las fases del motor: crear, iniciar, esperar, borrar",
    "pool": "pool caliente: start -a de un contenedor ya creado, y exec en uno ya en marcha",
    "cadena": "la cadena de procesos de un run (eventos del kernel)",
}

# unshare rungs: each adds one namespace to the previous one (flags are cumulative).
NAMESPACES = (
    ("ns_mount", ["-m"], "mount"),
    ("ns_uts", ["-u"], "UTS"),
    ("ns_ipc", ["-i"], "IPC"),
    ("ns_pid", ["-p", "-f"], "PID"),
    ("ns_red", ["-n"], "red"),
    ("ns_usuario", ["-U"], "usuario"),
    ("ns_cgroup", ["-C"], "cgroup"),
)
USUAL_NAMESPACES = "ns_red"  # mount + UTS + IPC + PID + network: what runc's default bundle unshares

RUNG_LABEL = {
    "proceso": "proceso (echo ok)",
    **{key: f"+ espacio {name}" for key, _, name in NAMESPACES},
    "chroot": "chroot a la imagen",
    "runc_sin_netns": "runc run, sin espacio de red",
    "runc_con_netns": "runc run, con espacio de red",
    "runc_overlay": "runc run sobre una capa overlay recién montada",
    "runsc": "runsc run (gVisor)",
    "run_sin_red": "run --network none",
    "run_red": "run, red por defecto",
    "fases": "crear + iniciar + esperar + borrar",
    "pool": "start -a de un contenedor ya creado (pool caliente)",
    "pool_exec": "exec en un contenedor ya en marcha (pool caliente)",
}
PHASES = (
    ("fase_crear", "crear"),
    ("fase_iniciar", "iniciar"),
    ("fase_esperar", "esperar"),
    ("fase_borrar", "borrar"),
)
PHASE_TOTAL = "fases_total"

# Arms only root can run (notebook 00 lists them for a student without root).
NEEDS_ROOT = {
    "espacios": "crear espacios de nombres con «unshare» (los peldaños de espacios)",
    "chroot": "el peldaño chroot (chroot a la imagen exportada)",
    "cadena": "escuchar los eventos de procesos del kernel (la cadena de procesos)",
    "overlay": "montar una capa overlay (el peldaño runc sobre overlay)",
}
RUNC_VARIANTS = ("runc_sin_netns", "runc_con_netns", "runc_overlay")

CONTROLS = [
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 200},
    {"name": "calentamiento", "kind": "int", "label": "Calentamiento", "min": 0, "max": 20},
    {"name": "peldanos", "kind": "multi", "label": "Peldaños", "options": list(GROUPS)},
    {"name": "imagen", "kind": "choice", "label": "Imagen", "options": list(images.ROLE_NAMES)},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
]
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0}


@dataclass
class Config:
    repeticiones: int = 10
    calentamiento: int = 1
    peldanos: list = field(default_factory=lambda: list(GROUPS))
    imagen: str = "alpine"
    motores: list = field(default_factory=lambda: list(eng.CONTAINER_ENGINES))

    def validated(self) -> Config:
        """A checked copy; raises ParametroInvalido (Spanish) before anything is launched."""
        imagen = validate.as_list("IMAGEN", self.imagen)
        if len(imagen) != 1:
            raise ParametroInvalido(
                f"IMAGEN es una sola imagen ({', '.join(images.ROLE_NAMES)}), pero recibió {self.imagen!r}."
            )
        return Config(
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=500),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=50),
            peldanos=validate.choices("PELDANOS", self.peldanos, GROUPS),
            imagen=validate.choices("IMAGEN", imagen, images.ROLE_NAMES)[0],
            motores=validate.choices("MOTORES", self.motores, eng.CONTAINER_ENGINES, allow_empty=True),
        )


def config(**params) -> Config:
    """Build and validate a Config from the notebook's parameters (lower-case names)."""
    return Config(**params).validated()


# ---------------------------------------------------------------- the plan
def namespace_argv(key: str) -> list[str]:
    """`unshare` with every namespace up to and including `key`, then echo ok."""
    flags: list[str] = []
    for name, args, _ in NAMESPACES:
        flags += args
        if name == key:
            return ["unshare", *flags, *COMMAND]
    raise KeyError(key)


def plan(cfg: Config, engines_ok: list[str], image_names: dict[str, str]) -> list[Arm]:
    """Every arm of the ladder, in ladder order (the chain is captured apart, after the rounds)."""
    wanted = set(cfg.peldanos)
    arms: list[Arm] = []

    def add(engine: str, variant: str, image: str = ""):
        who = "" if engine == "bare" else f"{eng.DISPLAY[engine]}: "
        arms.append(Arm(engine, variant, image, who + RUNG_LABEL[variant]))

    if "proceso" in wanted:
        add("bare", "proceso")
    if "espacios" in wanted:
        for key, _, _ in NAMESPACES:
            add("bare", key)
    rootfs_image = next(iter(image_names.values()), "")
    if "chroot" in wanted:
        add("bare", "chroot", rootfs_image)
    if "runc" in wanted:
        add("bare", "runc_sin_netns", rootfs_image)
        add("bare", "runc_con_netns", rootfs_image)
        add("bare", "runc_overlay", rootfs_image)
    if "runsc" in wanted:
        add("bare", "runsc", rootfs_image)
    for engine in engines_ok:
        image = image_names[engine]
        if "motor" in wanted:
            add(engine, "run_sin_red", image)
            add(engine, "run_red", image)
        if "fases" in wanted:
            add(engine, "fases", image)
        if "pool" in wanted:
            add(engine, "pool", image)
            add(engine, "pool_exec", image)
    return arms


# ---------------------------------------------------------------- measuring
@dataclass
class Setup:
    """What the rounds need, prepared once before them."""

    run_id: str
    rootfs: Path | None = None
    bundles: dict = field(default_factory=dict)  # variant -> oci.Bundle
    runsc: Path | None = None
    envs: dict = field(default_factory=dict)
    running: dict = field(default_factory=dict)  # engine -> name of a container kept running (pool_exec)
    overlay: Path | None = None  # where runc_overlay mounts a fresh overlay each time
    counter: itertools.count = field(default_factory=lambda: itertools.count(1))
    names: object = None  # ctx.container_name


def _engine_opts(variant: str) -> eng.RunOptions | None:
    return eng.RunOptions(network="none") if variant == "run_sin_red" else None


def bare_argv(arm: Arm, setup: Setup, n: int) -> list[str]:
    if arm.variant == "proceso":
        return list(COMMAND)
    if arm.variant.startswith("ns_"):
        return namespace_argv(arm.variant)
    if arm.variant == "chroot":
        return ["chroot", str(setup.rootfs), *COMMAND]
    container_id = f"curso-anatomia-{setup.run_id.lower()}-{n}"
    if arm.variant in ("runc_sin_netns", "runc_con_netns", "runc_overlay"):
        return oci.runc_argv(setup.bundles[arm.variant], container_id)
    if arm.variant == "runsc":
        return oci.runsc_argv(setup.runsc, setup.bundles["runsc"], container_id)
    raise KeyError(arm.variant)


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


def measure_overlay_run(setup: Setup, argv: list[str]) -> float:
    """What an engine does for storage, by hand: a fresh writable layer (upper and work directories)
    over the image, mounted as overlay, the runtime run on it, unmounted and deleted; all timed."""
    start = time.perf_counter_ns()
    oci.mount_overlay(setup.rootfs, setup.overlay)
    try:
        measure.time_command(argv)
    finally:
        oci.unmount_overlay(setup.overlay)
    return (time.perf_counter_ns() - start) / 1e6


def measure_pool(engine: eng.Engine, image: str, name: str, run_id: str, env: dict) -> float:
    """A container created beforehand (not timed), then `start -a` timed: the warm-pool trick."""
    engine.create(image, COMMAND, run_id=run_id, name=name)
    try:
        return measure.time_command(engine.start_argv(name, attach=True), env)
    finally:
        engine.remove([name])


def measure_arm(arm: Arm, setup: Setup) -> list[tuple]:
    n = next(setup.counter)
    if arm.variant == "runc_overlay":
        return [(METRIC, round(measure_overlay_run(setup, bare_argv(arm, setup, n)), 4), "ms")]
    if arm.engine == "bare":
        return [(METRIC, round(measure.time_command(bare_argv(arm, setup, n)), 4), "ms")]
    engine = eng.get_engine(arm.engine)
    env = setup.envs[arm.engine]
    name = setup.names(arm.engine, arm.variant, n)
    if arm.variant in ("run_sin_red", "run_red"):
        argv = engine.run_argv(
            arm.image, COMMAND, run_id=setup.run_id, name=name, opts=_engine_opts(arm.variant)
        )
        return [(METRIC, round(measure.time_command(argv, env), 4), "ms")]
    if arm.variant == "fases":
        return measure_phases(engine, arm.image, name, setup.run_id, env)
    if arm.variant == "pool":
        return [(METRIC, round(measure_pool(engine, arm.image, name, setup.run_id, env), 4), "ms")]
    if arm.variant == "pool_exec":
        argv = engine.exec_argv(setup.running[arm.engine], COMMAND)
        return [(METRIC, round(measure.time_command(argv, env), 4), "ms")]
    raise KeyError(arm.variant)


def try_once(arm: Arm, setup: Setup) -> str | None:
    """Run a rung once, untimed (its result is discarded): None if it works here, else the Spanish
    reason it cannot (a missing tool, no root, an engine that cannot set up its network…)."""
    try:
        measure_arm(arm, setup)
    except ErrorDelCurso as exc:
        if os.geteuid() != 0 and arm.engine == "bare":
            return f"necesita privilegios de root en esta máquina ({exc})"
        return f"no funciona en esta máquina: {exc}"
    except OSError as exc:
        return f"no se puede ejecutar: {exc.strerror or exc}."
    except Exception as exc:  # noqa: BLE001 - an SDK error (docker.errors.APIError) says why in its text
        return f"no funciona en esta máquina: {type(exc).__name__}: {str(exc)[-300:]}"
    return None


def _prepare(cfg: Config, ctx, log: Log) -> tuple[Setup, list[Arm]]:
    """Rootfs, bundles and a first untimed try of every bare rung; what cannot run here is skipped."""
    from .ejecucion import exported_rootfs

    image_names = {e: ctx.images[e][cfg.imagen]["name"] for e in ctx.engines if e in ctx.images}
    setup = Setup(
        ctx.run_id,
        envs={e: eng.get_engine(e).env() for e in ctx.engines if e != "bare"},
        names=ctx.container_name,
    )
    arms = plan(cfg, [e for e in ctx.engines if e in image_names], image_names)
    wanted = set(cfg.peldanos)
    needs_rootfs = [a for a in arms if a.variant in ("chroot", *RUNC_VARIANTS, "runsc")]
    skip: dict[tuple[str, str], str] = {}  # (engine, variant) -> Spanish reason
    if needs_rootfs:
        source = next(iter(image_names), None)
        if source is None:
            for arm in needs_rootfs:
                skip[("bare", arm.variant)] = (
                    "no hay motor del que exportar el sistema de archivos de la imagen."
                )
        else:
            try:
                setup.rootfs = exported_rootfs(source, ctx.images[source][cfg.imagen], ctx.run_id, log)
            except ErrorDelCurso as exc:
                for arm in needs_rootfs:
                    skip[("bare", arm.variant)] = f"no pude exportar la imagen: {exc}"
    # Root-only rungs, the standard way (ctx.require_root: one Spanish line and meta["skipped_arms"]).
    dropped: set[tuple[str, str]] = set()
    for arm in arms:
        group = "chroot" if arm.variant == "chroot" else "espacios" if arm.variant.startswith("ns_") else None
        if group and ("bare", arm.variant) not in skip and not ctx.require_root(arm.label, NEEDS_ROOT[group]):
            dropped.add(("bare", arm.variant))
    if setup.rootfs is not None:
        if "runc" in wanted or "runsc" in wanted:
            ok, why = oci.runc_availability()
            if not ok:
                for variant in (*RUNC_VARIANTS, "runsc"):
                    skip[("bare", variant)] = why
            else:
                workdir = Path(tempfile.mkdtemp(prefix=f"curso-anatomia-{ctx.run_id.lower()}-"))
                ctx.defer(shutil.rmtree, workdir, True)
                ctx.defer(oci.unmount_under, workdir)  # runs first (LIFO): an overlay left mounted
                setup.overlay = workdir / "overlay"
                for variant, netns in (*((v, v != "runc_sin_netns") for v in RUNC_VARIANTS), ("runsc", True)):
                    if variant == "runsc" and "runsc" not in wanted:
                        continue
                    if variant != "runsc" and "runc" not in wanted:
                        continue
                    overlay = variant == "runc_overlay"
                    if overlay and not ctx.require_root(RUNG_LABEL[variant], NEEDS_ROOT["overlay"]):
                        dropped.add(("bare", variant))
                        continue
                    bundle = oci.make_bundle(
                        oci.overlay_paths(setup.overlay)["merged"] if overlay else setup.rootfs,
                        COMMAND,
                        network_namespace=netns,
                        parent=workdir,
                        prefix=f"{variant}-",
                        readonly=not overlay,
                    )
                    ctx.defer(bundle.remove)
                    ctx.defer(oci.delete_leftovers, bundle)
                    setup.bundles[variant] = bundle
        if "runsc" in wanted and ("bare", "runsc") not in skip:
            from ..engines import runtimes

            ok, why = runtimes.runsc_availability()
            if ok:
                setup.runsc = runtimes.runsc_path()
                ctx.defer(oci.delete_leftovers, setup.bundles["runsc"], str(setup.runsc))
            else:
                skip[("bare", "runsc")] = why
    # The running half of the warm pool: one container per engine, started now (not timed, no network:
    # exec does not use it); the run's label removes it at the end, as every container.
    for arm in arms:
        if arm.variant == "pool_exec":
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
    # One untimed try of each rung: a rung that fails here is skipped with its reason, the rest runs.
    for arm in arms:
        if (arm.engine, arm.variant) not in skip and (arm.engine, arm.variant) not in dropped:
            reason = try_once(arm, setup)
            if reason:
                skip[(arm.engine, arm.variant)] = reason
    for (engine, variant), reason in skip.items():
        label = RUNG_LABEL.get(variant, variant)
        ctx.skip_arm(label if engine == "bare" else f"{eng.DISPLAY[engine]}: {label}", reason)
    return setup, [
        a for a in arms if (a.engine, a.variant) not in skip and (a.engine, a.variant) not in dropped
    ]


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure the ladder (rows written as they are measured), then capture the chains."""
    cfg = cfg.validated()
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        setup, arms = _prepare(cfg, ctx, log)
        measure_rounds(
            ctx,
            arms,
            repetitions=cfg.repeticiones,
            warmup=cfg.calentamiento,
            measure=functools.partial(measure_arm, setup=setup),
            progress=progress,
            shuffle=True,
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
        if "cadena" in cfg.peldanos:
            capture_chains(ctx, cfg, setup, log)
    return Resultado.load(ctx.run.dir)


# ---------------------------------------------------------------- the process chain
CHAIN_COLUMNS = ["engine", "pid", "ppid", "name", "cmdline", "start_ms", "exec_ms", "end_ms", "cpu_ms"]


def capture_chains(ctx, cfg: Config, setup: Setup, log: Log) -> None:
    """One `run` per engine (default network, as a student types it) under the proc connector: every
    process it creates, with when it starts, execs and ends. Written to cadena.csv in the run folder."""
    if not ctx.require_root("la cadena de procesos", NEEDS_ROOT["cadena"]):
        return
    ok, why = proc_events.availability()
    if not ok:
        ctx.skip_arm("la cadena de procesos", why)
        return
    engines = [e for e in ctx.engines if e != "bare" and e in ctx.images]
    if not engines:
        ctx.skip_arm("la cadena de procesos", "no hay ningún motor de contenedores disponible.")
        return
    workdir = Path(tempfile.mkdtemp(prefix=f"curso-anatomia-cid-{ctx.run_id.lower()}-"))
    ctx.defer(shutil.rmtree, workdir, True)
    frames, info = [], {}
    for engine_name in engines:
        engine = eng.get_engine(engine_name)
        cidfile = workdir / f"{engine_name}.cid"
        image = ctx.images[engine_name][cfg.imagen]["name"]
        argv = engine.run_argv(
            image,
            COMMAND,
            run_id=ctx.run_id,
            name=ctx.container_name(engine_name, "cadena"),
            opts=eng.RunOptions(extra=["--cidfile", str(cidfile)]),
        )
        log(f"Capturando la cadena de procesos de un «{engine_name} run»…")
        daemons = {proc.pid: role for role, procs in engine.daemon_processes().items() for proc in procs}
        cap = proc_events.capture(argv, setup.envs[engine_name], roots=list(daemons))
        cid = cidfile.read_text().strip() if cidfile.exists() else ""
        procs = proc_events.chain(cap, markers=[cid] if cid else [])
        total_ms = (cap.t_end_ns - cap.t0_ns) / 1e6
        info[engine_name] = {
            "exit_code": cap.exit_code,
            "events": len(cap.events),
            "lost_events": cap.lost,
            "container_id": cid,
            "processes": len(procs),
            "total_ms": round(total_ms, 3),
        }
        if cap.exit_code != 0:
            log(f"Aviso: el «{engine_name} run» de la cadena terminó con código {cap.exit_code}.")
        frames.append(
            pd.DataFrame(
                [
                    {
                        "engine": engine_name,
                        "pid": p.pid,
                        "ppid": p.ppid,
                        "name": p.name,
                        "cmdline": p.cmdline[:2000],
                        "start_ms": p.start_ms,
                        "exec_ms": p.execs[-1][0] if p.execs else np.nan,
                        "end_ms": p.end_ms if p.end_ms is not None else np.nan,
                    }
                    for p in procs
                ]
                # The engine's long-lived daemons: no new process, but CPU time spent in their threads
                # during the launch (it includes any other container the machine ran meanwhile).
                + [
                    {
                        "engine": engine_name,
                        "pid": pid,
                        "ppid": 0,
                        "name": DAEMON_NAME.get(daemons[pid], daemons[pid]),
                        "cmdline": cap.before.get(pid, "")[:2000],
                        "start_ms": np.nan,
                        "exec_ms": np.nan,
                        "end_ms": np.nan,
                        "cpu_ms": round(used, 3),
                    }
                    for pid, used in cap.roots_cpu_ms.items()
                    if pid in daemons
                ],
                columns=CHAIN_COLUMNS,
            )
        )
        ctx.run.append(
            engine=engine_name,
            image=image,
            variant="cadena",
            rep=1,
            metric="cadena_procesos",
            value=len(procs),
            unit="procesos",
        )
        ctx.run.append(
            engine=engine_name,
            image=image,
            variant="cadena",
            rep=1,
            metric="cadena_total",
            value=round(total_ms, 4),
            unit="ms",
        )
    pd.concat(frames, ignore_index=True).to_csv(ctx.run.dir / CHAIN_FILE, index=False)
    ctx.run.update_meta(
        chain={"file": CHAIN_FILE, "source": "conector de procesos del kernel (netlink)", "per_engine": info}
    )


DAEMON_NAME = {"daemon": "dockerd", "containerd": "containerd"}


def load_chain(result: Resultado | None) -> pd.DataFrame:
    """The captured chain of a run (empty if there is none)."""
    if result is None:
        return pd.DataFrame(columns=CHAIN_COLUMNS)
    path = Path(result.run_dir) / CHAIN_FILE
    if not path.exists():
        return pd.DataFrame(columns=CHAIN_COLUMNS)
    numeric = ("start_ms", "exec_ms", "end_ms", "cpu_ms")
    df = pd.read_csv(
        path,
        dtype={"name": str, "cmdline": str},
        keep_default_na=False,
        na_values={c: [""] for c in numeric},
    )
    for column in CHAIN_COLUMNS:
        if column not in df:
            df[column] = np.nan
    return df[CHAIN_COLUMNS]


# ---------------------------------------------------------------- analysis
def _values(df: pd.DataFrame, engine: str, variant: str, metric: str = METRIC) -> np.ndarray:
    sel = df[(df["engine"] == engine) & (df["variant"] == variant) & (df["metric"] == metric)]
    return pd.to_numeric(sel["value"], errors="coerce").dropna().to_numpy(dtype=float)


def _ladder_order(engine: str, variant: str) -> tuple:
    order = [
        "proceso",
        *[k for k, _, _ in NAMESPACES],
        "chroot",
        "runc_sin_netns",
        "runc_con_netns",
        "runc_overlay",
        "runsc",
        "run_sin_red",
        "run_red",
        "pool",
        "pool_exec",
        "fases",
    ]
    return (
        {"bare": 0, "docker": 1, "podman": 2}.get(engine, 3),
        order.index(variant) if variant in order else 99,
    )


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """The ladder: one row per (engine, rung, metric) with n, median, IQR, min, IC 95 %, x process
    (bootstrap IC) and whether the measurement is unstable."""
    cols = [
        "engine",
        "variant",
        "metric",
        "peldano",
        "n",
        "mediana_ms",
        "q1_ms",
        "q3_ms",
        "min_ms",
        "ic_bajo_ms",
        "ic_alto_ms",
        "x_proceso",
        "x_proceso_ic_bajo",
        "x_proceso_ic_alto",
        "inestable",
    ]
    if df is None or df.empty:
        return pd.DataFrame(columns=cols)
    data = df[df["unit"] == "ms"]
    data = data[data["variant"] != "cadena"]
    base = _values(df, *BASELINE)
    rows = []
    for (engine, variant, metric), group in data.groupby(["engine", "variant", "metric"], sort=False):
        values = pd.to_numeric(group["value"], errors="coerce").dropna().to_numpy(dtype=float)
        s = measure.summarize(values)
        ratio = measure.bootstrap_ratio_ci(values, base) if base.size else (np.nan,) * 3
        label = RUNG_LABEL.get(variant, variant)
        if metric != METRIC:
            label = f"{label}: {dict(PHASES).get(metric, 'total')}"
        rows.append(
            {
                "engine": engine,
                "variant": variant,
                "metric": metric,
                "peldano": label,
                "n": s.n,
                "mediana_ms": s.median,
                "q1_ms": s.q1,
                "q3_ms": s.q3,
                "min_ms": s.minimum,
                "ic_bajo_ms": s.ci_low,
                "ic_alto_ms": s.ci_high,
                "x_proceso": ratio[0],
                "x_proceso_ic_bajo": ratio[1],
                "x_proceso_ic_alto": ratio[2],
                "inestable": measure.unstable(values),
            }
        )
    out = pd.DataFrame(rows, columns=cols)
    metric_order = {METRIC: 0, **{m: i + 1 for i, (m, _) in enumerate(PHASES)}, PHASE_TOTAL: 9}
    out["_k"] = [
        (*_ladder_order(e, v), metric_order.get(m, 10))
        for e, v, m in zip(out["engine"], out["variant"], out["metric"])
    ]
    return out.sort_values("_k").drop(columns="_k").reset_index(drop=True)


@dataclass(frozen=True)
class Part:
    key: str
    label: str
    upper: tuple[str, str]  # (engine, variant) of the rung that ends this part
    lower: tuple[str, str] | None  # (engine, variant) of the rung it starts from; None: from zero


def waterfall_parts(engine: str, storage: bool = True) -> list[Part]:
    """How an engine's `run` (default network) splits into differences of consecutive rungs; without the
    overlay rung (storage=False), mounting the writable layer stays inside the engine's part."""
    return [
        Part("proceso", "crear un proceso", ("bare", "proceso"), None),
        Part(
            "espacios",
            "espacios de nombres (mount, UTS, IPC, PID, red)",
            ("bare", USUAL_NAMESPACES),
            ("bare", "proceso"),
        ),
        Part(
            "runtime",
            "runtime OCI (runc: configuración, cgroups, pivot_root…)",
            ("bare", "runc_con_netns"),
            ("bare", USUAL_NAMESPACES),
        ),
        *(
            [
                Part(
                    "almacenamiento",
                    "almacenamiento: montar una capa overlay de escritura",
                    ("bare", "runc_overlay"),
                    ("bare", "runc_con_netns"),
                )
            ]
            if storage
            else []
        ),
        Part(
            "motor",
            "el motor: CLI, API, registro y su propia gestión de capas",
            (engine, "run_sin_red"),
            ("bare", "runc_overlay" if storage else "runc_con_netns"),
        ),
        Part(
            "red", "configurar la red (bridge, veth, iptables)", (engine, "run_red"), (engine, "run_sin_red")
        ),
    ]


def waterfall(df: pd.DataFrame, engine: str) -> pd.DataFrame:
    """Each part of the engine's `run` (default network) in ms and as a share of it, with bootstrap
    intervals. Every part but the first is a difference of two rungs: an inference (inferido=True)."""
    cols = [
        "engine",
        "parte",
        "etiqueta",
        "ms",
        "ic_bajo_ms",
        "ic_alto_ms",
        "fraccion",
        "fraccion_ic_bajo",
        "fraccion_ic_alto",
        "inferido",
        "desde",
        "hasta",
    ]
    total = _values(df, engine, "run_red")
    rows = []
    storage = _values(df, "bare", "runc_overlay").size > 0
    for part in waterfall_parts(engine, storage):
        upper = _values(df, *part.upper)
        if part.lower is None:
            value, lo, hi = (
                float(np.median(upper)) if upper.size else np.nan,
                *measure.bootstrap_median_ci(upper),
            )
            share = measure.bootstrap_medians_ci(lambda a, t: a / t, upper, total)
        else:
            lower = _values(df, *part.lower)
            value, lo, hi = measure.bootstrap_diff_ci(upper, lower)
            share = measure.bootstrap_medians_ci(lambda a, b, t: (a - b) / t, upper, lower, total)
        rows.append(
            {
                "engine": engine,
                "parte": part.key,
                "etiqueta": part.label,
                "ms": value,
                "ic_bajo_ms": lo,
                "ic_alto_ms": hi,
                "fraccion": share[0],
                "fraccion_ic_bajo": share[1],
                "fraccion_ic_alto": share[2],
                "inferido": part.lower is not None,
                "desde": RUNG_LABEL[part.lower[1]] if part.lower else "",
                "hasta": RUNG_LABEL[part.upper[1]],
            }
        )
    return pd.DataFrame(rows, columns=cols)


def network_share(result: Resultado | None = None, *, root=None) -> dict:
    """The network's share of each engine's LAUNCH, from a run (the latest one by default):
    {engine: {"con_red_ms", "sin_red_ms", "red_ms", "red_ic", "fraccion", "fraccion_ic", "n", "run_id"}}.
    Notebooks 01 and 02 cite it to explain why their Docker/Podman figures differ (01 runs with the
    default network, 02 with --network none). {} when there is no run with both arms."""
    if result is None:
        result = Resultado.latest(EXPERIMENT, root)
    if result is None or result.df.empty:
        return {}
    df = result.df
    out = {}
    for engine in eng.CONTAINER_ENGINES:
        with_net, without = _values(df, engine, "run_red"), _values(df, engine, "run_sin_red")
        if not (with_net.size and without.size):
            continue
        diff = measure.bootstrap_diff_ci(with_net, without)
        share = measure.bootstrap_medians_ci(lambda a, b: (a - b) / a, with_net, without)
        out[engine] = {
            "con_red_ms": float(np.median(with_net)),
            "sin_red_ms": float(np.median(without)),
            "red_ms": diff[0],
            "red_ic": (diff[1], diff[2]),
            "fraccion": share[0],
            "fraccion_ic": (share[1], share[2]),
            "n": int(min(with_net.size, without.size)),
            "run_id": result.meta.get("run_id", ""),
        }
    return out


# ---------------------------------------------------------------- claims
SEED = "el capítulo original"
COMMON = "idea extendida"

STATEMENTS = {
    "api_daemon": (
        "El modelo fork-exec de Podman, sin daemon, elimina el cuello de botella central que es "
        "la API de Docker."
    ),
    "red_grande": "Configurar la red virtual es una parte grande del arranque de un contenedor.",
    "runtime_pequeno": "El runtime OCI (runc) es una parte pequeña del arranque.",
    "pool": "Un pool caliente, con contenedores preparados de antemano, elimina la mayor parte del arranque.",
}
# Margins: "eliminates" = Podman's own engine share at most half of Docker's; "large" = at least a quarter;
# "small" = at most a fifth; "most" = more than half. The claimed value is the margin's edge.
MARGINS = {"api_daemon": 0.5, "red_grande": 0.25, "runtime_pequeno": 0.2, "pool": 0.5}


def _unstable(*samples) -> bool:
    return any(measure.unstable(s) for s in samples)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The four claims: seed 000's daemon bottleneck, then network, runtime and warm pool per engine."""
    out: list[Claim] = []
    runc = _values(df, "bare", "runc_con_netns")
    docker_none, podman_none = _values(df, "docker", "run_sin_red"), _values(df, "podman", "run_sin_red")
    key = "api_daemon"
    if runc.size and docker_none.size and podman_none.size:
        value, lo, hi = measure.bootstrap_medians_ci(
            lambda p, d, r: (p - r) / (d - r), podman_none, docker_none, runc
        )
        out.append(
            judge(
                key,
                STATEMENTS[key],
                SEED,
                value,
                lo,
                hi,
                claimed=MARGINS[key],
                region=(float("-inf"), MARGINS[key]),
                n=int(min(runc.size, docker_none.size, podman_none.size)),
                unit="Podman/Docker",
                unstable=_unstable(runc, docker_none, podman_none),
                detail={
                    "docker_propio_ms": float(np.median(docker_none) - np.median(runc)),
                    "podman_propio_ms": float(np.median(podman_none) - np.median(runc)),
                },
            )
        )
    else:
        out.append(
            no_data(
                key,
                STATEMENTS[key],
                SEED,
                {"falta": "runc con espacio de red y run --network none de Docker y Podman"},
            )
        )
    for engine in eng.CONTAINER_ENGINES:
        total, none = _values(df, engine, "run_red"), _values(df, engine, "run_sin_red")
        n = int(total.size)
        if not total.size:
            continue
        key = "red_grande"
        if none.size:
            value, lo, hi = measure.bootstrap_medians_ci(lambda a, b: (a - b) / a, total, none)
            out.append(
                judge(
                    key,
                    STATEMENTS[key],
                    COMMON,
                    value,
                    lo,
                    hi,
                    claimed=MARGINS[key],
                    region=(MARGINS[key], float("inf")),
                    n=min(n, none.size),
                    unit="fracción",
                    unstable=_unstable(total, none),
                    detail={"engine": engine},
                )
            )
        key = "runtime_pequeno"
        if runc.size:
            value, lo, hi = measure.bootstrap_medians_ci(lambda r, t: r / t, runc, total)
            out.append(
                judge(
                    key,
                    STATEMENTS[key],
                    COMMON,
                    value,
                    lo,
                    hi,
                    claimed=MARGINS[key],
                    region=(float("-inf"), MARGINS[key]),
                    n=min(n, runc.size),
                    unit="fracción",
                    unstable=_unstable(runc, total),
                    detail={"engine": engine},
                )
            )
        key = "pool"
        for variant in ("pool", "pool_exec"):
            pool = _values(df, engine, variant)
            if pool.size:
                value, lo, hi = measure.bootstrap_medians_ci(lambda p, t: 1 - p / t, pool, total)
                out.append(
                    judge(
                        key,
                        STATEMENTS[key],
                        COMMON,
                        value,
                        lo,
                        hi,
                        claimed=MARGINS[key],
                        region=(MARGINS[key], float("inf")),
                        n=min(n, pool.size),
                        unit="fracción",
                        unstable=_unstable(pool, total),
                        detail={"engine": engine, "variante": variant, "como": RUNG_LABEL[variant]},
                    )
                )
    return out


# ---------------------------------------------------------------- reference
def _ref(reference: pd.DataFrame, source: str, variant: str, metric: str) -> float:
    sel = reference[
        (reference["source"] == source) & (reference["variant"] == variant) & (reference["metric"] == metric)
    ]
    return float(sel["value"].iloc[0]) if len(sel) else np.nan


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Published launch figures next to the live ones, as ratios where both sides have one:
    - crun's README: cost of a network namespace for runc (new netns / none), per container;
    - Red Hat's Podman on a Raspberry Pi: its whole set of changes (about x6) vs dropping the network here;
    - Firecracker's specification and Kata Containers' launch metrics: time to the guest's first process,
      next to this machine's `docker run` (absolute figures from other machines: orientation only)."""
    cols = [
        "fuente",
        "medida",
        "referencia",
        "ref_unidad",
        "tu_valor",
        "tu_ic_bajo",
        "tu_ic_alto",
        "tu_unidad",
        "comparable",
    ]
    rows = []
    runc_net, runc_none = _values(df, "bare", "runc_con_netns"), _values(df, "bare", "runc_sin_netns")
    ratio = (
        measure.bootstrap_ratio_ci(runc_net, runc_none) if runc_net.size and runc_none.size else (np.nan,) * 3
    )
    ref_ratio = _ref(reference, "crun_readme_anterior", "runc_con_netns", "cien_true") / _ref(
        reference, "crun_readme_anterior", "runc_sin_netns", "cien_true"
    )
    rows.append(
        {
            "fuente": "README de crun (versión anterior)",
            "medida": "runc con espacio de red / sin él (x)",
            "referencia": ref_ratio,
            "ref_unidad": "x",
            "tu_valor": ratio[0],
            "tu_ic_bajo": ratio[1],
            "tu_ic_alto": ratio[2],
            "tu_unidad": "x",
            "comparable": True,
        }
    )
    per_container = _ref(reference, "crun_readme", "runc", "cien_true") * 1000 / 100
    s = measure.summarize(runc_net)
    rows.append(
        {
            "fuente": "README de crun",
            "medida": "runc run de /bin/true, por contenedor",
            "referencia": per_container,
            "ref_unidad": "ms",
            "tu_valor": s.median,
            "tu_ic_bajo": s.ci_low,
            "tu_ic_alto": s.ci_high,
            "tu_unidad": "ms",
            "comparable": False,
        }
    )
    before = _ref(reference, "redhat_rpi", "antes", "arranque_rpi")
    after = _ref(reference, "redhat_rpi", "despues", "arranque_rpi")
    p_net, p_none = _values(df, "podman", "run_red"), _values(df, "podman", "run_sin_red")
    pr = measure.bootstrap_ratio_ci(p_net, p_none) if p_net.size and p_none.size else (np.nan,) * 3
    rows.append(
        {
            "fuente": "Red Hat (Podman en Raspberry Pi)",
            "medida": "aceleración (x): ellos, con todos sus cambios; tú, solo sin red",
            "referencia": before / after,
            "ref_unidad": "x",
            "tu_valor": pr[0],
            "tu_ic_bajo": pr[1],
            "tu_ic_alto": pr[2],
            "tu_unidad": "x",
            "comparable": True,
        }
    )
    docker = measure.summarize(_values(df, "docker", "run_red"))
    for source, variant, metric, label, unit, factor in (
        (
            "firecracker_spec",
            "firecracker",
            "hasta_init",
            "microVM Firecracker: hasta el /sbin/init del invitado (máximo)",
            "ms",
            1,
        ),
        (
            "kata_checkmetrics",
            "kata_qemu",
            "hasta_carga",
            "Kata Containers (QEMU): hasta la carga de trabajo",
            "ms",
            1000,
        ),
        (
            "kata_checkmetrics",
            "kata_clh",
            "hasta_carga",
            "Kata Containers (Cloud Hypervisor): hasta la carga de trabajo",
            "ms",
            1000,
        ),
    ):
        rows.append(
            {
                "fuente": source,
                "medida": label,
                "referencia": _ref(reference, source, variant, metric) * factor,
                "ref_unidad": unit,
                "tu_valor": docker.median,
                "tu_ic_bajo": docker.ci_low,
                "tu_ic_alto": docker.ci_high,
                "tu_unidad": "ms (tu docker run)",
                "comparable": False,
            }
        )
    return pd.DataFrame(rows, columns=cols)


# ---------------------------------------------------------------- closing table
def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Rows for the closing LAUNCH vs RUNNING table: the runtime alone, each engine's run with and without
    network, the warm pool, and the network's share (an inference)."""
    from .base import CLOSING_COLUMNS

    rows = []

    def add(concepto, entorno, values):
        if values.size and not measure.unstable(values):
            s = measure.summarize(values)
            rows.append(
                {
                    "concepto": concepto,
                    "tipo": "LAUNCH",
                    "entorno": entorno,
                    "valor": s.median,
                    "ic_bajo": s.ci_low,
                    "ic_alto": s.ci_high,
                    "unidad": "ms",
                }
            )

    add("runc run (sin motor)", "bare metal", _values(df, "bare", "runc_con_netns"))
    for engine in eng.CONTAINER_ENGINES:
        label = eng.DISPLAY[engine]
        add("run --network none", label, _values(df, engine, "run_sin_red"))
        add("start -a de un contenedor ya creado (pool caliente)", label, _values(df, engine, "pool"))
        add("exec en un contenedor ya en marcha (pool caliente)", label, _values(df, engine, "pool_exec"))
        share = network_share(Resultado(EXPERIMENT, df, Path("."), meta or {})).get(engine)
        if share and np.isfinite(share["red_ms"]):
            rows.append(
                {
                    "concepto": "configurar la red (diferencia inferida)",
                    "tipo": "LAUNCH",
                    "entorno": label,
                    "valor": share["red_ms"],
                    "ic_bajo": share["red_ic"][0],
                    "ic_alto": share["red_ic"][1],
                    "unidad": "ms",
                }
            )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)


# ---------------------------------------------------------------- make setup
def provision(log: Log = print_log) -> None:
    """Nothing to build: runc and unshare come from Debian packages, the rootfs is exported on first use.
    Says what is missing, in Spanish, and never raises."""
    ok, why = oci.runc_availability()
    if not ok:
        log(f"Anatomía del arranque: {why}")
    if not shutil.which("unshare"):
        log("Anatomía del arranque: falta «unshare» (paquete util-linux); se omitirán esos peldaños.")
    ok, why = proc_events.availability()
    if not ok:
        log(f"Anatomía del arranque: sin cadena de procesos ({why})")
    if os.geteuid() != 0:
        log("Anatomía del arranque: sin root se omiten chroot y los espacios de nombres que lo necesitan.")
