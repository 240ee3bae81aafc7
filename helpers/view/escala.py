"""What a person sees of experiment 2 (escala): tables, seaborn plots and Spanish verdicts."""

from __future__ import annotations

import functools
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .. import reference
from ..experiments import escala
from ..experiments.runner import Resultado
from .common import (
    claims_list,
    engine_label,
    fmt,
    fmt_ratio,
    markdown,
    needs_result,
    num,
    show,
    tabla_contexto,
    table,
)

MB = 1024  # KiB per MiB: sizes in raw.csv are KB of 1024 bytes, shown as KiB / MiB (see view.common)
# How this notebook launches, said in its tables (01 launches differently, and it shows).
LAUNCH_OPTIONS = (
    "`run -d IMAGEN sleep 3600` en segundo plano (el cliente vuelve en cuanto el contenedor "
    "arranca) y sin red (`--network none`)"
)


def _engine(name: str, meta: dict | None = None) -> str:
    return engine_label(name, meta)


# ---------------------------------------------------------------- tables
def _cells(values, digits: int) -> list[str]:
    """A column of numbers formatted through view.common (never a raw float like 134.800000)."""
    return [fmt(float(v), digits) for v in values]


@needs_result
def tabla(resultado: Resultado) -> None:
    """Main results: per engine and N, medians over repetitions."""
    s = escala.summarize(resultado.df, resultado.meta)
    if s.empty:
        markdown("_La corrida no tiene filas._")
        return
    col = lambda name: escala.column(s, name)  # noqa: E731
    out = pd.DataFrame(
        {
            "motor": [_engine(e, resultado.meta) for e in s["engine"]],
            "N": s["n"],
            "repeticiones": s["repeticiones"],
            "lanzamiento total (s)": _cells(col("lanzamiento_total"), 2),
            "ms por contenedor": _cells(col("lanzamiento_por_contenedor"), 0),
            "KiB de cgroup por contenedor": _cells(col("memoria_cgroup_por_contenedor"), 0),
            "RSS dockerd + containerd (MiB)": _cells((col("rss_daemon") + col("rss_containerd")) / MB, 1),
            "RSS ayudantes (MiB)": _cells(col("rss_shims_total").fillna(col("rss_conmon_total")) / MB, 1),
            "PSS ayudantes (MiB)": _cells(col("pss_shims_total").fillna(col("pss_conmon_total")) / MB, 1),
            "borrado (s)": _cells(col("eliminacion_total"), 2),
        }
    )
    show(
        table(
            out,
            "Escala: medianas por motor y N (ayudantes: un shim por contenedor en Docker, "
            f"un conmon por contenedor en Podman). Lanzamiento: {LAUNCH_OPTIONS.replace('`', '')}.",
        )
    )


@needs_result
def tabla_factura(resultado: Resultado, base: str = "rss") -> None:
    bill = escala.memory_bill(resultado.df, base)
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
    show(table(out, f"La factura completa de memoria, contando procesos con {base.upper()}"))


@needs_result
def tabla_stats(resultado: Resultado) -> None:
    """The engine's `stats` against reading the cgroup files, and the sentence that reads the table."""
    s = escala.stats_vs_cgroup(resultado.df)
    if s.empty:
        markdown("_Esta corrida no cronometró «stats» (comparar_stats=False)._")
        return
    out = pd.DataFrame(
        {
            "motor": s["engine"].map(_engine),
            "N": s["n"],
            "«stats --no-stream» (s)": _cells(s["tiempo_stats_cli"], 3),
            "lectura directa del cgroup (s)": _cells(s["tiempo_lectura_cgroup"], 4),
            "veces más lento": [fmt_ratio(v, digits=0) for v in s["veces_mas_lento"]],
            "KiB por contenedor según «stats»": _cells(s["memoria_stats_cli_por_contenedor"], 0),
            "KiB por contenedor, uso bruto del cgroup": _cells(s["memoria_cgroup_por_contenedor"], 0),
            "KiB por contenedor, uso − caché inactiva": _cells(s["memoria_stats_por_contenedor"], 0),
        }
    )
    show(table(out, "«stats» del motor frente a leer el cgroup directamente (mismos contenedores)"))
    markdown(_frase_stats(resultado))


@needs_result
def tabla_ruido(resultado: Resultado) -> None:
    """System-wide memory against the sum of cgroups, and the sentence that reads the table."""
    r = escala.noise(resultado.df)
    out = pd.DataFrame(
        {
            "motor": r["engine"].map(_engine),
            "N": r["n"],
            "suma de cgroups (MiB)": _cells(r["cgroup_total_kb"] / MB, 2),
            "cambio de «usada» del sistema (MiB)": _cells(r["delta_sistema_kb"] / MB, 1),
            "rango de ese cambio (MiB)": [
                f"{num(a / MB, 1)} … {num(b / MB, 1)}"
                for a, b in zip(r["delta_sistema_min_kb"], r["delta_sistema_max_kb"])
            ],
            "cambio tras borrar todo (MiB, debería ser 0)": _cells(r["ruido_sistema_kb"] / MB, 1),
        }
    )
    show(table(out, "Báscula de baño frente a báscula postal: memoria del sistema contra la suma de cgroups"))
    markdown(_frase_ruido(resultado))


AGREEMENT = {"coincide": "coincide", "no_coincide": "no coincide", "sin_datos": "—"}


@needs_result
def contexto(resultado: Resultado) -> None:
    """What the chapter's machine and this one run, factor by factor (view.common.tabla_contexto). The
    chapter launched with the default network; this notebook launches with --network none."""
    ref = dict(reference.VERSIONS["seed000"], red="por defecto (puente), `run -d`")
    show(tabla_contexto(resultado, "ninguna (`--network none`), `run -d`", ref))


COMPARED_NAMES = {
    "ms_por_contenedor": "arranque por contenedor (ms)",
    "kb_por_contenedor": "memoria por contenedor, vista de «stats» (KiB)",
    "memoria_proceso_kb": "dockerd (Docker) / todos los conmon (Podman) al N mayor (KiB)",
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
    """This machine next to the chapter's, and the sentence that reads the table."""
    c = escala.compare(resultado.df, resultado.meta, reference.load("escala"))
    out = pd.DataFrame(
        {
            "medida": c["medida"].map(COMPARED_NAMES),
            "capítulo: Docker": [fmt(v, 0) for v in c["ref_docker"]],
            "capítulo: Podman": [fmt(v, 0) for v in c["ref_podman"]],
            "capítulo: Podman/Docker": _ratio_cells(c, "ref"),
            "tú: Docker": [fmt(v, 0) for v in c["tu_docker"]],
            "tú: Podman": [fmt(v, 0) for v in c["tu_podman"]],
            "tú: Podman/Docker": _ratio_cells(c, "tu"),
            "¿coinciden?": c["acuerdo"].map(AGREEMENT),
        }
    )
    show(
        table(
            out,
            "Tu máquina frente al capítulo original: proporciones Podman/Docker con su IC 95 %; "
            "«coincide» si los dos intervalos se tocan. Una proporción depende también de las "
            "versiones de los motores, del runtime, de la versión de cgroups y de la red: ver abajo.",
        )
    )
    markdown(_frase_referencia(resultado))


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
    w = escala.wide(resultado.df)
    w["motor"] = w["engine"].map(_engine)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    sns.lineplot(
        data=w,
        x="n",
        y="lanzamiento_total",
        hue="motor",
        marker="o",
        errorbar=None,
        estimator="median",
        ax=axes[0],
    )
    sns.scatterplot(data=w, x="n", y="lanzamiento_total", hue="motor", legend=False, alpha=0.4, ax=axes[0])
    axes[0].set(
        xlabel="contenedores lanzados (N)",
        ylabel="tiempo total de lanzamiento (s)",
        title="Arranque de N contenedores",
    )
    sns.lineplot(
        data=w,
        x="n",
        y="lanzamiento_por_contenedor",
        hue="motor",
        marker="o",
        errorbar=None,
        estimator="median",
        ax=axes[1],
    )
    sns.scatterplot(
        data=w, x="n", y="lanzamiento_por_contenedor", hue="motor", legend=False, alpha=0.4, ax=axes[1]
    )
    axes[1].set(
        xlabel="contenedores lanzados (N)", ylabel="ms por contenedor", title="Costo de LAUNCH por contenedor"
    )
    axes[1].set_ylim(bottom=0)
    for ax in axes:
        ax.legend(title="motor")
    fig.tight_layout()
    plt.show()


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
        bill = escala.memory_bill(df, base)
        ax = axes[row, 0]
        engines_here = [e for e in ("docker", "podman") if e in set(bill["engine"])]
        ns = sorted(bill["n"].unique())
        width = 0.38
        x = np.arange(len(ns))
        for i, engine_name in enumerate(engines_here):
            g = bill[bill["engine"] == engine_name].set_index("n").reindex(ns)
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
            for xi, total in zip(x, bottom):
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
        c = escala.crossover(df, base)
        fit = c["fit"]
        n_max = max(ns) if ns else 20
        n_cross = c["n_cruce"]
        horizon = max(escala.SEED_CROSSOVER * 1.5, n_max * 2, (n_cross or 0) * 1.3)
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
            escala.SEED_CROSSOVER,
            color="grey",
            ls=":",
            label=f"cruce según el capítulo (≈{escala.SEED_CROSSOVER})",
        )
        if n_cross is not None:
            ax2.axvline(n_cross, color="red", ls="--", label=f"cruce medido: N ≈ {num(n_cross, 0)}")
        else:
            ax2.text(
                0.98,
                0.04,
                "las rectas no se cruzan: Podman gasta menos para todo N",
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
    plt.show()


# ---------------------------------------------------------------- sentences
def _mb(kb: float, digits: int = 0) -> str:
    return fmt(kb / MB, digits, "MiB")


def _n(value: float) -> str:
    return "nunca (las rectas no se cruzan)" if math.isinf(value) else f"N ≈ {num(value, 0)}"


def _interval_n(claim) -> str:
    if math.isinf(claim.low):
        return "[nunca, nunca]"
    high = "nunca" if math.isinf(claim.high) else num(claim.high, 0)
    return f"[{num(claim.low, 0)}, {high}]"


def _crossover_lines(resultado: Resultado, claims) -> list[str]:
    """What the chapter computed and what the whole bill gives, in sentences built from the data."""
    seed_n = escala.reference_crossover(reference.load("escala"))
    lines = [
        f"**Lo que afirma el capítulo original:** Docker paga un impuesto fijo de memoria (el daemon, "
        f"183 540 KiB en su tabla, unos 179 MiB) y Podman un conmon por contenedor, así que Podman pasaría "
        f"a gastar más a partir de unos {escala.SEED_CROSSOVER} contenedores (con su propia tabla, la cuenta "
        f"da {num(seed_n, 0)}). Aceptamos como «unos {escala.SEED_CROSSOVER}» cualquier N entre "
        f"{num(escala.CROSSOVER_REGION[0], 0)} y {num(escala.CROSSOVER_REGION[1], 0)}; «∞» quiere decir que "
        "las dos rectas no se cruzan."
    ]
    for claim in claims:
        fit = claim.detail.get("fit") or {}
        if claim.detail.get("basis") is None or not {"docker", "podman"} <= set(fit):
            continue
        d, p = fit["docker"], fit["podman"]
        text = (
            f"- Con {claim.detail['basis'].upper()}: Docker cuesta {_mb(d['fijo_kb'])} fijos más "
            f"{_mb(d['por_contenedor_kb'], 1)} por contenedor (shim + cgroup); Podman, {_mb(p['fijo_kb'])} "
            f"fijos más {_mb(p['por_contenedor_kb'], 1)} por contenedor (conmon + cgroup): cruce en "
            f"{_n(claim.value)}, IC 95 % {_interval_n(claim)}."
        )
        seed_model = claim.detail.get("n_cruce_modelo_semilla")
        if seed_model:
            text += (
                f" Con la cuenta del capítulo (solo dockerd frente a conmon) tus datos darían N ≈ "
                f"{num(seed_model, 0)}."
            )
        lines.append(text)
    return lines


@needs_result
def veredictos(resultado: Resultado) -> None:
    """The chapter's claims about scale, judged by the one rule, with the bill behind the crossover."""
    claims = escala.claims(resultado.df, resultado.meta)
    markdown("\n\n".join(_crossover_lines(resultado, claims)))
    claims_list(claims)


def _frase_stats(resultado: Resultado) -> str:
    s = escala.stats_vs_cgroup(resultado.df)
    if s.empty:
        return "Esta corrida no cronometró «stats»."
    parts = []
    for _, r in s.iterrows():
        parts.append(
            f"con {int(r['n'])} contenedores, «{r['engine']} stats --no-stream» tardó "
            f"{fmt(r['tiempo_stats_cli'], 2, 's')} y leer los cgroups directamente "
            f"{fmt(r['tiempo_lectura_cgroup'] * 1e3, 1, 'ms')} ({num(r['veces_mas_lento'], 0)} veces menos)"
        )
    return (
        "En esta corrida, " + "; ".join(parts) + ". Docker calcula las estadísticas tomando muestras "
        "a través del daemon (espera un intervalo para la CPU); Podman, sin daemon, lee el cgroup como los helpers."
    )


def _containers(n: int) -> str:
    return "1 contenedor" if n == 1 else f"{n} contenedores"


def _frase_ruido(resultado: Resultado) -> str:
    r = escala.noise(resultado.df)
    if r.empty:
        return "Sin datos de memoria del sistema."
    noise_mb = (
        np.nanmax(
            np.abs(
                r[["ruido_sistema_kb", "ruido_sistema_min_kb", "ruido_sistema_max_kb"]].to_numpy(dtype=float)
            )
        )
        / MB
    )
    small = r.sort_values("cgroup_total_kb").iloc[0]
    return (
        f"Tras borrar todos los contenedores, la memoria «usada» del sistema llegó a moverse "
        f"{num(noise_mb, 1)} MiB, cuando debería haber vuelto a su valor inicial; mientras tanto, "
        f"{_containers(int(small['n']))} de {_engine(small['engine'])} {'sumaban' if small['n'] > 1 else 'ocupaba'} "
        f"apenas {num(small['cgroup_total_kb'], 0)} KiB en {'sus cgroups' if small['n'] > 1 else 'su cgroup'}. Con ese ruido, `free -m` no sirve para "
        "medir contenedores; la suma de cgroups sí."
    )


def _frase_referencia(resultado: Resultado) -> str:
    """What agrees with the chapter (overlapping intervals of Podman/Docker) and what does not."""
    c = escala.compare(resultado.df, resultado.meta, reference.load("escala")).set_index("medida")
    labels = {
        "ms_por_contenedor": "el arranque por contenedor",
        "kb_por_contenedor": "la memoria de cgroup por contenedor",
        "memoria_proceso_kb": "la memoria del daemon frente a la de los conmon",
    }
    agree, disagree = [], []
    for key, label in labels.items():
        if c.loc[key, "acuerdo"] == "sin_datos":
            continue
        ratios = {
            p: fmt_ratio(
                c.loc[key, f"{p}_podman_sobre_docker"],
                c.loc[key, f"{p}_podman_sobre_docker_ic_bajo"],
                c.loc[key, f"{p}_podman_sobre_docker_ic_alto"],
            )
            for p in ("ref", "tu")
        }
        text = f"{label} (Podman/Docker: capítulo {ratios['ref']}, tú {ratios['tu']})"
        (agree if c.loc[key, "acuerdo"] == "coincide" else disagree).append(text)
    out = []
    if agree:
        out.append("Coincide con el capítulo original (los intervalos se solapan): " + "; ".join(agree) + ".")
    if disagree:
        out.append("No coincide (intervalos separados): " + "; ".join(disagree) + ".")
    return " ".join(out) or "Faltan datos de Docker o de Podman para comparar con el capítulo original."
