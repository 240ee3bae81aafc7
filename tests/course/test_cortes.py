"""Text cut for a summary or a one-line answer: on words, never inside markup (a code span, «…», a
parenthesis), never on a number without its unit, and never before the part that tells two claims apart
(issue 41, point 5): 03's first screen printed «docker exectarda … dedocker…» and listed «2 horas» both
as «se confirma» and as «sin veredicto posible»."""

from __future__ import annotations

import re

import pytest

from helpers import stats
from helpers.experiments import verdict as vd
from helpers.experiments.ejecucion.claims import TWO_HOURS
from helpers.view import cierre as view_cierre
from helpers.view import common

EXEC = "`docker exec` tarda menos de 1 ms (solo la syscall exec), frente a ~428 ms de `docker run`"


def _claim(statement: str, status: str, engine: str = "docker") -> vd.Claim:
    said = vd.Said("k", statement, "el capítulo original", claimed=10, kind="at_most", unit="min")
    return vd.Claim(said, status, stats.Estimate(1.0, 0.5, 2.0, 10), {"engine": engine})


def _balanced(text: str) -> bool:
    return (
        text.count("`") % 2 == 0 and text.count("«") == text.count("»") and text.count("(") == text.count(")")
    )


@pytest.mark.parametrize("width", [20, 35, 50, 70, 90])
def test_a_cut_never_leaves_markup_open_and_ends_on_a_word(width):
    for text in (
        EXEC + " (Docker; lo que se espera)",
        "Un texto «con una cita larga de varias palabras» y más",
    ):
        cut = common.shorten(text, width)
        assert _balanced(cut), cut
        assert len(cut) <= max(width, len(cut.split(" (")[-1]) + 2) + 1, cut
        body = cut.rsplit("…", 1)[0]
        assert text.startswith(body) or body in text, (text, cut)
        if "…" in cut:
            assert not re.search(r"\d…", cut), cut  # «menos de 10…»: a number without its unit


def test_the_exec_statement_keeps_its_code_spans_whole():
    cut = common.shorten(EXEC + " (Docker; lo que se espera)", common.SHORT)
    assert "`docker exec` tarda" in cut and cut.count("`") % 2 == 0, cut
    assert cut.endswith("(Docker; lo que se espera)"), cut


def test_a_short_text_is_left_alone():
    assert common.shorten("corto (Docker)", 90) == "corto (Docker)"


def test_the_qualifier_that_tells_two_judgements_apart_survives_the_cut():
    for carga in ("hash", "sort"):
        cut = common.shorten(f"{TWO_HOURS.statement} (Docker; {carga})", common.SHORT)
        assert cut.endswith(f"(Docker; {carga})") and "10…" not in cut, cut


def test_the_summary_never_lists_one_name_under_two_statuses():
    claims = [
        _claim(f"{TWO_HOURS.statement} (Docker; hash)", vd.SE_CONFIRMA),
        _claim(f"{TWO_HOURS.statement} (Docker; sort)", vd.INDECIDIBLE),
        _claim(EXEC + " (Docker; lo que se espera)", vd.SE_CONFIRMA),
    ]
    lines = common.verdict_summary(claims)
    names = [re.findall(r"«([^«»]*(?:«[^«»]*»[^«»]*)*)»", ln) for ln in lines[1:3]]
    confirmed, undecidable = (set(n) for n in names)
    assert not confirmed & undecidable, lines
    assert any("hash" in n for n in confirmed) and any("sort" in n for n in undecidable), lines
    assert all(ln.count("`") % 2 == 0 for ln in lines), lines


def test_two_statements_that_differ_only_past_the_cut_get_longer_names():
    head = "Una afirmación larga que repite sus primeras noventa letras en las dos versiones, casi todas"
    claims = [
        _claim(head + " con hash al final", vd.SE_CONFIRMA),
        _claim(head + " con sort al final", vd.NO_SE_SOSTIENE),
    ]
    lines = "\n".join(common.verdict_summary(claims))
    assert "hash" in lines and "sort" in lines, lines


def test_the_closing_one_line_answer_cuts_the_same_way():
    long = "`podman run` " + "con una frase muy larga que sigue y sigue " * 5 + "`hasta aquí`"
    name = view_cierre._name(_claim(long, vd.SE_CONFIRMA))
    assert len(name) <= view_cierre.NAME_WIDTH and name.count("`") % 2 == 0, name
