"""The plots of notebook 05's view (helpers/view/llamadas.py, `grafico(resultado, que)`): each draws one
figure of a run and shows it; a run without the arms a plot needs gets a Spanish line instead."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..experiments import llamadas as exp
from ..experiments.llamadas.analysis import decomposition, nesting, summarize
from ..experiments.llamadas.claims import SEED_DIFFERENCE_NS
from ..experiments.llamadas.probe import OPERATIONS
from ..experiments.runner import Resultado
from .common import fmt, markdown, significant
from .figuras import show_figure

COLOR = {"bare": "tab:gray", "docker": "tab:blue", "podman": "tab:purple"}
OPERACION_CORTA = {
    "getpid": "getpid",
    "clock_gettime": "clock_gettime (vDSO)",
    "read": "read 1 byte",
    "open_close": "open+close",
    "stat": "stat",
}


def ns(value: float) -> str:
    return fmt(value, significant(value), "ns")


def _errorbars(ax, y, med, lo, hi, colors):
    for yi, m, a, b, c in zip(y, med, lo, hi, colors):
        ax.plot([a, b], [yi, yi], color=c, lw=3, alpha=0.5, solid_capstyle="butt")
        ax.plot([m], [yi], "o", color=c, ms=8)


def capas(resultado: Resultado, operacion: str) -> None:
    """host → PID namespace → container without seccomp → with seccomp → gVisor: median (dot) and IC 95 %
    (bar) per step; logarithmic axis when gVisor is in the picture."""
    d = decomposition(resultado.df, operacion).drop_duplicates(subset=["engine", "variant"])
    if d.empty:
        markdown("_No hay brazos que dibujar._")
        return
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(d) + 1.8))
    y = list(range(len(d)))[::-1]
    _errorbars(ax, y, d["mediana_ns"], d["ic_bajo_ns"], d["ic_alto_ns"], [COLOR[e] for e in d["engine"]])
    for yi, m in zip(y, d["mediana_ns"]):
        ax.annotate(ns(m), (m, yi), textcoords="offset points", xytext=(8, 6), fontsize=11)
    ax.set_yticks(y)
    ax.set_yticklabels(d["brazo"], fontsize=12)
    if d["mediana_ns"].max() / max(d["mediana_ns"].min(), 1e-9) > 20:
        ax.set_xscale("log")
        ax.set_xlabel(f"ns por llamada a {operacion} (escala logarítmica)", fontsize=12)
    else:
        ax.set_xlabel(f"ns por llamada a {operacion}", fontsize=12)
        ax.set_xlim(left=0)
    title = "De arriba abajo se añade una capa de aislamiento\n(punto: mediana; barra: IC 95 %"
    title += "; gVisor con reloj de pared)" if "pared" in set(d["reloj"]) else ")"
    ax.set_title(title, fontsize=13)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    show_figure(fig)


def operaciones(resultado: Resultado, operacion: str) -> None:
    """× host for each operation and arm: which calls pay for isolation and which do not (the vDSO)."""
    s = summarize(resultado.df, resultado.meta)
    s = s[~((s["engine"] == exp.BASELINE[0]) & (s["variant"] == exp.BASELINE[1]))].dropna(subset=["x_host"])
    if s.empty:
        markdown("_Hace falta el brazo «host» y al menos otro brazo para este gráfico._")
        return
    ops = [o for o in OPERATIONS if o in set(s["operacion"])]
    arms = list(dict.fromkeys(s["brazo"]))
    fig, ax = plt.subplots(figsize=(11, 0.5 * len(arms) + 2.5))
    offsets = np.linspace(-0.3, 0.3, len(ops)) if len(ops) > 1 else [0.0]
    markers = ["o", "s", "D", "^", "v"]
    for k, op in enumerate(ops):
        sub = s[s["operacion"] == op].set_index("brazo").reindex(arms)
        ax.errorbar(
            sub["x_host"],
            np.arange(len(arms))[::-1] + offsets[k],
            xerr=[sub["x_host"] - sub["x_host_ic_bajo"], sub["x_host_ic_alto"] - sub["x_host"]],
            fmt=markers[k % len(markers)],
            ms=7,
            capsize=3,
            label=OPERACION_CORTA.get(op, op),
        )
    ax.axvline(1, color="black", lw=1)
    ax.set_yticks(np.arange(len(arms))[::-1])
    ax.set_yticklabels(arms, fontsize=12)
    if s["x_host_ic_alto"].max() > 5:
        ax.set_xscale("log")
        ax.set_xlabel("× host (escala logarítmica; 1 = igual que el host)", fontsize=12)
    else:
        ax.set_xlabel("× host (1 = igual que el host)", fontsize=12)
    ax.set_title("Cuánto más cuesta cada llamada que en el host (mediana e IC 95 %)", fontsize=13)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=11)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    show_figure(fig)


def anidamiento(resultado: Resultado, operacion: str) -> None:
    """ns per call against the depth of nested PID namespaces, next to a hypothesis: each level costing
    what the document measured between its container and its host (it gives no figure per level)."""
    n = nesting(resultado.df, operacion)
    if len(n) < 2:
        markdown("_Esta corrida no midió namespaces PID anidados (brazos «pid» y «anidado»)._")
        return
    fig, ax = plt.subplots(figsize=(9, 5))
    ax.errorbar(
        n["profundidad"],
        n["mediana_ns"],
        yerr=[n["mediana_ns"] - n["ic_bajo_ns"], n["ic_alto_ns"] - n["mediana_ns"]],
        fmt="o-",
        ms=8,
        capsize=4,
        color="tab:gray",
        label="medido (mediana e IC 95 %)",
    )
    base = float(n.loc[n["profundidad"] == n["profundidad"].min(), "mediana_ns"].iloc[0])
    depths = np.array([n["profundidad"].min(), n["profundidad"].max()])
    per_level = SEED_DIFFERENCE_NS
    ax.plot(
        depths,
        base + per_level * (depths - depths[0]),
        "--",
        color="tab:red",
        label=f"hipótesis: cada nivel costara {fmt(per_level, 1)} ns\n(contenedor − host en la corrida del documento)",
    )
    ax.set_xticks(list(n["profundidad"]))
    ax.set_xlabel("niveles de namespaces PID por encima del host (0 = el host)", fontsize=12)
    ax.set_ylabel(f"ns por llamada a {operacion} (CPU del hilo)", fontsize=12)
    ax.set_ylim(bottom=0)
    ax.set_title("¿Cada nivel de anidamiento añade costo?", fontsize=13)
    ax.legend(fontsize=11)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    show_figure(fig)
