"""Experiment 1: startup latency (LAUNCH).

`echo ok` on bare metal (a real spawned process), and `docker/podman run --rm IMAGE echo ok` for each
image role. Every arm is timed the same way (helpers.measure.spawn_and_wait), warm-ups are discarded
and arms are interleaved round-robin. Two extra bare-metal variants teach what the seed measured:
- metodo_semilla: the shell builtin `echo` between two `date +%s%N` processes (the seed's script);
- builtin: the same builtin between two reads of bash's $EPOCHREALTIME (no process at all).
"""

from __future__ import annotations

import itertools
import subprocess
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from .. import engines as eng
from .. import images, measure, results, validate
from .base import (
    CLOSING_COLUMNS,
    Claim,
    Log,
    Progress,
    Resultado,
    agreement,
    experiment_run,
    measure_rounds,
    no_progress,
    print_log,
    ratio_claim,
)

EXPERIMENT = "arranque"
TITLE = "Experimento 1: arranque de «echo ok»"
NOTEBOOK = "01_arranque"
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0}
METRIC = "arranque"
BASELINE = ("bare", "proceso")
COMPARABLE = [METRIC]  # ratios (x bare metal, Podman/Docker) of the launch time travel across machines
BARE_VARIANTS = ("proceso", "metodo_semilla", "builtin")
CONTAINER_VARIANT = "por_defecto"

# Widget description for the view layer (no ipywidgets here).
CONTROLS = [
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 200},
    {"name": "imagenes", "kind": "multi", "label": "Imágenes", "options": list(images.ROLE_NAMES)},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
]

PROGRESS_LABEL = {
    "proceso": "(proceso real)",
    "metodo_semilla": "(método de la semilla)",
    "builtin": "(solo el builtin)",
}

SEED_SCRIPT = "s=$(date +%s%N); echo ok > /dev/null; e=$(date +%s%N); echo $((e - s))"
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
            motores=[
                m
                for m in validate.choices("MOTORES", self.motores, eng.ENGINE_NAMES, allow_empty=True)
                if m != "bare"
            ],
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
    role: str  # image role, "" on bare metal
    image: str  # the real image name, "" on bare metal
    variant: str

    @property
    def label(self) -> str:
        return f"{eng.DISPLAY[self.engine]} {self.role or PROGRESS_LABEL.get(self.variant, self.variant)}"


def plan(cfg: Config, engines_ok: list[str], imgs: dict) -> list[Arm]:
    arms = [Arm("bare", "", "", v) for v in cfg.variantes_bare]
    for engine_name in engines_ok:
        if engine_name == "bare":
            continue
        for role in cfg.imagenes:
            if role in imgs.get(engine_name, {}):  # a missing role is a skipped arm (experiment_run)
                arms.append(Arm(engine_name, role, imgs[engine_name][role]["name"], CONTAINER_VARIANT))
    return arms


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm; rows are written as they are measured. Returns the Resultado."""
    cfg = cfg.validated()
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=cfg.imagenes, root=root, log=log
    ) as ctx:
        arms = plan(cfg, ctx.engines, ctx.images)
        envs = {a.engine: eng.get_engine(a.engine).env() for a in arms}
        launches = itertools.count(1)

        def measure_one(arm: Arm) -> list[tuple[str, float, str]]:
            if arm.engine == "bare" and arm.variant == "metodo_semilla":
                value = _seed_method_ms()
            elif arm.engine == "bare" and arm.variant == "builtin":
                value = _builtin_ms()
            else:
                engine = eng.get_engine(arm.engine)
                name = ctx.container_name(arm.engine, arm.role or "bare", next(launches))
                argv = engine.run_argv(arm.image, ["echo", "ok"], run_id=ctx.run_id, name=name)
                value = measure.time_command(argv, env=envs[arm.engine])
            return [(METRIC, round(value, 4), "ms")]

        measure_rounds(
            ctx,
            arms,
            repetitions=cfg.repeticiones,
            warmup=cfg.calentamiento,
            measure=measure_one,
            progress=progress,
            meta={"timer": "time.perf_counter_ns + os.posix_spawnp"},
        )
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
        rows.append(
            {
                "engine": engine_name,
                "role": role,
                "variant": variant,
                "image": group["image"].iloc[0],
                "n": s.n,
                "mediana_ms": s.median,
                "q1_ms": s.q1,
                "q3_ms": s.q3,
                "min_ms": s.minimum,
                "ic_bajo_ms": s.ci_low,
                "ic_alto_ms": s.ci_high,
                "x_bare": ratio,
                "x_bare_ic_bajo": lo,
                "x_bare_ic_alto": hi,
            }
        )
    order = {"bare": 0, "docker": 1, "podman": 2}
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    return out.sort_values(
        by=["engine", "role", "variant"], key=lambda c: c.map(order) if c.name == "engine" else c
    ).reset_index(drop=True)


def arm_values(df: pd.DataFrame, meta: dict | None, key: tuple[str, str]) -> np.ndarray:
    """Raw repetitions of one arm: (engine, role) for a container arm, ("bare", variant) on bare metal."""
    df = with_roles(df[df["metric"] == METRIC], meta)
    engine_name, what = key
    col = "variant" if engine_name == "bare" else "role"
    return df[(df["engine"] == engine_name) & (df[col] == what)]["value"].to_numpy()


def pair_ratio(
    df: pd.DataFrame, meta: dict | None, a: tuple[str, str], b: tuple[str, str]
) -> tuple[float, float, float]:
    """Median ratio a/b with a bootstrap IC; a and b are (engine, role) of container arms, or
    ("bare", variant)."""
    return measure.bootstrap_ratio_ci(arm_values(df, meta, a), arm_values(df, meta, b))


SOURCE = "el capítulo original"
# The chapter's claims, in its words, with the margin each is judged within (see base.judge).
# Ratios keep the direction of the notebook's tables: Podman/Docker and Ubuntu/Alpine.
PODMAN_2X = {  # «Podman es ~2x más rápido que Docker en startup» (2x with Ubuntu, 2.2x with Alpine)
    "ubuntu": {
        "statement": "Podman es ~2x más rápido que Docker en el arranque (con Ubuntu: 2x)",
        "claimed": 1 / 2.0,
    },
    "alpine": {
        "statement": "Podman es ~2x más rápido que Docker en el arranque (con Alpine: 2.2x)",
        "claimed": 1 / 2.2,
    },
}
PODMAN_2X_REGION = (1 / 2.5, 1 / 1.6)  # «~2x»: Docker takes between 1.6 and 2.5 times Podman's time
ALPINE_UBUNTU = {
    # «Alpine vs Ubuntu: poca diferencia en Docker, algo en Podman» (~428 vs ~430 ms; ~213 vs ~193 ms)
    "docker": {
        "statement": "Alpine frente a Ubuntu: poca diferencia en Docker",
        "claimed": 1.0,
        "region": (0.9, 1.1),
    },
    "podman": {
        "statement": "Alpine frente a Ubuntu: algo de diferencia en Podman (~213 frente a ~193 ms)",
        "claimed": 212.7 / 193.3,
        "region": (1.02, 1.25),
    },
}


def claims(df: pd.DataFrame, meta: dict | None) -> list[Claim]:
    """The chapter's claims on startup, per image and per engine, judged by the one rule
    (base.ratio_claim: bootstrap IC of the ratio of medians; unstable arms flagged)."""
    out: list[Claim] = []
    for role in ("ubuntu", "alpine"):
        spec = PODMAN_2X[role]
        out.append(
            ratio_claim(
                "podman_2x",
                spec["statement"],
                SOURCE,
                arm_values(df, meta, ("podman", role)),
                arm_values(df, meta, ("docker", role)),
                claimed=spec["claimed"],
                region=PODMAN_2X_REGION,
                detail={"role": role, "ratio": "podman_sobre_docker"},
            )
        )
    for engine_name in ("docker", "podman"):
        spec = ALPINE_UBUNTU[engine_name]
        ubuntu, alpine = (
            arm_values(df, meta, (engine_name, "ubuntu")),
            arm_values(df, meta, (engine_name, "alpine")),
        )
        if not (ubuntu.size and alpine.size):
            continue
        out.append(
            ratio_claim(
                "alpine_ubuntu",
                spec["statement"],
                SOURCE,
                ubuntu,
                alpine,
                claimed=spec["claimed"],
                region=spec["region"],
                detail={"engine": engine_name, "ratio": "ubuntu_sobre_alpine"},
            )
        )
    return out


def unstable_arms(df: pd.DataFrame, meta: dict | None) -> set[tuple[str, str, str]]:
    """(engine, role, variant) of the arms whose spread dwarfs their median (measure.unstable)."""
    d = with_roles(df[df["metric"] == METRIC], meta)
    return {key for key, g in d.groupby(["engine", "role", "variant"]) if measure.unstable(g["value"])}


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Live ratios next to the reference's, per container combination, each with its IC 95 %.

    The reference's intervals are bootstrapped from its own raw repetitions, the same way as the live
    ones, and `acuerdo_*` says whether the two intervals overlap (base.agreement). The reference's
    bare-metal row was measured with the chapter's method, so x bare metal is compared against the same
    method measured here (`tu_x_bare_metodo_semilla`); the real process is shown beside it."""
    live = summarize(df, meta)
    ref = summarize(reference, None, baseline=("bare", "metodo_semilla"))
    has_seed_way = bool(((df["engine"] == "bare") & (df["variant"] == "metodo_semilla")).any())
    live_seed = summarize(df, meta, baseline=("bare", "metodo_semilla")) if has_seed_way else None
    nan3 = (np.nan, np.nan, np.nan)
    rows = []
    for _, r in ref[ref["engine"] != "bare"].iterrows():
        row = {
            "engine": r["engine"],
            "role": r["role"],
            "ref_mediana_ms": r["mediana_ms"],
            "ref_x_bare": r["x_bare"],
            "ref_x_bare_ic_bajo": r["x_bare_ic_bajo"],
            "ref_x_bare_ic_alto": r["x_bare_ic_alto"],
            "tu_mediana_ms": np.nan,
            "tu_x_bare_proceso": np.nan,
        }
        seed_way = nan3
        match = live[(live["engine"] == r["engine"]) & (live["role"] == r["role"])]
        if not match.empty:
            row["tu_mediana_ms"] = match.iloc[0]["mediana_ms"]
            row["tu_x_bare_proceso"] = match.iloc[0]["x_bare"]
            if live_seed is not None:
                ms = live_seed[(live_seed["engine"] == r["engine"]) & (live_seed["role"] == r["role"])]
                if not ms.empty:
                    seed_way = tuple(ms.iloc[0][["x_bare", "x_bare_ic_bajo", "x_bare_ic_alto"]])
        (
            row["tu_x_bare_metodo_semilla"],
            row["tu_x_bare_metodo_semilla_ic_bajo"],
            row["tu_x_bare_metodo_semilla_ic_alto"],
        ) = seed_way
        row["acuerdo_x_bare"] = agreement(seed_way, (r["x_bare"], r["x_bare_ic_bajo"], r["x_bare_ic_alto"]))
        rows.append(row)
    out = pd.DataFrame(rows)
    # Podman/Docker per image, with both intervals and whether they overlap.
    for role in out["role"].unique():
        ref_pd = measure.bootstrap_ratio_ci(
            arm_values(reference, None, ("podman", role)), arm_values(reference, None, ("docker", role))
        )
        live_pd = measure.bootstrap_ratio_ci(
            arm_values(df, meta, ("podman", role)), arm_values(df, meta, ("docker", role))
        )
        at = out["role"] == role
        for prefix, (value, low, high) in (("ref", ref_pd), ("tu", live_pd)):
            out.loc[at, f"{prefix}_podman_sobre_docker"] = value
            out.loc[at, f"{prefix}_podman_sobre_docker_ic_bajo"] = low
            out.loc[at, f"{prefix}_podman_sobre_docker_ic_alto"] = high
        out.loc[at, "acuerdo_podman_sobre_docker"] = agreement(live_pd, ref_pd)
    return out


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """LAUNCH rows of the closing table: `echo ok` as a new process on bare metal, and a new container
    (`run --rm … echo ok`) per engine and image role; unstable arms are left out."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
    shaky = unstable_arms(df, meta)
    for _, r in summarize(df, meta).iterrows():
        if (r["engine"], r["role"], r["variant"]) in shaky:
            continue
        if r["engine"] == "bare":
            if r["variant"] != BASELINE[1]:
                continue
            concepto = "arrancar `echo ok` como proceso nuevo"
        else:
            concepto = f"arrancar un contenedor nuevo (`run --rm … echo ok`, imagen «{r['role']}»)"
        rows.append(
            {
                "concepto": concepto,
                "tipo": "LAUNCH",
                "entorno": r["engine"],
                "valor": r["mediana_ms"],
                "ic_bajo": r["ic_bajo_ms"],
                "ic_alto": r["ic_alto_ms"],
                "unidad": "ms",
            }
        )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
