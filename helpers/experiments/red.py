"""Experiment: HTTP throughput natively, in Docker and in Podman (seed 003, «Container Performance Testing»).

The same tiny server (Go net/http, gin, or actix-web) answers `GET /` on bare metal and in containers;
wrk loads it from another CPU, always on 127.0.0.1 (see helpers.wrk: the one function that builds a
load target refuses anything else). Arms, interleaved round-robin:

    nativo         the binary on the host, listening on 127.0.0.1:PORT
    docker-puerto  Docker with `-p 127.0.0.1:PORT:8080`: through docker-proxy, a user-space copy loop
    docker-host    Docker with `--network host`: the same container, the host's network stack
    podman-puerto  Podman with `-p 127.0.0.1:PORT:8080` (rootful netavark: NAT rules, no proxy process)
    podman-host    Podman with `--network host`
    gvisor         Docker (or Podman) with runtime runsc and `-p`: gVisor's own network stack (netstack)
    docker-sin-proxy  Docker's `-p` with the user-land proxy disabled (NAT rules); needs a daemon started
                   that way: the shared daemon is never restarted, so here it is usually skipped.

Each measurement is one wrk run (`--latency`): total req/s, the per-thread Req/Sec (the figure the seed's
table reported as "Requests/s"), latency p50/p90/p99, socket errors, and the CPU time (psutil) that the
server, wrk, the proxy and the engine's per-container helper spent while it ran.
"""

from __future__ import annotations

import os
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
import psutil

from .. import engines as eng
from .. import measure, servidores, system, validate, wrk
from ..engines import runtimes
from ..errors import ErrorDelCurso, ParametroInvalido
from .base import (
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

EXPERIMENT = "red"
TITLE = "Experimento 6: red, rendimiento HTTP nativo, en Docker y en Podman"
NOTEBOOK = "06_red_http"
BASELINE = ("bare", "nativo")
DEBIAN_PACKAGES = ["wrk"]
SOURCE = "Container Performance Testing"  # seed 003's own title
REFERENCE_SOURCE = "seed003"

NEEDS_ROOT = {"gvisor": "el brazo gVisor (runsc) de la red HTTP"}  # listed in notebook 00

SEED_PRESET = {"hilos": 12, "conexiones": 400, "duracion_s": 30}  # the seed's `wrk -t12 -c400 -d30s`


@dataclass(frozen=True)
class ArmSpec:
    key: str  # what BRAZOS names
    engine: str  # bare / docker / podman
    variant: str  # the `variant` column
    label: str  # what the reader sees
    network: str | None = None
    publish: bool = False
    runtime: str | None = None


ARM_SPECS = {
    "nativo": ArmSpec("nativo", "bare", "nativo", "nativo (sin contenedor)"),
    "docker-puerto": ArmSpec("docker-puerto", "docker", "puerto", "Docker -p (docker-proxy)", publish=True),
    "docker-host": ArmSpec("docker-host", "docker", "host", "Docker --network host", network="host"),
    "podman-puerto": ArmSpec("podman-puerto", "podman", "puerto", "Podman -p (reglas NAT)", publish=True),
    "podman-host": ArmSpec("podman-host", "podman", "host", "Podman --network host", network="host"),
    "gvisor": ArmSpec(
        "gvisor", "docker", "gvisor", "gVisor -p (su propia pila de red)", publish=True, runtime="runsc"
    ),
    "docker-sin-proxy": ArmSpec(
        "docker-sin-proxy", "docker", "sin_proxy", "Docker -p sin docker-proxy (NAT)", publish=True
    ),
}
ARM_NAMES = tuple(ARM_SPECS)
ARM_LABEL = {(s.engine, s.variant): s.label for s in ARM_SPECS.values()} | {
    ("podman", "gvisor"): "gVisor -p con Podman (su propia pila de red)"
}


def arm_label(engine: str, variant: str) -> str:
    return ARM_LABEL.get((engine, variant), f"{eng.DISPLAY.get(engine, engine)} {variant}")


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
COMPARABLE = ["req_s", "latencia_p50", "latencia_p99"]

CONTROLS = [
    {"name": "servidores", "kind": "multi", "label": "Servidores", "options": list(servidores.SERVER_NAMES)},
    {"name": "brazos", "kind": "multi", "label": "Brazos", "options": list(ARM_NAMES)},
    {"name": "hilos", "kind": "int", "label": "Hilos de wrk", "min": 1, "max": 64},
    {"name": "conexiones", "kind": "int", "label": "Conexiones", "min": 1, "max": 2000},
    {"name": "duracion_s", "kind": "int", "label": "Duración (s)", "min": 1, "max": 120},
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 50},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
]
QUICK = {"SERVIDORES": ["nethttp"], "DURACION_S": 1, "REPETICIONES": 2, "CALENTAMIENTO": 0}
DEFAULT_ARMS = [
    "nativo",
    "docker-puerto",
    "docker-host",
    "podman-puerto",
    "podman-host",
    "gvisor",
    "docker-sin-proxy",
]
READY_TIMEOUT_S = 8.0
START_WORKERS = 4  # servers started in parallel (each waits on its engine's CLI)
MAX_RUN_S = 20 * 60  # refuse a plan longer than this before launching anything


@dataclass
class Config:
    servidores: list = field(default_factory=lambda: ["nethttp", "gin"])
    brazos: list = field(default_factory=lambda: list(DEFAULT_ARMS))
    hilos: int = 2
    conexiones: int = 50
    duracion_s: int = 3
    repeticiones: int = 3
    calentamiento: int = 1
    motores: list = field(default_factory=lambda: ["docker", "podman"])

    def validated(self) -> Config:
        cfg = Config(
            servidores=validate.choices("SERVIDORES", self.servidores, servidores.SERVER_NAMES),
            brazos=validate.choices("BRAZOS", self.brazos, ARM_NAMES),
            hilos=validate.positive_int("HILOS", self.hilos, maximum=64),
            conexiones=validate.positive_int("CONEXIONES", self.conexiones, maximum=2000),
            duracion_s=validate.positive_int("DURACION_S", self.duracion_s, maximum=120),
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=50),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=5),
            motores=[
                m
                for m in validate.choices("MOTORES", self.motores, eng.ENGINE_NAMES, allow_empty=True)
                if m != "bare"
            ],
        )
        wrk.validate_load(cfg.hilos, cfg.conexiones, cfg.duracion_s)
        seconds = estimated_seconds(cfg)
        if seconds > MAX_RUN_S:
            raise ParametroInvalido(
                f"Ese plan duraría unos {seconds / 60:.0f} minutos ({len(cfg.servidores)} servidores × "
                f"{len(cfg.brazos)} brazos × {cfg.repeticiones + cfg.calentamiento} rondas × {cfg.duracion_s} s); "
                f"el máximo es {MAX_RUN_S // 60} minutos. Baja REPETICIONES, DURACION_S o la lista de brazos."
            )
        return cfg


def config(**params) -> Config:
    return Config(**params).validated()


def estimated_seconds(cfg: Config) -> float:
    """Upper estimate of a run's length: every wrk run plus about a second of set-up per server."""
    combos = len(cfg.servidores) * len(cfg.brazos)
    return combos * ((cfg.repeticiones + cfg.calentamiento) * (cfg.duracion_s + 0.3) + 1.5)


# ------------------------------------------------------------------ provisioning (make setup)
def provision(log: Log = print_log) -> None:
    """Build the servers (static, cached) and pack each into a binary-only image in every engine."""
    built = servidores.build(log)
    for key, (ok, why) in built.items():
        server = servidores.SERVERS[key]
        if ok:
            log(f"[ OK ] servidor {server.label}: {server.path}")
        else:
            log(f"[AVISO] servidor {server.label} no disponible: {why}. El cuaderno 06 lo omite.")
    for engine_name in eng.CONTAINER_ENGINES:
        engine = eng.get_engine(engine_name)
        if not engine.available:
            continue
        for key in servidores.SERVER_NAMES:
            if not built.get(key, (False, ""))[0]:
                continue
            try:
                servidores.ensure_image(engine_name, key, log)
            except ErrorDelCurso as exc:
                log(f"[AVISO] {exc}")
    ok, why = wrk.available()
    if not ok:
        log(f"[AVISO] {why}")


# ------------------------------------------------------------------ CPU placement
def cpu_layout() -> tuple[str | None, str | None]:
    """(server CPU, load CPU): two different allowed CPUs, or (None, None) with fewer than two."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return None, None
    if len(allowed) < 2:
        return None, None
    return str(allowed[0]), str(allowed[1])


# ------------------------------------------------------------------ the userland-proxy-off arm
def userland_proxy_disabled() -> bool | None:
    """Whether the running dockerd has the user-land proxy off (--userland-proxy=false or daemon.json).
    None when it cannot tell."""
    procs = [p for p in psutil.process_iter(["name", "cmdline"]) if p.info["name"] == "dockerd"]
    if not procs:
        return None
    cmdline = " ".join(procs[0].info["cmdline"] or [])
    if "--userland-proxy=false" in cmdline or "--userland-proxy false" in cmdline:
        return True
    try:
        import json

        conf = json.loads(open("/etc/docker/daemon.json").read())
        if conf.get("userland-proxy") is False:
            return True
    except (OSError, ValueError):
        pass
    return False


SIN_PROXY_REASON = (
    "el daemon de Docker compartido tiene el proxy de usuario activo, y este curso nunca reinicia un "
    "daemon en uso; el brazo «podman-puerto» muestra el mismo mecanismo (reglas NAT, sin proceso proxy)."
)


# ------------------------------------------------------------------ live arms
@dataclass
class Brazo:
    """A measured arm: one server behind one network path. engine/variant/image/label feed the rows
    (`image` holds the server's key: nethttp, gin, actix)."""

    engine: str
    variant: str
    image: str
    label: str
    spec: ArmSpec
    port: int = 0
    target: wrk.Target | None = None
    server: list = field(default_factory=list)  # psutil processes of the server
    proxies: list = field(default_factory=list)  # docker-proxy / rootlessport / slirp4netns / pasta
    helpers: list = field(default_factory=list)  # containerd shim / conmon
    popen: subprocess.Popen | None = None
    container: str | None = None
    image_ref: str = ""
    failed: str | None = None


def _proc(pid: int | None) -> psutil.Process | None:
    try:
        return psutil.Process(pid) if pid else None
    except psutil.Error:
        return None


def _tree(pid: int | None) -> list[psutil.Process]:
    root = _proc(pid)
    if root is None:
        return []
    try:
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return [root]


PROXY_NAMES = ("docker-proxy", "rootlessport", "rootlessport-child", "slirp4netns", "pasta")


def proxy_processes(port: int) -> list[psutil.Process]:
    """The user-space forwarders that carry this host port (docker-proxy `-host-port PORT`; Podman
    rootless: rootlessport / slirp4netns / pasta)."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        name = proc.info["name"] or ""
        if name not in PROXY_NAMES:
            continue
        cmd = proc.info["cmdline"] or []
        if name == "docker-proxy":
            if "-host-port" in cmd and cmd[cmd.index("-host-port") + 1 :][:1] == [str(port)]:
                found.append(proc)
        else:
            found.append(proc)
    return found


def cpu_seconds(procs) -> float:
    total = 0.0
    for proc in procs:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def _server_args(server: servidores.Server, address: str) -> list[str]:
    return server.args(address)


def start_native(arm: Brazo, server: servidores.Server, port: int, cpu: str | None, ctx) -> None:
    argv = [str(server.path), *_server_args(server, f"{wrk.LOOPBACK}:{port}")]
    if cpu is not None:
        argv = ["taskset", "-c", cpu, *argv]
    env = dict(os.environ, **server.env())
    arm.popen = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    ctx.defer(measure.stop_child, arm.popen.pid)
    arm.server = _tree(arm.popen.pid)


def start_container(
    arm: Brazo, server: servidores.Server, port: int, cpu: str | None, ctx, image: str, engine_name: str
) -> None:
    engine = eng.get_engine(engine_name)
    spec = arm.spec
    if spec.publish:
        address = f"0.0.0.0:{servidores.CONTAINER_PORT}"
        publish = [(port, servidores.CONTAINER_PORT)]
    else:
        address, publish = f"{wrk.LOOPBACK}:{port}", []  # host network: listen on loopback only
    opts = eng.RunOptions(
        network=spec.network,
        publish=publish,
        runtime=spec.runtime,
        cpuset=cpu,
        env=server.env(),
        stop_timeout=0 if engine_name == "podman" else None,
    )
    name = ctx.container_name(spec.key, arm.image)
    arm.container = name
    launched = engine.launch(image, _server_args(server, address), run_id=ctx.run_id, name=name, opts=opts)
    arm.server = _tree(launched.pid)
    helper = engine.helper_process(launched)
    arm.helpers = [helper] if helper is not None else []


_PORT_LOCK = threading.Lock()


def start_arm(
    arm: Brazo, server: servidores.Server, cpu: str | None, ctx, published: set[int], image: str = ""
) -> None:
    """Start the server of one arm on a free 127.0.0.1 port and wait until it answers; on failure set
    arm.failed to a Spanish reason (the run goes on without this arm). Safe to call from several
    threads at once (the port choice is serialised)."""
    last_error = ""
    for _attempt in range(3):  # a port taken between the check and the bind: take another one
        with _PORT_LOCK:
            port = wrk.free_port(8080, exclude=published)
            published.add(port)
        try:
            if arm.engine == "bare":
                start_native(arm, server, port, cpu, ctx)
            else:
                start_container(arm, server, port, cpu, ctx, image, arm.engine)
        except ErrorDelCurso as exc:
            last_error = str(exc)
            if "address already in use" in last_error or "port is already allocated" in last_error:
                if arm.container:  # created but not started: free its name for the next try
                    eng.get_engine(arm.engine).remove([arm.container])
                continue
            arm.failed = f"no arrancó: {last_error[-300:]}"
            return
        break
    else:
        arm.failed = f"no encontré un puerto libre que el motor aceptara ({last_error[-200:]})"
        return
    arm.port = port
    arm.target = wrk.target_url(port, published)
    alive = (lambda: arm.popen.poll() is None) if arm.popen is not None else None
    ok, why = wrk.wait_ready(arm.target, timeout=READY_TIMEOUT_S, expect=servidores.BODY, alive=alive)
    if not ok:
        arm.failed = f"el servidor {why}"
        return
    if arm.spec.publish:
        arm.proxies = proxy_processes(port)
    if arm.container and not arm.server:
        engine = eng.get_engine(arm.engine)
        arm.server = _tree(engine.container(arm.container).pid)


def measure_arm(arm: Brazo, cfg: Config, load_cpu: str | None, log: Log) -> list[tuple[str, float, str]]:
    """One wrk run against one arm, with the CPU time of everyone involved."""
    if arm.failed or arm.target is None:
        return []
    before = {
        "cpu_servidor": cpu_seconds(arm.server),
        "cpu_proxy": cpu_seconds(arm.proxies),
        "cpu_ayudante": cpu_seconds(arm.helpers),
    }
    try:
        result = wrk.run(arm.target, cfg.hilos, cfg.conexiones, cfg.duracion_s, cpus=load_cpu)
    except (ErrorDelCurso, ValueError) as exc:
        log(f"Falló una medición de {arm.label} ({arm.image}): {exc}")
        return []
    after = {
        "cpu_servidor": cpu_seconds(arm.server),
        "cpu_proxy": cpu_seconds(arm.proxies),
        "cpu_ayudante": cpu_seconds(arm.helpers),
    }
    rows = [(m, result.stats[m], wrk.UNITS[m]) for m in METRICS_FROM_WRK if m in result.stats]
    rows += [(m, round(after[m] - before[m], 4), "s") for m in before]
    rows.append(("cpu_carga", round(result.cpu_s, 4), "s"))
    return rows


def plan(cfg: Config, engines_ok: list[str], log: Log) -> tuple[list[Brazo], dict[str, str]]:
    """The arms this machine can run, and {arm key: Spanish reason} for the others."""
    skipped: dict[str, str] = {}
    arms: list[Brazo] = []
    servers = []
    for key in cfg.servidores:
        ok, why = servidores.availability(key)
        if ok:
            servers.append(key)
        else:
            skipped[f"servidor {key}"] = why or "no disponible"
    for arm_key in cfg.brazos:
        spec = ARM_SPECS[arm_key]
        engine_name = spec.engine
        if arm_key == "gvisor":
            root_reason = system.needs_root_reason(NEEDS_ROOT["gvisor"])
            if root_reason:  # the standard root-only skip (base.RunContext.require_root's wording)
                skipped[arm_key] = root_reason
                continue
            engine_name, why = _gvisor_engine(cfg)
            if engine_name is None:
                skipped[arm_key] = why
                continue
        elif engine_name != "bare" and engine_name not in engines_ok:
            if engine_name in cfg.motores:
                skipped[arm_key] = f"{eng.DISPLAY[engine_name]} no está disponible aquí."
            continue  # not asked for in MOTORES: silently out
        if arm_key == "docker-sin-proxy" and not userland_proxy_disabled():
            skipped[arm_key] = SIN_PROXY_REASON
            continue
        if spec.runtime and engine_name != "bare":
            ok, why = eng.get_engine(engine_name).runtime_availability(spec.runtime)
            if not ok:
                skipped[arm_key] = why or "runtime no disponible"
                continue
        for key in servers:
            arms.append(
                Brazo(
                    engine_name,
                    spec.variant,
                    key,
                    f"{arm_label(engine_name, spec.variant)} · {servidores.SERVERS[key].label}",
                    spec,
                )
            )
    return arms, skipped


def _gvisor_engine(cfg: Config) -> tuple[str | None, str]:
    """gVisor runs under Docker when its daemon has runsc registered, else under Podman."""
    ok, why = runtimes.runsc_availability()
    if not ok:
        return None, why or "gVisor no está disponible."
    reasons = []
    for name in ("docker", "podman"):
        if name not in cfg.motores:
            continue
        engine = eng.get_engine(name)
        if not engine.available:
            reasons.append(f"{engine.display}: {engine.reason}")
            continue
        usable, reason = engine.runtime_availability("runsc")
        if usable:
            return name, ""
        reasons.append(f"{engine.display}: {reason}")
    return None, "; ".join(reasons) or "ningún motor pedido en MOTORES puede usar gVisor."


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Start every arm's server, load them round-robin with wrk, and record each run as it ends."""
    cfg = cfg.validated()
    ok, why = wrk.available()
    if not ok:
        raise ErrorDelCurso(f"No puedo medir sin el generador de carga: {why}")
    with experiment_run(EXPERIMENT, asdict(cfg), cfg.motores, root=root, log=log) as ctx:
        arms, skipped = plan(cfg, ctx.engines, log)
        for key, reason in skipped.items():
            ctx.skip_arm(key, reason)
        server_cpu, load_cpu = cpu_layout()
        published: set[int] = set()
        image_refs: dict[str, dict[str, dict]] = {}
        live: list[Brazo] = []
        images: dict[int, str] = {}
        for arm in arms:  # images first, one at a time (an import must not run twice in parallel)
            if arm.engine != "bare":
                info = image_refs.setdefault(arm.engine, {}).get(arm.image)
                if info is None:
                    info = servidores.ensure_image(arm.engine, arm.image, log)
                    image_refs[arm.engine][arm.image] = info
                if info is None:
                    arm.failed = "falta su imagen (ejecuta «make setup»)."
                else:
                    images[id(arm)] = info["name"]
        progress(0, 1, f"arrancando {len(arms)} servidores")
        with ThreadPoolExecutor(max_workers=START_WORKERS) as pool:
            started = [
                pool.submit(
                    start_arm,
                    arm,
                    servidores.SERVERS[arm.image],
                    server_cpu,
                    ctx,
                    published,
                    images.get(id(arm), ""),
                )
                for arm in arms
                if not arm.failed
            ]
            for future in started:
                future.result()
        for arm in arms:
            if arm.failed:
                ctx.skip_arm(arm.label, arm.failed)
                if arm.container:
                    eng.get_engine(arm.engine).remove([arm.container])
            else:
                live.append(arm)
        ctx.run.update_meta(
            cpus={"servidor": server_cpu, "carga": load_cpu},
            server_images=image_refs,
            servers={
                k: {"label": servidores.SERVERS[k].label, "binary": str(servidores.SERVERS[k].path)}
                for k in cfg.servidores
            },
            load_tool="wrk --latency",
            userland_proxy_disabled=userland_proxy_disabled(),
            ports={a.label: a.port for a in live},
        )
        if not live:
            log("Ningún brazo pudo arrancar: no hay nada que medir.")
        else:
            measure_rounds(
                ctx,
                live,
                repetitions=cfg.repeticiones,
                warmup=cfg.calentamiento,
                measure=lambda arm: measure_arm(arm, cfg, load_cpu, log),
                progress=progress,
            )
    return Resultado.load(ctx.run.dir)


# ------------------------------------------------------------------ analysis
def _values(df: pd.DataFrame, metric: str, engine: str, variant: str, server: str) -> np.ndarray:
    sel = df[
        (df["metric"] == metric)
        & (df["engine"] == engine)
        & (df["variant"] == variant)
        & (df["image"] == server)
    ]
    return pd.to_numeric(sel["value"], errors="coerce").dropna().to_numpy(dtype=float)


def _combos(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    if df is None or df.empty:
        return []
    order = {(s.engine, s.variant): i for i, s in enumerate(ARM_SPECS.values())}
    servers = {k: i for i, k in enumerate(servidores.SERVER_NAMES)}
    combos = df[["engine", "variant", "image"]].drop_duplicates().itertuples(index=False, name=None)
    return sorted(combos, key=lambda c: (servers.get(c[2], 99), order.get((c[0], c[1]), 99), c[0]))


def _per_request_us(df: pd.DataFrame, metric: str, engine: str, variant: str, server: str) -> float:
    """Median CPU microseconds per request of one process group (paired by repetition)."""
    sel = df[(df["engine"] == engine) & (df["variant"] == variant) & (df["image"] == server)]
    wide = sel.pivot_table(index="rep", columns="metric", values="value", aggfunc="first")
    if metric not in wide or "peticiones" not in wide:
        return float("nan")
    per = wide[metric] / wide["peticiones"] * 1e6
    per = per.replace([np.inf, -np.inf], np.nan).dropna()
    return float(per.median()) if len(per) else float("nan")


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per server and arm: total req/s (median, IQR, IC 95 %), ratio to native (IC 95 %),
    per-thread req/s, latency p50/p99, socket errors and CPU µs per request of each process."""
    rows = []
    for engine, variant, server in _combos(df):
        total = _values(df, "req_s", engine, variant, server)
        if total.size == 0:
            continue
        s = measure.summarize(total)
        base = _values(df, "req_s", *BASELINE, server)
        if base.size and (engine, variant) != BASELINE:
            ratio, lo, hi = measure.bootstrap_ratio_ci(total, base)
        elif base.size:
            ratio, lo, hi = 1.0, 1.0, 1.0
        else:
            ratio = lo = hi = float("nan")
        p50 = _values(df, "latencia_p50", engine, variant, server)
        p90 = _values(df, "latencia_p90", engine, variant, server)
        p99 = _values(df, "latencia_p99", engine, variant, server)
        hilo = _values(df, "req_s_hilo", engine, variant, server)
        errors = _values(df, "errores_socket", engine, variant, server)
        rows.append(
            {
                "servidor": server,
                "engine": engine,
                "variant": variant,
                "brazo": arm_label(engine, variant),
                "n": s.n,
                "req_s": s.median,
                "q1": s.q1,
                "q3": s.q3,
                "ic_bajo": s.ci_low,
                "ic_alto": s.ci_high,
                "frente_nativo": ratio,
                "frente_nativo_ic_bajo": lo,
                "frente_nativo_ic_alto": hi,
                "req_s_hilo": float(np.median(hilo)) if hilo.size else float("nan"),
                "latencia_p50_ms": float(np.median(p50)) if p50.size else float("nan"),
                "latencia_p90_ms": float(np.median(p90)) if p90.size else float("nan"),
                "latencia_p99_ms": float(np.median(p99)) if p99.size else float("nan"),
                "errores_socket": float(np.sum(errors)) if errors.size else 0.0,
                "us_cpu_servidor": _per_request_us(df, "cpu_servidor", engine, variant, server),
                "us_cpu_proxy": _per_request_us(df, "cpu_proxy", engine, variant, server),
                "us_cpu_ayudante": _per_request_us(df, "cpu_ayudante", engine, variant, server),
                "us_cpu_carga": _per_request_us(df, "cpu_carga", engine, variant, server),
                "inestable": measure.unstable(total),
            }
        )
    return pd.DataFrame(rows)


def _main_server(df: pd.DataFrame) -> str | None:
    present = set(df["image"]) if df is not None and not df.empty else set()
    for key in ("nethttp", "gin", "actix"):
        if key in present:
            return key
    return None


def _per_rep_ratio(
    df: pd.DataFrame, num: str, den: str, engine: str, variant: str, server: str
) -> np.ndarray:
    sel = df[(df["engine"] == engine) & (df["variant"] == variant) & (df["image"] == server)]
    wide = sel.pivot_table(index="rep", columns="metric", values="value", aggfunc="first")
    if num not in wide or den not in wide:
        return np.array([])
    ratio = (wide[num] / wide[den]).replace([np.inf, -np.inf], np.nan).dropna()
    return ratio.to_numpy(dtype=float)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The seed's claims, judged by the one rule (base.judge)."""
    out: list[Claim] = []
    server = _main_server(df)
    k_loss = "docker_pierde_66"
    s_loss = "Docker pierde alrededor del 66 % del rendimiento HTTP frente a la ejecución nativa."
    k_cause = "causa_seguridad"
    s_cause = (
        "El autor no sabe por qué, pero ha oído que Docker aplica mucho procesamiento de seguridad además "
        "de reenviar las peticiones, y que apagarlo o ajustarlo mejoraría el rendimiento."
    )
    k_gin = "gin_igual_nethttp"
    s_gin = "net/http y gin rinden casi igual: 8,78k y 9,01k peticiones por segundo sin contenedor."
    k_thread = "columna_por_hilo"
    s_thread = (
        "Sin contenedor, net/http atiende 8,78k peticiones por segundo (columna Requests/s de la tabla)."
    )
    if server is None:
        return [
            no_data(k, s, SOURCE)
            for k, s in ((k_loss, s_loss), (k_cause, s_cause), (k_gin, s_gin), (k_thread, s_thread))
        ]
    native = _values(df, "req_s", *BASELINE, server)
    docker_p = _values(df, "req_s", "docker", "puerto", server)
    docker_h = _values(df, "req_s", "docker", "host", server)

    # 1. "Docker loses 66 %": loss (%) of Docker -p against native, IC from the bootstrap ratio.
    if native.size and docker_p.size:
        ratio, lo, hi = measure.bootstrap_ratio_ci(docker_p, native)
        host_loss = (
            (100 * (1 - measure.bootstrap_ratio_ci(docker_h, native)[0])) if docker_h.size else float("nan")
        )
        out.append(
            judge(
                k_loss,
                s_loss,
                SOURCE,
                100 * (1 - ratio),
                100 * (1 - hi),
                100 * (1 - lo),
                claimed=66.0,
                region=(61.0, 71.0),
                n=min(native.size, docker_p.size),
                unit="%",
                unstable=measure.unstable(docker_p) or measure.unstable(native),
                detail={"servidor": server, "perdida_host_pct": host_loss},
            )
        )
    else:
        out.append(no_data(k_loss, s_loss, SOURCE, {"servidor": server}))

    # 2. "security processing": the same container with --network host keeps every security layer
    #    (namespaces, seccomp, cgroups) and drops only the proxy. Claimed: host / -p = 1.
    if docker_p.size and docker_h.size:
        ratio, lo, hi = measure.bootstrap_ratio_ci(docker_h, docker_p)
        summary = summarize(df[df["image"] == server], meta)
        proxy = summary[(summary["engine"] == "docker") & (summary["variant"] == "puerto")]
        detail = {
            "servidor": server,
            "us_cpu_proxy": float(proxy["us_cpu_proxy"].iloc[0]) if len(proxy) else float("nan"),
        }
        out.append(
            judge(
                k_cause,
                s_cause,
                SOURCE,
                ratio,
                lo,
                hi,
                claimed=1.0,
                region=(0.9, 1.1),
                n=min(docker_p.size, docker_h.size),
                unit="×",
                unstable=measure.unstable(docker_h),
                detail=detail,
            )
        )
    else:
        out.append(no_data(k_cause, s_cause, SOURCE, {"servidor": server}))

    # 3. gin vs net/http natively: claimed ratio 1, margin ±10 %.
    gin, nethttp = _values(df, "req_s", *BASELINE, "gin"), _values(df, "req_s", *BASELINE, "nethttp")
    if gin.size and nethttp.size:
        ratio, lo, hi = measure.bootstrap_ratio_ci(gin, nethttp)
        out.append(
            judge(
                k_gin,
                s_gin,
                SOURCE,
                ratio,
                lo,
                hi,
                claimed=1.0,
                region=(0.9, 1.1),
                n=min(gin.size, nethttp.size),
                unit="×",
                unstable=measure.unstable(gin) or measure.unstable(nethttp),
            )
        )
    else:
        out.append(no_data(k_gin, s_gin, SOURCE, {"falta": "gin o nethttp en nativo"}))

    # 4. per-thread vs total: the table's column read as the server's throughput predicts total / per-thread = 1.
    ratios = _per_rep_ratio(df, "req_s", "req_s_hilo", *BASELINE, server)
    threads = ((meta or {}).get("parameters") or {}).get("hilos")
    if threads == 1:  # with one wrk thread both figures are the same number: nothing to tell apart
        out.append(no_data(k_thread, s_thread, SOURCE, {"servidor": server, "hilos": 1, "motivo": "un_hilo"}))
    elif ratios.size:
        lo, hi = measure.bootstrap_median_ci(ratios)
        out.append(
            judge(
                k_thread,
                s_thread,
                SOURCE,
                float(np.median(ratios)),
                lo,
                hi,
                claimed=1.0,
                region=(0.9, 1.1),
                n=int(ratios.size),
                unit="×",
                detail={"servidor": server, "hilos": threads, "referencia": 104418.14 / 8780.0},
            )
        )
    else:
        out.append(no_data(k_thread, s_thread, SOURCE))
    return out


def reference_ratios(reference: pd.DataFrame) -> pd.DataFrame:
    """The seed's totals as ratios to native, per server and level (Docker, Kubernetes)."""
    rows = []
    ref = reference[reference["metric"] == "req_s"]
    for server in ref["image"].unique():
        base = ref[(ref["image"] == server) & (ref["engine"] == "bare")]["value"]
        if base.empty:
            continue
        for _, r in ref[ref["image"] == server].iterrows():
            rows.append(
                {
                    "servidor": server,
                    "engine": r["engine"],
                    "variant": r["variant"],
                    "req_s": float(r["value"]),
                    "frente_nativo": float(r["value"]) / float(base.iloc[0]),
                }
            )
    return pd.DataFrame(rows)


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Each live arm's ratio to native next to the seed's (Docker -p; Kubernetes is reference only),
    with whether the seed's ratio falls inside the live IC 95 %."""
    live = summarize(df, meta)
    ref = reference_ratios(reference)
    rows = []
    for server in ("nethttp", "gin", "actix"):
        ref_server = ref[ref["servidor"] == server]
        live_server = live[live["servidor"] == server] if not live.empty else live
        for _, r in ref_server.iterrows():
            if r["engine"] == "bare":
                continue
            row = {
                "servidor": server,
                "nivel": r["engine"],
                "ref_req_s": r["req_s"],
                "ref_frente_nativo": r["frente_nativo"],
                "brazo_en_vivo": "",
                "tu_frente_nativo": np.nan,
                "tu_ic_bajo": np.nan,
                "tu_ic_alto": np.nan,
                "coincide": None,
            }
            match = (
                live_server[(live_server["engine"] == r["engine"]) & (live_server["variant"] == "puerto")]
                if len(live_server)
                else live_server
            )
            if len(match):
                m = match.iloc[0]
                row.update(
                    brazo_en_vivo=m["brazo"],
                    tu_frente_nativo=m["frente_nativo"],
                    tu_ic_bajo=m["frente_nativo_ic_bajo"],
                    tu_ic_alto=m["frente_nativo_ic_alto"],
                    coincide=bool(
                        m["frente_nativo_ic_bajo"] <= r["frente_nativo"] <= m["frente_nativo_ic_alto"]
                    ),
                )
            rows.append(row)
    return pd.DataFrame(rows)


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """RUNNING rows of the closing table: requests per second of the main server, per arm."""
    from .base import CLOSING_COLUMNS

    live = summarize(df, meta)
    server = _main_server(df)
    rows = []
    if server is not None and not live.empty:
        for _, r in live[(live["servidor"] == server) & ~live["inestable"]].iterrows():
            rows.append(
                {
                    "concepto": f"HTTP {servidores.SERVERS[server].label} ({r['brazo']})",
                    "tipo": "RUNNING",
                    "entorno": r["engine"],
                    "valor": r["req_s"],
                    "ic_bajo": r["ic_bajo"],
                    "ic_alto": r["ic_alto"],
                    "unidad": "req/s",
                }
            )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
