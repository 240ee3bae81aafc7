"""The registry: every experiment of the course, in notebook order, listed here and nowhere else.

Each entry is a module of this package that follows the contract in `base.Experiment` (see
CONTRIBUTING.md). The course runner, the class comparison, the reference loader, `make pack`, the
closing LAUNCH vs RUNNING table, `make setup` and the tests enumerate this list.
"""

from __future__ import annotations

import importlib
from types import ModuleType

REGISTRY: list[str] = [
    "arranque",
    "escala",
    "ejecucion",
    "anatomia",
    "llamadas",
    "red",
    "anidamiento",
    "sistema_vm",
]

_extra: dict[str, ModuleType] = {}  # registered at run time (tests register a toy experiment)

REQUIRED = (
    "EXPERIMENT",
    "TITLE",
    "NOTEBOOK",
    "CONTROLS",
    "BASELINE",
    "QUICK",
    "Config",
    "config",
    "run",
    "summarize",
    "claims",
    "compare",
)


def check(module: ModuleType) -> ModuleType:
    """The module, if it provides the contract; else a TypeError naming what is missing."""
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise TypeError(
            f"{module.__name__} no cumple el contrato de experimento: le falta {', '.join(missing)}"
        )
    return module


def names() -> list[str]:
    return [*REGISTRY, *_extra]


def get(name: str) -> ModuleType:
    if name in _extra:
        return _extra[name]
    if name not in REGISTRY:
        raise KeyError(f"No hay ningún experimento llamado «{name}». Hay: {', '.join(names())}.")
    return check(importlib.import_module(f"{__name__}.{name}"))


def all_experiments() -> list[ModuleType]:
    return [get(name) for name in names()]


def by_notebook(stem: str) -> ModuleType | None:
    """The experiment a notebook runs ("01_arranque" → arranque), or None (00_entorno, 90_...)."""
    for module in all_experiments():
        if module.NOTEBOOK == stem:
            return module
    return None


def register(module: ModuleType) -> None:
    """Add an experiment at run time (tests use it for a toy experiment)."""
    _extra[check(module).EXPERIMENT] = module


def unregister(name: str) -> None:
    _extra.pop(name, None)
