"""notebooks/04_anatomia_arranque.ipynb: its shape, and its headless run inside the shared quick course."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from helpers import PROJECT_ROOT
from helpers.experiments import anatomia
from tests.support import COURSE_HEADINGS, committed_notebook, executed_in_quick_course

NOTEBOOK = PROJECT_ROOT / "notebooks" / f"{anatomia.NOTEBOOK}.ipynb"


def test_notebook_is_committed_without_outputs_and_has_the_course_shape():
    shape = committed_notebook(
        NOTEBOOK,
        parameters=("REPETICIONES", "CALENTAMIENTO", "PELDAÑOS", "IMAGEN", "MOTORES"),
        headings=(*COURSE_HEADINGS, "05_llamadas_sistema", "el capítulo original"),
    )
    text, scope = shape.text, shape.scope
    assert "INTERACTIVO = True" in shape.parameters
    assert "la semilla" not in text.lower()
    # The defaults of the parameters cell are the Config's defaults.
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
    from helpers.view import anatomia_pod as vista_pod

    called = set(re.findall(r"\bvista_pod\.(\w+)", code))
    assert called == {"lanzamiento", "factura"}
    assert all(callable(getattr(vista_pod, name)) for name in called)


@pytest.mark.notebook
def test_notebook_runs_headless_in_the_quick_course():
    executed = executed_in_quick_course(NOTEBOOK)
    run, outputs, text = executed.run, executed.outputs, executed.text
    assert "La escalera del arranque" in text
    assert "Configurar la red virtual es una parte grande" in text  # the verdicts, one sentence per claim
    runs = list((run.results / anatomia.EXPERIMENT).iterdir())
    assert len(runs) == 1
    meta = json.loads((runs[0] / "meta.json").read_text())
    assert (
        meta["status"] == "complete" and meta["parameters"]["repeticiones"] == anatomia.QUICK["REPETICIONES"]
    )
    chains = len((meta.get("chain") or {}).get("per_engine", {}))
    images = sum("image/png" in o.get("data", {}) for o in outputs)
    assert images == 2 + chains  # the ladder, the waterfall and one chain per engine
