"""Experiment 5 as a person sees it: per-call cost of each isolation layer, in Spanish."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import reference
from ..experiments import llamadas as exp
from ..experiments.base import Claim, Resultado
from .common import (
    ENGINE_LABEL,
    NO_RESULT,
    fmt,
    fmt_interval,
    fmt_ratio,
    markdown,
    needs_result,
    run_caption,
    show,
    table,
    verdict_words,
)

OPERACION_CORTA = {
    "getpid": "getpid",
    "clock_gettime": "clock_gettime (vDSO)",
    "read": "read 1 byte",
    "open_close": "open+close",
    "stat": "stat",
}
COLOR = {"bare": "tab:gray", "docker": "tab:blue", "podman": "tab:purple"}
REF_LABEL = {
    "seed001": "el documento: su corrida (kernel 6.14 en Azure)",
    "seed001-tabla-xeon-8370c": "su tabla: Intel Xeon Platinum 8370C (Azure)",
    "seed001-tabla-epyc-7763": "su tabla: AMD EPYC 7763 (Azure)",
    "seed001-tabla-i7-12700k": "su tabla: Intel i7-12700K",
}


def _digits(value: float) -> int:
    return 0 if value >= 100 else 1 if value >= 10 else 2


def _ns(value: float) -> str:
    return fmt(value, _digits(value) if value == value else 0, "ns")


@needs_result
def tabla(resultado: Resultado, operacion: str = "getpid"):
    """One operation, every arm: median ns per call, IQR, min, IC 95 % and × host with its IC."""
    s = exp.summarize(resultado.df, resultado.meta)
    s = s[s["operacion"] == operacion]
    if s.empty:
        return f"Esta corrida no midió {operacion}."
    out = pd.DataFrame(
        {
            "Brazo": s["brazo"],
            "n": s["n"],
            "Mediana (ns/llamada)": [fmt(v, _digits(v)) for v in s["mediana_ns"]],
            "IQR (ns)": [fmt_interval(a, b, _digits(a)) for a, b in zip(s["q1_ns"], s["q3_ns"])],
            "Mín (ns)": [fmt(v, _digits(v)) for v in s["min_ns"]],
            "IC 95 % mediana (ns)": [
                fmt_interval(a, b, _digits(a)) for a, b in zip(s["ic_bajo_ns"], s["ic_alto_ns"])
            ],
            "× host [IC 95 %]": [
                fmt_ratio(r, lo, hi, 2 if r < 10 else 0)
                for r, lo, hi in zip(s["x_host"], s["x_host_ic_bajo"], s["x_host_ic_alto"])
            ],
            "Estable": ["no: repite" if u else "sí" for u in s["inestable"]],
        }
    )
    return table(
        out,
        f"{exp.OPERATION_LABEL.get(operacion, operacion)}: ns por llamada (IQR con cuantiles "
        "lineales; IC 95 % por bootstrap)",
    )


@needs_result
def tabla_relojes(resultado: Resultado, operacion: str = "getpid"):
    """The same calls through two clocks: the thread's CPU time (what this notebook uses) and the wall
    clock (what the document used). On a busy machine the wall clock also counts the waits for a CPU."""
    cpu = exp.summarize(resultado.df, resultado.meta)
    wall = exp.summarize(exp.wall_clock(resultado.df), resultado.meta)
    cpu, wall = cpu[cpu["operacion"] == operacion], wall[wall["operacion"] == operacion]
    if cpu.empty or wall.empty:
        return "Esta corrida no tiene las dos medidas de reloj."
    merged = cpu.merge(wall, on=["engine", "variant", "brazo"], suffixes=("_cpu", "_pared"))
    out = pd.DataFrame(
        {
            "Brazo": merged["brazo"],
            "CPU: mediana (ns)": [fmt(v, _digits(v)) for v in merged["mediana_ns_cpu"]],
            "CPU: IQR (ns)": [
                fmt_interval(a, b, _digits(a)) for a, b in zip(merged["q1_ns_cpu"], merged["q3_ns_cpu"])
            ],
            "Pared: mediana (ns)": [fmt(v, _digits(v)) for v in merged["mediana_ns_pared"]],
            "Pared: IQR (ns)": [
                fmt_interval(a, b, _digits(a)) for a, b in zip(merged["q1_ns_pared"], merged["q3_ns_pared"])
            ],
        }
    )
    return table(out, f"{operacion}: tiempo de CPU del hilo frente a reloj de pared")


@needs_result
def tabla_operaciones(resultado: Resultado):
    """Every operation (columns) in every arm (rows): median ns per call and × host."""
    s = exp.summarize(resultado.df, resultado.meta)
    if s.empty:
        return "Esta corrida no tiene filas todavía."
    rows = []
    for brazo, group in s.groupby("brazo", sort=False):
        row = {"Brazo": brazo}
        for _, r in group.iterrows():
            cell = _ns(r["mediana_ns"])
            if not (r["engine"], r["variant"]) == exp.BASELINE and r["x_host"] == r["x_host"]:
                cell += f" ({fmt_ratio(r['x_host'], digits=2 if r['x_host'] < 10 else 0)})"
            row[OPERACION_CORTA.get(r["operacion"], r["operacion"])] = cell
        rows.append(row)
    return table(
        pd.DataFrame(rows).fillna("—"), "Mediana de ns por llamada en cada brazo (entre paréntesis, × host)"
    )


def _errorbars(ax, y, med, lo, hi, colors):
    for yi, m, a, b, c in zip(y, med, lo, hi, colors):
        ax.plot([a, b], [yi, yi], color=c, lw=3, alpha=0.5, solid_capstyle="butt")
        ax.plot([m], [yi], "o", color=c, ms=8)


@needs_result
def grafico_descomposicion(resultado: Resultado, operacion: str = "getpid"):
    """host → PID namespace → container without seccomp → with seccomp → gVisor: median (dot) and IC 95 %
    (bar) per step; logarithmic axis when gVisor is in the picture."""
    d = exp.decomposition(resultado.df, operacion)
    if d.empty:
        markdown("_No hay brazos que dibujar._")
        return None
    d = d.drop_duplicates(subset=["engine", "variant"])
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(d) + 1.8))
    y = list(range(len(d)))[::-1]
    _errorbars(ax, y, d["mediana_ns"], d["ic_bajo_ns"], d["ic_alto_ns"], [COLOR[e] for e in d["engine"]])
    for yi, m in zip(y, d["mediana_ns"]):
        ax.annotate(_ns(m), (m, yi), textcoords="offset points", xytext=(8, 6), fontsize=11)
    ax.set_yticks(y)
    ax.set_yticklabels(d["brazo"], fontsize=12)
    if d["mediana_ns"].max() / max(d["mediana_ns"].min(), 1e-9) > 20:
        ax.set_xscale("log")
        ax.set_xlabel(f"ns por llamada a {operacion} (escala logarítmica)", fontsize=12)
    else:
        ax.set_xlabel(f"ns por llamada a {operacion}", fontsize=12)
        ax.set_xlim(left=0)
    ax.set_title(
        "De arriba abajo se añade una capa de aislamiento\n(punto: mediana; barra: IC 95 %)", fontsize=13
    )
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    plt.show()
    return fig


@needs_result
def grafico_operaciones(resultado: Resultado):
    """× host for each operation and arm: which calls pay for isolation and which do not (the vDSO)."""
    s = exp.summarize(resultado.df, resultado.meta)
    s = s[~((s["engine"] == exp.BASELINE[0]) & (s["variant"] == exp.BASELINE[1]))].dropna(subset=["x_host"])
    if s.empty:
        markdown("_Hace falta el brazo «host» y al menos otro brazo para este gráfico._")
        return None
    ops = [o for o in exp.OPERATIONS if o in set(s["operacion"])]
    arms = list(dict.fromkeys(s["brazo"]))
    fig, ax = plt.subplots(figsize=(11, 0.5 * len(arms) * 1.0 + 2.5))
    offsets = np.linspace(-0.3, 0.3, len(ops)) if len(ops) > 1 else [0.0]
    markers = ["o", "s", "D", "^", "v"]
    for k, op in enumerate(ops):
        sub = s[s["operacion"] == op].set_index("brazo").reindex(arms)
        y = np.arange(len(arms))[::-1] + offsets[k]
        ax.errorbar(
            sub["x_host"],
            y,
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
    plt.show()
    return fig


@needs_result
def grafico_anidamiento(resultado: Resultado, operacion: str = "getpid"):
    """ns per call against the depth of nested PID namespaces, next to what «each level adds cost» with
    the document's 29.5 ns per level would predict."""
    n = exp.nesting(resultado.df, operacion)
    if len(n) < 2:
        markdown("_Esta corrida no midió namespaces PID anidados (brazos «pid» y «anidado»)._")
        return None
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
    per_level = exp.SEED_CONTAINER_NS - exp.SEED_HOST_NS
    ax.plot(
        depths,
        base + per_level * (depths - depths[0]),
        "--",
        color="tab:red",
        label=f"si cada nivel costara {fmt(per_level, 1)} ns (el documento)",
    )
    ax.set_xticks(list(n["profundidad"]))
    ax.set_xlabel("niveles de namespaces PID por encima del host (0 = el host)", fontsize=12)
    ax.set_ylabel(f"ns por llamada a {operacion}", fontsize=12)
    ax.set_ylim(bottom=0)
    ax.set_title("¿Cada nivel de anidamiento añade costo?", fontsize=13)
    ax.legend(fontsize=11)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    plt.show()
    return fig


@needs_result
def tabla_anidamiento(resultado: Resultado):
    n = exp.nesting(resultado.df)
    if n.empty:
        return "Esta corrida no midió namespaces PID."
    out = pd.DataFrame(
        {
            "Niveles añadidos": n["profundidad"],
            "Niveles que vio la sonda (NSpid)": [("—" if v != v else int(v)) for v in n["niveles_vistos"]],
            "Mediana (ns)": [fmt(v, 1) for v in n["mediana_ns"]],
            "IC 95 % (ns)": [fmt_interval(a, b, 1) for a, b in zip(n["ic_bajo_ns"], n["ic_alto_ns"])],
        }
    )
    return table(
        out, "getpid dentro de namespaces PID anidados (la sonda cuenta los niveles en /proc/self/status)"
    )


# ---------------------------------------------------------------- verdicts
def _ratio_text(claim: Claim) -> str:
    return fmt_ratio(claim.value, claim.low, claim.high)


def frase_veredicto(claim: Claim) -> str:
    head = f"**«{claim.statement}»** ({claim.source}) — **{verdict_words(claim)}**."
    if claim.key == "entre_cpus":
        return (
            f"**«{claim.statement}»** ({claim.source}) — una sola máquina no puede decidirlo: lo decide el "
            "cuaderno `90_comparar_clase`, que pone lado a lado la proporción contenedor/host de cada máquina "
            "de la clase (cada una con su CPU)."
        )
    if claim.status == "sin_datos":
        if claim.key == "exec_1_9ms":
            if claim.detail.get("motivo") == "sin_corrida":
                return (
                    f"{head} Aún no hay una corrida del experimento 3 (`03_ejecucion`) en esta máquina: "
                    "ejecútalo y vuelve aquí; su costo de `exec true` es la medida que hace falta."
                )
            return f"{head} La última corrida del experimento 3 no midió `exec true`."
        return f"{head} Faltan los brazos que hacen falta para juzgarla (revisa BRAZOS y MOTORES)."
    if claim.status == "inestable":
        return f"{head} La dispersión de las repeticiones es tan grande como la mediana: repite con más REPETICIONES."
    if claim.key == "contenedor_11":
        engine = ENGINE_LABEL.get(claim.detail.get("engine"), "?")
        sin = claim.detail.get("sin_seccomp") or (math.nan,) * 3
        text = (
            f"{head} En {engine}, getpid cuesta {_ratio_text(claim)} lo del host (el documento: "
            f"{fmt_ratio(exp.SEED_RUN_RATIO)} en su corrida y de {fmt_ratio(exp.SEED_TABLE_RATIOS[0])} a "
            f"{fmt_ratio(exp.SEED_TABLE_RATIOS[1])} en su tabla; se toma {fmt_ratio(exp.SEED_OVERHEAD)} como valor "
            f"afirmado y como margen de {fmt_ratio(exp.OVERHEAD_REGION[0])} a {fmt_ratio(exp.OVERHEAD_REGION[1])})."
        )
        if sin[0] == sin[0]:
            text += (
                f" El mismo contenedor **sin seccomp** cuesta {fmt_ratio(*sin)} lo del host: ahí se ve qué "
                "parte de la sobrecarga es el filtro."
            )
        return text
    if claim.key == "causa_pid":
        text = (
            f"{head} Un namespace PID solo, sin contenedor, cuesta {_ratio_text(claim)} lo del host en getpid; "
            f"si la traducción de PID fuera la causa, costaría como el contenedor (≈{fmt_ratio(exp.SEED_OVERHEAD)})."
        )
        for engine, (r, lo, hi) in (claim.detail.get("seccomp_vs_sin") or {}).items():
            text += (
                f" En {ENGINE_LABEL.get(engine, engine)}, activar el perfil seccomp multiplica el costo por "
                f"{fmt_ratio(r, lo, hi)}."
            )
        return text
    if claim.key == "anidamiento":
        return (
            f"{head} Cada nivel añade {fmt(claim.value, 1)} ns {fmt_interval(claim.low, claim.high, 1)} "
            f"(pendiente de la recta mediana–profundidad, IC 95 %); el documento atribuye "
            f"{fmt(claim.claimed, 1)} ns a un nivel, y aquí contaría como costo real desde "
            f"{fmt(claim.detail.get('piso_ns', math.nan), 1)} ns por nivel (1 % de una llamada en el host)."
        )
    if claim.key == "exec_1_9ms":
        engine = ENGINE_LABEL.get(claim.detail.get("engine"), "?")
        return (
            f"{head} `{claim.detail.get('engine', 'docker')} exec true` costó en esta máquina "
            f"{fmt(claim.value, 1)} ms {fmt_interval(claim.low, claim.high, 1)} ({engine}, mediana e IC 95 % "
            "del experimento 3), frente a los 1,9 ms del documento."
        )
    return head


@needs_result
def veredictos(resultado: Resultado) -> list[str]:
    try:
        exec_run = Resultado.latest("ejecucion", resultado.run_dir.parent.parent)
    except Exception:  # noqa: BLE001 - a broken folder of experiment 3 means "no run"
        exec_run = None
    sentences = [frase_veredicto(c) for c in exp.claims(resultado.df, resultado.meta, exec_run=exec_run)]
    markdown("\n\n".join(f"- {s}" for s in sentences))
    return sentences


@needs_result
def comparacion(resultado: Resultado):
    """The document's run and its per-CPU table next to this machine, as container/host ratios."""
    c = exp.compare(resultado.df, resultado.meta, reference.load(exp.EXPERIMENT))
    out = pd.DataFrame(
        {
            "Fuente": [REF_LABEL.get(f, f) for f in c["fuente"]],
            "Host (ns)": [fmt(v, 1) for v in c["host_ns"]],
            "Contenedor (ns)": [fmt(v, 1) for v in c["contenedor_ns"]],
            "Contenedor / host [IC 95 %]": [
                fmt_ratio(r, lo if lo == lo else None, hi if hi == hi else None)
                for r, lo, hi in zip(c["x_host"], c["ic_bajo"], c["ic_alto"])
            ],
        }
    )
    show(table(out, "getpid: el documento (los rangos de su tabla, por su punto medio) y tu máquina"))
    markdown(frase_comparacion(c))
    return c


def frase_comparacion(c: pd.DataFrame) -> str:
    ref = c[~c["fuente"].str.startswith("tu máquina")]
    mine = c[c["fuente"].str.startswith("tu máquina")]
    if mine.empty:
        return (
            "Esta corrida no midió el host y un contenedor con seccomp por defecto: no hay nada que comparar."
        )
    lo_ref, hi_ref = ref["x_host"].min(), ref["x_host"].max()
    parts = []
    for _, r in mine.iterrows():
        where = (
            "dentro del rango del documento"
            if lo_ref <= r["x_host"] <= hi_ref
            else "por debajo de todo lo que publica el documento"
            if r["x_host"] < lo_ref
            else "por encima de todo lo que publica el documento"
        )
        engine = r["fuente"].removeprefix("tu máquina (").removesuffix(")")
        parts.append(f"con {engine}, {fmt_ratio(r['x_host'], r['ic_bajo'], r['ic_alto'])}, {where}")
    return (
        f"El documento publica proporciones contenedor/host entre {fmt_ratio(lo_ref)} y {fmt_ratio(hi_ref)}. "
        f"En tu máquina: " + "; ".join(parts) + ". Los nanosegundos no se comparan: cambian con la CPU."
    )


# ---------------------------------------------------------------- when it matters, and gVisor
@needs_result
def cuanto_importa(resultado: Resultado, llamadas_por_segundo: int = 1_000_000, operacion: str = "getpid"):
    """A workload doing `llamadas_por_segundo` calls per second: how much CPU each arm adds per second
    (difference of medians against the host × the rate)."""
    s = exp.summarize(resultado.df, resultado.meta)
    s = s[s["operacion"] == operacion]
    host = s[(s["engine"] == exp.BASELINE[0]) & (s["variant"] == exp.BASELINE[1])]
    if host.empty:
        markdown("_Hace falta el brazo «host» para calcularlo._")
        return None
    h = float(host["mediana_ns"].iloc[0])
    rows = []
    for _, r in s.iterrows():
        extra_ns = r["mediana_ns"] - h
        cpu = extra_ns * llamadas_por_segundo / 1e9  # CPU-seconds per second
        rows.append(
            {
                "Brazo": r["brazo"],
                "ns extra por llamada": fmt(extra_ns, 0 if abs(extra_ns) >= 100 else 1),
                "CPU extra por segundo": (
                    f"{fmt(cpu * 100, 1)} % de un núcleo" if cpu < 1 else f"{fmt(cpu, 1)} núcleos enteros"
                ),
            }
        )
    show(
        table(
            pd.DataFrame(rows),
            f"Una carga que hace {fmt(llamadas_por_segundo, 0)} llamadas a {operacion} por "
            "segundo: lo que añade cada brazo (diferencia de medianas)",
        )
    )
    return pd.DataFrame(rows)


@needs_result
def gvisor(resultado: Resultado):
    """Which runsc ran (path, version, module version, platform), or why the gVisor arms were skipped."""
    meta = resultado.meta
    lines = []
    for engine, info in (meta.get("gvisor") or {}).items():
        lines.append(
            f"- {ENGINE_LABEL.get(engine, engine)}: `runsc` en `{info.get('path')}`, módulo "
            f"`{info.get('module_version') or '?'}`, versión «{info.get('version') or 'sin versión'}», "
            f"plataforma **{info.get('platform') or '?'}**."
        )
    for key, why in (meta.get("skipped_arms") or {}).items():
        if "gVisor" in key:
            lines.append(f"- Se omitió {key}: {why}")
    markdown("\n".join(lines) if lines else "_Esta corrida no incluyó brazos con gVisor._")
    return lines


def encabezado(panel) -> Resultado | None:
    """Say which run the following cells show; show its table too when the panel above did not."""
    resultado = panel.resultado()
    if resultado is None:
        markdown(NO_RESULT)
        return None
    markdown(run_caption(resultado))
    skipped = resultado.meta.get("skipped_arms") or {}
    if skipped:
        markdown("\n".join(f"- Se omitió **{k}**: {v}" for k, v in skipped.items()))
    if not panel.midio():
        show(tabla(resultado))
    return resultado
