"""What the instructor sees in 90_comparar_clase.ipynb: tables, plots and Spanish sentences.

All numbers come from helpers.clase; this module only draws and words them.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .. import clase as cl
from .common import ENGINE_LABEL, fmt_ratio, markdown, num, show, table

COMBO_COLUMNS = ["engine", "role", "variant"]
# Spanish names for the columns a table shows (never a raw column name on the page).
COLUMN_NAMES = {
    "machine": "máquina",
    "engine": "motor",
    "role": "imagen",
    "variant": "variante",
    "base": "línea base",
    "maquinas": "máquinas",
    "mediana": "mediana",
    "q1": "Q1",
    "q3": "Q3",
    "min": "mín.",
    "max": "máx.",
    "max_sobre_min": "máx./mín.",
    "experiment": "experimento",
    "metric": "métrica",
    "n": "n",
    "unit": "unidad",
}


# How arm variants read on the page (the rest are already words: hash, sort, n=5...).
VARIANT_WORDS = {
    "metodo_semilla": "método del capítulo",
    "por_defecto": "por defecto",
    "proceso": "proceso real",
}


def _natural(value) -> tuple:
    """Sort key that puts n=5 before n=10 (numbers inside text compared as numbers)."""
    import re

    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(value)))


def _combo(row) -> str:
    variant = row.get("variant", "")
    parts = [
        ENGINE_LABEL.get(row.get("engine", ""), row.get("engine", "")),
        row.get("role", ""),
        "" if variant == "por_defecto" else VARIANT_WORDS.get(variant, variant),
    ]
    return " · ".join(p for p in parts if p)


def _spanish(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    for col in ("engine",):
        if col in out:
            out[col] = out[col].map(lambda e: ENGINE_LABEL.get(e, e))
    sort = [c for c in ("engine", "role", "variant") if c in out]
    if sort:
        out = out.sort_values(sort, key=lambda col: col.map(_natural)).reset_index(drop=True)
    for col in ("variant", "base"):
        if col in out:
            out[col] = out[col].map(lambda v: VARIANT_WORDS.get(v, v))
    return out.rename(columns=COLUMN_NAMES)


def encabezado(clase: cl.ClassRuns) -> None:
    if clase.demo:
        markdown(
            f"> **{cl.DEMO_LABEL}** Para comparar tu clase, pon en `CARPETA` la carpeta con las "
            "entregas (carpetas o zip de `make pack`)."
        )
    emulated = sorted({c.machine for c in clase.runs if c.meta.get("emulada")})
    if emulated:
        markdown(
            f"> Las máquinas {', '.join(f'«{m}»' for m in emulated)} son corridas reales del curso en una VM "
            "Debian 13 con cgroups v2 (`make test-huesped`), emulada por software: sus resultados funcionales "
            "y sus proporciones internas valen, pero sus tiempos no deciden ningún veredicto de velocidad."
        )
    n = len({c.machine for c in clase.runs})
    markdown(
        f"Carpeta: `{clase.folder}`. Se leyeron **{len(clase.runs)} corridas** de **{n} máquinas** "
        f"({', '.join(clase.experiments) or 'ningún experimento'}); se omitieron {len(clase.skipped)} "
        "elementos (ver la tabla de omitidos)."
    )


def maquinas(clase: cl.ClassRuns) -> None:
    df = clase.machines()
    if df.empty:
        markdown("No se encontró ninguna corrida válida en la carpeta.")
        return
    show(table(df, "Máquinas de la clase"))


def omitidos(clase: cl.ClassRuns) -> None:
    df = clase.skipped_frame()
    if df.empty:
        markdown("No se omitió nada: todo lo que había en la carpeta era una corrida válida.")
        return
    show(table(df, f"Lo que se omitió y por qué ({len(df)})"))


def _ratio_plot(
    data: pd.DataFrame, title: str, xlabel: str, reference: pd.DataFrame | None = None, log: bool = False
) -> None:
    data = data.assign(combinación=[_combo(r) for _, r in data.iterrows()])
    data = data.sort_values([c for c in COMBO_COLUMNS if c in data], key=lambda col: col.map(_natural))
    order = list(dict.fromkeys(data["combinación"]))
    fig, ax = plt.subplots(
        figsize=(9, 1.2 + 0.5 * len(order) * max(1, min(3, data["machine"].nunique() / 4)))
    )
    machines = sorted(data["machine"].unique())
    palette = dict(zip(machines, sns.color_palette("husl", len(machines))))
    offsets = np.linspace(-0.3, 0.3, len(machines)) if len(machines) > 1 else [0.0]
    for offset, machine in zip(offsets, machines):
        d = data[data["machine"] == machine]
        y = [order.index(c) + offset for c in d["combinación"]]
        err = np.vstack([d["proporcion"] - d["ic_bajo"], d["ic_alto"] - d["proporcion"]]).clip(min=0)
        ax.errorbar(
            d["proporcion"], y, xerr=err, fmt="o", ms=4, capsize=2, color=palette[machine], label=machine
        )
    if reference is not None and not reference.empty:
        ref = reference.assign(combinación=[_combo(r) for _, r in reference.iterrows()])
        ref = ref[ref["combinación"].isin(order)]
        ax.scatter(
            ref["proporcion"],
            [order.index(c) for c in ref["combinación"]],
            marker="X",
            s=90,
            color="black",
            zorder=5,
            label="referencia",
        )
    ax.axvline(1, color="grey", lw=0.8, ls="--")
    ax.set_yticks(range(len(order)), order, fontsize=12)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel, fontsize=12)
    ax.set_title(title, fontsize=13)
    ax.tick_params(axis="x", labelsize=11)
    ax.legend(fontsize=11, bbox_to_anchor=(1.01, 1), loc="upper left")
    fig.tight_layout()
    plt.show()


def _fmt_table(df: pd.DataFrame, caption: str):
    def two_digits(v):
        return num(v, 2) if pd.notna(v) else "—"

    df = _spanish(df)
    numeric = {c: two_digits for c in df.columns if pd.api.types.is_float_dtype(df[c])}
    return table(df, caption).format(numeric, na_rep="—")


def experimento(clase: cl.ClassRuns, experiment: str) -> None:
    """x bare metal and Podman/Docker per machine (with IC 95 %), the reference, and the spread."""
    todo = cl.only_comparable(cl.with_reference(clase))
    todo = todo[todo["experiment"] == experiment]
    markdown(f"### Experimento «{experiment}»")
    for metric, datos in todo.groupby("metric", sort=True):
        ratios = cl.ratios_vs_bare(datos)
        pairs = cl.podman_over_docker(datos)
        if ratios.empty and pairs.empty:
            continue
        markdown(f"**Métrica `{metric}`**")
        if not ratios.empty:
            mine = ratios[ratios["machine"] != cl.REFERENCE_MACHINE]
            if not mine.empty:
                _ratio_plot(
                    mine,
                    f"{experiment} · {metric}: veces bare metal (IC 95 %)",
                    "× bare metal (escala log)",
                    ratios[ratios["machine"] == cl.REFERENCE_MACHINE],
                    log=True,
                )
                spread = cl.spread(ratios)
                if not spread.empty:
                    show(
                        _fmt_table(
                            spread.drop(columns=["experiment", "metric"]),
                            "× bare metal: dispersión entre máquinas (mediana, IQR, mín., máx.)",
                        )
                    )
        if not pairs.empty:
            mine = pairs[pairs["machine"] != cl.REFERENCE_MACHINE]
            if not mine.empty:
                _ratio_plot(
                    mine,
                    f"{experiment} · {metric}: Podman/Docker (IC 95 %)",
                    "Podman/Docker (< 1: Podman más rápido o más liviano)",
                    pairs[pairs["machine"] == cl.REFERENCE_MACHINE],
                )
                spread = cl.spread(pairs)
                if not spread.empty:
                    show(
                        _fmt_table(
                            spread.drop(columns=["experiment", "metric"]),
                            "Podman/Docker: dispersión entre máquinas",
                        )
                    )


def experimentos(clase: cl.ClassRuns) -> None:
    if not clase.runs:
        markdown("No hay datos que comparar.")
        return
    for experiment in clase.experiments:
        experimento(clase, experiment)


def frente_a_referencia(clase: cl.ClassRuns) -> pd.DataFrame:
    """One Spanish sentence per machine, then the detailed table."""
    df = cl.against_reference(clase)
    if df.empty:
        markdown("Ningún experimento de la clase tiene datos de referencia con los que comparar.")
        return df
    for machine, group in df.groupby("machine", sort=True):
        counts = group["veredicto"].value_counts()
        judged = int(counts.get("coincide", 0) + counts.get("más alta", 0) + counts.get("más baja", 0))
        text = (
            f"- **{machine}**: {int(counts.get('coincide', 0))} de {judged} proporciones coinciden con la "
            f"referencia (la referencia cae dentro de su IC 95 %); {int(counts.get('más alta', 0))} más altas, "
            f"{int(counts.get('más baja', 0))} más bajas"
        )
        single = int(counts.get("una sola medición (sin IC)", 0))
        if single:
            text += f"; {single} sin IC porque se midieron una sola vez"
        markdown(text + ".")
    for (label, experiment, metric), part in df.groupby(["proporcion_de", "experiment", "metric"], sort=True):
        show(pivot_detalle(part, f"{label} · {experiment} · {metric}"))
    return df


VERDICT_MARK = {"coincide": "✓", "más alta": "↑", "más baja": "↓"}


def pivot_detalle(part: pd.DataFrame, caption: str):
    """One row per machine, one column per arm: the machine's ratio [IC 95 %] and a mark (✓ coincides with
    the reference, ↑ higher, ↓ lower); the reference's own ratio in the column header."""
    part = part.sort_values([c for c in COMBO_COLUMNS if c in part], key=lambda col: col.map(_natural))
    part = part.assign(combinación=[_combo(r) for _, r in part.iterrows()])
    headers = {}
    for combo, g in part.groupby("combinación", sort=False):
        r = g.iloc[0]
        headers[combo] = (
            f"{combo} (ref. {fmt_ratio(r['referencia'], r['referencia_ic_bajo'], r['referencia_ic_alto'])})"
        )
    cells = part.assign(
        celda=[
            f"{fmt_ratio(v, lo, hi)} {VERDICT_MARK.get(ver, '·')}"
            for v, lo, hi, ver in zip(part["proporcion"], part["ic_bajo"], part["ic_alto"], part["veredicto"])
        ]
    )
    wide = cells.pivot_table(
        index="machine", columns="combinación", values="celda", aggfunc="first", sort=False
    )
    wide = wide[[c for c in headers if c in wide.columns]].rename(columns=headers).fillna("—")
    wide = wide.reset_index().rename(columns={"machine": "máquina"})
    wide.columns.name = None
    return table(wide, f"{caption}: cada máquina frente a la referencia (✓ coincide, ↑ más alta, ↓ más baja)")
