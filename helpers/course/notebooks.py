"""The course's notebooks: which ones, in which order, their titles, and what parameters each receives.

Parameters are injected only where a notebook's `parameters` cell declares them (papermill's
inspect_notebook), so a notebook never receives a name it does not know. INTERACTIVO is always False,
so no notebook waits for a widget.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .. import experiments

NOTEBOOK_PATTERN = re.compile(r"^\d{2}_.+\.ipynb$")
ALWAYS = {"INTERACTIVO": False}


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
