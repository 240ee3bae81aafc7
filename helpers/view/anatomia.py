"""Experiment 4 as a person sees it: the ladder (tabla, grafico), the engine's phases, the waterfall, the
process chain, the published figures (comparacion) and the verdicts, in Spanish."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import experiments, reference
from ..experiments import anatomia, figures, verdict
from ..experiments.anatomia.analysis import network_costs, run_median, summarize, waterfall
from ..experiments.anatomia.chain import chain_split, load_chain
from ..experiments.anatomia.phases import PHASE_ARGV, PHASES, phase_window
from ..experiments.anatomia.published import compare
from ..experiments.anatomia.rungs import METRIC
from ..experiments.runner import Resultado
from . import anatomia_frases as frases
from .common import (
    AGREEMENT,
    claims_list,
    decimals_for,
    engine_label,
    fmt,
    fmt_interval,
    fmt_pct,
    fmt_ratio,
    fmt_value_interval,
    markdown,
    missing_run,
    needs_result,
    run_caption,
    show,
    significant,
    table,
    too_few_banner,
)
from .figuras import fit, legend_outside, show_figure

ENGINE_COLOR = {"bare": "#4c72b0", "docker": "#dd8452", "podman": "#55a868"}
PART_COLOR = {
    "proceso": "#4c72b0",
    "espacios": "#8172b3",
    "runtime": "#937860",
    "almacenamiento": "#da8bc3",
    "motor": "#dd8452",
    "red": "#c44e52",
}


MAX_HEIGHT = 7.5  # inches: no chart taller than a projected screen
GAP_LABEL = "sin repartir (ruido: cada parte es una mediana por ronda)"


def _finite(*values) -> bool:
    return all(v is not None and isinstance(v, (int, float)) and math.isfinite(v) for v in values)


def _pct(value: float, low: float | None = None, high: float | None = None) -> str:
    """A share (0-1) as a percentage, with its interval when given: «18 % [4, 53]»."""
    if not _finite(value):
        return "—"
    text = fmt_pct(100 * value, 0, sign=False)
    if _finite(low, high):
        text += " " + fmt_interval(100 * low, 100 * high, 0)
    return text


def _row_digits(median: float, low: float, high: float) -> int:
    """Decimals of one row of the ladder (its median, IQR, min and IC): those of its IC's half-width, and
    at least 2 significant digits of the median («343», «1.9», never «343.22»)."""
    return max(decimals_for(low, high) or 0, significant(median, 2))


def _who(engine: str, meta: dict | None) -> str:
    return "sin motor" if engine == "bare" else engine_label(engine, meta)


def _rung(row, meta: dict | None) -> str:
    return f"{_who(row['engine'], meta)}: {row['peldano']}"


@needs_result
def encabezado(resultado: Resultado) -> None:
    """Which run is shown, on which machine, every rung that could not run here (with its reason) and,
    without root, what ran inside a user namespace instead."""
    markdown(run_caption(resultado))
    if resultado.meta.get("sin_root"):
        markdown(f"_{resultado.meta['sin_root']}_")


@needs_result
def tabla(resultado: Resultado) -> None:
    """The ladder as a table: median, IQR, min, IC 95 % and × a process (bootstrap IC)."""
    s = summarize(resultado.df, resultado.meta)
    s = s[s["metric"] == METRIC]
    if s.empty:
        markdown("_Esta corrida no tiene peldaños medidos todavía._")
        return
    digits = [_row_digits(*r) for r in zip(s["mediana_ms"], s["ic_bajo_ms"], s["ic_alto_ms"])]
    out = pd.DataFrame(
        {
            "Peldaño": [_rung(r, resultado.meta) for _, r in s.iterrows()],
            "n": s["n"].to_numpy(),
            "Mediana (ms)": [fmt(v, d) for v, d in zip(s["mediana_ms"], digits)],
            "IQR (ms)": [fmt_interval(a, b, d) for a, b, d in zip(s["q1_ms"], s["q3_ms"], digits)],
            "Mín (ms)": [fmt(v, d) for v, d in zip(s["min_ms"], digits)],
            "IC 95 % mediana (ms)": [
                fmt_interval(a, b, d) for a, b, d in zip(s["ic_bajo_ms"], s["ic_alto_ms"], digits)
            ],
            "× proceso [IC 95 %]": [
                fmt_ratio(r, lo, hi, 1 if _finite(r) and r < 100 else 0)
                for r, lo, hi in zip(s["x_proceso"], s["x_proceso_ic_bajo"], s["x_proceso_ic_alto"])
            ],
            "Nota": ["medición inestable: repite" if u else "" for u in s["inestable"]],
        }
    )
    show(
        table(
            out,
            "La escalera del arranque: `echo ok` en cada peldaño (IQR con cuantiles lineales; IC 95 % de "
            "la mediana por estadísticos de orden; × proceso, por ronda)",
        )
    )
    markdown(frases.ladder_sentence(summarize(resultado.df, resultado.meta), resultado.meta))


@needs_result
def grafico(resultado: Resultado) -> None:
    """One bar per rung (median) with its IC 95 %, log scale: from ~1 ms to a few hundred."""
    s = summarize(resultado.df, resultado.meta)
    s = s[s["metric"] == METRIC].reset_index(drop=True)
    if s.empty:
        markdown("_No hay peldaños que dibujar._")
        return
    labels = [_rung(r, resultado.meta) for _, r in s.iterrows()]
    y = np.arange(len(s))[::-1]
    fig, ax = plt.subplots(figsize=(11, min(0.3 * len(s) + 1.6, MAX_HEIGHT)))
    err = np.array([s["mediana_ms"] - s["ic_bajo_ms"], s["ic_alto_ms"] - s["mediana_ms"]]).clip(min=0)
    ax.barh(
        y,
        s["mediana_ms"],
        xerr=err,
        color=[ENGINE_COLOR.get(e, "grey") for e in s["engine"]],
        alpha=0.85,
        capsize=3,
    )
    for yi, value in zip(y, s["mediana_ms"]):
        ax.text(value * 1.08, yi, fmt(value, 1 if value < 100 else 0, "ms"), va="center", fontsize=10)
    ax.set_yticks(y, labels, fontsize=10 if len(s) < 20 else 8)
    ax.set_xscale("log")
    ax.set_xlabel("mediana de `echo ok` (ms, escala logarítmica); la línea es el IC 95 %", fontsize=12)
    ax.set_title("Cada peldaño añade una pieza del arranque", fontsize=14)
    ax.set_xlim(right=ax.get_xlim()[1] * 2.5)
    handles = [
        plt.Rectangle((0, 0), 1, 1, color=ENGINE_COLOR[e])
        for e in ("bare", "docker", "podman")
        if e in set(s["engine"])
    ]
    legend_outside(
        ax,
        handles,
        [_who(e, resultado.meta) for e in ("bare", "docker", "podman") if e in set(s["engine"])],
        fontsize=11,
    )
    fit(fig)
    show_figure(fig)


@needs_result
def fases(resultado: Resultado) -> None:
    """The engine's phases apart (create, start, wait, remove): median and IC 95 % of each, and which
    phase holds the time."""
    s = summarize(resultado.df, resultado.meta)
    s = s[s["variant"] == "fases"]
    if s.empty:
        markdown("_Esta corrida no midió las fases del motor (peldaño «fases»)._")
        return
    out = pd.DataFrame(
        {
            "Motor": [engine_label(e, resultado.meta) for e in s["engine"]],
            "Fase": [dict(PHASES).get(m, "total (suma)") for m in s["metric"]],
            "n": s["n"].to_numpy(),
            "Mediana (ms)": [fmt(v, 1) for v in s["mediana_ms"]],
            "IC 95 % (ms)": [fmt_interval(a, b, 1) for a, b in zip(s["ic_bajo_ms"], s["ic_alto_ms"])],
            "IQR (ms)": [fmt_interval(a, b, 1) for a, b in zip(s["q1_ms"], s["q3_ms"])],
            "Qué incluye": [
                phase_window(e, m) if m in PHASE_ARGV else "" for e, m in zip(s["engine"], s["metric"])
            ],
            "Nota": ["medición inestable: repite" if u else "" for u in s["inestable"]],
        }
    )
    show(table(out, "Fases del motor: un proceso del CLI por fase, igual en Docker y en Podman"))
    markdown(frases.phases_sentence(resultado.df, s, resultado.meta))


@needs_result
def cascada(resultado: Resultado) -> None:
    """The waterfall: each engine's `run` (default network) split into process, namespaces, runtime,
    engine and network. Every part but the first is a difference of two rungs: an inference."""
    engines = [
        e
        for e in ("docker", "podman")
        if ((resultado.df["engine"] == e) & (resultado.df["variant"] == "run_red")).any()
    ]
    if not engines:
        markdown("_Para la cascada hacen falta los peldaños «proceso», «espacios», «runc» y «motor»._")
        return
    frames = [waterfall(resultado.df, e) for e in engines]
    fig, ax = plt.subplots(figsize=(11, min(1.3 * len(engines) + 1.8, MAX_HEIGHT)))
    gap_drawn = False
    for i, w in enumerate(frames):
        left = 0.0
        for _, part in w.iterrows():
            width = part["ms"] if _finite(part["ms"]) else 0.0
            ax.barh(
                i,
                max(width, 0),
                left=left,
                color=PART_COLOR[part["parte"]],
                edgecolor="white",
                hatch="//" if part["inferido"] else None,
                label=part["etiqueta"] if i == 0 else None,
            )
            if width > 0.06 * w["ms"].clip(lower=0).sum():
                ax.text(
                    left + width / 2, i, fmt(width, 0), ha="center", va="center", fontsize=10, color="white"
                )
            left += max(width, 0)
        median = run_median(resultado.df, engines[i])
        if _finite(median) and median > left:
            # what the parts (each a median over rounds) leave between their sum and the run's median
            ax.barh(
                i,
                median - left,
                left=left,
                color="lightgrey",
                edgecolor="white",
                label=GAP_LABEL if not gap_drawn else None,
            )
            gap_drawn = True
        if _finite(median):
            ax.plot([median, median], [i - 0.45, i + 0.45], color="black", lw=2)
            ax.text(median, i, f" {fmt(median, 0, 'ms')}", ha="left", va="center", fontsize=10)
    ax.set_yticks(
        range(len(engines)), [f"{engine_label(e, resultado.meta)} run" for e in engines], fontsize=12
    )
    ax.invert_yaxis()
    ax.set_xlim(right=ax.get_xlim()[1] * 1.1)
    ax.set_xlabel(
        "ms (cada parte, su mediana ronda a ronda; rayadas: diferencias entre peldaños, inferidas; "
        "la raya negra, la mediana del run)",
        fontsize=11,
    )
    ax.set_title("¿En qué se va el arranque?", fontsize=14)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=2, fontsize=10, frameon=False)
    fit(fig)
    show_figure(fig)
    w = pd.concat(frames, ignore_index=True)
    out = pd.DataFrame(
        {
            "Motor": [engine_label(e, resultado.meta) for e in w["engine"]],
            "Parte": w["etiqueta"].to_numpy(),
            "Cómo se obtiene": [
                ("medida directa" if not inf else f"inferida: «{hasta}» − «{desde}»")
                for inf, desde, hasta in zip(w["inferido"], w["desde"], w["hasta"])
            ],
            "ms [IC 95 %]": [
                fmt_value_interval(v, a, b) for v, a, b in zip(w["ms"], w["ic_bajo_ms"], w["ic_alto_ms"])
            ],
            "Parte del total [IC 95 %]": [
                _pct(v, a, b) for v, a, b in zip(w["fraccion"], w["fraccion_ic_bajo"], w["fraccion_ic_alto"])
            ],
        }
    )
    show(
        table(
            out,
            "La cascada en números: cada parte y su proporción del `run`, ronda a ronda (mediana de las "
            "rondas, IC 95 %); la parte de la red es la misma cifra que juzga el veredicto de la red",
        )
    )
    markdown(frases.waterfall_sentence(frames, resultado.meta))
    below_zero = (-verdict.INF, 0.0)
    negative = [
        r
        for r in w.itertuples()
        if verdict.reading(r.ic_bajo_ms, r.ic_alto_ms, None, region=below_zero) == verdict.SE_CONFIRMA
    ]
    if negative:
        markdown(
            "_Una parte con IC por debajo de cero significa que el peldaño de arriba fue más rápido que el de "
            "abajo: los dos no son del todo comparables (por ejemplo, runc crea todos sus espacios de una "
            "vez, sin un `exec` intermedio)._"
        )


SUBCOMMANDS = (
    "create",
    "start",
    "delete",
    "init",
    "run",
    "kill",
    "cleanup",
    "setup",
    "teardown",
    "--version",
)


def _proc_label(name: str, cmdline: str) -> str:
    """A process's program plus its subcommand where it tells the story (runc create / start / delete…);
    «?» for one that was gone before its name could be read."""
    if not name or name == "?":
        return "? (terminó antes de leer su nombre)"
    words = str(cmdline or "").split()
    sub = next((w for w in words[1:] if w in SUBCOMMANDS), "")
    return f"{name} {sub}".strip()


@needs_result
def cadena(resultado: Resultado) -> None:
    """The process chain of one `run` per engine, as a Gantt-like timeline: one line per process, from
    the fork that created it to its exit; the dot marks its exec. An engine's daemons (dockerd,
    containerd) create no process: they are drawn on top as a band, with the CPU time their threads
    used during the launch."""
    chain = load_chain(resultado)
    if chain.empty:
        why = (resultado.meta.get("skipped_arms") or {}).get("la cadena de procesos")
        markdown(
            f"_No hay cadena de procesos en esta corrida{': ' + why if why else ' (peldaño «cadena»)'}._"
        )
        return
    info = (resultado.meta.get("chain") or {}).get("per_engine", {})
    for engine, group in chain.groupby("engine", sort=False):
        daemons = group[group["start_ms"].isna()].reset_index(drop=True)
        procs = group[group["start_ms"].notna()].sort_values("start_ms").reset_index(drop=True)
        total = info.get(engine, {}).get("total_ms", float(procs["end_ms"].max()))
        # One line per program (and subcommand): its processes drawn on it, so 36 `iptables` are one line.
        procs["linea"] = [_proc_label(n, c) for n, c in zip(procs["name"], procs["cmdline"])]
        lines = list(dict.fromkeys(procs["linea"]))
        rows = len(daemons) + len(lines)
        fig, ax = plt.subplots(figsize=(12, min(0.3 * rows + 1.8, MAX_HEIGHT)))
        cmap = plt.get_cmap("tab20")
        labels = []
        for i, d in daemons.iterrows():
            ax.plot([0, total], [i, i], lw=6, color="lightgrey", ls=(0, (4, 2)), solid_capstyle="butt")
            labels.append(f"{d['name']}, ya en marcha")
            if _finite(d["cpu_ms"]):
                ax.text(
                    total / 2,
                    i,
                    f"{fmt(d['cpu_ms'], 0, 'ms')} de CPU en sus hilos",
                    ha="center",
                    va="center",
                    fontsize=9,
                )
        for j, line in enumerate(lines):
            y = len(daemons) + j
            mine = procs[procs["linea"] == line]
            for _, p in mine.iterrows():
                end = p["end_ms"] if _finite(p["end_ms"]) else total
                ax.plot([p["start_ms"], end], [y, y], lw=6, color=cmap(j % 20), solid_capstyle="butt")
                if _finite(p["exec_ms"]):
                    ax.plot(p["exec_ms"], y, "o", color="black", ms=3)
            labels.append(f"{line} ×{len(mine)}" if len(mine) > 1 else line)
        ax.set_yticks(range(rows), labels, fontsize=9)
        ax.invert_yaxis()
        ax.axvline(total, color="grey", ls="--", lw=1)
        ax.text(total, -0.8, f" el CLI termina: {fmt(total, 0, 'ms')}", fontsize=10, color="grey")
        split = chain_split(chain, engine, total)
        if split:
            ax.axvline(split["echo_ms"], color="black", ls=":", lw=1)
            ax.text(split["echo_ms"], rows - 0.3, " termina el echo", fontsize=9)
        ax.set_xlabel("ms desde que se lanzó el comando (punto negro: exec)", fontsize=12)
        ax.set_title(
            f"{engine_label(engine, resultado.meta)}: los procesos de un `{engine} run` ({len(procs)} procesos)",
            fontsize=14,
        )
        fit(fig)
        show_figure(fig)
        network = network_costs(resultado.df).get(engine)
        markdown(frases.chain_sentence(split, engine, resultado.meta, network))
        if info.get(engine, {}).get("lost_events"):
            markdown(
                "_Aviso: el kernel descartó eventos durante la captura (búfer lleno); puede faltar algún "
                "proceso._"
            )
        if not daemons.empty:
            markdown(
                "_La franja gris es el tiempo de CPU que usaron los daemons mientras duró el arranque: incluye "
                "lo que hicieran a la vez para otros contenedores de la máquina._"
            )
    procs = chain[chain["start_ms"].notna()]
    counts = procs.groupby(["engine", "name"]).size().rename("procesos").reset_index()
    out = pd.DataFrame(
        {
            "Motor": [engine_label(e, resultado.meta) for e in counts["engine"]],
            "Programa": counts["name"],
            "Procesos": counts["procesos"].to_numpy(),
        }
    )
    show(table(out, "Cuántos procesos de cada programa crea un solo arranque"))


@needs_result
def comparacion(resultado: Resultado) -> None:
    """Published launch figures next to yours; ratios where both sides have one."""
    try:
        ref = reference.load(anatomia.EXPERIMENT)
    except KeyError:
        markdown("_No hay datos de referencia para este experimento._")
        return
    c = compare(resultado.df, resultado.meta, ref)
    names = {
        "firecracker_spec": "Especificación de Firecracker",
        "kata_checkmetrics": "Métricas de Kata Containers",
    }
    out = pd.DataFrame(
        {
            "Fuente": [names.get(f, f) for f in c["fuente"]],
            "Medida": c["medida"].to_numpy(),
            "La fuente dice": c["como_lo_dice"].to_numpy(),
            "Referencia": [
                fmt_ratio(v, digits=2 if v < 2 else 1) if u == "x" else fmt(v, 0, u)
                for v, u in zip(c["referencia"], c["ref_unidad"])
            ],
            "Tú [IC 95 %]": [
                (fmt_ratio(v, a, b) if u == "x" else f"{fmt(v, 1)} {fmt_interval(a, b, 1)} {u}")
                if _finite(v)
                else "—"
                for v, a, b, u in zip(c["tu_valor"], c["tu_ic_bajo"], c["tu_ic_alto"], c["tu_unidad"])
            ],
            "¿Comparable?": [
                "sí (proporción)" if x else "solo orientación (otra máquina u otra medida)"
                for x in c["comparable"]
            ],
        }
    )
    show(table(out, "Tus cifras junto a las publicadas (ver data/reference/SOURCES.md)"))
    lines = []
    first = c.iloc[0]
    if _finite(first["tu_valor"], first["tu_ic_bajo"], first["tu_ic_alto"]):
        agree = figures.agreement(
            (first["tu_valor"], first["tu_ic_bajo"], first["tu_ic_alto"]),
            (first["referencia"], np.nan, np.nan),
        )
        lines.append(
            f"- `runc run` con espacio de red tarda {fmt_ratio(first['tu_valor'], first['tu_ic_bajo'], first['tu_ic_alto'])} "
            f"lo que sin él aquí, frente a {fmt_ratio(first['referencia'], digits=2)} en el README de crun: "
            f"{AGREEMENT.get(agree, agree)} (tu intervalo ÷ su cifra, con el margen de «coincide»)."
        )
    redhat = c.iloc[2]
    if _finite(redhat["tu_valor"]):
        lines.append(
            "- Red Hat cuenta que el arranque de Podman en una Raspberry Pi se hizo "
            f"{redhat['como_lo_dice']}, sumando muchos cambios, uno de ellos quitar la red virtual (del artículo "
            "leímos el título y el comienzo; las cifras y la lista de cambios, en ese resumen); aquí, "
            "quitar solo la red acelera el `run` de Podman "
            f"{fmt_ratio(redhat['tu_valor'], redhat['tu_ic_bajo'], redhat['tu_ic_alto'])}. No es la misma medida "
            "(todos sus cambios frente a uno solo), así que no se juzga: sirve para ver cuánto pesa la red "
            "entre lo que ellos quitaron."
        )
    markdown("\n".join(lines))


@needs_result
def veredictos(resultado: Resultado) -> None:
    """01's answer to «is Podman faster to start?», cited; then the three ideas about LAUNCH, each with
    its verdict by the one rule (common.claims_list), and the engines' own parts as figures."""
    claims = experiments.judged(resultado)
    n = max((c.n for c in claims), default=0)
    markdown(too_few_banner(n))
    answer = frases.answer_of_01(resultado)
    if answer:
        markdown(answer)
    else:
        missing_run("arranque")
    claims_list(claims)
    markdown(frases.own_parts_sentence(resultado.df, resultado.meta))
