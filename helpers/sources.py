"""Where every declared claim comes from: the claims each registered experiment declares (its `SAID`),
with their source, where in it, the figure, the kind of claim and its margin, and, where the declaration
names it (`Said.ref`), the rows of data/reference/<experiment>*.csv the figure comes from.

    python -m helpers.sources      # writes data/reference/SOURCES_CLAIMS.md

tests/core/test_sources.py checks that the file is up to date and that every declared `ref` gives the
claimed figure (a range: the declared bounds).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from . import experiments, reference
from .experiments import verdict as vd
from .view.numbers import fmt_margin, fmt_value

OUTPUT = reference.REFERENCE_DIR / "SOURCES_CLAIMS.md"


# ---------------------------------------------------------------- resolving a Ref
def _select(rows: pd.DataFrame, pairs) -> pd.DataFrame:
    mask = pd.Series(True, index=rows.index)
    for column, value in pairs:
        mask &= rows[column].astype(str) == str(value)
    return rows[mask]


def _one(rows: pd.DataFrame, what: str) -> float | tuple[float, float]:
    if rows.empty:
        raise LookupError(f"ninguna fila de referencia cumple {what}")
    sources = set(rows["source"])
    if sources & reference.RANGE_SOURCES:
        if len(sources) > 1:
            raise LookupError(f"{what} junta un rango con otras fuentes: {sorted(sources)}")
        return float(rows["value"].min()), float(rows["value"].max())
    if len(sources) > 1:
        raise LookupError(f"{what} junta varias fuentes ({sorted(sources)}): cada una es su propia máquina")
    return float(np.median(rows["value"].astype(float)))


def _describe(pairs) -> str:
    return ", ".join(f"{k}={v}" for k, v in pairs)


def figure(ref: vd.Ref, experiment: str) -> float | tuple[float, float]:
    """The figure a Ref names: the median of its rows (one source), or (low, high) for a range source;
    with `over`, the ratio of the two selections (× 100 − 100 with percent=True)."""
    rows = reference.load(ref.experiment or experiment)
    top = _one(_select(rows, ref.select), _describe(ref.select))
    if not ref.over:
        return top
    below_pairs = tuple({**dict(ref.select), **dict(ref.over)}.items())
    bottom = _one(_select(rows, below_pairs), _describe(below_pairs))
    if isinstance(top, tuple) or isinstance(bottom, tuple):
        raise ValueError("una proporción entre rangos no es una cifra publicada: declara el rango")
    value = top / bottom
    return (value - 1) * 100 if ref.percent else value


def matches(said: vd.Said, experiment: str) -> tuple[bool, object]:
    """(does the declared figure equal the reference's?, the reference's figure)."""
    found = figure(said.ref, experiment)
    if isinstance(found, tuple):
        ok = said.bounds is not None and all(
            math.isclose(a, b, rel_tol=said.ref.rtol) for a, b in zip(sorted(said.bounds), found, strict=True)
        )
        return ok, found
    return math.isclose(said.claimed, found, rel_tol=said.ref.rtol), found


# ---------------------------------------------------------------- the declared claims
def declared() -> list[tuple[object, vd.Said]]:
    """(experiment module, Said) for every registered experiment's SAID, in registry order."""
    return [
        (module, said) for module in experiments.all_experiments() for said in getattr(module, "SAID", ())
    ]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip() or "—"


def _figure_text(said: vd.Said) -> str:
    if said.kind == "range" and said.bounds:
        return fmt_margin(tuple(sorted(said.bounds)), said.unit)
    if said.kind in ("at_least", "at_most", "observed") or (
        isinstance(said.claimed, float) and math.isnan(said.claimed)
    ):
        return "—"
    return fmt_value(said.claimed, said.unit)


def _ref_text(said: vd.Said) -> str:
    ref = said.ref
    if ref is None:
        return "—"
    text = f"`{_describe(ref.select)}`"
    if ref.over:
        text += f" ÷ `{_describe(ref.over)}`"
        if ref.percent:
            text += " (en %)"
    if ref.experiment:
        text += f" en `{ref.experiment}`"
    return text


def render() -> str:
    """SOURCES_CLAIMS.md, in Spanish: the table of margins, then one table per experiment."""
    lines = [
        "# Afirmaciones declaradas",
        "",
        "Generado con `python -m helpers.sources` a partir de las declaraciones (`SAID`) de cada experimento: "
        "no se edita a mano. Cada fila es una afirmación que un cuaderno juzga con la regla única "
        "(`helpers/experiments/verdict.py`): la fuente, dónde lo dice, la cifra, el tipo de afirmación y el "
        "margen que sale de ese tipo. «Referencia» nombra las filas de `data/reference/<experimento>*.csv` "
        "de las que sale la cifra, cuando la declaración lo dice (una prueba comprueba que coinciden).",
        "",
        "## Márgenes, uno por tipo de afirmación",
        "",
        "| tipo | cómo lo dice la fuente | qué aceptamos | ejemplo |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{k.name}` | {_cell(k.said)} | {_cell(k.accepted)} | {_cell(k.example)} |"
        for k in vd.MARGINS.values()
    ]
    current = None
    for module, said in declared():
        if module is not current:
            current = module
            lines += [
                "",
                f"## {module.TITLE} (`{module.EXPERIMENT}`, cuaderno `{module.NOTEBOOK}`)",
                "",
                "| clave | afirmación | fuente | dónde | cifra | tipo | margen | referencia |",
                "|---|---|---|---|---|---|---|---|",
            ]
        margin = fmt_margin(said.region, said.unit) if said.kind else "lo toma de otra afirmación"
        lines.append(
            f"| `{said.key}` | {_cell(said.statement)} | {_cell(said.source)} | {_cell(said.where)} | "
            f"{_cell(_figure_text(said))} | {'`' + said.kind + '`' if said.kind else '—'} | {_cell(margin)} | "
            f"{_ref_text(said)} |"
        )
    return "\n".join(lines) + "\n"


def write(path: Path = OUTPUT) -> Path:
    path.write_text(render(), encoding="utf-8")
    return path


def main() -> int:
    path = write()
    print(
        f"Escrito {path.relative_to(reference.REFERENCE_DIR.parent.parent)} ({len(declared())} afirmaciones)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
