"""What a person sees: the widget panel, seaborn plots, tables and Spanish sentences.

A view never launches a container: it calls an experiment module's run() and renders its results.
"""

from __future__ import annotations

from ..errors import ErrorDelCurso


def _show_course_errors_in_spanish() -> None:
    """In a notebook, an ErrorDelCurso (a bad parameter, an engine that failed) shows as its Spanish
    sentence alone, not as a Python traceback; the cell still fails, so papermill and `make course`
    still see the error. The engine's own words stay in meta.json and the run's registro.log."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return

    def handler(shell, etype, value, tb, tb_offset=None):
        shell._showtraceback(etype, value, [f"Error: {value}"])

    shell.set_custom_exc((ErrorDelCurso,), handler)


_show_course_errors_in_spanish()
