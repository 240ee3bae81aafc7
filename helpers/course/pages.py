"""The course's HTML: each executed notebook as a page (build/html/<notebook>.html), the index with
every notebook's status and the machine's facts (build/html/index.html), and the instructor's kit, built
apart (build/docente/): nothing under build/html/ links to it, so the folder handed to students is the
students' alone.
"""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .. import engines, system
from ..paths import PROJECT_ROOT
from ..view.numbers import fmt_duration, num
from .facts import fill, kit_facts

if TYPE_CHECKING:  # execute imports render_html from here
    from .execute import NotebookResult

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"


# ---------------------------------------------------------------- one notebook
def _spanish_error_banner(nb) -> None:
    """papermill marks a failed notebook with two English notes (a banner on top, and an anchor just
    before the failing cell): say them in Spanish, keeping the anchor."""
    style = "color:red; font-family:Helvetica Neue, Helvetica, Arial, sans-serif; font-size:2em;"
    for cell in nb.cells:
        if "papermill-error-cell-tag" not in cell.get("metadata", {}).get("tags", []):
            continue
        if 'id="papermill-error-cell"' in cell.source:
            cell.source = (
                f'<span id="papermill-error-cell" style="{style}">'
                "La ejecución se detuvo aquí por un error:</span>"
            )
        else:
            count = re.search(r"In \[(\d+)\]", cell.source)
            where = f"la celda In [{count.group(1)}]" if count else "una celda"
            cell.source = (
                f'<span style="{style}">Hubo un error en <a href="#papermill-error-cell">{where}</a>; '
                "las celdas siguientes no se ejecutaron.</span>"
            )


def for_html(nb):
    """A copy for HTML: widget outputs keep only their text fallback, no widget state (so the page
    never tries to load the widget manager from the network), no papermill banner in English, and no
    cell of the parameters papermill injected (the notebook's own `parameters` cell stays; the index
    lists the injected values)."""
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data")
            if data and WIDGET_MIME in data:
                data.pop(WIDGET_MIME)
                data.setdefault("text/plain", "(control interactivo: solo funciona en JupyterLab)")
    _spanish_error_banner(nb)
    return nb


def render_html(executed: Path, target: Path) -> None:
    import nbformat
    from nbconvert import HTMLExporter

    nb = for_html(nbformat.read(str(executed), as_version=4))
    exporter = HTMLExporter(
        template_name="curso", extra_template_basedirs=[str(TEMPLATE_DIR)], language_code="es"
    )
    body, _ = exporter.from_notebook_node(nb)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html_links(body), encoding="utf-8")


NOTEBOOK_LINK = re.compile(r'href="(\d\d_\w+)\.ipynb(#[^"]*)?"')


def html_links(body: str) -> str:
    """Links between notebooks (`01_arranque.ipynb#Cómo-medimos`, what works in JupyterLab) pointed at the
    rendered pages beside this one (`01_arranque.html#…`)."""
    return NOTEBOOK_LINK.sub(lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', body)


# ---------------------------------------------------------------- the instructor's kit
DOCS_DIR = PROJECT_ROOT / "docs"
KIT_STYLE = """body { font-family: system-ui, sans-serif; max-width: 50em; margin: 2em auto; padding: 0 1em;
color: #222; line-height: 1.5; } table { border-collapse: collapse; } td, th { border: 1px solid #ccc;
padding: .3em .6em; text-align: left; vertical-align: top; } code { background: #f4f4f4; }
.aviso { background: #fff6d6; border-left: 4px solid #c90; padding: .5em 1em; }"""
KIT_NOTICE = (
    "<p class='aviso'>Solo para el profesor: guía de la clase y soluciones de los ejercicios. "
    "No forma parte de las copias de los estudiantes.</p>"
)


def _kit_page(title: str, body: str, back: str | None) -> str:
    """One page of the kit; `back`, the link to the kit's index (None on the index itself)."""
    link = f"<p><a href='{back}'>Volver al índice del profesor</a></p>" if back else ""
    return (
        f"<!DOCTYPE html>\n<html lang='es'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{KIT_STYLE}</style></head><body>{KIT_NOTICE}{body}{link}</body></html>\n"
    )


def render_instructor_kit(
    target: Path, docs_dir: Path | None = None, *, results_root=None, facts: dict | None = None
) -> Path | None:
    """docs/guia_docente.md and docs/soluciones/*.md (not the template, `_*.md`) rendered into
    target/ (build/docente/, beside the students' build/html/ and never linked from it) with an index,
    each `{{clave}}` filled with its fact from the latest runs under `results_root` (course.facts).
    Returns the index's path, or None when there are no docs."""
    import mistune

    docs_dir = Path(docs_dir or DOCS_DIR)
    guide = docs_dir / "guia_docente.md"
    solutions = sorted(p for p in (docs_dir / "soluciones").glob("*.md") if not p.name.startswith("_"))
    if not guide.is_file() and not solutions:
        return None
    target.mkdir(parents=True, exist_ok=True)
    facts = kit_facts(results_root) if facts is None else facts
    links = []
    render = mistune.create_markdown(plugins=["table"])
    for source, out in ([(guide, target / "guia_docente.html")] if guide.is_file() else []) + [
        (p, target / "soluciones" / f"{p.stem}.html") for p in solutions
    ]:
        text = fill(source.read_text(encoding="utf-8"), facts)
        title = next(
            (line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")), source.stem
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        back = "index.html" if out.parent == target else "../index.html"
        out.write_text(_kit_page(title, render(text), back), encoding="utf-8")
        links.append((out.relative_to(target).as_posix(), title))
    items = "".join(
        f"<li><a href='{html.escape(href)}'>{html.escape(title)}</a></li>" for href, title in links
    )
    (target / "index.html").write_text(
        _kit_page("Para el profesor", f"<h1>Para el profesor</h1><ul>{items}</ul>", None),
        encoding="utf-8",
    )
    return target / "index.html"


# ---------------------------------------------------------------- index.html
def run_metadata() -> dict:
    """Host and engine facts of the machine that ran the course."""
    meta = {"host": system.host_metadata(), "engines": {}}
    for name in engines.CONTAINER_ENGINES:
        try:
            engine = engines.get_engine(name)
            ok, why = engine.availability()
            meta["engines"][name] = engine.info() if ok else {"disponible": False, "motivo": why}
        except Exception as exc:  # noqa: BLE001 - metadata must never stop the course
            meta["engines"][name] = {"error": f"{type(exc).__name__}: {exc}"}
    return meta


FACT_LABELS = {
    "hostname": "nombre de la máquina",
    "os": "sistema",
    "kernel": "kernel",
    "architecture": "arquitectura",
    "cpu_model": "CPU",
    "cpu_cores": "núcleos",
    "memory_total_bytes": "memoria total",
    "memory_available_bytes": "memoria libre",
    "limits": "límites del kernel",
    "pid_max": "PID que reparte el kernel (kernel.pid_max)",
    "cgroup_version": "versión de cgroups",
    "python": "Python",
    "is_root": "root",
    "engine": "motor",
    "server_version": "versión del servidor",
    "client_version": "versión del cliente",
    "api_version": "versión de la API",
    "runtime": "runtime",
    "runtime_version": "versión del runtime",
    "storage_driver": "controlador de almacenamiento",
    "storage": "capa de almacenamiento",
    "storage_backing": "sistema de archivos bajo la capa",
    "security_options": "opciones de seguridad",
    "network_backend": "red de los contenedores",
    "network_stack": "pila de red",
    "rootless": "sin root (rootless)",
    "user": "usuario",
    "virtualization": "virtualización",
    "cgroup_driver": "controlador de cgroups",
    "workarounds": "arreglos aplicados",
    "disponible": "disponible",
    "motivo": "motivo",
    "error": "error",
}


def _fact_value(key: str, value) -> str:
    if key.endswith("_bytes") and isinstance(value, (int, float)):
        return f"{value / 2**30:.1f} GiB"
    if isinstance(value, bool):
        return "sí" if value else "no"
    if isinstance(value, (list, tuple)):
        return "; ".join(map(str, value)) or "ninguno"
    if isinstance(value, int):
        return num(value)  # «32 768», as every count of the course
    return str(value)


def unlabelled_facts(facts: dict) -> list[str]:
    """The keys of `facts` (nested too) that the index would show without a Spanish label."""
    missing = []
    for key, value in facts.items():
        if key not in FACT_LABELS:
            missing.append(key)
        if isinstance(value, dict) and "descripcion" not in value:
            missing += unlabelled_facts(value)
    return missing


def _fact_cell(key: str, value) -> str:
    if isinstance(value, dict):
        # A group that carries its own Spanish sentence (the virtualization check) shows that sentence;
        # any other group is a small table of its own, labelled like the rest.
        return str(value["descripcion"]) if "descripcion" in value else ""
    return _fact_value(key, value)


def _facts_table(facts: dict) -> str:
    rows = []
    for key, value in facts.items():
        label = FACT_LABELS.get(key, key)
        if isinstance(value, dict) and "descripcion" not in value:
            cell = _facts_table({k: v for k, v in value.items() if v not in (None, "", [], {})})
        else:
            cell = html.escape(_fact_cell(key, value))
        rows.append(f"<tr><th>{html.escape(label)}</th><td>{cell}</td></tr>")
    return "<table class='facts'>" + "".join(rows) + "</table>"


def write_index(
    target: Path,
    results: list[NotebookResult],
    meta: dict,
    *,
    quick: bool,
    overrides: dict,
    started: str,
    seconds: float,
) -> None:
    rows = []
    for r in results:
        link = f"<a href='{html.escape(r.html)}'>{html.escape(r.name)}</a>" if r.html else html.escape(r.name)
        if r.ok:
            status = "<span class='ok'>ok</span>"
        else:
            cell = ""
            if r.failed_cell is not None:
                anchor = f"{html.escape(r.html)}#papermill-error-cell" if r.html else ""
                cell = (
                    f" en la <a href='{anchor}'>celda In [{r.failed_cell}]</a>"
                    if anchor
                    else f" en la celda In [{r.failed_cell}]"
                )
            status = f"<span class='fallido'>fallido</span>{cell}: <code>{html.escape(r.error or '?')}</code>"
        params = ", ".join(f"{k}={v!r}" for k, v in r.parameters.items()) or "—"
        rows.append(
            f"<tr class='{'ok' if r.ok else 'fallido'}' data-notebook='{html.escape(r.name)}' "
            f"data-status='{html.escape(r.status)}'><td>{link}</td><td>{html.escape(r.title)}</td>"
            f"<td>{status}</td><td>{fmt_duration(r.seconds)}</td><td><code>{html.escape(params)}</code></td></tr>"
        )
    failed = [r for r in results if not r.ok]
    summary = (
        f"Los {len(results)} cuadernos terminaron bien."
        if not failed
        else f"{len(failed)} de {len(results)} cuadernos {'falló' if len(failed) == 1 else 'fallaron'}: "
        f"{', '.join(r.name for r in failed)}."
    )
    passed = (
        f"<code>{html.escape(', '.join(f'{k}={v!r}' for k, v in overrides.items()))}</code>"
        if overrides
        else "ninguno"
    )
    profile = "rápido (pocas repeticiones, solo para probar el recorrido)" if quick else "completo"
    engines_html = "".join(
        f"<h3>{html.escape(name.capitalize())}</h3>{_facts_table(info)}"
        for name, info in meta.get("engines", {}).items()
    )
    page = f"""<!DOCTYPE html>
<html lang="es">
<head>
<meta charset="utf-8">
<title>Contenedores: LAUNCH vs RUNNING — resultados del curso</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: .3em .6em; text-align: left; vertical-align: top; }}
.ok {{ color: #17653a; font-weight: bold; }}
.fallido {{ color: #b00020; font-weight: bold; }}
tr.fallido td {{ background: #fff0f0; }}
.facts th {{ font-weight: normal; color: #555; }}
</style>
</head>
<body>
<h1>Contenedores: LAUNCH vs RUNNING</h1>
<p>Este módulo mide, en una máquina real, cuánto cuesta <b>arrancar</b> un contenedor (costo de LAUNCH)
y cuánto cuesta <b>ejecutar</b> trabajo dentro de él (costo de ejecución, RUNNING), frente a bare metal
(sin contenedor), con Docker y con Podman. Cada cuaderno resume sus mediciones con la mediana, el rango
intercuartílico (IQR) y el intervalo de confianza (IC 95 %), y compara con la referencia del curso
mediante proporciones, porque los tiempos absolutos cambian de una máquina a otra.</p>
<p>Estas páginas son las copias ejecutadas sin interfaz (papermill) el {html.escape(started)}, con el
perfil <b>{profile}</b>, en {fmt_duration(seconds)}. Los controles interactivos solo aparecen como texto:
para usarlos, abre los cuadernos en JupyterLab.</p>
<h2>Cuadernos</h2>
<p id="resumen">{html.escape(summary)}</p>
<table id="cuadernos">
<tr><th>cuaderno</th><th>título</th><th>estado</th><th>duración</th><th>parámetros inyectados</th></tr>
{"".join(rows)}
</table>
<h2>La máquina de esta ejecución</h2>
{_facts_table(meta.get("host", {}))}
<h2>Motores</h2>
{engines_html}
<p>Parámetros pasados a todos los cuadernos: {passed}
(cada cuaderno recibe solo los que declara en su celda <code>parameters</code>).</p>
</body>
</html>
"""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
