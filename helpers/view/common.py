"""Small display helpers shared by every experiment's view."""
from __future__ import annotations

import functools
import math

import pandas as pd

ENGINE_LABEL = {"bare": "bare metal", "docker": "Docker", "podman": "Podman"}
# How every notebook words a verdict on a seed claim (one term per idea).
VERDICT = {
    "confirmada": "se confirma",
    "parcial": "se confirma solo en parte",
    "refutada": "no se sostiene",
    "ruido": "indistinguible del ruido",
    "sin_datos": "no se puede juzgar (faltan datos)",
}
STATUS_LABEL = {"complete": "completa", "interrupted": "interrumpida", "failed": "fallida",
                "running": "en curso (o cortada sin aviso)"}


def show(obj) -> None:
    """display() in a notebook, print() elsewhere."""
    try:
        from IPython.display import display

        display(obj)
    except ImportError:  # pragma: no cover
        print(obj)


def markdown(text: str | None) -> None:
    if not text:
        return
    try:
        from IPython.display import Markdown, display

        display(Markdown(text))
    except ImportError:  # pragma: no cover
        print(text)


THOUSANDS = "\u202f"  # narrow no-break space: "1 715", never "1,715" (a decimal to a Spanish reader)


def num(value: float, digits: int = 0) -> str:
    """A number the Spanish way: decimal point as in the course's tables, thousands with a thin space."""
    return f"{value:,.{digits}f}".replace(",", THOUSANDS)


def fmt(value: float, digits: int = 1, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{num(value, digits)} {unit}".strip()


def fmt_interval(low: float, high: float, digits: int = 1, unit: str = "") -> str:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return "—"
    return f"[{num(low, digits)}, {num(high, digits)}] {unit}".strip()


def fmt_ratio(value: float, low: float | None = None, high: float | None = None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    text = f"{num(value, digits)}x"
    if low is not None and high is not None and not (math.isnan(low) or math.isnan(high)):
        text += f" [{num(low, digits)}, {num(high, digits)}]"
    return text


def run_caption(resultado) -> str:
    """One Spanish line saying which run is shown."""
    meta = resultado.meta
    status = STATUS_LABEL.get(meta.get("status"), meta.get("status"))
    host = meta.get("host", {})
    line = (f"Corrida `{meta.get('run_id')}` ({status}, {meta.get('rows', len(resultado.df))} filas) en "
            f"{host.get('cpu_model', '?')}, {host.get('cpu_cores', '?')} núcleos, kernel {host.get('kernel', '?')}.")
    if meta.get("reason"):
        line += f" Motivo: {meta['reason']}."
    for name, info in (meta.get("engines") or {}).items():
        if isinstance(info, dict) and info.get("rootless"):
            line += (f" {engine_label(name, meta)}: red {info.get('network_backend', '?')}, "
                     f"almacenamiento {info.get('storage') or info.get('storage_driver', '?')}.")
    skipped = meta.get("skipped_engines") or {}
    for name, why in skipped.items():
        line += f" Se omitió {ENGINE_LABEL.get(name, name)}: {why}"
    for arm, why in (meta.get("skipped_arms") or {}).items():
        line += f" Se omitió {arm}: {why}"
    return line


def engine_label(name: str, meta: dict | None = None) -> str:
    """The engine's name for tables; «Podman sin root» when the run's metadata says it ran rootless
    (another network and storage than rootful Podman: not the same engine for the comparison)."""
    label = ENGINE_LABEL.get(name, name)
    info = ((meta or {}).get("engines") or {}).get(name)
    if isinstance(info, dict) and info.get("rootless"):
        label += " sin root"
    return label


def table(df: pd.DataFrame, caption: str | None = None):
    """A styled, index-free table for notebooks and HTML."""
    styler = df.style.hide(axis="index")
    if caption:
        styler = styler.set_caption(caption)
    return styler.set_table_styles([
        {"selector": "caption", "props": "caption-side: top; font-weight: bold; text-align: left;"},
        {"selector": "th", "props": "text-align: left;"},
    ])


NO_RESULT = ("**Aún no hay resultados de este experimento en esta máquina.** Pulsa «Ejecutar» en el panel "
             "de arriba y, cuando termine, vuelve a ejecutar estas celdas.")


def needs_result(func):
    """For view functions whose first argument is a Resultado: given None (nobody pressed «Ejecutar»
    yet and this machine has no earlier run), say so in Spanish and draw nothing, instead of failing."""

    @functools.wraps(func)
    def wrapper(resultado, *args, **kwargs):
        if resultado is None:
            markdown(NO_RESULT)
            return None
        return func(resultado, *args, **kwargs)

    return wrapper
