"""One decision path: which way a figure points («más lento», «indistinguible del ruido», «favorece a»)
is read from the one verdict rule (`verdict.direction`), never from an interval bound compared with a
threshold in a view, a kit fact or an experiment's table code. The scan reads the source (AST): a
comparison (<, <=, >, >=) with an interval bound (a name, attribute or column called low, high, lo, hi,
bajo, alto, ic_bajo, ic_alto, …) on one side and a number or another bound on the other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from helpers import PROJECT_ROOT
from helpers.experiments import figures, verdict
from helpers.view import common

HELPERS = Path(PROJECT_ROOT) / "helpers"
SCANNED = sorted(
    [
        *(HELPERS / "view").glob("*.py"),
        *(HELPERS / "course" / "facts").glob("*.py"),
        *(HELPERS / "experiments").glob("*/analysis.py"),
    ]
)
BOUND = re.compile(r"(^|_)(low|high|lo|hi|bajo|alto)(_|$)")
ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _name(node: ast.AST) -> str | None:
    """The identifier an operand reads: `low`, `claim.low`, `r["ic_bajo"]`, `r.ic_bajo_pct`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    return None


def _is_bound(node: ast.AST) -> bool:
    name = _name(node)
    return bool(name and BOUND.search(name.lower()))


def _is_number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    )


def bound_comparisons(source: str) -> list[str]:
    """Each `line: expression` of `source` that compares an interval bound with a number or a bound."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for (a, b), op in zip(zip(operands, operands[1:]), node.ops, strict=True):
            if not isinstance(op, ORDER):
                continue
            if (_is_bound(a) and (_is_number(b) or _is_bound(b))) or (_is_bound(b) and _is_number(a)):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
                break
    return found


@pytest.mark.parametrize(
    "source",
    [
        "x = high < 1",
        "x = claim.low > 1",
        "x = r['ic_bajo'] <= 1 <= r['ic_alto']",
        "x = 0.5 <= low and high <= 2",
        "x = top['ic_bajo_ms'] > rival['ic_alto_ms']",
        "x = w.ic_alto_pct < -5",
    ],
)
def test_scan_finds_a_bound_compared_with_a_threshold(source):
    assert bound_comparisons(source), source


@pytest.mark.parametrize(
    "source",
    [
        "x = value > 1",
        "x = low == high",
        "x = n < MIN_N",
        "x = verdict.direction(low, high, n) == verdict.ABOVE",
        "x = highlight > 1",
    ],
)
def test_scan_leaves_other_comparisons(source):
    assert not bound_comparisons(source), source


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: str(p.relative_to(HELPERS)))
def test_no_module_reads_a_direction_from_a_bound(path):
    found = bound_comparisons(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.relative_to(HELPERS)} compara un extremo del IC con un umbral; la dirección de una cifra "
        "sale de verdict.direction (y su frase de view.common.direction_words):\n  " + "\n  ".join(found)
    )


# ---------------------------------------------------------------- the one function, and its words
def test_direction_is_the_one_rule_against_the_margins_of_no_difference():
    """ABOVE / BELOW / LEVEL are `decide` against «adds», «reduces» and «no difference» (margins.py):
    checked on a grid of intervals, for ratios (around 1) and percentages (around 0)."""
    grid = np.linspace(-0.3, 0.3, 25)
    for around, unit, scale in ((1.0, "x", 1.0), (0.0, "%", 100.0)):
        for a in grid:
            for b in grid[grid >= a]:
                low, high = around + a * scale, around + b * scale
                inside = [
                    code
                    for code, kind in (
                        (verdict.LEVEL, "no_difference"),  # first: the edge of both margins is «casi igual»
                        (verdict.ABOVE, "adds"),
                        (verdict.BELOW, "reduces"),
                    )
                    if verdict.decide(low, high, region=verdict.margin(kind, unit=unit))
                    == verdict.SE_CONFIRMA
                ]
                expected = inside[0] if inside else verdict.NO_CONCLUYENTE
                assert verdict.direction(low, high, verdict.MIN_N, around=around) == expected, (low, high)


@pytest.mark.parametrize(
    "low, high, n, around, code",
    [
        (1.06, 1.2, 6, 1.0, "above"),
        (0.5, 0.9, 6, 1.0, "below"),
        (0.96, 1.04, 6, 1.0, "level"),
        (1.01, 1.04, 6, 1.0, "level"),  # excludes 1, but inside «casi igual»: no «más lento»
        (0.9, 1.1, 6, 1.0, "no_concluyente"),
        (1.5, 2.0, 5, 1.0, "sin_datos"),  # below MIN_N: no direction, whatever the interval
        (float("nan"), 1.0, 10, 1.0, "sin_datos"),
        (6.0, 9.0, 6, 0.0, "above"),
        (-3.0, 4.0, 6, 0.0, "level"),
        (0.6, 0.7, 6, 0.5, "above"),  # ÷/× 1.05 around any other positive figure
        (1.5, 2.0, None, 1.0, "above"),  # an interval from helpers.stats: NaN below MIN_N already
    ],
)
def test_direction_cases(low, high, n, around, code):
    assert verdict.direction(low, high, n, around=around) == code


def test_direction_words_have_one_wording_each():
    assert common.direction_words(verdict.ABOVE, "más lento", "más rápido") == "más lento"
    assert common.direction_words(verdict.BELOW, "más lento", "más rápido") == "más rápido"
    assert "0.952× a 1.05×" in common.direction_words(verdict.LEVEL)  # 1/1.05 … 1.05: one factor
    assert "−4.76 % a +5 %" in common.direction_words(verdict.LEVEL, around=0)
    assert "no se distingue" in common.direction_words(verdict.NO_CONCLUYENTE)
    few = verdict.MIN_N - 1
    assert common.direction_words(verdict.SIN_DATOS, n=few) == common.too_few(few)
    assert "sin IC 95 %" in common.direction_words(verdict.SIN_DATOS)


def test_too_few_repetitions_has_one_wording():
    few = verdict.MIN_N - 1
    assert common.too_few(few) == f"no se puede juzgar con {few} repeticiones; hacen falta {verdict.MIN_N}"
    assert common.too_few(verdict.MIN_N) == ""
    banner = common.too_few_banner(few)
    assert common.too_few(few) in banner and "sin veredictos" in banner
    assert common.too_few_banner(verdict.MIN_N) == common.too_few_banner(0) == ""
    claim = figures.median(verdict.Said("k", "s", "src", claimed=1.0, kind="about"), [1.0] * few)
    assert common.verdict_words(claim) == common.too_few(few)


# ---------------------------------------------------------------- view modules split by job
VIEW = sorted((HELPERS / "view").glob("*.py"))


@pytest.mark.parametrize("path", VIEW, ids=lambda p: p.name)
def test_no_private_name_crosses_a_view_module_and_no_import_hides_in_a_function(path):
    """One job per module: a view module imports public names only, at the top (a function-level import
    of the package's own modules is how a cycle hides)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    private = [
        f"{node.lineno}: {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level > 0
        for alias in node.names
        if alias.name.startswith("_")
    ]
    nested = [
        f"{node.lineno}: from {'.' * node.level}{node.module or ''}"
        for fn in ast.walk(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(fn)
        if isinstance(node, ast.ImportFrom) and node.level > 0
    ]
    assert not private, f"view/{path.name} importa nombres privados de otro módulo: {private}"
    assert not nested, f"view/{path.name} importa módulos del paquete dentro de una función: {nested}"
