"""notebooks/07_anidamiento.ipynb: its shape, and its headless run inside the shared quick course."""

from __future__ import annotations

import json

import nbformat
import pytest

from helpers import PROJECT_ROOT
from helpers.experiments import anidamiento

NOTEBOOK = PROJECT_ROOT / "notebooks" / f"{anidamiento.NOTEBOOK}.ipynb"


def test_notebook_is_committed_without_outputs_and_has_the_course_shape():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for heading in (
        "Aprenderás a:",
        "## La idea",
        "## Parámetros",
        "## Resultados",
        "## Ejercicios",
        "## En este cuaderno...",
        "08_sistema_vs_vm",
        "el capítulo original",
        "--privileged",
        "socket",
    ):
        assert heading in text
    assert "la semilla" not in text.lower()
    # The socket pattern is explained, never run: no code cell mentions a socket.
    assert not any("sock" in c.source for c in code)
    # The defaults of the parameters cell are the Config's defaults.
    scope: dict = {}
    exec(params[0].source, scope)  # plain literals only
    assert scope["INTERACTIVO"] is True
    cfg = anidamiento.config(
        repeticiones=scope["REPETICIONES"],
        calentamiento=scope["CALENTAMIENTO"],
        niveles=scope["NIVELES"],
        motores=scope["MOTORES"],
        privilegiado=scope["PRIVILEGIADO"],
        tamaño_mib=scope["TAMAÑO_MIB"],
    )
    assert cfg == anidamiento.Config()


@pytest.mark.notebook
def test_notebook_runs_headless_in_the_quick_course():
    from tests.curso_rapido import quick_course

    run = quick_course()
    executed = run.build / "notebooks" / NOTEBOOK.name
    assert executed.is_file(), run.output[-2000:]
    nb = nbformat.read(executed, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = json.dumps(outputs, ensure_ascii=False)
    assert "Medianas por brazo" in text
    assert "el capítulo original" in text
