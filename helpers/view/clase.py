"""What the instructor sees in 90_comparar_clase.ipynb: tables, plots and Spanish sentences.

All numbers come from helpers.clase; this module only draws and words them.
"""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import clase as cl
from .. import experiments
from ..clase import deferred
from ..experiments import figures as fg
from ..experiments import verdict as vd
from .common import (
    AGREEMENT_MARGIN,
    ENGINE_LABEL,
    VERDICT,
    fmt_pct,
    fmt_ratio,
    fmt_value_interval,
    markdown,
    num,
    show,
    significant,
    table,
    verdict_words,
)
from .figuras import fit

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


def variant_words(variant: str, experiment: str | None = None) -> str:
    """An arm's variant as a reader sees it: as its experiment names it (CLASS_LABELS; when the
    experiment is not known, the first registered experiment that names it), «N = k» for any count of
    containers, else the identifier with spaces."""
    variant = str(variant)
    known = _labels(experiment)
    if variant in known:
        return known[variant]
    if variant.startswith("n=") and variant[2:].isdigit():
        return f"N = {variant[2:]}"
    return variant.replace("_", " ")


def _labels(experiment: str | None = None) -> dict[str, str]:
    """The labels of the class comparison: the experiment's own first, then every registered one's."""
    out: dict[str, str] = {}
    modules = experiments.all_experiments()
    if experiment in experiments.names():
        modules = [experiments.get(experiment), *modules]
    for module in modules:
        for name, label in module.CLASS_LABELS.items():
            out.setdefault(name, label)
    return out


def _natural(value) -> tuple:
    """Sort key that puts n=5 before n=10 (numbers inside text compared as numbers)."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(value)))


def _says_nothing(variant, engine) -> bool:
    """A variant that adds no word to its engine: the default one, or one that only names the engine
    again (06's Kubernetes arm is variant «kubernetes»)."""
    return variant in ("", "por_defecto") or str(variant).lower() == str(engine).lower()


def _combo(row) -> str:
    """An arm as the page names it: «Docker · con seccomp», «Kubernetes · gin» (never an identifier, never
    the engine twice)."""
    engine, variant = row.get("engine", ""), row.get("variant", "")
    parts = [
        ENGINE_LABEL.get(engine, engine),
        row.get("role", ""),
        "" if _says_nothing(variant, engine) else variant_words(variant, row.get("experiment")),
    ]
    return " · ".join(p for p in parts if p)


def _spanish(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    if {"engine", "variant"} <= set(out):
        out["variant"] = ["" if _says_nothing(v, e) else v for v, e in zip(out["variant"], out["engine"])]
    for col in ("engine",):
        if col in out:
            out[col] = out[col].map(lambda e: ENGINE_LABEL.get(e, e))
    sort = [c for c in ("engine", "role", "variant") if c in out]
    if sort:
        out = out.sort_values(sort, key=lambda col: col.map(_natural)).reset_index(drop=True)
    for col in ("variant", "base"):
        if col in out:
            out[col] = out[col].map(variant_words)
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
        f"({', '.join(cl.runs.notebook_of(e) for e in clase.experiments) or 'ningún experimento'}); se omitieron {len(clase.skipped)} "
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


# A projector's screen: no figure taller than this (inches at the default 100 dpi: 800 px).
MAX_HEIGHT_IN = 8.0
PANEL_COLUMNS = 3
PANEL_HEIGHT_IN = 3.1  # room for the legend of the sources under each panel
LABELLED_MACHINES = 15  # up to this many machines every one is named on its panel; above, only outliers
SOURCE_LABEL = {
    "seed000": "capítulo original",
    "seed001": "documento de getpid (su corrida)",
    "seed001-esperado": "documento de getpid, rangos esperados",
    "seed001-tabla-xeon-8370c": "documento de getpid, tabla: Xeon 8370C",
    "seed001-tabla-epyc-7763": "documento de getpid, tabla: EPYC 7763",
    "seed001-tabla-i7-12700k": "documento de getpid, tabla: i7-12700K",
    "seed002": "blog de Sysbox",
    "seed003": "documento de rendimiento HTTP",
    "fdd_p26": "repositorio del capítulo (de segunda mano)",
    "crun_readme": "README de crun",
    "crun_readme_anterior": "README de crun (versión anterior)",
    "firecracker_spec": "especificación de Firecracker",
    "kata_checkmetrics": "métricas de Kata",
    "redhat_rpi": "artículo de Red Hat (Raspberry Pi; cifras de segunda mano)",
}


def source_label(source: str) -> str:
    """A reference source as a reader sees it (never its identifier)."""
    return SOURCE_LABEL.get(source, str(source).replace("_", " ").replace("-", " "))


def outliers(values: pd.Series) -> list:
    """The index labels of values outside [Q1 − 1.5 IQR, Q3 + 1.5 IQR] (Tukey's fences), most extreme
    first."""
    v = values.dropna().astype(float)
    if len(v) < 4:
        return []
    q1, q3 = v.quantile([0.25, 0.75])
    low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    out = v[(v < low) | (v > high)]
    centre = v.median()
    return list((out - centre).abs().sort_values(ascending=False).index)


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


def _ratio_plot(
    data: pd.DataFrame, title: str, xlabel: str, reference: pd.DataFrame | None = None, log: bool = False
) -> list:
    """Small multiples: one panel per combination, the machines ranked on it (a point and its IC 95 %
    each), each reference source as a line (a single figure) or a band (a range or an IC); machines are
    named when they are few, else only the outliers. Figures are split so none is taller than a
    screen. Returns the figures drawn."""
    data = data.assign(combinación=[_combo(r) for _, r in data.iterrows()])
    data = data.sort_values([c for c in COMBO_COLUMNS if c in data], key=lambda col: col.map(_natural))
    order = list(dict.fromkeys(data["combinación"]))
    ref = None
    if reference is not None and not reference.empty:
        ref = reference.assign(combinación=[_combo(r) for _, r in reference.iterrows()])
    rows_per_fig = max(1, int(MAX_HEIGHT_IN // PANEL_HEIGHT_IN))
    figures = []
    for part in _chunks(order, rows_per_fig * PANEL_COLUMNS):
        ncols = min(PANEL_COLUMNS, len(part))
        nrows = -(-len(part) // ncols)
        fig, axes = plt.subplots(
            nrows,
            ncols,
            figsize=(4.4 * ncols, min(MAX_HEIGHT_IN, 1.0 + PANEL_HEIGHT_IN * nrows)),
            squeeze=False,
        )
        for ax, combo in zip(axes.flat, part):
            _panel(
                ax,
                data[data["combinación"] == combo],
                None if ref is None else ref[ref["combinación"] == combo],
                log,
            )
            ax.set_title(combo, fontsize=11)
        for ax in list(axes.flat)[len(part) :]:
            ax.set_visible(False)
        for ax in axes[-1]:
            ax.set_xlabel(xlabel, fontsize=10)
        fig.suptitle(title, fontsize=12)
        fit(fig)
        figures.append(fig)
        plt.show()
    return figures


def _panel(ax, d: pd.DataFrame, ref: pd.DataFrame | None, log: bool) -> None:
    d = d.sort_values("proporcion").reset_index(drop=True)
    y = np.arange(len(d))
    err = np.vstack([d["proporcion"] - d["ic_bajo"], d["ic_alto"] - d["proporcion"]]).clip(min=0)
    err = np.nan_to_num(err)
    ax.errorbar(d["proporcion"], y, xerr=err, fmt="o", ms=3, lw=0.8, capsize=0, color="tab:blue")
    named = set(d.index) if len(d) <= LABELLED_MACHINES else set(outliers(d["proporcion"]))
    if named:  # room on the right for the names, inside the axes, and above the top row
        ax.margins(x=0.35 if len(named) > 1 else 0.25)
        ax.set_ylim(-0.6, len(d) - 0.2)
    for i in sorted(named):  # each name just above its point, never over an error bar
        ax.annotate(
            str(d.loc[i, "machine"]),
            (d.loc[i, "proporcion"], i),
            xytext=(0, 3),
            textcoords="offset points",
            fontsize=8,
            ha="left",
            va="bottom",
        )
    for i, (_, r) in enumerate((ref if ref is not None else pd.DataFrame()).iterrows()):
        color = plt.cm.Dark2(i % 8)
        label = source_label(r.get("fuente", ""))
        if pd.notna(r["ic_bajo"]) and pd.notna(r["ic_alto"]):
            ax.axvspan(r["ic_bajo"], r["ic_alto"], color=color, alpha=0.15, label=label)
        ax.axvline(
            r["proporcion"], color=color, lw=1.2, ls="--", label=None if pd.notna(r["ic_bajo"]) else label
        )
    ax.axvline(1, color="grey", lw=0.6, ls=":")
    ax.set_yticks([])
    ax.set_ylabel(f"{len(d)} máquinas, ordenadas", fontsize=9)
    if log:
        ax.set_xscale("log")
    ax.tick_params(axis="x", labelsize=9)
    if ref is not None and not ref.empty:
        # below the panel, never over a machine's point
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, frameon=False)


def _fmt_table(df: pd.DataFrame, caption: str):
    def two_digits(v):  # three significant figures: «233», «1.27», «0.121»
        return num(v, significant(v)) if pd.notna(v) else "—"

    df = _spanish(df)
    numeric = {c: two_digits for c in df.columns if pd.api.types.is_float_dtype(df[c])}
    return table(df, caption).format(numeric, na_rep="—")


def _title(experiment: str) -> str:
    try:
        return experiments.get(experiment).TITLE
    except KeyError:
        return experiment


def _metric(experiment: str, metric: str) -> str:
    """A metric as the class comparison names it: its experiment's CLASS_LABELS, else its name."""
    own = experiments.get(experiment).CLASS_LABELS if experiment in experiments.names() else {}
    return own.get(metric, metric.replace("_", " "))


def experimento(clase: cl.ClassRuns, experiment: str) -> None:
    """× bare metal and Podman/Docker per machine (with IC 95 %), each reference source, the spread and
    the machines that stand out."""
    todo = cl.only_comparable(clase.data)
    todo = todo[todo["experiment"] == experiment]
    refs = cl.reference_ratios(experiment)
    markdown(f"### {_title(experiment)}")
    drawn = False
    for metric, datos in todo.groupby("metric", sort=True):
        for label, ratios, xlabel, log in (
            (cl.compare.BARE_LABEL, cl.ratios_vs_bare(datos), "× bare metal (escala log)", True),
            (cl.compare.PAIR_LABEL, cl.podman_over_docker(datos), "Podman/Docker (< 1: Podman menos)", False),
        ):
            if ratios.empty:
                continue
            drawn = True
            ref = (
                refs[(refs["metric"] == metric) & (refs["proporcion_de"] == label)]
                if not refs.empty
                else None
            )
            _ratio_plot(
                ratios,
                f"{_title(experiment)} · {_metric(experiment, metric)}: {label} (IC 95 %)",
                xlabel,
                ref,
                log,
            )
            spread = cl.spread(ratios)
            if not spread.empty:
                show(
                    _fmt_table(
                        spread.drop(columns=["experiment", "metric"]),
                        f"{label}, {_metric(experiment, metric)}: dispersión entre máquinas",
                    )
                )
            _name_outliers(ratios, label)
    if not drawn:
        markdown(
            "_Ninguna corrida de la clase tiene aquí una proporción que comparar entre máquinas: hace falta "
            "medir, en la misma corrida, cada brazo junto a su línea base (bare metal) o a los dos motores "
            "(Podman/Docker)._"
        )


def _name_outliers(ratios: pd.DataFrame, label: str) -> None:
    lines = []
    for combo, g in ratios.assign(c=[_combo(r) for _, r in ratios.iterrows()]).groupby("c", sort=False):
        g = g.set_index("machine")
        far = outliers(g["proporcion"])
        if far:
            named = ", ".join(f"«{m}» ({fmt_ratio(g.loc[m, 'proporcion'])})" for m in far)
            verb = "se aparta" if len(far) == 1 else "se apartan"
            lines.append(
                f"- {combo}: {verb} del resto {named}; la mediana de la clase es "
                f"{fmt_ratio(g['proporcion'].median())}."
            )
    if lines:
        markdown(
            f"Máquinas que se salen de la clase en {label} (fuera de Q1 − 1.5·IQR … Q3 + 1.5·IQR):\n\n"
            + "\n".join(lines)
        )


def experimentos(clase: cl.ClassRuns) -> None:
    if not clase.runs:
        markdown("No hay datos que comparar.")
        return
    for experiment in clase.experiments:
        experimento(clase, experiment)


def _in_notebook_order(df: pd.DataFrame) -> list:
    """The comparisons with the sources grouped per (ratio, experiment, metric), experiments in the
    course's notebook order (01, 02, 03…), not in the alphabetical order of their names."""
    order = {name: i for i, name in enumerate(experiments.names())}
    groups = df.groupby(["proporcion_de", "experiment", "metric"], sort=False)
    return sorted(groups, key=lambda g: (g[0][0], order.get(g[0][1], len(order)), g[0][1], g[0][2]))


def frente_a_referencia(clase: cl.ClassRuns) -> pd.DataFrame:
    """How many machines agree with each reference source (the one rule on live ÷ reference), then one
    table per comparison with the machines ranked and each source's figure in its header."""
    df = cl.against_reference(clase)
    if df.empty:
        markdown("Ningún experimento de la clase tiene datos de referencia con los que comparar.")
        return df
    if clase.demo:  # fictitious machines: their figures, labelled, and no «coincide» of any kind
        markdown(
            f"_{DEMO_FIGURES.capitalize()}: la proporción de cada máquina al lado de la de cada fuente, sin juzgar su acuerdo._"
        )
        for (label, experiment, metric), part in _in_notebook_order(df):
            show(pivot_detalle(part, f"{label} · {_title(experiment)} · {_metric(experiment, metric)}", True))
        return df
    counts = df.groupby("machine")["veredicto"].value_counts().unstack(fill_value=0)
    for status in (fg.COINCIDE, fg.NO_COINCIDE, vd.NO_CONCLUYENTE, vd.SIN_DATOS, cl.compare.EMULATED):
        if status not in counts:
            counts[status] = 0
    counts["_orden"] = counts[fg.COINCIDE] - counts[fg.NO_COINCIDE]
    counts = counts.sort_values("_orden", ascending=False)
    summary = pd.DataFrame(
        {
            "Máquina": counts.index,
            "coincide": counts[fg.COINCIDE].to_numpy(),
            "no coincide": counts[fg.NO_COINCIDE].to_numpy(),
            "no concluyente": counts[vd.NO_CONCLUYENTE].to_numpy(),
            f"menos de {vd.MIN_N} repeticiones": counts[vd.SIN_DATOS].to_numpy(),
            "emulada (sin veredicto de tiempo)": counts[cl.compare.EMULATED].to_numpy(),
        }
    )
    summary = summary.loc[:, (summary != 0).any(axis=0)]
    show(
        table(
            summary, "Cada máquina frente a las fuentes publicadas (comparaciones por resultado), ordenadas"
        )
    )
    for (label, experiment, metric), part in _in_notebook_order(df):
        show(pivot_detalle(part, f"{label} · {_title(experiment)} · {_metric(experiment, metric)}"))
    return df


VERDICT_MARK = {fg.COINCIDE: "✓", fg.NO_COINCIDE: "✗", vd.NO_CONCLUYENTE: "?", vd.SIN_DATOS: "·"}
# A demonstration class is made of fictitious machines: its figures are shown, labelled, never judged.
DEMO_FIGURES = "clase de demostración con máquinas ficticias (cifras de ejemplo, sin veredicto)"
DEMO_NO_VERDICT = "sin veredicto (clase de demostración, con máquinas ficticias)"
MARKS_LEGEND = (
    f"✓ coincide, ✗ no coincide, ? no concluyente, · menos de {vd.MIN_N} repeticiones "
    f"(máquina ÷ fuente {AGREEMENT_MARGIN})"
)


def pivot_detalle(part: pd.DataFrame, caption: str, demo: bool = False):
    """One row per machine (ranked by its ratio), one column per arm and source: the machine's ratio
    [IC 95 %] and its mark (none in a demonstration class, whose caption says so); the source's own
    figure (range, IC or single figure) in the header."""
    part = part.assign(combinación=[_combo(r) for _, r in part.iterrows()])
    headers = {}
    for (combo, fuente), g in part.groupby(["combinación", "fuente"], sort=False):
        r = g.iloc[0]
        ref = fmt_ratio(r["referencia"], r["referencia_ic_bajo"], r["referencia_ic_alto"])
        if r["forma"] == "rango":
            ref = (
                f"rango publicado {fmt_ratio(r['referencia_ic_bajo'])} a {fmt_ratio(r['referencia_ic_alto'])}"
            )
        headers[(combo, fuente)] = f"{combo}, frente a {source_label(fuente)} ({ref})"
    part = part.assign(
        columna=[headers[(c, f)] for c, f in zip(part["combinación"], part["fuente"])],
        celda=[
            fmt_ratio(v, lo, hi) if demo else f"{fmt_ratio(v, lo, hi)} {VERDICT_MARK.get(ver, '·')}"
            for v, lo, hi, ver in zip(part["proporcion"], part["ic_bajo"], part["ic_alto"], part["veredicto"])
        ],
    )
    rank = part.groupby("machine")["proporcion"].median().sort_values().index
    wide = part.pivot_table(index="machine", columns="columna", values="celda", aggfunc="first", sort=False)
    wide = wide.reindex(index=rank, columns=[h for h in headers.values() if h in wide.columns]).fillna("—")
    wide = wide.reset_index().rename(columns={"machine": "máquina"})
    wide.columns.name = None
    return table(wide, f"{caption}: {DEMO_FIGURES if demo else MARKS_LEGEND}")


def _claim_line(name: str, claim, demo: bool = False) -> str:
    figure = fmt_value_interval(claim.value, claim.low, claim.high, "x")
    return f"«{name}»: {figure}" + ("" if demo else f", {verdict_words(claim)}")


NAMED_AT_MOST = 8  # a sentence names this many machines, the farthest first; the table has them all


def _named(machines: list[str], per: dict) -> str:
    """«a», «b» … y N más: the machines farthest from the margin's centre first (by |log value|)."""

    def far(m):
        value = per[m].value if m in per else float("nan")
        return -abs(np.log(abs(value))) if value == value and value != 0 else 0.0

    ranked = sorted(machines, key=far)
    names = ", ".join(f"«{source_label(m) if m in SOURCE_LABEL else m}»" for m in ranked[:NAMED_AT_MOST])
    rest = len(ranked) - NAMED_AT_MOST
    return names + (f" y {rest} más (todas en la tabla)" if rest > 0 else "")


def _class_words(verdict: deferred.ClassVerdict) -> str:
    """A class verdict in words; a demonstration class has none (its machines are fictitious)."""
    return DEMO_NO_VERDICT if verdict.demo else VERDICT[verdict.status]


def veredictos_diferidos(clase: cl.ClassRuns) -> None:
    """The verdicts notebooks 05 and 08 leave to the class: the getpid overhead across CPUs and the
    speed claims of a VM with KVM."""
    across = deferred.across_cpus(clase)
    lines = [f"**{across.statement}** (lo deja aquí el cuaderno 05): {_class_words(across)}."]
    per = across.per_machine
    if across.status == vd.SIN_DATOS:
        lines.append(
            f"Hacen falta al menos dos máquinas de la clase con la llamada getpid medida {vd.MIN_N} veces o "
            "más en bare metal y en Docker: las tablas de la fuente se muestran al lado, pero no votan (no "
            "dicen nada de las CPU de la clase)."
        )
    if per and across.status != vd.SIN_DATOS:
        table_rows = [
            {
                "Máquina o fuente": source_label(name) if name in SOURCE_LABEL else name,
                "Sobrecarga": fmt_pct(c.detail.get("sobrecarga", float("nan"))),
                "Factor ÷ mediana de los demás": fmt_value_interval(c.value, c.low, c.high, "x"),
            }
            | (
                {}
                if across.demo
                else {
                    "Veredicto": verdict_words(c) + (" (fuente: no vota)" if name in across.sources else "")
                }
            )
            for name, c in sorted(
                per.items(), key=lambda kv: -kv[1].value if kv[1].value == kv[1].value else 0
            )
        ]
        show(
            table(
                pd.DataFrame(table_rows),
                "Sobrecarga de getpid en Docker por máquina: su factor (1 + sobrecarga) ÷ la mediana del "
                "de las demás; " + (DEMO_FIGURES if across.demo else f"margen {AGREEMENT_MARGIN}"),
            )
        )
        if across.outside and not across.demo:
            lines.append(
                f"Se salen del margen, con todo su intervalo: {_named(across.outside, per)}. Con "
                f"{len(per) - len(across.sources)} máquinas, "
                + (
                    f"hasta {across.by_chance} pueden caer fuera"
                    if across.by_chance != 1
                    else "una puede caer fuera"
                )
                + " por azar (cada IC 95 % falla una de cada veinte veces): la clase solo dice «no se "
                "sostiene» cuando caen más (prueba binomial al 5 %)."
            )
    markdown("\n\n".join(lines))
    kvm = deferred.kvm(clase)
    if not kvm:
        return
    out = ["**Lo que el cuaderno 08 deja a las máquinas con KVM** (una VM emulada no decide su velocidad):"]
    for v in kvm.values():
        text = f"- {v.statement.rstrip('.')}: {_class_words(v)}"
        if v.per_machine:
            text += (
                " (" + "; ".join(_claim_line(m, c, v.demo) for m, c in sorted(v.per_machine.items())) + ")"
            )
        else:
            text += " — ninguna máquina de la clase lo midió con KVM"
        out.append(text + ".")
    markdown("\n".join(out))
