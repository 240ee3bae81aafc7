"""Experiment 2, measuring: scaling to N idle containers (LAUNCH) and the whole memory bill (CAPACITY).

For each engine and each N (round-robin over repetitions), one step:
1. launch N idle containers (`sleep 3600`, `--stop-timeout 0`; with the default network as the
   chapter's script did, or `--network none` as the course's variant), one after another or
   CONCURRENCIA at a time, timing each `docker/podman run -d` and the whole batch (nothing else runs
   inside that window: the progress bar moves between steps);
2. find every container's cgroup from the engine's inspect data and read its memory files
   (helpers.cgroups), timing the reading alone and inspect + reading (what `stats` has to do too);
3. read RSS and PSS (psutil) of the fixed processes (dockerd, containerd) and of the per-container
   helpers (the containerd shim that parents each Docker container, each Podman container's conmon);
4. at the largest N, time `docker/podman stats --no-stream` for the same containers and keep what it
   prints;
5. remove the N containers (Engine.cleanup by this run's label), timing it, and note how much the
   system-wide "used" memory moved (`free -m`'s view) against the cgroup sum.

N = 0 (Docker only: Podman has no daemon) measures the fixed processes with no container at all.
Sizes are in KB of 1024 bytes (what `ps -o rss=` prints, as in the reference table). Nothing here
imports ipywidgets or matplotlib.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np
import psutil

from ... import cgroups, images
from ... import engines as eng
from ...errors import ParametroInvalido
from ..params import Params, param
from ..runner import Arm as BaseArm
from ..runner import Log, Progress, Resultado, experiment_run, measure_rounds, no_progress, print_log
from .probing import (
    FIXED,
    HELPER,
    KB,
    NETWORKS,
    SETTLE_SECONDS,
    fixed_memory,
    helper_memory,
    inspect_all,
    launch,
    launch_argv,
    memory_rows,
    remove_until_gone,
    stats_cli,
    used_memory_bytes,
)

EXPERIMENT = "escala"

MAX_N = 200
STATS_REPETITIONS = 3  # `stats --no-stream` takes seconds per call: timed in the first 3 repetitions only
# Conservative host memory per idle container, for the check before launching (KB): a Docker
# container costs a containerd shim (~13 MB RSS) plus its cgroup; a Podman one a conmon (~2 MB).
ESTIMATE_KB = {"docker": 16 * 1024, "podman": 6 * 1024}
SAFETY_FACTOR = 2.0  # never plan to use more than half of the available memory


def estimate_kb(n: int, engine_name: str) -> int:
    return n * ESTIMATE_KB[engine_name]


def check_memory(cantidades: list[int], motores: list[str], available_bytes: int | None = None) -> None:
    """Refuse, before launching, an N the free memory cannot hold (steps run one engine at a time,
    and every step removes its containers, so only the largest N of the hungriest engine counts)."""
    if not cantidades or not motores:
        return
    available = psutil.virtual_memory().available if available_bytes is None else available_bytes
    n = max(cantidades)
    worst = max(motores, key=lambda m: ESTIMATE_KB[m])
    need = estimate_kb(n, worst) * KB * SAFETY_FACTOR
    if need > available:
        fits = int(available / (ESTIMATE_KB[worst] * KB * SAFETY_FACTOR))
        raise ParametroInvalido(
            f"CANTIDADES: {n} contenedores de {eng.DISPLAY[worst]} necesitarían unos "
            f"{estimate_kb(n, worst) / 1024:.0f} MiB (≈{ESTIMATE_KB[worst] / 1024:.0f} MiB cada uno, contando "
            f"su proceso auxiliar), y con el margen de seguridad (x{SAFETY_FACTOR:g}) eso supera los "
            f"{available / 2**20:.0f} MiB libres de esta máquina. Aquí caben como mucho unos {fits}."
        )


@dataclass
class Config(Params):
    # The chapter's batches, N = 1, 5, 10 and 20: four points show whether launch time grows in a straight
    # line with N (two always do). N = 0 weighs dockerd with no container (daemon_fijo needs it).
    cantidades: list = param(
        [0, 1, 5, 10, 20],
        "Cantidades de contenedores (N, separadas por comas; 0 = solo los procesos fijos)",
        kind="ints",
        minimum=0,
        maximum=MAX_N,
    )
    motores: list = param(list(eng.CONTAINER_ENGINES), "Motores", options=eng.CONTAINER_ENGINES)
    imagen: str = param("ubuntu", "Imagen", options=images.ROLE_NAMES)
    # 6: the verdicts' minimum (verdict.MIN_N). N = 0, 1, 20 with 6 repetitions took 89 s for the notebook in
    # the course's quiet render on 2 cores. N = 0, 1, 5, 10, 20 launches 36 containers per engine and round
    # instead of 21: side by side on 2 cores under heavy other work (CPU pressure 85-94 %), the notebook took
    # 409 and 535 s against 275 and 284 s for N = 0, 1, 20 (1.5-1.9×): about 2.5 min quiet, by that ratio
    # (not measured quiet)
    repeticiones: int = param(6, "Repeticiones", minimum=1, maximum=20)
    concurrencia: int = param(1, "Lanzamientos simultáneos (1 = uno tras otro)", minimum=1, maximum=16)
    red: str = param(NETWORKS[0], "Red de los contenedores", options=NETWORKS)
    comparar_stats: bool = param(True)

    def check(self) -> None:
        self.cantidades = sorted(self.cantidades)
        check_memory(self.cantidades, self.motores)


@dataclass(frozen=True)
class Arm(BaseArm):
    n: int = 0


def make_arm(engine: str, n: int) -> Arm:
    return Arm(engine, f"n={n}", "", f"{eng.DISPLAY.get(engine, engine)} N={n}", n)


def plan(cantidades: list[int], engines_ok: list[str]) -> list[Arm]:
    """One arm per (N, engine); N = 0 only where there are fixed processes to read (Docker)."""
    return [make_arm(e, n) for n in cantidades for e in engines_ok if n > 0 or FIXED.get(e)]


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every (engine, N) step; rows are written as they are measured."""
    cfg = cfg.validated()
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        arms = plan(cfg.cantidades, ctx.engines)
        envs = {e: eng.get_engine(e).env() for e in ctx.engines}
        ctx.run.update_meta(
            cgroup_layout=cgroups.layout(),
            size_unit="KB = 1024 bytes",
            launch_command={
                e: launch_argv(eng.get_engine(e), "IMAGEN", run_id=ctx.run_id, name="NOMBRE", network=cfg.red)
                for e in ctx.engines
            },
            launch_network=cfg.red,
            helpers={},
            stats_cli_at_n=max(cfg.cantidades) if cfg.comparar_stats else None,
        )
        reps: dict[Arm, int] = {}

        def measure_one(arm: Arm) -> list[tuple[str, float, str]]:
            rep = reps[arm] = reps.get(arm, 0) + 1  # no warm-up here: the k-th step of an arm is rep k
            engine = eng.get_engine(arm.engine)
            image = ctx.images[arm.engine][cfg.imagen]["name"]
            rows: list[tuple[str, float, str]] = []

            def add(metric, value, unit):
                if value is not None and not (isinstance(value, float) and np.isnan(value)):
                    rows.append((metric, round(float(value), 4), unit))

            used_before = used_memory_bytes()
            if arm.n == 0:  # no container: the fixed processes alone
                return memory_rows(fixed_memory(arm.engine))
            names = [ctx.container_name(arm.engine, f"n{arm.n}", f"r{rep}", k) for k in range(1, arm.n + 1)]
            argvs = [launch_argv(engine, image, run_id=ctx.run_id, name=nm, network=cfg.red) for nm in names]
            wall, per = launch(engine, argvs, cfg.concurrencia, envs[arm.engine])
            add("lanzamiento_total", wall, "s")
            add("lanzamiento_por_contenedor", wall * 1e3 / arm.n, "ms")
            add("lanzamiento_mediana_individual", float(np.median(per)), "ms")

            time.sleep(SETTLE_SECONDS)
            start = time.perf_counter_ns()
            containers = inspect_all(engine, names)
            inspected_ns = time.perf_counter_ns() - start
            # Rootless Podman on cgroup v1 gives its containers no cgroup of their own: reading the
            # user's cgroup instead would bill the whole session to each container. Skip, saying why.
            no_cgroup = cgroups.per_container_reason(engine, [c.cgroup for c in containers])
            if no_cgroup:
                ctx.skip_arm(f"{engine.display}: memoria de cada cgroup y «stats»", no_cgroup)
            else:
                readings, seconds = cgroups.read_many([c.cgroup for c in containers])
                add("tiempo_lectura_cgroup", seconds, "s")
                add("tiempo_inspect_y_lectura", inspected_ns / 1e9 + seconds, "s")
                usage = np.array([r.usage for r in readings], dtype=float) / KB
                add("memoria_cgroup_por_contenedor", usage.mean(), "KB")
                add("memoria_cgroup_total", usage.sum(), "KB")
                add("memoria_stats_por_contenedor", np.mean([r.stats_view for r in readings]) / KB, "KB")
                add("memoria_anon_por_contenedor", np.mean([r.anon for r in readings]) / KB, "KB")
                add("memoria_cache_por_contenedor", np.mean([r.file for r in readings]) / KB, "KB")

            helpers, helper_names = helper_memory(containers)
            ctx.run.meta["helpers"][arm.engine] = helper_names
            rows.extend(memory_rows({f"{HELPER[arm.engine]}_total": helpers}))
            add(f"{HELPER[arm.engine]}_procesos", helpers["count"], "procesos")
            rows.extend(memory_rows(fixed_memory(arm.engine)))
            add("memoria_sistema_delta", (used_memory_bytes() - used_before) / KB, "KB")

            # `stats` against inspect + reads: a figure, not a verdict, so 3 repetitions show it
            if (
                cfg.comparar_stats
                and arm.n == max(cfg.cantidades)
                and rep <= STATS_REPETITIONS
                and not no_cgroup
            ):
                seconds, sizes = stats_cli(engine, names)
                add("tiempo_stats_cli", seconds, "s")
                if sizes:
                    add("memoria_stats_cli_por_contenedor", np.mean(sizes) / KB, "KB")

            start = time.perf_counter_ns()
            engine.cleanup(ctx.run_id)
            add("eliminacion_total", (time.perf_counter_ns() - start) / 1e9, "s")
            left = engine.list_labelled(ctx.run_id)
            if left:
                log(f"Aviso: quedaron {len(left)} contenedores de {engine.display} sin borrar; se reintenta.")
                remove_until_gone([arm.engine], ctx.run_id)
            time.sleep(SETTLE_SECONDS)
            add("memoria_sistema_ruido", (used_memory_bytes() - used_before) / KB, "KB")
            ctx.run.write_meta()
            return rows

        try:
            measure_rounds(
                ctx,
                arms,
                warmup=0,
                measure=measure_one,
                progress=progress,
                meta={"timer": "time.perf_counter_ns + os.posix_spawnp"},
            )
        except BaseException:
            remove_until_gone(ctx.engines, ctx.run_id)
            raise
    return Resultado.load(ctx.run.dir)
