"""Small display helpers shared by every experiment's view."""
from __future__ import annotations

import math

import pandas as pd

ENGINE_LABEL = {"bare": "bare metal", "docker": "Docker", "podman": "Podman"}
STATUS_LABEL = {"complete": "completa", "interrupted": "interrumpida", "failed": "fallida",
                "running": "en curso (o cortada sin aviso)"}


def show(obj) -> None:
    """display() in a notebook, print() elsewhere."""
    try:
        from IPython.display import display

        display(obj)
    except ImportError:  # pragma: no cover
        print(obj)


def markdown(text: str) -> None:
    try:
        from IPython.display import Markdown, display

        display(Markdown(text))
    except ImportError:  # pragma: no cover
        print(text)


def fmt(value: float, digits: int = 1, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}".strip()


def fmt_interval(low: float, high: float, digits: int = 1, unit: str = "") -> str:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return "—"
    return f"[{low:,.{digits}f}, {high:,.{digits}f}] {unit}".strip()


def fmt_ratio(value: float, low: float | None = None, high: float | None = None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    text = f"{value:,.{digits}f}x"
    if low is not None and high is not None and not (math.isnan(low) or math.isnan(high)):
        text += f" [{low:,.{digits}f}, {high:,.{digits}f}]"
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
    skipped = meta.get("skipped_engines") or {}
    for name, why in skipped.items():
        line += f" Se omitió {ENGINE_LABEL.get(name, name)}: {why}"
    return line


def table(df: pd.DataFrame, caption: str | None = None):
    """A styled, index-free table for notebooks and HTML."""
    styler = df.style.hide(axis="index")
    if caption:
        styler = styler.set_caption(caption)
    return styler.set_table_styles([
        {"selector": "caption", "props": "caption-side: top; font-weight: bold; text-align: left;"},
        {"selector": "th", "props": "text-align: left;"},
    ])
