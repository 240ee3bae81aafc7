"""Experiment 2: scaling to N idle containers (LAUNCH) and the whole memory bill (CAPACITY).

For each engine and each N (round-robin over repetitions), one step:
1. launch N idle containers (`sleep 3600`, `--network none`, `--stop-timeout 0`), one after another
   or CONCURRENCIA at a time, timing each `docker/podman run -d` and the whole batch;
2. find every container's cgroup from the engine's inspect data and read its memory files
   (helpers.cgroups), timing that reading;
3. read RSS and PSS (psutil) of the fixed processes (dockerd, containerd) and of the per-container
   helpers (the containerd shim that parents each Docker container, each Podman container's conmon);
4. at the largest N, time `docker/podman stats --no-stream` for the same containers and keep what it
   prints;
5. remove the N containers (Engine.cleanup by this run's label), timing it, and note how much the
   system-wide "used" memory moved (`free -m`'s view) against the cgroup sum.

Sizes are in KB of 1024 bytes (what `ps -o rss=` prints, as in the reference table). Nothing here
imports ipywidgets or matplotlib.
"""

from __future__ import annotations

import math
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
import psutil

from .. import cgroups, images, measure, system, validate
from .. import engines as eng
from ..errors import ParametroInvalido
from .base import (
    CLOSING_COLUMNS,
    Claim,
    Log,
    Progress,
    Resultado,
    agreement,
    experiment_run,
    judge,
    measure_rounds,
    no_data,
    no_progress,
    print_log,
    ratio_claim,
)

EXPERIMENT = "escala"
TITLE = "Experimento 2: escala y factura de memoria"
NOTEBOOK = "02_escala"
BASELINE = None  # no bare-metal arm: the ratios here are Podman/Docker, not x bare metal
READS = ("arranque", "anatomia")  # 01 and 02 answer the same question; 04 measures the network's share
# What the class comparison may set side by side (as Podman/Docker): launch per container and the memory of
# each container and of its helper. Totals grow with N and fixed RSS with the host's libraries: left out.
COMPARABLE = ["lanzamiento_por_contenedor", "memoria_cgroup_por_contenedor", "memoria_stats_por_contenedor"]
QUICK = {"REPETICIONES": 2, "CANTIDADES": [1, 2]}
MAX_N = 200
SLEEP_SECONDS = 3600
SETTLE_SECONDS = 0.5
KB = 1024
# Conservative host memory per idle container, for the check before launching (KB): a Docker
# container costs a containerd shim (~13 MB RSS) plus its cgroup; a Podman one a conmon (~2 MB).
ESTIMATE_KB = {"docker": 16 * 1024, "podman": 6 * 1024}
SAFETY_FACTOR = 2.0  # never plan to use more than half of the available memory
HELPER = {"docker": "shims", "podman": "conmon"}
FIXED = {"docker": ("daemon", "containerd"), "podman": ()}
SEED_CROSSOVER = 102

CONTROLS = [
    {"name": "cantidades", "kind": "ints", "label": "Cantidades de contenedores (N, separadas por comas)"},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
    {"name": "imagen", "kind": "choice", "label": "Imagen", "options": list(images.ROLE_NAMES)},
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 20},
    {
        "name": "concurrencia",
        "kind": "int",
        "label": "Lanzamientos simultáneos (1 = uno tras otro)",
        "min": 1,
        "max": 16,
    },
]


# ---------------------------------------------------------------- parameters
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
            f"{estimate_kb(n, worst) / 1024:.0f} MB (≈{ESTIMATE_KB[worst] / 1024:.0f} MB cada uno, contando "
            f"su proceso auxiliar), y con el margen de seguridad (x{SAFETY_FACTOR:g}) eso supera los "
            f"{available / 2**20:.0f} MB libres de esta máquina. Aquí caben como mucho unos {fits}."
        )


def validate_cantidades(values) -> list[int]:
    items = validate.as_list("CANTIDADES", values)
    if not items:
        raise ParametroInvalido(
            "CANTIDADES no puede estar vacía: indica cuántos contenedores lanzar, por ejemplo [1, 5, 10, 20]."
        )
    out = []
    for item in items:
        if not validate.is_int(item):
            raise ParametroInvalido(f"CANTIDADES debe contener números enteros, pero contiene {item!r}.")
        if item < 1:
            raise ParametroInvalido(f"CANTIDADES debe contener números positivos, pero contiene {item}.")
        if item > MAX_N:
            raise ParametroInvalido(
                f"CANTIDADES: {item} contenedores es demasiado; este experimento acepta como máximo {MAX_N} "
                "(una máquina de 24 GiB los aguanta; más no se ha probado)."
            )
        if int(item) not in out:
            out.append(int(item))
    return sorted(out)


@dataclass
class Config:
    cantidades: list = field(default_factory=lambda: [1, 5, 10, 20])
    motores: list = field(default_factory=lambda: list(eng.CONTAINER_ENGINES))
    imagen: str = "ubuntu"
    repeticiones: int = 5  # enough for a bootstrap IC of every claim; measured here: 3 took 95 s
    concurrencia: int = 1
    comparar_stats: bool = True

    def validated(self, available_bytes: int | None = None) -> Config:
        """A checked copy; raises ParametroInvalido (Spanish) before anything is launched."""
        cantidades = validate_cantidades(self.cantidades)
        motores = validate.choices("MOTORES", self.motores, eng.CONTAINER_ENGINES)
        imagen = validate.choices("IMAGEN", self.imagen, images.ROLE_NAMES)
        if len(imagen) != 1:
            raise ParametroInvalido(f"IMAGEN debe ser una sola imagen ({', '.join(images.ROLE_NAMES)}).")
        if not isinstance(self.comparar_stats, bool):
            raise ParametroInvalido(
                f"comparar_stats debe ser True o False, pero recibió {self.comparar_stats!r}."
            )
        check_memory(cantidades, motores, available_bytes)
        return Config(
            cantidades=cantidades,
            motores=motores,
            imagen=imagen[0],
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=20),
            concurrencia=validate.positive_int("CONCURRENCIA", self.concurrencia, maximum=16),
            comparar_stats=self.comparar_stats,
        )


def config(**params) -> Config:
    """Build and validate a Config from the notebook's parameters (lower-case names)."""
    return Config(**params).validated()


# ---------------------------------------------------------------- probing the engines
LAUNCH_OPTIONS = eng.RunOptions(network="none", stop_timeout=0)  # `sleep` as PID 1 ignores SIGTERM


def launch_argv(engine: eng.Engine, image: str, *, run_id: str, name: str) -> list[str]:
    return engine.run_argv(
        image,
        ["sleep", str(SLEEP_SECONDS)],
        run_id=run_id,
        name=name,
        remove=False,
        detach=True,
        opts=LAUNCH_OPTIONS,
    )


def inspect_all(engine: eng.Engine, names: list[str]) -> list[eng.Container]:
    """Every container inspected, with its cgroup and its helper process (shim / conmon)."""
    return [engine.describe(d) for d in engine.inspect_many(names)]


def helper_memory(containers: list[eng.Container]) -> tuple[dict, list[str]]:
    """Summed RSS/PSS (bytes) of the distinct helper processes, and their names."""
    readings = []
    for pid in dict.fromkeys(c.helper_pid for c in containers if c.helper_pid):
        try:
            readings.append(system.process_memory(psutil.Process(pid)))
        except psutil.Error:
            continue
    return system.memory_totals(readings), sorted({r["name"] for r in readings})


def fixed_memory(engine_name: str) -> dict[str, dict]:
    """{"daemon": totals, "containerd": totals} for Docker; {} for Podman (no daemon)."""
    procs = eng.get_engine(engine_name).daemon_processes()
    return {
        key: system.memory_totals([system.process_memory(p) for p in procs.get(key, [])])
        for key in FIXED[engine_name]
    }


def used_memory_bytes() -> int:
    """System-wide used memory as `free` sees it (total - available)."""
    mem = psutil.virtual_memory()
    return mem.total - mem.available


_SIZE = re.compile(r"^\s*([\d.]+)\s*([A-Za-z]*)")
_UNITS = {"": 1, "b": 1, "kb": 1e3, "kib": 2**10, "mb": 1e6, "mib": 2**20, "gb": 1e9, "gib": 2**30}


def parse_size(text: str) -> float | None:
    """Bytes in a stats size such as "848KiB" (Docker, binary) or "749.6kB" (Podman, decimal)."""
    match = _SIZE.match(text or "")
    if not match or match.group(2).lower() not in _UNITS:
        return None
    return float(match.group(1)) * _UNITS[match.group(2).lower()]


def stats_cli(engine: eng.Engine, names: list[str]) -> tuple[float, list[float]]:
    """Time `docker/podman stats --no-stream` for these containers; (seconds, bytes per container)."""
    elapsed, usage = engine.stats(names)
    sizes = [parse_size(u.split("/")[0]) for u in usage]
    return elapsed, [v for v in sizes if v is not None]


# ---------------------------------------------------------------- launching
def launch(
    engine: eng.Engine, argvs: list[list[str]], concurrency: int, env: dict, on_done=lambda k: None
) -> tuple[float, list[float]]:
    """Run every `run -d` command; returns (wall seconds, ms of each command).

    With concurrency > 1 the commands run in threads. On any exception (Ctrl-C included) no new command
    starts and the running ones are waited for, so clean-up afterwards sees every container."""
    per: list[float] = []
    start = time.perf_counter_ns()
    if concurrency <= 1:
        for argv in argvs:
            per.append(measure.time_command(argv, env=env))
            on_done(len(per))
        return (time.perf_counter_ns() - start) / 1e9, per
    stop = threading.Event()

    def one(argv):
        if stop.is_set():
            return None
        return measure.time_command(argv, env=env)

    pool = ThreadPoolExecutor(max_workers=concurrency)
    try:
        futures = [pool.submit(one, argv) for argv in argvs]
        for future in as_completed(futures):
            value = future.result()
            if value is not None:
                per.append(value)
                on_done(len(per))
    except BaseException:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return (time.perf_counter_ns() - start) / 1e9, per


def remove_until_gone(engine_names, run_id: str, attempts: int = 4) -> None:
    """Clean-up after an interruption: a `run -d` cut short may register its container a moment later."""
    for name in engine_names:
        engine = eng.get_engine(name)
        for _ in range(attempts):
            try:
                engine.cleanup(run_id)
                if not engine.list_labelled(run_id):
                    break
            except Exception:  # noqa: BLE001 - keep trying, the base context cleans up again
                pass
            time.sleep(0.5)


@dataclass(frozen=True)
class Arm:
    engine: str
    n: int

    @property
    def variant(self) -> str:
        return f"n={self.n}"

    @property
    def label(self) -> str:
        return f"{eng.DISPLAY.get(self.engine, self.engine)} N={self.n}"


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every (engine, N) step; rows are written as they are measured."""
    cfg = cfg.validated()
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[cfg.imagen], root=root, log=log
    ) as ctx:
        arms = [Arm(e, n) for n in cfg.cantidades for e in ctx.engines]
        total = sum(a.n for a in arms) * cfg.repeticiones
        envs = {e: eng.get_engine(e).env() for e in ctx.engines}
        ctx.run.update_meta(
            cgroup_layout=cgroups.layout(),
            size_unit="KB = 1024 bytes",
            launch_command={
                e: launch_argv(eng.get_engine(e), "IMAGEN", run_id=ctx.run_id, name="NOMBRE")
                for e in ctx.engines
            },
            helpers={},
            stats_cli_at_n=max(cfg.cantidades) if cfg.comparar_stats else None,
        )
        # Progress counts containers, not steps: measure_rounds gives the step's label, and every
        # container launched moves the bar.
        state = {"launched": 0, "label": ""}
        reps: dict[Arm, int] = {}

        def step_progress(done: int, steps: int, label: str) -> None:
            state["label"] = label
            progress(total if done == steps else state["launched"], total, label)

        def measure_one(arm: Arm) -> list[tuple[str, float, str]]:
            rep = reps[arm] = reps.get(arm, 0) + 1  # no warm-up here: the k-th step of an arm is rep k
            engine = eng.get_engine(arm.engine)
            image = ctx.images[arm.engine][cfg.imagen]["name"]
            rows: list[tuple[str, float, str]] = []

            def add(metric, value, unit):
                if value is not None and not (isinstance(value, float) and np.isnan(value)):
                    rows.append((metric, round(float(value), 4), unit))

            def on_done(k, _base=state["launched"], _label=state["label"]):
                progress(_base + k, total, f"{_label}: contenedor {k}/{arm.n}")

            used_before = used_memory_bytes()
            names = [ctx.container_name(arm.engine, f"n{arm.n}", f"r{rep}", k) for k in range(1, arm.n + 1)]
            argvs = [launch_argv(engine, image, run_id=ctx.run_id, name=nm) for nm in names]
            wall, per = launch(engine, argvs, cfg.concurrencia, envs[arm.engine], on_done)
            state["launched"] += arm.n
            add("lanzamiento_total", wall, "s")
            add("lanzamiento_por_contenedor", wall * 1e3 / arm.n, "ms")
            add("lanzamiento_mediana_individual", float(np.median(per)), "ms")

            time.sleep(SETTLE_SECONDS)
            containers = inspect_all(engine, names)
            # Rootless Podman on cgroup v1 gives its containers no cgroup of their own: reading the
            # user's cgroup instead would bill the whole session to each container. Skip, saying why.
            no_cgroup = cgroups.per_container_reason(engine, [c.cgroup for c in containers])
            if no_cgroup:
                ctx.skip_arm(f"{engine.display}: memoria de cada cgroup y «stats»", no_cgroup)
            else:
                readings, seconds = cgroups.read_many([c.cgroup for c in containers])
                add("tiempo_lectura_cgroup", seconds, "s")
                usage = np.array([r.usage for r in readings], dtype=float) / KB
                add("memoria_cgroup_por_contenedor", usage.mean(), "KB")
                add("memoria_cgroup_total", usage.sum(), "KB")
                add("memoria_stats_por_contenedor", np.mean([r.stats_view for r in readings]) / KB, "KB")
                add("memoria_anon_por_contenedor", np.mean([r.anon for r in readings]) / KB, "KB")
                add("memoria_cache_por_contenedor", np.mean([r.file for r in readings]) / KB, "KB")

            helpers, helper_names = helper_memory(containers)
            ctx.run.meta["helpers"][arm.engine] = helper_names
            add(f"rss_{HELPER[arm.engine]}_total", helpers["rss"] / KB, "KB")
            if helpers["pss"] is not None:
                add(f"pss_{HELPER[arm.engine]}_total", helpers["pss"] / KB, "KB")
            add(f"{HELPER[arm.engine]}_procesos", helpers["count"], "procesos")
            for key, totals in fixed_memory(arm.engine).items():
                add(f"rss_{key}", totals["rss"] / KB, "KB")
                if totals["pss"] is not None:
                    add(f"pss_{key}", totals["pss"] / KB, "KB")
            add("memoria_sistema_delta", (used_memory_bytes() - used_before) / KB, "KB")

            if cfg.comparar_stats and arm.n == max(cfg.cantidades) and not no_cgroup:
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
                repetitions=cfg.repeticiones,
                warmup=0,
                measure=measure_one,
                progress=step_progress,
                meta={"timer": "time.perf_counter_ns + os.posix_spawnp"},
            )
        except BaseException:
            remove_until_gone(ctx.engines, ctx.run_id)
            raise
    return Resultado.load(ctx.run.dir)


# ---------------------------------------------------------------- analysis
def wide(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (engine, n, rep), one column per metric."""
    if df.empty:
        return pd.DataFrame(columns=["engine", "n", "rep"])
    d = df.copy()
    d["n"] = d["variant"].str.extract(r"n=(\d+)", expand=False).astype(int)
    out = d.pivot_table(index=["engine", "n", "rep"], columns="metric", values="value", aggfunc="median")
    return out.reset_index().rename_axis(columns=None)


def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    return frame[name] if name in frame.columns else pd.Series(np.nan, index=frame.index)


SUMMARY_METRICS = [
    "lanzamiento_total",
    "lanzamiento_por_contenedor",
    "memoria_cgroup_por_contenedor",
    "memoria_stats_por_contenedor",
    "rss_daemon",
    "rss_containerd",
    "rss_shims_total",
    "pss_shims_total",
    "rss_conmon_total",
    "pss_conmon_total",
    "eliminacion_total",
]


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Median over repetitions of each metric, per (engine, n); plus the number of repetitions."""
    w = wide(df)
    if w.empty:
        return w
    cols = [m for m in SUMMARY_METRICS if m in w.columns]
    out = w.groupby(["engine", "n"])[cols].median().reset_index()
    out.insert(2, "repeticiones", w.groupby(["engine", "n"])["rep"].nunique().to_numpy())
    return out


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """LAUNCH rows of the closing table: ms per container when launching the largest N in the background
    (`run -d`, no network), per engine, over the repetitions; unstable ones are left out."""
    w = wide(df)
    rows = []
    if w.empty or "lanzamiento_por_contenedor" not in w.columns:
        return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
    n_max = int(w["n"].max())
    for engine_name in [e for e in eng.CONTAINER_ENGINES if e in set(w["engine"])]:
        values = w.loc[(w["engine"] == engine_name) & (w["n"] == n_max), "lanzamiento_por_contenedor"]
        values = values.dropna().to_numpy(dtype=float)
        if values.size and not measure.unstable(values):
            s = measure.summarize(values)
            rows.append(
                {
                    "concepto": f"lanzar {n_max} contenedores en segundo plano (`run -d`, sin red): cada uno",
                    "tipo": "LAUNCH",
                    "entorno": engine_name,
                    "valor": s.median,
                    "ic_bajo": s.ci_low,
                    "ic_alto": s.ci_high,
                    "unidad": "ms",
                }
            )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)


def memory_bill(df: pd.DataFrame, basis: str = "rss") -> pd.DataFrame:
    """Per (engine, n), median over repetitions, in KB: fixed processes, per-container helpers,
    cgroup memory, and their total. basis: "rss" or "pss" (for the processes; cgroups are cgroups)."""
    w = wide(df)
    rows = []
    for (engine_name, n), g in w.groupby(["engine", "n"]):
        fixed = (
            sum(_col(g, f"{basis}_{k}") for k in FIXED.get(engine_name, ()))
            if FIXED.get(engine_name)
            else pd.Series(0.0, index=g.index)
        )
        helpers = _col(g, f"{basis}_{HELPER.get(engine_name, '?')}_total")
        cg = _col(g, "memoria_cgroup_total")
        rows.append(
            {
                "engine": engine_name,
                "n": int(n),
                "fijo_kb": float(fixed.median()),
                "ayudantes_kb": float(helpers.median()),
                "cgroup_kb": float(cg.median()),
            }
        )
    out = pd.DataFrame(rows, columns=["engine", "n", "fijo_kb", "ayudantes_kb", "cgroup_kb"])
    out["total_kb"] = out[["fijo_kb", "ayudantes_kb", "cgroup_kb"]].sum(axis=1, min_count=3)
    return out


def fit_bill(bill: pd.DataFrame) -> dict[str, dict]:
    """Per engine: total(N) = fijo + por_contenedor x N. fijo is the measured fixed memory (median
    over N); por_contenedor is the least-squares slope through the origin of helpers + cgroups."""
    out = {}
    for engine_name, g in bill.groupby("engine"):
        g = g.dropna(subset=["ayudantes_kb", "cgroup_kb"])
        if g.empty:
            continue
        n = g["n"].to_numpy(float)
        variable = (g["ayudantes_kb"] + g["cgroup_kb"]).to_numpy(float)
        out[engine_name] = {
            "fijo_kb": float(np.nanmedian(g["fijo_kb"])),
            "por_contenedor_kb": float((n * variable).sum() / (n * n).sum()),
        }
    return out


def crossover_n(fit: dict[str, dict]) -> float | None:
    """N where Podman's total memory reaches Docker's, or None when the lines never cross for N > 0."""
    if "docker" not in fit or "podman" not in fit:
        return None
    d, p = fit["docker"], fit["podman"]
    slope = p["por_contenedor_kb"] - d["por_contenedor_kb"]
    if slope <= 0:
        return None
    n = (d["fijo_kb"] - p["fijo_kb"]) / slope
    return float(n) if n > 0 else None


def crossover(df: pd.DataFrame, basis: str = "rss") -> dict:
    """The crossover recomputed with the whole bill, and with the seed's model on the same data
    (dockerd alone against conmon per container)."""
    fit = fit_bill(memory_bill(df, basis))
    w = wide(df)
    seed_model = None
    if {"rss_daemon", "rss_conmon_total"} <= set(w.columns):
        daemon = w[w["engine"] == "docker"]["rss_daemon"].median()
        pod = w[w["engine"] == "podman"].dropna(subset=["rss_conmon_total"])
        if not pod.empty and not np.isnan(daemon):
            per = float((pod["n"] * pod["rss_conmon_total"]).sum() / (pod["n"] ** 2).sum())
            seed_model = float(daemon / per) if per > 0 else None
    return {"basis": basis, "fit": fit, "n_cruce": crossover_n(fit), "n_cruce_modelo_semilla": seed_model}


def reference_crossover(reference: pd.DataFrame) -> float:
    """The seed's arithmetic on its own table: dockerd RSS over conmon RSS per container."""
    w = wide(reference)
    daemon = w[w["engine"] == "docker"]["rss_daemon"].median()
    pod = w[w["engine"] == "podman"]
    per = float((pod["n"] * pod["rss_conmon_total"]).sum() / (pod["n"] ** 2).sum())
    return float(daemon / per)


def stats_vs_cgroup(df: pd.DataFrame) -> pd.DataFrame:
    """Where the CLI was timed: its time against the helpers' cgroup reading, and what each reports."""
    w = wide(df)
    if "tiempo_stats_cli" not in w.columns:
        return pd.DataFrame()
    g = w.dropna(subset=["tiempo_stats_cli"]).groupby(["engine", "n"])
    out = (
        g[
            [
                "tiempo_stats_cli",
                "tiempo_lectura_cgroup",
                "memoria_stats_cli_por_contenedor",
                "memoria_cgroup_por_contenedor",
                "memoria_stats_por_contenedor",
            ]
        ]
        .median()
        .reset_index()
    )
    out["veces_mas_lento"] = out["tiempo_stats_cli"] / out["tiempo_lectura_cgroup"]
    return out


def noise(df: pd.DataFrame) -> pd.DataFrame:
    """Per (engine, n): the cgroup sum next to the system-wide delta, and the delta left after removing
    everything (which should be 0 and is pure noise). Median and range over repetitions, in KB."""
    w = wide(df)
    rows = []
    for (engine_name, n), g in w.groupby(["engine", "n"]):
        row = {
            "engine": engine_name,
            "n": int(n),
            "cgroup_total_kb": _col(g, "memoria_cgroup_total").median(),
        }
        for col, key in (
            ("memoria_sistema_delta", "delta_sistema"),
            ("memoria_sistema_ruido", "ruido_sistema"),
        ):
            values = _col(g, col)
            row[f"{key}_kb"] = values.median()
            row[f"{key}_min_kb"] = values.min()
            row[f"{key}_max_kb"] = values.max()
        rows.append(row)
    return pd.DataFrame(rows)


def crossover_interval(
    df: pd.DataFrame, basis: str = "rss", *, resamples: int = 1000, seed: int = measure.BOOTSTRAP_SEED
) -> tuple[float, float, float]:
    """The crossover N (whole bill, see crossover) with a percentile-bootstrap IC 95 %: the repetitions
    of every (engine, N) are resampled, the bill's medians and the two lines refitted each time. "The
    lines never cross" counts as N = +inf. Returns (n, low, high); NaN when an engine is missing."""
    nan = float("nan")
    point = crossover(df, basis)
    if not {"docker", "podman"} <= set(point["fit"]):
        return nan, nan, nan
    w = wide(df)
    rng = np.random.default_rng(seed)
    lines = {}
    for engine_name in ("docker", "podman"):
        fixed_keys = FIXED.get(engine_name, ())
        helper = f"{basis}_{HELPER[engine_name]}_total"
        fixed_b, ns, variable_b = [], [], []
        for n, g in w[w["engine"] == engine_name].groupby("n"):
            fixed = (
                sum(_col(g, f"{basis}_{k}") for k in fixed_keys)
                if fixed_keys
                else pd.Series(0.0, index=g.index)
            )
            variable = _col(g, helper) + _col(g, "memoria_cgroup_total")
            pairs = np.column_stack([fixed.to_numpy(float), variable.to_numpy(float)])
            pairs = pairs[~np.isnan(pairs[:, 1])]
            if not len(pairs):
                continue
            idx = rng.integers(0, len(pairs), size=(resamples, len(pairs)))
            fixed_b.append(np.nanmedian(pairs[:, 0][idx], axis=1))
            variable_b.append(np.median(pairs[:, 1][idx], axis=1))
            ns.append(float(n))
        n_arr = np.array(ns)
        lines[engine_name] = (
            np.nanmedian(np.vstack(fixed_b), axis=0),
            (n_arr[:, None] * np.vstack(variable_b)).sum(axis=0) / (n_arr**2).sum(),
        )
    (d_fixed, d_slope), (p_fixed, p_slope) = lines["docker"], lines["podman"]
    slope = p_slope - d_slope
    with np.errstate(divide="ignore", invalid="ignore"):
        n_b = np.where(slope > 0, (d_fixed - p_fixed) / slope, np.inf)
    n_b = np.where(n_b > 0, n_b, np.inf)
    low, high = np.quantile(n_b, [0.025, 0.975], method="inverted_cdf")  # no interpolation across +inf
    value = point["n_cruce"] if point["n_cruce"] is not None else float("inf")
    return float(value), float(low), float(high)


SOURCE = "el capítulo original"
# The chapter's claims on scale, in its words, each with the margin it is judged within (base.judge).
CROSSOVER_REGION = (SEED_CROSSOVER / 2, SEED_CROSSOVER * 2)  # «a partir de ~100»: within a factor 2
PODMAN_FASTER_REGION = (1 / 2.5, 1 / 1.6)  # «~2x más rápido», as in experiment 1
CGROUP_RATIO = 97 / 437  # «Podman 4.5x menos» (97 frente a 437 KB por contenedor)
CGROUP_RATIO_REGION = (1 / 6.75, 1 / 3.0)  # 4.5x give or take half: 3x to 6.75x less
FLAT_REGION = (0.9, 1.1)  # «estables con 1, 5, 10 o 20 contenedores» (434-442 KB: ±1 %)


def _metric_values(w: pd.DataFrame, engine_name: str, metric: str, n: int | None = None) -> np.ndarray:
    g = w[w["engine"] == engine_name]
    if n is not None:
        g = g[g["n"] == n]
    return _col(g, metric).dropna().to_numpy(float)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The chapter's claims about launching N containers and their memory, judged by the one rule."""
    out = []
    w = wide(df)
    engines_present = set(df["engine"])
    both = {"docker", "podman"} <= engines_present
    for basis in ("rss", "pss"):
        statement = (
            f"A partir de unos {SEED_CROSSOVER} contenedores, Podman gasta más memoria que el "
            f"daemon fijo de Docker (contando {basis.upper()})"
        )
        key = f"cruce_{basis}"
        value, low, high = crossover_interval(df, basis) if both else (float("nan"),) * 3
        if math.isnan(value):
            out.append(no_data(key, statement, SOURCE, {"basis": basis}))
            continue
        detail = crossover(df, basis)
        n_reps = int(w.groupby(["engine", "n"])["rep"].nunique().min())
        out.append(
            judge(
                key,
                statement,
                SOURCE,
                value,
                low,
                high,
                claimed=SEED_CROSSOVER,
                region=CROSSOVER_REGION,
                n=n_reps,
                unit="contenedores",
                detail=detail,
            )
        )
    # Launch time per container, every N pooled: «Podman 2x más rápido» (5.52 s frente a 2.74 s con 20).
    statement = "Lanzar contenedores: Podman es 2x más rápido que Docker"
    out.append(
        ratio_claim(
            "lanzamiento_2x",
            statement,
            SOURCE,
            _metric_values(w, "podman", "lanzamiento_por_contenedor"),
            _metric_values(w, "docker", "lanzamiento_por_contenedor"),
            claimed=0.5,
            region=PODMAN_FASTER_REGION,
            detail={"ratio": "podman_sobre_docker"},
        )
    )
    # cgroup memory per container, every N pooled, the way the chapter read it (stats' view).
    statement = "Memoria de cgroup por contenedor: Podman usa 4.5x menos que Docker"
    metric = "memoria_stats_por_contenedor"
    out.append(
        ratio_claim(
            "cgroup_4x",
            statement,
            SOURCE,
            _metric_values(w, "podman", metric),
            _metric_values(w, "docker", metric),
            claimed=CGROUP_RATIO,
            region=CGROUP_RATIO_REGION,
            detail={"ratio": "podman_sobre_docker"},
        )
    )
    # KB per container stays flat with N: largest N over smallest N.
    for engine_name in sorted(engines_present):
        statement = (
            f"La memoria de cgroup por contenedor es estable con 1, 5, 10 o 20 contenedores "
            f"({eng.DISPLAY[engine_name]})"
        )
        ns = sorted(w[w["engine"] == engine_name]["n"].unique())
        detail = {"engine": engine_name, "ratio": "n_mayor_sobre_n_menor"}
        if len(ns) < 2:
            out.append(no_data("cgroup_estable", statement, SOURCE, detail))
            continue
        detail.update(n_menor=int(ns[0]), n_mayor=int(ns[-1]))
        out.append(
            ratio_claim(
                "cgroup_estable",
                statement,
                SOURCE,
                _metric_values(w, engine_name, "memoria_cgroup_por_contenedor", ns[-1]),
                _metric_values(w, engine_name, "memoria_cgroup_por_contenedor", ns[0]),
                claimed=1.0,
                region=FLAT_REGION,
                detail=detail,
            )
        )
    return out


COMPARED = [
    # (label key, live metric, reference metric, aggregate over N)
    ("ms_por_contenedor", "lanzamiento_por_contenedor", "lanzamiento_por_contenedor", "median"),
    ("kb_por_contenedor", "memoria_stats_por_contenedor", "memoria_cgroup_por_contenedor", "median"),
    ("memoria_proceso_kb", None, None, "max_n"),
]


def _engine_value(w: pd.DataFrame, engine_name: str, metric: str | None, how: str) -> float:
    g = w[w["engine"] == engine_name]
    if g.empty:
        return float("nan")
    if metric is None:  # the memory the seed charged to each engine at the largest N
        metric = "rss_daemon" if engine_name == "docker" else "rss_conmon_total"
        g = g[g["n"] == g["n"].max()]
    if metric not in g.columns:
        return float("nan")
    return float(g.groupby("n")[metric].median().median())


def _compared_values(w: pd.DataFrame, engine_name: str, metric: str | None) -> np.ndarray:
    """The raw values behind one compared figure: every (N, repetition), or for the process memory the
    repetitions at the largest N."""
    g = w[w["engine"] == engine_name]
    if g.empty:
        return np.array([])
    if metric is None:
        metric = "rss_daemon" if engine_name == "docker" else "rss_conmon_total"
        g = g[g["n"] == g["n"].max()]
    return _col(g, metric).dropna().to_numpy(float)


def launch_ratio(df: pd.DataFrame) -> tuple[float, float, float]:
    """Podman/Docker of the launch time per container, every N and repetition pooled, with its IC 95 %
    (what notebook 01 sets beside its own Podman/Docker: same question, other launch options)."""
    w = wide(df)
    return measure.bootstrap_ratio_ci(
        _compared_values(w, "podman", "lanzamiento_por_contenedor"),
        _compared_values(w, "docker", "lanzamiento_por_contenedor"),
    )


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Live figures next to the chapter's, with the ratio Podman/Docker and its IC 95 % on both sides
    (the reference's bootstrapped from its own rows: one per N), and whether the intervals overlap.

    KB per container: the chapter read `stats`, so the live side uses the same view (usage minus inactive
    file cache). Process memory: dockerd for Docker, all conmon for Podman, at the largest N."""
    w, ref = wide(df), wide(reference)
    rows = []
    for key, live_metric, ref_metric, how in COMPARED:
        row = {"medida": key}
        for prefix, frame, metric in (("ref", ref, ref_metric), ("tu", w, live_metric)):
            for engine_name in ("docker", "podman"):
                row[f"{prefix}_{engine_name}"] = _engine_value(frame, engine_name, metric, how)
            value, low, high = measure.bootstrap_ratio_ci(
                _compared_values(frame, "podman", metric), _compared_values(frame, "docker", metric)
            )
            row[f"{prefix}_podman_sobre_docker"] = value
            row[f"{prefix}_podman_sobre_docker_ic_bajo"] = low
            row[f"{prefix}_podman_sobre_docker_ic_alto"] = high
        row["acuerdo"] = agreement(
            tuple(row[f"tu_podman_sobre_docker{s}"] for s in ("", "_ic_bajo", "_ic_alto")),
            tuple(row[f"ref_podman_sobre_docker{s}"] for s in ("", "_ic_bajo", "_ic_alto")),
        )
        rows.append(row)
    return pd.DataFrame(rows)
