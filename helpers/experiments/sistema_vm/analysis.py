"""Experiment 8's analysis: summaries, ratios, the comparison with the post's figures, closing rows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import stats
from ..contract import CLOSING_COLUMNS
from .kinds import (
    ARRANQUE,
    BASELINE,
    DENSIDAD_INSTANCIA,
    DISCO,
    GZIP,
    HOST_RUN,
    PSS,
    RETENIDA,
    VARIANT_ORDER,
    is_emulated,
    kind_label,
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
    present = set(df["variant"]) if df is not None and not df.empty else set()
    return next((v for v in (variant_of(kind, "kvm"), variant_of(kind, "tcg")) if v in present), None)


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
