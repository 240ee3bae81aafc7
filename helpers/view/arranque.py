"""Experiment 1 as a person sees it: tables, plot, reference comparison and verdicts, in Spanish."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FuncFormatter

from .. import experiments, reference, stats
from ..experiments import arranque, verdict
from ..experiments.arranque.analysis import (
    arm_values,
    compare,
    pair_ratio,
    summarize,
    unstable_arms,
    with_roles,
)
from ..experiments.arranque.measure import METRIC, NO_NETWORK_VARIANT
from ..experiments.runner import Resultado
from .arranque_condiciones import (  # noqa: F401 - views of the conditions, shown by notebook 01
    bucle,
    primer_arranque,
    red,
    segunda_ronda,
    tamanos,
)
from .citas import answer
from .common import (
    AGREEMENT,
    AGREEMENT_MARGIN,
    claims_list,
    decimals_for,
    direction_words,
    engine_label,
    fmt,
    fmt_interval,
    fmt_pct,
    fmt_ratio,
    markdown,
    needs_result,
    num,
    run_caption,
    show,
    significant,
    tabla_contexto,
    table,
    too_few_banner,
)
from .figuras import show_figure

VARIANT_LABEL = {
    "proceso": "proceso real (`echo ok` como programa)",
    "metodo_semilla": "método del capítulo original (builtin entre dos `date`)",
    "builtin": "solo el builtin `echo` (sin procesos)",
    "por_defecto": "`run --rm IMAGEN echo ok`",
    "sin_red": "`run --rm --network none IMAGEN echo ok`",
}
# How this notebook launches, said in every table (the chapter's conditions; the variant is labelled).
LAUNCH_OPTIONS = (
    "`run --rm IMAGEN echo ok` en primer plano (la terminal espera a que termine) y con la "
    "red por defecto (puente), como el capítulo; la variante «sin red» añade `--network none`"
)


def _combo(row, meta: dict | None = None) -> str:
    if row["engine"] == "bare":
        return f"bare metal — {VARIANT_LABEL.get(row['variant'], row['variant'])}"
    net = " · sin red (variante)" if row["variant"] == NO_NETWORK_VARIANT else ""
    return f"{engine_label(row['engine'], meta)} / {row['role']}{net}"


def _ms_digits(row) -> int:
    """Decimals for one arm's milliseconds: those its median's IC supports (view.common.decimals_for),
    3 significant digits of the median without an IC."""
    d = decimals_for(row["ic_bajo_ms"], row["ic_alto_ms"])
    return significant(row["mediana_ms"]) if d is None else d


@needs_result
def tabla(resultado: Resultado) -> None:
    """Results table: median, IQR, min, IC 95 % and × bare metal (real process) with its IC."""
    s = summarize(resultado.df, resultado.meta)
    if s.empty:
        markdown("_Esta corrida no tiene filas todavía._")
        return
    # Each row's milliseconds with the decimals its median's IC supports (3 significant digits without one)
    digits = [_ms_digits(r) for _, r in s.iterrows()]
    baseline = (s["engine"] == arranque.BASELINE[0]) & (s["variant"] == arranque.BASELINE[1])
    out = pd.DataFrame(
        {
            "Combinación": [_combo(r, resultado.meta).replace("`", "") for _, r in s.iterrows()],
            "Imagen real": [r["image"] or "—" for _, r in s.iterrows()],
            "n": s["n"],
            "Mediana (ms)": [fmt(v, d) for v, d in zip(s["mediana_ms"], digits)],
            "IQR (ms)": [fmt_interval(a, b, d) for a, b, d in zip(s["q1_ms"], s["q3_ms"], digits)],
            "Mín (ms)": [fmt(v, d) for v, d in zip(s["min_ms"], digits)],
            "IC 95 % mediana (ms)": [
                fmt_interval(a, b, d) for a, b, d in zip(s["ic_bajo_ms"], s["ic_alto_ms"], digits)
            ],
            "× bare metal [IC 95 %]": [
                "1× (la línea base)"
                if base
                else "repite: la línea base es inestable"
                if shaky
                else fmt_ratio(r, lo, hi)
                for base, shaky, r, lo, hi in zip(
                    baseline, s["base_inestable"], s["x_bare"], s["x_bare_ic_bajo"], s["x_bare_ic_alto"]
                )
            ],
        }
    )
    unstable = unstable_arms(resultado.df, resultado.meta)
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
            "Arranque: tiempo de echo ok (IQR con cuantiles lineales; IC 95 % de la mediana por la prueba "
            "del signo; × bare metal, ronda a ronda). "
            f"Contenedores: {LAUNCH_OPTIONS.replace('`', '')}.",
        )
    )


@needs_result
def grafico(resultado: Resultado) -> None:
    """Every repetition as a dot, with its median as a bar; log scale (bare metal is ~1000x faster)."""
    df = with_roles(resultado.df, resultado.meta)
    df = df[df["metric"] == METRIC].copy()
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
    # «0.1», «1», «100» in the course's number format, not «10⁻¹»
    ax.xaxis.set_major_formatter(
        FuncFormatter(lambda v, _: num(v, max(0, -math.floor(math.log10(v)))) if v > 0 else "")
    )
    ax.set_xlabel("tiempo de arranque (ms, escala logarítmica)")
    ax.set_ylabel("")
    ax.set_title("Cada repetición es un punto; la barra negra es la mediana")
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    show_figure(fig)


def _bare_ci(df, meta, a: str, b: str) -> tuple[float, float, float]:
    return pair_ratio(df, meta, ("bare", a), ("bare", b))


def _frases_bare_metal(s: pd.DataFrame, df: pd.DataFrame, meta: dict | None) -> list[str]:
    """The lesson of the baseline, every conclusion from this run's figures: what the chapter's method
    measures (the builtin's share of it) and how far it lands from a real process."""
    bare = {r["variant"]: r for _, r in s[s["engine"] == "bare"].iterrows()}
    parts = []
    if "proceso" in bare:
        parts.append(
            f"Lanzar `echo ok` como proceso real cuesta **{fmt(bare['proceso']['mediana_ms'], _ms_digits(bare['proceso']))} ms** "
            "(mediana): esa es la línea base del mismo tipo que un contenedor, que también es un proceso nuevo."
        )
    if "metodo_semilla" in bare:
        parts.append(
            f"El método del capítulo original (el builtin `echo` entre dos `date +%s%N`) da "
            f"**{fmt(bare['metodo_semilla']['mediana_ms'], _ms_digits(bare['metodo_semilla']))} ms**."
        )
    if "builtin" in bare and "metodo_semilla" in bare:
        ms = bare["builtin"]["mediana_ms"]
        share, low, high = _bare_ci(df, meta, "builtin", "metodo_semilla")
        d = decimals_for(low * 100, high * 100)
        d = significant(share * 100) if d is None else d
        text = f"El builtin solo tarda **{fmt(ms * 1000, 1)} µs**: {fmt_pct(share * 100, d, sign=False)} de esa cifra"
        # Which part dominates the chapter's figure: the builtin's share against one half, by the rule.
        side = verdict.side(low, high, None, around=0.5)
        if side in (verdict.BELOW, verdict.BELOW_NULL):
            text += (
                f" (IC 95 % {fmt_interval(low * 100, high * 100, d, '%')}). Lo demás es lo que tarda en arrancar "
                "el segundo `date` (fork, exec y carga de la biblioteca de C): el método mide `date`, no `echo`."
            )
        elif side in (verdict.ABOVE, verdict.ABOVE_NULL):
            text += " : aquí el builtin es la mayor parte de lo que mide el método del capítulo."
        else:
            text += (
                f" (IC 95 % {fmt_interval(low * 100, high * 100, d, '%')}): esta corrida no alcanza para decir "
                "qué parte domina."
            )
        parts.append(text)
    if "proceso" in bare and "metodo_semilla" in bare:
        r, low, high = _bare_ci(df, meta, "metodo_semilla", "proceso")
        order = verdict.reading(low, high, None, region=(1 / verdict.ORDER, verdict.ORDER))
        if order == verdict.SE_CONFIRMA:
            where = "mide otra cosa, pero del mismo orden"
        elif order == verdict.NO_SE_SOSTIENE:
            where = "y no es del mismo orden: los «× bare metal» cambiarían mucho con una u otra línea base"
        else:
            where = "un intervalo demasiado ancho para decir si es del mismo orden"
        parts.append(
            f"El método del capítulo queda a {fmt_ratio(r, low, high)} del proceso real: {where}. "
            "Un «× bare metal» depende de qué línea base se elige: elige el mismo tipo de trabajo."
        )
    virt = (meta.get("host") or {}).get("virtualization") or {} if meta else {}
    if virt.get("es_vm"):
        parts.append(virt["descripcion"])
    return parts


@needs_result
def leccion_bare_metal(resultado: Resultado) -> None:
    """The lesson of the baseline, generated from this run (frases_bare_metal)."""
    s = summarize(resultado.df, resultado.meta)
    parts = _frases_bare_metal(s, resultado.df, resultado.meta)
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
    c = compare(resultado.df, resultado.meta, ref)

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
            "Tú: mediana (ms)": [fmt(v, significant(v)) for v in c["tu_mediana_ms"]],
            "Referencia: × bare (método del capítulo)": [
                fmt_ratio(v, lo, hi, 0)
                for v, lo, hi in zip(c["ref_x_bare"], c["ref_x_bare_ic_bajo"], c["ref_x_bare_ic_alto"])
            ],
            "Tú: × bare (método del capítulo)": ratio("tu_x_bare_", "metodo_semilla", 0),
            "¿Coinciden? (× bare)": [AGREEMENT[a] for a in c["acuerdo_x_bare"]],
            "Referencia: Podman/Docker": ratio("ref_", "podman_sobre_docker"),
            "Tú: Podman/Docker": ratio("tu_", "podman_sobre_docker", None),
            "¿Coinciden? (Podman/Docker)": [AGREEMENT[a] for a in c["acuerdo_podman_sobre_docker"]],
        }
    )
    show(
        table(
            out,
            "Tu máquina frente a la referencia: proporciones con su IC 95 %; «coincide» si tu proporción "
            f"÷ la de referencia, con su intervalo, cae entera {AGREEMENT_MARGIN} (los ms absolutos no "
            "se comparan). Esta columna cuenta también la incertidumbre de las 10 repeticiones del "
            "capítulo; los veredictos de abajo juzgan otra cosa: tu cifra frente a la que el capítulo "
            "escribió («~2x»), con el margen de su tipo. Por eso pueden decir cosas distintas",
        )
    )
    markdown(_frase_comparacion(c) + " " + _published_x_bare(ref))


# The chapter's table «Medianas y multiplicadores» prints «vs Bare Metal» multipliers computed from its
# rounded bare-metal median (1.8 ms); the table above recomputes them from the chapter's own rows.
CHAPTER_X_BARE = {("docker", "ubuntu"): 238, ("docker", "alpine"): 239}
CHAPTER_X_BARE.update({("podman", "ubuntu"): 118, ("podman", "alpine"): 107})
CHAPTER_BARE_MS = 1.8


def _published_x_bare(reference_df: pd.DataFrame) -> str:
    """Why the reference's «× bare» above differs from the multipliers the chapter prints."""
    bare = arm_values(reference_df, None, ("bare", "metodo_semilla"))
    if not bare.size:
        return ""
    median = float(pd.Series(bare).median())
    printed = ", ".join(f"~{v}× ({engine_label(e)}/{r})" for (e, r), v in CHAPTER_X_BARE.items())
    said = (
        f"El capítulo imprime {printed}: dividió sus medianas por la de bare metal redondeada a "
        f"{fmt(CHAPTER_BARE_MS, 1)} ms."
    )
    if stats.unstable(bare):  # summarize divides nothing by it: the table's «× bare» column is «—»
        return said + (
            f" La tabla no las recalcula: sus diez repeticiones de bare metal (mediana {fmt(median, 3)} ms, "
            f"de {fmt(min(bare), 1)} a {fmt(max(bare), 1)} ms) son una línea base inestable, y una "
            "proporción sobre ella no diría nada."
        )
    return said + (
        f" La tabla las recalcula con sus diez repeticiones (mediana de bare metal {fmt(median, 3)} ms), "
        f"por eso salen algo más {'bajas' if median > CHAPTER_BARE_MS else 'altas'}."
    )


def _frase_comparacion(c: pd.DataFrame) -> str:
    """One generated sentence: what agrees with the reference (figures.agreement: this machine ÷ the
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
            2,  # as the table prints it: the chapter's 0.45×, not 0.4×
        )
        if status == "coincide":
            agree.append(f"Podman/Docker con {role}: {tu} frente a {ref}")
        elif status == "no_concluyente":
            unsure.append(f"Podman/Docker con {role}: {tu} frente a {ref}")
        else:
            low, high = sub["tu_podman_sobre_docker_ic_bajo"], sub["tu_podman_sobre_docker_ic_alto"]
            quicker = direction_words(
                verdict.side(low, high, None), "aquí tarda menos Docker", "aquí tarda menos Podman"
            )
            differ.append(f"Podman/Docker con {role}: {tu} frente a {ref} ({quicker})")
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


def _respuesta(claims) -> str:
    """The course's answer to «is Podman faster to start?», generated from the verdicts of
    `podman_mas_rapido` (this notebook decides it; 02 cites it)."""
    faster = [c for c in claims if c.key == "podman_mas_rapido"]
    if not faster:
        return "Esta corrida no midió Docker y Podman juntos: aún no hay respuesta."
    parts = [answer(c) for c in faster]
    return (
        "**¿Arranca Podman más rápido que Docker?** En las condiciones del capítulo (`run --rm`, red por "
        "defecto), en tu máquina: " + "; ".join(parts) + "."
    )


@needs_result
def veredictos(resultado: Resultado) -> None:
    """The chapter's claims judged on this run, and the answer to the course's question they give."""
    claims = experiments.judged(resultado)
    markdown(too_few_banner(max((c.n for c in claims), default=0)))
    claims_list(claims)
    markdown(_respuesta(claims))


@needs_result
def encabezado(resultado: Resultado, panel=None) -> None:
    """Say which run the following cells show; show its table too when the panel above did not
    (the run came from disk because nobody pressed «Ejecutar» in this session)."""
    markdown(run_caption(resultado))
    if panel is not None and not panel.midio():
        tabla(resultado)
