"""The parameters and the run of the network experiment.

Every arm's server is started once (start.py), then measure_rounds loads them round-robin with wrk
(load.py). Each measurement is one `wrk --latency` run: total req/s, the per-thread Req/Sec (the figure
the original's table reported as "Requests/s"), latency p50/p90/p99, socket errors, and the CPU time
(psutil) that the server, wrk, the proxy and the engine's per-container helper spent while it ran.
The server and wrk run on two different CPUs (`cpu_layout`).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

from ... import engines as eng
from ...errors import ErrorDelCurso, ParametroInvalido
from .. import red as this
from .. import verdict
from ..params import Params, param
from ..runner import Log, Progress, Resultado, experiment_run, measure_rounds, no_progress, print_log
from . import load, servers
from .arms import ARM_NAMES, DEFAULT_ARMS, plan, userland_proxy_disabled
from .start import Started, cpu_seconds, start_all

EXPERIMENT = "red"
MAX_RUN_S = 20 * 60  # refuse a plan longer than this before launching anything
SEED_PRESET = {"hilos": 12, "conexiones": 400, "duracion_s": 30}  # the original's `wrk -t12 -c400 -d30s`
# The panel's one-click «configuración del documento»: the original's load on its own two arms (native and
# Docker -p, net/http), with enough repetitions for a verdict and no warm-up round (each round is 30 s).
DOCUMENT_PRESET = {
    "servidores": ["nethttp"],
    "brazos": ["nativo", "docker-puerto"],
    **SEED_PRESET,
    "repeticiones": verdict.MIN_N,
    "calentamiento": 0,
}
METRICS_FROM_WRK = (
    "req_s",
    "req_s_hilo",
    "latencia_media",
    "latencia_p50",
    "latencia_p90",
    "latencia_p99",
    "errores_socket",
    "respuestas_no_2xx",
    "peticiones",
    "duracion",
)
CPU_METRICS = ("cpu_servidor", "cpu_carga", "cpu_proxy", "cpu_ayudante")


@dataclass
class Config(Params):
    servidores: list = param(["nethttp", "gin"], "Servidores", options=servers.SERVER_NAMES)
    brazos: list = param(list(DEFAULT_ARMS), "Brazos", options=ARM_NAMES)
    hilos: int = param(2, "Hilos de wrk", minimum=1, maximum=64)
    conexiones: int = param(50, "Conexiones", minimum=1, maximum=2000)
    duracion_s: int = param(2, "Duración (s)", minimum=1, maximum=120)
    repeticiones: int = param(6, "Repeticiones", minimum=1, maximum=50)
    calentamiento: int = param(1, minimum=0, maximum=5)
    motores: list = param(["docker", "podman"], "Motores", options=eng.CONTAINER_ENGINES, allow_empty=True)

    def check(self) -> None:
        load.check_load(self.hilos, self.conexiones)
        seconds = estimated_seconds(self)
        if seconds > MAX_RUN_S:
            raise ParametroInvalido(
                f"Ese plan duraría unos {seconds / 60:.0f} minutos ({len(self.servidores)} servidores × "
                f"{len(self.brazos)} brazos × {self.repeticiones + self.calentamiento} rondas × "
                f"{self.duracion_s} s); el máximo es {MAX_RUN_S // 60} minutos. Baja REPETICIONES, "
                "DURACION_S o la lista de brazos."
            )


def estimated_seconds(cfg: Config) -> float:
    """Upper estimate of a run's length: every wrk run plus about a second of set-up per server."""
    combos = len(cfg.servidores) * len(cfg.brazos)
    return combos * ((cfg.repeticiones + cfg.calentamiento) * (cfg.duracion_s + 0.3) + 1.5)


def cpu_layout() -> tuple[str | None, str | None]:
    """(server CPU, load CPU): two different allowed CPUs, or (None, None) with fewer than two."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return None, None
    if len(allowed) < 2:
        return None, None
    return str(allowed[0]), str(allowed[1])


def measure_arm(
    started: Started, cfg: Config, load_cpu: str | None, log: Log
) -> list[tuple[str, float, str]]:
    """One wrk run against one started server, with the CPU time of everyone involved."""
    if started.failed or started.target is None:
        return []
    groups = {"cpu_servidor": started.server, "cpu_proxy": started.proxies, "cpu_ayudante": started.helpers}
    before = {metric: cpu_seconds(procs) for metric, procs in groups.items()}
    try:
        result = load.run(started.target, cfg.hilos, cfg.conexiones, cfg.duracion_s, cpus=load_cpu)
    except (ErrorDelCurso, ValueError) as exc:
        log(f"Falló una medición de {started.arm.label} ({started.arm.image}): {exc}")
        return []
    after = {metric: cpu_seconds(procs) for metric, procs in groups.items()}
    rows = [(m, result.stats[m], load.UNITS[m]) for m in METRICS_FROM_WRK if m in result.stats]
    rows += [(m, round(after[m] - before[m], 4), "s") for m in groups]
    rows.append(("cpu_carga", round(result.cpu_s, 4), "s"))
    return rows


def server_images(arms, log: Log) -> tuple[dict, dict]:
    """Each container arm's server image, imported where missing, one at a time (an import must not run
    twice in parallel): ({engine: {server: info}} for meta.json, {arm: image name or None})."""
    refs: dict[str, dict[str, dict | None]] = {}
    names = {}
    for arm in arms:
        if arm.engine == "bare":
            continue
        per_engine = refs.setdefault(arm.engine, {})
        if arm.image not in per_engine:
            per_engine[arm.image] = servers.ensure_image(arm.engine, arm.image, log)
        info = per_engine[arm.image]
        names[arm] = info["name"] if info else None
    return refs, names


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Start every arm's server, load them round-robin with wrk, and record each run as it ends."""
    cfg = cfg.validated()
    ok, why = load.available()
    if not ok:
        raise ErrorDelCurso(f"No puedo medir sin el generador de carga: {why}")
    with experiment_run(EXPERIMENT, asdict(cfg), cfg.motores, root=root, log=log) as ctx:
        arms, skipped = plan(cfg, ctx.engines)
        for key, reason in skipped.items():
            ctx.skip_arm(key, reason)
        # Looked up on the package: a student may swap red.cpu_layout from the notebook (exercise 2).
        server_cpu, load_cpu = this.cpu_layout()
        image_refs, image_names = server_images(arms, log)
        progress(0, 1, f"arrancando {len(arms)} servidores")
        live: dict = {}
        for started in start_all(arms, image_names, server_cpu, ctx):
            if started.failed:
                ctx.skip_arm(started.arm.label, started.failed)
                if started.container:
                    eng.get_engine(started.arm.engine).remove([started.container])
            else:
                live[started.arm] = started
        ctx.run.update_meta(
            cpus={"servidor": server_cpu, "carga": load_cpu},
            server_images=image_refs,
            servers={
                k: {"label": servers.SERVERS[k].label, "binary": str(servers.SERVERS[k].path)}
                for k in cfg.servidores
            },
            load_tool="wrk --latency",
            userland_proxy_disabled=userland_proxy_disabled(),
            ports={s.arm.label: s.port for s in live.values()},
        )
        if not live:
            log("Ningún brazo pudo arrancar: no hay nada que medir.")
        else:
            measure_rounds(
                ctx,
                list(live),
                measure=lambda arm: measure_arm(live[arm], cfg, load_cpu, log),
                progress=progress,
            )
    return Resultado.load(ctx.run.dir)
