"""notebooks/07_anidamiento.ipynb: its shape, and its headless run inside the shared quick course."""

from __future__ import annotations

import pytest

from helpers import PROJECT_ROOT
from helpers.experiments import anidamiento
from tests.support import COURSE_HEADINGS, committed_notebook, executed_in_quick_course

NOTEBOOK = PROJECT_ROOT / "notebooks" / f"{anidamiento.NOTEBOOK}.ipynb"


def test_notebook_is_committed_without_outputs_and_has_the_course_shape():
    shape = committed_notebook(
        NOTEBOOK,
        headings=(*COURSE_HEADINGS, "08_sistema_vs_vm", "el capítulo original", "--privileged", "socket"),
    )
    code, text, scope = shape.code, shape.text, shape.scope
    assert "la semilla" not in text.lower()
    # The socket pattern is explained, never run: no code cell mentions a socket.
    assert not any("sock" in c.source for c in code)
    # The defaults of the parameters cell are the Config's defaults.
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
    executed = executed_in_quick_course(NOTEBOOK)
    text = executed.text
    assert "Medianas por brazo" in text
    assert "el capítulo original" in text
