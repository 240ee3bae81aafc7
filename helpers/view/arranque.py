"""Experiment 1 as a person sees it: tables, plot, reference comparison and verdicts, in Spanish."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from .. import experiments, reference
from ..experiments import anatomia, arranque, escala
from ..experiments.runner import Resultado
from .common import (
    AGREEMENT,
    AGREEMENT_MARGIN,
    ENGINE_LABEL,
    claims_list,
    engine_label,
    fmt,
    fmt_interval,
    fmt_ratio,
    markdown,
    needs_result,
    run_caption,
    show,
    tabla_contexto,
    table,
)
from .escala import LAUNCH_OPTIONS as ESCALA_LAUNCH_OPTIONS

VARIANT_LABEL = {
    "proceso": "proceso real (`echo ok` como programa)",
    "metodo_semilla": "método del capítulo original (builtin entre dos `date`)",
    "builtin": "solo el builtin `echo` (sin procesos)",
    "por_defecto": "`run --rm IMAGEN echo ok`",
}
# How this notebook launches, said in every table (02 launches differently, and it shows).
LAUNCH_OPTIONS = (
    "`run --rm IMAGEN echo ok` en primer plano (la terminal espera a que termine) y con la "
    "red por defecto (puente)"
)


def _combo(row, meta: dict | None = None) -> str:
    if row["engine"] == "bare":
        return f"bare metal — {VARIANT_LABEL.get(row['variant'], row['variant'])}"
    return f"{engine_label(row['engine'], meta)} / {row['role']}"


@needs_result
def tabla(resultado: Resultado) -> None:
    """Results table: median, IQR, min, IC 95 % and × bare metal (real process) with its IC."""
    s = arranque.summarize(resultado.df, resultado.meta)
    if s.empty:
        markdown("_Esta corrida no tiene filas todavía._")
        return
    out = pd.DataFrame(
        {
            "Combinación": [_combo(r, resultado.meta).replace("`", "") for _, r in s.iterrows()],
            "Imagen real": [r["image"] or "—" for _, r in s.iterrows()],
            "n": s["n"],
            "Mediana (ms)": [fmt(v, 2) for v in s["mediana_ms"]],
            "IQR (ms)": [fmt_interval(a, b, 2) for a, b in zip(s["q1_ms"], s["q3_ms"])],
            "Mín (ms)": [fmt(v, 2) for v in s["min_ms"]],
            "IC 95 % mediana (ms)": [fmt_interval(a, b, 2) for a, b in zip(s["ic_bajo_ms"], s["ic_alto_ms"])],
            "× bare metal [IC 95 %]": [
                fmt_ratio(r, lo, hi, 2 if r < 10 else 0)
                for r, lo, hi in zip(s["x_bare"], s["x_bare_ic_bajo"], s["x_bare_ic_alto"])
            ],
        }
    )
    unstable = arranque.unstable_arms(resultado.df, resultado.meta)
    out.insert(
        1,
        "Estable",
        [
            "no: repite" if (r["engine"], r["role"], r["variant"]) in unstable else "sí"
            for _, r in s.iterrows()
        ],
    )
    show(
        table(
            out,
            "Arranque: tiempo de `echo ok` (IQR con cuantiles lineales; IC 95 % por bootstrap). "
            f"Contenedores: {LAUNCH_OPTIONS.replace('`', '')}.",
        )
    )


@needs_result
def grafico(resultado: Resultado) -> None:
    """Every repetition as a dot, with its median as a bar; log scale (bare metal is ~1000x faster)."""
    df = arranque.with_roles(resultado.df, resultado.meta)
    df = df[df["metric"] == arranque.METRIC].copy()
    if df.empty:
        markdown("_No hay repeticiones que dibujar._")
        return
    df["Combinación"] = [_combo(r, resultado.meta).replace("`", "") for _, r in df.iterrows()]
    order = list(dict.fromkeys(df.sort_values(["engine", "role", "variant"])["Combinación"]))
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(order) + 1.5))
    sns.stripplot(
        data=df,
        x="value",
        y="Combinación",
        order=order,
        hue="engine",
        palette="deep",
        alpha=0.7,
        jitter=0.2,
        ax=ax,
        legend=False,
    )
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


@needs_result
def leccion_bare_metal(resultado: Resultado) -> None:
    """The lesson of the baseline: the seed's method measures the cost of `date`, not of `echo`."""
    s = arranque.summarize(resultado.df, resultado.meta)
    bare = {r["variant"]: r for _, r in s[s["engine"] == "bare"].iterrows()}
    parts = []
    if "proceso" in bare:
        parts.append(
            f"Lanzar `echo ok` como proceso real cuesta **{fmt(bare['proceso']['mediana_ms'], 2)} ms** "
            "(mediana): esa es la línea base justa, porque un contenedor también es un proceso nuevo."
        )
    if "metodo_semilla" in bare:
        parts.append(
            f"El método del capítulo original (el builtin `echo` entre dos `date +%s%N`) da "
            f"**{fmt(bare['metodo_semilla']['mediana_ms'], 2)} ms**."
        )
    if "builtin" in bare:
        ms = bare["builtin"]["mediana_ms"]
        parts.append(
            f"Pero el builtin solo tarda **{fmt(ms, 4)} ms** ({fmt(ms * 1000, 1)} µs): casi todo lo "
            "que mide el capítulo es el arranque del segundo `date` (fork, exec y carga de la "
            "biblioteca de C), no el `echo`."
        )
    if "proceso" in bare and "metodo_semilla" in bare:
        r = bare["metodo_semilla"]["mediana_ms"] / bare["proceso"]["mediana_ms"]
        parts.append(
            f"Por casualidad, el método del capítulo queda a {fmt_ratio(r)} del proceso real: "
            "mide otra cosa, pero del mismo orden. Por eso los multiplicadores «× bare metal» "
            "dependen de qué línea base se elige: elige siempre el mismo tipo de trabajo."
        )
    virt = (resultado.meta.get("host") or {}).get("virtualization") or {}
    if virt.get("es_vm"):
        parts.append(virt["descripcion"])
    markdown(" ".join(parts) or "Esta corrida no midió bare metal.")


REFERENCE_NETWORK = "por defecto (puente), en primer plano"


@needs_result
def contexto(resultado: Resultado) -> None:
    """What the reference machine and this one run, factor by factor (see view.common.tabla_contexto)."""
    ref = dict(reference.VERSIONS["seed000"], red=REFERENCE_NETWORK)
    show(tabla_contexto(resultado, "por defecto (puente), en primer plano", ref))


@needs_result
def comparacion(resultado: Resultado) -> None:
    """Your ratios next to the reference's (the original chapter: Docker 28.4.0, Podman 4.6.2, Linux 6.12),
    each with its IC 95 % (the reference's bootstrapped from its own ten repetitions)."""
    ref = reference.load("arranque")
    c = arranque.compare(resultado.df, resultado.meta, ref)

    def ratio(prefix, col, digits=2):
        return [
            fmt_ratio(v, lo, hi, digits)
            for v, lo, hi in zip(
                c[f"{prefix}{col}"], c[f"{prefix}{col}_ic_bajo"], c[f"{prefix}{col}_ic_alto"]
            )
        ]

    out = pd.DataFrame(
        {
            "Combinación": [
                f"{engine_label(e, resultado.meta)} / {r}" for e, r in zip(c["engine"], c["role"])
            ],
            "Referencia: mediana (ms)": [fmt(v, 1) for v in c["ref_mediana_ms"]],
            "Tú: mediana (ms)": [fmt(v, 1) for v in c["tu_mediana_ms"]],
            "Referencia: × bare (método del capítulo)": [
                fmt_ratio(v, lo, hi, 0)
                for v, lo, hi in zip(c["ref_x_bare"], c["ref_x_bare_ic_bajo"], c["ref_x_bare_ic_alto"])
            ],
            "Tú: × bare (método del capítulo)": ratio("tu_x_bare_", "metodo_semilla", 0),
            "¿Coinciden? (× bare)": [AGREEMENT[a] for a in c["acuerdo_x_bare"]],
            "Referencia: Podman/Docker": ratio("ref_", "podman_sobre_docker"),
            "Tú: Podman/Docker": ratio("tu_", "podman_sobre_docker"),
            "¿Coinciden? (Podman/Docker)": [AGREEMENT[a] for a in c["acuerdo_podman_sobre_docker"]],
        }
    )
    show(
        table(
            out,
            "Tu máquina frente a la referencia: proporciones con su IC 95 %; «coincide» si tu proporción "
            f"÷ la de referencia, con su intervalo, cae entera {AGREEMENT_MARGIN} (los ms absolutos no "
            "se comparan)",
        )
    )
    markdown(_frase_comparacion(c))


def _frase_comparacion(c: pd.DataFrame) -> str:
    """One generated sentence: what agrees with the reference (verdict.agreement: this machine ÷ the
    reference within 0.8×-1.25×), what does not, and what the intervals cannot tell yet."""
    agree, differ, unsure = [], [], []
    for role in c["role"].unique():
        sub = c[c["role"] == role].iloc[0]
        status = sub["acuerdo_podman_sobre_docker"]
        if status == "sin_datos":
            continue
        tu = fmt_ratio(
            sub["tu_podman_sobre_docker"],
            sub["tu_podman_sobre_docker_ic_bajo"],
            sub["tu_podman_sobre_docker_ic_alto"],
        )
        ref = fmt_ratio(
            sub["ref_podman_sobre_docker"],
            sub["ref_podman_sobre_docker_ic_bajo"],
            sub["ref_podman_sobre_docker_ic_alto"],
        )
        if status == "coincide":
            agree.append(f"Podman/Docker con {role}: {tu} frente a {ref}")
        elif status == "no_concluyente":
            unsure.append(f"Podman/Docker con {role}: {tu} frente a {ref}")
        else:
            quicker = "Podman" if sub["tu_podman_sobre_docker"] < 1 else "Docker"
            differ.append(f"Podman/Docker con {role}: {tu} frente a {ref} (aquí tarda menos {quicker})")
    seen = c[c["acuerdo_x_bare"] != "sin_datos"]
    scale = ""
    if len(seen):
        scale = (
            f" Con la línea base del capítulo, un contenedor cuesta aquí entre "
            f"{fmt_ratio(seen['tu_x_bare_metodo_semilla'].min(), digits=0)} y "
            f"{fmt_ratio(seen['tu_x_bare_metodo_semilla'].max(), digits=0)} lo que cuesta bare metal "
            f"(en la referencia, entre {fmt_ratio(seen['ref_x_bare'].min(), digits=0)} y "
            f"{fmt_ratio(seen['ref_x_bare'].max(), digits=0)})."
        )
    if not agree and not differ and not unsure:
        return "No hay combinaciones de contenedores medidas para comparar con la referencia." + scale
    text = ""
    if agree:
        text += (
            f"Coincide con la referencia (tu cifra ÷ la suya, {AGREEMENT_MARGIN}): " + "; ".join(agree) + "."
        )
    if differ:
        text += (
            (" " if text else "")
            + f"No coincide (tu cifra ÷ la suya, fuera del margen {AGREEMENT_MARGIN}): "
            + "; ".join(differ)
            + "."
        )
    if unsure:
        text += (
            (" " if text else "")
            + "No concluyente (los intervalos son demasiado anchos para decirlo): "
            + "; ".join(unsure)
            + "."
        )
    return text + scale


def _launch_rows(resultado: Resultado | None, escala_result: Resultado | None) -> list[dict]:
    rows = []
    if resultado is not None:
        for role in ("ubuntu", "alpine"):
            ratio = arranque.pair_ratio(resultado.df, resultado.meta, ("podman", role), ("docker", role))
            if not math.isnan(ratio[0]):
                rows.append(
                    {
                        "Cuaderno": f"01 (arranque, {role})",
                        "Cómo lanza": LAUNCH_OPTIONS.replace("`", ""),
                        "Podman/Docker [IC 95 %]": fmt_ratio(*ratio),
                        "valor": ratio[0],
                    }
                )
    if escala_result is not None:
        ratio = escala.launch_ratio(escala_result.df)
        if not math.isnan(ratio[0]):
            rows.append(
                {
                    "Cuaderno": "02 (escala, por contenedor)",
                    "Cómo lanza": ESCALA_LAUNCH_OPTIONS.replace("`", ""),
                    "Podman/Docker [IC 95 %]": fmt_ratio(*ratio),
                    "valor": ratio[0],
                }
            )
    return rows


def dos_respuestas(resultado: Resultado | None = None, *, root=None) -> None:
    """One story for 01 and 02: the same question (Podman/Docker at launch) asked with two sets of launch
    options, side by side, and the network's share measured in 04 where there is a run of it (else the
    question, pointing to 04). `resultado` is a run of 01 or 02; the other notebook's latest run is
    read through the registry (arranque and escala declare each other in READS)."""
    runs = {"arranque": None, "escala": None}
    if resultado is not None and resultado.experiment in runs:
        runs[resultado.experiment] = resultado
    if runs["arranque"] is None:
        runs["arranque"] = experiments.read_run(escala, "arranque", root)
    if runs["escala"] is None:
        runs["escala"] = experiments.read_run(arranque, "escala", root)
    rows = _launch_rows(runs["arranque"], runs["escala"])
    if not rows:
        markdown("**Aún no hay resultados** de 01 ni de 02 con Docker y Podman en esta máquina.")
        return
    out = pd.DataFrame(rows)
    show(
        table(
            out.drop(columns="valor"),
            "La misma pregunta con dos formas de lanzar: Podman/Docker (menos de 1× = Podman tarda menos)",
        )
    )
    lines = []
    faster = {r["Cuaderno"][:2]: ("Podman" if r["valor"] < 1 else "Docker") for r in rows}
    if len(set(faster.values())) > 1:
        lines.append(
            "Aquí los dos cuadernos **no** responden lo mismo: en uno tarda menos "
            f"{faster.get('01', '?')} y en el otro {faster.get('02', '?')}. No es una contradicción: "
            "01 lanza en primer plano con la red por defecto, 02 en segundo plano y sin red, y cada "
            "motor paga esas dos cosas de forma distinta."
        )
    elif len(faster) > 1:
        lines.append(
            "Los dos cuadernos coinciden en qué motor tarda menos, aunque la proporción cambia con "
            "la forma de lanzar."
        )
    anatomy = experiments.read_run(arranque, "anatomia", root)
    share = anatomia.network_share(anatomy) if anatomy is not None else {}
    if share:
        parts = [
            f"en {ENGINE_LABEL[e]}, la red por defecto añade {fmt(v['red_ms'], 0)} ms "
            f"{fmt_interval(*v['red_ic'], 0, 'ms')} a un arranque de {fmt(v['con_red_ms'], 0)} ms "
            f"({fmt(v['fraccion'] * 100, 0)} %)"
            for e, v in share.items()
        ]
        lines.append(
            "El cuaderno 04 (anatomía del arranque) lo midió en esta máquina: " + "; ".join(parts) + "."
        )
    else:
        lines.append(
            "¿Cuánto de esa diferencia es la red? El cuaderno 04 (anatomía del arranque) mide cada "
            "motor con y sin red, en la misma corrida: ejecútalo y vuelve a esta celda."
        )
    markdown(" ".join(lines))


@needs_result
def veredictos(resultado: Resultado) -> None:
    claims_list(arranque.claims(resultado.df, resultado.meta))


@needs_result
def encabezado(resultado: Resultado, panel=None) -> None:
    """Say which run the following cells show; show its table too when the panel above did not
    (the run came from disk because nobody pressed «Ejecutar» in this session)."""
    markdown(run_caption(resultado))
    if panel is not None and not panel.midio():
        tabla(resultado)
