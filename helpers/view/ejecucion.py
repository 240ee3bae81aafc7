"""What a person sees of experiment 3 (RUNNING): tables, seaborn plots and Spanish verdicts.

The view convention: `tabla`, `grafico`, `veredictos`, `comparacion`. Each takes a Resultado or None
(nothing measured yet: the Spanish notice), displays itself, returns None and never launches a container.
A second argument picks which one, where there is more than one:
- tabla(r) the times per workload; tabla(r, "exec") what `exec` costs; tabla(r, "sobrecarga") the overheads;
- grafico(r) every repetition; grafico(r, "sobrecarga") the overheads with their IC 95 %, one panel per
  workload so every interval shows on its own axis;
- veredictos(r) the claims; veredictos(r, "corrida") what this run says, from its own data.
Every number goes through view.common's formats; every concluding sentence comes from the data.
The names, the one format of its figures and the generated sentences live in view/ejecucion_frases.py.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .. import experiments, reference
from ..experiments import ejecucion as exp
from ..experiments import verdict as vd
from ..experiments.ejecucion.analysis import compare, exec_costs, explanation, overheads, summarize, tidy
from ..experiments.ejecucion.arms import (
    ENVIRONMENTS,
    EXEC_INSIDE,
    LAYER_BASE,
    METRIC_WORK,
    PLACES,
    TIMED_METRICS,
    WORKLOADS,
)
from ..experiments.runner import Resultado
from . import ejecucion_frases as frases
from .common import (
    AGREEMENT,
    claims_list,
    fmt,
    fmt_interval,
    fmt_pct,
    fmt_value,
    markdown,
    needs_result,
    overhead_words,
    show,
    significant,
    table,
    too_few_banner,
)
from .figuras import fit, legend_outside, show_figure
from .panel import Preset

READING_COLOR = {  # else gray: an IC that holds 0 %, or «casi igual»
    vd.INESTABLE: "tab:orange",
    vd.ABOVE: "tab:red",
    vd.BELOW: "tab:green",
    vd.ABOVE_NULL: "lightcoral",  # slower, without telling whether beyond «casi igual»
    vd.BELOW_NULL: "yellowgreen",
}


def _pick(which: str, options: dict):
    if which not in options:
        raise ValueError(f"Elige una de estas: {', '.join(repr(k) for k in options)} (recibí {which!r}).")
    return options[which]


# ---------------------------------------------------------------- tables
@needs_result
def tabla(resultado: Resultado, cual: str = "tiempos") -> None:
    """«tiempos»: medians per workload and environment, end to end and the work alone; «exec»: what
    `exec` costs; «sobrecarga»: the overhead against the fairest baseline with its IC 95 %."""
    _pick(cual, {"tiempos": _tabla_tiempos, "exec": _tabla_exec, "sobrecarga": _tabla_sobrecarga})(resultado)


def _tabla_tiempos(resultado: Resultado) -> None:
    s = summarize(resultado.df, resultado.meta)
    s = s[~s["carga"].isin([exp.EXEC_TRUE, EXEC_INSIDE])]
    rows = []
    for (carga, lugar, entorno), g in s.groupby(["carga", "lugar", "entorno"], sort=False):
        row = {"carga": frases.CARGA.get(carga, carga), "entorno": frases.nombre_entorno(entorno, lugar)}
        for metric, label in frases.METRICA.items():
            part = g[g["metric"] == metric]
            if len(part):
                r = part.iloc[0]
                digits = significant(r["mediana_s"])  # one rule for the median and its IQR
                row[f"{label}: mediana"] = fmt(r["mediana_s"], digits, "s")
                row[f"{label}: IQR"] = fmt_interval(r["q1_s"], r["q3_s"], digits, "s")
            else:
                row[f"{label}: mediana"] = row[f"{label}: IQR"] = "—"
        work = g[g["metric"] == METRIC_WORK]
        mbs = work["mb_por_s"].iloc[0] if len(work) else float("nan")
        row["MiB/s (trabajo)"] = fmt_value(mbs, "") if not math.isnan(mbs) else "—"
        shaky = work["inestable"].iloc[0] if len(work) else bool(g["inestable"].iloc[0])
        row["estabilidad"] = "inestable: repite" if shaky else "—"
        row["n"] = int((work if len(work) else g)["n"].iloc[0])
        rows.append(row)
    show(table(pd.DataFrame(rows), "Tiempos por carga y entorno (mediana; IQR con cuantiles tipo 7)"))


def _exec_medida(medida: str) -> str:
    if medida == exp.EXEC_TRUE:
        return "`exec … true` desde el host (en bare metal: `true`)"
    if medida == EXEC_INSIDE:
        return "un proceso nuevo, cronometrado dentro"
    carga, _, lugar = medida.partition(":")
    return f"{frases.nombre_carga(carga, lugar)}: extremo a extremo − trabajo"


def _tabla_exec(resultado: Resultado) -> None:
    costs = exec_costs(resultado.df)
    rows = [
        {
            "entorno": frases.ENTORNO_CORTO.get(r["entorno"], r["entorno"]),
            "medida": _exec_medida(r["medida"]),
            "mediana [IC 95 %]": frases.ms(r["mediana_ms"], r["ic_bajo_ms"], r["ic_alto_ms"]),
            "n": r["n"],
        }
        for _, r in costs.iterrows()
    ]
    show(table(pd.DataFrame(rows), "Lo que cuesta lanzar un proceso con exec (LAUNCH), en ms"))


def _tabla_sobrecarga(resultado: Resultado) -> None:
    o = frases.shown(overheads(resultado.df, METRIC_WORK))
    rows = [
        {
            "carga": frases.CARGA.get(r["carga"], r["carga"]),
            "entorno": frases.nombre_entorno(r["entorno"], r["lugar"]),
            "frente a": frases.BASE.get(r["base"], r["base"]),
            "sobrecarga [IC 95 %]": frases.pct(r["sobrecarga_pct"], r["ic_bajo_pct"], r["ic_alto_pct"]),
            "lectura del IC": overhead_words(r["direccion"], r["n"]),
            "cada brazo": frases.stability(r),
            "rondas": r["n"],
        }
        for _, r in o.iterrows()
    ]
    show(
        table(
            pd.DataFrame(rows),
            "Sobrecarga del trabajo solo (RUNNING), ronda a ronda frente a su línea base; IC 95 % de la "
            "mediana de las cifras por ronda",
        )
    )


# ---------------------------------------------------------------- plots


def _panel_grid(rows_per_panel: list[int], row_height: float, width: float):
    """A figure with one panel per workload, two per row, each row of panels as tall as its panel with the
    most rows (`row_height` inches a row): the panels in order, left to right."""
    ncols = min(2, len(rows_per_panel))
    nrows = math.ceil(len(rows_per_panel) / ncols)
    counts = [*rows_per_panel, 0]
    heights = [max(counts[i * ncols : (i + 1) * ncols]) * row_height + 0.8 for i in range(nrows)]
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(width * ncols, sum(heights) + 0.9),
        squeeze=False,
        gridspec_kw={"height_ratios": heights},
    )
    return fig, [ax for row in axes for ax in row]


@needs_result
def grafico(resultado: Resultado, cual: str = "repeticiones") -> None:
    """«repeticiones»: one panel per workload, every repetition, end to end next to the work alone;
    «sobrecarga»: the overhead of the work alone with its IC 95 %, one panel per workload."""
    draw = _pick(cual, {"repeticiones": _grafico_repeticiones, "sobrecarga": _grafico_sobrecarga})
    with sns.axes_style("whitegrid"):
        draw(resultado)


def _plot_frame(df: pd.DataFrame) -> pd.DataFrame:
    data = tidy(df)
    timed = data["metric"].isin(TIMED_METRICS)  # the memory rows (KB) are not times
    data = data[timed & ~data["carga"].isin([exp.EXEC_TRUE, EXEC_INSIDE])].copy()
    data["medida"] = data["metric"].map(frases.METRICA)
    data["entorno_es"] = [frases.nombre_entorno(e, lugar) for e, lugar in zip(data["entorno"], data["lugar"])]
    return data


def _environment_order(part: pd.DataFrame) -> list[str]:
    """The environments of one workload in one order for every panel: bare metal and its baselines first,
    then the chroot, Docker and Podman, each engine's layer before its volume (never the shuffled order
    of the rounds)."""
    rank = {name: i for i, name in enumerate(("", *PLACES))}
    pairs = part[["entorno", "lugar", "entorno_es"]].drop_duplicates()
    pairs = sorted(
        pairs.itertuples(index=False),
        key=lambda p: (
            ENVIRONMENTS.index(p.entorno) if p.entorno in ENVIRONMENTS else 99,
            rank.get(p.lugar, 99),
        ),
    )
    return [p.entorno_es for p in pairs]


def _grafico_repeticiones(resultado: Resultado) -> None:
    """One panel per workload, two per row, each environment a row with its name written level (so no
    label is turned and no row of panels takes the height of another's labels)."""
    data = _plot_frame(resultado.df)
    cargas = [c for c in WORKLOADS if c in set(data["carga"])]
    if not cargas:
        markdown("_Esta corrida no tiene cargas medidas._")
        return
    orders = {c: _environment_order(data[data["carga"] == c]) for c in cargas}
    fig, flat = _panel_grid([len(orders[c]) for c in cargas], 0.32, 7.0)
    handles, names = [], []
    for ax, carga in zip(flat, cargas):
        part = data[data["carga"] == carga]
        sns.stripplot(
            data=part,
            y="entorno_es",
            x="value",
            hue="medida",
            order=orders[carga],
            hue_order=list(frases.METRICA.values()),
            dodge=True,
            orient="h",
            ax=ax,
            size=5,
        )
        ax.set_title(frases.CARGA[carga], fontsize=12, loc="left")
        ax.set_ylabel("")
        ax.set_xlabel("tiempo (s)", fontsize=10)
        ax.set_xlim(left=0)
        ax.tick_params(axis="y", labelsize=9)
        ax.tick_params(axis="x", labelsize=9)
        if ax.get_legend():
            handles, names = ax.get_legend_handles_labels()
            ax.get_legend().remove()
    for ax in flat[len(cargas) :]:
        ax.set_visible(False)
    if handles:  # once, right of the first row: never over a point
        legend_outside(
            flat[min(2, len(cargas)) - 1], handles, names, title="medida", fontsize=10, title_fontsize=10
        )
    fig.suptitle(
        "Cada repetición: el comando completo frente al trabajo medido dentro del entorno", fontsize=13
    )
    fit(fig)
    show_figure(fig)


def _limits(part: pd.DataFrame) -> tuple[float, float]:
    """An x range that shows every interval of one panel and 0 %."""
    ends = part[["sobrecarga_pct", "ic_bajo_pct", "ic_alto_pct"]].to_numpy(dtype=float).ravel()
    ends = ends[np.isfinite(ends)]
    low, high = min(0.0, *ends) if ends.size else -1.0, max(0.0, *ends) if ends.size else 1.0
    pad = max(high - low, 1.0) * 0.08
    return low - pad, high + pad


PRESETS = [
    Preset(
        "Como el capítulo (hash de 100 MiB)",
        {"megas": 100},
        "El capítulo calculó el hash de 100 MiB (`dd bs=1M count=100`); por defecto el curso usa 50 MiB para "
        "caber en la clase. Con 100 MiB el trabajo dura el doble y el `exec`, que es LAUNCH, pesa la mitad en "
        "el tiempo de extremo a extremo.",
    )
]


BASE_CORTA = {
    "bare": "binarios del host",
    "chroot": "chroot",
    "host": "bare metal junto al volumen",
    LAYER_BASE: "bare metal junto a la capa",
}


def _grafico_sobrecarga(resultado: Resultado) -> None:
    """One panel per workload, two per row (so the figure fits a screen), each on its own scale."""
    keep = frases.shown(overheads(resultado.df, METRIC_WORK))
    if keep.empty:
        markdown("_Esta corrida no tiene sobrecargas que dibujar (falta bare metal o un motor)._")
        return
    cargas = [c for c in WORKLOADS if c in set(keep["carga"])]
    fig, flat = _panel_grid([len(keep[keep["carga"] == c]) for c in cargas], 0.38, 6.6)
    for ax, carga in zip(flat, cargas):
        part = keep[keep["carga"] == carga]
        labels = [
            f"{frases.nombre_entorno(e, lugar)}\nfrente a {BASE_CORTA[b]}"
            for e, lugar, b in zip(part["entorno"], part["lugar"], part["base"])
        ]
        y = list(range(len(part)))[::-1]
        for yi, (_, r) in zip(y, part.iterrows()):
            has_ci = np.isfinite(r["ic_bajo_pct"]) and np.isfinite(r["ic_alto_pct"])
            ax.errorbar(
                [r["sobrecarga_pct"]],
                [yi],
                xerr=[[r["sobrecarga_pct"] - r["ic_bajo_pct"]], [r["ic_alto_pct"] - r["sobrecarga_pct"]]]
                if has_ci
                else None,
                fmt="o",
                mfc="white" if (r["inestable_entorno"] or r["inestable_base"]) else None,
                color=READING_COLOR.get(r["direccion"], "tab:gray"),
                capsize=3,
            )
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlim(*_limits(part))
        ax.set_yticks(y, labels, fontsize=9)
        ax.set_ylim(-0.6, len(part) - 0.4)
        ax.set_title(frases.CARGA[carga], fontsize=12, loc="left")
        ax.set_xlabel("sobrecarga (%)", fontsize=10)
        ax.tick_params(axis="x", labelsize=9)
    for ax in flat[len(cargas) :]:
        ax.set_visible(False)
    fig.suptitle(
        "Sobrecarga del trabajo solo (RUNNING) frente a su línea base: mediana por ronda e IC 95 %, cada "
        "carga en su escala\ngris: IC con 0 % o «casi igual»; rojo: más lento; verde: más rápido; rojo claro y "
        "verde claro: ese lado, sin saber si fuera de «casi igual»; naranja: cifra inestable; hueco: un brazo "
        "inestable",
        fontsize=12,
    )
    fit(fig)
    show_figure(fig)


# ---------------------------------------------------------------- verdicts
@needs_result
def veredictos(resultado: Resultado, cual: str = "capitulo") -> None:
    """«capitulo»: the claims, each judged by the one rule (common.claims_list), and why hash and sort
    come out as they do; «corrida»: what this run says, generated from its own data."""
    _pick(cual, {"capitulo": _veredictos_capitulo, "corrida": _veredictos_corrida})(resultado)


def _veredictos_capitulo(resultado: Resultado) -> None:
    claims = experiments.judged(resultado)
    markdown(
        "**Veredictos** (IC 95 %; se confirma si todo el IC cae dentro del margen, no se sostiene si cae "
        f"entero fuera de él; sin veredicto por debajo de {vd.MIN_N} repeticiones):"
    )
    markdown(too_few_banner(max((c.n for c in claims), default=0)))
    claims_list(claims)
    markdown(frases.frase_explicacion(explanation(resultado.df)))


def _veredictos_corrida(resultado: Resultado) -> None:
    markdown(frases.frase_corrida(resultado))


# ---------------------------------------------------------------- the chapter's figures
@needs_result
def comparacion(resultado: Resultado) -> None:
    """The original chapter's hash and sort next to this run, and one sentence on what agrees (this
    run's overhead measured the chapter's way against the chapter's, judged like a claim)."""
    cmp = compare(resultado.df, resultado.meta, reference.load(exp.EXPERIMENT))
    rows = []
    for _, r in cmp.iterrows():
        bare = r["entorno"] == "bare"
        rows.append(
            {
                "carga": frases.CARGA[r["carga"]],
                "entorno": frases.ENTORNO_CORTO[r["entorno"]],
                # seconds with three decimals, as the chapter's tables write them
                "capítulo: mediana": fmt_value(r["ref_mediana_s"], "s", 3),
                "tú: extremo a extremo": fmt_value(r["tu_mediana_e2e_s"], "s", 3),
                "tú: trabajo solo": fmt_value(r["tu_mediana_trabajo_s"], "s", 3),
                "capítulo: sobrecarga": "—" if bare else fmt_pct(r["ref_sobrecarga_pct"], 1),
                "tú: sobrecarga como el capítulo": "—"
                if bare
                else frases.pct(r["tu_sobrecarga_e2e_pct"], *r["tu_sobrecarga_e2e_ic"]),
                "¿coinciden?": "—" if bare else AGREEMENT.get(r["acuerdo"], r["acuerdo"]),
            }
        )
    show(
        table(
            pd.DataFrame(rows),
            "El capítulo original (Docker 28.4, Podman 4.6.2, Linux 6.12; su sobrecarga, recalculada de sus "
            "cinco repeticiones) frente a esta máquina; «coincide» si tu sobrecarga queda a ±5 puntos de la "
            "suya, con todo su IC",
        )
    )
    markdown(frases.frase_comparacion(cmp))
