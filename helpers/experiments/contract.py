"""The experiment contract, written once. The registry's check, CONTRIBUTING's table and the contract
test all read `NAMES` below.

An experiment is a package `helpers/experiments/<name>/` whose `__init__.py` provides seven names:

    EXPERIMENT, NOTEBOOK, TITLE, QUICK, Config, run, claims

and may provide the optional ones (each has a default). `config(**params)` and `CONTROLS` are derived
from `Config` (a `params.Params` dataclass): a module never writes them itself, so the widget, the
validation and the docs cannot disagree.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pandas as pd

from . import params as params_mod

CLOSING_COLUMNS = ["concepto", "tipo", "entorno", "valor", "ic_bajo", "ic_alto", "unidad"]


def _no_closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    return pd.DataFrame([], columns=CLOSING_COLUMNS)


def _no_provision(log: Callable[[str], None]) -> None:
    return None


@dataclass(frozen=True)
class Name:
    """One name of the contract: whether it is required, what it is (Spanish, for CONTRIBUTING) and,
    for an optional one, its default (a zero-argument factory)."""

    name: str
    required: bool
    doc: str
    default: Callable[[], Any] | None = None


NAMES: tuple[Name, ...] = (
    Name(
        "EXPERIMENT",
        True,
        "su nombre: las corridas van a `results/<nombre>/`, la referencia es `data/reference/<nombre>*.csv`",
    ),
    Name("NOTEBOOK", True, 'el cuaderno sin extensión (`"04_anatomia_arranque"`)'),
    Name(
        "TITLE",
        True,
        "el título en español, escrito una vez: el cuaderno empieza con «# NN · TITLE» y el panel, la tabla "
        "de cierre y la clase lo muestran",
    ),
    Name("QUICK", True, "el perfil rápido: `{PARAMETRO_DEL_CUADERNO: valor}` que usa `make course RAPIDO=1`"),
    Name(
        "Config",
        True,
        "los parámetros, declarados una vez con `params.param` (etiqueta, límites, "
        "opciones): de ahí salen los controles del panel, `config()` y la validación",
    ),
    Name("run", True, "`run(cfg, *, progress, log, root)`: mide y devuelve un `Resultado`"),
    Name(
        "claims",
        True,
        "`claims(df, meta)`: las afirmaciones de las fuentes, declaradas con `Said` y "
        "juzgadas con los constructores de `verdict`",
    ),
    Name(
        "SAID",
        False,
        "las afirmaciones declaradas (`verdict.Said`), en una tupla: las lista `python -m helpers.sources` sin correr nada",
        lambda: (),
    ),
    Name("BASELINE", False, "`(motor, variante)` contra la que se calculan las proporciones", lambda: None),
    Name(
        "READS",
        False,
        "los experimentos cuyos resultados lee (`experiments.read_run` / `read_claim`), por nombre",
        lambda: (),
    ),
    Name(
        "closing_rows",
        False,
        "`closing_rows(df, meta)`: sus filas de la tabla de cierre LAUNCH, RUNNING y CAPACITY (`CLOSING_COLUMNS`)",
        lambda: _no_closing_rows,
    ),
    Name(
        "CHAPTER_SUMMARY",
        False,
        "sus filas de la «Tabla resumen» del capítulo en `09_cierre` (`summary.SummaryRow`: qué compara, "
        "la declaración que la decide y cómo se calcula su cifra)",
        lambda: (),
    ),
    Name(
        "COMPARABLE",
        False,
        "las métricas que la comparación de la clase pone lado a lado (vacío: todas)",
        lambda: (),
    ),
    Name(
        "CLASS_LABELS",
        False,
        "`{métrica o variante: etiqueta}`: cómo nombra la comparación de la clase sus métricas de "
        "`COMPARABLE` y sus brazos (sin etiqueta: el nombre con espacios)",
        lambda: {},
    ),
    Name("DEBIAN_PACKAGES", False, "los paquetes de Debian que instala `make setup`", lambda: ()),
    Name(
        "provision",
        False,
        "`provision(log)`: lo que `make setup` prepara una sola vez",
        lambda: _no_provision,
    ),
    Name(
        "NEEDS_ROOT",
        False,
        '`{clave: "qué"}` de los brazos que solo root puede correr (`00_entorno` los lista)',
        lambda: {},
    ),
)
REQUIRED = tuple(n.name for n in NAMES if n.required)
DERIVED = ("config", "CONTROLS")  # come from Config; a module never writes them
_checked: weakref.WeakSet[ModuleType] = weakref.WeakSet()  # modules already given their defaults


def check(module: ModuleType) -> ModuleType:
    """The module, if it provides the contract (its missing optional names get their defaults, its
    derived names come from Config); else a TypeError, in Spanish, naming what is wrong."""
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise TypeError(
            f"{module.__name__} no cumple el contrato de experimento: le falta {', '.join(missing)}"
        )
    config_cls = module.Config
    if not (dataclasses.is_dataclass(config_cls) and issubclass(config_cls, params_mod.Params)):
        raise TypeError(
            f"{module.__name__}.Config debe ser una dataclass que herede de params.Params: los parámetros "
            "se declaran una sola vez"
        )
    if module in _checked:
        return module
    written = [name for name in DERIVED if name in vars(module)]
    if written:
        raise TypeError(
            f"{module.__name__} escribe {', '.join(written)}: salen de Config (params.param); no se escriben"
        )
    for name in NAMES:
        if not name.required and not hasattr(module, name.name):
            setattr(module, name.name, name.default())
    module.config = config_cls.build
    module.CONTROLS = config_cls.controls()
    _checked.add(module)
    return module
