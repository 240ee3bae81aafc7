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

import numpy as np
import pandas as pd

from . import engines, experiments, reference, results, stats
from .experiments import anatomia, arranque, ejecucion, escala
from .experiments.contract import CLOSING_COLUMNS
from .experiments.runner import Resultado

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


@dataclass(frozen=True)
class Aspect:
    """One row of the chapter's «Tabla resumen»: what it compares, the cost it belongs to, what the chapter
    concluded (in our words), where the figures come from (`figure`: one of FIGURES), and the claim that
    decides it for the student (its key in `experiment`, and the detail that picks the claim; `engine`
    in `per_engine` claims is filled per engine; `judged`: the engines the claim is about)."""

    label: str
    cost: str
    chapter: str
    experiment: str
    figure: str
    claim: str
    detail: tuple = ()
    per_engine: bool = False
    judged: tuple = ("docker", "podman")


CHAPTER_N = 20  # the chapter's «Launch time (20 cont.)» and its memory comparison
SUMMARY = (
    Aspect(
        "arranque, imagen ubuntu",
        "LAUNCH",
        "Podman, unas 2 veces más rápido",
        "arranque",
        "arranque:ubuntu",
        "podman_2x",
        (("role", "ubuntu"),),
    ),
    Aspect(
        "arranque, imagen alpine",
        "LAUNCH",
        "Podman, unas 2.2 veces más rápido",
        "arranque",
        "arranque:alpine",
        "podman_2x",
        (("role", "alpine"),),
    ),
    Aspect(
        f"lanzar {CHAPTER_N} contenedores uno tras otro (total)",
        "LAUNCH",
        "Podman, unas 2 veces más rápido",
        "escala",
        "lanzamiento_total",
        "lanzamiento_20",
    ),
    Aspect(
        "memoria de un contenedor en reposo según `stats` (su cgroup)",
        "CAPACITY",
        "Podman, unas 4.5 veces menos",
        "escala",
        "memoria_cgroup_por_contenedor",
        "cgroup_4x",
    ),
    Aspect(
        "memoria del motor, RSS: Docker, dockerd (fijo); Podman, un conmon por contenedor",
        "CAPACITY",
        "Docker paga un daemon fijo; Podman, ninguno",
        "escala",
        "rss_motor",
        "daemon_fijo",
        judged=("docker",),
    ),
    Aspect(
        "sobrecarga de hash de extremo a extremo (exec incluido)",
        "RUNNING",
        "~0 % en los dos",
        "ejecucion",
        "sobrecarga:hash",
        "hash_0",
        per_engine=True,
    ),
    Aspect(
        "sobrecarga de sort de extremo a extremo (exec incluido)",
        "RUNNING",
        "baja en los dos (+6-8 %)",
        "ejecucion",
        "sobrecarga:sort",
        "sort_6_8",
        per_engine=True,
    ),
)
NOT_JUDGED = "no_juzgada"  # the row's claim is about the other engine
SUMMARY_COLUMNS = ["aspecto", "costo", "experimento", "motor", "unidad", "capitulo", "tuyo", "tuyo_bajo"]
SUMMARY_COLUMNS += ["tuyo_alto", "n", "dice_el_capitulo", "veredicto"]
_NAN3 = (float("nan"),) * 3


def _figure(figure: str, df: pd.DataFrame | None, meta: dict | None, engine: str) -> tuple:
    """(value, low, high, n, unit) of one summary figure for one engine, from a run's rows or from the
    reference rows (one value per cell there: no interval)."""
    if df is None or df.empty:
        return (*_NAN3, 0, "")
    if figure.startswith("arranque:"):
        rows = results.add_roles(df, meta)
        pick = (rows["engine"] == engine) & (rows["role"] == figure.split(":")[1])
        values = rows.loc[pick & (rows["variant"] == "por_defecto") & (rows["metric"] == "arranque"), "value"]
        unit = "ms"
    elif figure.startswith("sobrecarga:"):
        data = ejecucion.tidy(df)
        e2e = ejecucion.METRIC_E2E
        mine = ejecucion.samples(data, e2e, figure.split(":")[1], engine)
        host = ejecucion.samples(data, e2e, figure.split(":")[1], "bare")
        if not mine.size or not host.size:
            return (*_NAN3, 0, "%")
        if "source" in df.columns:  # the reference: five repetitions, not in rounds: the ratio of medians
            return ((np.median(mine) / np.median(host) - 1) * 100, np.nan, np.nan, int(mine.size), "%")
        value, low, high = stats.difference_ci(mine, host, percent=True).triple
        return value, low, high, stats.n_of(mine, host), "%"
    else:
        w = escala.wide(df)
        g = w[(w["engine"] == engine) & (w["n"] == CHAPTER_N)]
        if figure == "rss_motor":
            metric = "rss_daemon" if engine == "docker" else "rss_conmon_total"
            per = 1 if engine == "docker" else CHAPTER_N  # conmon: one per container
            values, unit = escala.column(g, metric) / per / 1024, "MiB"
        elif figure == "memoria_cgroup_por_contenedor":
            # what `docker/podman stats` reports, as the chapter read it (02 judges cgroup_4x on it)
            stats_col = "memoria_stats_por_contenedor"
            values, unit = escala.column(g, stats_col if stats_col in g.columns else figure) / 1024, "MiB"
        else:
            values, unit = escala.column(g, figure), "s"
    values = pd.Series(values, dtype=float).dropna().to_numpy()
    if not values.size:
        return (*_NAN3, 0, unit)
    ci = stats.median_ci(values)
    return ci.value, ci.low, ci.high, ci.n, unit


def summary(root=None, runs: dict | None = None) -> pd.DataFrame:
    """The chapter's «Tabla resumen» (its figures, recomputed from data/reference, and what it concluded)
    beside the student's own (the median of the latest run with its IC 95 %, and the verdict of the
    claim that decides each row, read by key), one row per aspect and engine."""
    rows = []
    for a in SUMMARY:
        ref = reference.load(a.experiment).query("source == 'seed000'")
        run = (runs or {}).get(a.experiment) or latest(a.experiment, root)
        claims = [] if run is None else experiments.get(a.experiment).claims(run.df, run.meta)
        for engine in ("docker", "podman"):
            chapter = _figure(a.figure, ref, None, engine)
            mine = _figure(a.figure, run.df, run.meta, engine) if run is not None else (*_NAN3, 0, "")
            want = dict(a.detail) | ({"engine": engine} if a.per_engine else {})
            claim = next(
                (
                    c
                    for c in claims
                    if c.key == a.claim and all(c.detail.get(k) == v for k, v in want.items())
                ),
                None,
            )
            if engine not in a.judged:
                claim = NOT_JUDGED
            rows.append(
                (a.label, a.cost, a.experiment, engine, mine[4] or chapter[4], chapter[0], *mine[:4])
                + (a.chapter, claim)
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
