"""What a person sees of experiment 3 (RUNNING): tables, seaborn plots and Spanish verdicts.

The view convention: `tabla`, `grafico`, `veredictos`, `comparacion`. Each takes a Resultado or None
(nothing measured yet: the Spanish notice), displays itself, returns None and never launches a container.
A second argument picks which one, where there is more than one:
- tabla(r) the times per workload; tabla(r, "exec") what `exec` costs; tabla(r, "sobrecarga") the overheads;
- grafico(r) every repetition; grafico(r, "sobrecarga") the overheads with their IC 95 %;
- veredictos(r) the chapter's claims; veredictos(r, "corrida") what this run says, from its own data.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from .. import reference
from ..experiments import ejecucion as exp
from ..experiments.runner import Resultado
from .common import (
    ENGINE_LABEL,
    claims_list,
    fmt,
    fmt_interval,
    fmt_value_interval,
    markdown,
    needs_result,
    show,
    table,
)

ENTORNO = {
    "bare": "bare metal (binarios del host)",
    "chroot": "bare metal (chroot, binarios de la imagen)",
    "docker": "Docker",
    "podman": "Podman",
}
ENTORNO_CORTO = {"bare": "bare metal", "chroot": "chroot", "docker": "Docker", "podman": "Podman"}
CARGA = exp.WORKLOAD_NAMES
LUGAR = exp.PLACE_NAMES
LUGAR_CORTO = {"capa": "capa overlay", "volumen": "volumen", "host": "disco host"}
METRICA = {exp.METRIC_E2E: "extremo a extremo", exp.METRIC_WORK: "trabajo solo"}
BASE = {"bare": "binarios del host", "chroot": "chroot (misma imagen)", "host": "disco del host"}
READING_COLOR = {
    exp.analysis.UNSTABLE: "tab:orange",
    exp.analysis.NOISE: "tab:gray",
    "más lento": "tab:red",
    "más rápido": "tab:green",
}
AGREEMENT = {"coincide": "coincide", "no_coincide": "no coincide", "sin_datos": "—"}


def _nombre(carga: str, lugar: str = "") -> str:
    return CARGA.get(carga, carga) + (f" — {LUGAR.get(lugar, lugar)}" if lugar else "")


def _pct(value: float, low: float, high: float) -> str:
    """An overhead with its interval: «+7.6 % [+1.0, +12.0]» (view.common's number format)."""
    return fmt_value_interval(value, low, high, "%")


def _pick(which: str, options: dict):
    if which not in options:
        raise ValueError(f"Elige una de estas: {', '.join(repr(k) for k in options)} (recibí {which!r}).")
    return options[which]


def _fair(o: pd.DataFrame) -> pd.DataFrame:
    """The overheads worth reading: each workload in a container against the fairest baseline (the
    same image under chroot when it was measured), writes against the host's disk, and the chroot
    against the host's binaries (the userland alone)."""
    with_chroot = set(o.loc[o["base"] == "chroot", "carga"])
    keep = [
        b in ("host", "chroot") or (b == "bare" and (c not in with_chroot or e == "chroot"))
        for c, b, e in zip(o["carga"], o["base"], o["entorno"])
    ]
    return o[keep]


# ---------------------------------------------------------------- tables
@needs_result
def tabla(resultado: Resultado, cual: str = "tiempos") -> None:
    """«tiempos»: medians per workload and environment, end to end and the work alone; «exec»: what
    entering a container costs; «sobrecarga»: the overhead against bare metal with its IC 95 %."""
    _pick(cual, {"tiempos": _tabla_tiempos, "exec": _tabla_exec, "sobrecarga": _tabla_sobrecarga})(resultado)


def _tabla_tiempos(resultado: Resultado) -> None:
    s = exp.summarize(resultado.df, resultado.meta)
    s = s[s["carga"] != exp.EXEC_TRUE]
    rows = []
    for (carga, lugar, entorno), g in s.groupby(["carga", "lugar", "entorno"], sort=False):
        e2e = g[g["metric"] == exp.METRIC_E2E]
        work = g[g["metric"] == exp.METRIC_WORK]
        row = {"carga": _nombre(carga, lugar), "entorno": ENTORNO.get(entorno, entorno)}
        for label, part in (("extremo a extremo", e2e), ("trabajo solo", work)):
            if len(part):
                r = part.iloc[0]
                row[f"{label}: mediana (s)"] = fmt(r["mediana_s"], 3)
                row[f"{label}: IQR (s)"] = fmt_interval(r["q1_s"], r["q3_s"], 3)
            else:
                row[f"{label}: mediana (s)"] = row[f"{label}: IQR (s)"] = "—"
        mbs = work["mb_por_s"].iloc[0] if len(work) else float("nan")
        row["MB/s (trabajo)"] = fmt(mbs, 0)
        row["n"] = int(work["n"].iloc[0]) if len(work) else int(e2e["n"].iloc[0])
        rows.append(row)
    show(table(pd.DataFrame(rows), "Tiempos por carga y entorno (mediana, IQR con cuantiles tipo 7)"))


def _tabla_exec(resultado: Resultado) -> None:
    costs = exp.exec_costs(resultado.df)
    rows = [
        {
            "entorno": ENTORNO_CORTO.get(r["entorno"], r["entorno"]),
            "medida": "exec true (extremo a extremo)"
            if r["medida"] == exp.EXEC_TRUE
            else f"{_nombre(*(r['medida'].split(':') + [''])[:2])}: extremo a extremo − trabajo",
            "mediana (ms)": fmt(r["mediana_ms"], 2),
            "IC 95 % (ms)": fmt_interval(r["ic_bajo_ms"], r["ic_alto_ms"], 2),
            "n": r["n"],
        }
        for _, r in costs.iterrows()
    ]
    show(
        table(pd.DataFrame(rows), "Costo de entrar al contenedor con exec (en bare metal: crear un proceso)")
    )


def _tabla_sobrecarga(resultado: Resultado) -> None:
    o = exp.overheads(resultado.df, exp.METRIC_WORK)
    rows = [
        {
            "carga": _nombre(r["carga"], r["lugar"]),
            "entorno": ENTORNO_CORTO.get(r["entorno"], r["entorno"]),
            "frente a": BASE.get(r["base"], r["base"]),
            "sobrecarga [IC 95 %]": _pct(r["sobrecarga_pct"], r["ic_bajo_pct"], r["ic_alto_pct"]),
            "lectura del IC": r["lectura"],
        }
        for _, r in o.iterrows()
    ]
    show(
        table(
            pd.DataFrame(rows),
            f"Sobrecarga ({METRICA[exp.METRIC_WORK]}) frente a bare metal; IC 95 % por bootstrap",
        )
    )


# ---------------------------------------------------------------- plots
@needs_result
def grafico(resultado: Resultado, cual: str = "repeticiones") -> None:
    """«repeticiones»: one panel per workload, every repetition, end to end next to the work alone;
    «sobrecarga»: the overhead of the work alone, with its IC 95 %, against the fairest baseline."""
    draw = _pick(cual, {"repeticiones": _grafico_repeticiones, "sobrecarga": _grafico_sobrecarga})
    with sns.axes_style("whitegrid"):
        draw(resultado)


def _plot_frame(df: pd.DataFrame) -> pd.DataFrame:
    data = exp.tidy(df)
    data = data[data["carga"] != exp.EXEC_TRUE].copy()
    data["medida"] = data["metric"].map(METRICA)
    data["entorno_es"] = [
        ENTORNO_CORTO.get(e, e) + (f"\n{LUGAR_CORTO[lugar]}" if lugar else "")
        for e, lugar in zip(data["entorno"], data["lugar"])
    ]
    return data


def _grafico_repeticiones(resultado: Resultado) -> None:
    data = _plot_frame(resultado.df)
    cargas = [c for c in exp.WORKLOADS if c in set(data["carga"])]
    if not cargas:
        markdown("_Esta corrida no tiene cargas medidas._")
        return
    # Two panels per row at most: readable on a projector (no long strip of tiny panels).
    ncols = min(2, len(cargas))
    nrows = math.ceil(len(cargas) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 4.6 * nrows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, carga in zip(flat, cargas):
        part = data[data["carga"] == carga]
        sns.stripplot(
            data=part,
            x="entorno_es",
            y="value",
            hue="medida",
            dodge=True,
            ax=ax,
            size=6,
            hue_order=list(METRICA.values()),
        )
        ax.set_title(CARGA[carga], fontsize=14)
        ax.set_xlabel("")
        ax.set_ylabel("tiempo (s)", fontsize=12)
        ax.set_ylim(bottom=0)
        ax.tick_params(axis="both", labelsize=11)
        if ax is not flat[0] and ax.get_legend():
            ax.get_legend().remove()
    for ax in flat[len(cargas) :]:
        ax.set_visible(False)
    if flat[0].get_legend():
        flat[0].legend(title="medida", fontsize=11, title_fontsize=11)
    fig.suptitle(
        "Cada repetición: el comando completo frente al trabajo medido dentro del entorno", fontsize=14
    )
    fig.tight_layout()
    plt.show()


def _grafico_sobrecarga(resultado: Resultado) -> None:
    keep = _fair(exp.overheads(resultado.df, exp.METRIC_WORK))
    if keep.empty:
        markdown("_Esta corrida no tiene sobrecargas que dibujar (falta bare metal o un motor)._")
        return
    labels = [
        f"{_nombre(c, lugar)}\n{ENTORNO_CORTO[e]} frente a {BASE[b]}"
        for c, lugar, e, b in zip(keep["carga"], keep["lugar"], keep["entorno"], keep["base"])
    ]
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(keep) + 1.8))
    y = list(range(len(keep)))[::-1]
    for yi, (_, r) in zip(y, keep.iterrows()):
        ax.errorbar(
            [r["sobrecarga_pct"]],
            [yi],
            xerr=[[r["sobrecarga_pct"] - r["ic_bajo_pct"]], [r["ic_alto_pct"] - r["sobrecarga_pct"]]],
            fmt="o",
            color=READING_COLOR.get(r["lectura"], "tab:gray"),
            capsize=3,
        )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, labels, fontsize=11)
    ax.tick_params(axis="x", labelsize=11)
    ax.set_xlabel(
        "sobrecarga del trabajo solo (%) con IC 95 %\n(gris: el IC contiene 0 %; naranja: "
        "medición inestable)",
        fontsize=12,
    )
    ax.set_title("Sobrecarga de ejecución (RUNNING) frente a bare metal", fontsize=14)
    fig.tight_layout()
    plt.show()


# ---------------------------------------------------------------- verdicts
@needs_result
def veredictos(resultado: Resultado, cual: str = "capitulo") -> None:
    """«capitulo»: the chapter's claims, each judged by the one rule (common.claims_list); «corrida»:
    what this run says, generated from its overheads and its cost of exec (never written before)."""
    _pick(cual, {"capitulo": _veredictos_capitulo, "corrida": _lo_que_dice_la_corrida})(resultado)


def _veredictos_capitulo(resultado: Resultado) -> None:
    markdown(
        "**Veredictos sobre las afirmaciones del capítulo original** (IC 95 % por bootstrap; se confirma "
        "si todo el IC cae dentro del margen, no se sostiene si deja fuera lo afirmado):"
    )
    claims_list(exp.claims(resultado.df, resultado.meta))


def _lo_que_dice_la_corrida(resultado: Resultado) -> None:
    """Where the container shows, among stable overheads against the fairest baseline whose IC
    excludes 0 %; what was too unstable to say; and what exec cost."""
    fair = _fair(exp.overheads(resultado.df, exp.METRIC_WORK))
    fair = fair[fair["entorno"].isin(ENGINE_LABEL) & (fair["entorno"] != "bare")]
    shaky = fair[fair["inestable"].astype(bool)]
    real = fair[fair["lectura"].isin(["más lento", "más rápido"])]
    parts = []
    if real.empty:
        parts.append(
            "Con estas repeticiones, en ninguna carga se distingue el trabajo dentro de un contenedor del "
            "mismo trabajo en bare metal: cada IC 95 % de la sobrecarga contiene el 0 %."
        )
    else:
        top = real.loc[real["sobrecarga_pct"].abs().idxmax()]
        parts.append(
            f"Donde más se nota el contenedor en esta corrida es en {_nombre(top['carga'], top['lugar'])} "
            f"con {ENGINE_LABEL[top['entorno']]}: "
            f"{_pct(top['sobrecarga_pct'], top['ic_bajo_pct'], top['ic_alto_pct'])} frente a {BASE[top['base']]}."
        )
        rest = sorted(
            {_nombre(c, lugar) for c, lugar in zip(real["carga"], real["lugar"])}
            - {_nombre(top["carga"], top["lugar"])}
        )
        if rest:
            parts.append(f"También se distingue en: {', '.join(rest)}.")
    if not shaky.empty:
        names = sorted(
            {
                f"{_nombre(c, lugar)} ({ENGINE_LABEL[e]})"
                for c, lugar, e in zip(shaky["carga"], shaky["lugar"], shaky["entorno"])
            }
        )
        parts.append(f"Quedan fuera por inestables (repite): {', '.join(names)}.")
    costs = exp.exec_costs(resultado.df)
    execs = costs[(costs["medida"] == exp.EXEC_TRUE) & costs["entorno"].isin(["docker", "podman"])]
    if not execs.empty:
        parts.append(
            "Entrar con `exec` costó "
            + " y ".join(
                f"{fmt(r['mediana_ms'], 0, 'ms')} en {ENGINE_LABEL[r['entorno']]}"
                for _, r in execs.iterrows()
            )
            + ": es un costo de arranque, no de ejecución."
        )
    markdown(" ".join(parts))


# ---------------------------------------------------------------- the chapter's figures
@needs_result
def comparacion(resultado: Resultado) -> None:
    """The original chapter's hash and sort next to this run, and one sentence on what agrees
    (overlapping intervals of the overhead measured the chapter's way)."""
    cmp = exp.compare(resultado.df, resultado.meta, reference.load(exp.EXPERIMENT))
    rows = []
    for _, r in cmp.iterrows():
        bare = r["entorno"] == "bare"
        rows.append(
            {
                "carga": CARGA[r["carga"]],
                "entorno": ENTORNO_CORTO[r["entorno"]],
                "capítulo: mediana (s)": fmt(r["ref_mediana_s"], 3),
                "tú: extremo a extremo (s)": fmt(r["tu_mediana_e2e_s"], 3),
                "tú: trabajo solo (s)": fmt(r["tu_mediana_trabajo_s"], 3),
                "capítulo: sobrecarga": "—"
                if bare
                else _pct(r["ref_sobrecarga_pct"], *r["ref_sobrecarga_ic"]),
                "tú: sobrecarga como el capítulo": "—"
                if bare
                else _pct(r["tu_sobrecarga_e2e_pct"], *r["tu_sobrecarga_e2e_ic"]),
                "¿coinciden?": "—" if bare else AGREEMENT.get(r["acuerdo"], "—"),
                "tú: trabajo solo frente a chroot": "—"
                if bare
                else _pct(r["tu_sobrecarga_trabajo_chroot_pct"], *r["tu_sobrecarga_trabajo_chroot_ic"]),
            }
        )
    show(
        table(
            pd.DataFrame(rows),
            "El capítulo original (Docker 28.4, Podman 4.6.2, Linux 6.12) frente a esta "
            "máquina; «coincide» si los dos IC 95 % de la sobrecarga se solapan",
        )
    )
    markdown(_frase_comparacion(cmp))


def _frase_comparacion(cmp: pd.DataFrame) -> str:
    """One Spanish sentence: where this run's overhead (measured the chapter's way) agrees with the
    chapter's, by overlapping intervals, and where not."""
    agree, differ = [], []
    for _, r in cmp[cmp["entorno"] != "bare"].iterrows():
        if r["acuerdo"] == "sin_datos":
            continue
        name = (
            f"{r['carga']} en {ENTORNO_CORTO[r['entorno']]} "
            f"({_pct(r['tu_sobrecarga_e2e_pct'], *r['tu_sobrecarga_e2e_ic'])} "
            f"frente a {_pct(r['ref_sobrecarga_pct'], *r['ref_sobrecarga_ic'])})"
        )
        (agree if r["acuerdo"] == "coincide" else differ).append(name)
    parts = []
    if agree:
        parts.append(f"coincide con el capítulo en {'; '.join(agree)}")
    if differ:
        parts.append(f"no coincide en {'; '.join(differ)}")
    if not parts:
        return "No hay filas comparables con el capítulo original en esta corrida."
    return (
        "Medida como la midió el capítulo (exec extremo a extremo frente a los binarios del host), la "
        "sobrecarga de esta máquina " + "; ".join(parts) + ". Los tiempos absolutos no se comparan: son de "
        "otra máquina."
    )
