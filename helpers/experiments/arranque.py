"""Experiment 1: startup latency (LAUNCH).

`echo ok` on bare metal (a real spawned process), and `docker/podman run --rm IMAGE echo ok` for each
image role. Every arm is timed the same way (helpers.measure.spawn_and_wait), warm-ups are discarded
and arms are interleaved round-robin. Two extra bare-metal variants teach what the seed measured:
- metodo_semilla: the shell builtin `echo` between two `date +%s%N` processes (the seed's script);
- builtin: the same builtin between two reads of bash's $EPOCHREALTIME (no process at all).
"""
from __future__ import annotations

import subprocess
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from .. import engines as eng
from .. import images, measure, results, validate
from .base import Claim, Log, Progress, Resultado, experiment_run, no_progress, print_log

EXPERIMENT = "arranque"
TITLE = "Experimento 1: arranque de «echo ok»"
NOTEBOOK = "01_arranque"
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0}
METRIC = "arranque"
BASELINE = ("bare", "proceso")
BARE_VARIANTS = ("proceso", "metodo_semilla", "builtin")
CONTAINER_VARIANT = "por_defecto"

# Widget description for the view layer (no ipywidgets here).
CONTROLS = [
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 200},
    {"name": "imagenes", "kind": "multi", "label": "Imágenes", "options": list(images.ROLE_NAMES)},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
]

PROGRESS_LABEL = {"proceso": "(proceso real)", "metodo_semilla": "(método de la semilla)",
                  "builtin": "(solo el builtin)"}

SEED_SCRIPT = 's=$(date +%s%N); echo ok > /dev/null; e=$(date +%s%N); echo $((e - s))'
BUILTIN_SCRIPT = 's=$EPOCHREALTIME; echo ok > /dev/null; e=$EPOCHREALTIME; echo "$s $e"'


@dataclass
class Config:
    repeticiones: int = 10
    calentamiento: int = 1
    imagenes: list = field(default_factory=lambda: ["ubuntu", "alpine"])
    motores: list = field(default_factory=lambda: ["docker", "podman"])
    variantes_bare: list = field(default_factory=lambda: list(BARE_VARIANTS))

    def validated(self) -> Config:
        """A checked copy; raises ParametroInvalido (Spanish) before anything is launched."""
        return Config(
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=1000),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=100),
            imagenes=validate.choices("IMAGENES", self.imagenes, images.ROLE_NAMES),
            motores=[m for m in validate.choices("MOTORES", self.motores, eng.ENGINE_NAMES, allow_empty=True)
                     if m != "bare"],
            variantes_bare=validate.choices("variantes_bare", self.variantes_bare, BARE_VARIANTS),
        )


def config(**params) -> Config:
    """Build and validate a Config from the notebook's parameters (lower-case names)."""
    return Config(**params).validated()


# ---------------------------------------------------------------- measuring
def _seed_method_ms() -> float:
    out = subprocess.run(["bash", "-c", SEED_SCRIPT], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1e6


def _builtin_ms() -> float:
    out = subprocess.run(["bash", "-c", BUILTIN_SCRIPT], capture_output=True, text=True, check=True)
    start, end = (float(x.replace(",", ".")) for x in out.stdout.split())
    return (end - start) * 1e3


@dataclass(frozen=True)
class Arm:
    engine: str
    role: str        # image role, "" on bare metal
    image: str       # the real image name, "" on bare metal
    variant: str


def plan(cfg: Config, engines_ok: list[str], imgs: dict) -> list[Arm]:
    arms = [Arm("bare", "", "", v) for v in cfg.variantes_bare]
    for engine_name in engines_ok:
        if engine_name == "bare":
            continue
        for role in cfg.imagenes:
            arms.append(Arm(engine_name, role, imgs[engine_name][role]["name"], CONTAINER_VARIANT))
    return arms


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm; rows are written as they are measured. Returns the Resultado."""
    cfg = cfg.validated()
    with experiment_run(EXPERIMENT, asdict(cfg), cfg.motores, image_roles=cfg.imagenes,
                        root=root, log=log) as ctx:
        arms = plan(cfg, ctx.engines, ctx.images)
        envs = {a.engine: eng.get_engine(a.engine).env() for a in arms}
        steps = measure.round_robin(arms, cfg.repeticiones, cfg.calentamiento)
        ctx.run.update_meta(arms=[asdict(a) for a in arms], warmup_discarded=cfg.calentamiento,
                            schedule="round-robin", timer="time.perf_counter_ns + os.posix_spawnp",
                            quantile_method=measure.QUANTILE_METHOD)
        for done, step in enumerate(steps, 1):
            arm: Arm = step.arm
            label = f"{eng.DISPLAY[arm.engine]} {arm.role or PROGRESS_LABEL.get(arm.variant, arm.variant)}"
            progress(done - 1, len(steps), label + (" (calentamiento)" if step.warmup else f" #{step.rep}"))
            if arm.engine == "bare" and arm.variant == "metodo_semilla":
                value = _seed_method_ms()
            elif arm.engine == "bare" and arm.variant == "builtin":
                value = _builtin_ms()
            else:
                engine = eng.get_engine(arm.engine)
                name = ctx.container_name(arm.engine, arm.role or "bare", done)
                argv = engine.run_argv(arm.image, ["echo", "ok"], run_id=ctx.run_id, name=name)
                value = measure.time_command(argv, env=envs[arm.engine])
            if not step.warmup:
                ctx.run.append(engine=arm.engine, image=arm.image, variant=arm.variant, rep=step.rep,
                               metric=METRIC, value=round(value, 4), unit="ms")
        progress(len(steps), len(steps), "listo")
    return Resultado.load(ctx.run.dir)


# ---------------------------------------------------------------- analysis
def with_roles(df: pd.DataFrame, meta: dict | None) -> pd.DataFrame:
    """Add `role` (alpine/ubuntu) to the rows; see helpers.results.add_roles."""
    return results.add_roles(df, meta)


def summarize(df: pd.DataFrame, meta: dict | None = None, *, baseline=BASELINE) -> pd.DataFrame:
    """One row per (engine, role, variant): n, median, IQR, min, IC 95 % and x baseline with its IC."""
    df = with_roles(df[df["metric"] == METRIC], meta)
    base = df[(df["engine"] == baseline[0]) & (df["variant"] == baseline[1])]["value"].to_numpy()
    rows = []
    for (engine_name, role, variant), group in df.groupby(["engine", "role", "variant"], sort=False):
        values = group["value"].to_numpy()
        s = measure.summarize(values)
        ratio, lo, hi = measure.bootstrap_ratio_ci(values, base) if base.size else (np.nan,) * 3
        rows.append({"engine": engine_name, "role": role, "variant": variant,
                     "image": group["image"].iloc[0], "n": s.n,
                     "mediana_ms": s.median, "q1_ms": s.q1, "q3_ms": s.q3, "min_ms": s.minimum,
                     "ic_bajo_ms": s.ci_low, "ic_alto_ms": s.ci_high,
                     "x_bare": ratio, "x_bare_ic_bajo": lo, "x_bare_ic_alto": hi})
    order = {"bare": 0, "docker": 1, "podman": 2}
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    return out.sort_values(by=["engine", "role", "variant"], key=lambda c: c.map(order) if c.name == "engine" else c
                           ).reset_index(drop=True)


def pair_ratio(df: pd.DataFrame, meta: dict | None, a: tuple[str, str], b: tuple[str, str]
               ) -> tuple[float, float, float]:
    """Median ratio a/b with a bootstrap IC; a and b are (engine, role) of container arms, or
    ("bare", variant)."""
    df = with_roles(df[df["metric"] == METRIC], meta)

    def values(key):
        engine_name, what = key
        col = "variant" if engine_name == "bare" else "role"
        return df[(df["engine"] == engine_name) & (df[col] == what)]["value"].to_numpy()

    return measure.bootstrap_ratio_ci(values(a), values(b))


def claims(df: pd.DataFrame, meta: dict | None) -> list[Claim]:
    """The seed's two claims, per image and per engine, with bootstrap intervals."""
    out: list[Claim] = []
    roles = with_roles(df, meta)
    present = set(zip(roles["engine"], roles["role"]))
    for role in ("ubuntu", "alpine"):
        if ("docker", role) in present and ("podman", role) in present:
            r, lo, hi = pair_ratio(df, meta, ("docker", role), ("podman", role))
            if lo >= 1.5:
                status = "confirmada"     # Podman clearly faster, by a factor near 2 or more
            elif hi < 1:
                status = "refutada"       # Docker is faster
            elif lo > 1:
                status = "parcial"        # Podman faster, but well short of 2x
            else:
                status = "ruido"
            out.append(Claim("podman_2x", f"Podman arranca ~2x más rápido que Docker ({role})", status,
                             r, lo, hi, {"role": role, "docker_sobre_podman": r}))
        else:
            out.append(Claim("podman_2x", f"Podman arranca ~2x más rápido que Docker ({role})", "sin_datos",
                             detail={"role": role}))
    for engine_name in ("docker", "podman"):
        if (engine_name, "ubuntu") in present and (engine_name, "alpine") in present:
            r, lo, hi = pair_ratio(df, meta, (engine_name, "ubuntu"), (engine_name, "alpine"))
            if 0.9 <= lo and hi <= 1.1:
                status = "confirmada"     # within +-10 %, measurably
            elif lo <= 1 <= hi:
                status = "ruido"          # indistinguishable from noise: consistent with the claim
            elif lo > 1.1 or hi < 0.9:
                status = "refutada"       # a difference of more than 10 %, beyond doubt
            else:
                status = "parcial"        # measurable, but the interval straddles the 10 % line
            out.append(Claim("alpine_ubuntu", f"Alpine frente a Ubuntu casi no importa ({engine_name})", status,
                             r, lo, hi, {"engine": engine_name, "ubuntu_sobre_alpine": r}))
    return out


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Live ratios next to the reference's, per container combination.

    The reference's bare-metal row was measured with the seed's method, so the live side shows both
    baselines: the same method (fair comparison with the seed) and a real process (the honest one)."""
    live = summarize(df, meta)
    ref = summarize(reference, None, baseline=("bare", "metodo_semilla"))
    live_seed = summarize(df, meta, baseline=("bare", "metodo_semilla")) \
        if ((df["engine"] == "bare") & (df["variant"] == "metodo_semilla")).any() else None
    rows = []
    for _, r in ref[ref["engine"] != "bare"].iterrows():
        match = live[(live["engine"] == r["engine"]) & (live["role"] == r["role"])]
        row = {"engine": r["engine"], "role": r["role"],
               "ref_mediana_ms": r["mediana_ms"], "ref_x_bare": r["x_bare"],
               "tu_mediana_ms": np.nan, "tu_x_bare_metodo_semilla": np.nan, "tu_x_bare_proceso": np.nan}
        if not match.empty:
            m = match.iloc[0]
            row["tu_mediana_ms"] = m["mediana_ms"]
            row["tu_x_bare_proceso"] = m["x_bare"]
            if live_seed is not None:
                ms = live_seed[(live_seed["engine"] == r["engine"]) & (live_seed["role"] == r["role"])]
                row["tu_x_bare_metodo_semilla"] = ms["x_bare"].iloc[0] if not ms.empty else np.nan
        rows.append(row)
    out = pd.DataFrame(rows)
    # Podman/Docker per image: the machine-independent ratio.
    for role in out["role"].unique():
        for prefix, source in (("ref", ref), ("tu", live)):
            d = source[(source["engine"] == "docker") & (source["role"] == role)]["mediana_ms"]
            p = source[(source["engine"] == "podman") & (source["role"] == role)]["mediana_ms"]
            value = float(p.iloc[0] / d.iloc[0]) if len(d) and len(p) else np.nan
            out.loc[out["role"] == role, f"{prefix}_podman_sobre_docker"] = value
    return out
