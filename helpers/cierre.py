"""The closing LAUNCH vs RUNNING table: every registered experiment's latest run, through its own
`closing_rows(df, meta)`.

Nothing here names an experiment: an experiment adds rows to the closing table by declaring
`closing_rows` (columns `base.CLOSING_COLUMNS`). For each one this module takes the run every page reads
(results.latest: the latest complete run, or, if none finished, the latest with rows) and concatenates
their rows, saying which experiments have no run yet and which runs could not be read.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import pandas as pd

from . import engines, experiments, reference, stats
from .experiments import verdict
from .experiments.anatomia.analysis import (
    engine_own_parts,
    network_costs,
    network_podman_over_docker,
    waterfall,
)
from .experiments.arranque.analysis import arm_series, summarize
from .experiments.arranque.measure import CONTAINER_VARIANT, NO_NETWORK_VARIANT
from .experiments.contract import CLOSING_COLUMNS
from .experiments.ejecucion.analysis import overheads
from .experiments.ejecucion.arms import CPU_WORKLOADS, METRIC_WORK
from .experiments.escala.analysis import on_default_network, per_container
from .experiments.red.analysis import main_server
from .experiments.red.analysis import summarize as red_summary
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


def gather(*given: Resultado | None, root=None) -> Cierre:
    """The closing table from the latest run of every contributing experiment. A Resultado given here
    (the run a notebook just made) replaces its experiment's latest run."""
    chosen = {r.experiment: r for r in given if r is not None}
    frames, out = [], Cierre(pd.DataFrame(columns=COLUMNS))
    for module in contributors():
        name = module.EXPERIMENT
        try:
            run = chosen.get(name) or Resultado.latest(name, root)
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
READS = ("arranque", "ejecucion", "anatomia", "escala", "red", "llamadas")


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
        "donde_va_launch",
        "LAUNCH",
        "anatomia",
        ("red_grande", "runtime_pequeno", "pool_creado", "pool_en_marcha"),
        by_parts=True,
    ),
    Question(
        "costo_running",
        "RUNNING",
        "ejecucion",
        ("dos_horas_10_min", "archivos_pequenos", "copia_capa"),
    ),
    Question("capacidad", "CAPACITY", "escala", ("daemon_fijo", "cgroup_4x", "cruce_102")),
)


def answers(root=None) -> dict[str, list]:
    """{question key: every judgement its deciding notebook made in its latest run of the claims it
    names, in the declared order of the keys and, within a key, in the page's order (a claim judged per
    engine, per image or per workload appears once per judgement, as on its page: the answer never keeps
    Docker's and drops Podman's); an empty list when the notebook has no run yet}."""
    out = {}
    for q in QUESTIONS:
        run = experiments.read_run(THIS, q.experiment, root)
        if run is None:
            out[q.key] = []
            continue
        judged = experiments.judged(run)
        out[q.key] = [c for key in q.claims for c in judged if c.key == key]
    return out


def launch_parts(root=None) -> tuple[list[pd.DataFrame], dict]:
    """Each engine's `run` split into its parts, from 04's latest run, through 04's own waterfall (which
    takes the network's part from network_costs): ([one frame per engine], the run's meta); ([], {})
    without a run of 04. The largest part of each is anatomia's largest_part."""
    run = experiments.read_run(THIS, "anatomia", root)
    if run is None or run.df.empty:
        return [], {}
    frames = [waterfall(run.df, e) for e in engines.CONTAINER_ENGINES]
    return [w for w in frames if w["fraccion"].notna().any()], run.meta


# ---------------------------------------------------------------- Kubernetes: a Pod's LAUNCH, the cluster's CAPACITY
@dataclass
class PodRuns:
    """The runs 09's answer about Kubernetes reads (each the latest, or None): pods, 04's (a Pod's LAUNCH
    and the cluster's memory bill, or why it has neither); beside, 02's (Docker's and Podman's bill, set
    beside the cluster's); http, 06's (its Pods serving HTTP: RUNNING, or why it has none)."""

    pods: Resultado | None
    beside: Resultado | None
    http: Resultado | None


def pod_runs(root=None) -> PodRuns:
    """The latest runs of 04, 02 and 06, for «¿Y un Pod de Kubernetes?»."""
    return PodRuns(*(experiments.read_run(THIS, name, root) for name in ("anatomia", "escala", "red")))


# ---------------------------------------------------------------- «¿Arranca Podman más rápido?», in two
@dataclass
class Reading:
    """A figure with its IC 95 % and which way it points from 1× by the one rule (verdict.side:
    ABOVE, BELOW, LEVEL, ABOVE_NULL, BELOW_NULL, NO_CONCLUYENTE or SIN_DATOS); `role` names the image when it has one."""

    estimate: stats.Estimate
    direction: str
    role: str = ""


def _reading(estimate: stats.Estimate, role: str = "") -> Reading:
    return Reading(estimate, verdict.side(estimate.low, estimate.high, estimate.n), role)


@dataclass
class FasterSplit:
    """«Is Podman faster to start?» split where the pages that decide it split it.

    faster: 01's `podman_mas_rapido` and twice: its `podman_2x`, per image (read by key, never
    re-judged); without_network: 01's `run --network none`, Podman/Docker by round, per image; own: 04's
    engine's own part without network (`run --network none` − `runc run`), Podman's over Docker's;
    network: 04's cost of the default network per engine (network_costs); network_ratio:
    Podman's over Docker's, by round; backend: what sets up Podman's network (04's meta, else 01's)."""

    faster: list
    twice: list
    without_network: list[Reading]
    own: Reading | None
    network: dict
    network_ratio: Reading | None
    backend: str = ""

    @property
    def measured(self) -> bool:
        return bool(self.faster or self.twice or self.own or self.network)


ROLES = ("ubuntu", "alpine")


def _podman_network(meta: dict) -> str:
    """What sets up Podman's network in a run (its meta.json: netavark, CNI…), or ""."""
    return ((meta.get("engines") or {}).get("podman") or {}).get("network_backend") or ""


def faster_split(root=None) -> FasterSplit:
    """01's verdicts on «~2×» and on «faster», and where the difference lives: the engine without network
    (04's own parts; 01's no-network variant) and the network's set-up and teardown (04)."""
    read = [
        [experiments.read_claim(THIS, "arranque", key, root, role=r) for r in ROLES]
        for key in ("podman_mas_rapido", "podman_2x")
    ]
    faster, twice = ([c for c in found if c is not None] for found in read)
    without, backend = [], ""
    run = experiments.read_run(THIS, "arranque", root)
    if run is not None and not run.df.empty:
        backend = _podman_network(run.meta)
        for role in ROLES:
            arms = [arm_series(run.df, run.meta, (e, role), NO_NETWORK_VARIANT) for e in ("podman", "docker")]
            if all(a.size for a in arms):
                without.append(_reading(stats.ratio_ci(*arms), role))
    own, network, ratio = None, {}, None
    parts = experiments.read_run(THIS, "anatomia", root)
    if parts is not None and not parts.df.empty:
        figures = engine_own_parts(parts.df).get("podman/docker")
        if figures:
            value, low, high, n = figures
            own = _reading(stats.Estimate(value, low, high, n, paired=True))
        network = network_costs(parts.df, parts.meta.get("run_id", ""))
        backend = _podman_network(parts.meta) or backend
        if len(network) == 2:
            ratio = _reading(network_podman_over_docker(parts.df))
    return FasterSplit(faster, twice, without, own, network, ratio, backend)


# ---------------------------------------------------------------- CAPACITY: how many fit, and what binds first
BRIDGE_PORTS = 1023  # a Linux bridge holds BR_MAX_PORTS = 1024 ports, port 0 reserved: 1023 containers
MEMORY, BRIDGE, PIDS, FILES = "memoria", "puertos del bridge", "PID", "descriptores de archivo"
LIMITS = (MEMORY, BRIDGE, PIDS, FILES)
NOT_RECORDED, NOT_APPLICABLE, NOT_MEASURED = "no_registrado", "no_aplica", "no_medido"


@dataclass
class Capacity:
    """How many idle containers of one engine fit in the machine 02 ran on, from that run.

    n: the N the per-container figures come from; memory_kb: what one more container holds (escala.
    per_container: its cgroup and its helper's PSS), with its IC; processes: PIDs per container (a
    lower bound); memory_field: which of meta.json's host figures is the memory (MemAvailable when
    recorded, else the total); memory_bytes: that figure; limits: {limit: (containers, low, high)} for
    the limits this run lets us read; unread: {limit: why not (NOT_RECORDED, NOT_APPLICABLE,
    NOT_MEASURED)}; bridged: launched on the default network (a bridge); binding: the readable limit that lets in fewest containers."""

    engine: str
    n: int
    memory_kb: stats.Estimate
    processes: float
    memory_field: str
    memory_bytes: float
    limits: dict = field(default_factory=dict)
    unread: dict = field(default_factory=dict)
    bridged: bool = False

    @property
    def binding(self) -> str | None:
        return min(self.limits, key=lambda k: self.limits[k][0]) if self.limits else None


def capacity(root=None) -> list[Capacity]:
    """CAPACITY as a number per engine from 02's latest run: the containers its memory holds (the host's
    MemAvailable, recorded in meta.json when the run started with the engine's fixed processes already
    running, ÷ what one more container holds), the bridge's ports when the run launched on the default
    network as root (rootless networks have no bridge), kernel.pid_max ÷ PIDs per container when meta.json recorded it; file descriptors are never
    counted per container. [] without a run of 02."""
    return capacity_of(experiments.read_run(THIS, "escala", root))


def capacity_of(run: Resultado | None) -> list[Capacity]:
    """`capacity` from one run of 02 (the kit's, the closing page's latest): [] without rows."""
    if run is None or run.df.empty:
        return []
    host = run.meta.get("host") or {}
    name = next((k for k in ("memory_available_bytes", "memory_total_bytes") if host.get(k)), "")
    memory = float(host[name]) if name else float("nan")
    bridged = on_default_network(run.meta)
    pid_max = (host.get("limits") or {}).get("pid_max")
    out = []
    engines_meta = run.meta.get("engines") or {}
    for engine, each in per_container(run.df).items():
        rootless = bool((engines_meta.get(engine) or {}).get("rootless"))  # slirp4netns or pasta: no bridge
        kb = each["memoria_kb"]
        cap = Capacity(
            engine, each["n"], kb, each["procesos"], name, memory, bridged=bridged and not rootless
        )
        if name:
            fits = [memory / 1024 / v if v > 0 else float("nan") for v in (kb.value, kb.high, kb.low)]
            cap.limits[MEMORY] = tuple(fits)
        else:
            cap.unread[MEMORY] = NOT_RECORDED
        if cap.bridged:
            cap.limits[BRIDGE] = (BRIDGE_PORTS,) * 3
        else:
            cap.unread[BRIDGE] = NOT_APPLICABLE
        if pid_max and each["procesos"] > 0:
            cap.limits[PIDS] = (pid_max / each["procesos"],) * 3
        else:
            cap.unread[PIDS] = NOT_RECORDED
        cap.unread[FILES] = NOT_MEASURED
        out.append(cap)
    return out


# ---------------------------------------------------------------- the chapter's summary, and the student's
CONTAINERS = ("docker", "podman")
NOT_JUDGED = "no_juzgada"  # the row's claim is about the other engine
SUMMARY_COLUMNS = ["aspecto", "costo", "experimento", "motor", "unidad", "capitulo", "tuyo", "tuyo_bajo"]
SUMMARY_COLUMNS += ["tuyo_alto", "n", "dice_el_capitulo", "veredicto", "aparte", "en_su_pagina"]
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


def _judged_figure(claim, unit: str) -> tuple:
    """(value, low, high, n, unit) of the figure a claim was judged on, or no figure without a claim."""
    if not hasattr(claim, "status") or not claim.n:
        return (*_NO_FIGURE[:4], unit)
    return claim.value, claim.low, claim.high, claim.n, unit


def summary(root=None, runs: dict | None = None) -> pd.DataFrame:
    """The chapter's «Tabla resumen» (its figures, recomputed from data/reference, and what it concluded:
    the statement of the declaration each row stands for) beside the student's own (the median of the
    latest run with its IC 95 %, and the verdict of that declaration's claim, found by key), one row per
    aspect and engine. A row with an `aside` shows the figure its claim was judged on (and the
    chapter's claimed figure), its own figure in `aparte` (aside, value, low, high, n, unit; else None).
    A row that re-judges its declaration on its own figure (`SummaryRow.verdict`) keeps, in
    `en_su_pagina`, the judgement of that declaration on the page that decides it (found by key; None
    when that page does not judge it), so 09 shows both and never hides that the page says otherwise."""
    rows, judged = [], {}
    for experiment, row in summary_rows():
        ref = reference.load(experiment).query("source == 'seed000'")
        run = (runs or {}).get(experiment) or Resultado.latest(experiment, root)
        if experiment not in judged:
            judged[experiment] = [] if run is None else experiments.judged(run)
        for engine in CONTAINERS:
            chapter = _figure(row, ref, None, engine)
            mine = _figure(row, run.df, run.meta, engine) if run is not None else _NO_FIGURE
            want = dict(row.detail) | ({"engine": engine} if row.per_engine else {})
            claim = experiments.pick_claim(judged[experiment], row.said.key, **want)
            on_page = None  # the page's own judgement, when the row re-judges the claim on its figure
            if row.verdict is not None:
                on_page = claim
                claim = row.verdict(run.df, run.meta, engine) if run is not None else None
            if engine not in row.judged:
                claim, on_page = NOT_JUDGED, None
            aside = None
            if row.aside:  # the figure that was judged; the row's own figure beside it, unjudged
                aside = (row.aside, *mine) if mine[3] else None
                chapter = (row.said.claimed, *_NO_FIGURE[1:4], row.said.unit)
                mine = _judged_figure(claim, row.said.unit)
            rows.append(
                (row.label, row.cost, experiment, engine, mine[4] or chapter[4], chapter[0], *mine[:4])
                + (row.said.statement, claim, aside, on_page)
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
    row = launch_row(experiments.read_run(THIS, "arranque", root))
    return None if row is None else row.to_dict()


def launch_row(run: Resultado | None, engine: str = "docker") -> pd.Series | None:
    """01's summary row of `<engine> run --rm` with the default network (ubuntu if measured), or None:
    the one launch 09's figures, its take-home and the instructor's worked answers set beside RUNNING."""
    if run is None or run.df.empty:
        return None
    table = summarize(run.df, run.meta)
    rows = table[(table["engine"] == engine) & (table["variant"] == CONTAINER_VARIANT)]
    if rows.empty:
        return None
    ubuntu = rows[rows["role"] == "ubuntu"]
    return (ubuntu if len(ubuntu) else rows).iloc[0]


def bottom_line(root=None) -> BottomLine:
    """Recompute «2 h de trabajo → < 10 min de sobrecarga» from the student's latest runs of 03 and 01."""
    columns = ["carga", "lugar", "entorno", "base", "sobrecarga_pct", "ic_bajo_pct", "ic_alto_pct"]
    columns += ["minutos", "minutos_bajo", "minutos_alto"]
    run = experiments.read_run(THIS, BOTTOM_LINE_CLAIM[0], root)
    if run is None or run.df.empty:
        return BottomLine([], pd.DataFrame(columns=columns), chapter_launch(root))
    claims = [c for c in experiments.judged(run) if c.key == BOTTOM_LINE_CLAIM[1]]
    table = overheads(run.df, METRIC_WORK)
    keep = (
        table["justa"].astype(bool)
        & ~table["inestable"].astype(bool)
        & table["entorno"].isin(CONTAINERS)
        & ~table["carga"].isin((*CPU_WORKLOADS, "copia"))
    )
    others = table[keep].copy()
    for col, src in zip(columns[-3:], ("sobrecarga_pct", "ic_bajo_pct", "ic_alto_pct")):
        others[col] = WORK_MINUTES * others[src].astype(float) / 100
    others = others.sort_values("minutos").reset_index(drop=True)[columns]
    return BottomLine(claims, others, chapter_launch(root))


# ---------------------------------------------------------------- «Lo que te llevas»: one figure per finding
TAKEAWAY_READS = ("arranque", "ejecucion", "llamadas", "red", "escala")


@dataclass
class Takeaway:
    """One take-home finding, from the page that decided it (`experiment`), with ONE figure.

    key: which finding (TAKEAWAYS); ran: that page has a run here; claim: the source's claim judged on
    this figure (its verdict concludes the sentence), found by key in that page's own claims; reading:
    a figure of that page's own analysis with the one rule's direction (verdict.direction), when no
    claim judged a figure (no claim is about it, or the run is not comparable with the source's: the
    claim is kept to say so); capacity: 02's memory per container, per engine (cierre.capacity_of)."""

    key: str
    experiment: str
    ran: bool
    claim: verdict.Claim | None = None
    reading: Reading | None = None
    capacity: list = field(default_factory=list)

    @property
    def judged(self) -> bool:
        """The claim was judged on a figure of this run (its figure is the sentence's)."""
        c = self.claim
        return c is not None and c.n > 0 and not stats.any_nan(c.value) and c.status in JUDGED_ON_FIGURE


JUDGED_ON_FIGURE = (
    verdict.SE_CONFIRMA,
    verdict.NO_SE_SOSTIENE,
    verdict.NO_CONCLUYENTE,
    verdict.INDECIDIBLE,
    verdict.BAJO_CARGA,
)


def _launch_reading(run: Resultado | None) -> Reading | None:
    """01's `docker run --rm` (default network, ubuntu if measured) over `echo ok` as a new process,
    paired by round, as 01's own table gives it (summarize's × bare metal)."""
    r = launch_row(run)  # without an interval: SIN_DATOS, and its n
    if r is None:
        return None
    estimate = stats.Estimate(r["x_bare"], r["x_bare_ic_bajo"], r["x_bare_ic_alto"], int(r["n"]), paired=True)
    if bool(r["base_inestable"]):  # the process it is divided by is not one figure: 01 says «repite»
        return Reading(estimate, verdict.INESTABLE, str(r["role"]))
    return _reading(estimate, str(r["role"]))


def _network_reading(run: Resultado | None, engine: str, variant: str) -> Reading | None:
    """06's own ratio of one arm's requests per second to its native (summarize's `frente_nativo`, on
    the run's main server), for a run whose claim is not judged (another load than the document's)."""
    if run is None or run.df.empty:
        return None
    server = main_server(run.df)
    table = red_summary(run.df, run.meta)
    if server is None or table.empty:
        return None
    rows = table[(table["servidor"] == server) & (table["engine"] == engine) & (table["variant"] == variant)]
    if rows.empty or stats.any_nan(rows["frente_nativo"].iloc[0]):
        return None
    r = rows.iloc[0]
    estimate = stats.Estimate(
        r["frente_nativo"], r["frente_nativo_ic_bajo"], r["frente_nativo_ic_alto"], int(r["n"])
    )
    return _reading(estimate, server)


def takeaways(root=None) -> list[Takeaway]:
    """«Lo que te llevas»: six findings, each from the page that decided it, reading each page's latest
    run once and judging its claims once: LAUNCH (01: `docker run --rm` over a new process), RUNNING on
    the CPU (03: hash's overhead, «~0 %»), system calls (05: getpid with seccomp over the host, «11 %»),
    the network (06: a port published through docker-proxy, «−65.83 %», and `kubectl port-forward`,
    «−83.59 %», each against native) and CAPACITY (02: the memory one more idle container holds, per
    engine, with «Podman usa 4.5x menos»). Docker is the engine every source measured."""
    runs = {name: experiments.read_run(THIS, name, root) for name in TAKEAWAY_READS}
    judged = {
        name: experiments.judged(run) if run is not None and not run.df.empty else []
        for name, run in runs.items()
    }

    def found(name: str, key: str, **detail) -> Takeaway:
        claim = experiments.pick_claim(judged[name], key, **detail)
        return Takeaway(key, name, runs[name] is not None, claim)

    launch = Takeaway("arranque_frente_proceso", "arranque", runs["arranque"] is not None)
    launch.reading = _launch_reading(runs["arranque"])
    proxy = found("red", "docker_pierde_66")
    forward = found("red", "kubernetes_pierde_84", camino="port_forward")
    if forward.claim is None:  # judged on no path (not comparable, no cluster): the one claim, pathless
        forward.claim = next(
            (c for c in judged["red"] if c.key == forward.key and "camino" not in c.detail), None
        )
    for item, arm in ((proxy, ("docker", "puerto")), (forward, ("kubernetes", "port_forward"))):
        if not item.judged:
            item.reading = _network_reading(runs["red"], *arm)
    memory = found("escala", "cgroup_4x")
    memory.capacity = capacity_of(runs["escala"])
    return [
        launch,
        found("ejecucion", "hash_0", engine="docker"),
        found("llamadas", "contenedor_11", engine="docker"),
        proxy,
        forward,
        memory,
    ]
