"""Experiment 5: what isolation costs per system call (seed 001), with gVisor as a third kind of container.

One static probe (`probes/bin/llamadas`) runs a tight loop of one operation N times and reports ns per
call, pinned to one CPU. The same binary runs in every arm, and every arm is visited once per round
(round-robin):

- bare metal: the host (`host`), and the probe under `unshare --pid --fork` repeated 1, 2, 4 and 8 times
  (`pid:1` ... `pid:8`: a PID namespace alone, then nested ones). Without root it tries
  `unshare --user --map-root-user` for the first level, else it skips those arms;
- Docker and Podman: the engine's default seccomp profile (`seccomp`), the same container with
  `--security-opt seccomp=unconfined` (`sin_seccomp`), and gVisor's `runsc` (`gvisor`).

Containers are started once (`sleep`) with the probe mounted read-only, and the probe runs in them by
`exec`: LAUNCH is outside the figure, and the probe times its own loop. One measurement runs every chosen
operation one after the other; each gives two rows: metric `<op>` = the thread's CPU time per call
(CLOCK_THREAD_CPUTIME_ID: on a shared machine it leaves out the time spent waiting for a CPU, which
the wall clock counts; under gVisor the wall clock, see `primary_clock`) and `<op>:pared` = wall-clock ns
per call (the seed's clock); plus a
row `niveles_pid` (how many PID namespaces the probe saw itself in: the proof that nesting happened).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from .. import engines as eng
from .. import images, measure, probes, validate
from ..engines import runtimes
from ..errors import ComandoFallido, ErrorDelCurso, ParametroInvalido
from .base import (
    CLOSING_COLUMNS,
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

EXPERIMENT = "llamadas"
TITLE = "Llamadas al sistema: lo que cuesta cada capa de aislamiento"
NOTEBOOK = "05_llamadas_sistema"
BASELINE = ("bare", "host")
SOURCE = "«Benchmark 01: Namespace Syscall Overhead»"
PROBE = "llamadas"

OPERATIONS = ("getpid", "clock_gettime", "read", "open_close", "stat")
OPERATION_LABEL = {
    "getpid": "getpid (syscall directa)",
    "clock_gettime": "clock_gettime (vDSO, sin entrar al kernel)",
    "read": "read de 1 byte de /dev/zero",
    "open_close": "open + close",
    "stat": "stat",
}
ARM_KINDS = ("host", "pid", "anidado", "seccomp", "sin_seccomp", "gvisor")
ARM_KIND_LABEL = {
    "host": "el host, sin aislamiento",
    "pid": "un namespace PID solo (unshare)",
    "anidado": "namespaces PID anidados 2, 4 y 8 niveles",
    "seccomp": "contenedor con el perfil seccomp por defecto",
    "sin_seccomp": "el mismo contenedor sin seccomp",
    "gvisor": "contenedor con gVisor (runsc)",
}
NESTED_DEPTHS = (2, 4, 8)
ENGINE_VARIANTS = ("seccomp", "sin_seccomp", "gvisor")
LEVELS_METRIC = "niveles_pid"
UNIT = "ns"
MAX_CALLS = 50_000_000
PROBE_IN_CONTAINER = probes.in_container(PROBE)
PROBE_LINE = re.compile(
    r"^llamadas operacion=(\S+) n=(\d+) cpu=(-?\d+) ns_total=(\d+) "
    r"ns_por_llamada=([\d.]+) ns_cpu_por_llamada=([\d.]+) pid=(\d+) niveles_pid=(-?\d+)\s*$",
    re.MULTILINE,
)
WALL_SUFFIX = ":pared"  # metric "<op>:pared": wall-clock ns per call (the seed's clock)
PID_ARMS = ["unshare", "--pid", "--fork"]
USER_PID_ARMS = ["unshare", "--user", "--map-root-user", "--pid", "--fork"]
GVISOR_WHAT = "Un contenedor con gVisor (runsc)"
NEEDS_ROOT = {"gvisor": GVISOR_WHAT}  # listed for a student without root in notebook 00
COMPARABLE = ["getpid"]  # the class comparison puts this metric's ratios (x host) side by side

CONTROLS = [
    {"name": "llamadas", "kind": "int", "label": "Llamadas por medición", "min": 1000, "max": MAX_CALLS},
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 100},
    {"name": "operaciones", "kind": "multi", "label": "Operaciones", "options": list(OPERATIONS)},
    {"name": "brazos", "kind": "multi", "label": "Brazos", "options": list(ARM_KINDS)},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
    {
        "name": "cpu",
        "kind": "choice",
        "label": "CPU fija",
        "options": [(f"CPU {i}", i) for i in sorted(os.sched_getaffinity(0))] + [("sin fijar", None)],
    },
]
QUICK = {"LLAMADAS": 20_000, "REPETICIONES": 2, "CALENTAMIENTO": 0}


@dataclass
class Config:
    llamadas: int = 200_000
    repeticiones: int = 8
    calentamiento: int = 1
    operaciones: list = field(default_factory=lambda: list(OPERATIONS))
    brazos: list = field(default_factory=lambda: list(ARM_KINDS))
    motores: list = field(default_factory=lambda: ["docker", "podman"])
    cpu: int | None = 0
    imagen: str = "alpine"
    tope_ms: int = 250  # an operation's loop stops early after this long (gVisor is ~100x slower)

    def validated(self) -> Config:
        """A checked copy; raises ParametroInvalido (Spanish) before anything is launched."""
        imagen = validate.choices("IMAGEN", self.imagen, images.ROLE_NAMES)
        if len(imagen) != 1:
            raise ParametroInvalido(
                f"IMAGEN debe ser una sola imagen ({', '.join(images.ROLE_NAMES)}), "
                f"pero recibió {self.imagen!r}."
            )
        return Config(
            llamadas=validate.positive_int("LLAMADAS", self.llamadas, maximum=MAX_CALLS),
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=1000),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=100),
            operaciones=validate.choices("OPERACIONES", self.operaciones, OPERATIONS),
            brazos=validate.choices("BRAZOS", self.brazos, ARM_KINDS),
            motores=[
                m
                for m in validate.choices("MOTORES", self.motores, eng.ENGINE_NAMES, allow_empty=True)
                if m != "bare"
            ],
            cpu=valid_cpu(self.cpu),
            imagen=imagen[0],
            tope_ms=validate.non_negative_int("TOPE_MS", self.tope_ms, maximum=600_000),
        )


def valid_cpu(value) -> int | None:
    """None (do not pin) or a CPU this process may run on; ParametroInvalido otherwise."""
    if value is None:
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if not validate.is_int(value) or int(value) not in allowed:
        raise ParametroInvalido(
            f"CPU debe ser None (sin fijar) o una de las CPU de esta máquina "
            f"({', '.join(map(str, allowed))}), pero recibió {value!r}."
        )
    return int(value)


def config(**params) -> Config:
    """Build and validate a Config from the notebook's parameters (lower-case names)."""
    return Config(**params).validated()


# ---------------------------------------------------------------- arms
@dataclass(frozen=True)
class Arm:
    """engine bare: variant host or pid:<depth>; docker/podman: seccomp, sin_seccomp or gvisor."""

    engine: str
    variant: str
    image: str = ""
    label: str = ""
    depth: int = 0  # PID namespaces added by unshare (bare metal only)

    @property
    def kind(self) -> str:
        if self.engine == "bare":
            return "host" if self.depth == 0 else "pid" if self.depth == 1 else "anidado"
        return self.variant


def arm_label(engine: str, variant: str) -> str:
    if engine == "bare":
        if variant == "host":
            return "host"
        depth = int(variant.split(":")[1])
        return "namespace PID" if depth == 1 else f"{depth} namespaces PID anidados"
    name = eng.DISPLAY.get(engine, engine)
    return {
        "seccomp": f"{name} (seccomp por defecto)",
        "sin_seccomp": f"{name} sin seccomp",
        "gvisor": f"{name} + gVisor",
    }.get(variant, f"{name} {variant}")


def bare_arms(kinds) -> list[Arm]:
    depths = (
        ([0] if "host" in kinds else [])
        + ([1] if "pid" in kinds else [])
        + (list(NESTED_DEPTHS) if "anidado" in kinds else [])
    )
    return [
        Arm(
            "bare",
            "host" if d == 0 else f"pid:{d}",
            label=arm_label("bare", "host" if d == 0 else f"pid:{d}"),
            depth=d,
        )
        for d in depths
    ]


def engine_arms(kinds, engines_ok, image_names: dict[str, str]) -> list[Arm]:
    return [
        Arm(e, v, image_names.get(e, ""), arm_label(e, v))
        for e in engines_ok
        for v in ENGINE_VARIANTS
        if v in kinds
    ]


def unshare_prefix(depth: int, *, as_root: bool) -> list[str]:
    """`unshare --pid --fork` `depth` times; without root the first level also makes a user namespace
    (in which the process is root, so the next levels work)."""
    if depth <= 0:
        return []
    first = PID_ARMS if as_root else USER_PID_ARMS
    return first + PID_ARMS * (depth - 1)


def namespaces_unavailable(log: Log = print_log) -> str | None:
    """None if `unshare` can make PID namespaces here (as root, or through a user namespace); else the
    Spanish reason to skip those arms."""
    if not shutil.which("unshare"):
        return "no está el programa «unshare» (paquete util-linux)."
    as_root = os.geteuid() == 0
    argv = unshare_prefix(2, as_root=as_root) + ["true"]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"«unshare» no funcionó: {exc}"
    if result.returncode == 0:
        return None
    if as_root:
        return f"«unshare --pid --fork» falló: {result.stderr.strip()[-200:] or 'sin mensaje'}"
    return (
        "crear namespaces PID necesita root, y este sistema no deja crear namespaces de usuario sin "
        f"privilegios ({result.stderr.strip()[-160:] or 'sin mensaje'})."
    )


def probe_args(cfg: Config, probe_path: str) -> list[str]:
    cpu = -1 if cfg.cpu is None else cfg.cpu
    return [probe_path, ",".join(cfg.operaciones), str(cfg.llamadas), str(cpu), str(cfg.tope_ms)]


def argv_for(arm: Arm, cfg: Config, *, probe_path: str, containers: dict[tuple[str, str], str]) -> list[str]:
    if arm.engine == "bare":
        return unshare_prefix(arm.depth, as_root=os.geteuid() == 0) + probe_args(cfg, probe_path)
    engine = eng.get_engine(arm.engine)
    return engine.exec_argv(containers[(arm.engine, arm.variant)], probe_args(cfg, PROBE_IN_CONTAINER))


def parse_probe(stdout: str) -> dict[str, dict]:
    """{operation: {ns_cpu, ns_pared, n, cpu, niveles_pid}} from the probe's lines; other lines are ignored."""
    out = {}
    for op, n, cpu, _total, wall, cpu_ns, _pid, levels in PROBE_LINE.findall(stdout or ""):
        out[op] = {
            "ns_cpu": float(cpu_ns),
            "ns_pared": float(wall),
            "n": int(n),
            "cpu": int(cpu),
            "niveles_pid": int(levels),
        }
    return out


def run_probe(argv: list[str], engine_name: str, operations, *, timeout: float = 600) -> dict[str, dict]:
    """Run the probe once (outside any host-side timer: the probe times its own loop)."""
    result = eng.get_engine(engine_name).call(argv, timeout=timeout)
    found = parse_probe(result.stdout)
    missing = [op for op in operations if op not in found]
    if result.returncode != 0 or missing:
        detail = (result.stderr or result.stdout or "").strip()[-300:] or "(sin mensaje)"
        raise ComandoFallido(
            f"La sonda «llamadas» falló en «{' '.join(argv)[:160]}» (código {result.returncode}): {detail}"
        )
    return found


def primary_clock(arm: Arm) -> str:
    """The probe figure an arm's `<op>` rows carry. With a Linux kernel the call's work runs on the calling
    thread, so its CPU time counts all of it and leaves out the waits for a busy CPU. Under gVisor the call
    is served by another thread (the Sentry) and the thread's CPU clock is gVisor's own coarse accounting:
    there the wall clock is the cost of the call."""
    return "ns_pared" if arm.variant == "gvisor" else "ns_cpu"


def container_options(variant: str, probe_path: str) -> eng.RunOptions:
    return eng.RunOptions(
        network="none",
        volumes=[(str(probe_path), PROBE_IN_CONTAINER, "ro")],
        security_opt=["seccomp=unconfined"] if variant == "sin_seccomp" else [],
        runtime="runsc" if variant == "gvisor" else None,
        stop_timeout=0,
    )


# ---------------------------------------------------------------- the run
def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    cfg = cfg.validated()
    probe_path = probes.ensure(PROBE, log)
    wants_containers = any(k in cfg.brazos for k in ENGINE_VARIANTS)
    engine_names = ["bare"] + (cfg.motores if wants_containers else [])
    with experiment_run(
        EXPERIMENT, asdict(cfg), engine_names, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        arms = bare_arms(cfg.brazos)
        if any(a.depth > 0 for a in arms):
            reason = namespaces_unavailable(log)
            if reason:
                for a in [a for a in arms if a.depth > 0]:
                    ctx.skip_arm(a.label, reason)
                arms = [a for a in arms if a.depth == 0]
        image_names = {e: ctx.images[e][cfg.imagen]["name"] for e in ctx.engines if e in ctx.images}
        candidates = engine_arms(cfg.brazos, [e for e in ctx.engines if e != "bare"], image_names)
        containers: dict[tuple[str, str], str] = {}
        gvisor_meta = {}
        for arm in candidates:
            engine = eng.get_engine(arm.engine)
            if arm.variant == "gvisor":
                if not ctx.require_root(arm.label, GVISOR_WHAT):
                    continue
                ok, why = engine.runtime_availability("runsc")
                if not ok:
                    ctx.skip_arm(arm.label, why or "gVisor no está disponible.")
                    continue
            name = ctx.container_name(arm.engine, arm.variant.replace("_", ""))
            try:
                engine.launch(
                    arm.image,
                    ["sleep", "86400"],
                    run_id=ctx.run_id,
                    name=name,
                    opts=container_options(arm.variant, probe_path),
                )
            except ErrorDelCurso as exc:
                ctx.skip_arm(arm.label, f"no arrancó: {exc}")
                continue
            containers[(arm.engine, arm.variant)] = name
            arms.append(arm)
            if arm.variant == "gvisor":
                gvisor_meta[arm.engine] = runtimes.runsc_info()
        if not arms:
            raise ErrorDelCurso("No quedó ningún brazo que medir: revisa BRAZOS y MOTORES.")
        ctx.run.update_meta(
            probe={
                "name": PROBE,
                "path": str(probe_path),
                "operations": cfg.operaciones,
                "calls": cfg.llamadas,
                "cpu": cfg.cpu,
                "max_ms_per_operation": cfg.tope_ms,
                "open_stat_path": "/dev/null",
            },
            gvisor=gvisor_meta,
            clocks={
                "<op>": "tiempo de CPU del hilo (CLOCK_THREAD_CPUTIME_ID); en gVisor, reloj de pared",
                "<op>" + WALL_SUFFIX: "reloj de pared (CLOCK_MONOTONIC)",
            },
            pid_namespaces={
                "as_root": os.geteuid() == 0,
                "command": " ".join(unshare_prefix(1, as_root=os.geteuid() == 0)),
            },
        )

        def measure_arm(arm: Arm):
            argv = argv_for(arm, cfg, probe_path=str(probe_path), containers=containers)
            found = run_probe(argv, arm.engine, cfg.operaciones)
            clock = primary_clock(arm)
            rows = [(op, found[op][clock], UNIT) for op in cfg.operaciones]
            rows += [(op + WALL_SUFFIX, found[op]["ns_pared"], UNIT) for op in cfg.operaciones]
            levels = found[cfg.operaciones[0]]["niveles_pid"]
            return rows + [(LEVELS_METRIC, float(levels), "niveles")]

        measure_rounds(
            ctx,
            arms,
            repetitions=cfg.repeticiones,
            warmup=cfg.calentamiento,
            measure=measure_arm,
            progress=progress,
        )
    return Resultado.load(ctx.run.dir)


# ---------------------------------------------------------------- summaries
def wall_clock(df: pd.DataFrame) -> pd.DataFrame:
    """The same run seen through the wall clock: the `<op>:pared` rows renamed to `<op>` (and the CPU-time
    rows dropped), so every function below can summarise either clock."""
    if df is None or not len(df):
        return df
    wall = df[df["metric"].str.endswith(WALL_SUFFIX)].copy()
    wall["metric"] = wall["metric"].str.removesuffix(WALL_SUFFIX)
    return pd.concat(
        [df[~df["metric"].isin(OPERATIONS) & ~df["metric"].str.endswith(WALL_SUFFIX)], wall],
        ignore_index=True,
    )


def _ops(df: pd.DataFrame) -> pd.DataFrame:
    if df is None or not len(df):
        return pd.DataFrame(columns=["engine", "variant", "metric", "value"])
    return df[(df["unit"] == UNIT) & df["metric"].isin(OPERATIONS)]


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per arm and operation: median ns per call, IQR, min, IC 95 %, and the ratio against the
    host (x host) with its IC; `inestable` when the spread dwarfs the median."""
    ops = _ops(df)
    rows = []
    for (engine, variant, metric), group in ops.groupby(["engine", "variant", "metric"], sort=False):
        values = group["value"].to_numpy(dtype=float)
        s = measure.summarize(values)
        base = ops[
            (ops["engine"] == BASELINE[0]) & (ops["variant"] == BASELINE[1]) & (ops["metric"] == metric)
        ]
        ratio = (
            measure.bootstrap_ratio_ci(values, base["value"].to_numpy(dtype=float))
            if len(base)
            else (np.nan, np.nan, np.nan)
        )
        rows.append(
            {
                "engine": engine,
                "variant": variant,
                "brazo": arm_label(engine, variant),
                "operacion": metric,
                "n": s.n,
                "mediana_ns": s.median,
                "q1_ns": s.q1,
                "q3_ns": s.q3,
                "min_ns": s.minimum,
                "ic_bajo_ns": s.ci_low,
                "ic_alto_ns": s.ci_high,
                "x_host": ratio[0],
                "x_host_ic_bajo": ratio[1],
                "x_host_ic_alto": ratio[2],
                "inestable": measure.unstable(values),
            }
        )
    columns = [
        "engine",
        "variant",
        "brazo",
        "operacion",
        "n",
        "mediana_ns",
        "q1_ns",
        "q3_ns",
        "min_ns",
        "ic_bajo_ns",
        "ic_alto_ns",
        "x_host",
        "x_host_ic_bajo",
        "x_host_ic_alto",
        "inestable",
    ]
    return pd.DataFrame(rows, columns=columns)


def _values(df, engine, variant, metric="getpid") -> np.ndarray:
    ops = _ops(df)
    sel = ops[(ops["engine"] == engine) & (ops["variant"] == variant) & (ops["metric"] == metric)]
    return sel["value"].to_numpy(dtype=float)


def ratio(df, num: tuple[str, str], den: tuple[str, str], metric="getpid") -> tuple[float, float, float, int]:
    """(ratio of medians, IC low, IC high, n) of two arms for one operation."""
    a, b = _values(df, *num, metric), _values(df, *den, metric)
    r = measure.bootstrap_ratio_ci(a, b)
    return r[0], r[1], r[2], int(min(len(a), len(b)))


def decomposition(df: pd.DataFrame, metric: str = "getpid") -> pd.DataFrame:
    """Per engine, the step by step story: host → PID namespace → container without seccomp → with
    seccomp → gVisor, as medians (ns) and as each step's ratio against the previous one (with IC)."""
    rows = []
    ops = _ops(df)
    steps = [("bare", "host"), ("bare", "pid:1")]
    engines_present = [e for e in eng.CONTAINER_ENGINES if e in set(ops["engine"])]
    for engine in engines_present or [None]:
        chain = steps + ([(engine, "sin_seccomp"), (engine, "seccomp"), (engine, "gvisor")] if engine else [])
        chain = [s for s in chain if len(_values(df, *s, metric))]
        previous = None
        for step in chain:
            values = _values(df, *step, metric)
            s = measure.summarize(values)
            r = ratio(df, step, previous, metric) if previous else (np.nan, np.nan, np.nan, 0)
            rows.append(
                {
                    "cadena": engine or "bare",
                    "engine": step[0],
                    "variant": step[1],
                    "brazo": arm_label(*step),
                    "mediana_ns": s.median,
                    "ic_bajo_ns": s.ci_low,
                    "ic_alto_ns": s.ci_high,
                    "x_paso_anterior": r[0],
                    "ic_bajo": r[1],
                    "ic_alto": r[2],
                }
            )
            previous = step
    return pd.DataFrame(
        rows,
        columns=[
            "cadena",
            "engine",
            "variant",
            "brazo",
            "mediana_ns",
            "ic_bajo_ns",
            "ic_alto_ns",
            "x_paso_anterior",
            "ic_bajo",
            "ic_alto",
        ],
    )


def nesting(df: pd.DataFrame, metric: str = "getpid") -> pd.DataFrame:
    """Median ns per call against PID-namespace depth (0 = host), with the levels the probe saw."""
    rows = []
    for variant in ["host"] + [f"pid:{d}" for d in (1, *NESTED_DEPTHS)]:
        values = _values(df, "bare", variant, metric)
        if not len(values):
            continue
        s = measure.summarize(values)
        seen = df[(df["engine"] == "bare") & (df["variant"] == variant) & (df["metric"] == LEVELS_METRIC)]
        rows.append(
            {
                "profundidad": 0 if variant == "host" else int(variant.split(":")[1]),
                "mediana_ns": s.median,
                "ic_bajo_ns": s.ci_low,
                "ic_alto_ns": s.ci_high,
                "n": s.n,
                "niveles_vistos": int(seen["value"].median()) if len(seen) else np.nan,
            }
        )
    return pd.DataFrame(
        rows, columns=["profundidad", "mediana_ns", "ic_bajo_ns", "ic_alto_ns", "n", "niveles_vistos"]
    )


def nesting_slope(
    df: pd.DataFrame,
    metric: str = "getpid",
    *,
    resamples: int = measure.BOOTSTRAP_RESAMPLES,
    seed: int = measure.BOOTSTRAP_SEED,
) -> tuple[float, float, float, int]:
    """ns added per PID-namespace level: least-squares slope of the median against depth, with a
    percentile-bootstrap IC (each depth's sample resampled independently). (slope, low, high, n)."""
    samples = {}
    for variant in ["host"] + [f"pid:{d}" for d in (1, *NESTED_DEPTHS)]:
        values = _values(df, "bare", variant, metric)
        if len(values):
            samples[0 if variant == "host" else int(variant.split(":")[1])] = values
    if len(samples) < 3:
        return np.nan, np.nan, np.nan, 0
    depths = np.array(sorted(samples), dtype=float)
    medians = np.array([np.median(samples[d]) for d in sorted(samples)])
    slope = float(np.polyfit(depths, medians, 1)[0])
    rng = np.random.default_rng(seed)
    boot = np.empty((resamples, len(depths)))
    for j, d in enumerate(sorted(samples)):
        v = samples[d]
        boot[:, j] = np.median(rng.choice(v, size=(resamples, v.size), replace=True), axis=1)
    centred = depths - depths.mean()
    slopes = (boot - boot.mean(axis=1, keepdims=True)) @ centred / (centred @ centred)
    lo, hi = np.quantile(slopes, [0.025, 0.975])
    return slope, float(lo), float(hi), int(min(len(v) for v in samples.values()))


# ---------------------------------------------------------------- claims
SEED_HOST_NS, SEED_CONTAINER_NS = 268.83, 298.31
SEED_RUN_RATIO = SEED_CONTAINER_NS / SEED_HOST_NS  # 1.11, its own run
SEED_TABLE_RATIOS = (1.24, 1.30)  # the overhead column of its per-CPU table (24-30 %)
# «~11 % slower» in its run, «25 %» in its table and takeaways: the claimed value is the middle of the two,
# and the claim holds for anything from 5 % to 35 % slower.
SEED_OVERHEAD = 1.18
OVERHEAD_REGION = (1.05, 1.35)
EXEC_CLAIMED_MS = 1.9
EXEC_REGION_MS = (1.5, 2.3)


def claims(
    df: pd.DataFrame, meta: dict | None = None, *, exec_run: Resultado | None | bool = False
) -> list[Claim]:
    """The seed's claims, judged by the one rule (base.judge). exec_run: experiment 3's run to take the
    cost of exec from (False = look up the latest one)."""
    out: list[Claim] = []
    ops = _ops(df)
    host = _values(df, "bare", "host")
    # 1. Container system calls are ~11 % (25 %) slower.
    for engine in eng.CONTAINER_ENGINES:
        statement = (
            f"Las llamadas al sistema en un contenedor son ~11 % más lentas (25 % en su tabla por CPU) "
            f"— {eng.DISPLAY[engine]}"
        )
        values = _values(df, engine, "seccomp")
        if not len(values) or not len(host):
            if engine in set(ops["engine"]) or engine == "docker":
                out.append(no_data("contenedor_11", statement, SOURCE, {"engine": engine}))
            continue
        r, lo, hi, n = ratio(df, (engine, "seccomp"), BASELINE)
        detail = {
            "engine": engine,
            "sin_seccomp": ratio(df, (engine, "sin_seccomp"), BASELINE)[:3],
            "gvisor": ratio(df, (engine, "gvisor"), BASELINE)[:3],
        }
        out.append(
            judge(
                "contenedor_11",
                statement,
                SOURCE,
                r,
                lo,
                hi,
                claimed=SEED_OVERHEAD,
                region=OVERHEAD_REGION,
                n=n,
                unit="x host",
                unstable=measure.unstable(values) or measure.unstable(host),
                detail=detail,
            )
        )
    # 2. The cause is PID namespace translation: a PID namespace alone should then cost the same ~11 %.
    statement = "La causa de esa sobrecarga es la traducción de PID del namespace"
    pid1 = _values(df, "bare", "pid:1")
    if len(pid1) and len(host):
        r, lo, hi, n = ratio(df, ("bare", "pid:1"), BASELINE)
        detail = {
            "sin_seccomp": {
                e: ratio(df, (e, "sin_seccomp"), BASELINE)[:3]
                for e in eng.CONTAINER_ENGINES
                if len(_values(df, e, "sin_seccomp"))
            },
            "seccomp_vs_sin": {
                e: ratio(df, (e, "seccomp"), (e, "sin_seccomp"))[:3]
                for e in eng.CONTAINER_ENGINES
                if len(_values(df, e, "seccomp")) and len(_values(df, e, "sin_seccomp"))
            },
        }
        out.append(
            judge(
                "causa_pid",
                statement,
                SOURCE,
                r,
                lo,
                hi,
                claimed=SEED_OVERHEAD,
                region=OVERHEAD_REGION,
                n=n,
                unit="x host",
                unstable=measure.unstable(pid1) or measure.unstable(host),
                detail=detail,
            )
        )
    else:
        out.append(no_data("causa_pid", statement, SOURCE))
    # 3. Each nesting level adds cost: the seed's 29.48 ns per level; "adds cost" = at least 1 % of the host's
    # call per level (less than that is below what a few repetitions of this probe can resolve).
    statement = "Cada nivel de anidamiento de namespaces PID añade costo"
    slope, lo, hi, n = nesting_slope(df)
    if np.isnan(slope):
        out.append(no_data("anidamiento", statement, SOURCE))
    else:
        floor = 0.01 * float(np.median(host)) if len(host) else 1.0
        out.append(
            judge(
                "anidamiento",
                statement,
                SOURCE,
                slope,
                lo,
                hi,
                claimed=SEED_CONTAINER_NS - SEED_HOST_NS,
                region=(floor, float("inf")),
                n=n,
                unit="ns por nivel",
                detail={"piso_ns": floor, "tabla": nesting(df).to_dict("records")},
            )
        )
    # 4. Consistent across CPUs: one machine cannot tell; the class comparison does.
    out.append(
        no_data(
            "entre_cpus",
            "El porcentaje de sobrecarga es parecido en CPU distintas",
            SOURCE,
            {"donde": "90_comparar_clase"},
        )
    )
    # 5. An exec costs about 1.9 ms: experiment 3 measured `exec true`.
    out.extend(exec_claims(exec_run))
    return out


def exec_claims(exec_run: Resultado | None | bool = False) -> list[Claim]:
    statement = "Un exec (kubectl exec, docker exec) cuesta unos 1,9 ms"
    if exec_run is False:
        try:
            exec_run = Resultado.latest("ejecucion")
        except Exception:  # noqa: BLE001 - a broken run folder means "no run"
            exec_run = None
    if exec_run is None or exec_run.df is None or not len(exec_run.df):
        return [no_data("exec_1_9ms", statement, SOURCE, {"motivo": "sin_corrida"})]
    from . import ejecucion

    df = exec_run.df
    sel = df[(df["variant"] == ejecucion.EXEC_TRUE) & df["engine"].isin(eng.CONTAINER_ENGINES)]
    if not len(sel):
        return [
            no_data("exec_1_9ms", statement, SOURCE, {"motivo": "sin_exec", "run": str(exec_run.run_dir)})
        ]
    out = []
    for engine, group in sel.groupby("engine", sort=False):
        ms = group["value"].to_numpy(dtype=float) * 1000.0  # experiment 3 stores seconds
        s = measure.summarize(ms)
        out.append(
            judge(
                "exec_1_9ms",
                f"{statement} — {eng.DISPLAY[engine]}",
                SOURCE,
                s.median,
                s.ci_low,
                s.ci_high,
                claimed=EXEC_CLAIMED_MS,
                region=EXEC_REGION_MS,
                n=s.n,
                unit="ms",
                unstable=measure.unstable(ms),
                detail={"engine": engine, "run": str(exec_run.run_dir)},
            )
        )
    return out


# ---------------------------------------------------------------- reference
def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """getpid on the host and in a default Docker container: the seed's run, each CPU of its table (the
    middle of each published range) and this run, as medians and as the ratio container / host."""
    rows = []
    ref = reference[reference["metric"] == "getpid"] if reference is not None and len(reference) else None
    if ref is not None:
        for source, group in ref.groupby("source", sort=False):
            h = group[(group["engine"] == "bare") & (group["variant"] == "host")]["value"]
            c = group[(group["engine"] == "docker") & (group["variant"] == "seccomp")]["value"]
            if not len(h) or not len(c):
                continue
            rows.append(
                {
                    "fuente": source,
                    "host_ns": float(h.median()),
                    "contenedor_ns": float(c.median()),
                    "x_host": float(c.median() / h.median()),
                    "ic_bajo": np.nan,
                    "ic_alto": np.nan,
                }
            )
    for engine in eng.CONTAINER_ENGINES:
        if len(_values(df, engine, "seccomp")) and len(_values(df, *BASELINE)):
            r, lo, hi, _ = ratio(df, (engine, "seccomp"), BASELINE)
            rows.append(
                {
                    "fuente": f"tu máquina ({eng.DISPLAY[engine]})",
                    "host_ns": float(np.median(_values(df, *BASELINE))),
                    "contenedor_ns": float(np.median(_values(df, engine, "seccomp"))),
                    "x_host": r,
                    "ic_bajo": lo,
                    "ic_alto": hi,
                }
            )
    return pd.DataFrame(rows, columns=["fuente", "host_ns", "contenedor_ns", "x_host", "ic_bajo", "ic_alto"])


# ---------------------------------------------------------------- closing table and setup
def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """RUNNING: ns per getpid in each environment (median and IC), unstable arms left out."""
    rows = []
    summary = summarize(df, meta)
    for _, r in summary[summary["operacion"] == "getpid"].iterrows():
        if r["inestable"] or not (r["engine"] != "bare" or r["variant"] in ("host", "pid:1")):
            continue
        entorno = r["engine"] if r["variant"] in ("host", "seccomp") else f"{r['engine']} ({r['brazo']})"
        rows.append(
            {
                "concepto": "llamada getpid",
                "tipo": "RUNNING",
                "entorno": entorno,
                "valor": r["mediana_ns"],
                "ic_bajo": r["ic_bajo_ns"],
                "ic_alto": r["ic_alto_ns"],
                "unidad": "ns",
            }
        )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)


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
