"""Hand-ins are untrusted input: a class folder of hostile hand-ins (paths that climb out of the folder,
absolute paths, links, a zip inside a zip, a meta.json that is not an object, values that are inf,
negative or text, machines named with HTML and with matplotlib's «$…$», a script in the host's CPU)
is read without writing or reading anything outside the folder, every refusal with a Spanish reason,
the honest hand-ins still compared; and notebook 90's page, rendered as `make course` renders it, shows
every hostile string as text: no markup of a hand-in is live, in the HTML or in a real Chromium."""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from html.parser import HTMLParser

import matplotlib
import pandas as pd
import pytest

from helpers import PROJECT_ROOT, clase, results
from helpers.clase import deferred
from helpers.experiments import verdict as vd
from tests.course.test_browser import SCREENSHOTS
from tests.course.test_browser import browser_context as browser_context  # the browser fixture
from tests.course.test_clase import llamadas_rows, write_run

matplotlib.use("Agg")

SCRIPT = "<script>window.__entrega_hostil = 1</script>"
IMG = '<img src=x onerror="window.__entrega_hostil = 2">'
MATH = r"$\frac{a}{b}$ y $x^{"
LINK = "[pincha](javascript:window.__entrega_hostil=3)"
PAYLOADS = ("__entrega_hostil", "onerror", "javascript:")


def _run_files(rows, meta_extra=None, host="pc", experiment="llamadas", run_id="20260101T100000Z-aaaaaa"):
    """raw.csv and meta.json of one run, as bytes."""
    df = pd.DataFrame([dict(zip(results.COLUMNS, (experiment, *r))) for r in rows], columns=results.COLUMNS)
    meta = {
        "experiment": experiment,
        "run_id": run_id,
        "status": "complete",
        "started": "2026-01-01T10:00:00Z",
        "host": {"hostname": host, "cpu_model": "CPU", "cpu_cores": 2, "kernel": "6.1"},
        "engines": {"docker": {"version": "28"}},
    }
    meta.update(meta_extra or {})
    return df.to_csv(index=False).encode(), json.dumps(meta).encode()


def _zip(path, members: dict[str, bytes], links: dict[str, str] = ()):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in dict(links).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)


def build_hostile(tmp_path):
    """A class folder with seven honest machines and every hostile hand-in the issue lists; and a
    folder outside it that a link points at."""
    root = tmp_path / "clase"
    for i in range(1, 8):
        write_run(
            root / f"honesta-{i}", "llamadas", llamadas_rows(host=80 + i, overhead=0.26), host=f"honesta-{i}"
        )
    outside = tmp_path / "fuera"
    write_run(outside / "secreta", "llamadas", llamadas_rows(overhead=5.0), host="secreta")
    # a student's folder with links to a folder and a file outside the class
    linked = root / "con-enlaces"
    write_run(linked, "llamadas", llamadas_rows(host=70, overhead=0.27), host="con-enlaces")
    os.symlink(outside / "secreta", linked / "atajo")
    os.symlink(outside / "secreta" / "llamadas", linked / "llamadas-enlazada")
    os.symlink(tmp_path / "fuera", root / "enlace-a-fuera")
    # a zip with members that climb out, an absolute one, a link, a zip inside, and an honest run
    raw, meta = _run_files(llamadas_rows(host=75, overhead=0.25), host="zip-honesto")
    inner = io.BytesIO()
    _zip(inner, {"otra/llamadas/x/raw.csv": raw, "otra/llamadas/x/meta.json": meta})
    _zip(
        root / "entrega-zip.zip",
        {
            "alumno-zip/llamadas/20260101T100000Z-aaaaaa/raw.csv": raw,
            "alumno-zip/llamadas/20260101T100000Z-aaaaaa/meta.json": meta,
            "alumno-zip/../../escapado.txt": b"fuera",
            "/tmp/absoluto.txt": b"fuera",
            "alumno-zip/dentro.zip": inner.getvalue(),
        },
        {"alumno-zip/enlace": "/etc/passwd"},
    )
    # machines named with HTML and with mathtext, a script in the host's CPU and a link in a reason
    named = root / IMG
    write_run(named, "llamadas", llamadas_rows(host=77, overhead=0.26), host="img")
    meta_path = next(named.glob("llamadas/*/meta.json"))
    data = json.loads(meta_path.read_text())
    data["host"].update(cpu_model=SCRIPT, kernel=LINK, hostname=SCRIPT)
    data["reason"] = LINK
    meta_path.write_text(json.dumps(data))
    write_run(root / MATH, "llamadas", llamadas_rows(host=78, overhead=0.26), host="math")
    # a meta.json that is not an object, and one whose host is not an object
    bad = write_run(root / "meta-lista", "llamadas", llamadas_rows(), host="x")
    (bad / "meta.json").write_text("[1, 2, 3]")
    odd = write_run(root / "meta-rara", "llamadas", llamadas_rows(host=79, overhead=0.26), host="x")
    data = json.loads((odd / "meta.json").read_text())
    data.update(host="no soy un objeto", engines=["docker"], images="nada")
    (odd / "meta.json").write_text(json.dumps(data))
    # values that are inf, negative or text, a round that is not a number, an arm named with HTML
    rows = llamadas_rows(host=81, overhead=0.26)
    rows += [
        ("bare", "", "host", 9, "getpid", "inf", "ns"),
        ("docker", "", "seccomp", 9, "getpid", -5.0, "ns"),
        ("docker", "", "seccomp", 10, "getpid", "mucho", "ns"),
        ("docker", "", "seccomp", "x", "getpid", 3.0, "ns"),
        ("docker", "", SCRIPT, 1, "getpid", 3.0, "ns"),
    ]
    write_run(root / "valores-raros", "llamadas", rows, host="valores-raros")
    # a run that says it belongs to the demonstration class, in a real class
    fake = write_run(root / "dice-demo", "llamadas", llamadas_rows(), host="dice-demo")
    data = json.loads((fake / "meta.json").read_text())
    data["demo"] = True
    (fake / "meta.json").write_text(json.dumps(data))
    return root


@pytest.fixture
def hostile(tmp_path):
    return build_hostile(tmp_path)


def _tree(path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*")}


def reasons(c) -> str:
    return "\n".join(f"{o.what}: {o.reason}" for o in c.skipped)


def test_hostile_hand_ins_are_refused_or_neutralised_and_the_honest_ones_compared(hostile, tmp_path):
    before = _tree(tmp_path)
    c = clase.recolectar(hostile)
    assert _tree(tmp_path) == before  # reading a class writes nothing, anywhere
    text = reasons(c)
    assert "ruta insegura dentro del zip" in text and "escapado.txt" in text and "absoluto.txt" in text
    assert "enlace simbólico dentro del zip" in text
    assert "zip dentro de un zip" in text and "dentro.zip" in text
    assert text.count("es un enlace simbólico: no se sigue") == 3  # two in a folder, one in the class
    assert "meta.json ilegible (no es un objeto JSON)" in text
    assert "clase de demostración" in text and not c.demo
    assert "se descartaron 5 filas" in text and "no es un número finito" in text and "tiempo negativo" in text
    assert "ronda no es un número entero" in text and "caracteres no permitidos" in text
    assert "el nombre de la máquina lleva caracteres no permitidos" in text
    machines = {r.machine for r in c.runs}
    # nothing behind a link was read; the honest hand-ins are all there
    assert "secreta" not in machines and not any(r.meta["host"].get("hostname") == "secreta" for r in c.runs)
    assert {f"honesta-{i}" for i in range(1, 8)} | {"con-enlaces", "alumno-zip"} <= machines
    assert not any(ch in m for m in machines for ch in "<>\"'$\\{}")
    for run in c.runs:  # no markup of a hand-in reaches what the page reads
        shown = json.dumps(run.meta["host"]) + json.dumps(run.meta.get("reason")) + run.origin
        assert "<" not in shown and "$" not in shown, shown
        assert run.df["variant"].map(lambda v: "<" not in v).all()
    odd = next(r for r in c.runs if r.machine == "meta-rara")
    assert odd.meta["host"] == {} and odd.meta["engines"] == {} and odd.meta["images"] == {}
    weird = next(r for r in c.runs if r.machine == "valores-raros")
    assert weird.dropped_rows == 5 and weird.df["value"].ge(0).all()
    # the class still decides, with the honest machines (and every machine that measured enough)
    verdict = deferred.across_cpus(c)
    assert {f"honesta-{i}" for i in range(1, 8)} <= set(verdict.entered)
    assert verdict.status == vd.SE_CONFIRMA


class _Tags(HTMLParser):
    """Every start tag and attribute of a page."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _live(page: str) -> list[str]:
    """What of a hand-in's markup is live in an HTML page: an element or attribute it brought."""
    parser = _Tags()
    parser.feed(page)
    found = []
    for tag, attrs in parser.tags:
        values = " ".join(str(v) for v in attrs.values())
        if any(p in values for p in PAYLOADS) or any(k.startswith("on") for k in attrs):
            found.append(f"<{tag} {attrs}>")
    for script in page.split("<script")[1:]:
        body = script.split("</script>", 1)[0]
        if "__entrega_hostil" in body:
            found.append("<script …__entrega_hostil…>")
    return found


def test_the_page_escapes_every_hostile_string(hostile, monkeypatch):
    """The view's own output, as the notebook shows it: tables as HTML (pandas' Styler), sentences as
    Markdown (rendered by nbconvert's renderer), plot labels without mathtext."""
    import matplotlib.pyplot as plt
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    from helpers.view import clase as vista
    from tests.support import capture_figures

    pages = []
    monkeypatch.setattr(vista, "show", lambda obj: pages.append(obj.to_html()))
    monkeypatch.setattr(vista, "markdown", lambda text: pages.append(markdown2html_mistune(text)))
    figures = capture_figures(monkeypatch)
    c = clase.recolectar(hostile)
    vista.encabezado(c)
    vista.maquinas(c)
    vista.omitidos(c)
    vista.veredictos_diferidos(c)
    vista.diferidos_detalle(c)
    vista.experimentos(c)
    html = "\n".join(pages)
    assert not _live(html), _live(html)[:3]
    assert "&lt;script&gt;" in html or "·script·" in html  # shown as text, never run
    assert figures
    for fig in figures:  # a machine's name, a panel's title: never read as mathtext
        labels = [t for ax in fig.axes for t in (*ax.texts, ax.title)] + [fig._suptitle]
        assert all(t is None or not t.get_parse_math() for t in labels)
        assert not any("$" in t.get_text() for t in labels if t is not None)
    plt.close("all")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Notebook 90 on the hostile class, run and rendered as `make course` does it (papermill, then
    nbconvert with the course's template): (result, build folder, the folder around the class)."""
    from helpers.course.execute import Reporter, run_notebook

    base = tmp_path_factory.mktemp("hostil")
    folder = build_hostile(base)
    before = _tree(base)
    report = Reporter(base / "course.log")
    try:
        result = run_notebook(
            PROJECT_ROOT / "notebooks" / "90_comparar_clase.ipynb",
            base / "build",
            {"CARPETA": str(folder)},
            report,
        )
    finally:
        report.close()
    written = {p for p in _tree(base) - before if not p.startswith(("build", "course.log"))}
    return result, base / "build", written


@pytest.mark.notebook
def test_notebook_90_on_hostile_hand_ins_renders_no_live_markup(rendered):
    result, build, written = rendered
    assert result.ok, result.error
    assert not written, written  # nothing written beside the class folder, nor inside it
    page = (build / "html" / "90_comparar_clase.html").read_text(encoding="utf-8")
    assert "honesta-1" in page and "alumno-zip" in page and "data:image/png" in page
    assert not _live(page), _live(page)[:3]
    executed = (build / "notebooks" / "90_comparar_clase.ipynb").read_text(encoding="utf-8")
    assert '"output_type": "error"' not in executed
    assert not (PROJECT_ROOT / "escapado.txt").exists() and not os.path.exists("/tmp/absoluto.txt")


@pytest.mark.notebook
@pytest.mark.browser
def test_notebook_90_on_hostile_hand_ins_runs_no_script_in_chromium(rendered, browser_context):
    """The same page opened in Debian's Chromium: no script of a hand-in runs, no element it brought is
    in the page, the hostile names are there as text."""
    _, build, _ = rendered
    page = browser_context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto((build / "html" / "90_comparar_clase.html").as_uri())
        page.wait_for_load_state("load")
        assert page.evaluate("typeof window.__entrega_hostil") == "undefined"
        assert page.locator("img[src='x']").count() == 0
        assert page.evaluate("document.querySelectorAll('[onerror]').length") == 0
        assert "honesta-1" in page.inner_text("body")
        page.screenshot(path=str(SCREENSHOTS / "html_90_entregas_hostiles.png"), full_page=False)
        assert not errors, errors[:3]
    finally:
        page.close()


def test_each_layer_alone_keeps_a_hand_ins_markup_dead():
    """The page escapes what it writes even if the reading had let markup through, and the reading
    neutralises it even if the page did not escape: each layer on its own, against the raw payloads
    (which the checker does find live when nothing escapes them)."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    from helpers.clase import untrusted
    from helpers.view import clase as vista

    raw = f"{SCRIPT} {IMG} {LINK}"
    assert _live(markdown2html_mistune(raw))  # the checker sees live markup
    assert not _live(markdown2html_mistune(vista.md(raw)))
    assert not _live(vista._table(pd.DataFrame({raw: [raw]}), raw).to_html())
    assert not _live(markdown2html_mistune(untrusted.text(raw)))
    assert "<a " not in markdown2html_mistune(untrusted.text(raw))
    assert not any(c in untrusted.text(raw) for c in "<>\"'`$\\[]")
    assert untrusted.machine_name(MATH).count("$") == 0 and untrusted.machine_name(IMG).count("<") == 0
