"""Experiment 1 as a person sees it: tables, plot, reference comparison and verdicts, in Spanish."""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from .. import reference
from ..experiments import arranque
from ..experiments.base import Resultado
from .common import (
    ENGINE_LABEL,
    NO_RESULT,
    VERDICT,
    fmt,
    fmt_interval,
    fmt_ratio,
    markdown,
    needs_result,
    run_caption,
    show,
    table,
)

VARIANT_LABEL = {
    "proceso": "proceso real (`echo ok` como programa)",
    "metodo_semilla": "método de la semilla (builtin entre dos `date`)",
    "builtin": "solo el builtin `echo` (sin procesos)",
    "por_defecto": "`run --rm IMAGEN echo ok`",
}


def _combo(row) -> str:
    if row["engine"] == "bare":
        return f"bare metal — {VARIANT_LABEL.get(row['variant'], row['variant'])}"
    return f"{ENGINE_LABEL[row['engine']]} / {row['role']}"


@needs_result
def tabla(resultado: Resultado):
    """Results table: median, IQR, min, IC 95 % and × bare metal (real process) with its IC."""
    s = arranque.summarize(resultado.df, resultado.meta)
    if s.empty:
        return "Esta corrida no tiene filas todavía."
    out = pd.DataFrame({
        "Combinación": [_combo(r).replace("`", "") for _, r in s.iterrows()],
        "Imagen real": [r["image"] or "—" for _, r in s.iterrows()],
        "n": s["n"],
        "Mediana (ms)": [fmt(v, 2) for v in s["mediana_ms"]],
        "IQR (ms)": [fmt_interval(a, b, 2) for a, b in zip(s["q1_ms"], s["q3_ms"])],
        "Mín (ms)": [fmt(v, 2) for v in s["min_ms"]],
        "IC 95 % mediana (ms)": [fmt_interval(a, b, 2) for a, b in zip(s["ic_bajo_ms"], s["ic_alto_ms"])],
        "× bare metal [IC 95 %]": [fmt_ratio(r, lo, hi, 2 if r < 10 else 0) for r, lo, hi in
                                   zip(s["x_bare"], s["x_bare_ic_bajo"], s["x_bare_ic_alto"])],
    })
    return table(out, "Arranque: tiempo de `echo ok` (IQR con cuantiles lineales; IC 95 % por bootstrap)")


@needs_result
def grafico(resultado: Resultado):
    """Every repetition as a dot, with its median as a bar; log scale (bare metal is ~1000x faster)."""
    df = arranque.with_roles(resultado.df, resultado.meta)
    df = df[df["metric"] == arranque.METRIC].copy()
    if df.empty:
        markdown("_No hay repeticiones que dibujar._")
        return None
    df["Combinación"] = [_combo(r).replace("`", "") for _, r in df.iterrows()]
    order = list(dict.fromkeys(df.sort_values(["engine", "role", "variant"])["Combinación"]))
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(order) + 1.5))
    sns.stripplot(data=df, x="value", y="Combinación", order=order, hue="engine", palette="deep",
                  alpha=0.7, jitter=0.2, ax=ax, legend=False)
    medians = df.groupby("Combinación")["value"].median()
    for i, combo in enumerate(order):
        ax.plot([medians[combo]] * 2, [i - 0.35, i + 0.35], color="black", lw=2)
    ax.set_xscale("log")
    ax.set_xlabel("tiempo de arranque (ms, escala logarítmica)")
    ax.set_ylabel("")
    ax.set_title("Cada repetición es un punto; la barra negra es la mediana")
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    plt.show()
    return fig


@needs_result
def leccion_bare_metal(resultado: Resultado) -> str:
    """The lesson of the baseline: the seed's method measures the cost of `date`, not of `echo`."""
    s = arranque.summarize(resultado.df, resultado.meta)
    bare = {r["variant"]: r for _, r in s[s["engine"] == "bare"].iterrows()}
    parts = []
    if "proceso" in bare:
        parts.append(f"Lanzar `echo ok` como proceso real cuesta **{fmt(bare['proceso']['mediana_ms'], 2)} ms** "
                     "(mediana): esa es la línea base justa, porque un contenedor también es un proceso nuevo.")
    if "metodo_semilla" in bare:
        parts.append(f"El método de la semilla (el builtin `echo` entre dos `date +%s%N`) da "
                     f"**{fmt(bare['metodo_semilla']['mediana_ms'], 2)} ms**.")
    if "builtin" in bare:
        us = bare["builtin"]["mediana_ms"] * 1000
        parts.append(f"Pero el builtin solo tarda **{fmt(us, 1)} µs**: casi todo lo que mide la semilla es "
                     "el arranque del segundo `date` (fork, exec y carga de la biblioteca de C), no el `echo`.")
    if "proceso" in bare and "metodo_semilla" in bare:
        r = bare["metodo_semilla"]["mediana_ms"] / bare["proceso"]["mediana_ms"]
        parts.append(f"Por casualidad, el método de la semilla queda a {fmt(r, 2)}x del proceso real: "
                     "mide otra cosa, pero del mismo orden. Por eso los multiplicadores «× bare metal» "
                     "dependen de qué línea base se elige: elige siempre el mismo tipo de trabajo.")
    text = " ".join(parts) or "Esta corrida no midió bare metal."
    markdown(text)
    return text


@needs_result
def comparacion(resultado: Resultado):
    """Your ratios next to the reference's (the seed: Docker 28.4.0, Podman 4.6.2, Linux 6.12)."""
    ref = reference.load("arranque")
    c = arranque.compare(resultado.df, resultado.meta, ref)
    out = pd.DataFrame({
        "Combinación": [f"{ENGINE_LABEL[e]} / {r}" for e, r in zip(c["engine"], c["role"])],
        "Referencia: mediana (ms)": [fmt(v, 1) for v in c["ref_mediana_ms"]],
        "Tú: mediana (ms)": [fmt(v, 1) for v in c["tu_mediana_ms"]],
        "Referencia: × bare (método semilla)": [fmt_ratio(v, digits=0) for v in c["ref_x_bare"]],
        "Tú: × bare (método semilla)": [fmt_ratio(v, digits=0) for v in c["tu_x_bare_metodo_semilla"]],
        "Tú: × bare (proceso real)": [fmt_ratio(v, digits=0) for v in c["tu_x_bare_proceso"]],
        "Referencia: Podman/Docker": [fmt_ratio(v) for v in c["ref_podman_sobre_docker"]],
        "Tú: Podman/Docker": [fmt_ratio(v) for v in c["tu_podman_sobre_docker"]],
    })
    show(table(out, "Tu máquina frente a la referencia (las proporciones se comparan; los ms, no)"))
    markdown(frase_comparacion(c))
    return c


def frase_comparacion(c: pd.DataFrame) -> str:
    """One generated sentence: what agrees with the reference and what does not."""
    agree, differ = [], []
    for role in c["role"].unique():
        sub = c[c["role"] == role].iloc[0]
        ref, tu = sub["ref_podman_sobre_docker"], sub["tu_podman_sobre_docker"]
        if math.isnan(tu):
            continue
        if (ref < 1) == (tu < 1) and abs(math.log(tu / ref)) < math.log(1.25):
            agree.append(f"Podman/Docker con {role} ({fmt(tu, 2)}x frente a {fmt(ref, 2)}x)")
        else:
            faster = "Podman" if tu < 1 else "Docker"
            differ.append(f"con {role} Podman/Docker es {fmt(tu, 2)}x (en la referencia {fmt(ref, 2)}x: "
                          f"aquí arranca antes {faster})")
    x = c["tu_x_bare_metodo_semilla"].dropna()
    xr = c["ref_x_bare"][c["tu_x_bare_metodo_semilla"].notna()]
    scale = ""
    if len(x):
        scale = (f" Los contenedores cuestan aquí entre {fmt(x.min(), 0)}x y {fmt(x.max(), 0)}x el método de la "
                 f"semilla (en la referencia, entre {fmt(xr.min(), 0)}x y {fmt(xr.max(), 0)}x).")
    if not agree and not differ:
        return "No hay combinaciones de contenedores medidas para comparar con la referencia." + scale
    text = ""
    if agree:
        text += "Coincide con la referencia: " + "; ".join(agree) + "."
    if differ:
        text += (" " if text else "") + "No coincide: " + "; ".join(differ) + "."
    return text + scale


def frase_veredicto(claim: arranque.Claim) -> str:
    interval = fmt_ratio(claim.value, claim.low, claim.high)
    if claim.key == "podman_2x":
        role = claim.detail.get("role")
        if claim.status == "sin_datos":
            return f"«Podman arranca el doble de rápido que Docker» ({role}): {VERDICT['sin_datos']}."
        what = {"confirmada": "Podman arranca mucho más rápido, en línea con el «2x» de la semilla",
                "parcial": "Podman es más rápido, pero lejos del doble",
                "refutada": "aquí Docker arranca **antes** que Podman",
                "ruido": "la diferencia entre los dos motores no se distingue del ruido"}[claim.status]
        return (f"**«Podman arranca el doble de rápido que Docker» ({role}) — {VERDICT[claim.status]}.** "
                f"Docker/Podman = {interval} (mediana, IC 95 %; la semilla afirma ≈2x): {what}.")
    engine = ENGINE_LABEL.get(claim.detail.get("engine"), "?")
    pct = (claim.value - 1) * 100
    if claim.status == "refutada":
        what = f"la imagen grande cambia el arranque un {fmt(pct, 0)} %, claramente más del 10 %"
    elif claim.status == "parcial":
        what = (f"hay una diferencia medible ({fmt(pct, 0)} %), pero el IC 95 % no permite decir si "
                "supera el 10 %")
    elif claim.status == "confirmada":
        what = "la diferencia cabe dentro de ±10 % con un IC 95 % estrecho"
    else:
        what = "el IC 95 % incluye 1: con estas repeticiones no hay diferencia medible, como dice la semilla"
    return (f"**«Alpine o Ubuntu casi no importa» ({engine}) — {VERDICT[claim.status]}.** "
            f"Ubuntu/Alpine = {interval}: {what}.")


@needs_result
def veredictos(resultado: Resultado) -> list[str]:
    sentences = [frase_veredicto(c) for c in arranque.claims(resultado.df, resultado.meta)]
    markdown("\n\n".join(f"- {s}" for s in sentences) if sentences else "_Sin datos para un veredicto._")
    return sentences


def encabezado(panel) -> Resultado | None:
    """Say which run the following cells show; show its table too when the panel above did not
    (the run came from disk because nobody pressed «Ejecutar» in this session)."""
    resultado = panel.resultado()
    if resultado is None:
        markdown(NO_RESULT)
        return None
    markdown(run_caption(resultado))
    if not panel.midio():
        show(tabla(resultado))
    return resultado
