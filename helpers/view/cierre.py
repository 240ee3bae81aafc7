"""The closing LAUNCH vs RUNNING table as a person sees it (helpers.cierre gathers the rows)."""

from __future__ import annotations

import math

import pandas as pd

from .. import cierre, experiments
from ..experiments.runner import Resultado
from .common import ENGINE_LABEL, STATUS_LABEL, fmt, fmt_interval, fmt_pct, fmt_ratio, markdown, show, table

TIPO = {"LAUNCH": "LAUNCH (arrancar)", "RUNNING": "RUNNING (trabajar dentro)"}
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
            "**Aún no hay resultados para la tabla LAUNCH frente a RUNNING en esta máquina.** Ejecuta "
            f"los cuadernos de los experimentos ({pending}) y vuelve a esta celda."
        )
        _notes(data, only_problems=True)
        return None
    rows = data.rows.copy()
    rows["_orden"] = rows["tipo"].map({"LAUNCH": 0, "RUNNING": 1}).fillna(2)
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
    show(table(shown, "LAUNCH frente a RUNNING en esta máquina (la última corrida de cada experimento)"))
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
