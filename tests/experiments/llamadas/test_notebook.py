"""notebooks/05_llamadas_sistema.ipynb: its shape, and its headless run inside the shared quick course."""

from __future__ import annotations

import importlib
import json
import re

import pytest

from helpers import PROJECT_ROOT
from helpers.experiments import llamadas
from helpers.experiments.runner import Resultado
from helpers.view.common import claim_sentence
from tests.support import COURSE_HEADINGS, committed_notebook, executed_in_quick_course

NOTEBOOK = PROJECT_ROOT / "notebooks" / f"{llamadas.NOTEBOOK}.ipynb"


def test_notebook_is_committed_without_outputs_and_has_the_course_shape():
    shape = committed_notebook(
        NOTEBOOK,
        headings=(
            *COURSE_HEADINGS,
            "06_",
            "comparación de la clase (90) lo juzga con varias máquinas",
            "24-30 %",
            "vDSO",
            "gVisor",
        ),
    )
    code, text, scope = shape.code, shape.text, shape.scope
    assert "la semilla" not in text.lower()
    for concluded in (
        "ninguna capa la encarece",
        "25-30 %",
        "lo decide el cuaderno",
        "no cuesta nada medible",
    ):
        assert concluded not in text  # prose written before the run asks; it never concludes
    for name in ("LLAMADAS", "REPETICIONES", "OPERACIONES", "BRAZOS", "CPU", "MOTORES"):
        assert name in scope
    assert scope["INTERACTIVO"] is True
    cfg = llamadas.config(
        llamadas=scope["LLAMADAS"],
        repeticiones=scope["REPETICIONES"],
        calentamiento=scope["CALENTAMIENTO"],
        operaciones=scope["OPERACIONES"],
        brazos=scope["BRAZOS"],
        motores=scope["MOTORES"],
        cpu=scope["CPU"],
    )
    assert cfg == llamadas.Config().validated()
    assert set(llamadas.QUICK) <= set(scope)
    # The results cells call only the view convention's names (CONTRIBUTING, «Las vistas»).
    views = set(re.findall(r"\bvista\.(\w+)\(", "\n".join(c.source for c in code)))
    assert views == {"tabla", "grafico", "veredictos", "referencia", "comparacion"}
    view = importlib.import_module("helpers.view.llamadas")
    for call in re.findall(
        r"vista\.(?:tabla|grafico)\(resultado, \"(\w+)\"", "\n".join(c.source for c in code)
    ):
        assert call in {**view.TABLAS, **view.GRAFICOS}, call


@pytest.mark.notebook
def test_notebook_runs_headless_in_the_quick_course(monkeypatch):
    executed = executed_in_quick_course(NOTEBOOK)
    run, outputs = executed.run, executed.outputs
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 3  # layers, operations, nesting
    runs = list((run.results / llamadas.EXPERIMENT).iterdir())
    assert len(runs) == 1
    meta = json.loads((runs[0] / "meta.json").read_text())
    assert meta["status"] == "complete" and meta["parameters"]["llamadas"] == llamadas.QUICK["LLAMADAS"]
    # Every verdict on the page is the sentence the one renderer makes of this run's claims (experiment 3's
    # run of the same course decides the exec claim).
    monkeypatch.setenv("CURSO_RESULTADOS", str(run.results))
    res = Resultado.load(runs[0])
    markdown = "\n".join(o.get("data", {}).get("text/markdown", "") for o in outputs if "data" in o)
    claims = llamadas.claims(res.df, res.meta)
    assert {c.key for c in claims} == {
        "esperado_host",
        "contenedor_11",
        "contenedor_25",
        "contenedor_tabla",
        "esperado_contenedor",
        "causa_pid",
        "anidamiento",
        "entre_cpus",
        "exec_1_9ms",
        "test_c_nsenter",
    }
    for claim in claims:
        assert claim_sentence(claim) in markdown, claim.key
