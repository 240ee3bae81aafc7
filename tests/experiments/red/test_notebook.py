"""notebooks/06_red_http.ipynb: committed clean, and executed headless by the shared quick course run."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from helpers import PROJECT_ROOT
from helpers.experiments import red
from helpers.view import red as vista
from tests.curso_rapido import quick_course

NOTEBOOK = PROJECT_ROOT / "notebooks" / f"{red.NOTEBOOK}.ipynb"
PARAMETERS = (
    "SERVIDORES",
    "BRAZOS",
    "HILOS",
    "CONEXIONES",
    "DURACION_S",
    "REPETICIONES",
    "CALENTAMIENTO",
    "MOTORES",
    "INTERACTIVO",
)


def test_committed_without_outputs_and_with_its_parameters():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    for name in PARAMETERS:
        assert f"{name} = " in params[0].source
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for heading in (
        "Aprenderás a:",
        "## La idea",
        "## Parámetros",
        "## Resultados",
        "## Ejercicios",
        "## En este cuaderno...",
    ):
        assert heading in text
    assert "07_anidamiento" in nb.cells[-1].source
    # The defaults of the parameters cell are the Config's defaults.
    scope: dict = {}
    exec(params[0].source, scope)  # plain literals only
    assert scope["INTERACTIVO"] is True
    assert red.config(**{n.lower(): scope[n] for n in PARAMETERS if n != "INTERACTIVO"}) == red.Config()


def test_every_name_the_notebook_uses_exists():
    """What the cells call (red.X, vista.X) and what the prose points at
    (`helpers.experiments.red.cpu_layout`, exercise 2) survives any renaming; the prose names no other
    identifier (the document's preset is a button, not `red.SEED_PRESET`)."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    for module, alias in ((red, r"(?:helpers\.experiments\.)?red"), (vista, "vista")):
        names = set(re.findall(rf"\b{alias}\.([A-Za-z_]\w*)", text))
        assert names, alias
        assert not [n for n in names if not hasattr(module, n)], alias
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert set(re.findall(r"\bred\.[A-Za-z_]\w*", prose)) == {"red.cpu_layout"}
    assert "vista.PRESETS" in text and red.SEED_PRESET == {"hilos": 12, "conexiones": 400, "duracion_s": 30}


@pytest.mark.notebook
@pytest.mark.engines
def test_runs_headless_in_the_quick_course():
    run = quick_course()
    executed = run.build / "notebooks" / "06_red_http.ipynb"
    assert executed.is_file(), run.output[-2000:]
    nb = nbformat.read(executed, as_version=4)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{errors[0].get('ename')}: {errors[0].get('evalue')}" if errors else ""
    text = json.dumps([c.get("outputs", []) for c in nb.cells], ensure_ascii=False)
    assert "pierde un 65.83 %" in text and "(columna «Requests/s»)" in text
    assert "image/png" in text and "Kubernetes: referencia, no medido aquí" in text
    runs = list((run.results / "red").glob("*/meta.json"))
    assert len(runs) == 1 and json.loads(runs[0].read_text())["status"] == "complete"
