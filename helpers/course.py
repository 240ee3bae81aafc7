"""Headless course run: `make course` (python -m helpers.course [--rapido] [--parametros JSON]).

Every notebook in notebooks/ whose name starts with two digits and an underscore runs in name order
with papermill into build/notebooks/, then nbconvert renders it to build/html/. build/html/index.html
gives a Spanish overview: one link per notebook, its status (ok / fallido, with the failing cell) and
the host and engine metadata of the run. One failing notebook does not stop the others; the command
exits non-zero and names the failures.

Parameters are injected only where a notebook's `parameters` cell declares them (papermill's
inspect_notebook), so a notebook never receives a name it does not know. INTERACTIVO is always False
and CURSO_SIN_INTERFAZ=1 is set for the kernels, so no notebook waits for a widget.

Progress goes to the terminal and to build/course.log as plain lines (no escape codes, papermill's
progress bar off): which notebook, which cell, and what the notebook prints.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import html
import io
import json
import logging
import os
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .paths import PROJECT_ROOT

NOTEBOOK_PATTERN = re.compile(r"^\d{2}_.+\.ipynb$")
ALWAYS = {"INTERACTIVO": False}
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x1b]*\x1b\\|\r")
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def discover(notebooks_dir: Path | str) -> list[Path]:
    """Course notebooks in name order: 00_*.ipynb, 01_*.ipynb, ..., 90_*.ipynb."""
    folder = Path(notebooks_dir)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and NOTEBOOK_PATTERN.match(p.name))


def declared_parameters(path: Path) -> dict:
    """{name: default as source text} of the notebook's `parameters` cell ({} if it has none)."""
    import papermill as pm

    return {name: info.get("default") for name, info in pm.inspect_notebook(str(path)).items()}


def quick_profile(path: Path) -> dict:
    """The quick profile of the experiment this notebook runs (its module's QUICK), or {}."""
    from . import experiments

    module = experiments.by_notebook(Path(path).stem)
    return dict(module.QUICK) if module is not None else {}


def parameters_for(path: Path, *, quick: bool, overrides: dict) -> dict:
    """What to inject into one notebook: only names its parameters cell declares."""
    declared = declared_parameters(path)
    wanted = {**(quick_profile(path) if quick else {}), **overrides, **ALWAYS}
    return {name: value for name, value in wanted.items() if name in declared}


def notebook_title(path: Path) -> str:
    """The first Markdown heading of a notebook, or its file name."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", "")).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return Path(path).stem


# ---------------------------------------------------------------- progress
class Reporter:
    """Plain progress lines on the terminal and in a log file."""

    def __init__(self, log_path: Path, stream=None):
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(log_path, "w", encoding="utf-8")
        self._stream = stream or sys.stdout

    def __call__(self, line: str) -> None:
        stamp = _dt.datetime.now().strftime("%H:%M:%S")
        for part in strip_ansi(line).splitlines() or [""]:
            text = f"{stamp} {part}"
            print(text, file=self._stream, flush=True)
            self._log.write(text + "\n")
        self._log.flush()

    def close(self) -> None:
        self._log.close()


class _LineWriter(io.TextIOBase):
    """A file-like object for papermill's stdout_file: what the kernel prints, line by line,
    prefixed and without escape codes."""

    def __init__(self, report: Reporter, prefix: str):
        self.report = report
        self.prefix = prefix
        self._buffer = ""

    def write(self, text: str) -> int:
        self._buffer += text
        *lines, self._buffer = self._buffer.split("\n")
        for line in lines:
            line = strip_ansi(line).rstrip()
            if line:
                self.report(f"{self.prefix}   | {line}")
        return len(text)

    def flush(self) -> None:
        pass


def _cell_label(cell) -> str:
    if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
        return (
            "(parámetros inyectados) "
            + "; ".join(
                line.strip() for line in cell.source.splitlines() if line.strip() and not line.startswith("#")
            )[:80]
        )
    for line in cell.source.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line if len(line) <= 60 else line[:57] + "..."
    return "(celda vacía)"


# ---------------------------------------------------------------- one notebook
@dataclass
class NotebookResult:
    name: str
    title: str
    status: str = "pendiente"  # ok / fallido
    seconds: float = 0.0
    parameters: dict = field(default_factory=dict)
    failed_cell: int | None = None  # execution count (In [N]) of the failing cell
    failed_cell_index: int | None = None
    error: str | None = None
    executed: str | None = None  # path relative to build/
    html: str | None = None  # path relative to build/html/

    @property
    def ok(self) -> bool:
        return self.status == "ok"


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


def _failed_cell(nb) -> tuple[int | None, int | None, str | None]:
    """(execution count, index, 'Tipo: mensaje') of the first cell with an error output."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return cell.get("execution_count"), index, f"{output.get('ename')}: {output.get('evalue')}"
    return None, None, None


def for_html(nb):
    """A copy for HTML: widget outputs keep only their text fallback, no widget state (so the page
    never tries to load the widget manager from the network), no papermill banner in English, and no
    cell of the parameters papermill injected (the notebook's own `parameters` cell stays; the index
    lists the injected values)."""
    import copy

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
    target.write_text(body, encoding="utf-8")


def _kernel_manager_class():
    """The kernel manager papermill uses, minus the SIGINT it sends a kernel before shutting it down.

    jupyter_client (7 and later) interrupts a kernel before asking it to shut down. When the notebook
    has finished, that SIGINT can land while the kernel is still winding up its last message (a loaded
    machine makes that likely), and ipykernel then logs «KeyboardInterrupt caught in kernel» on its
    stderr, which `make course` inherits and prints, although nothing was interrupted. A finished
    notebook has nothing to interrupt: shut it down directly (a kernel that does not stop within the
    grace period is still killed). Cell timeouts interrupt through interrupt_kernel, unchanged."""
    from jupyter_client.manager import AsyncKernelManager

    class CourseKernelManager(AsyncKernelManager):
        async def _async_interrupt_kernel(self) -> None:
            if self.shutting_down:
                return
            await super()._async_interrupt_kernel()

    return CourseKernelManager


def run_notebook(
    path: Path, build: Path, parameters: dict, report: Reporter, *, timeout: float | None = None
) -> NotebookResult:
    import nbformat
    import papermill as pm

    name = path.stem
    result = NotebookResult(name=name, title=notebook_title(path), parameters=parameters)
    executed = build / "notebooks" / path.name
    executed.parent.mkdir(parents=True, exist_ok=True)
    tag = f"[{name}]"
    shown = ", ".join(f"{k}={v!r}" for k, v in parameters.items()) or "ninguno"
    report(f"{tag} ejecutando (parámetros: {shown})")
    total = sum(1 for c in nbformat.read(str(path), as_version=4).cells if c.cell_type == "code")
    total += 1 if parameters else 0  # papermill's injected-parameters cell

    state = {"n": 0}

    def on_cell_start(cell=None, cell_index=None, **_):
        if cell is not None and cell.cell_type == "code":
            state["n"] += 1
            report(f"{tag} celda {state['n']}/{total}: {_cell_label(cell)}")

    start = time.monotonic()
    out = _LineWriter(report, tag)
    try:
        pm.execute_notebook(
            str(path),
            str(executed),
            parameters=parameters,
            progress_bar=False,
            log_output=False,
            stdout_file=out,
            stderr_file=out,
            cwd=str(path.parent),
            kernel_name="python3",
            execution_timeout=timeout,
            on_cell_start=on_cell_start,
            kernel_manager_class=_kernel_manager_class(),
            # the kernel's own start-up warnings are not course progress
            extra_arguments=["--IPKernelApp.log_level=ERROR"],
        )
        result.status = "ok"
    except Exception as exc:  # noqa: BLE001 - a failing notebook must not stop the course
        result.status = "fallido"
        result.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    out.write("\n")
    result.seconds = round(time.monotonic() - start, 1)
    if executed.is_file():
        result.executed = str(executed.relative_to(build))
        nb = nbformat.read(str(executed), as_version=4)
        count, index, error = _failed_cell(nb)
        if count is not None or index is not None:
            result.status = "fallido"
            result.failed_cell, result.failed_cell_index = count, index
            result.error = error or result.error
        report(f"{tag} HTML")
        try:
            html_path = build / "html" / f"{name}.html"
            render_html(executed, html_path)
            result.html = html_path.name
        except Exception as exc:  # noqa: BLE001
            report(f"{tag} no se pudo generar el HTML: {type(exc).__name__}: {exc}")
            if result.ok:
                result.status, result.error = "fallido", f"HTML: {type(exc).__name__}: {exc}"
    if result.ok:
        report(f"{tag} ok en {result.seconds:.0f} s")
    else:
        where = f" en la celda In [{result.failed_cell}]" if result.failed_cell else ""
        report(f"{tag} FALLÓ{where} tras {result.seconds:.0f} s: {result.error}")
    return result


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


def _kit_page(title: str, body: str, back: str) -> str:
    return (
        f"<!DOCTYPE html>\n<html lang='es'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{KIT_STYLE}</style></head><body>{KIT_NOTICE}{body}"
        f"<p><a href='{back}'>Volver al índice del profesor</a></p></body></html>\n"
    )


def render_instructor_kit(target: Path, docs_dir: Path | None = None) -> str | None:
    """docs/guia_docente.md and docs/soluciones/*.md (not the template, `_*.md`) rendered into
    target/ (build/html/docente/) with an index. Returns the index's path relative to build/html/,
    or None when there are no docs."""
    import mistune

    docs_dir = Path(docs_dir or DOCS_DIR)
    guide = docs_dir / "guia_docente.md"
    solutions = sorted(p for p in (docs_dir / "soluciones").glob("*.md") if not p.name.startswith("_"))
    if not guide.is_file() and not solutions:
        return None
    target.mkdir(parents=True, exist_ok=True)
    links = []
    render = mistune.create_markdown(plugins=["table"])
    for source, out in ([(guide, target / "guia_docente.html")] if guide.is_file() else []) + [
        (p, target / "soluciones" / f"{p.stem}.html") for p in solutions
    ]:
        text = source.read_text(encoding="utf-8")
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
        _kit_page("Para el profesor", f"<h1>Para el profesor</h1><ul>{items}</ul>", "../index.html"),
        encoding="utf-8",
    )
    return f"{target.name}/index.html"


# ---------------------------------------------------------------- index.html
def run_metadata() -> dict:
    """Host and engine facts of the machine that ran the course."""
    from . import engines, system

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
    "cgroup_version": "versión de cgroups",
    "python": "Python",
    "is_root": "root",
    "engine": "motor",
    "server_version": "versión del servidor",
    "client_version": "versión del cliente",
    "api_version": "versión de la API",
    "runtime": "runtime",
    "runtime_version": "versión del runtime",
    "storage_driver": "almacenamiento",
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
    return str(value)


def _facts_table(facts: dict) -> str:
    rows = []
    for key, value in facts.items():
        label = FACT_LABELS.get(key, key)
        if isinstance(value, dict):
            value = ", ".join(f"{k}: {v}" for k, v in value.items() if v not in (None, "", [], {}))
        else:
            value = _fact_value(key, value)
        rows.append(f"<tr><th>{html.escape(label)}</th><td>{html.escape(value)}</td></tr>")
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
    docente: str | None = None,
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
            f"<td>{status}</td><td>{r.seconds:.0f} s</td><td><code>{html.escape(params)}</code></td></tr>"
        )
    failed = [r for r in results if not r.ok]
    summary = (
        f"Los {len(results)} cuadernos terminaron bien."
        if not failed
        else f"{len(failed)} de {len(results)} cuadernos fallaron: {', '.join(r.name for r in failed)}."
    )
    profile = "rápido (pocas repeticiones, solo para probar el recorrido)" if quick else "completo"
    engines_html = "".join(
        f"<h3>{html.escape(name.capitalize())}</h3>{_facts_table(info)}"
        for name, info in meta.get("engines", {}).items()
    )
    kit = (
        f"<h2>Para el profesor</h2><p id='docente'>La guía docente (plan de 90 minutos, qué esperar en "
        f"cada tipo de máquina, qué decir cuando un resultado contradice al capítulo) y las soluciones de los "
        f"ejercicios están en <a href='{html.escape(docente)}'>el material del profesor</a>. No se reparte a "
        f"los estudiantes.</p>"
        if docente
        else ""
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
perfil <b>{profile}</b>, en {seconds:.0f} s. Los controles interactivos solo aparecen como texto:
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
<p>Parámetros pasados a todos los cuadernos: <code>{html.escape(json.dumps(overrides, ensure_ascii=False))}</code>
(cada cuaderno recibe solo los que declara en su celda <code>parameters</code>).</p>
{kit}
</body>
</html>
"""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")


# ---------------------------------------------------------------- the whole course
def run_course(
    *,
    notebooks_dir: Path | str | None = None,
    build: Path | str | None = None,
    quick: bool = False,
    overrides: dict | None = None,
    only: list[str] | None = None,
    timeout: float | None = None,
    stream=None,
) -> list[NotebookResult]:
    notebooks_dir = Path(notebooks_dir or PROJECT_ROOT / "notebooks")
    build = Path(build or PROJECT_ROOT / "build")
    overrides = dict(overrides or {})
    saved_env = {k: os.environ.get(k) for k in ("CURSO_SIN_INTERFAZ", "MPLBACKEND", "PYTHONPATH")}
    os.environ["CURSO_SIN_INTERFAZ"] = "1"  # inherited by every kernel: never wait for a widget
    # Every kernel imports the helpers of this checkout (a second working tree, a clone), not whatever
    # copy the virtual environment was installed from.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), saved_env["PYTHONPATH"]]))
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    logging.getLogger("papermill").setLevel(logging.WARNING)
    report = Reporter(build / "course.log", stream)
    started = _dt.datetime.now(_dt.timezone.utc)
    t0 = time.monotonic()
    try:
        paths = discover(notebooks_dir)
        if only:
            paths = [p for p in paths if any(p.stem.startswith(o) or p.name == o for o in only)]
        report(
            f"Curso: {len(paths)} cuadernos en {notebooks_dir} -> {build}"
            + (" (perfil rápido)" if quick else "")
        )
        if not paths:
            report("No hay cuadernos que ejecutar.")
        planned = [(p, parameters_for(p, quick=quick, overrides=overrides)) for p in paths]
        used = {name for _, params in planned for name in params}
        unknown = sorted(set(overrides) - used)
        if unknown:
            report(f"Aviso: ningún cuaderno declara {', '.join(unknown)}; no se inyecta.")
        results = []
        for number, (path, params) in enumerate(planned, 1):
            report(f"== {number}/{len(planned)} {path.name}")
            results.append(run_notebook(path, build, params, report, timeout=timeout))
        report("Metadatos de la máquina y los motores")
        meta = run_metadata()
        elapsed = time.monotonic() - t0
        docente = render_instructor_kit(build / "html" / "docente")
        write_index(
            build / "html" / "index.html",
            results,
            meta,
            quick=quick,
            overrides=overrides,
            started=f"{started:%Y-%m-%d %H:%M} UTC",
            seconds=elapsed,
            docente=docente,
        )
        (build / "course.json").write_text(
            json.dumps(
                {
                    "started": started.isoformat(timespec="seconds"),
                    "seconds": round(elapsed, 1),
                    "quick": quick,
                    "overrides": overrides,
                    "notebooks": [asdict(r) for r in results],
                    **meta,
                },
                indent=2,
                ensure_ascii=False,
                default=str,
            ),
            encoding="utf-8",
        )
        failed = [r for r in results if not r.ok]
        report(f"Índice: {build / 'html' / 'index.html'}")
        if failed:
            report(
                f"FALLARON {len(failed)} de {len(results)} cuadernos: "
                + "; ".join(
                    f"{r.name} (celda In [{r.failed_cell}])" if r.failed_cell else r.name for r in failed
                )
            )
        else:
            report(f"Listo: {len(results)} cuadernos ok en {elapsed:.0f} s.")
        return results
    finally:
        report.close()
        for key, value in saved_env.items():  # restore the caller's environment
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.course",
        description="Ejecuta todos los cuadernos del curso sin interfaz y genera el HTML en build/html/.",
    )
    parser.add_argument(
        "--rapido",
        action="store_true",
        help="perfil rápido: pocas repeticiones, para probar el recorrido en un par de minutos",
    )
    parser.add_argument(
        "--parametros",
        default="{}",
        metavar="JSON",
        help="parámetros para todos los cuadernos, p. ej. '{\"REPETICIONES\": 5}'; cada "
        "cuaderno recibe solo los que declara",
    )
    parser.add_argument(
        "--solo", nargs="*", metavar="CUADERNO", help="ejecutar solo estos (p. ej. 01 02_escala)"
    )
    parser.add_argument("--cuadernos", default=None, help="carpeta de los cuadernos (por defecto notebooks/)")
    parser.add_argument("--salida", default=None, help="carpeta de salida (por defecto build/)")
    parser.add_argument(
        "--limite-celda", type=float, default=None, metavar="S", help="tiempo máximo por celda, en segundos"
    )
    args = parser.parse_args(argv)
    try:
        overrides = json.loads(args.parametros or "{}")
        if not isinstance(overrides, dict):
            raise ValueError("debe ser un objeto JSON")
    except ValueError as exc:
        print(f"--parametros no es un objeto JSON válido ({exc}): {args.parametros}", file=sys.stderr)
        return 2
    results = run_course(
        notebooks_dir=args.cuadernos,
        build=args.salida,
        quick=args.rapido,
        overrides=overrides,
        only=args.solo,
        timeout=args.limite_celda,
    )
    if not results:
        return 1
    return 1 if any(not r.ok for r in results) else 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
    sys.exit(130)
