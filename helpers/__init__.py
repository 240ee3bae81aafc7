"""Helpers for the course "Contenedores: LAUNCH vs RUNNING".

Layers (imports point down):
    view/         widgets, plots, tables, Spanish sentences
    experiments/  one module per experiment: Config -> run() -> tidy DataFrame
    core          engines, images, measure, system, results, reference, paths
"""

from .paths import PROJECT_ROOT

__all__ = ["PROJECT_ROOT"]
