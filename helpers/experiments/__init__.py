"""The registry: every experiment of the course, in notebook order, listed here and nowhere else.

Each entry is a package of this package that follows the contract in `contract.py` (see
CONTRIBUTING.md). The course runner, the class comparison, the reference loader, `make pack`, the
closing LAUNCH vs RUNNING table, `make setup` and the tests enumerate this list.

An experiment reads another experiment's results only through `read_run` / `read_claim`, naming it in
its `READS`; a claim is found by its key, never by the words of its statement.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .contract import check
from .runner import Resultado

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


# ---------------------------------------------------------------- reading another experiment's results
def _declared(reader: ModuleType, experiment: str) -> ModuleType:
    if experiment not in tuple(getattr(reader, "READS", ())):
        raise KeyError(f"{reader.__name__} lee resultados de «{experiment}» sin declararlo en READS")
    return get(experiment)


def read_run(reader: ModuleType, experiment: str, root=None):
    """The run of `experiment` every page reads (results.latest: its latest complete run, else its latest
    with rows), which `reader` declares in READS; None when there is none yet (the notebook then says so,
    see view.common.missing_run)."""
    _declared(reader, experiment)
    return Resultado.latest(experiment, root)


def read_claim(reader: ModuleType, experiment: str, key: str, root=None, **detail):
    """The claim `key` of `experiment`'s latest run (the first whose detail matches `detail`), or None
    when that experiment has no run yet or the run does not judge that claim."""
    res = read_run(reader, experiment, root)  # read_run checks READS
    if res is None:
        return None
    return pick_claim(judged(res), key, **detail)


def judged(res: Resultado) -> list:
    """The claims of a run of a registered experiment, judged once per run object (Resultado.judged_by):
    the one way every page, 09, the kit and the census read a run's verdicts."""
    return res.judged_by(get(res.experiment).claims)


def pick_claim(claims, key: str, **detail):
    """The first judged claim with this key whose detail matches `detail`, or None: a claim is found by
    its key, never by the words of its statement."""
    return next(
        (c for c in claims if c.key == key and all(c.detail.get(k) == v for k, v in detail.items())), None
    )


# Every registered experiment is checked when the package is imported, so a module imported directly
# (`from helpers.experiments import arranque`) already has its defaults and its derived names
# (`config`, `CONTROLS`, from Config).
for _name in REGISTRY:
    get(_name)
