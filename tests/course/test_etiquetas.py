"""Every label from the one rule (issue 41, point 3): «no se distingue hacia qué lado» only for an
interval that holds the null (03 printed «sort +8.4 % [+3.8, +26] | no se distingue hacia qué lado»);
a comparison with the reference says «no coincide» for two disjoint intervals (01 printed «0.45× [0.38,
0.96] | 1.2× [1.1, 1.4] | no concluyente»); 03's colours and legend name every reading they draw."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers import PROJECT_ROOT, cierre, stats
from helpers.experiments import figures as fg
from helpers.experiments import verdict as vd
from helpers.experiments.ejecucion import analysis as ejecucion
from helpers.view import anidamiento, common, escala_frases
from helpers.view import cierre as view_cierre
from helpers.view import ejecucion as view_ejecucion

UNDECIDED = "no se distingue hacia qué lado"


@pytest.mark.parametrize(("low", "high"), [(3.8, 26.0), (4.1, 260.0), (-30.0, -2.0)])
def test_an_overhead_entirely_on_one_side_of_zero_is_not_undecided(low, high):
    code = ejecucion.reading(low, high, 20)
    assert code in (vd.ABOVE_NULL, vd.BELOW_NULL), code
    words = common.overhead_words(code, 20)
    assert UNDECIDED not in words and ("más lento" if low > 0 else "más rápido") in words, words


def test_an_overhead_that_holds_zero_is_undecided():
    assert UNDECIDED in common.overhead_words(ejecucion.reading(-3.0, 26.0, 20), 20)


def test_03s_colours_tell_every_reading_from_the_gray_of_an_interval_with_zero():
    colours = view_ejecucion.READING_COLOR
    for code in (vd.ABOVE, vd.BELOW, vd.ABOVE_NULL, vd.BELOW_NULL, vd.INESTABLE):
        assert colours.get(code, "tab:gray") != "tab:gray", code
    assert len({colours[c] for c in (vd.ABOVE, vd.BELOW, vd.ABOVE_NULL, vd.BELOW_NULL)}) == 4
    source = Path(view_ejecucion.__file__).read_text(encoding="utf-8")
    assert "gris: IC con 0 % o «casi igual»" in source and "rojo claro" in source


@pytest.mark.parametrize(
    ("live", "ref", "expected"),
    [
        ((0.45, 0.38, 0.96), (1.2, 1.1, 1.4), fg.NO_COINCIDE),  # disjoint, overlapping the margin
        ((1.2, 1.1, 1.4), (0.45, 0.38, 0.96), fg.NO_COINCIDE),
        ((5.0, 2.0, 8.0), (0.0, -1.0, 1.0), fg.NO_COINCIDE),  # signed figures, compared as a difference
        ((1.0, 0.7, 1.4), (1.1, 1.0, 1.2), vd.NO_CONCLUYENTE),  # overlapping: cannot tell
        ((1.02, 1.01, 1.03), (1.05, 1.04, 1.06), fg.COINCIDE),  # disjoint, but inside the margin
        ((1.0, 0.95, 1.05), (1.0, 1.0, 1.0), fg.COINCIDE),
    ],
)
def test_agreement_with_the_reference_follows_the_two_intervals(live, ref, expected):
    assert fg.agreement(live, ref) == expected


def test_the_closing_reading_of_podman_against_docker_names_its_side():
    reading = cierre._reading(stats.Estimate(1.2, 1.02, 1.4, 20))
    assert reading.direction == vd.ABOVE_NULL
    assert UNDECIDED not in view_cierre._side(reading)
    assert UNDECIDED in view_cierre._side(cierre._reading(stats.Estimate(1.0, 0.9, 1.3, 20)))


def test_07s_reading_of_a_level_names_its_side():
    row = {"inestable": False, "ic_bajo": 1.02, "ic_alto": 1.4, "n": 20}
    assert UNDECIDED not in anidamiento._lectura(row) and "más lento" in anidamiento._lectura(row)


def test_02_and_01_point_the_same_way_when_both_intervals_lie_on_one_side():
    claim = vd.Claim(vd.Said("k", "s", "f"), vd.NO_CONCLUYENTE, stats.Estimate(1.2, 1.02, 1.4, 20))
    text = escala_frases.same_way(claim, 1.3, 1.01, 1.6, 20)
    assert "mismo lado" in text and "no se puede decir" not in text, text


def _worded_directions(path: Path) -> list[str]:
    """Each `direction_words(verdict.direction(…))` in a file: a direction worded without its side."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
            "direction_words",
            "overhead_words",
        ):
            for arg in node.args[:1]:
                if (
                    isinstance(arg, ast.Call)
                    and getattr(arg.func, "attr", getattr(arg.func, "id", "")) == "direction"
                ):
                    found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_direction_is_worded_without_its_side():
    found = [
        hit for p in sorted(Path(PROJECT_ROOT, "helpers").rglob("*.py")) for hit in _worded_directions(p)
    ]
    assert not found, found


def test_02s_comparison_takes_the_status_of_the_claim_on_the_same_figure():
    """02 printed «0.80× [0.77, 0.83] | no coincide» and, for the same figure, «sin IC 95 % … bajo
    carga»: one status per figure per page."""
    import pandas as pd

    from helpers.experiments.escala import analysis as escala

    out = pd.DataFrame(
        {
            "medida": ["s_lanzamiento_total", "kb_por_contenedor", "memoria_proceso_kb"],
            "acuerdo": [fg.NO_COINCIDE, fg.COINCIDE, fg.NO_COINCIDE],
        }
    )
    judged = [
        vd.Claim(vd.Said("lanzamiento_20", "s", "f"), vd.BAJO_CARGA),
        vd.Claim(vd.Said("cgroup_4x", "s", "f"), vd.SE_CONFIRMA),
    ]
    got = escala.one_status(out, judged)["acuerdo"].tolist()
    assert got == [vd.BAJO_CARGA, fg.COINCIDE, fg.NO_COINCIDE], got
    assert common.AGREEMENT[vd.BAJO_CARGA].startswith("bajo carga")
