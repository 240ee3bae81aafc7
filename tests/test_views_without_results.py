"""A student who runs every cell in JupyterLab before pressing «Ejecutar», on a machine with no run
yet, gets a Spanish notice in each results cell, never a traceback."""
import inspect

import IPython.display
import matplotlib
import pytest

matplotlib.use("Agg")

from helpers.view import arranque, ejecucion, escala, red  # noqa: E402


def _result_views():
    for module in (arranque, escala, ejecucion, red):
        for name, func in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("_") or func.__module__ != module.__name__:
                continue
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


def test_there_are_views_to_check():
    assert len(list(_result_views())) >= 15
