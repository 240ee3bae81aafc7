"""The parameters and the run of the network experiment.

Every arm's server is started once (start.py), then measure_rounds loads them round-robin with wrk
(load.py). Each measurement is one `wrk --latency` run: total req/s, the per-thread Req/Sec (the figure
the original's table reported as "Requests/s"), latency p50/p90/p99, socket errors, and the CPU time
(psutil) that the server, wrk, the proxy and the engine's per-container helper spent while it ran.
The server and wrk run on two different CPUs (`cpu_layout`). The Kubernetes arms share one cluster,
started before the first round and torn down after the last (kube.py); their wrk runs last
DURACION_K8S_S seconds.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import asdict, dataclass

from ... import engines as eng
from ...engines import kubernetes
from ...errors import ErrorDelCurso, ParametroInvalido
from .. import red as this
from .. import verdict
from ..params import Params, param
from ..runner import Log, Progress, Resultado, experiment_run, measure_rounds, no_progress, print_log
from . import kube, load, servers
from .arms import ARM_NAMES, DEFAULT_ARMS, KUBERNETES_ARMS, kubernetes_source, plan, userland_proxy_disabled
from .start import Started, cpu_seconds, note_default_networks, start_all

EXPERIMENT = "red"
MAX_RUN_S = 20 * 60  # refuse a plan longer than this before launching anything
SEED_PRESET = {"hilos": 12, "conexiones": 400, "duracion_s": 30}  # the original's `wrk -t12 -c400 -d30s`
# The cluster, once per run: start (7-20 s), images and Pods (5-10 s), teardown (4-24 s).
K8S_OVERHEAD_S = 45.0
# The panel's one-click «configuración del documento»: the original's load on its own two arms (native and
# Docker -p, net/http), with enough repetitions for a verdict and no warm-up round (each round is 30 s).
DOCUMENT_PRESET = {
    "servidores": ["nethttp"],
    "brazos": ["nativo", "docker-puerto"],
    **SEED_PRESET,
    "duracion_k8s_s": SEED_PRESET["duracion_s"],
    "repeticiones": verdict.MIN_N,
    "calentamiento": 0,
}
# The same load on native and the three Kubernetes paths: the document's Kubernetes loss judged with it.
DOCUMENT_K8S_PRESET = {**DOCUMENT_PRESET, "brazos": ["nativo", *KUBERNETES_ARMS]}
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
CPU_METRICS = ("cpu_servidor", "cpu_carga", "cpu_proxy", "cpu_ayudante", *kube.CPU_METRICS)


@dataclass
class Config(Params):
    servidores: list = param(["nethttp", "gin"], "Servidores", options=servers.SERVER_NAMES)
    brazos: list = param(list(DEFAULT_ARMS), "Brazos", options=ARM_NAMES)
    hilos: int = param(2, "Hilos de wrk", minimum=1, maximum=64)
    conexiones: int = param(50, "Conexiones", minimum=1, maximum=2000)
    duracion_s: int = param(2, "Duración (s)", minimum=1, maximum=120)
    duracion_k8s_s: int = param(1, "Duración en Kubernetes (s)", minimum=1, maximum=120)
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
                "DURACION_S, DURACION_K8S_S o la lista de brazos."
            )


def is_k8s(arm) -> bool:
    return arm.engine == "kubernetes"


def duration(arm, cfg: Config) -> int:
    """The length of one wrk run on this arm (DURACION_K8S_S on a Kubernetes path)."""
    return cfg.duracion_k8s_s if is_k8s(arm) else cfg.duracion_s


def estimated_seconds(cfg: Config) -> float:
    """Upper estimate of a run's length: every wrk run plus about a second of set-up per server, and the
    Kubernetes cluster once when a Kubernetes arm is asked for."""
    rounds = cfg.repeticiones + cfg.calentamiento
    k8s = sum(1 for key in cfg.brazos if key in KUBERNETES_ARMS)
    per_server = (len(cfg.brazos) - k8s) * (rounds * (cfg.duracion_s + 0.3) + 1.5)
    per_server += k8s * (rounds * (cfg.duracion_k8s_s + 0.3) + 1.5)
    return len(cfg.servidores) * per_server + (K8S_OVERHEAD_S if k8s else 0.0)


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
    groups = {
        "cpu_servidor": started.server,
        "cpu_proxy": started.proxies,
        "cpu_ayudante": started.helpers,
        **started.components,
    }
    before = {metric: cpu_seconds(procs) for metric, procs in groups.items()}
    seconds = duration(started.arm, cfg)
    try:
        result = load.run(started.target, cfg.hilos, cfg.conexiones, seconds, cpus=load_cpu)
    except (ErrorDelCurso, ValueError) as exc:
        log(f"Falló una medición de {started.arm.label} ({started.arm.image}): {exc}")
        return []
    after = {metric: cpu_seconds(procs) for metric, procs in groups.items()}
    rows = [(m, result.stats[m], load.UNITS[m]) for m in METRICS_FROM_WRK if m in result.stats]
    rows += [(m, round(after[m] - before[m], 4), "s") for m in groups]
    rows.append(("cpu_carga", round(result.cpu_s, 4), "s"))
    return rows


def server_images(arms, engines, log: Log) -> tuple[dict, dict]:
    """Each container arm's server image, imported where missing, one at a time (an import must not run
    twice in parallel): ({engine: {server: info}} for meta.json, {arm: image name or None}). A Kubernetes
    arm's image is the one of the engine the cluster imports from (`kubernetes_source`)."""
    refs: dict[str, dict[str, dict | None]] = {}
    names = {}
    source = kubernetes_source(engines)[0] if any(is_k8s(arm) for arm in arms) else None
    for arm in arms:
        if arm.engine == "bare":
            continue
        engine = source if is_k8s(arm) else arm.engine  # the cluster imports the image from that engine
        if engine is None:
            continue
        per_engine = refs.setdefault(engine, {})
        if arm.image not in per_engine:
            per_engine[arm.image] = servers.ensure_image(engine, arm.image, log)
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
        image_refs, image_names = server_images(arms, ctx.engines, log)
        note_default_networks(ctx, [a for a in arms if not is_k8s(a)])
        progress(0, 1, f"arrancando {len(arms)} servidores")
        live: dict = {}
        cluster_meta: dict = {}
        with contextlib.ExitStack() as stack:
            published: set[int] = set()
            started_all = start_all(
                [a for a in arms if not is_k8s(a)], image_names, server_cpu, ctx, published
            )
            started_all += start_cluster_arms(
                [a for a in arms if is_k8s(a)], image_names, server_cpu, ctx, published, stack, cluster_meta
            )
            for started in started_all:
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
                targets={s.arm.label: s.target.url for s in live.values()},
                kubernetes=cluster_meta,
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
        if cluster_meta:
            ctx.run.update_meta(kubernetes=cluster_meta)
    return Resultado.load(ctx.run.dir)


def start_cluster_arms(arms, image_names, server_cpu, ctx, published, stack, cluster_meta) -> list[Started]:
    """Start the run's cluster (torn down by `stack`) and its arms; if it cannot start, every Kubernetes
    arm fails with the reason and the run goes on without them."""
    if not arms:
        return []
    source = kubernetes_source(ctx.engines)[0]
    cluster = kubernetes.Cluster(ctx.run_id, ctx.log)
    # registered first, so it runs after the teardown: how long the teardown took
    stack.callback(lambda: cluster_meta.update(desmontaje_s=round(cluster.timings.get("desmontaje", 0.0), 2)))
    try:
        stack.enter_context(cluster)
        begin = time.monotonic()
        cluster.import_images(sorted({image_names[a] for a in arms if image_names.get(a)}), engine=source)
        started = kube.start_arms(arms, cluster, image_names, server_cpu, ctx, published)
    except ErrorDelCurso as exc:
        reason = f"el clúster de Kubernetes no arrancó: {exc}"
        return [Started(arm, failed=reason) for arm in arms]
    cluster_meta.update(
        arranque_s=round(cluster.timings.get("arranque", float("nan")), 2),
        pods_s=round(time.monotonic() - begin, 2),
        imagenes_de=source,
        pods={s.arm.label: kube.pod_name(s.arm) for s in started},
    )
    return started
