"""What every experiment shares: engine selection, the run folder, metadata, clean-up, progress."""
from __future__ import annotations

import contextlib
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import pandas as pd

from .. import engines as eng
from .. import images, results, system

Progress = Callable[[int, int, str], None]
Log = Callable[[str], None]


def no_progress(done: int, total: int, label: str) -> None:  # pragma: no cover - trivial
    pass


def print_log(line: str) -> None:
    print(line, flush=True)


@dataclass
class Resultado:
    """What run() returns: the tidy rows, the run folder and its metadata."""

    experiment: str
    df: pd.DataFrame
    run_dir: Path
    meta: dict

    @property
    def status(self) -> str:
        return self.meta.get("status", "?")

    @property
    def skipped(self) -> dict[str, str]:
        return self.meta.get("skipped_engines", {})

    @classmethod
    def load(cls, run_dir: Path | str) -> "Resultado":
        df, meta = results.load_run(run_dir)
        return cls(meta.get("experiment", Path(run_dir).parent.name), df, Path(run_dir), meta)

    @classmethod
    def latest(cls, experiment: str, root=None) -> "Resultado | None":
        run_dir = results.latest_run(experiment, root)
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


@dataclass
class Claim:
    """A seed claim tested against live data.

    status: confirmada / parcial / refutada / ruido (the interval cannot tell) / sin_datos.
    value, low, high: the deciding figure and its IC 95 % (a ratio, a percentage, a count...);
    detail: whatever the experiment's view needs to explain the verdict."""

    key: str
    statement: str
    status: str
    value: float = float("nan")
    low: float = float("nan")
    high: float = float("nan")
    detail: dict = field(default_factory=dict)


@dataclass
class RunContext:
    run: results.Run
    engines: list[str]
    skipped: dict[str, str]
    images: dict[str, dict[str, dict]] = field(default_factory=dict)
    log: Log = print_log

    @property
    def run_id(self) -> str:
        return self.run.id

    def container_name(self, *parts) -> str:
        return "-".join(["curso", self.run.experiment, self.run.id.lower(), *map(str, parts)])


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
def experiment_run(experiment: str, params: dict, engine_names: Sequence[str], *,
                   image_roles: Sequence[str] = (), root=None, log: Log = print_log
                   ) -> Iterator[RunContext]:
    """Open a run folder, record metadata, yield a RunContext, and always clean up.

    Containers carrying this run's label are removed on success, on error and on Ctrl-C; the run's
    status becomes complete / failed / interrupted and its rows stay on disk.
    """
    wanted = list(dict.fromkeys(engine_names))
    available, skipped = split_engines(wanted)
    for name, reason in skipped.items():
        log(f"Se omite {eng.DISPLAY.get(name, name)}: {reason}")
    containers = [n for n in available if eng.get_engine(n).is_container]
    imgs: dict[str, dict[str, dict]] = {}
    if image_roles and containers:
        found = images.resolve_all(image_roles, containers)
        for name in list(containers):
            missing = [r for r, info in found.get(name, {}).items() if info is None]
            if missing:
                reason = (f"no tiene las imágenes {', '.join(missing)} "
                          "(ejecuta «make setup» para prepararlas).")
                skipped[name] = reason
                log(f"Se omite {eng.DISPLAY[name]}: {reason}")
                available.remove(name)
                containers.remove(name)
            else:
                imgs[name] = found[name]
    run = results.Run(experiment, params, root)
    run.update_meta(
        host=system.host_metadata(),
        engines=engine_metadata(available),
        skipped_engines=skipped,
        images=imgs,
        workarounds=[w for n in containers for w in eng.get_engine(n).workarounds()],
        labels=eng.labels_for(run.id),
    )
    ctx = RunContext(run, available, skipped, imgs, log)
    with _sigterm_as_interrupt(), run:
        aborted = False
        try:
            yield ctx
        except BaseException:
            aborted = True
            raise
        finally:
            removed, leftovers = cleanup_run(run.id, containers, settle=aborted)
            run.meta["cleanup_removed"] = removed
            run.meta["cleanup_leftovers"] = leftovers


def cleanup_run(run_id: str, containers: Sequence[str], *, settle: bool,
                quiet_checks: int = 3, interval: float = 0.5, timeout: float = 30.0
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
