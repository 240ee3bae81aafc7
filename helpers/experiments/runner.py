"""The run: one folder, one context, one way to measure and to record a measurement.

    with experiment_run(EXPERIMENT, asdict(cfg), cfg.motores, image_roles=[...], root=root, log=log) as ctx:
        ctx.defer(shutil.rmtree, tmp)                       # clean-up on success, error, Ctrl-C, SIGTERM
        measure_rounds(ctx, arms, measure=measure_one, progress=progress)
        ctx.record(arm, "metric", value, "ms", rep=1)       # a row measured outside the rounds
    return Resultado.load(ctx.run.dir)

Rows reach raw.csv only through `ctx.record` (measure_rounds uses it too): written and flushed as soon as
they are measured. measure_rounds also records, for every round, the machine's load over it and each
arm's place in it (results.ROUND_METRICS), and keeps the run's load summary in meta.json («carga»).
When the results disk fills up, the run stops with one Spanish sentence naming the folder and its free
space; the rows already written stay and meta.json says why it stopped.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import secrets
import shutil
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import engines as eng
from .. import images, results, stats, system
from .. import measure as measure_mod
from ..errors import ErrorDelCurso

Progress = Callable[[int, int, str], None]
Log = Callable[[str], None]


def no_progress(done: int, total: int, label: str) -> None:  # pragma: no cover - trivial
    pass


def print_log(line: str) -> None:
    print(line, flush=True)


class SinEspacio(ErrorDelCurso):
    """The results disk filled up in the middle of a run."""


@dataclass
class Resultado:
    """What run() returns: the tidy rows of the measurements, the run folder, its metadata, and the rows
    of the rounds themselves (`rondas`: the machine's load per round and each arm's position in it,
    results.ROUND_METRICS), kept apart so no analysis mistakes them for a measurement."""

    experiment: str
    df: pd.DataFrame
    run_dir: Path
    meta: dict
    rondas: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=results.COLUMNS))
    _judged: list | None = field(default=None, init=False, repr=False, compare=False)

    def judged_by(self, claims: Callable[[pd.DataFrame, dict], Iterable]) -> list:
        """This run's claims as `claims(df, meta)` judges them (its experiment's: experiments.judged), once
        per run object, so every reader of one run (its page, 09, the kit, the census) shares one judgement
        instead of working it out again."""
        if self._judged is None:
            self._judged = list(claims(self.df, self.meta))
        return list(self._judged)

    def __repr__(self) -> str:
        # What a notebook cell shows when a panel returns its run: one Spanish line, never a data dump.
        return (
            f"Corrida {self.meta.get('run_id', '?')} de «{self.experiment}»: {len(self.df)} filas, "
            f"estado {self.status}, en {self.run_dir}"
        )

    @property
    def status(self) -> str:
        return self.meta.get("status", "?")

    @property
    def skipped(self) -> dict[str, str]:
        return self.meta.get("skipped_engines", {})

    @classmethod
    def load(cls, run_dir: Path | str) -> Resultado:
        raw = results.read_raw(Path(run_dir) / "raw.csv")
        df, meta = results.split_run(raw, results.read_meta(run_dir))
        experiment = meta.get("experiment", Path(run_dir).parent.name)
        return cls(experiment, df, Path(run_dir), meta, results.rounds(raw))

    @classmethod
    def latest(cls, experiment: str, root=None) -> Resultado | None:
        run_dir = results.latest(experiment, root)
        return cls.load(run_dir) if run_dir else None


def split_engines(names: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Available engines (in order) and {engine: Spanish reason} for the ones that are not."""
    ok, skipped = [], {}
    for name in names:
        engine = eng.get_engine(name)
        available, reason = engine.availability()
        if available:
            ok.append(name)
        else:
            skipped[name] = reason or "no disponible"
    return ok, skipped


def engine_metadata(names: Sequence[str]) -> dict[str, dict]:
    out = {}
    for name in names:
        try:
            out[name] = eng.get_engine(name).info()
        except Exception as exc:  # noqa: BLE001 - metadata must never stop a run
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


# ---------------------------------------------------------------- arms
@dataclass(frozen=True)
class Arm:
    """One combination measured each round: engine, variant, image (real name) and a Spanish label.
    The one base of every experiment's arms: an experiment that needs more fields subclasses it
    (a frozen dataclass) and may override `label`."""

    engine: str
    variant: str
    image: str = ""
    label: str = ""


def arm_label(arm) -> str:
    label = getattr(arm, "label", "") or ""
    if label:
        return label
    engine = eng.DISPLAY.get(arm.engine, arm.engine)
    return f"{engine} {arm.variant}".strip()


# ---------------------------------------------------------------- the run context
@dataclass
class RunContext:
    run: results.Run
    engines: list[str]
    skipped: dict[str, str]
    images: dict[str, dict[str, dict]] = field(default_factory=dict)
    log: Log = print_log
    _deferred: list = field(default_factory=list)
    lost: dict[str, dict] = field(default_factory=dict)
    loads: list = field(default_factory=list)  # measure.WindowLoad of every measured round of the run

    @property
    def run_id(self) -> str:
        return self.run.id

    def container_name(self, *parts) -> str:
        return "-".join(["curso", self.run.experiment, self.run.id.lower(), *map(str, parts)])

    # -- recording
    def record(self, arm, metric: str, value: float, unit: str, *, rep: int) -> None:
        """Write one measured row to raw.csv now (flushed and synced): the one way a row is recorded.
        `arm` is anything with .engine, .variant and optionally .image (an Arm). A full results disk
        stops the run with a Spanish sentence (SinEspacio); the rows already written stay."""
        try:
            self.run.append(
                engine=arm.engine,
                image=getattr(arm, "image", "") or "",
                variant=arm.variant,
                rep=rep,
                metric=metric,
                value=value,
                unit=unit,
            )
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            raise self._disk_full(exc) from None

    def _disk_full(self, exc: OSError) -> SinEspacio:
        folder = self.run.dir.parent
        try:
            free = shutil.disk_usage(folder).free
            free_text = f"quedan {free / 2**20:.1f} MiB libres"
        except OSError:
            free_text = "no se pudo saber cuánto espacio queda"
        rows = self.run.meta.get("rows", 0)
        return SinEspacio(
            f"Se llenó el disco de la carpeta de resultados {folder} ({free_text}): la corrida se "
            f"detuvo. Las {rows} filas ya medidas quedan en {self.run.raw_path.name}; libera espacio "
            "o elige otra carpeta con CURSO_RESULTADOS y vuelve a ejecutar.",
            detail=f"{type(exc).__name__}: {exc}",
        )

    # -- clean-up
    def defer(self, fn: Callable, *args, **kwargs) -> None:
        """Register a clean-up step (temporary files, bundles, VMs...). They run last-in first-out when
        the run ends: on success, on error, on Ctrl-C and on SIGTERM. Containers need none: every
        container of the run is removed by its label afterwards."""
        self._deferred.append((fn, args, kwargs))

    def run_deferred(self) -> list[str]:
        """Run the clean-up steps (LIFO); never raises; returns the Spanish description of failures."""
        failures = []
        while self._deferred:
            fn, args, kwargs = self._deferred.pop()
            try:
                fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - every step must get its chance
                failures.append(f"{getattr(fn, '__name__', fn)}: {type(exc).__name__}: {exc}")
        return failures

    # -- engines lost mid-run
    def engine_ok(self, name: str) -> bool:
        """False once an engine was lost in this run: its remaining arms are skipped."""
        return name not in self.lost

    def lose_engine(self, name: str, exc: BaseException) -> None:
        """Record that an engine stopped answering mid-run: one Spanish line for the student, the
        engine's own words in meta.json and the run's log; the run will end «partial»."""
        engine = eng.get_engine(name)
        engine.forget()
        when = time.strftime("%H:%M:%S")
        what = str(exc) if isinstance(exc, ErrorDelCurso) else type(exc).__name__
        detail = getattr(exc, "detail", None) or f"{type(exc).__name__}: {exc}"
        self.lost[name] = {
            "motivo": f"{engine.display} dejó de responder a las {when}",
            "hora": when,
            "error": what,
            "detalle": detail[-2000:],
        }
        self.run.meta["engines_lost"] = self.lost
        self.run.partial_reason = (
            "corrida parcial: se perdió "
            + ", ".join(eng.DISPLAY.get(n, n) for n in self.lost)
            + " a mitad de la medición"
        )
        self.run.log_detail(f"engine lost: {name}: {detail}")
        self.run.write_meta()
        others = [eng.DISPLAY.get(n, n) for n in self.engines if n != name and n not in self.lost]
        self.log(
            f"{engine.display} dejó de responder a mitad de la corrida ({what}). Se detienen sus "
            "mediciones"
            + (f"; {' y '.join(others)} sigue midiendo." if others else ".")
            + " Lo medido hasta ahora queda guardado."
        )

    @contextlib.contextmanager
    def guard(self, name: str) -> Iterator[None]:
        """Around any step that talks to engine `name`: if the step fails and the engine no longer
        answers, the engine is marked lost and the run goes on without it; any other failure (or
        Ctrl-C) propagates as usual."""
        try:
            yield
        except SinEspacio:
            raise
        except Exception as exc:
            try:
                engine = eng.get_engine(name)
            except KeyError:  # no engine adapter behind the arm (the Kubernetes cluster): its own error
                raise exc from None
            if not engine.is_container or engine.healthy():
                raise
            self.lose_engine(name, exc)

    # -- arms that cannot run here
    def require_root(self, key: str, what: str) -> bool:
        """The standard way to run an arm only as root: True as root; otherwise the arm is skipped with
        one Spanish line (system.needs_root_reason) in meta["skipped_arms"][key], and False. Declare the
        arm in the module's NEEDS_ROOT = {key: what} too, so notebook 00 can list it for a student."""
        reason = system.needs_root_reason(what)
        if reason is None:
            return True
        self.skip_arm(key, reason)
        return False

    def skip_arm(self, key: str, reason: str) -> None:
        """An arm that cannot run here: one Spanish line, and meta["skipped_arms"][key] = reason."""
        skipped = self.run.meta.setdefault("skipped_arms", {})
        if key not in skipped:
            self.log(f"Se omite {key}: {reason}")
        skipped[key] = reason
        self.run.write_meta()


Measure = Callable[[Any], Iterable[tuple[str, float, str]]]
MACHINE_ARM = Arm(results.MACHINE, "")  # the rows about the machine during a round


def measure_rounds(
    ctx: RunContext,
    arms: Sequence,
    *,
    measure: Measure,
    repetitions: int | None = None,
    warmup: int | None = None,
    progress: Progress = no_progress,
    meta: dict | None = None,
    loop: str = "",
    seed: int | None = None,
    own_load: bool = False,
) -> None:
    """The one loop experiments measure with: warm-up rounds first (discarded, and recorded as such),
    then `repetitions` rounds. Every round visits each arm once, in its own random order (drawn from
    `seed`, a fresh one by default, recorded in meta.json), so drift, noise and the after-effects of one
    arm on the next fall on every arm alike. `measure(arm)` returns (metric, value, unit) triples; each
    becomes one row of raw.csv through ctx.record, as soon as it is measured. Each measured round also
    records each arm's place in it (results.POSITION) and the machine's load over the round
    (results.LOAD_PRESSURE or LOAD_AVERAGE, STEAL and OTHER_CPU, on engine results.MACHINE); meta.json keeps the
    run's summary of that load («carga»). A run with several loops names each one (`loop`): their
    round rows carry the name (results.round_metric). `repetitions` and `warmup` are by default the run's
    own parameters `repeticiones` and `calentamiento` (its Config, as experiment_run recorded it).
    own_load: the load of this loop's rounds is the experiment's own doing (density: N instances busy at
    once), not the machine's: its rows are recorded, but neither the run's summary nor the screening of
    any figure counts it (meta[results.SELF_LOADED] names the loop)."""
    params = ctx.run.meta["parameters"]
    repetitions = params["repeticiones"] if repetitions is None else repetitions
    warmup = params["calentamiento"] if warmup is None else warmup
    seed = secrets.randbits(32) if seed is None else int(seed)
    steps = measure_mod.round_robin(list(arms), repetitions, warmup, seed=seed)
    seeds = {**ctx.run.meta.get("shuffle_seeds", {}), (loop or "rondas"): seed}
    if own_load:
        ctx.run.update_meta(**{results.SELF_LOADED: [*ctx.run.meta.get(results.SELF_LOADED, []), loop]})
    before = ctx.run.meta.get("arms", []) if loop else []  # a second loop's arms after the first's
    entries = [
        {
            "engine": a.engine,
            "variant": a.variant,
            "image": getattr(a, "image", ""),
            "label": arm_label(a),
            **({"loop": loop} if loop else {}),
        }
        for a in arms
    ]
    ctx.run.update_meta(
        **{
            "arms": [*before, *entries],
            "repetitions": repetitions,
            "warmup_discarded": warmup,
            "schedule": f"round-robin, orden barajado en cada ronda (semilla {seed})",
            "shuffle_seeds": seeds,
            "timer": "time.perf_counter_ns",
            "quantile_method": stats.QUANTILE_METHOD,
            **(meta or {}),
        }
    )  # `meta` may override the defaults (a different timer, say)
    produced: dict = {a: set() for a in arms}  # the metrics each arm gave in this loop
    total = len(steps)
    done = 0
    for (warm, rep), group in itertools.groupby(steps, key=lambda s: (s.warmup, s.rep)):
        start = measure_mod.load_counters()
        measured = False
        for step in group:
            done += 1
            if not ctx.engine_ok(step.arm.engine):
                continue  # that engine was lost: the other engines' arms go on
            tag = " (calentamiento)" if warm else f" #{rep}"
            progress(done - 1, total, arm_label(step.arm) + tag)
            rows = None
            with ctx.guard(step.arm.engine):
                rows = list(measure(step.arm))
            if rows is None or warm:
                continue
            for metric, value, unit in rows:
                ctx.record(step.arm, metric, value, unit, rep=rep)
                produced[step.arm].add(metric)
            ctx.record(
                step.arm,
                results.round_metric(results.POSITION, loop),
                step.position,
                results.ROUND_UNITS[results.POSITION],
                rep=rep,
            )
            measured = True
        if measured:
            load = measure_mod.load_between(start, measure_mod.load_counters())
            _record_load(ctx, load, rep, loop, summary=not own_load)
    # which metrics each arm gave in this loop: an arm measured in several loops (08's, 04's, 06's) has
    # each figure screened on the load of the loop that measured it (load.of_arms)
    entries = [{**e, "metrics": sorted(produced[a])} for e, a in zip(entries, arms)]
    ctx.run.update_meta(arms=[*before, *entries])
    progress(total, total, "listo")


def _record_load(
    ctx: RunContext, load: measure_mod.WindowLoad, rep: int, loop: str, summary: bool = True
) -> None:
    """The machine's load over round `rep`: its rows in raw.csv, and (`summary`) the run's summary in
    meta.json."""
    for base, value in (
        (results.LOAD_PRESSURE, load.pressure_pct),
        (results.LOAD_AVERAGE, load.loadavg),
        (results.STEAL, load.steal_pct),
        (results.OTHER_CPU, load.other_pct),
    ):
        if value is not None:
            metric = results.round_metric(base, loop)
            ctx.record(MACHINE_ARM, metric, round(value, 3), results.ROUND_UNITS[base], rep=rep)
    if summary:
        ctx.loads.append(load)
        ctx.run.update_meta(carga=load_summary(ctx.loads))


def load_summary(loads: Sequence[measure_mod.WindowLoad]) -> dict:
    """meta.json's «carga»: where the load was read, and its median and maximum over the run's rounds
    (CPU pressure in %, or the load average where the kernel has no PSI; steal time in %)."""
    pressure = [x.pressure_pct for x in loads if x.pressure_pct is not None]
    average = [x.loadavg for x in loads if x.loadavg is not None]
    steal = [x.steal_pct for x in loads if x.steal_pct is not None]
    other = [x.other_pct for x in loads if x.other_pct is not None]

    def median(values):
        return round(float(np.median(values)), 3) if values else None

    def maximum(values):
        return round(float(np.max(values)), 3) if values else None

    if pressure:
        source = {
            "fuente": "/proc/pressure/cpu (some): parte de cada ronda en que alguna tarea esperó CPU",
            "metrica": results.LOAD_PRESSURE,
            "unidad": "%",
            "mediana": median(pressure),
            "maximo": maximum(pressure),
        }
    else:
        source = {
            "fuente": "/proc/loadavg: promedio de carga de 1 minuto al terminar cada ronda (sin PSI)",
            "metrica": results.LOAD_AVERAGE,
            "unidad": "procesos",
            "mediana": median(average),
            "maximo": maximum(average),
        }
    return {
        **source,
        "rondas": len(loads),
        "robo_mediana_pct": median(steal),
        "robo_maximo_pct": maximum(steal),
        "otra_cpu_mediana_pct": median(other),
        "otra_cpu_maximo_pct": maximum(other),
        "nota": (
            "la presión de CPU incluye la carga que pone la propia medición; «otra_cpu» es la CPU que usó "
            "el resto de la máquina, sin la corrida, sus motores ni sus contenedores"
        ),
    }


# ---------------------------------------------------------------- opening and closing a run
@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C so clean-up runs when a headless run is stopped."""
    try:
        previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    except ValueError:  # not in the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def experiment_run(
    experiment: str,
    params: dict,
    engine_names: Sequence[str],
    *,
    image_roles: Sequence[str] = (),
    root=None,
    log: Log = print_log,
) -> Iterator[RunContext]:
    """Open a run folder, record metadata, yield a RunContext, and always clean up.

    Containers carrying this run's label are removed on success, on error and on Ctrl-C; the run's
    status becomes complete / failed / interrupted and its rows stay on disk.
    """
    results.check_writable(root)  # a clear Spanish error before anything is launched
    wanted = list(dict.fromkeys(engine_names))
    available, skipped = split_engines(wanted)
    reaped = eng.reap_orphans([n for n in available if eng.get_engine(n).is_container], log=log)
    for name, reason in skipped.items():
        log(f"Se omite {eng.DISPLAY.get(name, name)}: {reason}")
    containers = [n for n in available if eng.get_engine(n).is_container]
    imgs: dict[str, dict[str, dict]] = {}
    skipped_roles: dict[str, str] = {}
    if image_roles and containers:
        found = images.resolve_all(image_roles, containers)
        for name in list(containers):
            display = eng.get_engine(name).display
            missing = [r for r, info in found.get(name, {}).items() if info is None]
            present = {r: info for r, info in found.get(name, {}).items() if info is not None}
            if not present:
                reason = (
                    f"no tiene {'la imagen' if len(missing) == 1 else 'las imágenes'} "
                    f"{', '.join(missing)} ({images.missing_hint(missing)})."
                )
                skipped[name] = reason
                log(f"Se omite {display}: {reason}")
                available.remove(name)
                containers.remove(name)
                continue
            # Some roles only (a student without root may lack the "ubuntu" stand-in): the engine
            # stays, with the roles it has; each missing one is a skipped arm with its reason.
            for role in missing:
                skipped_roles[f"{display} / {role}"] = (
                    f"no está la imagen «{role}» ({images.missing_hint([role])})."
                )
            imgs[name] = present
    run = results.Run(experiment, params, root)
    eng.register_run(run.id, run.dir)
    run.update_meta(
        orphans_reaped=reaped,
        host=system.host_metadata(),
        engines=engine_metadata(available),
        skipped_engines=skipped,
        images=imgs,
        workarounds=[w for n in containers for w in eng.get_engine(n).workarounds()],
        labels=eng.labels_for(run.id),
        estadistica=stats.method(),  # how every interval and verdict of this run is computed
    )
    ctx = RunContext(run, available, skipped, imgs, log)
    for key, reason in skipped_roles.items():
        ctx.skip_arm(key, reason)
    with _sigterm_as_interrupt(), run:
        aborted = False
        try:
            yield ctx
        except BaseException:
            aborted = True
            raise
        finally:
            # Containers first (a bind-mounted directory or a bundle is in use until then), then the
            # experiment's own clean-up steps, then containers again in case a step created one.
            alive = [n for n in containers if ctx.engine_ok(n)]  # a lost engine is reaped when back
            removed, leftovers = cleanup_run(run.id, alive, settle=aborted)
            failures = ctx.run_deferred()
            if failures:
                run.meta["cleanup_failures"] = failures
            run.meta["cleanup_removed"] = removed
            run.meta["cleanup_leftovers"] = leftovers


def cleanup_run(
    run_id: str,
    containers: Sequence[str],
    *,
    settle: bool,
    quiet_checks: int = 3,
    interval: float = 0.5,
    timeout: float = 30.0,
) -> tuple[dict[str, int], dict[str, int]]:
    """Remove a run's containers. With settle=True (after an error or Ctrl-C) keep looking until the
    label has stayed empty for `quiet_checks` checks in a row: a CLI killed halfway through a launch
    can leave the engine finishing a create after the first sweep."""
    removed = eng.cleanup_all(run_id, containers)
    if settle:
        quiet, deadline = 0, time.monotonic() + timeout
        while quiet < quiet_checks and time.monotonic() < deadline:
            time.sleep(interval)
            again = eng.cleanup_all(run_id, containers)
            quiet = quiet + 1 if not any(v > 0 for v in again.values()) else 0
            for name, count in again.items():
                removed[name] = removed.get(name, 0) + max(count, 0)
    leftovers = {}
    for name in containers:
        try:
            leftovers[name] = len(eng.get_engine(name).list_labelled(run_id))
        except Exception:  # noqa: BLE001 - report, never mask the original error
            leftovers[name] = -1
    return removed, leftovers
