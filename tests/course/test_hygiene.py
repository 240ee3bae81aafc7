"""Notebooks are committed clean: no outputs, no execution counts, and a `parameters` cell of plain values."""

from __future__ import annotations

import ast
import json
import re
import subprocess

import pytest

from helpers import PROJECT_ROOT, experiments
from helpers.course import notebook_title

NOTEBOOKS = sorted((PROJECT_ROOT / "notebooks").glob("*.ipynb"))


def plain_value_problems(source: str) -> list[str]:
    """Why a parameters cell is not plain values ([] when it is): every statement must be
    `NAME = literal`, where a literal is a number, string, bool, None, or a list/tuple/dict of them."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [f"no es Python válido: {exc}"]
    problems = []
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            problems.append(f"línea {node.lineno}: solo se admite «NOMBRE = valor»")
            continue
        try:
            ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError):
            problems.append(
                f"línea {node.lineno}: {node.targets[0].id} no es un valor literal "
                f"({ast.unparse(node.value)})"
            )
    return problems


def test_there_are_notebooks():
    assert NOTEBOOKS, "no hay cuadernos en notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [
        i
        for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count") is not None)
    ]
    assert not dirty, f"{path.name}: las celdas {dirty} tienen salidas o contador de ejecución"
    assert "widgets" not in nb.get("metadata", {}), f"{path.name}: guarda el estado de los widgets"


def heading(path) -> str:
    """The first line of a notebook's first cell (its H1)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    first = nb["cells"][0]
    return "".join(first["source"]).splitlines()[0] if first["cell_type"] == "markdown" else ""


def title_problems(path, module) -> list[str]:
    """Why a notebook's title is not its experiment's TITLE ([] when it is): its first cell is Markdown
    whose first line is «# NN · TITLE», and no code cell writes a title of its own to the panel."""
    want = f"# {module.NOTEBOOK[:2]} · {module.TITLE}"
    problems = [] if heading(path) == want else [f"su título es «{heading(path)}», no «{want}»"]
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    if "titulo=" in code:
        problems.append("le da al panel un título propio (sale de TITLE)")
    return problems


@pytest.mark.parametrize("module", experiments.all_experiments(), ids=lambda m: m.EXPERIMENT)
def test_each_notebook_is_titled_by_its_experiments_title(module):
    """TITLE is written once: the notebook's H1 is «NN · TITLE», the panel shows TITLE, and so do the
    closing table, the class comparison and the course's index (which reads the H1)."""
    path = PROJECT_ROOT / "notebooks" / f"{module.NOTEBOOK}.ipynb"
    assert not title_problems(path, module), f"{path.name}: {title_problems(path, module)}"
    assert notebook_title(path) == f"{module.NOTEBOOK[:2]} · {module.TITLE}"


def test_a_title_that_drifts_is_caught(tmp_path):
    """The check is not vacuous: a heading that says something else, or a panel given its own title."""
    from helpers.experiments import escala

    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# 02 · Escala\n", "\n", "Texto."]},
            {
                "cell_type": "code",
                "metadata": {},
                "source": ['Panel(escala, titulo="Experimento 2: escala")'],
            },
        ]
    }
    path = tmp_path / "02_escala.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert title_problems(path, escala) == [
        f"su título es «# 02 · Escala», no «# 02 · {escala.TITLE}»",
        "le da al panel un título propio (sale de TITLE)",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_parameters_cell_holds_plain_values(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"{path.name}: debe tener exactamente una celda etiquetada «parameters»"
    assert cells[0]["cell_type"] == "code"
    source = "".join(cells[0]["source"])
    assert source.strip(), f"{path.name}: la celda de parámetros está vacía"
    assert plain_value_problems(source) == [], f"{path.name}: {plain_value_problems(source)}"


@pytest.mark.parametrize(
    "source",
    [
        "N = len([1, 2])",  # a call
        "A = 1\nB = A",  # a name
        "X = [1, 2][0]",  # a subscript
        "import os",  # not an assignment
        "X = f'{1}'",  # an f-string
        "X = Y = 3",  # chained
        "X += 1",  # augmented
    ],
)
def test_plain_value_check_rejects(source):
    assert plain_value_problems(source)


def test_plain_value_check_accepts():
    assert (
        plain_value_problems(
            'R = 10\nI = ["a", "b"]\nT = (1, 2.5)\nB = True\nN = None\nD = {"a": -1}\n'
            '# comentario\nC = "demo"'
        )
        == []
    )


def test_build_is_ignored_by_git():
    result = subprocess.run(["git", "check-ignore", "-q", "build/notebooks/x.ipynb"], cwd=PROJECT_ROOT)
    assert result.returncode == 0, "build/ debe estar en .gitignore: las copias ejecutadas no se versionan"


@pytest.mark.parametrize("module", experiments.all_experiments(), ids=lambda m: m.EXPERIMENT)
def test_a_prediction_comes_before_the_run_button(module):
    """Right before the cell that shows the run button (the Panel), one Markdown cell asks the student for
    a one-line prediction and leaves a line to write it in."""
    nb = json.loads((PROJECT_ROOT / "notebooks" / f"{module.NOTEBOOK}.ipynb").read_text(encoding="utf-8"))
    cells = nb["cells"]
    panel = next(
        i for i, c in enumerate(cells) if c["cell_type"] == "code" and "Panel(" in "".join(c["source"])
    )
    before = cells[panel - 1]
    text = "".join(before["source"])
    assert before["cell_type"] == "markdown" and text.startswith("**Tu predicción"), text[:120]
    assert "> Mi predicción:" in text and text.count("?") >= 1


FIRST_SCREEN_WORDS = 400  # what a student reads before the first cell that does something (issue 41)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_first_screen_is_short_and_the_rest_is_folded(path):
    """The Markdown before a notebook's first code cell, without the cells folded as «detalle» (each with
    the «resumen» its fold shows, and collapsed in JupyterLab too), is at most about 400 words."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    shown = 0
    for cell in cells[:first_code]:
        meta = cell.get("metadata", {})
        if "detalle" in meta.get("tags", []):
            assert meta.get("resumen") and meta.get("jupyter", {}).get("source_hidden"), meta
            continue
        shown += len("".join(cell["source"]).split())
    assert shown <= FIRST_SCREEN_WORDS, f"{path.name}: {shown} palabras antes de la primera celda de código"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_how_we_measure_is_folded_everywhere(path):
    """«Cómo medimos» (view.common.como_medimos, the statistics paragraph, the load and the margins) is a
    folded «detalle» cell on every page, 01 included, whose output starts hidden in JupyterLab."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and re.search(r"^(common\.)?como_medimos\(", source, flags=re.M):
            meta = cell.get("metadata", {})
            assert "detalle" in meta.get("tags", []) and meta.get("resumen"), meta
            assert meta.get("jupyter", {}).get("outputs_hidden"), meta
