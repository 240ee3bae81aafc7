"""notebooks/06_red_http.ipynb: committed clean, and executed headless by the shared quick course run."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from helpers import PROJECT_ROOT
from helpers.experiments import red
from helpers.experiments.red.measure import SEED_PRESET
from helpers.view import red as vista
from tests.support import COURSE_HEADINGS, committed_notebook, executed_in_quick_course

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
    shape = committed_notebook(NOTEBOOK, parameters=PARAMETERS, headings=COURSE_HEADINGS)
    scope = shape.scope
    assert "07_anidamiento" in shape.nb.cells[-1].source
    # The defaults of the parameters cell are the Config's defaults.
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
    assert "vista.PRESETS" in text and SEED_PRESET == {"hilos": 12, "conexiones": 400, "duracion_s": 30}


@pytest.mark.notebook
@pytest.mark.engines
def test_runs_headless_in_the_quick_course():
    executed = executed_in_quick_course(NOTEBOOK)
    run, text = executed.run, executed.text
    assert "pierde un 65.83 %" in text and "(columna «Requests/s»)" in text
    assert "image/png" in text and "no pidió los brazos de Kubernetes (el perfil rápido los omite" in text
    runs = list((run.results / "red").glob("*/meta.json"))
    assert len(runs) == 1 and json.loads(runs[0].read_text())["status"] == "complete"
