"""The Sysbox post's claims (claims.toml): the figure shapes that need code, and the claimed numbers
data/reference holds. The run's own instances (its VM, its system container), the conditions and what a
detail shows are analysis.py's. Arms of the same rounds are paired by round."""

from __future__ import annotations

import pandas as pd

from .. import declared
from ..figures import Custom, Formula, NotComparable, Outcome, Ratio, Sel, Unless, judge_all, judging
from ..verdict import Claim, Said
from . import kinds as k
from .analysis import (
    MEMORY_16X,
    arm_values,
    dense_system,
    emulated,
    fit_level,
    gzip_baseline,
    has,
    lxd,
    measured,
    sd_vm,
    shown,
    top_level,
    vm,
)

# The keys notebook 90 judges on the machines whose run used KVM (helpers/clase/deferred.py).
DEFERRED_TO_CLASS = ("arranque_10x_systemd", "arranque_10x_lxd", "gzip_vm_kvm", "vm_disco_lento", "red_vm_65", "densidad_gzip_vm", "densidad_cae_mas_vm", "densidad_cpu_30")  # fmt: skip
# The claimed figures data/reference/sistema_vm.csv holds (`ref` in claims.toml); the post's «~650MB» per
# VM, decimal MB, in the course's unit (MiB).
CLAIMED = {"arranque_10x": 10.0, "densidad": 2.0, "memoria_16x": MEMORY_16X, "gzip": 1.0}
CLAIMED["vm_disco_650"] = round(650e6 / k.MB, 1)


# ---------------------------------------------------------------- the figures' shapes
def on(variant, figure, words: str = "{quantity} [{kind}]", **options) -> Custom:
    """`figure`, measured on the instance variant(df, meta), which the quantity names (`words`); an
    emulated VM's says so in its note (a «no comparable» gives its reason instead)."""

    def build(said: Said, df, meta) -> list[Claim]:
        v = variant(df, meta)
        note = "Medido con una VM emulada (TCG)." if k.is_emulated(v) else said.note
        said = said.but(quantity=words.format(quantity=said.quantity, kind=k.kind_label(v)), note=note)
        return judge_all([said.but(figure=figure)], df, meta)

    return Custom(build, **options)


def ratio(metric: str, num, den, **options) -> Ratio:
    return Ratio(Sel(metric=metric, variant=num), Sel(metric=metric, variant=den), **options)


def over_app(metric: str, variant) -> Ratio:
    """`variant` / the application container (scenario 1) on one workload, paired by round: no claim
    when `variant` was not in the run, «sin datos» when the other side or the workload is missing."""
    return ratio(metric, variant, "aplicacion", when=has(variant))


def provision(vm_of, system, init: str, reason: str, shown_as: str = "", **options) -> Custom:
    """VM / system container to «listo». The busybox VM's ratio is shown (`shown_as`), not judged, with
    its `reason`; with systemd on both sides it is the post's comparison: judged with KVM, deferred to the
    class under TCG (`reason`)."""
    detail = {"variante_vm": vm_of, "emulada": emulated(vm_of), "init": init}
    if shown_as:
        figure = NotComparable(reason, detail={**detail, shown_as: shown(k.ARRANQUE, vm_of, system)})
        return on(vm_of, figure, **options)
    figure = ratio(k.ARRANQUE, vm_of, system, detail=detail)
    return on(vm_of, Unless(emulated(vm_of), reason, detail, figure), **options)


def lxd_provision(defer: str, busybox: str, **options) -> Custom:
    """Against LXD's system container: the post's comparison with a systemd VM, the busybox VM's shown."""

    def build(said: Said, df: pd.DataFrame, meta: dict | None) -> list[Claim]:
        said = said.but(quantity=f"arranque hasta «listo», VM / {k.kind_label(lxd(df))}")
        if sd_vm(df):
            return judge_all([said.but(figure=provision(sd_vm, lxd, "systemd (LXD)", defer))], df, meta)
        figure = provision(vm, lxd, "busybox init (VM)", busybox, "vm_x_lxd")
        return judge_all([said.but(figure=figure)], df, meta)

    return Custom(build, **options)


def given_back(variant, threshold: float, above: bool) -> Custom:
    """The touch-and-free of each instance of `variant` as an observed outcome: did the host hold more (or
    less) than `threshold` % of the freed block each time? (An emulated VM's too: the mechanism is the
    hypervisor's, not the CPU's.)"""
    kept = lambda df, meta=None: [float(v) for v in arm_values(df, k.RETENIDA, variant(df, meta))]
    detail = {"tipo": variant, "emulada": emulated(variant), "retenida_pct": kept}
    happened = (lambda v: v > threshold) if above else (lambda v: v < threshold)
    figure = Outcome(lambda df, meta: [bool(happened(v)) for v in kept(df)], detail=detail)
    return on(variant, figure, needs=measured(k.RETENIDA, variant))


def gzip_over(variant: str, when, den=gzip_baseline, figure=None, detail=None) -> Custom:
    """gzip in `variant` over scenario (1) (`gzip_baseline`), or over bare metal when it is (1) itself."""
    den_of = den if callable(den) else lambda df, meta: den
    figure = figure or ratio(k.GZIP, variant, den, detail=detail)
    return on(den_of, figure, f"gzip, {k.kind_label(variant)} / {{kind}}", when=when)


def net(num, den, reason: str = ""):
    """num / den in Gbit/s of iperf3, paired by round: no claim without LXD's system container (the phase
    needs it), «sin datos» without rows of both arms; with a reason, deferred on an emulated VM."""
    rows = lambda df, meta=None: measured(k.RED, num)(df, meta) and measured(k.RED, den)(df, meta)
    conditions = {"when": has("sistema_lxd"), "needs": rows}
    if not reason:
        return ratio(k.RED, num, den, **conditions)
    return Unless(emulated(num), reason, {"tipo": num, "emulada": True}, ratio(k.RED, num, den), **conditions)


# ---------------------------------------------------------------- density with overcommit (density.py)
def per_instance(variant, level, metric: str = k.DENSIDAD_INSTANCIA) -> Sel:
    """gzip MB/s of `variant` with the run's N = level(df, meta) instances at once (per instance, or all
    together with metric=DENSIDAD_TOTAL)."""
    return Sel(metric=lambda df, meta: k.level_metric(metric, level(df, meta)), variant=variant)


def vm_falls_more() -> Formula:
    """The VM's fall over the system container's: (VM at top ÷ VM fit) ÷ (system at top ÷ system fit)."""
    sels = (per_instance(v, level) for v in (vm, dense_system) for level in (top_level, fit_level))
    return Formula(lambda vt, vf, st, sf: (vt / vf) / (st / sf), *sels)


SAID = declared.read(__package__, globals()).said


claims = judging(SAID)
