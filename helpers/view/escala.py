"""What a person sees of experiment 2 (escala): tables, seaborn plots and Spanish verdicts."""

from __future__ import annotations

import functools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .. import experiments, reference
from ..experiments import escala
from ..experiments.escala.analysis import (
    SEED_CROSSOVER,
    column,
    compare,
    crossover,
    largest_n,
    memory_bill,
    noise,
    stats_vs_cgroup,
    summarize,
    wide,
)
from ..experiments.escala.per_n import ratio_at
from ..experiments.runner import Resultado
from .citas import cited_answer
from .common import (
    AGREEMENT,
    AGREEMENT_MARGIN,
    NO_RESULT,
    claims_list,
    engine_label,
    fmt,
    fmt_ratio,
    markdown,
    missing_run,
    needs_result,
    num,
    show,
    significant,
    tabla_contexto,
    table,
    too_few_banner,
)
from .escala_frases import (
    MB,
    crossover_lines,
    frase_factura,
    frase_referencia,
    frase_ruido,
    frase_stats,
    launch_options,
    same_way,
)
from .figuras import show_figure
from .panel import Preset


def _engine(name: str, meta: dict | None = None) -> str:
    return engine_label(name, meta)


# ---------------------------------------------------------------- tables
def _cells(values, digits: int) -> list[str]:
    """A column of numbers formatted through view.common (never a raw float like 134.800000)."""
    return [fmt(float(v), digits) for v in values]


def _two_digits(values) -> list[str]:
    """One timing each, without an interval: 2 significant digits («2.5», «0.048»)."""
    return [fmt(float(v), significant(float(v), 2)) for v in values]


def _fixed_rss(df: pd.DataFrame, s: pd.DataFrame) -> pd.Series:
    """dockerd + containerd per (engine, N) of the summary, as the memory bill sums them (the median of
    their per-repetition sum), so the two tables print the same figure; NaN for Podman (no daemon)."""
    fixed = memory_bill(df, "rss").set_index(["engine", "n"])["fijo_kb"]
    return pd.Series(
        [fixed.get((e, n), np.nan) if e == "docker" else np.nan for e, n in zip(s["engine"], s["n"])],
        dtype=float,
    )


@needs_result
def tabla(resultado: Resultado) -> None:
    """Main results: per engine and N, medians over repetitions."""
    s = summarize(resultado.df, resultado.meta)
    if s.empty:
        markdown("_La corrida no tiene filas._")
        return
    col = lambda name: column(s, name)  # noqa: E731
    out = pd.DataFrame(
        {
            "motor": [_engine(e, resultado.meta) for e in s["engine"]],
            "N": s["n"],
            "repeticiones": s["repeticiones"],
            "lanzamiento total (s)": _cells(col("lanzamiento_total"), 2),
            "ms por contenedor": _cells(col("lanzamiento_por_contenedor"), 0),
            "MiB de cgroup por contenedor": _cells(col("memoria_cgroup_por_contenedor") / MB, 2),
            "RSS dockerd + containerd (MiB)": _cells(_fixed_rss(resultado.df, s) / MB, 1),
            "RSS ayudantes (MiB)": _cells(col("rss_shims_total").fillna(col("rss_conmon_total")) / MB, 1),
            "PSS ayudantes (MiB)": _cells(col("pss_shims_total").fillna(col("pss_conmon_total")) / MB, 1),
            "borrado (s)": _cells(col("eliminacion_total"), 2),
        }
    )
    show(
        table(
            out,
            "Escala: medianas por motor y N (ayudantes: un shim por contenedor en Docker, "
            f"un conmon por contenedor en Podman; N = 0: solo los procesos fijos). Lanzamiento: "
            f"{launch_options(resultado.meta).replace('`', '')}.",
        )
    )


@needs_result
def tabla_factura(resultado: Resultado, base: str = "rss") -> None:
    bill = memory_bill(resultado.df, base)
    out = pd.DataFrame(
        {
            "motor": bill["engine"].map(_engine),
            "N": bill["n"],
            "procesos fijos (MiB)": _cells(bill["fijo_kb"] / MB, 1),
            "ayudantes, uno por contenedor (MiB)": _cells(bill["ayudantes_kb"] / MB, 1),
            "cgroups (MiB)": _cells(bill["cgroup_kb"] / MB, 1),
            "total (MiB)": _cells(bill["total_kb"] / MB, 1),
        }
    )
    show(
        table(
            out, f"La factura completa de memoria (costo de CAPACIDAD), contando procesos con {base.upper()}"
        )
    )
    markdown(frase_factura(bill, base))


@needs_result
def tabla_stats(resultado: Resultado) -> None:
    """The engine's `stats` against what it has to do to answer (find each container's cgroup with
    inspect, then read it), and the sentence that reads the table."""
    s = stats_vs_cgroup(resultado.df)
    if s.empty:
        markdown("_Esta corrida no cronometró «stats» (comparar_stats=False)._")
        return
    out = pd.DataFrame(
        {
            "motor": s["engine"].map(_engine),
            "N": s["n"],
            "«stats --no-stream» (s)": _two_digits(s["tiempo_stats_cli"]),
            "inspect + lectura de los cgroups (s)": _two_digits(s["tiempo_inspect_y_lectura"]),
            "solo la lectura (s)": _two_digits(s["tiempo_lectura_cgroup"]),
            "«stats» ÷ (inspect + lectura)": [fmt_ratio(v) for v in s["veces_mas_lento"]],
            "MiB por contenedor según «stats»": _cells(s["memoria_stats_cli_por_contenedor"] / MB, 2),
            "MiB por contenedor, uso bruto del cgroup": _cells(s["memoria_cgroup_por_contenedor"] / MB, 2),
            "MiB por contenedor, uso − caché inactiva": _cells(s["memoria_stats_por_contenedor"] / MB, 2),
        }
    )
    show(table(out, "«stats» del motor frente a buscar y leer los cgroups (mismos contenedores; medianas)"))
    markdown(frase_stats(s))


def _ranges(r: pd.DataFrame, key: str) -> list[str]:
    """The range over repetitions of a system-wide change, «de −30.2 a 45.9» (MiB)."""
    return [f"de {num(a / MB, 1)} a {num(b / MB, 1)}" for a, b in zip(r[f"{key}_min_kb"], r[f"{key}_max_kb"])]


@needs_result
def tabla_ruido(resultado: Resultado) -> None:
    """System-wide memory against the sum of cgroups, and the sentence that reads the table."""
    r = noise(resultado.df)
    r = r[r["n"] > 0]
    out = pd.DataFrame(
        {
            "motor": r["engine"].map(_engine),
            "N": r["n"],
            "suma de cgroups (MiB)": _cells(r["cgroup_total_kb"] / MB, 2),
            "cambio de «usada» del sistema (MiB)": _cells(r["delta_sistema_kb"] / MB, 1),
            "rango de ese cambio (MiB)": _ranges(r, "delta_sistema"),
            "cambio tras borrar todo (MiB, debería ser 0)": _cells(r["ruido_sistema_kb"] / MB, 1),
            "rango tras borrar todo (MiB)": _ranges(r, "ruido_sistema"),
        }
    )
    show(
        table(
            out,
            "Báscula de baño frente a báscula postal: memoria del sistema contra la suma de cgroups "
            "(medianas y rango de las repeticiones)",
        )
    )
    markdown(frase_ruido(r))


@needs_result
def contexto(resultado: Resultado) -> None:
    """What the chapter's machine and this one run, factor by factor (view.common.tabla_contexto). The
    chapter's script launched with `run -d` and the default network."""
    ref = dict(reference.VERSIONS["seed000"], red="por defecto (puente), run -d")
    network = resultado.meta.get("launch_network", "sin_red")
    mine = "por defecto (puente), run -d" if network == "por_defecto" else "ninguna (--network none), run -d"
    show(tabla_contexto(resultado, mine, ref))


PRESETS = [
    Preset(
        "Menos tandas (N = 0, 1 y 20)",
        {"cantidades": [0, 1, 20]},
        "Solo N = 0, 1 y 20: tarda menos, y las afirmaciones sobre 20 contenedores se juzgan igual, pero con dos "
        "tandas con contenedores no se ve si el tiempo crece en línea recta con N: dos puntos siempre caben en "
        "una recta. Por defecto, las tandas del capítulo (1, 5, 10 y 20).",
    )
]


COMPARED_NAMES = {
    "s_lanzamiento_total": "lanzar los N contenedores, en total (s)",
    "kb_por_contenedor": "memoria por contenedor, vista de «stats» (MiB)",
    "memoria_proceso_kb": "dockerd (Docker) / todos los conmon (Podman) (MiB)",
}
# (factor, decimals); None: 3 significant digits, so the chapter's 97 kB (decimal) reads 0.0925 MiB, not 0.09
COMPARED_SCALE = {
    "s_lanzamiento_total": (1, 2),
    "kb_por_contenedor": (1 / MB, None),
    "memoria_proceso_kb": (1 / MB, 1),
}


def _ratio_cells(c: pd.DataFrame, prefix: str) -> list[str]:
    return [
        fmt_ratio(v, lo, hi)
        for v, lo, hi in zip(
            c[f"{prefix}_podman_sobre_docker"],
            c[f"{prefix}_podman_sobre_docker_ic_bajo"],
            c[f"{prefix}_podman_sobre_docker_ic_alto"],
        )
    ]


@needs_result
def comparacion(resultado: Resultado) -> None:
    """This machine next to the chapter's at the same N, and the sentence that reads the table."""
    c = compare(resultado.df, resultado.meta, reference.load("escala"), experiments.judged(resultado))
    if c["n"].isna().all():
        markdown("_Faltan Docker o Podman con la misma N para comparar con el capítulo._")
        return

    def cells(prefix):
        out = []
        for k, v in zip(c["medida"], c[prefix]):
            factor, digits = COMPARED_SCALE[k]
            out.append(fmt(v * factor, significant(v * factor) if digits is None else digits))
        return out

    out = pd.DataFrame(
        {
            "medida": c["medida"].map(COMPARED_NAMES),
            "capítulo: Docker": cells("ref_docker"),
            "capítulo: Podman": cells("ref_podman"),
            "capítulo: Podman/Docker": _ratio_cells(c, "ref"),
            "tú: Docker": cells("tu_docker"),
            "tú: Podman": cells("tu_podman"),
            "tú: Podman/Docker [IC 95 %]": _ratio_cells(c, "tu"),
            "¿coinciden?": c["acuerdo"].map(AGREEMENT),
        }
    )
    n = int(c["n"].dropna().iloc[0])
    show(
        table(
            out,
            f"Tu máquina frente al capítulo original con N = {n}: el capítulo publicó una cifra por N (sin "
            "intervalo); la tuya lleva su IC 95 % por rondas, y «coincide» si tu proporción ÷ la del capítulo, "
            f"con su intervalo, cae entera {AGREEMENT_MARGIN}. Lanzamiento: "
            f"{launch_options(resultado.meta).replace('`', '')}.",
        )
    )
    markdown(frase_referencia(c))


# ---------------------------------------------------------------- plots
def _themed(func):
    """Draw inside seaborn's whitegrid style and a projector-sized context, without touching the global
    matplotlib settings."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with sns.axes_style("whitegrid"), sns.plotting_context("notebook", font_scale=1.25):
            return func(*args, **kwargs)

    return wrapper


@needs_result
@_themed
def grafico(resultado: Resultado) -> None:
    """Total launch time and ms per container against N, per engine (each repetition a point)."""
    w = wide(resultado.df)
    w = w[w["n"] > 0].copy()
    w["motor"] = w["engine"].map(_engine)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    panels = (
        ("lanzamiento_total", "tiempo total de lanzamiento (s)", "Arranque de N contenedores"),
        ("lanzamiento_por_contenedor", "ms por contenedor", "Costo de LAUNCH por contenedor"),
    )
    for ax, (metric, ylabel, title) in zip(axes, panels):
        sns.lineplot(
            data=w, x="n", y=metric, hue="motor", marker="o", errorbar=None, estimator="median", ax=ax
        )
        sns.scatterplot(data=w, x="n", y=metric, hue="motor", legend=False, alpha=0.4, ax=ax)
        ax.set(xlabel="contenedores lanzados (N)", ylabel=ylabel, title=title)
    axes[1].set_ylim(bottom=0)
    for ax in axes:
        ax.legend(title="motor")
    fig.tight_layout()
    show_figure(fig)


@needs_result
@_themed
def grafico_memoria(resultado: Resultado) -> None:
    """Stacked memory bill (fixed, helpers, cgroups) against N, per engine, with RSS and with PSS;
    plus the fitted totals extended until they cross (or clearly do not)."""
    df = resultado.df
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    colors = {"fijo_kb": "#4c72b0", "ayudantes_kb": "#dd8452", "cgroup_kb": "#55a868"}
    labels = {
        "fijo_kb": "procesos fijos (dockerd + containerd)",
        "ayudantes_kb": "ayudantes (shim / conmon)",
        "cgroup_kb": "memoria de los cgroups",
    }
    for row, base in enumerate(("rss", "pss")):
        bill = memory_bill(df, base)
        ax = axes[row, 0]
        engines_here = [e for e in ("docker", "podman") if e in set(bill["engine"])]
        ns = sorted(bill["n"].unique())
        width = 0.38
        x = np.arange(len(ns))
        for i, engine_name in enumerate(engines_here):
            g = bill[bill["engine"] == engine_name].set_index("n").reindex(ns)
            measured = g["fijo_kb"].notna().to_numpy()  # Podman has no N = 0 step: no bar, no label
            bottom = np.zeros(len(ns))
            for part in ("fijo_kb", "ayudantes_kb", "cgroup_kb"):
                values = g[part].fillna(0).to_numpy() / MB
                ax.bar(
                    x + (i - 0.5) * width,
                    values,
                    width,
                    bottom=bottom,
                    color=colors[part],
                    edgecolor="white",
                    hatch="" if engine_name == "docker" else "//",
                    label=labels[part] if i == 0 else None,
                )
                bottom += values
            for xi, total, here in zip(x, bottom, measured):
                if not here:
                    continue
                ax.text(
                    xi + (i - 0.5) * width,
                    total,
                    _engine(engine_name)[0],
                    ha="center",
                    va="bottom",
                    fontsize=10,
                )
        ax.set_xticks(x, [str(n) for n in ns])
        ax.set(
            xlabel="contenedores (N)  —  D = Docker, P = Podman (rayado)",
            ylabel="memoria (MiB)",
            title=f"Factura de memoria medida ({base.upper()})",
        )
        ax.legend(fontsize=10)
        # fitted lines and the crossover
        ax2 = axes[row, 1]
        c = crossover(df, base)
        fit = c["fit"]
        n_max = max(ns) if ns else 20
        n_cross = c["n_cruce"]
        horizon = max(SEED_CROSSOVER * 1.5, n_max * 2, (n_cross or 0) * 1.3)
        grid = np.linspace(0, horizon, 200)
        for engine_name, params in fit.items():
            ax2.plot(
                grid,
                (params["fijo_kb"] + params["por_contenedor_kb"] * grid) / MB,
                label=f"{_engine(engine_name)}: {num(params['fijo_kb'] / MB, 0)} MiB + "
                f"{num(params['por_contenedor_kb'] / MB, 1)} MiB × N",
            )
            g = bill[bill["engine"] == engine_name]
            ax2.scatter(g["n"], g["total_kb"] / MB, s=20)
        ax2.axvline(
            SEED_CROSSOVER,
            color="grey",
            ls=":",
            label=f"cruce según el capítulo (≈{SEED_CROSSOVER})",
        )
        if n_cross is not None:
            ax2.axvline(n_cross, color="red", ls="--", label=f"cruce medido: N ≈ {num(n_cross, 0)}")
        elif {"docker", "podman"} <= set(fit):
            cheaper = min(fit, key=lambda e: fit[e]["fijo_kb"] + fit[e]["por_contenedor_kb"])
            ax2.text(
                0.98,
                0.04,
                f"las rectas no se cruzan: {_engine(cheaper)} gasta menos para todo N",
                transform=ax2.transAxes,
                ha="right",
                va="bottom",
                fontsize=9,
                color="red",
            )
        ax2.set(
            xlabel="contenedores (N)",
            ylabel="memoria total estimada (MiB)",
            title=f"Total ajustado y punto de cruce ({base.upper()})",
        )
        ax2.set_xlim(0, horizon)
        ax2.set_ylim(bottom=0)
        ax2.legend(fontsize=10)
    fig.tight_layout()
    show_figure(fig)


def respuesta_de_01(resultado: Resultado | None = None, *, root=None) -> None:
    """«Is Podman faster to start?» is decided in 01 (arranque.podman_mas_rapido): cite its answer by
    key, then say how this notebook's launches differ, what they gave here, and whether the two
    conditions point the same way."""
    claim, cited = cited_answer(escala, resultado, "ubuntu", root)
    if claim is None:
        missing_run("arranque")
    else:
        markdown(cited)
    if resultado is None:  # 01's answer stands on its own; this notebook's batches wait for a run
        markdown(NO_RESULT)
        return
    figure = ratio_at(resultado.df, "lanzamiento_total", largest_n(wide(resultado.df), "docker", "podman"))
    value, low, high, reps = figure.value, figure.low, figure.high, figure.n
    if reps:
        markdown(
            f"Aquí se lanzó de otra forma: {launch_options(resultado.meta)}. En esas condiciones, lanzar "
            f"la tanda más grande le llevó a Podman {fmt_ratio(value, low, high)} lo que a Docker "
            f"(n = {reps}). Es una cifra de estas condiciones, no otra respuesta a la pregunta de 01. "
            + same_way(claim, value, low, high, reps)
        )


@needs_result
def veredictos(resultado: Resultado) -> None:
    """The chapter's claims about scale, judged by the one rule, after the whole bill (the course's
    correction to the chapter's crossover)."""
    claims = experiments.judged(resultado)
    markdown(too_few_banner(max((c.n for c in claims), default=0)))
    markdown("\n\n".join(crossover_lines(resultado.df)))
    claims_list(claims)
