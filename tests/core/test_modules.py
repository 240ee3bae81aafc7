"""Modules split by job: no private name (`_x`) crosses from one module of `helpers` to another, and
no module imports another inside a function (the way a hidden import cycle is dodged)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from helpers import PROJECT_ROOT

HELPERS = PROJECT_ROOT / "helpers"

# Imported inside a function on purpose: heavy optional third-party packages that only one path needs
# (a headless run, an HTML page, a widget panel), so `import helpers` stays light and works without them.
LAZY_THIRD_PARTY = {
    "IPython": "the front end: only when a notebook shows something",
    "ipywidgets": "the widget panel: headless runs never build one",
    "jupyter_client": "the kernel of a headless run",
    "mistune": "Markdown of the teacher's kit",
    "nbconvert": "HTML pages of the course",
    "nbformat": "notebooks on disk, for the course runner only",
    "papermill": "headless runs",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PROJECT_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def is_module(dotted: str) -> bool:
    path = PROJECT_ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_from(path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module a `from ... import` reads."""
    if node.level == 0:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@functools.cache
def sources(root: Path = HELPERS) -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(root.rglob("*.py"))]


def private_crossings(path: Path, tree: ast.Module) -> list[str]:
    """`from helpers.x import _y`, and `x._y` where `x` names another module of helpers."""
    me = module_name(path)
    found, modules = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = imported_from(path, node)
            if not source.startswith("helpers"):
                continue
            for alias in node.names:
                if private(alias.name) and source != me:
                    found.append(f"{path.relative_to(PROJECT_ROOT)}:{node.lineno} {source}.{alias.name}")
                if is_module(f"{source}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("helpers"):
                    modules[alias.asname or alias.name.split(".")[0]] = (
                        alias.asname and alias.name or "helpers"
                    )
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and private(node.attr)):
            continue
        chain = ast.unparse(node.value).split(".")
        if chain[0] not in modules or not all(part.isidentifier() for part in chain):
            continue
        owner = ".".join([modules[chain[0]], *chain[1:]])
        if is_module(owner) and owner != me:
            found.append(f"{path.relative_to(PROJECT_ROOT)}:{node.lineno} {owner}.{node.attr}")
    return found


def local_imports(path: Path, tree: ast.Module) -> list[str]:
    """Imports inside a function, but for the lazy third-party packages above."""
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ImportFrom):
                source = imported_from(path, node)
                names = [
                    f"{source}.{a.name}" if is_module(f"{source}.{a.name}") else source for a in node.names
                ]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.split(".")[0] not in LAZY_THIRD_PARTY:
                    found.append(f"{path.relative_to(PROJECT_ROOT)}:{node.lineno} {name}")
    return sorted(set(found))


def test_no_private_name_crosses_modules():
    found = [hit for path, tree in sources() for hit in private_crossings(path, tree)]
    assert not found, "nombres privados importados de otro módulo:\n" + "\n".join(found)


def test_no_import_inside_a_function():
    found = [hit for path, tree in sources() for hit in local_imports(path, tree)]
    assert not found, "imports dentro de una función (¿un ciclo escondido?):\n" + "\n".join(found)


def test_no_import_below_the_code():
    found = [
        f"{path.relative_to(PROJECT_ROOT)}:{n}"
        for path in sorted(HELPERS.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "noqa: E402" in line
    ]
    assert not found, "imports debajo del código (¿un ciclo escondido?):\n" + "\n".join(found)


def test_the_checks_see_what_they_look_for(tmp_path):
    """Each check finds its own fault in a small module of helpers written for it."""
    path = HELPERS / "vm" / "build.py"
    tree = ast.parse(
        "from .assets import _manifest\n"
        "from . import run\n"
        "def provision():\n"
        "    from .. import images\n"
        "    import papermill\n"
        "    return run._kvm_key()\n"
    )
    assert private_crossings(path, tree) == [
        "helpers/vm/build.py:1 helpers.vm.assets._manifest",
        "helpers/vm/build.py:6 helpers.vm.run._kvm_key",
    ]
    assert local_imports(path, tree) == ["helpers/vm/build.py:4 helpers.images"]
