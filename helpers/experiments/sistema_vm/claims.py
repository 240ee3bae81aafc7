"""The Sysbox post's claims: declared in claims.toml (helpers/experiments/declared.py), judged here on
their figures (`judge_all`). This module keeps what the data names: the run's own instances (its VM, its
container: functions of the run, fn(df, meta)), the conditions, the figures that need code, and the claimed
numbers data/reference holds. Arms measured in the same rounds are paired by round (Series indexed by `rep`).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ... import stats
from .. import declared
from ..figures import Custom, Formula, NotComparable, Outcome, Ratio, Sel, judge_all
from ..verdict import Claim, Said
from . import kinds as k
from .analysis import arm_values, by_round, fit_level, gzip_baseline, overcommit_of, top_level, vm_variant

# The keys notebook 90 judges on the machines whose run used KVM (helpers/clase/deferred.py).
DEFERRED_TO_CLASS = ("arranque_10x_systemd", "arranque_10x_lxd", "gzip_vm_kvm", "vm_disco_lento", "red_vm_65")
MEMORY_16X = 16.0
# The claimed figures data/reference/sistema_vm.csv holds (`ref` in claims.toml); the post's «~650MB» per
# VM, decimal MB, in the course's unit (MiB).
CLAIMED = {"arranque_10x": 10.0, "densidad": 2.0, "memoria_16x": MEMORY_16X, "gzip": 1.0}
CLAIMED["vm_disco_650"] = round(650e6 / k.MB, 1)

# ---------------------------------------------------------------- the run's own instances and conditions
vm, sd_vm = vm_variant, partial(vm_variant, kind="vm_systemd")  # its VM (KVM's first), or None


def present(df: pd.DataFrame | None) -> set:
    return set(df["variant"]) if df is not None and not df.empty else set()


def first(*variants: str):
    """The first of `variants` the run measured, else the last."""
    return lambda df, meta=None: next((v for v in variants if v in present(df)), variants[-1])


container, lxd, app = first("sistema", "aplicacion"), first(k.LXD_COW, "sistema_lxd"), first("aplicacion")
dense_system = first(k.LXD_COW, "sistema_lxd", "sistema")  # the system container of the density phase


def at(variant, df, meta=None):
    return variant(df, meta) if callable(variant) else variant


def has(*variants):
    """A condition: the run measured every one of `variants` (names, or functions of the run)."""
    return lambda df, meta=None: all(at(v, df, meta) in present(df) for v in variants)


def all_of(*conditions):
    return lambda df, meta=None: all(c(df) for c in conditions)


def measured(metric: str, variant):
    return lambda df, meta=None: arm_values(df, metric, at(variant, df, meta)).size > 0


def emulated(variant):
    return lambda df, meta=None: (v := variant(df, meta)) is not None and k.is_emulated(v)


emulated_vm = lambda df, meta=None: vm(df) == "vm_emulada"
app_alone = lambda df, meta=None: has("aplicacion")(df) and not has("sistema")(df)


def shown(metric: str, num, den):
    """num / den of `metric` paired by round, [value, low, high]: a figure a view shows, not judged."""
    return lambda df, meta=None: list(
        stats.ratio_ci(by_round(df, metric, at(num, df)), by_round(df, metric, at(den, df))).triple
    )


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


def deferred(vm_of, reason: str, detail: dict, figure, **options) -> Custom:
    """`figure` on a VM with KVM; on an emulated one, «no comparable» (notebook 90 judges it on KVM's)."""
    no = NotComparable(reason, detail=detail)
    return Custom(
        lambda said, df, meta: judge_all([said.but(figure=no if emulated(vm_of)(df) else figure)], df, meta),
        **options,
    )


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
    return on(vm_of, deferred(vm_of, reason, detail, figure), **options)


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
    return deferred(num, reason, {"tipo": num, "emulada": True}, ratio(k.RED, num, den), **conditions)


# ---------------------------------------------------------------- the figures' details
def nested_run(df: pd.DataFrame, meta=None) -> dict:
    """Per engine, `run --rm` nested in LXD over the same engine on the host."""
    runs = df[df["metric"] == k.RUN_MOTOR].groupby(["engine", "variant"])["value"]
    arms, detail = {arm: values.astype(float).to_numpy() for arm, values in runs}, {}
    for engine in sorted(e for e, v in arms if v == k.HOST_RUN and (e, k.NESTED) in arms):
        figure = stats.ratio_ci(arms[(engine, k.NESTED)], arms[(engine, k.HOST_RUN)])
        detail[f"{engine}_anidado_x_host"] = [round(v, 3) for v in figure.triple]
    return detail


def disks(df: pd.DataFrame, meta=None) -> dict:
    """The median disk of each LXD instance and of the VM, MB."""
    arms = {
        "anidado_lxd_escrito_mb": (k.DISCO_ESCRITO, k.NESTED),
        "sistema_lxd_dir_mb": (k.DISCO, "sistema_lxd"),
        "sistema_lxd_cow_mb": (k.DISCO, k.LXD_COW),
        "vm_mb": (k.DISCO, vm(df)),
    }
    values = {key: arm_values(df, *arm) for key, arm in arms.items()}
    return {key: round(float(stats.summarize(v).median), 2) for key, v in values.items() if v.size}


def vm_disk(df: pd.DataFrame, meta=None) -> dict:
    values = arm_values(df, k.DISCO, vm(df))
    median = {"vm_mib": float(np.median(values))} if values.size else {}
    return {"tipo": vm(df), "emulada": k.is_emulated(vm(df)), **median}


# ---------------------------------------------------------------- density with overcommit (density.py)
def per_instance(variant, level, metric: str = k.DENSIDAD_INSTANCIA) -> Sel:
    """gzip MB/s of `variant` with the run's N = level(df, meta) instances at once (per instance, or all
    together with metric=DENSIDAD_TOTAL)."""
    return Sel(metric=lambda df, meta: k.level_metric(metric, level(df, meta)), variant=variant)


def in_density(*variants, overcommitted: bool = False):
    """A condition: the density rounds measured every one of `variants` (and, if `overcommitted`, their
    largest N assigned more CPUs than the machine has)."""

    def check(df, meta=None) -> bool:
        top = top_level(df, meta)
        if not top or (overcommitted and not overcommit_of(meta, top) > 1):
            return False
        metric = k.level_metric(k.DENSIDAD_INSTANCIA, top)
        return all(arm_values(df, metric, at(v, df, meta)).size for v in variants)

    return check


def fit_over_app(variant) -> Ratio:
    """gzip per instance of `variant` over the application container's, at the N that does not overcommit."""
    return Ratio(per_instance(variant, fit_level), per_instance("aplicacion", fit_level))


def falls(variant) -> Custom:
    """gzip per instance at the largest N over the N that does not overcommit, in `variant`."""
    figure = Ratio(per_instance(variant, top_level), per_instance(variant, fit_level))
    return on(variant, figure, when=in_density(variant, overcommitted=True))


def vm_falls_more() -> Formula:
    """The VM's fall over the system container's: (VM at top ÷ VM fit) ÷ (system at top ÷ system fit)."""
    sels = (per_instance(v, level) for v in (vm, dense_system) for level in (top_level, fit_level))
    return Formula(lambda vt, vf, st, sf: (vt / vf) / (st / sf), *sels)


def held_per_instance(df: pd.DataFrame, meta=None) -> dict:
    """The host's memory per instance after touch-and-free with N at once: VM / system container, and that
    ratio over the post's 16× (2 GB for 16 system containers, 32 GB for 16 VMs)."""
    vm_mb = arm_values(df, k.DENSIDAD_DESPUES, vm(df))
    system_mb = arm_values(df, k.DENSIDAD_DESPUES, dense_system(df))
    detail = {
        "n": top_level(df, meta),
        "tipo": vm(df),
        "sistema": dense_system(df),
        "emulada": emulated(vm)(df),
    }
    if vm_mb.size and system_mb.size:
        vm_median, system_median = float(np.median(vm_mb)), float(np.median(system_mb))
        factor = vm_median / system_median if system_median > 0 else float("nan")
        detail |= {
            "vm_mb": round(vm_median, 2),
            "sistema_mb": round(system_median, 2),
            "vm_x_sistema": round(factor, 2),
            "frente_al_articulo": round(factor / MEMORY_16X, 2),
        }
    return detail


SAID = declared.read(__package__, globals())


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    return judge_all(SAID, df, meta)
