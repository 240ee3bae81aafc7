"""Run folders: results/<experiment>/<UTC timestamp>-<short id>/ with raw.csv and meta.json.

raw.csv is tidy (one row per measurement) and appended row by row, flushed each time, so an
interrupted run keeps everything it measured. meta.json records parameters, host, engines, images,
workarounds, start/end times and the status: complete / interrupted / failed (with the reason).

Besides the measurements, raw.csv holds the rows of the rounds themselves (`ROUND_METRICS`): the
machine's load during each round (engine `MACHINE`) and each arm's place in its round (`POSITION`, on
the arm's own engine, image and variant). `load_run` hands the measurements to the analyses and leaves
those rows out; `rounds(df)` gives them back.
"""

from __future__ import annotations

import csv
import datetime as _dt
import errno
import json
import os
import secrets
import shutil
import time
from pathlib import Path

import pandas as pd

from .errors import ErrorDelCurso
from .paths import PROJECT_ROOT

COLUMNS = ["experiment", "engine", "image", "variant", "rep", "metric", "value", "unit"]
STATUS_RUNNING = "running"
STATUS_COMPLETE = "complete"
STATUS_INTERRUPTED = "interrupted"
STATUS_FAILED = "failed"
STATUS_PARTIAL = "partial"  # finished, but an engine was lost on the way (meta["engines_lost"])
MIN_FREE_MB = 50

# The rows a round leaves besides its measurements (runner.measure_rounds writes them). Their own metrics
# rather than new columns: every reader of the tidy contract (reference data, the class's folders, the
# hand-in kit) keeps its eight columns, and a position joins its measurement on engine, image, variant
# and rep.
MACHINE = "maquina"  # the engine column of a row about the machine, not about an arm
LOAD_PRESSURE = "carga_cpu_presion"  # % of the round in which some task waited for a CPU (/proc/pressure/cpu)
LOAD_AVERAGE = "carga_cpu_promedio"  # where there is no PSI: the 1-minute load average at the round's end
STEAL = "carga_robo"  # % of the CPU time of the round the hypervisor gave to another machine (/proc/stat)
OTHER_CPU = (
    "carga_otra_cpu"  # % of the machine's CPU time of the round used by work not the run's own (other_work)
)
POSITION = "posicion"  # an arm's place in its round, 1 = first (the order is drawn anew every round)
ROUND_METRICS = (LOAD_PRESSURE, LOAD_AVERAGE, STEAL, OTHER_CPU, POSITION)
ROUND_UNITS = {LOAD_PRESSURE: "%", LOAD_AVERAGE: "procesos", STEAL: "%", OTHER_CPU: "%", POSITION: "lugar"}


def check_writable(root: Path | str | None = None, min_free_mb: int = MIN_FREE_MB) -> Path:
    """The results folder, if it can be written and has room; else ErrorDelCurso (Spanish), raised
    before anything is launched."""
    base = Path(root) if root is not None else results_root()
    try:
        base.mkdir(parents=True, exist_ok=True)
        probe = base / f".escritura-{os.getpid()}-{secrets.token_hex(3)}"
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as exc:
        raise ErrorDelCurso(
            f"No puedo escribir en la carpeta de resultados {base} ({exc.strerror or exc}). "
            "Elige otra con la variable CURSO_RESULTADOS o corrige sus permisos; "
            "no se lanzó nada."
        ) from None
    free_mb = shutil.disk_usage(base).free / 2**20
    if free_mb < min_free_mb:
        raise ErrorDelCurso(
            f"Queda muy poco espacio en el disco de {base}: {free_mb:.0f} MiB libres, y una "
            f"corrida necesita al menos {min_free_mb} MiB. Libera espacio o usa otra carpeta "
            "(CURSO_RESULTADOS); no se lanzó nada."
        )
    return base


def results_root() -> Path:
    """Where runs are stored: $CURSO_RESULTADOS, or results/ at the project root."""
    env = os.environ.get("CURSO_RESULTADOS")
    return Path(env) if env else PROJECT_ROOT / "results"


def run_seconds(meta: dict | None) -> float | None:
    """How long a finished run took (its «ended» minus its «started», whole seconds), or None."""
    meta = meta or {}
    try:
        start, end = (
            _dt.datetime.fromisoformat(str(meta[k]).replace("Z", "+00:00")) for k in ("started", "ended")
        )
    except (KeyError, TypeError, ValueError):
        return None
    return max((end - start).total_seconds(), 0.0)


def _utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _iso(ts: _dt.datetime) -> str:
    return ts.isoformat(timespec="seconds").replace("+00:00", "Z")


class Run:
    """A run folder being written. Use as a context manager:

        with Run("arranque", params) as run:
            run.append(engine="docker", image=..., variant=..., rep=1, metric="arranque", value=1.0, unit="ms")

    On a normal exit the status becomes "complete"; on KeyboardInterrupt "interrupted"; on any other
    exception "failed" with the reason. The exception is re-raised.
    """

    def __init__(self, experiment: str, params: dict | None = None, root: Path | str | None = None):
        self.experiment = experiment
        self.started = _utc_now()
        self.id = f"{self.started:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"
        base = Path(root) if root is not None else results_root()
        self.dir = base / experiment / self.id
        self.dir.mkdir(parents=True, exist_ok=False)  # a run never overwrites another
        self.raw_path = self.dir / "raw.csv"
        self.meta_path = self.dir / "meta.json"
        self.meta: dict = {
            "experiment": experiment,
            "run_id": self.id,
            "parameters": dict(params or {}),
            "started": _iso(self.started),
            "started_ns": time.time_ns(),  # orders runs started within the same second
            "ended": None,
            "status": STATUS_RUNNING,
            "reason": None,
            "rows": 0,
        }
        self.partial_reason: str | None = None  # set when an engine is lost: the run ends "partial"
        self._fh = open(self.raw_path, "w", newline="", encoding="utf-8")
        self._writer = csv.DictWriter(self._fh, fieldnames=COLUMNS)
        self._writer.writeheader()
        self._fh.flush()
        self.write_meta()

    # -- writing
    def append(
        self, *, engine: str, image: str, variant: str, rep: int, metric: str, value: float, unit: str
    ) -> None:
        row = {
            "experiment": self.experiment,
            "engine": engine,
            "image": image,
            "variant": variant,
            "rep": rep,
            "metric": metric,
            "value": value,
            "unit": unit,
        }
        self._writer.writerow(row)
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.meta["rows"] += 1

    def log_detail(self, text: str) -> None:
        """The engines' own words (often English) go to the run's log file, not to the student."""
        stamp = _iso(_utc_now())
        with open(self.dir / "registro.log", "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {text.rstrip()}\n")

    def update_meta(self, **fields) -> None:
        self.meta.update(fields)
        self.write_meta()

    def write_meta(self) -> None:
        text = json.dumps(self.meta, indent=2, ensure_ascii=False, default=str)
        tmp = self.meta_path.with_suffix(".json.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self.meta_path)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            # A full disk: no room for a second copy. Rewrite in place (the file's blocks are already
            # allocated), compact, so the status and its reason still reach meta.json.
            tmp.unlink(missing_ok=True)
            compact = json.dumps(self.meta, ensure_ascii=False, separators=(",", ":"), default=str)
            with open(self.meta_path, "r+", encoding="utf-8") as fh:
                fh.write(compact)
                fh.truncate()

    def finish(self, status: str, reason: str | None = None) -> None:
        if not self._fh.closed:
            try:
                self._fh.close()
            except OSError:  # a full disk: the half-written row stays out, the rows before it stay
                pass
        self.meta.update(status=status, reason=reason, ended=_iso(_utc_now()))
        self.write_meta()

    # -- context manager
    def __enter__(self) -> Run:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            if self.partial_reason:
                self.finish(STATUS_PARTIAL, self.partial_reason)
            else:
                self.finish(STATUS_COMPLETE)
        elif issubclass(exc_type, KeyboardInterrupt):
            self.finish(STATUS_INTERRUPTED, "interrumpido por el usuario (Ctrl-C)")
        elif isinstance(exc, ErrorDelCurso):
            if exc.detail:
                self.meta["error_detail"] = exc.detail
                self.log_detail(f"{exc_type.__name__}: {exc}\n{exc.detail}")
            self.finish(STATUS_FAILED, str(exc))
        else:
            self.log_detail(f"{exc_type.__name__}: {exc}")
            self.finish(STATUS_FAILED, f"error interno del curso ({exc_type.__name__}: {exc})")
        return False


# ---------------------------------------------------------------- reading
def read_raw(path: Path | str) -> pd.DataFrame:
    df = pd.read_csv(path, dtype={"image": str, "variant": str})
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: faltan columnas {', '.join(missing)}")
    df["variant"] = df["variant"].fillna("")
    df["image"] = df["image"].fillna("")
    return df


def read_meta(run_dir: Path | str) -> dict:
    return json.loads((Path(run_dir) / "meta.json").read_text(encoding="utf-8"))


def list_runs(experiment: str, root: Path | str | None = None) -> list[Path]:
    """Run folders of an experiment, oldest first: by the UTC time in the name, then (for runs started
    within the same second) by the nanosecond start recorded in meta.json."""
    base = (Path(root) if root is not None else results_root()) / experiment
    if not base.is_dir():
        return []
    runs = [p for p in base.iterdir() if (p / "raw.csv").is_file() and (p / "meta.json").is_file()]

    def key(path: Path):
        try:
            started_ns = int(read_meta(path).get("started_ns") or 0)
        except (OSError, ValueError):
            started_ns = 0
        return (path.name.split("-", 1)[0], started_ns, path.name)

    return sorted(runs, key=key)


def latest(experiment: str, root: Path | str | None = None) -> Path | None:
    """The run of `experiment` every page, the closing notebook, the kit and the hand-in read: its latest
    complete run; without one, its latest run with measurements (interrupted, failed, or one that lost an
    engine: its meta's status says which, and the pages say so); None without either. A newer run that
    did not finish never hides a complete one, so every reader of a chapter cites the same run."""
    runs = list_runs(experiment, root)
    complete = [r for r in runs if read_meta(r).get("status") == STATUS_COMPLETE]
    if complete:
        return complete[-1]
    return next((r for r in reversed(runs) if len(measurements(read_raw(r / "raw.csv")))), None)


def round_metric(base: str, loop: str = "") -> str:
    """The metric of a round's row (`base`, one of ROUND_METRICS) in the measuring loop `loop`: a run with
    several loops (experiment 8) names them, so their rounds 1, 2, ... stay apart."""
    return f"{base}_{loop}" if loop else base


def is_round_row(df: pd.DataFrame) -> pd.Series:
    """True for the rows a round leaves besides its measurements (load, positions), in any loop."""
    metric = df["metric"].astype(str)
    named = metric.isin(ROUND_METRICS)
    for base in ROUND_METRICS:
        named |= metric.str.startswith(base + "_")
    return (df["engine"].astype(str) == MACHINE) | named


def measurements(df: pd.DataFrame) -> pd.DataFrame:
    """The measurements of a run's rows, without the rows of the rounds themselves."""
    return df[~is_round_row(df)].reset_index(drop=True) if len(df) else df


def rounds(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of the rounds themselves: the machine's load per round and each arm's position."""
    return df[is_round_row(df)].reset_index(drop=True) if len(df) else df


ROUND_LOADS = "carga_por_ronda"  # meta's key for the load of each round, added when a run is read
SELF_LOADED = "carga_propia"  # meta's key: the loops whose load the experiment makes itself (not screened)


def round_loads(raw: pd.DataFrame) -> list[dict]:
    """The machine's load of each round (the rows of engine MACHINE), as records {metric, rep, value}
    for meta[ROUND_LOADS]: the analyses judge a per-round figure with them (experiments/load.py)."""
    if not len(raw):
        return []
    rows = raw[raw["engine"].astype(str) == MACHINE]
    return [
        {"metric": str(m), "rep": int(r), "value": float(v)}
        for m, r, v in zip(
            rows["metric"], rows["rep"], pd.to_numeric(rows["value"], errors="coerce"), strict=True
        )
        if v == v  # not NaN
    ]


def split_run(raw: pd.DataFrame, meta: dict) -> tuple[pd.DataFrame, dict]:
    """A run's measurements and its meta with the load of each round (meta[ROUND_LOADS])."""
    return measurements(raw), {**meta, ROUND_LOADS: round_loads(raw)}


def load_run(run_dir: Path | str) -> tuple[pd.DataFrame, dict]:
    """A run's measurements (the rows of the rounds left out: `rounds(read_raw(...))`) and its meta,
    with the load of each round (meta[ROUND_LOADS])."""
    run_dir = Path(run_dir)
    return split_run(read_raw(run_dir / "raw.csv"), read_meta(run_dir))


def add_roles(df: pd.DataFrame, meta: dict | None) -> pd.DataFrame:
    """Add `role` (the image role: alpine/ubuntu) from meta.json's image map. Reference rows already
    hold the role in `image`, so unknown names are kept as they are."""
    df = df.copy()
    reverse = {}
    for engine_name, roles in ((meta or {}).get("images") or {}).items():
        for role, info in (roles or {}).items():
            if info:
                reverse[(engine_name, info["name"])] = role
    df["role"] = [reverse.get((e, i), i) for e, i in zip(df["engine"], df["image"])]
    return df
