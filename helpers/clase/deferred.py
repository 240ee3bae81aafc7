"""The verdicts other notebooks defer to the class comparison, because one machine cannot decide them.

- across CPUs (05, seed 001 «Expected Results by Hardware»): the getpid overhead in a container is
  about the same on every CPU. Each machine of the class and each CPU table of the seed (its own
  «machine», a published range kept as a range) gets its figure: its time factor in a container
  (1 + overhead) ÷ the median factor of all the others, against «about 1» (0.8×-1.25×), a ratio of two
  factors, never of two percentages. Only the class's machines vote, by the one rule; the sources are
  shown beside them, and with fewer than two judged machines of the class the verdict is «sin datos»:
  the sources alone decide nothing about the students' CPUs.
- The class rule (`class_status`), with its error controlled for the whole class: a machine whose true
  figure lies inside the margin falls entirely outside it at most 5 % of the time, so with m machines
  some fall outside by chance. The class says «no se sostiene» only when more machines fall outside
  than chance explains (a one-sided binomial test, scipy.stats.binomtest, at 5 %); «se confirma» when
  every judged machine is inside; otherwise «no concluyente». The machines outside are always named.
- KVM (08): the speed claims notebook 08 leaves «no comparable» on an emulated VM are judged on each
  machine whose run used KVM, with 08's own `claims`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import stats as sps

from .. import experiments
from ..experiments import verdict as vd
from ..experiments.llamadas.claims import ACROSS_CPUS, CONTAINER_RUN
from ..stats import LEVEL, RANGE_METHOD, Estimate
from . import compare
from .runs import ClassRuns

ACROSS_EXPERIMENT, ACROSS_METRIC = "llamadas", "getpid"
# Reference sources that are not one CPU's measurement (the seed's «expected» ranges span every CPU).
NOT_A_MACHINE = frozenset({"seed001-esperado"})
# The speed claims 08 defers on an emulated VM. 08's module may declare them (DEFERRED_TO_CLASS);
# until it does, these keys (its claims today).
KVM_EXPERIMENT = "sistema_vm"
KVM_KEYS = ("arranque_10x", "arranque_10x_systemd", "arranque_10x_lxd", "gzip_vm_kvm")


# A machine whose true figure is inside the margin has an IC 95 % entirely outside it at most this often.
CHANCE_OUTSIDE = 1 - LEVEL
JUDGED = (vd.SE_CONFIRMA, vd.NO_SE_SOSTIENE, vd.NO_CONCLUYENTE)


@dataclass
class ClassVerdict:
    """A verdict of the whole class: status (verdict.STATUSES), each machine's own Claim, the machines
    that fall entirely outside the margin (named on the page), the machines that could not judge it,
    the sources shown beside the class (`sources`: they do not vote) and whether the class is the
    fictitious demonstration one (`demo`: its status is an example, never a verdict)."""

    key: str
    statement: str
    status: str
    per_machine: dict[str, vd.Claim] = field(default_factory=dict)
    outside: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    demo: bool = False
    by_chance: int = 0  # how many machines outside chance alone explains at most, for the page


def chance_explains(outside: int, judged: int) -> bool:
    """True when `outside` machines of `judged` falling entirely outside the margin is what chance
    alone gives often enough (one-sided binomial test at 1 − LEVEL; scipy.stats.binomtest)."""
    if outside == 0:
        return True
    test = sps.binomtest(outside, judged, CHANCE_OUTSIDE, alternative="greater")
    return bool(test.pvalue > 1 - LEVEL)


def most_by_chance(judged: int) -> int:
    """The largest number of machines out of `judged` that chance alone explains (see chance_explains)."""
    k = 0
    while k < judged and chance_explains(k + 1, judged):
        k += 1
    return k


def class_status(claims: dict[str, vd.Claim], *, at_least: int) -> tuple[str, list[str]]:
    """The class rule (module docstring) on the machines' own claims: (status, machines outside)."""
    judged = {m: c for m, c in claims.items() if c.status in JUDGED}
    outside = sorted(m for m, c in judged.items() if c.status == vd.NO_SE_SOSTIENE)
    if len(judged) < at_least:
        return vd.SIN_DATOS, outside
    if not chance_explains(len(outside), len(judged)):
        return vd.NO_SE_SOSTIENE, outside
    if all(c.status == vd.SE_CONFIRMA for c in judged.values()):
        return vd.SE_CONFIRMA, outside
    return vd.NO_CONCLUYENTE, outside


def _across_said() -> vd.Said:
    return ACROSS_CPUS.but(
        kind="about",
        claimed=1.0,
        unit="x",
        quantity="sobrecarga de getpid de cada máquina ÷ la mediana de las demás",
    )


def across_arm() -> dict[str, str]:
    """The arm «the overhead» of seed 001 is about: the default Docker container with its seccomp
    profile over the host (the arm of its +11 % run, `contenedor_11`, that its per-CPU table
    generalises). Never sin_seccomp or gVisor: one overhead per machine."""
    select = dict(CONTAINER_RUN.ref.select)
    return {"engine": select["engine"], "variant": select["variant"]}


def overheads(class_runs: ClassRuns) -> pd.DataFrame:
    """The getpid overhead in a default Docker container (%, container ÷ host − 1; `across_arm`) of
    every machine and every reference source, one row each: machine, fuente ('' for a class machine),
    forma, n, valor, ic_bajo, ic_alto."""
    rows = []
    data = class_runs.data
    arm = across_arm()
    if not data.empty:
        mine = compare.ratios_vs_bare(data[(data["experiment"] == ACROSS_EXPERIMENT)])
        mine = mine[
            (mine["metric"] == ACROSS_METRIC)
            & (mine["engine"] == arm["engine"])
            & (mine["variant"] == arm["variant"])
        ]
        for _, r in mine.iterrows():
            rows.append((r["machine"], "", "", int(r["n"]), r["proporcion"], r["ic_bajo"], r["ic_alto"]))
    ref = compare.reference_ratios(ACROSS_EXPERIMENT)
    ref = ref[
        (ref["metric"] == ACROSS_METRIC)
        & (ref["engine"] == arm["engine"])
        & (ref["variant"] == arm["variant"])
        & (ref["proporcion_de"] == compare.BARE_LABEL)
        & ~ref["fuente"].isin(NOT_A_MACHINE)
    ]
    for _, r in ref.iterrows():
        rows.append(
            (
                compare.REFERENCE_MACHINE,
                r["fuente"],
                r["forma"],
                int(r["n"]),
                *r[["proporcion", "ic_bajo", "ic_alto"]],
            )
        )
    out = pd.DataFrame(rows, columns=["machine", "fuente", "forma", "n", "valor", "ic_bajo", "ic_alto"])
    out["factor"] = out["valor"].astype(float)  # × the host: the figure the class compares
    for col in ("valor", "ic_bajo", "ic_alto"):
        out[col] = (out[col].astype(float) - 1) * 100
    return out


def _name(row) -> str:
    return row["fuente"] or row["machine"]


def across_cpus(class_runs: ClassRuns) -> ClassVerdict:
    """«The overhead is about the same on every CPU», judged across the class (the sources beside it)."""
    said = _across_said()
    table = overheads(class_runs)
    out = ClassVerdict(said.key, said.statement, vd.SIN_DATOS, demo=class_runs.demo)
    for i, row in table.iterrows():
        others = table.drop(index=i)["factor"].to_numpy(dtype=float)
        centre = float(np.median(others)) if others.size else np.nan
        name = _name(row)
        if not np.isfinite(centre) or centre <= 0:
            out.per_machine[name] = vd.missing(said)
            continue
        value, low, high = ((1 + row[c] / 100) / centre for c in ("valor", "ic_bajo", "ic_alto"))
        if row["forma"] == "rango":  # a published range: judged on its ends, it is not a sample
            claim = vd.judge(said, Estimate(value, low, high, vd.MIN_N), detail={"rango_publicado": True})
            claim.estimate = replace(claim.estimate, n=0, method=RANGE_METHOD)
        else:
            claim = vd.judge(said, Estimate(value, low, high, int(row["n"]) if np.isfinite(low) else 0))
        claim.detail.update(sobrecarga=row["valor"], mediana_de_las_demas=(centre - 1) * 100)
        out.per_machine[name] = claim
        if row["fuente"]:
            out.sources.append(name)
    voters = {m: c for m, c in out.per_machine.items() if m not in out.sources}
    out.status, out.outside = class_status(voters, at_least=2)
    out.by_chance = most_by_chance(sum(c.status in JUDGED for c in voters.values()))
    return out


def kvm_keys() -> tuple[str, ...]:
    try:
        module = experiments.get(KVM_EXPERIMENT)
    except KeyError:
        return ()
    return tuple(getattr(module, "DEFERRED_TO_CLASS", None) or KVM_KEYS)


def kvm(class_runs: ClassRuns) -> dict[str, ClassVerdict]:
    """Each speed claim 08 defers, judged by 08's own `claims` on every machine whose VM used KVM (an
    emulated VM decides nothing). The class verdict joins them like `across_cpus`; a key no machine
    judged is «sin datos», and the machines that could not judge it are listed in `missing`."""
    keys = kvm_keys()
    out = {}
    try:
        module = experiments.get(KVM_EXPERIMENT)
    except KeyError:
        return out
    judged: dict[str, dict[str, vd.Claim]] = {k: {} for k in keys}
    without: list[str] = []
    for run in class_runs.runs:
        if run.experiment != KVM_EXPERIMENT:
            continue
        try:
            found = {c.key: c for c in module.claims(run.df, run.meta)}
        except Exception:  # noqa: BLE001 - one machine's odd run must not hide the others
            without.append(run.machine)
            continue
        for key in keys:
            claim = found.get(key)
            usable = claim is not None and claim.status not in (vd.NO_COMPARABLE, vd.SIN_DATOS)
            if usable and not claim.detail.get("emulada") and claim.n > 0:
                judged[key][run.machine] = claim
    statements = {s.key: s.statement for s in getattr(module, "SAID", ())}
    for key in keys:
        verdict = ClassVerdict(key, statements.get(key, key), vd.SIN_DATOS, judged[key], demo=class_runs.demo)
        decided = {m: c for m, c in judged[key].items() if c.status in JUDGED}
        verdict.status, verdict.outside = class_status(decided, at_least=1)
        verdict.missing = sorted(
            {r.machine for r in class_runs.runs if r.experiment == KVM_EXPERIMENT} - set(decided)
        )
        out[key] = verdict
    return out
