"""The view convention (CONTRIBUTING.md, «Las vistas»), checked on every registered experiment's view
module (helpers/view/<experiment>.py):

- the same jobs have the same names: `tabla`, `grafico`, `veredictos` and `comparacion` in every one,
  `referencia` where the sources' figures are shown apart; a second view of the same kind is
  `<job>_<what>` (`tabla_niveles`, `grafico_cpu`), never a variant (`veredicto`, `mostrar_veredicto`);
- every public function is a view: it takes a Resultado (or None) first, or nothing at all (the
  sources' figures, which no run changes), displays itself and returns None. A helper that returns a
  sentence or a frame is private (`_frase_comparacion`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap

import IPython.display
import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from helpers import experiments  # noqa: E402
from helpers.experiments.runner import Resultado  # noqa: E402

JOBS = ("tabla", "grafico", "veredictos", "referencia", "comparacion")
REQUIRED = ("tabla", "grafico", "veredictos", "comparacion")
# A public name that mentions a job (in Spanish or English) must be that job or `<job>_<what>`.
MENTIONS_A_JOB = re.compile(r"tabl|table|grafic|plot|chart|veredict|verdict|referen|compar", re.I)


def _view_modules():
    found = []
    for name in experiments.names():
        try:
            found.append(importlib.import_module(f"helpers.view.{name}"))
        except ModuleNotFoundError:
            continue
    return found


MODULES = _view_modules()


def _params():
    for module in MODULES:
        yield pytest.param(module, id=module.__name__.rsplit(".", 1)[1])


def public_functions(module) -> dict:
    return {
        name: func
        for name, func in inspect.getmembers(module, inspect.isfunction)
        if not name.startswith("_") and func.__module__ == module.__name__
    }


def _returned_values(func) -> list[str]:
    """The `return <value>` statements of the function's own body (not of functions nested in it) whose
    value is not None, as source text."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(func))))
    body = tree.body[0]
    found = []
    stack = list(ast.iter_child_nodes(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                found.append(ast.unparse(node))
        stack.extend(ast.iter_child_nodes(node))
    return found


def _takes_a_result(func) -> bool:
    params = list(inspect.signature(inspect.unwrap(func)).parameters.values())
    return bool(params) and params[0].name == "resultado"


def test_every_registered_experiment_has_a_view_module():
    names = {m.__name__.rsplit(".", 1)[1] for m in MODULES}
    assert names == set(experiments.names()) - {"juguete"}, set(experiments.names()) ^ names


@pytest.mark.parametrize("module", list(_params()))
def test_the_same_jobs_have_the_same_names(module):
    names = set(public_functions(module))
    missing = [job for job in REQUIRED if job not in names]
    assert not missing, f"{module.__name__} no tiene {missing}"
    off = sorted(
        name
        for name in names
        if MENTIONS_A_JOB.search(name) and not any(name == job or name.startswith(f"{job}_") for job in JOBS)
    )
    assert not off, f"{module.__name__}: nombres fuera de la convención {off} (usa {JOBS} o <trabajo>_<qué>)"


@pytest.mark.parametrize("module", list(_params()))
def test_every_public_function_is_a_view_that_returns_none(module):
    problems = []
    for name, func in public_functions(module).items():
        signature = inspect.signature(inspect.unwrap(func))
        params = list(signature.parameters.values())
        if params and not _takes_a_result(func):
            problems.append(f"{name}: su primer argumento no es «resultado»")
        if [p.name for p in params[1:] if p.default is inspect.Parameter.empty]:
            problems.append(f"{name}: argumentos obligatorios además de «resultado»")
        if signature.return_annotation not in (None, "None"):
            problems.append(f"{name}: anotado -> {signature.return_annotation}")
        problems += [f"{name}: {r}" for r in _returned_values(func)]
    assert not problems, f"{module.__name__}: {problems}"


def test_the_static_check_sees_a_returned_value():
    """The AST check above is not vacuous: a view that returns its table is caught, a bare return is not."""

    def returns_a_table(resultado):
        if resultado is None:
            return
        return resultado.df

    def nested_return_is_fine(resultado):
        def key(x):
            return x

        return None

    assert _returned_values(returns_a_table) == ["return resultado.df"]
    assert _returned_values(nested_return_is_fine) == []


# ---------------------------------------------------------------- on a real run (the shared quick course)
@pytest.mark.notebook
@pytest.mark.parametrize("module", list(_params()))
def test_every_view_displays_a_real_run_and_returns_none(module, monkeypatch):
    """Each public view, called on this module's run of the quick course, shows something (a table, a
    sentence or a figure) and returns None, so a notebook cell never shows a second copy or a repr."""
    from tests.curso_rapido import quick_course

    run = quick_course()
    experiment = module.__name__.rsplit(".", 1)[1]
    resultado = Resultado.latest(experiment, run.results)
    if resultado is None:
        pytest.skip(f"la corrida rápida no dejó corrida de {experiment}: {run.output[-500:]}")
    monkeypatch.setenv("CURSO_RESULTADOS", str(run.results))  # views that read another notebook's run
    shown: list = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.extend(plt.get_fignums()))
    silent, returned = [], {}
    try:
        for name, func in public_functions(module).items():
            before = len(shown)
            value = func(resultado) if _takes_a_result(func) else func()
            if value is not None:
                returned[name] = type(value).__name__
            if len(shown) == before:
                silent.append(name)
            plt.close("all")
    finally:
        plt.close("all")
    assert not returned, f"{experiment}: devuelven algo {returned}"
    assert not silent, f"{experiment}: no muestran nada {silent}"
