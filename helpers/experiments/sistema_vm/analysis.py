"""Experiment 8's analysis: summaries, ratios, the comparison with the post's figures, closing rows; the
run's own instances (its VM, its system container), the conditions its claims are judged under, and what
a claim's detail shows."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pandas as pd

from ... import stats
from ..contract import CLOSING_COLUMNS
from .kinds import (
    ARRANQUE,
    BASELINE,
    DENSIDAD_DESPUES,
    DENSIDAD_INSTANCIA,
    DENSIDAD_RETENIDA,
    DISCO,
    DISCO_ESCRITO,
    GZIP,
    HOST_RUN,
    LXD_COW,
    NESTED,
    PSS,
    RETENIDA,
    RUN_MOTOR,
    VARIANT_ORDER,
    is_emulated,
    kind_label,
    level_metric,
    variant_of,
)


def arm_values(df: pd.DataFrame, metric: str, variant: str) -> np.ndarray:
    sel = df[(df["metric"] == metric) & (df["variant"] == variant)]
    return sel["value"].astype(float).to_numpy()


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """One row per (metric, variant): n, median, IQR, min, IC 95 %; gzip also as x bare metal."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows)
    bare = arm_values(df, GZIP, BASELINE[1])
    for (metric, engine, variant), group in df.groupby(["metric", "engine", "variant"], sort=False):
        values = group["value"].astype(float).to_numpy()
        s = stats.summarize(values)
        row = {
            "metrica": metric,
            "motor": engine,
            "tipo": variant,
            **s.columns(),
            "unidad": group["unit"].iloc[0],
            "emulada": is_emulated(variant),
            "inestable": stats.unstable(values),
        }
        if metric == GZIP and variant != BASELINE[1] and bare.size:
            row["x_bare"], row["x_bare_bajo"], row["x_bare_alto"] = stats.ratio_ci(values, bare).triple
        rows.append(row)
    return pd.DataFrame(rows)


def ratio(df: pd.DataFrame, metric: str, num_variant: str, den_variant: str) -> stats.Estimate:
    """num / den of one metric, independent arms (the ratio of their medians; n: the smaller arm)."""
    return stats.ratio_ci(arm_values(df, metric, num_variant), arm_values(df, metric, den_variant))


def vm_variant(df: pd.DataFrame, meta: dict | None = None, kind: str = "vm") -> str | None:
    """The run's VM of `kind` («vm», «vm_systemd»): its variant, KVM's first; None without one."""
    return next((v for v in (variant_of(kind, "kvm"), variant_of(kind, "tcg")) if v in present(df)), None)


def gzip_ratio(df: pd.DataFrame, variant: str) -> stats.Estimate:
    return ratio(df, GZIP, variant, BASELINE[1])


def gzip_baseline(df: pd.DataFrame, meta: dict | None = None) -> str:
    """The post compares every scenario with (1), a container on the host: the application container when
    the run measured its gzip, bare metal otherwise (the claims and the comparison say which)."""
    return "aplicacion" if by_round(df, GZIP, "aplicacion").size else BASELINE[1]


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Our figures next to the post's, as ratios where the post gives them, each row with what the post
    measured and what we did (`condicion`, Spanish): a figure under other conditions is not the same
    figure. An emulated VM's rows say «emulada»."""
    rows = []
    if reference is None or reference.empty:
        return pd.DataFrame(rows)
    vmv = vm_variant(df) if df is not None else None
    suffix = " (VM emulada)" if vmv == "vm_emulada" else ""

    def ref(metric: str) -> float:
        sel = reference[reference["metric"] == metric]
        return float(sel["value"].iloc[0]) if len(sel) else float("nan")

    def add(concepto, figure, referencia, unidad, condicion):
        value, low, high = figure
        rows.append(
            {
                "concepto": concepto,
                "aquí": value,
                "ic_bajo": low,
                "ic_alto": high,
                "referencia": referencia,
                "unidad": unidad,
                "condicion": condicion,
            }
        )

    def paired(metric, num, den):
        return stats.ratio_ci(by_round(df, metric, num), by_round(df, metric, den)).triple

    def median(metric, variant):
        s = stats.summarize(arm_values(df, metric, variant))
        return s.median, s.ci_low, s.ci_high

    have = df is not None and not df.empty
    if have and vmv and (df["variant"] == "sistema").any():
        add(
            "arranque VM / contenedor de sistema" + suffix,
            paired(ARRANQUE, vmv, "sistema"),
            ref("arranque_vm_vs_sistema"),
            "x",
            "artículo: VM Ubuntu (Vagrant, KVM) frente a contenedor de sistema Ubuntu (Sysbox); aquí: microVM "
            "y contenedor con busybox init",
        )
        add(
            "memoria: VM / contenedor de sistema" + suffix,
            stats.ratio_ci(arm_values(df, PSS, vmv), arm_values(df, PSS, "sistema")).triple,
            ref("memoria_vm_vs_sistema"),
            "x",
            "artículo: RAM del host con 16 instancias corriendo «esta carga en particular» (2 GB frente a "
            "32 GB); aquí: PSS de una instancia en reposo, sin carga",
        )
    if have and vmv:
        add(
            "disco que añade cada VM" + suffix,
            median(DISCO, vmv),
            ref("disco_vm"),
            "MB",
            "artículo: VM Ubuntu completa (650 MB ≈ 620 MiB); aquí: microVM busybox sobre un overlay qcow2",
        )
        add(
            "memoria liberada que la VM retiene" + suffix,
            median(RETENIDA, vmv),
            ref("memoria_vm_retenida"),
            "%",
            "artículo: «nunca se libera» (lectura nuestra: 100 %); aquí: un bloque tocado y liberado",
        )
    if have and (df["variant"] == "sistema").any():
        base = gzip_baseline(df)
        add(
            f"gzip en contenedor de sistema / {kind_label(base)}",
            paired(GZIP, "sistema", base),
            ref("gzip_sistema_vs_bare"),
            "x",
            "artículo: «muy parecido» frente a un contenedor en el host, sin sobrecomprometer las CPU "
            "(lectura nuestra: 1×); aquí: "
            + (
                "GNU gzip"
                if ((meta or {}).get("gzip") or {}).get("tool") == "GNU gzip"
                else "gzip de busybox"
            ),
        )
    return pd.DataFrame(rows)


def by_round(df: pd.DataFrame, metric: str, variant: str) -> pd.Series:
    """One arm's values as a Series indexed by round (`rep`): arms of the same rounds pair by round."""
    sel = df[(df["metric"] == metric) & (df["variant"] == variant)]
    return pd.Series(sel["value"].astype(float).to_numpy(), index=sel["rep"].to_numpy())


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows, columns=CLOSING_COLUMNS)
    for variant in (v for v in VARIANT_ORDER if v not in (BASELINE[1], HOST_RUN)):
        values = arm_values(df, ARRANQUE, variant)
        if values.size and not stats.unstable(values):
            s = stats.summarize(values)
            rows.append(
                {
                    "concepto": f"arranque hasta «listo»: {kind_label(variant)}",
                    "tipo": "LAUNCH",
                    "entorno": kind_label(variant),
                    "valor": s.median,
                    "ic_bajo": s.ci_low,
                    "ic_alto": s.ci_high,
                    "unidad": "ms",
                }
            )
        values = arm_values(df, GZIP, variant)
        if values.size and not stats.unstable(values):
            value, low, high = gzip_ratio(df, variant).triple
            if not math.isnan(value):
                concepto = (
                    f"gzip: costo de emular la CPU ({kind_label(variant)}; no es el costo de una VM)"
                    if is_emulated(variant)
                    else f"gzip: {kind_label(variant)}"
                )
                rows.append(
                    {
                        "concepto": concepto,
                        "tipo": "RUNNING",
                        "entorno": kind_label(variant),
                        "valor": value,
                        "ic_bajo": low,
                        "ic_alto": high,
                        "unidad": "x bare metal",
                    }
                )
    return pd.DataFrame(rows, columns=CLOSING_COLUMNS)


# ---------------------------------------------------------------- density with overcommit (density.py)
def density_levels(df: pd.DataFrame, meta: dict | None = None) -> list[int]:
    """The N of the run's density rounds (the levels of its per-instance gzip rows)."""
    if df is None or df.empty:
        return []
    prefix = DENSIDAD_INSTANCIA + "_n"
    names = df["metric"][df["metric"].astype(str).str.startswith(prefix)].unique()
    return sorted(int(name[len(prefix) :]) for name in names)


def overcommit_of(meta: dict | None, n: int) -> float:
    """CPUs assigned ÷ cores with N instances, as the run recorded it (NaN when it did not)."""
    return float(((meta or {}).get("densidad") or {}).get("sobrecompromiso", {}).get(str(n), float("nan")))


def fit_level(df: pd.DataFrame, meta: dict | None = None) -> int:
    """The largest N that does not overcommit the CPUs (N·2 ≤ cores); 1 when the run did not say."""
    fits = [n for n in density_levels(df) if overcommit_of(meta, n) <= 1]
    return max(fits, default=1)


def top_level(df: pd.DataFrame, meta: dict | None = None) -> int:
    """The largest N of the density rounds (0 without them)."""
    return max(density_levels(df), default=0)


# ---------------------------------------------------------------- the run's own instances and conditions
# What the claims (claims.py) are judged on and when: functions of the run, fn(df, meta).
vm, sd_vm = vm_variant, partial(vm_variant, kind="vm_systemd")  # its VM (KVM's first), or None


def present(df: pd.DataFrame | None) -> set:
    return set(df["variant"]) if df is not None and not df.empty else set()


def first(*variants: str):
    """The first of `variants` the run measured, else the last."""
    return lambda df, meta=None: next((v for v in variants if v in present(df)), variants[-1])


container, lxd, app = first("sistema", "aplicacion"), first(LXD_COW, "sistema_lxd"), first("aplicacion")
dense_system = first(LXD_COW, "sistema_lxd", "sistema")  # the system container of the density phase


# Every touch-and-free of one kind: the memory phase's idle instances (INSTANCIAS, 1 by default) and the
# density phase's N at once (4 on 2 cores), the same block freed in the same kind of instance.
RETENTION = {"reposo": RETENIDA, "densidad": DENSIDAD_RETENIDA}


def retention(df: pd.DataFrame, variant: str | None) -> dict[str, list[float]]:
    """The % of its freed block the host still held, per instance of `variant`, by phase (RETENTION)."""
    return {phase: [float(v) for v in arm_values(df, metric, variant)] for phase, metric in RETENTION.items()}


def retained(df: pd.DataFrame, variant: str | None) -> list[float]:
    """Every touch-and-free of `variant`, the memory phase's first."""
    return [v for values in retention(df, variant).values() for v in values]


def freeing_container(df: pd.DataFrame, meta: dict | None = None) -> str:
    """The system container whose touch-and-free the container claim is judged on: the density phase's
    when it measured one (its N observations), else the busybox one (or the application container)."""
    dense = dense_system(df, meta)
    return dense if arm_values(df, DENSIDAD_RETENIDA, dense).size else container(df, meta)


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
    return lambda df, meta=None: (v := variant(df, meta)) is not None and is_emulated(v)


emulated_vm = lambda df, meta=None: vm(df) == "vm_emulada"
app_alone = lambda df, meta=None: has("aplicacion")(df) and not has("sistema")(df)


def shown(metric: str, num, den):
    """num / den of `metric` paired by round, [value, low, high]: a figure a view shows, not judged."""
    return lambda df, meta=None: list(
        stats.ratio_ci(by_round(df, metric, at(num, df)), by_round(df, metric, at(den, df))).triple
    )


# ---------------------------------------------------------------- what a claim's detail shows
def nested_run(df: pd.DataFrame, meta=None) -> dict:
    """Per engine, `run --rm` nested in LXD over the same engine on the host."""
    runs = df[df["metric"] == RUN_MOTOR].groupby(["engine", "variant"])["value"]
    arms, detail = {arm: values.astype(float).to_numpy() for arm, values in runs}, {}
    for engine in sorted(e for e, v in arms if v == HOST_RUN and (e, NESTED) in arms):
        figure = stats.ratio_ci(arms[(engine, NESTED)], arms[(engine, HOST_RUN)])
        detail[f"{engine}_anidado_x_host"] = [round(v, 3) for v in figure.triple]
    return detail


def disks(df: pd.DataFrame, meta=None) -> dict:
    """The median disk of each LXD instance and of the VM, MB."""
    arms = {
        "anidado_lxd_escrito_mb": (DISCO_ESCRITO, NESTED),
        "sistema_lxd_dir_mb": (DISCO, "sistema_lxd"),
        "sistema_lxd_cow_mb": (DISCO, LXD_COW),
        "vm_mb": (DISCO, vm(df)),
    }
    values = {key: arm_values(df, *arm) for key, arm in arms.items()}
    return {key: round(float(stats.summarize(v).median), 2) for key, v in values.items() if v.size}


def vm_disk(df: pd.DataFrame, meta=None) -> dict:
    values = arm_values(df, DISCO, vm(df))
    median = {"vm_mib": float(np.median(values))} if values.size else {}
    return {"tipo": vm(df), "emulada": is_emulated(vm(df)), **median}


def planned_top(df: pd.DataFrame, meta: dict | None = None) -> int:
    """The largest N the density phase set out to run (meta.json), else the largest its rows have."""
    planned = ((meta or {}).get("densidad") or {}).get("niveles") or []
    return max(planned, default=0) or top_level(df, meta)


def not_up(meta: dict | None) -> list[dict]:
    """The density phase's instances that did not come up (density.start_all), as meta.json keeps them."""
    return list(((meta or {}).get("densidad") or {}).get("no_arrancaron") or [])


def in_density(*variants, overcommitted: bool = False):
    """A condition: the density phase took part with every one of `variants` (its rounds measured it, or
    an instance of it did not come up) and, if `overcommitted`, its largest N assigned more CPUs than the
    machine has. Whether they were measured at that N is `at_top`'s («sin datos» when not)."""

    def check(df, meta=None) -> bool:
        top = planned_top(df, meta)
        if not top or (overcommitted and not overcommit_of(meta, top) > 1):
            return False
        prefix = DENSIDAD_INSTANCIA + "_n"
        dense = df[df["metric"].astype(str).str.startswith(prefix)] if not df.empty else df
        took_part = set(dense["variant"]) | {entry.get("tipo") for entry in not_up(meta)}
        return all(at(v, df, meta) in took_part for v in variants)

    return check


def at_top(*variants):
    """A condition: the density rounds measured every one of `variants` with the phase's largest N (an
    instance that did not come up leaves its kind without that level)."""

    def check(df, meta=None) -> bool:
        metric = level_metric(DENSIDAD_INSTANCIA, planned_top(df, meta))
        return all(arm_values(df, metric, at(v, df, meta)).size for v in variants)

    return check


def density(*variants, overcommitted: bool = False) -> dict:
    """A density claim's conditions: no claim without the phase (in_density), «sin datos» without the
    largest N of its kinds (at_top)."""
    return {"when": in_density(*variants, overcommitted=overcommitted), "needs": at_top(*variants)}


MEMORY_16X = 16.0  # the post's 16×: 2 GB for 16 system containers, 32 GB for 16 VMs


def held_per_instance(df: pd.DataFrame, meta=None) -> dict:
    """The host's memory per instance after touch-and-free with N at once: VM / system container, and that
    ratio over the post's 16× (2 GB for 16 system containers, 32 GB for 16 VMs)."""
    vm_mb = arm_values(df, DENSIDAD_DESPUES, vm(df))
    system_mb = arm_values(df, DENSIDAD_DESPUES, dense_system(df))
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
