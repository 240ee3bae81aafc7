"""notebooks/03_ejecucion.ipynb executed headless with papermill, on small parameters."""

from __future__ import annotations

import json

import nbformat
import pytest

from helpers import PROJECT_ROOT
from helpers import engines as eng
from tests.support import committed_notebook

pytestmark = [pytest.mark.notebook, pytest.mark.engines]

NOTEBOOK = PROJECT_ROOT / "notebooks" / "03_ejecucion.ipynb"


def test_notebook_is_committed_without_outputs():
    committed_notebook(
        NOTEBOOK,
        parameters=(
            "REPETICIONES",
            "CARGAS",
            "MOTORES",
            "IMAGEN",
            "MEGAS",
            "ARCHIVOS",
            "INTERACTIVO",
            "FIJAR_CPU",
        ),
    )


def test_notebook_runs_headless(tmp_path, monkeypatch):
    papermill = pytest.importorskip("papermill")
    motores = [n for n in eng.CONTAINER_ENGINES if eng.get_engine(n).available]
    monkeypatch.setenv("CURSO_RESULTADOS", str(tmp_path / "resultados"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    out = tmp_path / "03_ejecucion.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOK),
        str(out),
        cwd=str(NOTEBOOK.parent),
        kernel_name="python3",
        progress_bar=False,
        parameters={"REPETICIONES": 1, "MEGAS": 2, "ARCHIVOS": 20, "MOTORES": motores, "INTERACTIVO": False},
    )
    nb = nbformat.read(out, as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"], ensure_ascii=False)
    assert "**Veredictos**" in text, text[-3000:]
    assert "Aquí se ven las cifras, sin veredictos ni direcciones" in text, text[-3000:]  # 1 repetition
    assert "Márgenes" in text  # «Cómo medimos»
    assert "LAUNCH, RUNNING y CAPACITY" in text and "image/png" in text
    if motores:
        assert "lanzar un proceso con `exec` costó" in text  # the run's own summary, from its exec true rows
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors and "Traceback" not in text
    runs = list((tmp_path / "resultados" / "ejecucion").iterdir())
    assert len(runs) == 1 and json.loads((runs[0] / "meta.json").read_text())["status"] == "complete"
