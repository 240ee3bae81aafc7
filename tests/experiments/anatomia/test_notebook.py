"""notebooks/04_anatomia_arranque.ipynb: its shape, and its headless run inside the shared quick course."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from helpers import PROJECT_ROOT
from helpers.experiments import anatomia

NOTEBOOK = PROJECT_ROOT / "notebooks" / f"{anatomia.NOTEBOOK}.ipynb"


def test_notebook_is_committed_without_outputs_and_has_the_course_shape():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    for name in ("REPETICIONES", "CALENTAMIENTO", "PELDAÑOS", "IMAGEN", "MOTORES", "INTERACTIVO = True"):
        assert name in params[0].source
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for heading in (
        "Aprenderás a:",
        "## La idea",
        "## Parámetros",
        "## Resultados",
        "## Ejercicios",
        "## En este cuaderno...",
        "05_llamadas_sistema",
        "el capítulo original",
    ):
        assert heading in text
    assert "la semilla" not in text.lower()
    # The defaults of the parameters cell are the Config's defaults.
    scope: dict = {}
    exec(params[0].source, scope)  # plain literals only
    cfg = anatomia.config(
        repeticiones=scope["REPETICIONES"],
        calentamiento=scope["CALENTAMIENTO"],
        peldaños=scope["PELDAÑOS"],
        imagen=scope["IMAGEN"],
        motores=scope["MOTORES"],
    )
    assert cfg == anatomia.Config()


def test_notebook_calls_only_views_that_exist():
    from helpers.view import anatomia as vista

    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    called = set(re.findall(r"\bvista\.(\w+)", code))
    assert called == {
        "tabla",
        "encabezado",
        "grafico",
        "fases",
        "cascada",
        "cadena",
        "comparacion",
        "veredictos",
    }
    assert all(callable(getattr(vista, name)) for name in called)


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
    assert "La escalera del arranque" in text
    assert "El modelo fork-exec de Podman" in text  # the verdicts, one sentence per claim
    runs = list((run.results / anatomia.EXPERIMENT).iterdir())
    assert len(runs) == 1
    meta = json.loads((runs[0] / "meta.json").read_text())
    assert (
        meta["status"] == "complete" and meta["parameters"]["repeticiones"] == anatomia.QUICK["REPETICIONES"]
    )
    chains = len((meta.get("chain") or {}).get("per_engine", {}))
    images = sum("image/png" in o.get("data", {}) for o in outputs)
    assert images == 2 + chains  # the ladder, the waterfall and one chain per engine
