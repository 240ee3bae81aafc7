"""The parameters and the run of the network experiment.

Every arm's server is started once (start.py), then measure_rounds loads them round-robin with wrk
(load.py). Each measurement is one `wrk --latency` run of DURACION_S seconds, the same window on every arm:
total req/s, the per-thread Req/Sec (the figure the original's table reported as "Requests/s"), latency
p50/p90/p99, socket errors, and the CPU time (psutil) that the server, wrk, the proxy and the engine's
per-container helper spent while it ran. As the document ran them, the server and wrk share every CPU;
the course's pinned arms put them on two different CPUs (`cpu_layout`). Two loops: first every arm
outside Kubernetes, with no cluster on the machine; then the cluster starts (kube.py), and its arms are
measured in rounds of their own beside native again (arms.CLUSTER_NATIVE), and it is torn down.
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
from .arms import (
    ARM_NAMES,
    DEFAULT_ARMS,
    KUBERNETES_ARMS,
    in_cluster_loop,
    kubernetes_source,
    plan,
    planned,
    userland_proxy_disabled,
)
from .start import Started, cpu_seconds, note_default_networks, start_all

EXPERIMENT = "red"
# meta.json: every arm but the pinned ones ran as the document ran them (older runs pinned every server)
UNPINNED = "servidores_sin_fijar"
CLUSTER_LOOP = "kubernetes"  # the name of the loop measured with the cluster up (results.round_metric)
MAX_RUN_S = 30 * 60  # refuse a plan longer than this before launching anything
SEED_PRESET = {"hilos": 12, "conexiones": 400, "duracion_s": 30}  # the original's `wrk -t12 -c400 -d30s`
# The cluster, once per run: start (7-20 s), images and Deployments (5-10 s), teardown (4-24 s).
K8S_OVERHEAD_S = 45.0
WINDOW_OVERHEAD_S = 0.25  # per wrk run: its start and exit, and the CPU counters read around it (0.17 s here)
# The panel's one-click «como el documento»: its load with its 30 s, on its own arms and servers (native,
# Docker -p and its Deployment through port-forward; net/http and gin), unpinned as every arm by default,
# with the fewest rounds that give a verdict and no warm-up round.
DOCUMENT_PRESET = {
    "servidores": ["nethttp", "gin"],
    "brazos": ["nativo", "docker-puerto", "k8s-port-forward"],
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
CPU_METRICS = ("cpu_servidor", "cpu_carga", "cpu_proxy", "cpu_ayudante", *kube.CPU_METRICS)
DEFAULT_SERVERS = ["nethttp", "gin", "actix", "rocket"]


@dataclass
class Config(Params):
    servidores: list = param(list(DEFAULT_SERVERS), "Servidores", options=servers.SERVER_NAMES)
    brazos: list = param(list(DEFAULT_ARMS), "Brazos", options=ARM_NAMES)
    hilos: int = param(SEED_PRESET["hilos"], "Hilos de wrk", minimum=1, maximum=64)
    conexiones: int = param(SEED_PRESET["conexiones"], "Conexiones", minimum=1, maximum=2000)
    duracion_s: int = param(2, "Duración (s)", minimum=1, maximum=120)
    repeticiones: int = param(6, "Repeticiones", minimum=1, maximum=50)
    calentamiento: int = param(0, minimum=0, maximum=5)
    motores: list = param(["docker", "podman"], "Motores", options=eng.CONTAINER_ENGINES, allow_empty=True)

    def check(self) -> None:
        load.check_load(self.hilos, self.conexiones)
        seconds = estimated_seconds(self)
        if seconds > MAX_RUN_S:
            raise ParametroInvalido(
                f"Ese plan duraría unos {seconds / 60:.0f} minutos ({windows(self)} mediciones por ronda × "
                f"{self.repeticiones + self.calentamiento} rondas × {self.duracion_s} s); el máximo es "
                f"{MAX_RUN_S // 60} minutos. Baja REPETICIONES, DURACION_S, la lista de brazos o la de "
                "servidores."
            )


def is_k8s(arm) -> bool:
    return arm.engine == "kubernetes"


def windows(cfg: Config) -> int:
    """How many wrk runs one round of `cfg` makes (both loops), every server and arm it asks for."""
    return len(planned(cfg.servidores, cfg.brazos))


def estimated_seconds(cfg: Config) -> float:
    """Upper estimate of a run's length: every wrk run with its overhead, about a second of set-up per
    server, and the Kubernetes cluster once when a Kubernetes arm is asked for."""
    rounds = cfg.repeticiones + cfg.calentamiento
    n = windows(cfg)
    k8s = any(key in KUBERNETES_ARMS for key in cfg.brazos)
    return n * (rounds * (cfg.duracion_s + WINDOW_OVERHEAD_S) + 1.0) + (K8S_OVERHEAD_S if k8s else 0.0)


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
    """One wrk run against one started server, with the CPU time of everyone involved: wrk pinned to
    `load_cpu` beside a pinned server, free beside every other."""
    if started.failed or started.target is None:
        return []
    groups = {
        "cpu_servidor": started.server,
        "cpu_proxy": started.proxies,
        "cpu_ayudante": started.helpers,
        **started.components,
    }
    before = {metric: cpu_seconds(procs) for metric, procs in groups.items()}
    cpus = load_cpu if started.arm.spec.pinned else None  # wrk on the other CPU only beside a pinned server
    try:
        result = load.run(started.target, cfg.hilos, cfg.conexiones, cfg.duracion_s, cpus=cpus)
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
    """Start every arm's server, load them round-robin with wrk, and record each run as it ends: the arms
    outside Kubernetes first, with no cluster on the machine, then the cluster's arms in a loop of their
    own beside native again."""
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
        outside = [a for a in arms if not in_cluster_loop(a)]
        inside = [a for a in arms if in_cluster_loop(a)]
        note_default_networks(ctx, outside)
        rounds = cfg.repeticiones + cfg.calentamiento
        steps = {"": len(outside) * rounds, CLUSTER_LOOP: len(inside) * rounds}
        live: dict = {}
        cluster_meta: dict = {}
        ctx.run.update_meta(
            cpus={"servidor": server_cpu, "carga": load_cpu},
            server_images=image_refs,
            servers={
                k: {"label": servers.SERVERS[k].label, "binary": str(servers.SERVERS[k].path)}
                for k in cfg.servidores
            },
            load_tool="wrk --latency",
            userland_proxy_disabled=userland_proxy_disabled(),
            **{UNPINNED: True},
        )
        published: set[int] = set()
        progress(0, 1, f"arrancando {len(outside)} servidores")
        _measure_loop(ctx, cfg, start_all(outside, image_names, server_cpu, ctx, published), live, load_cpu,
                      progress, steps, "")  # fmt: skip
        if inside:
            with contextlib.ExitStack() as stack:
                progress(steps[""], sum(steps.values()), "arrancando el clúster de Kubernetes")
                started = start_cluster_arms(
                    inside, image_names, server_cpu, ctx, published, stack, cluster_meta
                )
                _measure_loop(ctx, cfg, started, live, load_cpu, progress, steps, CLUSTER_LOOP)
            ctx.run.update_meta(kubernetes=cluster_meta)
        if not live:
            log("Ningún brazo pudo arrancar: no hay nada que medir.")
    return Resultado.load(ctx.run.dir)


def _measure_loop(
    ctx, cfg: Config, started_all, live: dict, load_cpu, progress: Progress, steps: dict, loop: str
):
    """Keep the arms that started (the others: one Spanish line each, their container removed), record
    their ports, and measure them in rounds; the progress counts both loops' steps."""
    here = {}
    for started in started_all:
        if started.failed:
            ctx.skip_arm(started.arm.label, started.failed)
            if started.container:
                eng.get_engine(started.arm.engine).remove([started.container])
        else:
            here[started.arm] = started
    live.update(here)
    ctx.run.update_meta(
        ports={s.arm.label: s.port for s in live.values()},
        targets={s.arm.label: s.target.url for s in live.values()},
    )
    if not here:
        return
    offset, total = (0 if not loop else steps[""]), sum(steps.values())
    measure_rounds(
        ctx,
        list(here),
        measure=lambda arm: measure_arm(here[arm], cfg, load_cpu, ctx.log),
        progress=lambda done, _total, what: progress(offset + done, total, what),
        loop=loop,
    )


def start_cluster_arms(arms, image_names, server_cpu, ctx, published, stack, cluster_meta) -> list[Started]:
    """Start the run's cluster (torn down by `stack`), its arms and native again beside them
    (arms.CLUSTER_NATIVE); if the cluster cannot start, every arm of its loop fails with the reason and the
    run goes on without them."""
    if not arms:
        return []
    k8s = [a for a in arms if is_k8s(a)]
    natives = [a for a in arms if not is_k8s(a)]
    source = kubernetes_source(ctx.engines)[0]
    cluster = kubernetes.Cluster(ctx.run_id, ctx.log)
    # registered first, so it runs after the teardown: how long the teardown took
    stack.callback(lambda: cluster_meta.update(desmontaje_s=round(cluster.timings.get("desmontaje", 0.0), 2)))
    try:
        stack.enter_context(cluster)
        begin = time.monotonic()
        cluster.import_images(sorted({image_names[a] for a in k8s if image_names.get(a)}), engine=source)
        started = kube.start_arms(k8s, cluster, image_names, ctx, published)
    except ErrorDelCurso as exc:
        reason = f"el clúster de Kubernetes no arrancó: {exc}"
        return [Started(arm, failed=reason) for arm in arms]
    cluster_meta.update(
        arranque_s=round(cluster.timings.get("arranque", float("nan")), 2),
        pods_s=round(time.monotonic() - begin, 2),
        imagenes_de=source,
        pods={s.arm.label: kube.pod_name(s.arm) for s in started},
    )
    if not any(not s.failed for s in started):
        return started  # no Pod to pair native with: native is not measured again
    return start_all(natives, image_names, server_cpu, ctx, published) + started
