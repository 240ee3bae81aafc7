"""The arms of experiment 1 and how they run.

`echo ok` on bare metal (a real spawned process), and `docker/podman run --rm IMAGE echo ok` for each
image role, with the default network (the chapter's conditions, variant "por_defecto") and, as the
course's own variant, with `--network none` ("sin_red"). Every arm is timed the same way
(helpers.measure.spawn_and_wait, whose core `stopwatch.time_launches` shows in a few lines), warm-ups
are discarded and arms are interleaved round-robin. The first launch of each arm in the run (the
warm-up when there is one) is kept apart as "primer_arranque" (rep 1). Two extra bare-metal variants
teach what the chapter measured:
- metodo_semilla: the shell builtin `echo` between two `date +%s%N` processes (the chapter's script);
- builtin: the same builtin between two reads of bash's $EPOCHREALTIME (no process at all).
"""

from __future__ import annotations

import itertools
import subprocess
from dataclasses import asdict, dataclass

from ... import engines as eng
from ... import images, measure
from ..params import Params, param
from ..runner import Arm as BaseArm
from ..runner import Log, Progress, Resultado, experiment_run, measure_rounds, no_progress, print_log

EXPERIMENT = "arranque"
METRIC = "arranque"
FIRST_METRIC = "primer_arranque"  # the first launch of each arm in the run (kept apart, never pooled)
BARE_VARIANTS = ("proceso", "metodo_semilla", "builtin")
CONTAINER_VARIANT = "por_defecto"  # the chapter's conditions: the engine's default network
NO_NETWORK_VARIANT = "sin_red"  # the course's variant: `--network none`
NETWORK_VARIANTS = (CONTAINER_VARIANT, NO_NETWORK_VARIANT)
NETWORK_OPTIONS = {CONTAINER_VARIANT: None, NO_NETWORK_VARIANT: eng.RunOptions(network="none")}
PROGRESS_LABEL = {
    "proceso": "(proceso real)",
    "metodo_semilla": "(método del capítulo)",
    "builtin": "(solo el builtin)",
    NO_NETWORK_VARIANT: "sin red",
}
SEED_SCRIPT = "s=$(date +%s%N); echo ok > /dev/null; e=$(date +%s%N); echo $((e - s))"
BUILTIN_SCRIPT = 's=$EPOCHREALTIME; echo ok > /dev/null; e=$EPOCHREALTIME; echo "$s $e"'


@dataclass
class Config(Params):
    # 12: the next n after 9 that narrows the order-statistic interval (10 and 11 give a wider one than 9,
    # stats.order_step); a power calculation on the fresh course's run (10 rounds: 28 s of notebook) asked 12
    # for «alpine ≈ ubuntu» in Podman; a loaded machine takes several times as long
    repeticiones: int = param(12, "Repeticiones", minimum=1, maximum=200)
    calentamiento: int = param(1, minimum=0, maximum=100)
    imagenes: list = param(["ubuntu", "alpine"], "Imágenes", options=images.ROLE_NAMES)
    motores: list = param(["docker", "podman"], "Motores", options=eng.CONTAINER_ENGINES, allow_empty=True)
    redes: list = param(list(NETWORK_VARIANTS), "Red de los contenedores", options=NETWORK_VARIANTS)
    variantes_bare: list = param(list(BARE_VARIANTS), options=BARE_VARIANTS)


def _seed_method_ms() -> float:
    out = subprocess.run(["bash", "-c", SEED_SCRIPT], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1e6


def _builtin_ms() -> float:
    out = subprocess.run(["bash", "-c", BUILTIN_SCRIPT], capture_output=True, text=True, check=True)
    start, end = (float(x.replace(",", ".")) for x in out.stdout.split())
    return (end - start) * 1e3


@dataclass(frozen=True)
class Arm(BaseArm):
    role: str = ""  # image role, "" on bare metal


def make_arm(engine: str, variant: str, image: str = "", role: str = "") -> Arm:
    if engine == "bare":
        label = f"{eng.DISPLAY[engine]} {PROGRESS_LABEL.get(variant, variant)}"
    else:
        label = " ".join(p for p in (eng.DISPLAY[engine], role, PROGRESS_LABEL.get(variant, "")) if p)
    return Arm(engine, variant, image, label, role)


def plan(cfg: Config, engines_ok: list[str], imgs: dict) -> list[Arm]:
    arms = [make_arm("bare", v) for v in cfg.variantes_bare]
    for engine_name in engines_ok:
        if engine_name == "bare":
            continue
        for variant in cfg.redes:
            for role in cfg.imagenes:
                if role in imgs.get(engine_name, {}):  # a missing role is a skipped arm (experiment_run)
                    arms.append(make_arm(engine_name, variant, imgs[engine_name][role]["name"], role))
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
        seen: set[Arm] = set()

        def measure_one(arm: Arm) -> list[tuple[str, float, str]]:
            if arm.engine == "bare" and arm.variant == "metodo_semilla":
                value = _seed_method_ms()
            elif arm.engine == "bare" and arm.variant == "builtin":
                value = _builtin_ms()
            else:
                engine = eng.get_engine(arm.engine)
                name = ctx.container_name(arm.engine, arm.role or "bare", next(launches))
                options = NETWORK_OPTIONS.get(arm.variant)
                extra = {"opts": options} if options else {}
                argv = engine.run_argv(arm.image, ["echo", "ok"], run_id=ctx.run_id, name=name, **extra)
                value = measure.time_command(argv, env=envs[arm.engine])
            if arm.engine != "bare" and arm not in seen:  # its first launch in the run (the warm-up)
                seen.add(arm)
                ctx.record(arm, FIRST_METRIC, round(value, 4), "ms", rep=1)
            return [(METRIC, round(value, 4), "ms")]

        measure_rounds(
            ctx,
            arms,
            measure=measure_one,
            progress=progress,
            meta={
                "timer": "time.perf_counter_ns + os.posix_spawnp",
                "networks": {
                    v: ("--network none" if v == NO_NETWORK_VARIANT else "por defecto") for v in cfg.redes
                },
            },
        )
    return Resultado.load(ctx.run.dir)
