"""What a person sees of experiment 3 (RUNNING): tables, seaborn plots and Spanish verdicts.

Every function takes a Resultado or None (nothing measured yet: the Spanish notice), displays itself and
never launches a container.
"""

from __future__ import annotations

import math

import pandas as pd

from .. import reference
from ..experiments import ejecucion as exp
from ..experiments.base import Resultado
from .common import (
    ENGINE_LABEL,
    fmt,
    fmt_interval,
    fmt_pct,
    markdown,
    needs_result,
    num,
    show,
    table,
    verdict_words,
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


def _nombre(carga: str, lugar: str = "") -> str:
    return CARGA.get(carga, carga) + (f" — {LUGAR.get(lugar, lugar)}" if lugar else "")


def _signed(value: float) -> str:
    return fmt_pct(value).replace(" %", "")


def _pct(value: float, low: float, high: float) -> str:
    """An overhead with its interval: «+7.6 % [+1.0, +12.0]» (view.common's number format)."""
    if value is None or math.isnan(value):
        return "—"
    if any(v is None or math.isnan(v) for v in (low, high)):
        return fmt_pct(value)
    return f"{fmt_pct(value)} [{_signed(low)}, {_signed(high)}]"


# ---------------------------------------------------------------- tables
@needs_result
def tabla(resultado: Resultado):
    """Medians per workload and environment: end to end and the work alone."""
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


@needs_result
def tabla_exec(resultado: Resultado):
    """What `exec` costs per engine: `exec true`, and end to end minus the work, per workload."""
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


@needs_result
def tabla_sobrecarga(resultado: Resultado, metrica: str = exp.METRIC_WORK) -> None:
    """Overhead % against bare metal, with IC 95 % and a verdict per row."""
    o = exp.overheads(resultado.df, metrica)
    rows = [
        {
            "carga": _nombre(r["carga"], r["lugar"]),
            "entorno": ENTORNO_CORTO.get(r["entorno"], r["entorno"]),
            "frente a": BASE.get(r["base"], r["base"]),
            "sobrecarga [IC 95 %]": _pct(r["sobrecarga_pct"], r["ic_bajo_pct"], r["ic_alto_pct"]),
            "veredicto": r["veredicto"],
        }
        for _, r in o.iterrows()
    ]
    show(
        table(
            pd.DataFrame(rows), f"Sobrecarga ({METRICA[metrica]}) frente a bare metal; IC 95 % por bootstrap"
        )
    )


# ---------------------------------------------------------------- plots
def _plot_frame(df: pd.DataFrame) -> pd.DataFrame:
    data = exp.tidy(df)
    data = data[data["carga"] != exp.EXEC_TRUE].copy()
    data["medida"] = data["metric"].map(METRICA)
    data["entorno_es"] = [
        ENTORNO_CORTO.get(e, e) + (f"\n{LUGAR_CORTO[lugar]}" if lugar else "")
        for e, lugar in zip(data["entorno"], data["lugar"])
    ]
    return data


@needs_result
def grafico(resultado: Resultado):
    """One panel per workload: every repetition, end to end next to the work alone."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    data = _plot_frame(resultado.df)
    cargas = [c for c in exp.WORKLOADS if c in set(data["carga"])]
    if not cargas:
        return None
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


@needs_result
def grafico_sobrecarga(resultado: Resultado):
    """Overhead % of the work alone, with its IC 95 %, against the fairest baseline of each workload."""
    import matplotlib.pyplot as plt

    o = exp.overheads(resultado.df, exp.METRIC_WORK)
    with_chroot = set(o.loc[o["base"] == "chroot", "carga"])
    keep = o[
        [
            (b == "host")
            or (b == "chroot")
            or (b == "bare" and c not in with_chroot)
            or (b == "bare" and e == "chroot")
            for c, b, e in zip(o["carga"], o["base"], o["entorno"])
        ]
    ]
    if keep.empty:
        return
    labels = [
        f"{_nombre(c, lugar)}\n{ENTORNO_CORTO[e]} frente a {BASE[b]}"
        for c, lugar, e, b in zip(keep["carga"], keep["lugar"], keep["entorno"], keep["base"])
    ]
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(keep) + 1.8))
    y = list(range(len(keep)))[::-1]
    colors = [
        "tab:orange"
        if v == exp.analysis.UNSTABLE
        else "tab:gray"
        if v == "indistinguible del ruido"
        else "tab:red"
        if v == "más lento"
        else "tab:green"
        for v in keep["veredicto"]
    ]
    for yi, color, (_, r) in zip(y, colors, keep.iterrows()):
        ax.errorbar(
            [r["sobrecarga_pct"]],
            [yi],
            xerr=[[r["sobrecarga_pct"] - r["ic_bajo_pct"]], [r["ic_alto_pct"] - r["sobrecarga_pct"]]],
            fmt="o",
            color=color,
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
def _margin(c) -> str:
    low, high = c.region
    return (
        f"de {_signed(low)} a {_signed(high)} %"
        if c.unit == "%"
        else f"de {fmt(low, 0)} a {fmt(high, 0)} {c.unit}"
    )


def _claim_sentence(c) -> str:
    d = c.detail
    engine = ENGINE_LABEL.get(d.get("engine"), d.get("engine", ""))
    head = f"- **«{c.statement}»** ({c.source}): **{verdict_words(c)}**."
    if c.status == "sin_datos":
        return f"{head} Esta corrida no midió lo necesario (o solo una repetición: sin IC no hay veredicto)."
    if c.status == "inestable":
        return (
            f"{head} Las repeticiones están tan dispersas (o partidas en dos grupos) que su mediana no las "
            "resume: vuelve a ejecutar, con la máquina más tranquila o más repeticiones."
        )
    if c.key == "exec_1ms":
        return (
            f"{head} `{d['engine']} exec CONTENEDOR true` tardó una mediana de {fmt(c.value, 1, 'ms')} "
            f"(IC 95 % {fmt_interval(c.low, c.high, 1, 'ms')}, n = {c.n}): unas {num(c.value, 0)} veces el "
            "milisegundo del capítulo. Entrar a un contenedor pasa por el motor y el runtime, no es solo una "
            "llamada al sistema."
        )
    base = BASE.get(d.get("base"), d.get("base", ""))
    text = (
        f"{head} En {engine}, el trabajo solo frente a {base}: {_pct(c.value, c.low, c.high)} (n = {c.n}); "
        f"el capítulo dice {fmt_pct(c.claimed, 0)} y aceptamos {_margin(c)}."
    )
    if c.key == "hash_0":
        why = {
            "userland": "aquí la imagen trae otros binarios que el host, y eso sí cambia el tiempo: con los "
            "mismos binarios (chroot) el contenedor no se distingue",
            "contenedor": "incluso con los mismos binarios (chroot) el contenedor se distingue",
            "ninguna": "ni el userland ni el contenedor cambian el hash de forma medible",
            "sin_datos": "falta la línea base chroot para separar userland de contenedor",
        }[d.get("explicacion", "sin_datos")]
        e2e = d.get("e2e_vs_host")
        if e2e:
            text += (
                f" Medido como el capítulo (exec extremo a extremo, binarios del host) sale "
                f"{_pct(*e2e)}: su «−24 %» mezclaba `exec` y binarios distintos."
            )
        text += f" Las dos líneas base: {why}."
    elif c.key == "overlay_20":
        text += " Escribir con fsync en la capa del contenedor, frente al disco del host."
    elif c.key == "volumen_nativo":
        text += " Un volumen (-v) frente al disco del host: «nativo» exige que todo el IC quepa en el margen."
    return text


@needs_result
def veredictos(resultado: Resultado) -> None:
    """The chapter's claims, each with its verdict (base.judge, the one rule) and the data behind it."""
    lines = [_claim_sentence(c) for c in exp.claims(resultado.df, resultado.meta)]
    markdown(
        "**Veredictos sobre las afirmaciones del capítulo original** (IC 95 % por bootstrap; se confirma "
        "si todo el IC cae dentro del margen, no se sostiene si deja fuera lo afirmado):\n\n"
        + "\n".join(lines)
    )


@needs_result
def conclusion(resultado: Resultado) -> str:
    """The closing sentence, generated from this run (never written before the data): where the container
    shows, judged on stable overheads whose IC excludes 0 %."""
    o = exp.overheads(resultado.df, exp.METRIC_WORK)
    with_chroot = set(o.loc[o["base"] == "chroot", "carga"])
    fair = o[
        [
            (b == "host" and e in ENGINE_LABEL)
            or (b == "chroot" and e in ENGINE_LABEL)
            or (b == "bare" and c not in with_chroot and e in ENGINE_LABEL)
            for c, b, e in zip(o["carga"], o["base"], o["entorno"])
        ]
    ]
    shaky = fair[fair["inestable"].astype(bool)]
    stable = fair[~fair["inestable"].astype(bool)]
    real = stable[(stable["ic_bajo_pct"] > 0) | (stable["ic_alto_pct"] < 0)]
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
            f"con {ENGINE_LABEL[top['entorno']]}: {_pct(top['sobrecarga_pct'], top['ic_bajo_pct'], top['ic_alto_pct'])} "
            f"frente a {BASE[top['base']]}."
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
    text = " ".join(parts)
    markdown(text)
    return text


@needs_result
def comparacion(resultado: Resultado):
    """The original chapter's hash and sort next to this run, plus one sentence on what agrees (overlapping
    intervals of the overhead measured the chapter's way)."""
    cmp = exp.compare(resultado.df, resultado.meta, reference.load(exp.EXPERIMENT))
    words = {"coincide": "coincide", "no_coincide": "no coincide", "sin_datos": "—"}
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
                "¿coinciden?": "—" if bare else words.get(r["acuerdo"], "—"),
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
    markdown(frase_comparacion(cmp))
    return cmp


def frase_comparacion(cmp: pd.DataFrame) -> str:
    """One Spanish sentence: where this run's overhead (measured the chapter's way) agrees with the
    chapter's, by overlapping intervals, and where not."""
    agree, differ = [], []
    for _, r in cmp[cmp["entorno"] != "bare"].iterrows():
        if r["acuerdo"] == "sin_datos":
            continue
        name = (
            f"{r['carga']} en {ENTORNO_CORTO[r['entorno']]} ({_pct(r['tu_sobrecarga_e2e_pct'], *r['tu_sobrecarga_e2e_ic'])} "
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
