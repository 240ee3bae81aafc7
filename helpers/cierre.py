"""The closing LAUNCH vs RUNNING table: every registered experiment's latest run, through its own
`closing_rows(df, meta)`.

Nothing here names an experiment: an experiment adds rows to the closing table by declaring
`closing_rows` (columns `base.CLOSING_COLUMNS`). For each one this module takes this machine's latest
complete run (or, if none finished, the latest one) and concatenates their rows, saying which
experiments have no run yet and which runs could not be read.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import pandas as pd

from . import engines, experiments, reference, results
from .experiments import anatomia, arranque, ejecucion
from .experiments.contract import CLOSING_COLUMNS
from .experiments.runner import Resultado
from .experiments.summary import SummaryRow

THIS = sys.modules[__name__]  # the reader that experiments.read_run checks against READS

COLUMNS = ["experimento", "titulo", "corrida", "estado", *CLOSING_COLUMNS]


@dataclass
class Cierre:
    """rows: one row per figure (COLUMNS); runs: {experiment: the run used}; missing: experiments that
    declare closing rows and have no run here yet; unreadable: {experiment: Spanish reason}."""

    rows: pd.DataFrame
    runs: dict[str, Resultado] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)


def contributors() -> list:
    """The registered experiment modules that declare rows for the closing table, in notebook order."""
    return [m for m in experiments.all_experiments() if callable(getattr(m, "closing_rows", None))]


def latest(experiment: str, root=None) -> Resultado | None:
    """This machine's latest complete run of an experiment, or else its latest run, or None."""
    run_dir = results.latest_run(experiment, root, complete_only=True) or results.latest_run(experiment, root)
    return Resultado.load(run_dir) if run_dir else None


def gather(*given: Resultado | None, root=None) -> Cierre:
    """The closing table from the latest run of every contributing experiment. A Resultado given here
    (the run a notebook just made) replaces its experiment's latest run."""
    chosen = {r.experiment: r for r in given if r is not None}
    frames, out = [], Cierre(pd.DataFrame(columns=COLUMNS))
    for module in contributors():
        name = module.EXPERIMENT
        try:
            run = chosen.get(name) or latest(name, root)
        except (OSError, ValueError) as exc:
            out.unreadable[name] = f"no se pudo leer su última corrida ({type(exc).__name__}: {exc})."
            continue
        if run is None:
            out.missing.append(name)
            continue
        out.runs[name] = run
        try:
            rows = module.closing_rows(run.df, run.meta)
        except Exception as exc:  # noqa: BLE001 - one broken run must not hide the others' rows
            out.unreadable[name] = (
                f"su corrida {run.meta.get('run_id', run.run_dir.name)} no da filas para "
                f"esta tabla ({type(exc).__name__}: {exc})."
            )
            continue
        if rows is None or rows.empty:
            continue
        rows = rows.reindex(columns=CLOSING_COLUMNS).assign(
            experimento=name,
            titulo=module.TITLE,
            corrida=run.meta.get("run_id", run.run_dir.name),
            estado=run.status,
        )
        frames.append(rows[COLUMNS])
    if frames:
        out.rows = pd.concat(frames, ignore_index=True)
    return out


# ---------------------------------------------------------------- LAUNCH, RUNNING or CAPACITY: one each
COSTS = ("LAUNCH", "RUNNING", "CAPACITY")


def cost_of(row) -> str:
    """The one cost a closing figure belongs to. The rule (stated in 09): `exec` launches a process into
    a running container → LAUNCH, whichever experiment measured it; the work done inside → RUNNING; how
    many fit, and the memory each one holds → CAPACITY (as the experiment declares it)."""
    concept = str(row.get("concepto", "")).lower()
    if "exec" in concept:
        return "LAUNCH"
    kind = str(row.get("tipo", "")).upper()
    return kind if kind in COSTS else "RUNNING"


# ---------------------------------------------------------------- the questions, each decided in one place
READS = ("arranque", "ejecucion", "anatomia", "escala")


@dataclass(frozen=True)
class Question:
    """A question the course asks, the cost it is about, and where its answer is decided: claim keys of
    one experiment (the first the run judges is the answer; the others are cited beside it), unless
    `by_parts`: then the answer is the largest part of each engine's `run` in 04's waterfall (launch_parts),
    and every claim is cited beside it."""

    key: str
    cost: str
    experiment: str
    claims: tuple[str, ...]
    by_parts: bool = False


QUESTIONS = (
    Question("podman_mas_rapido", "LAUNCH", "arranque", ("podman_mas_rapido", "podman_2x")),
    Question(
        "donde_va_launch", "LAUNCH", "anatomia", ("red_grande", "runtime_pequeno", "pool"), by_parts=True
    ),
    Question(
        "costo_running",
        "RUNNING",
        "ejecucion",
        ("dos_horas_10_min", "hash_0", "sort_6_8", "archivos_pequenos", "copia_capa"),
    ),
    Question("capacidad", "CAPACITY", "escala", ("daemon_fijo", "cgroup_4x", "cruce_102")),
)


def answers(root=None) -> dict[str, list]:
    """{question key: the claims its deciding notebook judged in its latest run, in the declared order
    (None for a claim the run does not judge; an empty list when the notebook has no run yet)}."""
    out = {}
    for q in QUESTIONS:
        if experiments.read_run(THIS, q.experiment, root) is None:
            out[q.key] = []
            continue
        out[q.key] = [experiments.read_claim(THIS, q.experiment, key, root) for key in q.claims]
    return out


def launch_parts(root=None) -> tuple[list[pd.DataFrame], dict]:
    """Each engine's `run` split into its parts, from 04's latest run, through 04's own waterfall (which
    takes the network's part from network_costs): ([one frame per engine], the run's meta); ([], {})
    without a run of 04. The largest part of each is anatomia.largest_part's."""
    run = experiments.read_run(THIS, "anatomia", root)
    if run is None or run.df.empty:
        return [], {}
    frames = [anatomia.waterfall(run.df, e) for e in engines.CONTAINER_ENGINES]
    return [w for w in frames if w["fraccion"].notna().any()], run.meta


# ---------------------------------------------------------------- the chapter's summary, and the student's
CONTAINERS = ("docker", "podman")
NOT_JUDGED = "no_juzgada"  # the row's claim is about the other engine
SUMMARY_COLUMNS = ["aspecto", "costo", "experimento", "motor", "unidad", "capitulo", "tuyo", "tuyo_bajo"]
SUMMARY_COLUMNS += ["tuyo_alto", "n", "dice_el_capitulo", "veredicto"]
_NO_FIGURE = (float("nan"),) * 3 + (0, "")


def summary_rows() -> list[tuple[str, SummaryRow]]:
    """[(experiment, row)] of the chapter's «Tabla resumen», as each registered experiment declares
    them (CHAPTER_SUMMARY), in notebook order."""
    return [(m.EXPERIMENT, row) for m in experiments.all_experiments() for row in m.CHAPTER_SUMMARY]


def _figure(row: SummaryRow, df: pd.DataFrame | None, meta: dict | None, engine: str) -> tuple:
    """(value, low, high, n, unit) of one row for one engine, from a run's rows or from the reference
    rows (one value per cell there: no interval)."""
    if df is None or df.empty:
        return _NO_FIGURE
    return row.figure(df, meta, engine)


def summary(root=None, runs: dict | None = None) -> pd.DataFrame:
    """The chapter's «Tabla resumen» (its figures, recomputed from data/reference, and what it concluded:
    the statement of the declaration each row stands for) beside the student's own (the median of the
    latest run with its IC 95 %, and the verdict of that declaration's claim, found by key), one row per
    aspect and engine."""
    rows, judged = [], {}
    for experiment, row in summary_rows():
        ref = reference.load(experiment).query("source == 'seed000'")
        run = (runs or {}).get(experiment) or latest(experiment, root)
        if experiment not in judged:
            judged[experiment] = [] if run is None else experiments.get(experiment).claims(run.df, run.meta)
        for engine in CONTAINERS:
            chapter = _figure(row, ref, None, engine)
            mine = _figure(row, run.df, run.meta, engine) if run is not None else _NO_FIGURE
            want = dict(row.detail) | ({"engine": engine} if row.per_engine else {})
            claim = experiments.pick_claim(judged[experiment], row.said.key, **want)
            if engine not in row.judged:
                claim = NOT_JUDGED
            rows.append(
                (row.label, row.cost, experiment, engine, mine[4] or chapter[4], chapter[0], *mine[:4])
                + (row.said.statement, claim)
            )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


# ---------------------------------------------------------------- the chapter's bottom line, recomputed
WORK_MINUTES = 120  # «2 h de trabajo…»
CHAPTER_LIMIT_MINUTES = 10  # «…→ < 10 min de sobrecarga»
BOTTOM_LINE_CLAIM = ("ejecucion", "dos_horas_10_min")


@dataclass
class BottomLine:
    """The chapter's «2 h de trabajo → < 10 min de sobrecarga» from the student's runs.

    claims: 03's verdicts on it (`dos_horas_10_min`: hash and sort, the work the chapter drew it from,
    per engine); others: the small-file and write workloads 03 measured in a container (which the
    chapter did not measure), as figures, not verdicts, read as «if the 2 h were only this work» (copy-up
    is paid once per file, not per hour: it is left out): carga, lugar, entorno, base, sobrecarga_pct, ic_bajo_pct,
    ic_alto_pct and minutos, minutos_bajo, minutos_alto (WORK_MINUTES × the overhead); launch: the
    launch paid once, as the chapter's «~428 ms»: `docker run --rm`, image ubuntu, default network,
    from 01 (mediana_ms, ic_bajo_ms, ic_alto_ms, role), or None."""

    claims: list
    others: pd.DataFrame
    launch: dict | None

    @property
    def measured(self) -> bool:
        return bool(self.claims) or not self.others.empty


def chapter_launch(root=None) -> dict | None:
    """The launch the chapter set beside its bottom line (`docker run --rm` with the default network,
    ubuntu if measured), from 01's latest run."""
    run = experiments.read_run(THIS, "arranque", root)
    if run is None or run.df.empty:
        return None
    table = arranque.summarize(run.df, run.meta)
    docker = table[(table["engine"] == "docker") & (table["variant"] == arranque.CONTAINER_VARIANT)]
    if docker.empty:
        return None
    ubuntu = docker[docker["role"] == "ubuntu"]
    return (ubuntu if len(ubuntu) else docker).iloc[0].to_dict()


def bottom_line(root=None) -> BottomLine:
    """Recompute «2 h de trabajo → < 10 min de sobrecarga» from the student's latest runs of 03 and 01."""
    columns = ["carga", "lugar", "entorno", "base", "sobrecarga_pct", "ic_bajo_pct", "ic_alto_pct"]
    columns += ["minutos", "minutos_bajo", "minutos_alto"]
    run = experiments.read_run(THIS, BOTTOM_LINE_CLAIM[0], root)
    if run is None or run.df.empty:
        return BottomLine([], pd.DataFrame(columns=columns), chapter_launch(root))
    claims = [c for c in ejecucion.claims(run.df, run.meta) if c.key == BOTTOM_LINE_CLAIM[1]]
    table = ejecucion.overheads(run.df, ejecucion.METRIC_WORK)
    keep = (
        table["justa"].astype(bool)
        & ~table["inestable"].astype(bool)
        & table["entorno"].isin(CONTAINERS)
        & ~table["carga"].isin((*ejecucion.CPU_WORKLOADS, "copia"))
    )
    others = table[keep].copy()
    for col, src in zip(columns[-3:], ("sobrecarga_pct", "ic_bajo_pct", "ic_alto_pct")):
        others[col] = WORK_MINUTES * others[src].astype(float) / 100
    others = others.sort_values("minutos").reset_index(drop=True)[columns]
    return BottomLine(claims, others, chapter_launch(root))
