"""The instructor's kit: the guide and the worked answers, rendered apart from the students' pages; the
parameters papermill injects hidden in the HTML."""

import re

import nbformat

from helpers import PROJECT_ROOT, course

DOCS = PROJECT_ROOT / "docs"
NOTEBOOKS = PROJECT_ROOT / "notebooks"
# Notebooks whose answers this kit owns; the others' authors add theirs from docs/soluciones/_plantilla.md.
OWNED = ["00_entorno", "01_arranque", "02_escala", "03_ejecucion", "90_comparar_clase"]


def _exercises(stem: str) -> list[int]:
    nb = nbformat.read(str(NOTEBOOKS / f"{stem}.ipynb"), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("## Ejercicios"):
            return [int(n) for n in re.findall(r"^(\d+)\. ", cell.source, flags=re.M)]
    return []


def test_every_exercise_has_a_worked_answer():
    for stem in OWNED:
        numbers = _exercises(stem)
        assert numbers, f"{stem} no tiene ejercicios numerados"
        answers = (DOCS / "soluciones" / f"{stem}.md").read_text(encoding="utf-8")
        answered = [int(n) for n in re.findall(r"^## Ejercicio (\d+)", answers, flags=re.M)]
        assert answered == numbers, f"{stem}: ejercicios {numbers}, soluciones {answered}"


def test_other_notebooks_answers_follow_the_template_when_present():
    for path in sorted((DOCS / "soluciones").glob("[0-9]*.md")):
        assert (NOTEBOOKS / f"{path.stem}.ipynb").is_file(), f"{path.name} no corresponde a ningún cuaderno"
        numbers = _exercises(path.stem)
        answered = [
            int(n) for n in re.findall(r"^## Ejercicio (\d+)", path.read_text(encoding="utf-8"), flags=re.M)
        ]
        assert answered == numbers, f"{path.stem}: ejercicios {numbers}, soluciones {answered}"


def test_the_kit_renders_apart_from_the_students_pages(tmp_path):
    target = tmp_path / "docente"
    assert course.render_instructor_kit(target) == target / "index.html"
    index = (target / "index.html").read_text(encoding="utf-8")
    assert "Solo para el profesor" in index and "guia_docente.html" in index
    assert "../index.html" not in index  # nothing leads from the kit back into the students' pages
    for stem in OWNED:
        page = target / "soluciones" / f"{stem}.html"
        assert page.is_file() and "<h2>Ejercicio 1" in page.read_text(encoding="utf-8")
    assert not (target / "soluciones" / "_plantilla.html").exists()
    guide = (target / "guia_docente.html").read_text(encoding="utf-8")
    assert "Plan de 90 minutos" in guide and "<table>" in guide
    assert course.render_instructor_kit(tmp_path / "x", docs_dir=tmp_path / "sin-docs") is None


def test_the_injected_parameters_cell_is_hidden_and_the_declared_one_stays():
    nb = nbformat.v4.new_notebook()
    declared = nbformat.v4.new_code_cell("REPETICIONES = 10")
    declared.metadata["tags"] = ["parameters"]
    injected = nbformat.v4.new_code_cell("# Parameters\nREPETICIONES = 2\n")
    injected.metadata["tags"] = ["injected-parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), declared, injected, nbformat.v4.new_code_cell("x = 1")]
    shown = course.for_html(nb)
    sources = [c.source for c in shown.cells]
    assert "REPETICIONES = 10" in sources and not any("REPETICIONES = 2" in s for s in sources)
    assert len(nb.cells) == 4  # the executed notebook itself is untouched


def test_links_between_notebooks_reach_a_heading_and_point_at_the_html_pages(tmp_path):
    from helpers.course import pages

    found = 0
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        for cell in (c for c in nb.cells if c.cell_type == "markdown"):
            for stem, anchor in re.findall(r"\]\((\d\d_\w+)\.ipynb#([^)]+)\)", cell.source):
                found += 1
                target = nbformat.read(str(NOTEBOOKS / f"{stem}.ipynb"), as_version=4)
                headings = {
                    line.lstrip("#").strip().replace(" ", "-")
                    for c in target.cells
                    if c.cell_type == "markdown"
                    for line in c.source.splitlines()
                    if line.startswith("#")
                }
                assert anchor in headings, f"{path.name}: {stem}#{anchor} no es un título de {stem}"
    assert found >= 7  # «Cómo medimos» is explained once, in 01, and linked from the notebooks that judge
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("[01](01_arranque.ipynb#Cómo-medimos), [x](https://a.b/c.ipynb)")
    ]
    nbformat.write(nb, str(tmp_path / "p.ipynb"))
    pages.render_html(tmp_path / "p.ipynb", tmp_path / "p.html")
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert 'href="01_arranque.html#' in page and "01_arranque.ipynb" not in page
    assert 'href="https://a.b/c.ipynb"' in page  # only links between the course's notebooks change


def test_cells_tagged_detalle_are_folded_in_the_html_page(tmp_path):
    from helpers.course import pages

    nb = nbformat.v4.new_notebook()
    folded = nbformat.v4.new_code_cell("vista.veredictos(resultado)")
    folded.metadata.update(tags=["detalle"], resumen="Todos los veredictos", jupyter={"outputs_hidden": True})
    folded.outputs = [nbformat.v4.new_output("stream", text="una frase larga")]
    shown = nbformat.v4.new_code_cell("resumen(resultado)")
    shown.outputs = [nbformat.v4.new_output("stream", text="en cinco líneas")]
    nb.cells = [shown, folded]
    nbformat.write(nb, str(tmp_path / "p.ipynb"))
    pages.render_html(tmp_path / "p.ipynb", tmp_path / "p.html")
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    details = page.index('<details class="detalle"><summary>Todos los veredictos</summary>')
    assert page.index("en cinco líneas") < details < page.index("una frase larga") < page.index("</details>")
    assert page.count("<details") == 1


def test_the_guide_explains_every_status_the_pages_use():
    """Each status a page can print (view.verdicts.VERDICT, and «observado N veces») is explained in the
    guide's section on the rule, in the words the pages use; a new status fails here until it is."""
    from helpers.view.verdicts import VERDICT

    guide = (DOCS / "guia_docente.md").read_text(encoding="utf-8")
    start = guide.index("## La regla del veredicto")
    section = guide[start : guide.index("\n## ", start + 1)]
    explained = set(re.findall(r"^- \*\*([^*]+)\*\*", section, flags=re.M))
    assert set(VERDICT.values()) <= explained, sorted(set(VERDICT.values()) - explained)
    assert any("observado" in term for term in explained)
