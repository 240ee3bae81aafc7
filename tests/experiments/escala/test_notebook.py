"""The notebook of experiment 2 runs headless with papermill on small parameters."""

from __future__ import annotations

import json

import nbformat
import pytest

from helpers import PROJECT_ROOT
from tests.support import committed_notebook

pytestmark = [pytest.mark.notebook, pytest.mark.engines]
NOTEBOOK = PROJECT_ROOT / "notebooks" / "02_escala.ipynb"


def test_committed_without_outputs():
    committed_notebook(
        NOTEBOOK,
        parameters=("CANTIDADES", "MOTORES", "IMAGEN", "REPETICIONES", "CONCURRENCIA", "RED", "INTERACTIVO"),
    )


def test_runs_headless(tmp_path, monkeypatch):
    papermill = pytest.importorskip("papermill")
    monkeypatch.setenv("CURSO_RESULTADOS", str(tmp_path / "resultados"))
    out = tmp_path / "02_escala.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOK),
        str(out),
        cwd=str(NOTEBOOK.parent),
        kernel_name="python3",
        parameters={"CANTIDADES": [0, 1, 2], "REPETICIONES": 2, "IMAGEN": "alpine", "INTERACTIVO": False},
        progress_bar=False,
    )
    nb = nbformat.read(out, as_version=4)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    text = json.dumps([c.get("outputs", []) for c in nb.cells], ensure_ascii=False)
    assert "Lanzar 20 contenedores uno tras otro" in text and "image/png" in text
    from helpers.experiments import verdict

    if 2 < verdict.MIN_N:
        assert "sin veredictos" in text  # 2 repetitions: figures, no verdicts, said plainly
    runs = list((tmp_path / "resultados" / "escala").glob("*/meta.json"))
    assert len(runs) == 1 and json.loads(runs[0].read_text())["status"] == "complete"
