"""«En resumen»: each notebook's verdicts in five lines, from the one rule's statuses."""

import json

from helpers import PROJECT_ROOT, stats
from helpers.experiments import verdict as vd
from helpers.stats import Estimate
from helpers.view import common


def _claim(key: str, status_of: float, engine: str = "docker") -> vd.Claim:
    said = vd.Said(key, f"La afirmación {key}", "una fuente", claimed=1.0, kind="no_difference")
    return vd.judge(
        said, Estimate(status_of, status_of - 0.01, status_of + 0.01, 10), detail={"engine": engine}
    )


def test_the_summary_names_what_was_decided_and_counts_the_rest():
    claims = [_claim("a", 1.0), _claim("b", 2.0), _claim("c", 2.0, "podman"), _claim("d", 1.05)]
    claims.append(vd.missing(vd.Said("e", "La afirmación e", "una fuente", kind="no_difference")))
    lines = common.verdict_summary(claims)
    assert len(lines) <= common.SUMMARY_LINES and "5 afirmaciones" in lines[0]
    confirmed = next(line for line in lines if common.VERDICT[vd.SE_CONFIRMA] in line)
    refuted = next(line for line in lines if common.VERDICT[vd.NO_SE_SOSTIENE] in line)
    assert "«La afirmación a (Docker)»" in confirmed and "afirmación b" not in confirmed
    assert "«La afirmación b (Docker)»" in refuted and "«La afirmación c (Podman)»" in refuted
    rest = lines[-1]
    assert (
        f"1 «{common.VERDICT[vd.NO_CONCLUYENTE]}»" in rest and f"1 «{common.VERDICT[vd.SIN_DATOS]}»" in rest
    )


def test_a_long_statement_is_never_cut_inside_its_parenthesis():
    """«…aditiva (Podman dentro de Podman: +45…» hid which figure was judged: the cut goes before the
    parenthesis, and the engine is named after it."""
    long = "Anidar suma una sobrecarga de arranque moderada y aditiva (Podman dentro de Podman: +45 % sobre el nivel 1)."
    said = vd.Said("x", long, "una fuente", claimed=1.0, kind="no_difference")
    claim = vd.judge(said, Estimate(1.0, 0.99, 1.01, 10), detail={"engine": "podman"})
    (line,) = [ln for ln in common.verdict_summary([claim]) if "Anidar" in ln]
    assert "«Anidar suma una sobrecarga de arranque moderada y aditiva… (Podman)»" in line, line


def test_a_changed_verdict_changes_the_summary():
    before = common.verdict_summary([_claim("a", 1.0)])
    after = common.verdict_summary([_claim("a", 2.0)])
    assert before != after and common.VERDICT[vd.NO_SE_SOSTIENE] in after[1]


def test_every_notebook_that_judges_shows_the_summary_before_its_verdicts():
    for path in sorted((PROJECT_ROOT / "notebooks").glob("0[1-8]_*.ipynb")):
        sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
        summary = next(i for i, s in enumerate(sources) if "resumen(panel.resultado())" in s)
        verdicts = max(i for i, s in enumerate(sources) if "veredictos(" in s or "como_medimos(" in s)
        assert summary < verdicts, path.name


def test_the_summary_comes_straight_after_the_panel():
    """Nothing a reader must scroll past sits between a notebook's run and its five lines: no code cell
    between the panel and the summary (03 once printed the load and margins there)."""
    for path in sorted((PROJECT_ROOT / "notebooks").glob("0[1-8]_*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        sources = ["".join(c["source"]) for c in cells]
        panel = next(i for i, s in enumerate(sources) if "panel.mostrar(" in s)
        summary = next(i for i, s in enumerate(sources) if "resumen(panel.resultado())" in s)
        between = [sources[i] for i in range(panel + 1, summary) if cells[i]["cell_type"] == "code"]
        assert panel < summary and not between, (path.name, between)


def test_a_notebook_that_is_not_the_closing_one_folds_the_closing_table():
    """The LAUNCH/RUNNING/CAPACITY table of every run is 09's page; elsewhere it is a folded detail."""
    for path in sorted((PROJECT_ROOT / "notebooks").glob("0[1-8]_*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code" and "cierre.tabla(" in "".join(cell["source"]):
                assert "detalle" in cell["metadata"].get("tags", []) and cell["metadata"].get("resumen"), (
                    path.name
                )


def test_the_long_verdict_lists_are_folded_under_the_summary():
    for path in sorted((PROJECT_ROOT / "notebooks").glob("0[1-8]_*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and "veredictos(" in source:
                meta = cell["metadata"]
                assert "detalle" in meta.get("tags", []) and meta.get("resumen"), (path.name, source)
                assert meta.get("jupyter", {}).get("outputs_hidden") is True, (path.name, source)


def _ratio(low: float, high: float, n: int = 6, spread: float | None = None) -> vd.Claim:
    """A judged ratio with this interval; its spread (for the power calculation) is a normal's σ whose
    6-value range is about that wide (2.53 σ) unless given."""
    said = vd.Said("r", "Una proporción", "una fuente", claimed=1.0, kind="about")
    spread = (high - low) / 2.53 if spread is None else spread
    return vd.judge(said, Estimate((low * high) ** 0.5, low, high, n, stats.ORDER, spread=spread))


def test_the_page_says_what_its_noise_can_decide():
    from helpers.view import verdicts

    wide = verdicts.resolution_sentence(
        [_ratio(1 / 1.1, 1.1, spread=0.05), _ratio(1 / 1.1, 1.1, spread=0.05), _ratio(0.99, 1.01)]
    )
    assert "÷/× 1.10" in wide and "n = 6" in wide
    # a power calculation with the page's median spread (5 %), for a figure on «casi igual»'s centre
    need = stats.rounds_to_decide(Estimate(1.0, n=6, spread=0.05), vd.level_region(1.0))
    assert 6 < need < vd.PRACTICAL_REPS and f"unas {common.approx(need)} rondas" in wide, wide
    assert "8 de cada 10 veces" in wide
    noisier = verdicts.resolution_sentence([_ratio(1 / 1.1, 1.1, spread=0.07)])
    assert stats.rounds_to_decide(Estimate(1.0, n=6, spread=0.07), vd.level_region(1.0)) > need
    assert "rondas para confirmar" in noisier
    narrow = verdicts.resolution_sentence([_ratio(0.99, 1.01)])
    assert "Alcanza hasta para el margen más estrecho" in narrow
    assert "no lo decide" in verdicts.resolution_sentence([_ratio(0.5, 2.0)])
    assert verdicts.resolution_sentence([_ratio(0.5, 2.0, n=3)]) == ""  # too few rounds: nothing to say


def test_the_summary_counts_every_claim_even_when_two_read_the_same():
    """One statement judged twice (per image, per engine without a name) counts twice: the head line's
    total is the sum of the lines below it. With nothing decided, there is no «Las demás»."""
    twice = [_claim("a", 1.0, engine=""), _claim("a", 1.0, engine=""), _claim("b", 1.04)]
    twice = [vd.missing(c.said) for c in twice]
    lines = common.verdict_summary(twice)
    assert "3 afirmaciones" in lines[0]
    assert f"3 «{common.VERDICT[vd.SIN_DATOS]}»" in lines[-1], lines
    assert "Las demás" not in "\n".join(lines) and "juzgadas" not in lines[0], lines
    decided = common.verdict_summary([_claim("a", 1.0), *twice])
    assert "juzgadas" in decided[0] and "Las demás" in decided[-1], decided


def test_a_claim_sentence_has_no_double_comma_and_counts_one_round_in_the_singular():
    """«(cifra calculada ronda a ronda, n = 6 rondas)», never «ronda a ronda,,»; «n = 1 ronda»."""
    said = vd.Said("r", "Una cifra", "una fuente", claimed=1.0, kind="about")
    for n in (1, 2, 6):
        claim = vd.judge(said, Estimate(1.0, 0.9, 1.1, n), detail={"rondas": True})
        text = common.claim_sentence(claim)
        assert ",," not in text and ", e IC" not in text, text
        assert f"n = {n} {'ronda' if n == 1 else 'rondas'}" in text, text
        assert "n = 1 rondas" not in text, text


def test_the_noise_sentence_counts_one_figure_in_the_singular_and_skips_claims_under_load():
    """«la única proporción de esta página», never «las 1 proporciones»; a claim «bajo carga» has an IC
    that does not cover (verdict.BAJO_CARGA), so it says nothing about what this run's noise decides."""
    from dataclasses import replace

    from helpers.view import verdicts

    one = verdicts.resolution_sentence([_ratio(0.9, 1.1)])
    assert "las 1 " not in one and "la única proporción" in one, one
    loaded = replace(_ratio(0.99, 1.01), status=vd.BAJO_CARGA)
    assert verdicts.resolution_sentence([loaded]) == ""


def test_the_smallest_effect_on_a_percentage_has_the_digits_of_its_interval():
    """«±13 puntos» beside «+36 % [+23, +49]», never «±12.70 puntos»; «±2.8» for a narrow one."""
    from helpers.view import verdicts

    assert verdicts.smallest_effect(12.7, "%").startswith("±13 puntos")
    assert verdicts.smallest_effect(2.79, "%").startswith("±2.8 puntos")
    assert verdicts.smallest_effect(1.28, "x").startswith("÷/× 1.28")
    assert verdicts.smallest_effect(9.34, "min").startswith("±9.3 min")  # 09's «2 h», not «±9.34 min»


def test_a_steal_that_rounds_to_zero_is_not_written_as_zero():
    """«hasta el 0.0 % del tiempo de CPU» said nothing: a steal under 0.1 % says so in words."""
    from helpers.view import verdicts

    load = {"mediana": 16.1, "maximo": 17.5, "rondas": 6}
    tiny = verdicts.load_sentence({"carga": {**load, "robo_maximo_pct": 0.04}})
    some = verdicts.load_sentence({"carga": {**load, "robo_maximo_pct": 0.3}})
    assert "0.0 %" not in tiny and "ni el 0.1 %" in tiny, tiny
    assert "hasta el 0.3 %" in some, some


def test_what_a_run_distinguishes_is_explained_once_per_list(monkeypatch):
    """Each judged claim carries its own «distingue ÷/× …» beside its figure; what that means is said
    once, under the list, never after every verdict (issue 41: the repeated verdict tails)."""
    from helpers.view import verdicts

    claims = [_ratio(1 / 1.2, 1.2), _ratio(0.9, 1.1), _ratio(0.99, 1.01)]
    assert all(c.detail.get("resolucion") for c in claims)
    shown = []
    monkeypatch.setattr(common, "markdown", lambda text: shown.append(text))
    common.claims_list(claims)
    text = shown[-1]
    assert (
        text.count("; distingue ÷/× ") == 3 and text.count("lo más pequeño que esta corrida distingue") == 1
    )
    assert "Lo más pequeño que esta corrida distingue:" not in text
    assert verdicts.list_note([vd.missing(claims[0].said)]) == ""  # no interval, no note
