"""Helpers for the course "Contenedores: LAUNCH vs RUNNING".

Layers (imports point down):
    view/         widgets, plots, tables, Spanish sentences
    experiments/  one module per experiment: Config -> run() -> tidy DataFrame
    core          engines, images, measure, system, results, reference
"""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent

__all__ = ["PROJECT_ROOT"]
