"""The toy's view, following the convention: a Resultado or None, displays itself, returns None."""

from __future__ import annotations

from helpers.experiments.runner import Resultado
from helpers.view.common import needs_result, show, table

from .analysis import summarize


@needs_result
def tabla(resultado: Resultado) -> None:
    show(table(summarize(resultado.df, resultado.meta), "Juguete"))
