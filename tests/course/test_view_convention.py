"""The view convention (CONTRIBUTING.md, «Las vistas»), checked on every registered experiment's view
module (helpers/view/<experiment>.py):

- the same jobs have the same names: `tabla`, `grafico`, `veredictos` and `comparacion` in every one,
  `referencia` where the sources' figures are shown apart; a second view of the same kind is
  `<job>_<what>` (`tabla_niveles`, `grafico_cpu`), never a variant (`veredicto`, `mostrar_veredicto`);
- every public function is a view: it takes a Resultado (or None) first, or nothing at all (the
  sources' figures, which no run changes), displays itself and returns None. A helper that returns a
  sentence or a frame is private (`_frase_comparacion`).

The rules apply to what a notebook can call: the public functions a view module defines, and every
function the course's notebooks call on it, wherever it is defined (a view module re-exports the views
it splits off: `vista.primer_arranque` lives in `arranque_condiciones`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import textwrap

import IPython.display
import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from helpers import experiments, paths  # noqa: E402
from helpers.experiments.runner import Resultado  # noqa: E402
from helpers.view import figuras  # noqa: E402
from tests.support import capture_figures  # noqa: E402

JOBS = ("tabla", "grafico", "veredictos", "referencia", "comparacion")
REQUIRED = ("tabla", "grafico", "veredictos", "comparacion")
# A public name that mentions a job (in Spanish or English) must be that job or `<job>_<what>`.
MENTIONS_A_JOB = re.compile(r"tabl|table|grafic|plot|chart|veredict|verdict|referen|compar", re.I)


def _view_modules():
    found = []
    for name in experiments.names():
        try:
            found.append(importlib.import_module(f"helpers.view.{name}"))
        except ModuleNotFoundError:
            continue
    return found


MODULES = _view_modules()


def _params():
    for module in MODULES:
        yield pytest.param(module, id=module.__name__.rsplit(".", 1)[1])


# A view of a measurement a notebook takes outside a run, named with what it takes first: 01's
# stopwatch lesson shows `arranque.side_by_side(...)` (a dict), measured in the cell before.
OUTSIDE_A_RUN = {("helpers.view.arranque", "bucle"): "medida"}


def notebook_calls(source: str, modules=None) -> dict[str, set[str]]:
    """{view module name: the attributes a notebook's code calls on it}, from its `from helpers.view
    import x [as y]` lines and its `y.f(...)` calls (IPython magics are skipped)."""
    modules = {m.__name__ for m in (MODULES if modules is None else modules)}
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    tree = ast.parse(code)
    alias = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "helpers.view":
            for name in node.names:
                if f"helpers.view.{name.name}" in modules:
                    alias[name.asname or name.name] = f"helpers.view.{name.name}"
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in alias
        ):
            found.setdefault(alias[node.func.value.id], set()).add(node.func.attr)
    return found


def _notebook_source(path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def called_by_notebooks() -> dict[str, set[str]]:
    """{view module name: every attribute the course's notebooks call on it}."""
    found: dict[str, set[str]] = {}
    for path in sorted((paths.PROJECT_ROOT / "notebooks").glob("*.ipynb")):
        for module, names in notebook_calls(_notebook_source(path)).items():
            found.setdefault(module, set()).update(names)
    return found


CALLED = called_by_notebooks()


def public_functions(module) -> dict:
    """The views of a module: the public functions it defines, and whatever the notebooks call on it
    (a re-exported view included; a called name that is not a function is kept, to be reported)."""
    own = {
        name: func
        for name, func in inspect.getmembers(module, inspect.isfunction)
        if not name.startswith("_") and func.__module__ == module.__name__
    }
    return own | {name: getattr(module, name, None) for name in sorted(CALLED.get(module.__name__, ()))}


def _returned_values(func) -> list[str]:
    """The `return <value>` statements of the function's own body (not of functions nested in it) whose
    value is not None, as source text."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(func))))
    body = tree.body[0]
    found = []
    stack = list(ast.iter_child_nodes(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                found.append(ast.unparse(node))
        stack.extend(ast.iter_child_nodes(node))
    return found


def _takes_a_result(func) -> bool:
    params = list(inspect.signature(inspect.unwrap(func)).parameters.values())
    return bool(params) and params[0].name == "resultado"


def view_problems(module, name: str, func) -> list[str]:
    """What breaks the convention in one view of a module (empty: nothing)."""
    if not inspect.isfunction(func):
        return [f"{name}: no es una función ({type(func).__name__})"]
    problems = []
    signature = inspect.signature(inspect.unwrap(func))
    params = list(signature.parameters.values())
    first = OUTSIDE_A_RUN.get((module.__name__, name), "resultado")
    if params and params[0].name != first:
        problems.append(f"{name}: su primer argumento no es «{first}»")
    if [p.name for p in params[1:] if p.default is inspect.Parameter.empty]:
        problems.append(f"{name}: argumentos obligatorios además de «{first}»")
    if signature.return_annotation not in (None, "None"):
        problems.append(f"{name}: anotado -> {signature.return_annotation}")
    return problems + [f"{name}: {r}" for r in _returned_values(func)]


def test_every_registered_experiment_has_a_view_module():
    names = {m.__name__.rsplit(".", 1)[1] for m in MODULES}
    assert names == set(experiments.names()) - {"juguete"}, set(experiments.names()) ^ names


@pytest.mark.parametrize("module", list(_params()))
def test_the_same_jobs_have_the_same_names(module):
    names = set(public_functions(module))
    missing = [job for job in REQUIRED if job not in names]
    assert not missing, f"{module.__name__} no tiene {missing}"
    off = sorted(
        name
        for name in names
        if MENTIONS_A_JOB.search(name) and not any(name == job or name.startswith(f"{job}_") for job in JOBS)
    )
    assert not off, f"{module.__name__}: nombres fuera de la convención {off} (usa {JOBS} o <trabajo>_<qué>)"


@pytest.mark.parametrize("module", list(_params()))
def test_every_public_function_is_a_view_that_returns_none(module):
    problems = [
        p for name, func in public_functions(module).items() for p in view_problems(module, name, func)
    ]
    assert not problems, f"{module.__name__}: {problems}"


def test_what_the_notebooks_call_is_checked_wherever_it_is_defined():
    """The calls are read from the notebooks: 01 calls five views that live in arranque_condiciones (and
    02 one of escala_frases); they are checked like the module's own."""
    from helpers.view import arranque, escala

    views = public_functions(arranque)
    elsewhere = {n for n, f in views.items() if f.__module__ != arranque.__name__}
    assert {"bucle", "primer_arranque", "red", "segunda_ronda", "tamanos"} <= elsewhere
    assert "respuesta_de_01" in public_functions(escala)
    assert notebook_calls("%matplotlib inline\nfrom helpers.view import red as v\nv.tabla(r)\nv.x.y()") == {
        "helpers.view.red": {"tabla"}
    }


def test_a_called_view_that_breaks_the_convention_is_caught():
    """The checks are not vacuous: a re-exported view that returns its frame, or takes a required
    second argument, or a called name that is not a function, is reported."""
    from helpers.view import arranque

    def returns_its_frame(resultado, titulo) -> None:
        return resultado.df

    problems = view_problems(arranque, "primer_arranque", returns_its_frame)
    assert problems == [
        "primer_arranque: argumentos obligatorios además de «resultado»",
        "primer_arranque: return resultado.df",
    ]
    assert (
        view_problems(arranque, "bucle", returns_its_frame)[0] == "bucle: su primer argumento no es «medida»"
    )
    assert view_problems(arranque, "PRESETS", None) == ["PRESETS: no es una función (NoneType)"]


def test_the_static_check_sees_a_returned_value():
    """The AST check above is not vacuous: a view that returns its table is caught, a bare return is not."""

    def returns_a_table(resultado):
        if resultado is None:
            return
        return resultado.df

    def nested_return_is_fine(resultado):
        def key(x):
            return x

        return None

    assert _returned_values(returns_a_table) == ["return resultado.df"]
    assert _returned_values(nested_return_is_fine) == []


# ---------------------------------------------------------------- on a real run (the shared quick course)
@pytest.mark.notebook
@pytest.mark.parametrize("module", list(_params()))
def test_every_view_displays_a_real_run_and_returns_none(module, monkeypatch):
    """Each public view, called on this module's run of the quick course, shows something (a table, a
    sentence or a figure) and returns None, so a notebook cell never shows a second copy or a repr."""
    from tests.curso_rapido import quick_course

    run = quick_course()
    experiment = module.__name__.rsplit(".", 1)[1]
    resultado = Resultado.latest(experiment, run.results)
    if resultado is None:
        pytest.skip(f"la corrida rápida no dejó corrida de {experiment}: {run.output[-500:]}")
    monkeypatch.setenv("CURSO_RESULTADOS", str(run.results))  # views that read another notebook's run
    shown: list = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    capture_figures(monkeypatch)
    monkeypatch.setattr(figuras, "display", lambda fig, **k: shown.append(fig))  # the charts
    silent, returned = [], {}
    try:
        for name, func in public_functions(module).items():
            if (module.__name__, name) in OUTSIDE_A_RUN:  # it shows a measurement, not a run
                continue
            before = len(shown)
            value = func(resultado) if _takes_a_result(func) else func()
            if value is not None:
                returned[name] = type(value).__name__
            if len(shown) == before:
                silent.append(name)
            plt.close("all")
    finally:
        plt.close("all")
    assert not returned, f"{experiment}: devuelven algo {returned}"
    assert not silent, f"{experiment}: no muestran nada {silent}"
