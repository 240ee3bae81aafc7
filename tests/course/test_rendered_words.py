"""What a page prints is the lesson's words (issue 41 item 8): no internal claim key («red_anidado_17») in
a Spanish string a student reads, and every chart shown through `figuras.show_figure` (which gives it its
alternative text), never a bare `display(fig)` that leaves nbconvert's «No description has been
provided for this image»."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from helpers import PROJECT_ROOT, experiments

HELPERS = Path(PROJECT_ROOT) / "helpers"


def _claim_keys() -> set[str]:
    """Every declared claim's key that cannot be an ordinary word (it has an underscore)."""
    return {said.key for module in experiments.all_experiments() for said in module.SAID if "_" in said.key}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def keys_in_sentences(source: str, keys: set[str]) -> list[str]:
    """Each `line: key` where a string that is not a docstring, with a space in it (a sentence), names a
    claim key."""
    pattern = re.compile(
        r"(?<![\w.])(" + "|".join(sorted(map(re.escape, keys), key=len, reverse=True)) + r")(?!\w)"
    )
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if " " in node.value.strip():
                found += [f"{node.lineno}: {m.group(1)}" for m in pattern.finditer(node.value)]
    return found


def test_the_scan_finds_a_key_in_a_sentence_and_not_in_a_docstring():
    keys = {"red_anidado_17"}
    assert keys_in_sentences('x = "cada una tiene su clave: «red_anidado_17» y otra"', keys) == [
        "1: red_anidado_17"
    ]
    assert keys_in_sentences('def f():\n    """Judged as red_anidado_17."""\n', keys) == []
    assert keys_in_sentences('KEY = "red_anidado_17"', keys) == []  # an identifier, not a sentence


def test_no_sentence_a_student_reads_names_an_internal_claim_key():
    keys = _claim_keys()
    assert len(keys) > 40
    found = {
        str(path.relative_to(HELPERS)): hits
        for path in sorted(HELPERS.rglob("*.py"))
        if (hits := keys_in_sentences(path.read_text(), keys))
    }
    assert found == {}


def test_every_chart_is_shown_with_its_alternative_text():
    bare = re.compile(r"\b(show|display)\(\s*fig\b")
    found = [
        f"{path.relative_to(HELPERS)}:{i}"
        for path in sorted((HELPERS / "view").glob("*.py"))
        if path.name != "figuras.py"
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if bare.search(line)
    ]
    assert found == []
