"""The closing LAUNCH vs RUNNING table as a person sees it (helpers.cierre gathers the rows)."""

from __future__ import annotations

import math

import pandas as pd

from .. import cierre, experiments
from ..experiments import verdict as vd
from ..experiments.runner import Resultado
from .common import (
    ENGINE_LABEL,
    STATUS_LABEL,
    claim_sentence,
    fmt,
    fmt_interval,
    fmt_pct,
    fmt_ratio,
    fmt_value,
    fmt_value_interval,
    markdown,
    show,
    table,
)

TIPO = {
    "LAUNCH": "LAUNCH (arrancar, o lanzar un proceso con exec)",
    "RUNNING": "RUNNING (trabajar dentro)",
    "CAPACITY": "CAPACITY (cuántos caben)",
}
ENTORNO = {**ENGINE_LABEL, "chroot": "bare metal (chroot a la imagen)"}


def _digits(value: float) -> int:
    magnitude = abs(value)
    return 2 if magnitude < 10 else 1 if magnitude < 1000 else 0


def valor(value: float, unit: str) -> str:
    """A closing-table figure in its own unit: «312.4 ms», «+3.1 %», «1.05×»."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if unit == "%":
        return fmt_pct(value)
    if unit.startswith(("x", "×")):
        return fmt_ratio(value) + unit[1:]
    return fmt(value, _digits(value), unit)


def intervalo(low: float, high: float, value: float, unit: str) -> str:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return "—"
    if unit == "%":
        return f"[{fmt_pct(low)}, {fmt_pct(high)}]"
    if unit.startswith(("x", "×")):
        return fmt_interval(low, high, 2)
    return fmt_interval(low, high, _digits(value))


def _notebook(name: str) -> str:
    return f"`{experiments.get(name).NOTEBOOK}.ipynb`"


def tabla(resultado: Resultado | None = None, *, root=None) -> pd.DataFrame | None:
    """The closing table from this machine's latest run of every experiment that declares closing rows
    (`resultado`, the run a notebook just made, replaces its experiment's latest run). Shows the table,
    says which experiments have no run yet, and returns the rows (helpers.cierre.COLUMNS)."""
    data = cierre.gather(resultado, root=root)
    if data.rows.empty:
        pending = ", ".join(_notebook(n) for n in data.missing) or "ninguno"
        markdown(
            "**Aún no hay resultados para la tabla de cierre (LAUNCH, RUNNING y CAPACITY) en esta máquina.** Ejecuta "
            f"los cuadernos de los experimentos ({pending}) y vuelve a esta celda."
        )
        _notes(data, only_problems=True)
        return None
    rows = data.rows.copy()
    rows["tipo"] = rows.apply(cierre.cost_of, axis=1)  # exactly one of LAUNCH, RUNNING, CAPACITY
    rows["_orden"] = rows["tipo"].map({c: i for i, c in enumerate(cierre.COSTS)})
    rows = rows.sort_values("_orden", kind="stable")
    shown = pd.DataFrame(
        {
            "Costo": rows["tipo"].map(lambda t: TIPO.get(t, t)),
            "Experimento": rows["titulo"],
            "Qué se mide": rows["concepto"].str.replace("`", "", regex=False),
            "Entorno": rows["entorno"].map(lambda e: ENTORNO.get(e, e)),
            "Mediana": [valor(v, u) for v, u in zip(rows["valor"], rows["unidad"])],
            "IC 95 %": [
                intervalo(lo, hi, v, u)
                for lo, hi, v, u in zip(rows["ic_bajo"], rows["ic_alto"], rows["valor"], rows["unidad"])
            ],
        }
    )
    show(table(shown, "LAUNCH, RUNNING y CAPACITY en esta máquina (la última corrida de cada experimento)"))
    _notes(data)
    return data.rows


def _notes(data: cierre.Cierre, only_problems: bool = False) -> None:
    lines = []
    if not only_problems:
        used = [
            f"{experiments.get(n).TITLE}: corrida `{r.meta.get('run_id', r.run_dir.name)}`"
            + ("" if r.status == "complete" else f" ({STATUS_LABEL.get(r.status, r.status)})")
            for n, r in data.runs.items()
        ]
        if used:
            lines.append("Corridas usadas: " + "; ".join(used) + ".")
    if data.missing and not only_problems:
        lines.append(
            "Aún sin corrida en esta máquina (sus filas faltan): "
            + ", ".join(f"{experiments.get(n).TITLE} ({_notebook(n)})" for n in data.missing)
            + "."
        )
    for name, why in data.unreadable.items():
        lines.append(f"{experiments.get(name).TITLE}: {why}")
    markdown("\n\n".join(f"_{line}_" for line in lines))


# ---------------------------------------------------------------- one answer per question
QUESTION_TEXT = {
    "podman_mas_rapido": "¿Arranca Podman más rápido que Docker?",
    "donde_va_launch": "¿A dónde se va el tiempo de LAUNCH?",
    "costo_running": "¿Cuánto cuesta un contenedor mientras trabaja (RUNNING)?",
    "capacidad": "¿Cuántos caben, y qué retiene cada uno (CAPACITY)?",
}


ANSWER = {  # the answer to a question, from the verdict of the claim that decides it
    vd.SE_CONFIRMA: "sí: la afirmación principal se confirma.",
    vd.NO_SE_SOSTIENE: "no: la afirmación principal no se sostiene.",
    vd.NO_CONCLUYENTE: "tus datos todavía no lo deciden (el intervalo es ancho: más repeticiones).",
    vd.INESTABLE: "la medición salió inestable: repite ese cuaderno.",
    vd.SIN_DATOS: "aún no hay datos suficientes para responder.",
    vd.NO_COMPARABLE: "no se puede comparar en esta máquina.",
}


def preguntas(root=None) -> dict:
    """One short paragraph per question, generated from the claims of the one notebook that decides it
    (its latest run): the answer, then the other claims it cites. Returns {question: [claims]}."""
    found = cierre.answers(root)
    for q in cierre.QUESTIONS:
        where = _notebook(q.experiment)
        claims = [c for c in found[q.key] if c is not None]
        head = f"#### {QUESTION_TEXT[q.key]}\n\nLo decide {where}"
        if not found[q.key]:
            markdown(f"{head}, que aún no tiene corrida en esta máquina: ejecútalo y vuelve a esta celda.")
            continue
        if not claims:
            markdown(f"{head}, pero su última corrida no juzga ninguna de sus afirmaciones sobre esto.")
            continue
        answer = ANSWER.get(claims[0].status, ANSWER[vd.SIN_DATOS])
        text = f"{head}. **En tu máquina: {answer}** Lo que juzgó, empezando por su afirmación principal:\n\n"
        text += "\n".join(f"- {claim_sentence(c)}" for c in claims)
        markdown(text)
    return found


# ---------------------------------------------------------------- the chapter's table beside the student's
CONCEPT = {
    ("arranque", "alpine"): "arranque de echo, imagen alpine",
    ("arranque", "ubuntu"): "arranque de echo, imagen ubuntu",
    ("ejecucion", "hash"): "hash de extremo a extremo (exec + trabajo)",
    ("ejecucion", "sort"): "sort de extremo a extremo (exec + trabajo)",
}


def resumen(root=None) -> pd.DataFrame:
    """The chapter's one-table Docker-vs-Podman summary (its medians) beside the student's (median and
    IC 95 % of the latest run), each figure in its cost."""
    data = cierre.summary(root)
    shown = pd.DataFrame(
        {
            "Costo": data["costo"],
            "Qué": [
                CONCEPT.get((e, v if e == "ejecucion" else r), e)
                for e, r, v in zip(data["experimento"], data["imagen"], data["variante"])
            ],
            "Motor": data["motor"].map(lambda e: ENGINE_LABEL.get(e, e)),
            "Capítulo (mediana)": [fmt_value(v, u) for v, u in zip(data["capitulo"], data["unidad"])],
            "Tu máquina (mediana e IC 95 %)": [
                fmt_value_interval(v, lo, hi, u) if n else "sin corrida"
                for v, lo, hi, u, n in zip(
                    data["tuyo"], data["tuyo_bajo"], data["tuyo_alto"], data["unidad"], data["n"]
                )
            ],
        }
    )
    show(table(shown, "Docker frente a Podman: la tabla del capítulo y la tuya"))
    return data


def _against_limit(low: float, high: float) -> str:
    """Where a figure with its interval sits against the chapter's limit (the same three outcomes as a
    verdict: all below, all above, or neither; no interval decides nothing)."""
    limit = cierre.CHAPTER_LIMIT_MINUTES
    if math.isnan(low) or math.isnan(high):
        return "sin IC"
    return "por debajo" if high < limit else "por encima" if low > limit else "sin decidir"


def balance(rows: pd.DataFrame | None) -> cierre.BottomLine:
    """The chapter's bottom line («2 h de trabajo → menos de 10 min de sobrecarga») recomputed from the
    student's closing rows: one figure per kind of work measured in a container, as sentences that
    follow the figures."""
    line = cierre.bottom_line(rows)
    hours, limit = cierre.WORK_MINUTES // 60, cierre.CHAPTER_LIMIT_MINUTES
    said = f"«{hours} h de trabajo → menos de {limit} min de sobrecarga»"
    if not line.measured:
        markdown(
            f"_Para rehacer la cuenta del capítulo ({said}) hace falta una sobrecarga RUNNING medida en un "
            "contenedor: ejecuta el cuaderno 03 y vuelve aquí._"
        )
        return line
    where = [_against_limit(lo, hi) for lo, hi in zip(line.loads["minutos_bajo"], line.loads["minutos_alto"])]
    items = [
        f"- {r['concepto'].replace('`', '')}, {ENTORNO.get(r['entorno'], r['entorno'])}: "
        f"{valor(r['valor'], '%')} → **{fmt(r['minutos'], 1, 'min')}**"
        + (
            f" {fmt_interval(r['minutos_bajo'], r['minutos_alto'], 1, 'min')}"
            if not math.isnan(r["minutos_bajo"])
            else ""
        )
        + f" ({w})"
        for (_, r), w in zip(line.loads.iterrows(), where)
    ]
    launch = line.launch
    once = f", más un arranque de {valor(launch['valor'], 'ms')}" if launch else ""
    counts = {w: where.count(w) for w in ("por debajo", "por encima", "sin decidir", "sin IC")}
    tally = "; ".join(
        f"{label} de {limit} min: {counts[w]}"
        for w, label in (
            ("por debajo", "con todo su intervalo por debajo"),
            ("por encima", "con todo su intervalo por encima"),
            ("sin decidir", "con el intervalo a los dos lados"),
        )
    )
    if counts["sin IC"]:
        tally += f"; sin IC 95 % (menos de {vd.MIN_N} repeticiones): {counts['sin IC']}"
    markdown(
        f"El capítulo cerraba con {said}. **Con tus datos, {hours} h de trabajo dentro de un contenedor "
        f"cuestan de más entre {fmt(line.loads['minutos'].min(), 1, 'min')} y "
        f"{fmt(line.loads['minutos'].max(), 1, 'min')}, según la carga**{once}. Cada carga que mediste, "
        f"de la más barata a la más cara (sobrecarga → minutos de más en {hours} h):\n\n"
        + "\n".join(items)
        + f"\n\nCargas {tally}."
    )
    return line
