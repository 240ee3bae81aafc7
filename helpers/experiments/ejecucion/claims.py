"""The claims about RUNNING that notebook 03 judges per engine (declared in claims.toml): the figures
that need code. Overheads are % of the baseline's median, paired by round; an I/O claim is judged against
bare metal on the arm's filesystem (analysis.io_base), else «no comparable» with the reason."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import stats
from .. import declared, read_run
from .. import ejecucion as this
from ..arranque.analysis import arm_series
from ..figures import MEDIAN, judging, median, ratio
from ..verdict import Claim, Said, beside, judge, missing, not_comparable, outcome
from .analysis import fair_base, io_base, no_io_base, samples, shaky_against, tidy
from .arms import BASE_NAMES, EXEC_INSIDE, MEMORY_METRICS, METRIC_WORK, PLACE_NAMES

SOURCE = "el capítulo original"
WORK_MINUTES, LIMIT_MINUTES = 120, 10.0
SORT = {"docker": 7.6, "podman": 6.2}  # the chapter's sort overhead, % (data/reference, seed000)
# «Latencia típica: ~428 ms | < 1 ms (solo la syscall exec)»: `docker run` (Exp 1) against `docker exec`
# (Exp 3) on the chapter's machine. Its milliseconds are that machine's; their ratio travels.
CHAPTER_RUN_MS, CHAPTER_EXEC_MS = 428.0, 1.0
EXEC_RATIO = CHAPTER_EXEC_MS / CHAPTER_RUN_MS
RUN_ROLE = "ubuntu"  # the image the chapter's ~428 ms is of (experiment 1, «Medianas y multiplicadores»)
NO_LAUNCH = (
    "Se juzga frente al `run` del mismo motor en el experimento 1, que no tiene corrida en esta máquina "
    "o no lanzó ese motor con «ubuntu» y la red por defecto: ejecuta el cuaderno 01."
)
SORT_MB = 20.0  # «~20 MB»: decimal, 19.07 MiB (the unit "MB" of a claim is shown in MiB)
SORT_MIB = SORT_MB * 1e6 / 2**20
PODMAN_EXEC = {
    "docker": "",
    "podman": " El capítulo lo dijo de `docker exec`; Podman es la variante del curso.",
}


def overhead_claim(
    said: Said, values: pd.Series, base: pd.Series, detail: dict, *, minutes: bool = False
) -> Claim:
    """(values / baseline − 1) × 100 paired by round (× WORK_MINUTES / 100: the minutes of 2 h), judged
    by the one rule; «inestable» (`sin_cifra` in detail when the baseline is unstable on its own: the page
    says «repite», without the figure) as analysis.shaky_against says."""
    if not values.size or not base.size:
        return missing(said, detail)
    est = stats.difference_ci(values, base, percent=True)
    est = est.scaled(WORK_MINUTES / 100) if minutes else est
    detail = {**detail, "rondas": True} if est.paired else dict(detail)
    detail |= {} if minutes else {"statistic": MEDIAN}
    if stats.unstable(base):
        detail["sin_cifra"] = True  # the baseline is not one: no figure against it
    return judge(said, est, unstable=shaky_against(values, base), detail=detail)


def work_alone(said: Said, df: pd.DataFrame, meta: dict | None, engine: str, carga: str) -> Claim:
    """Hash or sort as RUNNING: the work alone against the host's binaries (`exec` is LAUNCH: exec_1ms)."""
    detail = {"engine": engine, "base": "bare", "carga": carga}
    return overhead_claim(said, *(samples(df, METRIC_WORK, carga, e) for e in (engine, "bare")), detail)


def in_place(said: Said, df: pd.DataFrame, meta: dict | None, engine: str, carga: str, place: str) -> Claim:
    """An I/O workload in one place of a container against bare metal on the same filesystem; «no
    comparable» when the run has none (analysis.no_io_base says why)."""
    base, base_env, base_place = io_base(carga, engine, place)
    detail = {"engine": engine, "base": base, "carga": carga, "lugar": place}
    where = f"{PLACE_NAMES[place]} de {eng.DISPLAY[engine]} frente a {BASE_NAMES[base]}"
    said = said.but(quantity=f"sobrecarga del trabajo solo en {where}")
    values = samples(df, METRIC_WORK, carga, engine, place)
    base_values = samples(df, METRIC_WORK, carga, base_env, base_place)
    if values.size and not base_values.size:
        return not_comparable(said, no_io_base(meta, engine, place), detail)
    return overhead_claim(said, values, base_values, detail)


def two_hours(said: Said, df: pd.DataFrame, meta: dict | None, engine: str, carga: str) -> Claim:
    """The bottom line for one workload: WORK_MINUTES × the overhead of the work alone against its
    fairest baseline (paired by round), in minutes, against «menos de 10 minutos»."""
    base, base_env, base_place = fair_base(df, carga)
    what = f"minutos de más en 2 h de {carga} en {eng.DISPLAY[engine]}: el trabajo solo, frente a "
    said = said.but(quantity=what + BASE_NAMES[base])
    values, base_values = (samples(df, METRIC_WORK, carga, *at) for at in ((engine,), (base_env, base_place)))
    return overhead_claim(
        said, values, base_values, {"engine": engine, "carga": carga, "base": base}, minutes=True
    )


def launch_ms(engine: str) -> np.ndarray:
    """`ENGINE run` with RUN_ROLE and the default network in experiment 1's latest run, in ms (its rows'
    unit); empty without that run or that arm."""
    run = read_run(this, "arranque")
    if run is None or run.df is None or not len(run.df):
        return np.array([])
    return arm_series(run.df, run.meta, (engine, RUN_ROLE)).to_numpy(float)


def exec_over_run(said: Said, df: pd.DataFrame, meta: dict | None, *arm: str) -> Claim:
    """An `exec` reading, arm = (metric, carga, engine), ÷ the same engine's `run` (experiment 1), the
    arms independent (the ratio of their medians), by the one rule; the `exec` milliseconds shown beside
    it (verdict.beside)."""
    metric, variant, engine = arm
    detail = {"engine": engine, **({"dentro": True} if variant == EXEC_INSIDE else {})}
    exec_ms = samples(df, *arm).to_numpy(float) * 1e3
    run_ms = launch_ms(engine)
    if exec_ms.size and not run_ms.size:
        judged = missing(said.but(note=f"{said.note} {NO_LAUNCH}"), detail)
    else:
        judged = ratio(said, exec_ms, run_ms, detail=detail)
    return beside(judged, stats.median_ci(exec_ms) if exec_ms.size else None, "ms")


def sort_memory(said: Said, df: pd.DataFrame, meta: dict | None, engine: str) -> Claim:
    """sort's buffer in one engine, from the rows `cronometro --pico sort` left in each round: its size in
    MiB (`sort_20mb`, the median against «~20 MB»), or whether it lives in an mmap region rather than the
    heap (`sort_mmap`, observed once per round)."""
    detail = {"engine": engine, "carga": "sort"}
    read = {k: samples(df, metric, "sort", engine) for k, metric in MEMORY_METRICS.items()}
    if said.key == "sort_20mb":
        return median(said, read["mmap_kb"] / 1024, detail=detail)
    heap = read["heap_kb"].reindex(read["mmap_rss_kb"].index).fillna(0.0)
    return outcome(said, list(read["mmap_rss_kb"] > heap), detail=detail)


SAID, JUDGED = declared.read(__package__, globals())
BY_KEY = {s.key: s for s in SAID}
SORT_6_8 = {dict(s.ref.select)["engine"]: s for s in SAID if s.key == "sort_6_8"}


claims = judging(JUDGED, prepare=tidy)
