"""The course as a whole, headless: `make course` (python -m helpers.course).

notebooks   which notebooks, in which order, and the parameters each one receives
execute     one notebook through papermill, with plain progress lines and its failing cell
pages       the HTML: each notebook's page, the index (status, machine, engines), the instructor's kit
facts       the kit's figures and worked answers' facts, generated from the latest runs
runner      the whole course and its command line
"""

from .execute import NotebookResult, Reporter, run_notebook, strip_ansi
from .facts import fill, kit_facts
from .notebooks import declared_parameters, discover, notebook_title, parameters_for, quick_profile
from .pages import for_html, render_html, render_instructor_kit, run_metadata, write_index
from .runner import main, run_course

__all__ = [
    "NotebookResult",
    "Reporter",
    "declared_parameters",
    "discover",
    "fill",
    "for_html",
    "kit_facts",
    "main",
    "notebook_title",
    "parameters_for",
    "quick_profile",
    "render_html",
    "render_instructor_kit",
    "run_course",
    "run_metadata",
    "run_notebook",
    "strip_ansi",
    "write_index",
]
