"""Running one notebook headless (papermill) with plain progress lines: which notebook, which cell,
and what the notebook prints, on the terminal and in build/course.log (no escape codes, papermill's
progress bar off). A failing notebook is reported with its failing cell, never raised.
"""

from __future__ import annotations

import datetime as _dt
import io
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .notebooks import notebook_title
from .pages import render_html

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x1b]*\x1b\\|\r")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


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


def _failed_cell(nb) -> tuple[int | None, int | None, str | None]:
    """(execution count, index, 'Tipo: mensaje') of the first cell with an error output."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return cell.get("execution_count"), index, f"{output.get('ename')}: {output.get('evalue')}"
    return None, None, None


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
