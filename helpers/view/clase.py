"""What the instructor sees in 90_comparar_clase.ipynb: tables, plots and Spanish sentences.

All numbers come from helpers.clase; this module only draws and words them. Everything a hand-in says
(a machine's name, its host, its arms, the files it held) is untrusted: helpers.clase.untrusted
neutralises it when the class is read, and this module escapes it again wherever it writes it (`esc`
for HTML tables, `md` for Markdown sentences, `parse_math=False` on plot labels). A demonstration class
is invented: every table and figure says so, and it shows no verdict.
"""

from __future__ import annotations

import html
import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import clase as cl
from .. import experiments
from ..clase import deferred, power, rule
from ..experiments import figures as fg
from ..experiments import verdict as vd
from .common import (
    AGREEMENT_MARGIN,
    ENGINE_LABEL,
    fmt_margin,
    fmt_ratio,
    fmt_value,
    fmt_value_interval,
    markdown,
    num,
    show,
    significant,
    table,
)
from .figuras import fit, show_figure

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

# ---------------------------------------------------------------- untrusted text, escaped
ENTITIES = {c: f"&#{ord(c)};" for c in "[]*_`$\\|~{}"}  # what Markdown or MathJax would read as markup


def esc(text) -> str:
    """Text for an HTML table cell or caption: nothing in it is markup."""
    return html.escape(str(text), quote=True)


def md(text) -> str:
    """Text for a Markdown sentence: HTML escaped, and Markdown's and MathJax's characters as entities
    (no emphasis, no link, no math can start from it)."""
    return "".join(ENTITIES.get(c, c) for c in esc(text))


def _escaped(df: pd.DataFrame) -> pd.DataFrame:
    """Every text cell and column name of a table, escaped."""
    out = df.copy()
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = [esc(v) if isinstance(v, str) else v for v in out[col]]
    out.columns = [esc(c) for c in out.columns]
    return out


def _table(df: pd.DataFrame, caption: str, demo: bool = False):
    """A table of the class, escaped; a demonstration class's says it is invented."""
    return table(_escaped(df), esc(f"{DEMO_MARK}: {caption}" if demo else caption))


# ---------------------------------------------------------------- a demonstration class is invented
DEMO_MARK = "CLASE INVENTADA (demostración)"
# A demonstration class is made of fictitious machines: its figures are shown, labelled, never judged.
DEMO_FIGURES = "clase de demostración con máquinas ficticias (cifras de ejemplo, sin veredicto)"
DEMO_NO_VERDICT = "sin veredicto (clase de demostración, con máquinas ficticias)"


# ---------------------------------------------------------------- labels
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
    return " · ".join(str(p) for p in parts if p)


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


SOURCE_LABEL = {
    "seed000": "capítulo original",
    "seed001": "documento de getpid (su corrida)",
    "seed001-corrida2": "documento de getpid (su «25 %»: la corrida 2 de su repositorio)",
    "seed001-esperado": "documento de getpid, rangos esperados",
    "seed001-tabla-xeon-8370c": "documento de getpid, valores esperados: Xeon 8370C",
    "seed001-tabla-epyc-7763": "documento de getpid, valores esperados: EPYC 7763",
    "seed001-tabla-i7-12700k": "documento de getpid, valores esperados: i7-12700K",
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


def _title(experiment: str) -> str:
    try:
        return experiments.get(experiment).TITLE
    except KeyError:
        return experiment


def _metric(experiment: str, metric: str) -> str:
    """A metric as the class comparison names it: its experiment's CLASS_LABELS, else its name."""
    own = experiments.get(experiment).CLASS_LABELS if experiment in experiments.names() else {}
    return own.get(metric, metric.replace("_", " "))


def _names(machines: list[str], at_most: int = 8) -> str:
    """«a», «b» … y N más (the table has them all), each escaped for Markdown."""
    names = ", ".join(f"«{md(m)}»" for m in machines[:at_most])
    rest = len(machines) - at_most
    return names + (f" y {rest} más (todas en la tabla del detalle)" if rest > 0 else "")


# ---------------------------------------------------------------- the hand-ins
def encabezado(clase: cl.ClassRuns) -> None:
    if clase.demo:
        markdown(
            f"> **{md(cl.DEMO_LABEL)}** Cada tabla y cada gráfico lo dicen, y la página no da ningún "
            "veredicto. Para comparar tu clase, pon en `CARPETA` la carpeta con las entregas."
        )
    emulated = sorted({c.machine for c in clase.runs if c.meta.get("emulada")})
    if emulated:
        markdown(
            f"> {_names(emulated)}: corridas reales del curso en una VM Debian 13 emulada por software "
            "(`make test-huesped`); sus tiempos no deciden ningún veredicto de velocidad."
        )
    n = len({c.machine for c in clase.runs})
    notebooks = len(clase.experiments)
    markdown(
        f"Se leyeron **{len(clase.runs)} corridas** de **{n} máquinas**, de {notebooks} "
        f"cuaderno{'s' if notebooks != 1 else ''}; se omitieron {len(clase.skipped)} elementos (con su "
        "motivo, en el detalle)."
    )


UNKNOWN = "no consta"


def maquinas(clase: cl.ClassRuns) -> None:
    """One row per machine, only the columns something is known of (an unknown cell says «no consta»)
    and that differ between machines: what every machine shares is said once, in the caption."""
    df = clase.machines()
    if df.empty:
        markdown("No se encontró ninguna corrida válida en la carpeta.")
        return
    known = [c for c in df.columns if (df[c].astype(str) != "").any()]
    if "host" in known and (df["host"] == df["máquina"]).all():
        known.remove("host")  # the machine is named after its host: said once
    df = df[known].replace("", UNKNOWN)
    every = set(clase.experiments)
    done = {c.machine: {r.experiment for r in clase.runs if r.machine == c.machine} for c in clase.runs}
    df["experimentos"] = [
        text if "parcial" in text or done[m] != every else "todos"
        for m, text in zip(df["máquina"], df["experimentos"], strict=True)
    ]
    shared = [c for c in df.columns if c != "máquina" and len(df) > 1 and df[c].nunique() == 1]
    caption = f"Máquinas de la clase ({len(df)})"
    if shared:
        caption += "; en todas, " + "; ".join(f"{c}: {df[c].iloc[0]}" for c in shared)
    show(_table(df.drop(columns=shared), caption, clase.demo))


def omitidos(clase: cl.ClassRuns) -> None:
    df = clase.skipped_frame()
    if df.empty:
        markdown("No se omitió nada: todo lo que había en la carpeta era una corrida válida.")
        return
    show(_table(df, f"Lo que se omitió y por qué ({len(df)})", clase.demo))


# ---------------------------------------------------------------- what the class decides
CLASS_VERDICT = {  # a class verdict in words: the rule's status (helpers/clase/rule.py)
    vd.SE_CONFIRMA: "se confirma",
    vd.NO_SE_SOSTIENE: "no se sostiene",
    vd.NO_CONCLUYENTE: "no concluyente con estas máquinas",
    vd.SIN_DATOS: f"sin veredicto: hacen falta al menos {rule.MIN_MACHINES} máquinas que lo midan",
}
LEFT_OUT = {  # why a machine that ran the experiment does not enter
    vd.BAJO_CARGA: "no entra: su corrida quedó bajo carga",
    vd.SIN_DATOS: f"no entra: menos de {vd.MIN_N} rondas, o sin la cifra",
    vd.INESTABLE: "no entra: medición inestable",
    vd.NO_COMPARABLE: "no entra: no comparable",
    deferred.EMULATED: "no entra: VM emulada",
    deferred.NOT_RUN: "no entra: su corrida no la midió",
}


def _class_words(verdict: deferred.ClassVerdict) -> str:
    return DEMO_NO_VERDICT if verdict.demo else CLASS_VERDICT.get(verdict.status, verdict.status)


def _figure(claim: vd.Claim) -> str:
    """A figure with its IC 95 % in its unit («+2.1 puntos [−0.5, +4.0]», «1.02× [0.98, 1.05]»)."""
    return fmt_value_interval(claim.value, claim.low, claim.high, claim.unit)


def _needed(verdict: deferred.ClassVerdict) -> power.Needed | None:
    entered = [verdict.per_machine[m] for m in verdict.entered]
    return power.machines_needed(
        verdict.rule, [c.value for c in entered], [c.low for c in entered], [c.high for c in entered]
    )


def _needed_words(verdict: deferred.ClassVerdict) -> str:
    """How many machines the class needs to decide the claim at the spread its own machines show."""
    needed = _needed(verdict)
    if needed is None:
        return "hace falta ver al menos 2 máquinas para saberlo"
    if needed.machines is None:
        return f"más de {power.GRID[-1]}: con esta dispersión ninguna clase lo decide"
    return f"unas {needed.machines} (hoy lo decidiría el {num(needed.now * 100)} % de clases así)"


def _machines_words(verdict: deferred.ClassVerdict) -> str:
    judged = verdict.judgement
    entered = judged.machines if judged else 0
    text = f"{entered} entra{'n' if entered != 1 else ''}"
    if verdict.left_out:
        text += f", {len(verdict.left_out)} no"
    if judged and judged.apart and not verdict.demo:
        text += f"; se aparta{'n' if len(judged.apart) > 1 else ''} {len(judged.apart)}"
    return text


def _typical_words(verdict: deferred.ClassVerdict) -> str:
    judged = verdict.judgement
    if not judged or not judged.machines:
        return "—"
    typical = judged.typical
    figure = _figure(typical)
    if verdict.rule.about_centre:
        figure = f"a {figure} de la mediana de las demás"
    return f"{figure} (margen: {fmt_margin(typical.region, typical.unit)})"


def _verdicts(clase: cl.ClassRuns) -> list[deferred.ClassVerdict]:
    return [deferred.across_cpus(clase), *deferred.kvm(clase).values()]


def _summary(verdicts: list[deferred.ClassVerdict], demo: bool) -> pd.DataFrame:
    """One row per deferred claim (08's claims in one row while no machine of the class could enter)."""
    across, *kvm = verdicts
    rows = [(across, "05")]
    if any(v.judgement and v.judgement.machines for v in kvm):
        rows += [(v, f"08: {v.rule.said.quantity}") for v in kvm]
    out = []
    for v, notebook in rows:
        row = {"Afirmación (cuaderno)": f"«{v.statement}» ({notebook})"}
        if not demo:
            row["La clase"] = _class_words(v)
        row |= {
            "La máquina típica, IC 95 % sobre las máquinas": _typical_words(v),
            "Máquinas": _machines_words(v),
            "Para decidirla hacen falta": _needed_words(v),
        }
        out.append(row)
    if kvm and len(rows) == 1:
        ran = sorted({m for v in kvm for m in (*v.per_machine, *v.left_out)})
        row = {
            "Afirmación (cuaderno)": f"Las {len(kvm)} afirmaciones de velocidad y densidad de una VM con KVM (08)"
        }
        if not demo:
            row["La clase"] = CLASS_VERDICT[vd.SIN_DATOS]
        row |= {
            "La máquina típica, IC 95 % sobre las máquinas": "—",
            "Máquinas": f"{len(ran)} entregaron el 08, ninguna con KVM" if ran else "ninguna entregó el 08",
            "Para decidirla hacen falta": f"al menos {rule.MIN_MACHINES} máquinas con KVM",
        }
        out.append(row)
    return pd.DataFrame(out)


def veredictos_diferidos(clase: cl.ClassRuns) -> None:
    """The verdicts notebooks 05 and 08 leave to the class, one row each, by the class rule; the
    machines that stand apart named under it."""
    verdicts = _verdicts(clase)
    show(
        _table(
            _summary(verdicts, clase.demo),
            "Lo que la clase decide por los cuadernos 05 y 08 (regla de la clase, en el detalle)",
            clase.demo,
        )
    )
    lines = []
    for v in verdicts:
        judged = v.judgement
        if not judged or not judged.apart or v.demo:
            continue
        sides = " y ".join(
            f"{_names(names)} {where}"
            for names, where in ((judged.above, "por encima"), (judged.below, "por debajo"))
            if names
        )
        chance = judged.threshold - 1
        chance_words = (
            f"con {judged.machines} máquinas el azar explica hasta {chance} por lado"
            if chance > 0
            else f"con {judged.machines} máquinas el azar no explica ninguna"
        )
        verb = "más de las que explica el azar" if judged.too_many_apart else chance_words
        lines.append(f"- «{md(v.statement)}»: con todo su IC fuera del margen, {sides} ({verb}).")
    if lines:
        markdown("Máquinas que se apartan:\n\n" + "\n".join(lines))


def _rule_text() -> str:
    k = rule.MIN_MACHINES
    return (
        "**Cómo decide la clase.** Cada máquina entra con la cifra que su propia corrida pudo afirmar con "
        f"IC 95 % (no entra si quedó bajo carga, con menos de {vd.MIN_N} rondas, inestable o con una VM "
        "emulada); cada máquina cuenta una vez, y las fuentes publicadas nunca. Con ellas, dos preguntas, "
        "cada una por la regla única:\n\n"
        "1. **La máquina típica:** la mediana de las cifras de las máquinas, con su IC 95 % de estadísticos "
        f"de orden sobre las máquinas (hacen falta {k}). Todo el IC dentro del margen: se confirma; todo "
        "fuera: no se sostiene. Con más máquinas el IC se estrecha: una afirmación cierta se confirma más.\n"
        "2. **Las que se apartan:** las máquinas con todo su IC por encima (o por debajo) del margen. Una "
        f"máquina que cumple la afirmación cae así por azar a lo sumo {num(rule.SIDE_MISS * 100, 1)} % de "
        "las veces por lado; si de un lado caen más de las que explica el azar (prueba binomial exacta "
        f"de `scipy.stats.binomtest` al {num(rule.ALPHA_SIDE * 100, 2)} % por lado), la afirmación no se "
        "sostiene en todas las máquinas.\n\n"
        "Con todas las máquinas dentro del margen, un «no se sostiene» falso sale como mucho un 2.5 % de "
        "las veces por la máquina típica y un 2.5 % por las que se apartan. Lo que mide una simulación "
        f"reproducible, siempre con los mismos números al azar ({power.DRAWS} clases por casilla; cada máquina con {power.ROUNDS} rondas; "
        "`helpers/clase/power.py`, que una prueba recalcula):"
    )


def _simulated_frame() -> pd.DataFrame:
    rows = []
    for model, scenario in ((m, s) for m in power.MODELS for s in power.SCENARIOS):
        by_size = power.SIMULATED[(model, scenario)]
        row = {"Afirmación": power.MODEL_WORDS[model], "Caso": power.SCENARIO_WORDS[scenario]}
        for m, (confirm, refute) in by_size.items():
            row[f"{m} máquinas"] = f"se confirma {num(confirm, 2)} · no se sostiene {num(refute, 2)}"
        rows.append(row)
    return pd.DataFrame(rows)


def _coverage_words() -> str:
    values = [v for law in power.COVERAGE.values() for v in law.values()]
    sizes = power.COVERAGE_SIZES
    return (
        f"Cobertura medida del IC 95 % de la máquina típica: de {num(min(values), 3)} a {num(max(values), 3)} "
        f"(de {sizes[0]} a {sizes[-1]} máquinas, {len(power.LAWS)} leyes: "
        + "; ".join(power.LAWS.values())
        + ")."
    )


def _machine_rows(verdict: deferred.ClassVerdict) -> pd.DataFrame:
    judged = verdict.judgement
    rows = []
    for machine in sorted(set(verdict.per_machine) | set(verdict.left_out)):
        claim = verdict.per_machine.get(machine)
        own = _figure(claim) if claim is not None and claim.n else "—"
        read, state = "—", LEFT_OUT.get(verdict.left_out.get(machine, ""), "no entra")
        if judged and machine in judged.figures:
            read = fmt_value_interval(*judged.figures[machine], verdict.rule.said.unit)
            state = (
                "entra"
                if verdict.demo
                else "se aparta por encima"
                if machine in judged.above
                else "se aparta por debajo"
                if machine in judged.below
                else "entra"
            )
        rows.append(
            {"Máquina": machine, "Su cifra, en su corrida": own, "Lo que lee la clase": read, "": state}
        )
    return pd.DataFrame(rows)


def _sources_frame(verdict: deferred.ClassVerdict) -> pd.DataFrame:
    rows = []
    for _, r in (verdict.sources if verdict.sources is not None else pd.DataFrame()).iterrows():
        published = (
            f"{fmt_value(r['bajo'], '%')} a {fmt_value(r['alto'], '%')}"
            if r["forma"] == "rango"
            else fmt_value(r["valor"], "%")
        )
        far = "—"
        if np.isfinite(r["a_la_mediana_bajo"]):
            far = fmt_value(r["a_la_mediana_bajo"], "pp", 1)
            if r["a_la_mediana_alto"] != r["a_la_mediana_bajo"]:
                far = f"de {far} a {fmt_value(r['a_la_mediana_alto'], 'pp', 1)}"
        rows.append(
            {
                "Fuente (no vota)": source_label(r["fuente"]),
                "Su sobrecarga": published,
                "A la mediana de la clase": far,
            }
        )
    return pd.DataFrame(rows)


def diferidos_detalle(clase: cl.ClassRuns) -> None:
    """The class rule in words with its simulated error and power, then each deferred claim machine by
    machine (05's with the sources beside it)."""
    markdown(_rule_text())
    show(
        _table(
            _simulated_frame(), "La regla de la clase en clases simuladas: P(se confirma) · P(no se sostiene)"
        )
    )
    markdown(_coverage_words())
    idle = {}
    for v in _verdicts(clase):
        if not (v.judgement and v.judgement.machines) and not v.rule.about_centre:
            for machine, why in v.left_out.items():
                idle.setdefault(machine, LEFT_OUT.get(why, "no entra"))
            continue
        note = f" {md(v.rule.said.note)}" if v.rule.about_centre else ""
        markdown(f"**«{md(v.statement)}»**.{note}")
        show(_table(_machine_rows(v), f"«{v.statement}», máquina por máquina", clase.demo))
        if v.rule.about_centre and v.sources is not None and not v.sources.empty:
            show(
                _table(
                    _sources_frame(v),
                    "Las tablas por CPU del documento de getpid, al lado de la clase",
                    clase.demo,
                )
            )
    if idle:
        markdown(
            "En las afirmaciones del 08 que no tienen ninguna máquina dentro: "
            + "; ".join(f"«{md(m)}», {md(why)}" for m, why in sorted(idle.items()))
            + "."
        )


# ---------------------------------------------------------------- side by side
# A projector's screen: no figure taller than this (inches at the default 100 dpi: 800 px).
MAX_HEIGHT_IN = 8.0
PANEL_COLUMNS = 3
PANEL_HEIGHT_IN = 3.1  # room for the legend of the sources under each panel
LABELLED_MACHINES = 15  # up to this many machines every one is named on its panel; above, only outliers


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
    data: pd.DataFrame,
    title: str,
    xlabel: str,
    reference: pd.DataFrame | None = None,
    log: bool = False,
    demo: bool = False,
) -> list:
    """Small multiples: one panel per combination, the machines ranked on it (a point and its IC 95 %
    each), each reference source as a line (a single figure) or a band (a range or an IC); machines are
    named when they are few, else only the outliers. Figures are split so none is taller than a
    screen; a demonstration class's say it is invented. Returns the figures drawn."""
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
            ax.set_title(combo, fontsize=11, parse_math=False)
        for ax in list(axes.flat)[len(part) :]:
            ax.set_visible(False)
        for ax in axes[-1]:
            ax.set_xlabel(xlabel, fontsize=10)
        # a demonstration class's figure says it is invented in its title, in red
        fig.suptitle(
            f"{DEMO_MARK} · {title}" if demo else title,
            fontsize=12,
            parse_math=False,
            color="tab:red" if demo else "black",
        )
        fit(fig)
        figures.append(fig)
        show_figure(fig)
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
            parse_math=False,
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


def _fmt_table(df: pd.DataFrame, caption: str, demo: bool = False):
    def two_digits(v):  # three significant figures: «233», «1.27», «0.121»
        return num(v, significant(v)) if pd.notna(v) else "—"

    df = _spanish(df)
    numeric = {esc(c): two_digits for c in df.columns if pd.api.types.is_float_dtype(df[c])}
    return _table(df, caption, demo).format(numeric, na_rep="—")


def _ratios(clase: cl.ClassRuns, experiment: str):
    """Per metric and ratio: (metric, label, ratios per machine, x-axis label, log scale)."""
    todo = cl.only_comparable(clase.data)
    todo = todo[todo["experiment"] == experiment]
    for metric, datos in todo.groupby("metric", sort=True):
        for label, ratios, xlabel, log in (
            (cl.compare.BARE_LABEL, cl.ratios_vs_bare(datos), "× bare metal (escala log)", True),
            (cl.compare.PAIR_LABEL, cl.podman_over_docker(datos), "Podman/Docker (< 1: Podman menos)", False),
        ):
            if not ratios.empty:
                yield metric, label, ratios, xlabel, log


def experimento(clase: cl.ClassRuns, experiment: str) -> None:
    """× bare metal and Podman/Docker per machine (with IC 95 %), each reference source, and the
    machines that stand out (the spread in numbers: `dispersion`)."""
    refs = cl.reference_ratios(experiment)
    markdown(f"### {md(_title(experiment))}")
    drawn = False
    for metric, label, ratios, xlabel, log in _ratios(clase, experiment):
        drawn = True
        ref = refs[(refs["metric"] == metric) & (refs["proporcion_de"] == label)] if not refs.empty else None
        _ratio_plot(
            ratios,
            f"{_title(experiment)} · {_metric(experiment, metric)}: {label} (IC 95 %)",
            xlabel,
            ref,
            log,
            clase.demo,
        )
        _name_outliers(ratios, label)
    if not drawn:
        markdown(
            "_Ninguna corrida de la clase tiene aquí una proporción que comparar entre máquinas: hace falta "
            "medir, en la misma corrida, cada brazo junto a su línea base (bare metal) o a los dos motores "
            "(Podman/Docker)._"
        )


def dispersion(clase: cl.ClassRuns) -> None:
    """The spread across machines of every ratio drawn above: median, IQR, min, max and max/min."""
    shown = False
    for experiment in clase.experiments:
        for metric, label, ratios, _, _ in _ratios(clase, experiment):
            spread = cl.spread(ratios)
            if spread.empty:
                continue
            shown = True
            show(
                _fmt_table(
                    spread.drop(columns=["experiment", "metric"]),
                    f"{_title(experiment)} · {_metric(experiment, metric)}: {label}, dispersión entre máquinas",
                    clase.demo,
                )
            )
    if not shown:
        markdown("No hay proporciones de varias máquinas cuya dispersión medir.")


def _name_outliers(ratios: pd.DataFrame, label: str) -> None:
    lines = []
    for combo, g in ratios.assign(c=[_combo(r) for _, r in ratios.iterrows()]).groupby("c", sort=False):
        g = g.set_index("machine")
        far = outliers(g["proporcion"])
        if far:
            named = ", ".join(f"«{md(m)}» ({fmt_ratio(g.loc[m, 'proporcion'])})" for m in far)
            verb = "se aparta" if len(far) == 1 else "se apartan"
            lines.append(
                f"- {md(combo)}: {verb} del resto {named}; la mediana de la clase es "
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


# ---------------------------------------------------------------- against the sources
def _in_notebook_order(df: pd.DataFrame) -> list:
    """The comparisons with the sources grouped per (ratio, experiment, metric), experiments in the
    course's notebook order (01, 02, 03…), not in the alphabetical order of their names."""
    order = {name: i for i, name in enumerate(experiments.names())}
    groups = df.groupby(["proporcion_de", "experiment", "metric"], sort=False)
    return sorted(groups, key=lambda g: (g[0][0], order.get(g[0][1], len(order)), g[0][1], g[0][2]))


def frente_a_referencia(clase: cl.ClassRuns) -> pd.DataFrame:
    """How many machines agree with each reference source (the one rule on live ÷ reference); the
    tables per comparison are `frente_a_referencia_detalle`."""
    df = cl.against_reference(clase)
    if df.empty:
        markdown("Ningún experimento de la clase tiene datos de referencia con los que comparar.")
        return df
    if clase.demo:  # fictitious machines: their figures, labelled, and no «coincide» of any kind
        markdown(
            f"_{DEMO_FIGURES.capitalize()}: en el detalle, la proporción de cada máquina y, en el título de "
            "cada tabla, la de cada fuente, sin juzgar su acuerdo._"
        )
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
        _table(
            summary, "Cada máquina frente a las fuentes publicadas (comparaciones por resultado), ordenadas"
        )
    )
    return df


def frente_a_referencia_detalle(clase: cl.ClassRuns, comparacion: pd.DataFrame) -> None:
    """One table per comparison with the sources (`comparacion`, what `frente_a_referencia` returned):
    the machines ranked, each machine's figure once and its mark against each source."""
    df = comparacion
    for (label, experiment, metric), part in _in_notebook_order(df):
        show(
            pivot_detalle(part, f"{label} · {_title(experiment)} · {_metric(experiment, metric)}", clase.demo)
        )


VERDICT_MARK = {fg.COINCIDE: "✓", fg.NO_COINCIDE: "✗", vd.NO_CONCLUYENTE: "?", vd.SIN_DATOS: "·"}
MARKS_LEGEND = (
    f"✓ coincide, ✗ no coincide, ? no concluyente, · menos de {vd.MIN_N} repeticiones "
    f"(máquina ÷ fuente {AGREEMENT_MARGIN})"
)


def _reference_words(r) -> str:
    if r["forma"] == "rango":
        return f"rango publicado {fmt_ratio(r['referencia_ic_bajo'])} a {fmt_ratio(r['referencia_ic_alto'])}"
    return fmt_ratio(r["referencia"], r["referencia_ic_bajo"], r["referencia_ic_alto"])


def pivot_detalle(part: pd.DataFrame, caption: str, demo: bool = False):
    """One row per machine (ranked by its ratio): per arm, the machine's ratio [IC 95 %] once, then its
    mark against each source, the source's own figure (range, IC or single figure) in that column's
    header. A demonstration class has no marks: the sources' figures go in the caption."""
    part = part.assign(combinación=[_combo(r) for _, r in part.iterrows()])
    columns: dict[str, None] = {}
    cells: dict[tuple[str, str], str] = {}
    sources = []
    for (combo, fuente), g in part.groupby(["combinación", "fuente"], sort=False):
        figure_col = f"{combo} (IC 95 %)"
        columns.setdefault(figure_col)
        reference = f"{source_label(fuente)} ({_reference_words(g.iloc[0])})"
        mark_col = f"{combo}, frente a {reference}"
        if demo:
            sources.append(f"{combo}: {reference}")
        else:
            columns.setdefault(mark_col)
        for _, r in g.iterrows():
            cells[(r["machine"], figure_col)] = fmt_ratio(r["proporcion"], r["ic_bajo"], r["ic_alto"])
            cells[(r["machine"], mark_col)] = VERDICT_MARK.get(r["veredicto"], "·")
    rank = list(part.groupby("machine")["proporcion"].median().sort_values().index)
    wide = pd.DataFrame(
        [{"máquina": m, **{c: cells.get((m, c), "—") for c in columns}} for m in rank],
        columns=["máquina", *columns],
    )
    if demo:
        return _table(wide, f"{caption}: {DEMO_FIGURES}; fuentes: " + "; ".join(sources), True)
    return _table(wide, f"{caption}: {MARKS_LEGEND}")
