"""The charts of 03, 04 and 90 read cleanly (tests.support.layout_problems): no label over another, no
legend over a point, a bar or another panel, no name past its panel, nothing past the figure."""

from __future__ import annotations

import IPython.display
import matplotlib
import matplotlib.pyplot as plt
import pytest

from helpers import clase
from helpers.experiments.runner import Resultado
from helpers.view import anatomia as vista_anatomia
from helpers.view import clase as vista_clase
from helpers.view import ejecucion as vista_ejecucion
from helpers.view.figuras import fit, legend_outside
from tests.experiments.anatomia.test_unit import _synthetic as anatomia_rows
from tests.experiments.ejecucion.test_unit import _full_run
from tests.support import capture_figures, layout_problems

matplotlib.use("Agg")


@pytest.fixture
def drawn(monkeypatch):
    figures = capture_figures(monkeypatch)
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: None)
    yield figures
    plt.close("all")


def _problems(figures) -> list[str]:
    assert figures
    return [p for fig in figures for p in layout_problems(fig)]


@pytest.mark.parametrize("which", ["repeticiones", "sobrecarga"])
def test_03s_charts_read_cleanly(drawn, tmp_path, which):
    vista_ejecucion.grafico(_full_run(tmp_path), which)
    assert _problems(drawn) == []


@pytest.mark.parametrize("view", [vista_anatomia.grafico, vista_anatomia.cascada])
def test_04s_charts_read_cleanly(drawn, tmp_path, view):
    view(Resultado("anatomia", anatomia_rows(), tmp_path, {}))
    assert _problems(drawn) == []


def test_90s_charts_read_cleanly_on_the_demo_class(drawn, tmp_path):
    vista_clase.experimentos(clase.recolectar(clase.demo(tmp_path / "demo")))
    assert _problems(drawn) == []


def _crowded_labels(ax):
    ax.scatter(range(8), range(8))
    ax.set_xticks(range(8), [f"bare metal junto a la capa de Docker {i}" for i in range(8)])


def _name_at_the_edge(ax):
    ax.plot([0, 1], [0, 1], "o")
    ax.annotate("demo-maquina-01", (1, 0.5), xytext=(4, 0), textcoords="offset points")


def _long_legend_below(ax):
    for i in range(4):
        ax.plot([0, 1], [i, i], label=f"documento de getpid, tabla: una CPU con un nombre largo {i}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2)
    ax.set_xlabel("× bare metal (escala log)")


def _long_title(ax):
    ax.plot([0, 1], [0, 1])
    ax.figure.suptitle("Llamadas al sistema: lo que cuesta cada capa de aislamiento · getpid: × bare metal")


@pytest.mark.parametrize("draw", [_crowded_labels, _name_at_the_edge, _long_legend_below, _long_title])
def test_fit_solves_each_problem_on_its_own(draw):
    """Eight long category names under a panel, a name beside a point at the panel's right edge, a
    legend of long entries under a panel, a title wider than its figure: each reads cleanly once fit."""
    fig, ax = plt.subplots(figsize=(4.4, 3))
    draw(ax)
    assert layout_problems(fig)
    fit(fig)
    assert layout_problems(fig) == []
    plt.close(fig)


def test_a_legend_outside_never_covers_a_point():
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.scatter([0.05, 0.95], [0.95, 0.95], label="medida")
    legend_outside(ax)
    fit(fig)
    assert layout_problems(fig) == []
    plt.close(fig)


def test_90s_machine_names_are_never_written_over_an_error_bar(drawn, tmp_path):
    """No machine's name, as drawn, crosses any IC 95 % bar of its panel: the fresh render had every
    name written over its own error bar."""
    vista_clase.experimentos(clase.recolectar(clase.demo(tmp_path / "demo")))
    checked = 0
    for fig in drawn:
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes:
            bars = [seg for coll in ax.collections for seg in getattr(coll, "get_segments", lambda: [])()]
            bars = [ax.transData.transform(seg) for seg in bars if len(seg) == 2]
            for text in ax.texts:
                box = text.get_window_extent(renderer)
                for (x0, y0), (x1, _y1) in bars:
                    crosses = box.y0 <= y0 <= box.y1 and min(x0, x1) <= box.x1 and max(x0, x1) >= box.x0
                    assert not crosses, (text.get_text(), ax.get_title())
                checked += 1
    assert checked > 10
