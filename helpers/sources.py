"""Where every declared claim comes from: the claims each registered experiment declares (its `SAID`),
with their source, where in it, the figure, the kind of claim and its margin, and, where the declaration
names it (`Said.ref`), the rows of data/reference/<experiment>*.csv the figure comes from.

    python -m helpers.sources      # writes data/reference/SOURCES_CLAIMS.md

tests/core/test_sources.py checks that the file is up to date, that every declared `ref` gives the
claimed figure (a range: the declared bounds), and that every claim's source is an entry of
data/reference/SOURCES.md, flagged second-hand on the page exactly when SOURCES.md says so (`problems`).
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from . import experiments, reference
from .experiments import verdict as vd
from .experiments.anatomia.claims import SOURCE as IDEA_SOURCE
from .experiments.anidamiento.levels import SOURCE_CHAPTER, SOURCE_REPO
from .experiments.llamadas.claims import SOURCE as SEED001_SOURCE
from .experiments.red.claims import SOURCE as SEED003_SOURCE
from .experiments.sistema_vm.kinds import SOURCE as SEED002_SOURCE
from .view.numbers import fmt_margin, fmt_value

OUTPUT = reference.REFERENCE_DIR / "SOURCES_CLAIMS.md"
DOCUMENTS = reference.REFERENCE_DIR / "SOURCES.md"
SECOND_HAND = "segunda mano"  # the words that flag a second-hand source, on the page and in SOURCES.md

# Each claim's source as the page names it (`Said.source`) → its `source` key in the table of documents at
# the top of SOURCES.md (and in the reference CSVs), or None for a claim the course formulates itself.
ENTRIES: dict[str, str | None] = {
    SOURCE_CHAPTER: "seed000",  # «el capítulo original», as every notebook names it
    SEED001_SOURCE: "seed001",
    SEED002_SOURCE: "seed002",
    SEED003_SOURCE: "seed003",
    SOURCE_REPO: "fdd_p26",
    IDEA_SOURCE: None,  # «una idea muy repetida»: no document says it
    "este curso": None,  # experiment 3's own claims on small files and copy-up
}


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


# ---------------------------------------------------------------- which entry of SOURCES.md
def entry(said: vd.Said) -> str | None:
    """The `source` key of SOURCES.md a claim's source names (None: the course's own claim)."""
    if said.source not in ENTRIES:
        raise KeyError(f"«{said.source}» no es una entrada de SOURCES.md: añádela a sources.ENTRIES")
    return ENTRIES[said.source]


def document_rows(text: str) -> dict[str, str]:
    """SOURCES.md's table of documents: each `source` key of its first column → its whole row."""
    rows, inside = {}, False
    for line in text.splitlines():
        if line.startswith("|---"):
            inside = True  # past the header row
        elif inside and line.startswith("| `"):
            rows.update({key: line for key in re.findall(r"`([^`]+)`", line.split("|")[1])})
        elif inside:
            break  # the first table only
    return rows


def _ref_source(said: vd.Said) -> str | None:
    return dict(said.ref.select).get("source") if said.ref else None


def problems(text: str, claims: list[tuple[object, vd.Said]]) -> list[str]:
    """Where the declared claims and SOURCES.md (`text`) disagree on provenance: a source that is no entry
    of its table of documents, a reference figure from another entry's rows, or a second-hand flag on the
    page that the entry's row does not carry (or the reverse). Empty when they agree."""
    rows, found, flagged = document_rows(text), [], {}
    for module, said in claims:
        name = f"{module.EXPERIMENT}/{said.key}"
        try:
            key = entry(said)
        except KeyError as error:
            found.append(f"{name}: {error.args[0]}")
            continue
        if key is None:
            continue
        if key not in rows:
            found.append(f"{name}: la entrada `{key}` no está en la tabla de documentos de SOURCES.md")
            continue
        flagged.setdefault(key, set()).add(SECOND_HAND in said.source)
        ref_source = _ref_source(said)
        if ref_source and ref_source != key and not ref_source.startswith(key + "-"):
            found.append(f"{name}: su cifra sale de filas de `{ref_source}`, no de `{key}`")
    for key, on_page in flagged.items():
        in_table = SECOND_HAND in rows[key]
        if on_page != {in_table}:
            which = ("SOURCES.md", "la página") if in_table else ("la página", "SOURCES.md")
            found.append(
                f"`{key}`: {which[0]} la marca de segunda mano y {which[1]} no (en alguna afirmación)"
            )
    return found


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


def _entry_text(said: vd.Said) -> str:
    key = ENTRIES.get(said.source, "?")
    return "el curso" if key is None else f"`{key}`"


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
                "| clave | afirmación | fuente | entrada | dónde | cifra | tipo | margen | referencia |",
                "|---|---|---|---|---|---|---|---|---|",
            ]
        margin = fmt_margin(said.region, said.unit) if said.kind else "lo toma de otra afirmación"
        lines.append(
            f"| `{said.key}` | {_cell(said.statement)} | {_cell(said.source)} | {_entry_text(said)} | "
            f"{_cell(said.where)} | "
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
