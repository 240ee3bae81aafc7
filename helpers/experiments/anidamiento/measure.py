"""The parameters, the arms and how they run.

Per round and arm (interleaved round-robin), two measurements:
- startup of `echo ok`: `arranque` (ms, timed from the host around the whole chain of `exec`s into the
  already-running outer containers) and `arranque_interior` (ms, the innermost `run` alone, timed by
  probes/cronometro one level up);
- CPU work (`dd if=/dev/urandom | sha256sum`, experiment 3's `hash` workload) by `exec` into an already
  running busybox container at that level: `trabajo` (s, timed inside by cronometro) and
  `trabajo_extremo` (s, timed from the host, all the `exec`s included).
Once per nested arm: the memory of the inner engine (`pss_motor_interior`, MiB) and its image store on
disk (`almacen_interior`, MiB).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ... import engines as eng
from ... import measure, probes, workloads
from ...engines import rootfs
from ...engines.nested import Chain, short_error
from ...errors import ComandoFallido, ErrorDelCurso, ParametroInvalido
from .. import verdict as vd
from ..params import Params, param
from ..runner import Arm, Log, Progress, Resultado, experiment_run, measure_rounds, no_progress, print_log
from .build import NESTED_WHAT, PROBE_IN_CONTAINER, prepare
from .chains import build_chain, probe_path, startup_argv
from .footprint import directory_size, inner_engine_memory
from .ladder import climb_again, explain, privileged_mode, try_unprivileged
from .levels import (
    EXPERIMENT,
    LEVELS,
    METRIC_PSS,
    METRIC_START,
    METRIC_START_INNER,
    METRIC_STORE,
    METRIC_WORK,
    METRIC_WORK_E2E,
    PRIV,
    UNITS,
    UNPRIV,
)

MIB = 2**20

DOCKER_UNPRIVILEGED = (
    "no se intenta: el daemon de dentro necesita montar sistemas de archivos, crear redes y "
    "escribir en los cgroups (CAP_SYS_ADMIN, CAP_NET_ADMIN), y el Docker sin root que podría "
    "evitarlo necesita rootlesskit, que el curso no instala. El intento sin privilegios se hace "
    "con Podman."
)


@dataclass
class Config(Params):
    # 9: 6 to 8 rounds give the order-statistic interval [min, max]; 9 drops the extremes (stats.order_k)
    repeticiones: int = param(9, "Repeticiones", minimum=1, maximum=100)
    calentamiento: int = param(1, minimum=0, maximum=20)
    niveles: list = param([1, 2, 3], "Niveles", kind="multi", options=LEVELS)
    motores: list = param(["docker", "podman"], "Motores", options=eng.CONTAINER_ENGINES, allow_empty=True)
    privilegiado: bool = param(True, "Brazos con --privileged")
    tamaño_mib: int = param(20, "MiB del trabajo de CPU (sha256)", minimum=1, maximum=1024)

    def check(self) -> None:
        if 1 not in self.niveles:
            raise ParametroInvalido(
                "NIVELES debe incluir el 1: cada nivel se compara con el anterior, "
                "empezando por un contenedor normal."
            )


@dataclass(frozen=True)
class NestArm(Arm):
    """One arm: engine (on the host), variant (level and mode), image (busybox's real name), label and
    the level (0 = bare metal, 1 = a container, 2 and 3 = one and two engines inside)."""

    level: int = 0


def plan(cfg: Config, engines_ok: Sequence[str], busybox: dict[str, str]) -> list[NestArm]:
    """The arms wanted by the parameters (before finding out which can run here)."""
    arms = [NestArm("bare", "nivel0", "", "bare metal", 0)]
    for e in engines_ok:
        display = eng.DISPLAY[e]
        arms.append(NestArm(e, "nivel1", busybox[e], f"{display} (nivel 1)", 1))
        if 2 in cfg.niveles:
            if cfg.privilegiado:
                arms.append(NestArm(e, PRIV, busybox[e], f"{display} en {display} (nivel 2)", 2))
            if e == "podman":
                arms.append(NestArm(e, UNPRIV, busybox[e], f"{display} en {display} sin --privileged", 2))
        if 3 in cfg.niveles and cfg.privilegiado:
            arms.append(NestArm(e, "nivel3", busybox[e], f"{display} (nivel 3)", 3))
    return arms


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm round-robin; rows are written as they are measured. Returns the Resultado."""
    cfg = cfg.validated()
    probes.ensure("cronometro", log)
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=["alpine"], root=root, log=log
    ) as ctx:
        workdir = Path(tempfile.mkdtemp(prefix=f"curso-anidamiento-{ctx.run_id}-"))
        # LIFO: containers are removed by label first, then this folder (their image stores) goes.
        ctx.defer(shutil.rmtree, workdir, ignore_errors=True)
        ctx.run.update_meta(host_scratch_dir=str(workdir))
        Nesting(cfg, ctx, workdir, log).measure(progress)
    return Resultado.load(ctx.run.dir)


class Nesting:
    """One run's chains: opened arm by arm, measured round-robin, then their memory and disk read once.
    `meta` is what meta.json["anidamiento"] records (images, modes, the attempts, preparation times)."""

    def __init__(self, cfg: Config, ctx, workdir: Path, log: Log):
        self.cfg, self.ctx, self.workdir, self.log = cfg, ctx, workdir, log
        self.engines = [e for e in ctx.engines if e != "bare"]
        self.chains: dict[NestArm, Chain] = {}
        self.rootfs: Path | None = None
        self.envs = {e: eng.get_engine(e).env() for e in ("bare", *self.engines)}
        self.meta: dict = {
            "imagenes_anidadas": {},
            "modos": {},
            "intentos_sin_privilegios": [],
            "socket_del_motor": "nunca se monta (el cuaderno explica el patrón sin ejecutarlo)",
        }

    def measure(self, progress: Progress) -> None:
        busybox = {e: self.ctx.images[e]["alpine"]["name"] for e in self.engines}
        wanted = plan(self.cfg, self.engines, busybox)
        for arm in wanted:
            self.open(arm)
        if "docker" in self.engines and 2 in self.cfg.niveles:
            self.ctx.skip_arm("Docker en Docker sin --privileged", DOCKER_UNPRIVILEGED)
        arms = [a for a in wanted if a in self.chains]
        script = workloads.script("hash", size_mb=self.cfg.tamaño_mib)
        measure_rounds(
            self.ctx,
            arms,
            measure=lambda arm: self.time_arm(arm, script),
            progress=progress,
            meta={
                "cronometros": "time.perf_counter_ns + posix_spawn desde el host (arranque, trabajo_extremo); "
                "probes/cronometro un nivel más arriba (arranque_interior) o dentro (trabajo)",
                "carga_cpu": script,
                "niveles": {a.variant: a.level for a in arms},
            },
        )
        self.record_footprint(arms)

    # -- opening the arms
    def open(self, arm: NestArm) -> None:
        if arm.level == 0:
            self.chains[arm] = self.baseline()
        elif arm.level == 1:
            self.chains[arm] = build_chain(
                self.ctx, arm.engine, 1, {}, arm.image, "", self.workdir, f"{arm.engine}-1"
            )
        else:
            self.open_nested(arm)

    def baseline(self) -> Chain:
        """Level 0: `echo ok` as a real process; the CPU work chrooted into the busybox image's exported
        root filesystem (the same binary the containers run, without namespaces) when root allows it."""
        why = None if self.engines else "no hay motor del que exportar la imagen"
        if self.engines and self.ctx.require_root("chroot", rootfs.CHROOT_WHAT):
            source = self.engines[0]
            image = self.ctx.images[source]["alpine"]
            self.rootfs = rootfs.exported_rootfs(source, image, self.ctx.run_id, self.log)
            self.meta["linea_base_cpu"] = {
                "tipo": "chroot a la imagen busybox exportada",
                "motor": source,
                "imagen": image["name"],
            }
        else:
            self.meta["linea_base_cpu"] = {
                "tipo": "binarios del host (sin chroot)",
                "motivo": why or self.ctx.run.meta["skipped_arms"]["chroot"],
            }
        return Chain("bare")

    def open_nested(self, arm: NestArm) -> None:
        """Levels 2 and 3: the nesting image, how the outer container is opened, the chain, and one
        `echo ok` inside before measuring (a broken arm is skipped, not half-measured)."""
        key = arm.label  # the reader sees it (meta["skipped_arms"]): labels are unique per arm
        if not self.ctx.require_root(key, NESTED_WHAT):
            return
        started = time.monotonic()
        try:
            level3 = 3 in self.cfg.niveles and self.cfg.privilegiado
            info = prepare(arm.engine, arm.image, level3=level3, log=self.log)
            self.meta["imagenes_anidadas"][arm.engine] = info
            mode, adopt = self.mode_for(arm, info["name"], key)
            if mode is None:
                return  # no step of the ladder worked: skipped, with its reason
            self.log(f"Preparando {arm.label}…")
            tag = f"{arm.engine}-{arm.variant}"
            chain = build_chain(
                self.ctx, arm.engine, arm.level, mode, arm.image, info["name"], self.workdir, tag, adopt
            )
            self.chains[arm] = chain
            chain.call(startup_argv(arm.engine, arm.image, self.ctx.run_id), what="arrancar `echo ok` dentro")
        except (ComandoFallido, ErrorDelCurso) as exc:
            self.chains.pop(arm, None)
            self.ctx.skip_arm(key, f"{exc} — {explain(str(exc))}")
        self.meta.setdefault("preparacion_s", {})[f"{arm.engine}:{arm.variant}"] = round(
            time.monotonic() - started, 1
        )
        self.ctx.run.update_meta(anidamiento=self.meta)

    def mode_for(self, arm: NestArm, nested_image: str, key: str) -> tuple[dict | None, tuple | None]:
        """How this arm's outer container is opened, and the running container to adopt (the ladder's
        step that worked). (None, None) when no step without --privileged worked (the arm is skipped)."""
        if arm.variant == UNPRIV:
            attempts, mode, adopt = try_unprivileged(
                self.ctx, arm.image, nested_image, self.workdir, self.log
            )
            self.meta["intentos_sin_privilegios"] = attempts
            self.meta["escaleras_repetidas"] = climb_again(
                self.ctx, arm.image, nested_image, self.workdir, self.log, vd.MIN_OBSERVED - 1
            )
            self.ctx.run.update_meta(anidamiento=self.meta)
            if mode is None:
                self.ctx.skip_arm(
                    key, f"ninguna combinación sin --privileged funcionó aquí: {attempts[-1]['explicacion']}"
                )
            return mode, adopt
        if arm.engine not in self.meta["modos"]:
            mode, note = privileged_mode(self.ctx, arm.engine, nested_image, self.log)
            self.meta["modos"][arm.engine] = {"mode": mode, **note}
        return self.meta["modos"][arm.engine]["mode"], None

    # -- measuring
    def commands(self, arm: NestArm, script: str) -> tuple[list[str], list[str]]:
        """The startup and CPU-work command lines of one arm, as run from the host."""
        if arm.level == 0:
            work = ["--root", str(self.rootfs)] if self.rootfs else []
            return [probe_path(0), "echo", "ok"], [probe_path(0), *work, "sh", "-c", script]
        chain = self.chains[arm]
        depth = arm.level - 1  # how many containers the `run` happens inside
        start = chain.wrap([probe_path(depth), *startup_argv(arm.engine, arm.image, self.ctx.run_id)])
        work = chain.wrap(chain.cli.exec_argv(chain.worker, [PROBE_IN_CONTAINER, "sh", "-c", script]))
        return start, work

    def time_arm(self, arm: NestArm, script: str) -> list[tuple[str, float, str]]:
        """One round of one arm: startup and CPU work, each timed from the host and by cronometro."""
        env = self.envs[arm.engine]
        start, work = self.commands(arm, script)
        out = []
        for argv, metric, inner_metric, scale in (
            (start, METRIC_START, METRIC_START_INNER, 1e6),
            (work, METRIC_WORK_E2E, METRIC_WORK, 1e9),
        ):
            elapsed, inner_ns = _timed(arm, argv, env)
            out += [
                (metric, round(elapsed / scale, 6), UNITS[metric]),
                (inner_metric, round(inner_ns / scale, 6), UNITS[inner_metric]),
            ]
        return out

    def record_footprint(self, arms: Sequence[NestArm]) -> None:
        """Memory and disk of each inner engine, once, with its worker container idle."""
        for arm in arms:
            chain = self.chains[arm]
            if arm.level < 2 or not chain.outer_pid:
                continue
            memory = inner_engine_memory(chain.outer_pid)
            store = directory_size(chain.store_dir) if chain.store_dir else 0
            self.meta.setdefault("memoria_y_disco", {})[f"{arm.engine}:{arm.variant}"] = {
                "procesos": memory["procesos"],
                "almacen": str(chain.store_dir),
            }
            if memory["pss"] is not None:
                self.ctx.record(arm, METRIC_PSS, round(memory["pss"] / MIB, 3), UNITS[METRIC_PSS], rep=1)
            self.ctx.record(arm, METRIC_STORE, round(store / MIB, 3), UNITS[METRIC_STORE], rep=1)
        self.ctx.run.update_meta(anidamiento=self.meta)


def _timed(arm: NestArm, argv: list[str], env: dict) -> tuple[int, int]:
    """(ns from the host, ns by cronometro) of one command; a Spanish ComandoFallido if it failed."""
    elapsed, code, stderr = measure.spawn_and_wait(argv, env, keep_stderr=True)
    if code != 0:
        raise ComandoFallido(f"{arm.label}: el comando terminó con código {code}: {short_error(stderr)}")
    inner_ns, status = probes.parse_cronometro(stderr)
    if status != 0:
        raise ComandoFallido(
            f"{arm.label}: dentro, el comando terminó con código {status}: {short_error(stderr)}"
        )
    return elapsed, inner_ns
