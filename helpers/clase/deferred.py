"""The verdicts other notebooks defer to the class comparison, because one machine cannot decide them,
each judged by the class rule (helpers/clase/rule.py) on the machines' own claims.

- Across CPUs (05, seed 001): «the overhead percentage is about the same on different CPUs». Each
  machine's figure is the one notebook 05 judges on it (`contenedor_11` on Docker: the getpid overhead
  of the default container over the host, round by round, screened for load), in percent. What the
  source said of its own CPUs is its per-CPU table: every overhead between 24 % and 30 %, a band 6
  points wide. So the class asks whether each machine's overhead lies within half that band (±3 points)
  of the median of the *other* machines of the class, and whether the typical machine does (the median
  of those distances, at most 3 points). The seed's tables are shown beside the class, never in its
  centre, and never vote: they say nothing of the students' CPUs.
- KVM (08): the speed and density claims notebook 08 leaves «no comparable» on an emulated VM
  (DEFERRED_TO_CLASS of its package), judged by 08's own `claims` on each machine whose run used KVM.

Each machine enters only where its own claim carries an interval (rule.eligible); the machines that ran
the experiment but could not (below the minimum of rounds, under load, an emulated VM) are listed with
their reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import experiments
from ..experiments import verdict as vd
from ..experiments.llamadas.claims import ACROSS_CPUS, CONTAINER_RUN, CONTAINER_TABLE
from . import compare
from .rule import ClassRule, Judgement, eligible
from .runs import ClassRuns, MachineRun

ACROSS_EXPERIMENT, ACROSS_KEY, ACROSS_ENGINE = "llamadas", CONTAINER_RUN.key, "docker"
ACROSS_METRIC = "getpid"
TABLE_BAND = CONTAINER_TABLE.bounds  # seed 001's per-CPU table: 24-30 %
ACROSS_BAND = (TABLE_BAND[1] - TABLE_BAND[0]) / 2  # 3 points either side of the others' median
ACROSS_NOTE = (
    f"Su tabla de valores esperados por CPU pone todas las sobrecargas entre el {TABLE_BAND[0]:g} % y el {TABLE_BAND[1]:g} %, "
    f"una franja de {TABLE_BAND[1] - TABLE_BAND[0]:g} puntos: «parecido» lo leemos como a "
    f"{ACROSS_BAND:g} puntos o menos (la mitad de esa franja) de la mediana de las demás máquinas de la "
    "clase."
)
ACROSS_SAID = ACROSS_CPUS.but(
    kind="range",
    bounds=(-ACROSS_BAND, ACROSS_BAND),
    unit="pp",
    quantity="sobrecarga de getpid de la máquina menos la mediana de las demás máquinas de la clase",
    note=ACROSS_NOTE,
    figure=None,
)
ACROSS_TYPICAL = ACROSS_SAID.but(
    kind="at_most",
    claimed=ACROSS_BAND,
    bounds=None,
    quantity="distancia de la máquina típica a la mediana de las demás (mediana de las distancias)",
)
ACROSS_RULE = ClassRule(ACROSS_SAID, ACROSS_TYPICAL, about_centre=True)
# Reference sources that are not one CPU's measurement (the seed's «expected» ranges span every CPU).
NOT_A_MACHINE = frozenset({"seed001-esperado"})

KVM_EXPERIMENT = "sistema_vm"
EMULATED = "vm_emulada"  # why a machine does not enter (the view words it)
NOT_RUN = "sin_la_afirmacion"  # its run has no such claim (the arm or the phase was not measured)


@dataclass
class ClassVerdict:
    """A verdict of the whole class: its declaration, status (verdict.STATUSES), the rule's judgement
    (`judgement`: the typical machine, the machines apart), each machine's own claim (`per_machine`,
    the experiment's), the machines that ran it and could not enter, with the status that kept them
    out (`left_out`), the rule itself (for power.machines_needed), the sources shown beside the class
    (`sources`, a table: they never vote) and whether the class is the demonstration one (`demo`: its
    status is never shown as a verdict)."""

    key: str
    statement: str
    status: str
    rule: ClassRule
    judgement: Judgement | None = None
    per_machine: dict[str, vd.Claim] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    sources: pd.DataFrame | None = None
    demo: bool = False

    @property
    def entered(self) -> list[str]:
        return sorted(self.judgement.figures) if self.judgement else []


def _runs_of(class_runs: ClassRuns, experiment: str) -> list[MachineRun]:
    return [r for r in class_runs.runs if r.experiment == experiment]


def _own_claims(run: MachineRun, module) -> list[vd.Claim] | None:
    """The experiment's own claims on one machine's run; None when its `claims` cannot read it."""
    try:
        return list(module.claims(run.df, run.meta))
    except Exception:  # noqa: BLE001 - one machine's odd run must not hide the others
        return None


def own_claims(class_runs: ClassRuns, experiment: str) -> list[tuple[MachineRun, list[vd.Claim] | None]]:
    """Every run of `experiment` in the class with the experiment's own claims on it (None when its
    `claims` cannot read the run)."""
    try:
        module = experiments.get(experiment)
    except KeyError:
        return []
    return [(run, _own_claims(run, module)) for run in _runs_of(class_runs, experiment)]


def _judge(
    said: vd.Said,
    rule: ClassRule,
    judged: list[tuple[MachineRun, list[vd.Claim] | None]],
    pick: Callable[[list[vd.Claim]], vd.Claim | None],
    demo: bool,
) -> ClassVerdict:
    """Each machine's own claim (`pick` among its experiment's claims on its run), those that carry an
    interval judged together by `rule`."""
    out = ClassVerdict(said.key, said.statement, vd.SIN_DATOS, rule, demo=demo)
    for run, found in judged:
        claim = pick(found) if found is not None else None
        if run.meta.get("emulada"):
            out.left_out[run.machine] = EMULATED
        elif claim is None:
            out.left_out[run.machine] = NOT_RUN if found is not None else vd.SIN_DATOS
        elif claim.detail.get("emulada"):
            out.left_out[run.machine] = EMULATED
        elif not eligible(claim):
            out.left_out[run.machine] = claim.status
        if claim is not None:
            out.per_machine[run.machine] = claim
    entered = sorted(m for m in out.per_machine if m not in out.left_out)
    claims = [out.per_machine[m] for m in entered]
    out.judgement = rule.judge(
        entered, [c.value for c in claims], [c.low for c in claims], [c.high for c in claims]
    )
    out.status = out.judgement.status
    return out


def _across_pick(claims: list[vd.Claim]) -> vd.Claim | None:
    return next((c for c in claims if c.key == ACROSS_KEY and c.detail.get("engine") == ACROSS_ENGINE), None)


def across_cpus(class_runs: ClassRuns) -> ClassVerdict:
    """«The overhead is about the same on every CPU», judged across the class (the sources beside it)."""
    judged = own_claims(class_runs, ACROSS_EXPERIMENT)
    out = _judge(ACROSS_SAID, ACROSS_RULE, judged, _across_pick, class_runs.demo)
    out.sources = source_overheads(out)
    return out


def across_arm() -> dict[str, str]:
    """The arm «the overhead» of seed 001 is about: the default Docker container with its seccomp
    profile over the host (the arm of its +11 % run, `contenedor_11`, that its per-CPU table
    generalises). Never sin_seccomp or gVisor: one overhead per machine."""
    select = dict(CONTAINER_RUN.ref.select)
    return {"engine": select["engine"], "variant": select["variant"]}


def source_overheads(verdict: ClassVerdict | None = None) -> pd.DataFrame:
    """Each source of the reference that measured one CPU, with its overhead (%, a published range
    as its ends) and, when the class has machines, how far it lies from the class's median overhead
    (points, interval arithmetic on the range): fuente, forma, valor, bajo, alto, a_la_mediana_bajo,
    a_la_mediana_alto. Shown beside the class; never in its centre, never a vote."""
    arm = across_arm()
    ref = compare.reference_ratios(ACROSS_EXPERIMENT)
    ref = ref[
        (ref["metric"] == ACROSS_METRIC)
        & (ref["engine"] == arm["engine"])
        & (ref["variant"] == arm["variant"])
        & (ref["proporcion_de"] == compare.BARE_LABEL)
        & ~ref["fuente"].isin(NOT_A_MACHINE)
    ]
    centre = np.nan
    if verdict is not None and verdict.judgement and verdict.judgement.machines:
        centre = float(np.median([verdict.per_machine[m].value for m in verdict.entered]))
    rows = []
    for _, r in ref.iterrows():
        value, low, high = ((float(r[c]) - 1) * 100 for c in ("proporcion", "ic_bajo", "ic_alto"))
        if not np.isfinite(low):
            low = high = value
        rows.append((r["fuente"], r["forma"], value, low, high, low - centre, high - centre))
    columns = ["fuente", "forma", "valor", "bajo", "alto", "a_la_mediana_bajo", "a_la_mediana_alto"]
    return pd.DataFrame(rows, columns=columns)


def kvm_keys() -> tuple[str, ...]:
    """The claims notebook 08 leaves to the machines with KVM (its DEFERRED_TO_CLASS)."""
    try:
        return tuple(experiments.get(KVM_EXPERIMENT).DEFERRED_TO_CLASS)
    except KeyError:
        return ()


def kvm(class_runs: ClassRuns) -> dict[str, ClassVerdict]:
    """Each claim 08 defers, judged by the class rule on the machines whose VM used KVM (an emulated VM
    decides nothing): 08's own claim on each machine, with its own margin."""
    try:
        module = experiments.get(KVM_EXPERIMENT)
    except KeyError:
        return {}
    declared = {s.key: s for s in module.SAID}
    judged = own_claims(class_runs, KVM_EXPERIMENT)
    out = {}
    for key in kvm_keys():
        said = declared[key]
        pick = lambda claims, key=key: next((c for c in claims if c.key == key), None)  # noqa: E731
        out[key] = _judge(said, ClassRule(said), judged, pick, class_runs.demo)
    return out
