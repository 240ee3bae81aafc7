"""notebooks/08_sistema_vs_vm.ipynb headless: checked on the shared quick course run (one papermill run
of every notebook per test session, tests/curso_rapido.py), not executed a second time here."""

from __future__ import annotations

import json

import nbformat
import pytest

from helpers import PROJECT_ROOT, vm
from tests.curso_rapido import quick_course

pytestmark = pytest.mark.notebook

NAME = "08_sistema_vs_vm"


def test_parameters_cell_declares_the_issue_parameters():
    nb = nbformat.read(PROJECT_ROOT / "notebooks" / f"{NAME}.ipynb", as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    for name in ("TIPOS", "INSTANCIAS", "REPETICIONES", "MEMORIA_MB", "ACELERACION", "INTERACTIVO"):
        assert f"{name} =" in params[0].source


def test_notebook_runs_headless_in_the_quick_course():
    run = quick_course()
    summary = json.loads((run.build / "course.json").read_text(encoding="utf-8"))
    entry = next(n for n in summary["notebooks"] if n["name"] == NAME)
    assert entry["status"] == "ok", entry.get("error")
    executed = nbformat.read(run.build / "notebooks" / f"{NAME}.ipynb", as_version=4)
    text = json.dumps(
        [c.get("outputs", []) for c in executed.cells if c.cell_type == "code"], ensure_ascii=False
    )
    assert "Traceback" not in text
    runs = sorted((run.results / "sistema_vm").iterdir())
    assert runs, "el cuaderno no dejó ninguna corrida"
    meta = json.loads((runs[-1] / "meta.json").read_text())
    assert meta["status"] == "complete"
    if vm.availability()[0]:
        accel = meta["vm"]["acceleration"]
        assert accel in ("tcg", "kvm")
        if accel == "tcg":  # every emulated figure says so: in the verdicts and the tables
            assert "emulada" in text
