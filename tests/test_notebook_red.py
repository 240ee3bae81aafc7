"""notebooks/06_red_http.ipynb: committed clean, and executed headless by the shared quick course run."""

from __future__ import annotations

import json

import nbformat
import pytest

from helpers import PROJECT_ROOT
from tests.curso_rapido import quick_course

NOTEBOOK = PROJECT_ROOT / "notebooks" / "06_red_http.ipynb"
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
    assert "Docker pierde un 66" in text and "la columna «Requests/s»" in text
    assert "image/png" in text and "Kubernetes: referencia, no medido aquí" in text
    runs = list((run.results / "red").glob("*/meta.json"))
    assert len(runs) == 1 and json.loads(runs[0].read_text())["status"] == "complete"
