"""The closing LAUNCH vs RUNNING table: every registered experiment's latest run, through its own
`closing_rows(df, meta)`.

Nothing here names an experiment: an experiment adds rows to the closing table by declaring
`closing_rows` (columns `base.CLOSING_COLUMNS`). For each one this module takes this machine's latest
complete run (or, if none finished, the latest one) and concatenates their rows, saying which
experiments have no run yet and which runs could not be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from . import experiments, results
from .experiments.contract import CLOSING_COLUMNS
from .experiments.runner import Resultado

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
    one experiment (the first the run judges is the answer; the others are cited beside it)."""

    key: str
    cost: str
    experiment: str
    claims: tuple[str, ...]


QUESTIONS = (
    Question("podman_mas_rapido", "LAUNCH", "arranque", ("podman_mas_rapido", "podman_2x")),
    Question("donde_va_launch", "LAUNCH", "anatomia", ("red_grande", "runtime_pequeno", "pool")),
    Question(
        "costo_running", "RUNNING", "ejecucion", ("archivos_pequenos", "copia_capa", "hash_0", "sort_6_8")
    ),
    Question("capacidad", "CAPACITY", "escala", ("daemon_fijo", "cgroup_4x", "cruce_102")),
)


def answers(root=None) -> dict[str, list]:
    """{question key: the claims its deciding notebook judged in its latest run, in the declared order
    (None for a claim the run does not judge; an empty list when the notebook has no run yet)}."""
    from . import cierre as this

    out = {}
    for q in QUESTIONS:
        if experiments.read_run(this, q.experiment, root) is None:
            out[q.key] = []
            continue
        out[q.key] = [experiments.read_claim(this, q.experiment, key, root) for key in q.claims]
    return out


# ---------------------------------------------------------------- the chapter's summary, and the student's
SUMMARY = (  # (cost, experiment, metric, image role, variant): the chapter's one-table summary
    ("LAUNCH", "arranque", "arranque", "alpine", "por_defecto"),
    ("LAUNCH", "arranque", "arranque", "ubuntu", "por_defecto"),
    ("RUNNING", "ejecucion", "extremo_a_extremo", "ubuntu", "hash"),
    ("RUNNING", "ejecucion", "extremo_a_extremo", "ubuntu", "sort"),
)
SUMMARY_COLUMNS = ["costo", "experimento", "metrica", "imagen", "variante", "motor", "unidad"]
SUMMARY_COLUMNS += ["capitulo", "tuyo", "tuyo_bajo", "tuyo_alto", "n"]


def summary(root=None, runs: dict | None = None) -> pd.DataFrame:
    """The chapter's Docker-vs-Podman table (its medians, from data/reference) beside the student's own
    (the median of the latest run with its IC 95 %), one row per figure and engine."""
    from . import reference, stats

    rows = []
    for cost, experiment, metric, role, variant in SUMMARY:
        ref = reference.load(experiment).query("source == 'seed000'")
        run = (runs or {}).get(experiment) or latest(experiment, root)
        mine = results.add_roles(run.df, run.meta) if run is not None else None
        for engine in ("docker", "podman"):
            at = (ref["engine"] == engine) & (ref["image"] == role) & (ref["variant"] == variant)
            chapter = ref.loc[at & (ref["metric"] == metric), "value"]
            values = pd.Series(dtype=float)
            if mine is not None:
                pick = (mine["engine"] == engine) & (mine["role"] == role) & (mine["variant"] == variant)
                values = mine.loc[pick & (mine["metric"] == metric), "value"]
            low, high = stats.median_ci(values) if len(values) else (float("nan"), float("nan"))
            unit = ref.loc[at, "unit"].iloc[0] if at.any() else ""
            rows.append(
                (cost, experiment, metric, role, variant, engine, unit)
                + (float(chapter.median()) if len(chapter) else float("nan"),)
                + (float(values.median()) if len(values) else float("nan"), low, high, int(len(values)))
            )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


# ---------------------------------------------------------------- the chapter's bottom line, recomputed
WORK_MINUTES = 120  # «2 h de trabajo…»
CHAPTER_LIMIT_MINUTES = 10  # «…→ < 10 min de sobrecarga»


CONTAINERS = ("docker", "podman")


@dataclass
class BottomLine:
    """The overhead of WORK_MINUTES of work in a container, from the student's own closing rows: one row
    per RUNNING overhead (%) measured in a container (`loads`: the closing columns plus minutos,
    minutos_bajo, minutos_alto: WORK_MINUTES × the overhead, plus one launch), and the launch used
    (the slowest container launch in ms, exec excluded: exec is not the launch paid once)."""

    loads: pd.DataFrame
    launch: dict | None

    @property
    def measured(self) -> bool:
        return not self.loads.empty


def bottom_line(rows: pd.DataFrame | None) -> BottomLine:
    """Recompute «2 h de trabajo → < 10 min de sobrecarga» from closing rows (helpers.cierre.COLUMNS)."""
    extra = ["minutos", "minutos_bajo", "minutos_alto"]
    if rows is None or rows.empty:
        return BottomLine(pd.DataFrame(columns=[*CLOSING_COLUMNS, *extra]), None)
    cost = rows.apply(cost_of, axis=1)
    in_container = rows["entorno"].isin(CONTAINERS)
    running = rows[(cost == "RUNNING") & (rows["unidad"] == "%") & in_container].copy()
    launch = rows[(cost == "LAUNCH") & (rows["unidad"] == "ms") & in_container]
    launch_row = launch.loc[launch["valor"].idxmax()].to_dict() if not launch.empty else None
    once = (launch_row["valor"] / 60_000) if launch_row else 0.0
    for col, src in zip(extra, ("valor", "ic_bajo", "ic_alto")):
        running[col] = WORK_MINUTES * running[src].astype(float) / 100 + once
    return BottomLine(running.sort_values("minutos").reset_index(drop=True), launch_row)
