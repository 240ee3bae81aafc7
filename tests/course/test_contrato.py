"""The experiment contract: every registered module satisfies it, the README lists every notebook, and a
toy experiment (tests/experimento_juguete/), registered at run time, goes through the panel, the course
runner, the class comparison, the closing table, make pack and the views' «no run yet» notice without
editing any other file."""

from __future__ import annotations

import dataclasses
import re
import zipfile

import IPython.display
import matplotlib
import nbformat
import pandas as pd
import pytest

matplotlib.use("Agg")

from helpers import PROJECT_ROOT, cierre, clase, course, engines, experiments, results  # noqa: E402
from helpers.course import facts  # noqa: E402
from helpers.engines.podman import Podman  # noqa: E402
from helpers.experiments import contract, params  # noqa: E402
from helpers.view import clase as vista_clase  # noqa: E402
from helpers.view.common import NO_RESULT  # noqa: E402
from helpers.view.panel import Panel  # noqa: E402
from tests import experimento_juguete as juguete  # noqa: E402
from tests.experimento_juguete import kit as juguete_kit  # noqa: E402
from tests.experimento_juguete import view as vista_juguete  # noqa: E402

MODULES = experiments.all_experiments()


# ---------------------------------------------------------------- every registered module
@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.EXPERIMENT)
def test_registered_module_satisfies_the_contract(module):
    assert experiments.check(module) is module
    for name in contract.NAMES:
        assert hasattr(module, name.name), name.name
    assert (PROJECT_ROOT / "notebooks" / f"{module.NOTEBOOK}.ipynb").is_file()
    assert experiments.by_notebook(module.NOTEBOOK) is module
    assert dataclasses.is_dataclass(module.Config)
    fields = {f.name for f in dataclasses.fields(module.Config)}
    assert {c["name"] for c in module.CONTROLS} <= fields, "un control sin parámetro en Config"
    assert module.config() == module.Config().validated()  # the defaults are valid
    assert module.BASELINE is None or len(module.BASELINE) == 2
    assert set(module.READS) <= set(experiments.names()), "lee de un experimento que no existe"
    # The quick profile names parameters the notebook declares (else `make course RAPIDO=1` drops them).
    declared = course.declared_parameters(PROJECT_ROOT / "notebooks" / f"{module.NOTEBOOK}.ipynb")
    assert set(module.QUICK) <= set(declared), set(module.QUICK) - set(declared)
    empty = pd.DataFrame(
        columns=["experiment", "engine", "image", "variant", "rep", "metric", "value", "unit"]
    )
    assert list(module.closing_rows(empty, {}).columns) == contract.CLOSING_COLUMNS
    assert (PROJECT_ROOT / "helpers" / "experiments" / module.EXPERIMENT / "__init__.py").is_file()
    assert issubclass(module.Config, params.Params)
    assert module.CONTROLS == module.Config.controls()  # derived, never written by hand


def test_contract_is_written_once_and_contributing_lists_it():
    """CONTRIBUTING's table of the contract names exactly contract.NAMES, required ones marked."""
    text = (PROJECT_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| `([A-Za-z_]+)` \| (sí|no) \|", text, flags=re.M))
    assert listed == {n.name: ("sí" if n.required else "no") for n in contract.NAMES}
    assert len(contract.REQUIRED) == 7


def test_a_limit_declared_once_is_seen_by_the_widget_and_the_validator(toy, monkeypatch):
    """Change a limit in one place (the declaration) and the panel's widget and the validation follow."""
    field = next(f for f in dataclasses.fields(toy.Config) if f.name == "repeticiones")
    old = field.metadata["param"]
    new = dataclasses.replace(old, maximum=7)
    monkeypatch.setattr(field, "metadata", {"param": new})
    assert next(c for c in toy.Config.controls() if c["name"] == "repeticiones")["max"] == 7
    assert toy.Config.build(repeticiones=7).repeticiones == 7
    with pytest.raises(params.ParametroInvalido, match="REPETICIONES debe ser como máximo 7"):
        toy.Config.build(repeticiones=8)
    with pytest.raises(params.ParametroInvalido, match="desconocido"):
        toy.Config.build(repeticiones=2, repetciones=3)


def test_a_module_that_writes_its_own_controls_is_refused():
    import types

    fake = types.ModuleType("helpers.experiments.falso")
    for name in contract.REQUIRED:
        setattr(fake, name, getattr(juguete, name))
    fake.CONTROLS = []
    with pytest.raises(TypeError, match="CONTROLS"):
        contract.check(fake)
    del fake.CONTROLS
    fake.Config = type("Config", (), {})
    with pytest.raises(TypeError, match="params.Params"):
        contract.check(fake)


def test_reading_another_experiment_must_be_declared(toy):
    import types

    reader = types.ModuleType("lector")
    reader.READS = ()
    with pytest.raises(KeyError, match="READS"):
        experiments.read_run(reader, "juguete")
    reader.READS = ("juguete",)
    assert experiments.read_run(reader, "juguete") is None  # no run yet
    toy.run(toy.config(repeticiones=2), log=lambda _: None)
    assert experiments.read_claim(reader, "juguete", "sh_mas_lento").key == "sh_mas_lento"
    assert experiments.read_claim(reader, "juguete", "otra_clave") is None


def test_registry_names_are_unique_and_in_notebook_order():
    notebooks = [m.NOTEBOOK for m in MODULES]
    assert len(set(experiments.names())) == len(experiments.names())
    assert notebooks == sorted(notebooks)


def test_readme_table_lists_every_notebook():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\d\d_\w+)\.ipynb` \|", readme, flags=re.M)
    expected = {m.NOTEBOOK for m in MODULES} | {"00_entorno", "09_cierre", "90_comparar_clase"}
    assert expected <= set(listed), expected - set(listed)
    on_disk = {p.stem for p in course.discover(PROJECT_ROOT / "notebooks")}
    assert set(listed) == on_disk, set(listed) ^ on_disk
    assert listed == sorted(listed)


# ---------------------------------------------------------------- the toy experiment
@pytest.fixture
def toy(monkeypatch):
    experiments.register(juguete)
    monkeypatch.setitem(facts.KITS, juguete.EXPERIMENT, juguete_kit)  # its facts for the instructor's kit
    yield juguete
    experiments.unregister(juguete.EXPERIMENT)


@pytest.fixture
def shown(monkeypatch):
    out = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: out.append(obj))
    return out


def _texts(objs) -> str:
    return " ".join(getattr(o, "data", "") or "" for o in objs if isinstance(getattr(o, "data", None), str))


def test_toy_is_registered_without_editing_the_registry(toy):
    assert experiments.get("juguete") is toy and "juguete" in experiments.names()
    assert experiments.by_notebook("95_juguete") is toy
    assert "juguete" not in experiments.REGISTRY  # nothing was edited


def test_toy_through_the_panel_and_the_no_run_notice(toy, results_tmp, shown):
    panel = Panel(toy, tabla=vista_juguete.tabla, repeticiones=3)
    assert panel.resultado() is None
    vista_juguete.tabla(panel.resultado())
    assert NO_RESULT in _texts(shown)
    shown.clear()
    assert panel.mostrar(interactivo=False) is None
    res = panel.resultado()
    assert res.status == "complete" and len(res.df) == 2 * 3
    assert set(res.df["variant"]) == {"true", "sh"} and (res.df["value"] > 0).all()
    assert res.meta["repetitions"] == 3 and res.meta["schedule"].startswith("round-robin")
    assert shown, "el panel no mostró su tabla"
    with pytest.raises(params.ParametroInvalido):
        Panel(toy, repeticiones=0).mostrar(interactivo=False)


def test_toy_gets_its_quick_profile_from_the_course_runner(toy, tmp_path):
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 95 · Juguete"),
        nbformat.v4.new_code_cell("REPETICIONES = 5\nINTERACTIVO = True", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("print(REPETICIONES)"),
    ]
    path = tmp_path / "95_juguete.ipynb"
    nbformat.write(nb, str(path))
    assert course.quick_profile(path) == {"REPETICIONES": 2}
    assert course.parameters_for(path, quick=True, overrides={}) == {"REPETICIONES": 2, "INTERACTIVO": False}
    assert course.parameters_for(path, quick=False, overrides={"REPETICIONES": 4, "OTRO": 1}) == {
        "REPETICIONES": 4,
        "INTERACTIVO": False,
    }
    assert [p.name for p in course.discover(tmp_path)] == ["95_juguete.ipynb"]


def test_toy_in_the_class_comparison_the_closing_table_and_the_pack(toy, tmp_path, shown):
    folder = tmp_path / "entregas"
    for machine in ("pc-a", "pc-b"):
        toy.run(toy.config(repeticiones=3), log=lambda _: None, root=folder / machine)
    datos = clase.recolectar(folder)
    assert "juguete" in datos.experiments
    rows = datos.data.query("experiment == 'juguete'")
    # raw.csv as written: the measurements, and the rows of the rounds (load, positions) beside them
    assert set(rows["machine"]) == {"pc-a", "pc-b"} and len(results.measurements(rows)) == 2 * 2 * 3
    assert clase.comparable("juguete") == ["tiempo"]
    # Only bare-metal arms: no ratio against bare metal to draw, and no reference: both tolerated.
    assert clase.ratios_vs_bare(datos.data).query("experiment == 'juguete'").empty
    vista_clase.experimentos(datos)
    vista_clase.frente_a_referencia(datos)
    closing = cierre.gather(root=folder / "pc-a")
    assert set(closing.rows.loc[closing.rows["experimento"] == "juguete", "concepto"]) == {
        "arrancar `true`",
        "arrancar `sh`",
    }
    # the instructor's kit enumerates the registry: the toy's own facts, a notice where it has no run
    assert "`sh -c true` / `true` = " in course.kit_facts(folder / "pc-a")["juguete.sh"]
    assert (
        "todavía no hay ninguna corrida de `95_juguete`" in course.kit_facts(tmp_path / "nada")["juguete.sh"]
    )
    packed = clase.empaquetar(tmp_path / "zip", root=folder / "pc-a", alumno="ana")
    assert any("/juguete/" in n for n in zipfile.ZipFile(packed).namelist())


def test_the_registry_loads_no_view():
    """Imports point down: loading every registered experiment loads no view, no plot and no widget
    (an experiment's sentences for the instructor's kit live above the views, in course.facts)."""
    import subprocess
    import sys

    code = (
        "import sys, helpers.experiments; "
        "print(sorted(m for m in sys.modules if m.startswith(('helpers.view', 'matplotlib', 'ipywidgets'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


def test_engine_display_names_live_in_one_place():
    from helpers.view import common

    assert common.ENGINE_LABEL is engines.DISPLAY


def test_podman_containers_conf_lives_inside_the_project_and_is_ignored():
    import subprocess

    path = Podman.conf_path()
    assert PROJECT_ROOT in path.parents
    ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=PROJECT_ROOT)
    assert ignored.returncode == 0, "el containers.conf del curso no está en .gitignore"


def test_no_view_changes_global_plot_settings():
    """A view draws inside its own style context (sns.axes_style / plotting_context as `with`), never
    for the whole kernel: no rcParams, sns.set*, plt.style.use or matplotlib.rc outside a `with`."""
    forbidden = re.compile(
        r"rcParams\s*\[|rcParams\.update|\bsns\.set(_theme|_style|_context|_palette)?\(|"
        r"plt\.style\.use\(|matplotlib\.rc\(|\bplt\.rc\("
    )
    offenders = [
        f"{path.name}:{n}"
        for path in sorted((PROJECT_ROOT / "helpers" / "view").glob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if forbidden.search(line)
    ]
    assert not offenders, offenders
