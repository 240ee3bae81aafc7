"""Notebooks 00 and 01 executed headless with papermill on small parameters."""

import json

import papermill as pm
import pytest

from helpers import PROJECT_ROOT, results

pytestmark = pytest.mark.notebook
NB = PROJECT_ROOT / "notebooks"


def _outputs(path):
    nb = json.loads(path.read_text())
    texts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            if out["output_type"] == "stream":
                texts.append("".join(out["text"]))
            elif out["output_type"] == "error":
                texts.append(f"ERROR {out['ename']}: {out['evalue']}")
            else:
                data = out.get("data", {})
                for kind in ("text/markdown", "text/html", "text/plain"):
                    if kind in data:
                        texts.append("".join(data[kind]))
                        break
                if "image/png" in data:
                    texts.append("<IMAGEN PNG>")
    return "\n".join(texts)


def test_environment_notebook_runs_headless(tmp_path):
    out = tmp_path / "00.ipynb"
    pm.execute_notebook(
        str(NB / "00_entorno.ipynb"),
        str(out),
        parameters={"INTERACTIVO": False},
        cwd=str(NB),
        progress_bar=False,
    )
    text = _outputs(out)
    assert "[ OK ] paquete pandas" in text
    assert "versión de cgroups" in text and "ERROR" not in text


def test_startup_notebook_runs_headless_and_renders_results(tmp_path, results_tmp):
    out = tmp_path / "01.ipynb"
    pm.execute_notebook(
        str(NB / "01_arranque.ipynb"),
        str(out),
        parameters={"REPETICIONES": 2, "CALENTAMIENTO": 0, "INTERACTIVO": True},
        cwd=str(NB),
        progress_bar=False,
    )
    # INTERACTIVO=True, but papermill has no front end: it must run straight through anyway.
    text = _outputs(out)
    assert "Datos guardados en" in text
    assert "Mediana (ms)" in text and "<IMAGEN PNG>" in text
    assert "Podman es ~2x más rápido que Docker" in text
    assert "Referencia: Podman/Docker" in text
    run_dir = results.latest("arranque", results_tmp)
    assert results.read_meta(run_dir)["status"] == "complete"


def test_bad_parameter_stops_the_notebook_with_a_spanish_error_before_launching(tmp_path, results_tmp):
    with pytest.raises(pm.PapermillExecutionError) as err:
        pm.execute_notebook(
            str(NB / "01_arranque.ipynb"),
            str(tmp_path / "bad.ipynb"),
            parameters={"REPETICIONES": 0, "INTERACTIVO": False},
            cwd=str(NB),
            progress_bar=False,
        )
    # The cell shows the Spanish sentence alone (helpers.view's handler); the error keeps its class.
    assert err.value.ename == "ParametroInvalido" and "REPETICIONES debe ser al menos 1" in str(err.value)
    assert "Traceback" not in str(err.value)
    assert results.list_runs("arranque", results_tmp) == []
