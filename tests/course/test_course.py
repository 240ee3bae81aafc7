"""The headless course runner (helpers.course): order, parameters, failures, HTML, and the whole course."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import nbformat
import pytest

from helpers import PROJECT_ROOT, course
from helpers.experiments import arranque
from tests.curso_rapido import quick_course

ESCAPE = re.compile(r"\x1b|\r")


def make_notebook(path, params: str | None, *cells: str, title: str = "Prueba"):
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell(f"# {title}"))
    if params is not None:
        cell = nbformat.v4.new_code_cell(params)
        cell.metadata["tags"] = ["parameters"]
        nb.cells.append(cell)
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return path


class IndexRows(HTMLParser):
    """data-notebook / data-status of the rows of index.html's table."""

    def __init__(self):
        super().__init__()
        self.rows = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-notebook" in attrs:
            self.rows[attrs["data-notebook"]] = attrs["data-status"]


def index_rows(build) -> dict[str, str]:
    parser = IndexRows()
    parser.feed((build / "html" / "index.html").read_text(encoding="utf-8"))
    return parser.rows


def run_cli(*args, env_extra=None, cwd=PROJECT_ROOT):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run(
        [sys.executable, "-m", "helpers.course", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_discovers_course_notebooks_in_name_order(tmp_path):
    for name in ["10_b.ipynb", "02_a.ipynb", "90_z.ipynb", "borrador.ipynb", "1_corto.ipynb", "03_c.txt"]:
        (tmp_path / name).write_text("{}")
    assert [p.name for p in course.discover(tmp_path)] == ["02_a.ipynb", "10_b.ipynb", "90_z.ipynb"]


def test_injects_only_declared_parameters(tmp_path):
    # The quick profile comes from the experiment the notebook runs (arranque.QUICK), by its name.
    nb = make_notebook(
        tmp_path / "01_arranque.ipynb", "REPETICIONES = 10\nIMAGENES = ['ubuntu']\nINTERACTIVO = True"
    )
    quick = course.parameters_for(nb, quick=True, overrides={"NO_EXISTE": 1})
    assert quick == {"REPETICIONES": arranque.QUICK["REPETICIONES"], "INTERACTIVO": False}
    other = make_notebook(tmp_path / "01_otro.ipynb", "REPETICIONES = 10\nINTERACTIVO = True")
    assert course.parameters_for(other, quick=True, overrides={}) == {"INTERACTIVO": False}
    full = course.parameters_for(nb, quick=False, overrides={"REPETICIONES": 7})
    assert full == {"REPETICIONES": 7, "INTERACTIVO": False}
    assert course.parameters_for(nb, quick=True, overrides={"REPETICIONES": 5})["REPETICIONES"] == 5
    bare = make_notebook(tmp_path / "02_b.ipynb", None, "print(1)")
    assert course.parameters_for(bare, quick=True, overrides={}) == {}


def test_failure_does_not_stop_the_course(tmp_path):
    src = tmp_path / "nb"
    src.mkdir()
    make_notebook(
        src / "00_bien.ipynb",
        "X = 1\nINTERACTIVO = True",
        "import os\nprint('interfaz:', os.environ.get('CURSO_SIN_INTERFAZ'), 'interactivo:', INTERACTIVO)",
        title="Bien",
    )
    make_notebook(
        src / "01_falla.ipynb",
        "X = 1",
        "print('antes')",
        "raise RuntimeError('a propósito')",
        "print('nunca')",
        title="Falla",
    )
    make_notebook(src / "02_despues.ipynb", "X = 1", "print('X vale', X)", title="Después")
    build = tmp_path / "build"
    proc = run_cli(
        "--cuadernos",
        str(src),
        "--salida",
        str(build),
        "--parametros",
        '{"X": 3}',
        env_extra={"CURSO_RESULTADOS": str(tmp_path / "res")},
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "FALLARON 1 de 3" in out and "01_falla" in out and "In [4]" in out, out
    assert not ESCAPE.search(out), "la salida tiene códigos de escape"
    assert "interfaz: 1 interactivo: False" in out  # kernels run headless, INTERACTIVO=False
    assert "X vale 3" in out  # --parametros reached the notebook after the failure
    assert index_rows(build) == {"00_bien": "ok", "01_falla": "fallido", "02_despues": "ok"}
    index = (build / "html" / "index.html").read_text(encoding="utf-8")
    assert "celda In [4]" in index and "RuntimeError" in index
    # The instructor's kit is built apart, and the students' index neither links nor names it
    assert (build / "docente" / "index.html").is_file() and not (build / "html" / "docente").exists()
    assert "docente" not in index and "soluciones" not in index
    after = re.sub(r"<[^>]+>", "", (build / "html" / "02_despues.html").read_text(encoding="utf-8"))
    assert "X vale 3" in after and "X = 3" not in after  # the injected cell is hidden, its effect stays
    assert "X = 1" in after  # the declared parameters cell stays
    failed_html = (build / "html" / "01_falla.html").read_text(encoding="utf-8")
    assert 'id="papermill-error-cell"' in failed_html and "An Exception was encountered" not in failed_html
    log = (build / "course.log").read_text(encoding="utf-8")
    assert "[01_falla] celda" in log and not ESCAPE.search(log)
    summary = json.loads((build / "course.json").read_text(encoding="utf-8"))
    assert [n["status"] for n in summary["notebooks"]] == ["ok", "fallido", "ok"]


def test_bad_parameters_json_is_refused(tmp_path):
    proc = run_cli("--cuadernos", str(tmp_path), "--salida", str(tmp_path / "b"), "--parametros", "[1, 2")
    assert proc.returncode == 2 and "JSON" in proc.stderr


def test_html_is_offline_with_plots_and_widget_fallback(tmp_path):
    src = tmp_path / "nb"
    src.mkdir()
    make_notebook(
        src / "00_vista.ipynb",
        "N = 3",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()",
        "import ipywidgets as w\nw.IntSlider(value=N, description='Repeticiones')",
    )
    build = tmp_path / "build"
    proc = run_cli("--cuadernos", str(src), "--salida", str(build))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = (build / "html" / "00_vista.html").read_text(encoding="utf-8")
    assert re.search(r'<img[^>]+src="data:image/png;base64,', page), "el gráfico no está embebido"
    assert not re.search(r'(?:src|href)="https?://', page), "el HTML carga algo de la red"
    assert "IntSlider(" in page  # the widget's text fallback
    assert "application/vnd.jupyter.widget-state+json" not in page
    assert '<html lang="es">' in page


@pytest.mark.notebook
def test_whole_course_runs_headless_with_quick_profile():
    run = quick_course()
    expected = [p.stem for p in course.discover(PROJECT_ROOT / "notebooks")]
    assert expected, "no hay cuadernos"
    assert run.returncode == 0, run.output[-3000:]
    assert index_rows(run.build) == {name: "ok" for name in expected}
    assert not ESCAPE.search(run.output) and not ESCAPE.search((run.build / "course.log").read_text())
    for name in expected:
        assert (run.build / "html" / f"{name}.html").is_file()
        executed = nbformat.read(str(run.build / "notebooks" / f"{name}.ipynb"), as_version=4)
        errors = [o for c in executed.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, f"{name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
        declared = course.declared_parameters(PROJECT_ROOT / "notebooks" / f"{name}.ipynb")
        injected = executed.metadata.get("papermill", {}).get("parameters", {})
        assert set(injected) <= set(declared), f"{name}: se inyectaron parámetros no declarados"
        if "INTERACTIVO" in declared:
            assert injected["INTERACTIVO"] is False
    index = (run.build / "html" / "index.html").read_text(encoding="utf-8")
    assert "La máquina de esta ejecución" in index and "kernel" in index and "Docker" in index


def test_a_finished_kernel_is_shut_down_without_a_sigint():
    """jupyter_client interrupts a kernel before shutting it down; the course's kernel manager skips that
    interrupt once shutting down (it printed «KeyboardInterrupt caught in kernel» after 00_entorno) and
    keeps every other interrupt (a cell timeout)."""
    import asyncio

    manager = course.execute._kernel_manager_class()()
    with pytest.raises(RuntimeError, match="No kernel is running"):
        asyncio.run(manager._async_interrupt_kernel())  # not shutting down: the usual interrupt
    manager.shutting_down = True
    asyncio.run(manager._async_interrupt_kernel())  # shutting down: nothing is sent
