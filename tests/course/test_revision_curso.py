"""The course reads as one: the same learning-goals heading, every notebook pointing to the next, default
runs long enough to give every verdict an interval, and rendered pages free of «semilla» and of raw
column names (the shared quick course run)."""

import html
import re

import nbformat
import pytest

from helpers import PROJECT_ROOT, course, results
from helpers.experiments import runner, verdict

NOTEBOOKS = course.discover(PROJECT_ROOT / "notebooks")
MIN_REPETITIONS = 3  # fewer repetitions give an IC that is just [min, max] (or a single point)


def _nb(path):
    return nbformat.read(str(path), as_version=4)


def _number(stem: str) -> int:
    return int(stem.split("_", 1)[0])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_learning_goals_heading_is_the_same_everywhere(path):
    first = _nb(path).cells[0]
    assert first.cell_type == "markdown" and "**Aprenderás a:**" in first.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_ends_pointing_to_the_next(path):
    """The last markdown cell names the next notebook. It may name one that is still being written
    (a gap in the numbering), never skip one that exists; the last notebook points back to 00."""
    last = [c for c in _nb(path).cells if c.cell_type == "markdown"][-1].source
    assert last.lstrip().startswith("## En este cuaderno")
    named = [m for m in re.findall(r"\b(\d\d_[a-z_]+)", last) if m != path.stem]
    assert named, f"{path.stem} no termina señalando el cuaderno siguiente"
    target = _number(named[0])
    mine = _number(path.stem)
    later = [_number(p.stem) for p in NOTEBOOKS if _number(p.stem) > mine]
    if later:
        assert target > mine and not [n for n in later if mine < n < target], (
            f"{path.stem} señala {named[0]} y se salta un cuaderno que existe"
        )
    else:
        assert target == _number(NOTEBOOKS[0].stem)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_default_runs_are_long_enough_for_an_interval(path):
    params = [c.source for c in _nb(path).cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    found = re.search(r"^REPETICIONES\s*=\s*(\d+)", params[0], flags=re.M)
    if found:
        assert int(found.group(1)) >= MIN_REPETITIONS, f"{path.stem}: REPETICIONES por defecto sin IC"


def test_no_user_facing_text_says_semilla():
    """«la semilla» means nothing to a student: the sources are «el capítulo original» or a title."""
    offenders = []
    for path in NOTEBOOKS:
        for cell in _nb(path).cells:
            if cell.cell_type == "markdown" and "semilla" in cell.source.lower():
                offenders.append(path.name)
    for path in (PROJECT_ROOT / "helpers" / "view").glob("*.py"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            prose = re.sub(r"\{[^{}]*\}", "", line)  # f-string expressions are code, not prose
            strings = [s for s in re.findall(r'"([^"]*)"', prose) if not re.fullmatch(r"[a-z_]+", s)]
            if any("semilla" in s.lower() for s in strings):
                offenders.append(f"{path.name}:{n}")
    assert not offenders, offenders


# ---------------------------------------------------------------- the rendered course
RAW = re.compile(r"^[a-z]+(_[a-z0-9]+)+$")


def _headers(page: str) -> list[str]:
    cells = re.findall(r"<th[^>]*>(.*?)</th>", page, flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells]


@pytest.mark.notebook
def test_rendered_pages_have_no_semilla_and_no_raw_column_names():
    from tests.curso_rapido import quick_course

    run = quick_course()
    pages = sorted((run.build / "html").glob("[0-9]*.html"))
    assert pages, run.output[-2000:]
    pages.append(run.build / "html" / "index.html")
    problems = []
    for page in pages:
        problems += [f"{page.name}: {p}" for p in page_problems(page.read_text(encoding="utf-8"))]
    assert not problems, sorted(set(problems))


def page_problems(text: str) -> list[str]:
    """What a demanding reader would mark on a rendered page ([] when nothing): «semilla», raw column
    names, Python reprs (a dict, a list, True/False/None, an empty {} or []), a `nan`, an interval or a
    cell with no figure («[—, —]», «— —»), a double comma, a count of one in the plural («las 1
    proporciones», «n = 1 rondas»), «de el», a decimal comma outside a quotation, and a figure with
    absurd precision (three decimals or more and five significant digits or more: «210.172 MiB»)."""
    problems = []
    visible = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", text, flags=re.S)
    visible = re.sub(r"<[^>]+>", " ", visible)
    if "semilla" in visible.lower().replace("metodo_semilla", ""):
        problems.append("«semilla»")
    raw_names = set(results.COLUMNS) - {"rep"}
    for header in _headers(text):
        if header in raw_names or RAW.match(header):
            problems.append(f"columna «{header}»")
    words = prose(text)
    for repr_ in PYTHON_REPR.findall(words):
        problems.append(f"repr de Python «{repr_}»")
    for name, pattern in SLIPS.items():
        problems += [f"{name} «{m.group(0)}»" for m in pattern.finditer(words)]
    unquoted = re.sub(r"«[^«»]*»", "", words)
    problems += [f"coma decimal «{m.group(0)}»" for m in DECIMAL_COMMA.finditer(unquoted)]
    for figure in PRECISE.findall(words):
        if len(figure.replace(".", "").lstrip("0")) >= 5:
            problems.append(f"precisión absurda «{figure}»")
    return problems


SLIPS = {
    "nan": re.compile(r"(?<![\w-])nan(?![\w-])", flags=re.I),
    "intervalo vacío": re.compile(r"\[—, —\]"),
    "cifra vacía": re.compile(r"— —"),
    "doble coma": re.compile(r",\s*,"),
    "uno en plural": re.compile(r"\b(?:las|los) 1 \w+s\b|\bn = 1 (?:rondas|repeticiones)\b"),
    "«de el»": re.compile(r"\bde el\b"),
    "diccionario o lista vacía": re.compile(r"(?<![\w'\]\[])(?:\{\}|\[\])(?![\w'])"),
}
DECIMAL_COMMA = re.compile(r"(?<![\w,])\d+,\d+(?![\w,])")
PRECISE = re.compile(r"(?<![\d.])\d*\.\d{3,}(?![\d.])")


def test_the_page_check_catches_what_a_reader_would_mark():
    marked = (
        "<p>caben unos 3 700 [—, —]; Podman ×1.15 (IC 95 % de nan a nan); (cifra calculada ronda a ronda,, "
        "n = 1 rondas); la mediana de las 1 proporciones; las cifras de el «experimento 4»; "
        "Parámetros: {}; 0,5 ms; 210.172 MiB</p><table><tr><td>— —</td></tr></table>"
    )
    found = " ".join(page_problems(marked))
    for slip in (
        "[—, —]",
        "nan",
        ",,",
        "n = 1 rondas",
        "las 1 proporciones",
        "de el",
        "{}",
        "0,5",
        "210.172",
    ):
        assert slip in found, (slip, found)
    assert "— —" in found
    clean = (
        "<p>«100,000x mayor», dice el capítulo; 1.26× [1.10, 1.45]; 0.0508 MiB; 14 444 ns; n = 1 ronda; "
        "la única proporción; «sin_red»; del «experimento 4»; [0.03, 0.04]</p>"
    )
    assert page_problems(clean) == [], page_problems(clean)


def test_the_index_writes_durations_counts_and_parameters_as_the_course_does(tmp_path):
    """index.html: «2 min 7 s», never «127 s»; «32 768» PID; no parameters passed is «ninguno», not «{}»."""
    from helpers.course import pages
    from helpers.course.execute import NotebookResult

    done = NotebookResult("08_sistema_vs_vm", "08 · Sistema", status="ok", seconds=127.2)
    meta = {"host": {"limits": {"pid_max": 32768}, "cpu_cores": 2}, "engines": {}}
    target = tmp_path / "index.html"
    pages.write_index(target, [done], meta, quick=True, overrides={}, started="hoy", seconds=420.0)
    text = target.read_text(encoding="utf-8")
    assert page_problems(text) == [], page_problems(text)
    assert "2 min 7 s" in text and "7 min" in text and "127 s" not in text and "420 s" not in text
    assert "32\u202f768" in text and "ninguno" in text


def prose(page: str) -> str:
    """What a reader takes for text on a rendered page: everything but the code cells' source, inline
    code (the parameters papermill injected), code blocks a page shows (.highlight) and scripts. Printed
    output stays."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, "html.parser")
    for tag in soup.select("script, style, code, .highlight, .jp-InputArea, .jp-Cell-inputWrapper"):
        tag.decompose()
    return soup.get_text(" ")


# A dict, list or constant as Python prints it: {'clave': …}, ['a', …], True/False/None standing alone.
PYTHON_REPR = re.compile(r"\{'[^']*': |\['[^']*', |(?<![\w-])(?:True|False|None)(?![\w-])")


def test_the_python_repr_check_catches_raw_dicts_and_constants():
    raw = "es_vm: True, tecnologia: Firecracker, pistas: {'cpuid': 'la CPU anuncia…'}"
    assert len(PYTHON_REPR.findall(raw)) == 2
    assert not PYTHON_REPR.findall("sí; ninguno; Docker 0.70× [0.67, 0.74]; Nonebook")
    cell = (
        "<div class='jp-Cell-inputWrapper'>INTERACTIVO = True</div>"
        "<div class='jp-OutputArea-output'><pre>{'es_vm': True}</pre></div><td><code>X=None</code></td>"
    )
    assert PYTHON_REPR.findall(prose(cell)) == ["{'es_vm': ", "True"]


def test_every_fact_on_the_index_has_a_spanish_label():
    """The index lists this machine's host and engine facts: every key (nested ones too) has a label."""
    from helpers.course import pages

    meta = pages.run_metadata()
    for facts in [meta["host"], *meta["engines"].values()]:
        assert not pages.unlabelled_facts(facts), pages.unlabelled_facts(facts)
    assert pages.unlabelled_facts({"clave_nueva": 1, "grupo": {"otra": 2}}) == [
        "clave_nueva",
        "grupo",
        "otra",
    ]


@pytest.mark.notebook
def test_default_and_quick_verdicts_carry_an_interval():
    """Every verdict the quick course (2 repetitions, fewer than any default) produced that decides
    something (se confirma / no se sostiene) rests on a real interval from at least two repetitions; a
    claim the machine's load left «bajo carga» prints no interval. The same rows judged without their
    per-round load (so whatever load the test machine had) must still produce intervals: the check is
    never vacuous, whatever the load."""
    from helpers import experiments
    from helpers.experiments import load
    from tests.curso_rapido import quick_course

    run = quick_course()
    intervals = 0
    for module in experiments.all_experiments():
        latest = runner.Resultado.latest(module.EXPERIMENT, run.results)
        if latest is None or latest.df.empty:
            continue
        unscreened = {k: v for k, v in latest.meta.items() if k != results.ROUND_LOADS}
        for meta in (latest.meta, unscreened):
            for claim in module.claims(latest.df, meta):
                where = (module.EXPERIMENT, claim.key, claim.n)
                if claim.detail.get("observado"):  # a deterministic outcome: observed, not estimated
                    assert claim.n >= 1 and claim.low == claim.high, where
                    continue
                if claim.status == load.LOADED:
                    assert claim.low != claim.low and claim.high != claim.high, where
                if claim.status in (verdict.SE_CONFIRMA, verdict.NO_SE_SOSTIENE):  # a verdict that decides
                    assert claim.low == claim.low and claim.high == claim.high, where
                    assert claim.low <= claim.high and claim.n >= 2, where
                if meta is unscreened and claim.n >= 2 and claim.low <= claim.high:
                    intervals += 1
    assert intervals


def test_the_index_counts_one_failed_notebook_in_the_singular(tmp_path):
    """«1 de 11 cuadernos falló», never «1 de 11 cuadernos fallaron»; two or more, in the plural."""
    from helpers.course import pages
    from helpers.course.execute import NotebookResult

    meta = {"host": {}, "engines": {}}
    ok = NotebookResult("00_entorno", "00 · Entorno", status="ok", seconds=7.0)
    bad = [NotebookResult(f"0{i}_x", f"0{i} · X", status="failed", seconds=1.0) for i in (1, 2)]
    target = tmp_path / "index.html"
    pages.write_index(target, [ok, bad[0]], meta, quick=True, overrides={}, started="hoy", seconds=8.0)
    assert "1 de 2 cuadernos falló: 01_x." in target.read_text(encoding="utf-8")
    pages.write_index(target, [ok, *bad], meta, quick=True, overrides={}, started="hoy", seconds=9.0)
    assert "2 de 3 cuadernos fallaron: 01_x, 02_x." in target.read_text(encoding="utf-8")
