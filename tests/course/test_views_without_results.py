"""A student who runs every cell in JupyterLab before pressing «Ejecutar», on a machine with no run
yet, gets a Spanish notice in each results cell, never a traceback. Every registered experiment's view
module (helpers/view/<EXPERIMENT>.py) is checked, and the closing table's."""

import importlib
import inspect

import IPython.display
import matplotlib
import pytest

matplotlib.use("Agg")

from helpers import experiments  # noqa: E402
from helpers.view import cierre  # noqa: E402


def _view_modules():
    for name in experiments.names():
        try:
            yield importlib.import_module(f"helpers.view.{name}")
        except ModuleNotFoundError:
            continue


def _result_views():
    for module in _view_modules():
        for name, func in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("_") or func.__module__ != module.__name__:
                continue
            # Every public function is a view (tests/course/test_view_convention.py); the ones that take
            # a run are checked here. Those that take none (red.referencia(), red.kubernetes()) show the
            # sources' figures, which need no run.
            params = list(inspect.signature(inspect.unwrap(func)).parameters)
            if params and params[0] == "resultado":
                yield pytest.param(func, id=f"{module.__name__.rsplit('.', 1)[1]}.{name}")


@pytest.mark.parametrize("view", list(_result_views()))
def test_view_without_any_run_shows_the_spanish_notice(view, monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    view(None)
    texts = [getattr(obj, "data", "") or "" for obj in shown]
    assert any("Aún no hay resultados" in text for text in texts), texts


def test_closing_table_without_any_run_shows_the_spanish_notice(monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    assert cierre.tabla(None) is None
    assert any("Aún no hay resultados" in (getattr(obj, "data", "") or "") for obj in shown)


def test_every_experiments_main_views_are_checked():
    """The list above is not empty by accident: it holds tabla, veredictos and comparacion of every
    registered experiment with a view module (the names test_view_convention.py requires)."""
    checked = {(p.values[0].__module__.rsplit(".", 1)[1], p.values[0].__name__) for p in _result_views()}
    modules = {m.__name__.rsplit(".", 1)[1] for m in _view_modules()}
    assert modules, "ningún experimento registrado tiene vistas"
    expected = {(m, job) for m in modules for job in ("tabla", "veredictos", "comparacion")}
    assert expected <= checked, sorted(expected - checked)
