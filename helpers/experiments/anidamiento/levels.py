"""The names every part of experiment 7 shares: levels, variants, metrics and their units."""

from __future__ import annotations

import re

EXPERIMENT = "anidamiento"
# The figures and most claims come from the course repository the chapter grew from (its experiment 4),
# not from the chapter: the chapter's only text on nesting is its closing note (SOURCE_CHAPTER).
# Second-hand: its figures are quoted from an issue of the course; the document itself could not be read
# (data/reference/SOURCES.md), and the page says so wherever it credits them.
SOURCE_REPO = (
    "el experimento 4 del repositorio del capítulo original, sonder-art/fdd_p26 (cifras de segunda mano: "
    "citadas de un issue del curso, no leídas en su documento)"
)
SOURCE = SOURCE_REPO
REPO_FILE = "clase/08_containers/06_nested.md"
SOURCE_CHAPTER = "el capítulo original"
CHAPTER_NOTE = "«Nota sobre I/O y contenedores anidados»"
REFERENCE_SOURCE = "fdd_p26"  # its rows in data/reference/anidamiento.csv

LEVELS = (1, 2, 3)
PRIV = "nivel2"
UNPRIV = "nivel2_sin_privilegios"
VARIANTS = ("nivel0", "nivel1", PRIV, UNPRIV, "nivel3")

METRIC_START = "arranque"
METRIC_START_INNER = "arranque_interior"
METRIC_WORK = "trabajo"
METRIC_WORK_E2E = "trabajo_extremo"
METRIC_PSS = "pss_motor_interior"
METRIC_STORE = "almacen_interior"
TIMED = (METRIC_START, METRIC_START_INNER, METRIC_WORK, METRIC_WORK_E2E)  # not the one-off memory/disk reads
UNITS = {
    METRIC_START: "ms",
    METRIC_START_INNER: "ms",
    METRIC_WORK: "s",
    METRIC_WORK_E2E: "s",
    METRIC_PSS: "MiB",
    METRIC_STORE: "MiB",
}

# The level each variant is measured against (its ratio's denominator): the level right above it.
BASE_OF = {
    "nivel1": ("bare", "nivel0"),
    PRIV: (None, "nivel1"),
    UNPRIV: (None, "nivel1"),
    "nivel3": (None, PRIV),
}  # None: the same engine as the variant's


def level_of(variant: str) -> int:
    found = re.match(r"nivel(\d)", variant or "")
    return int(found.group(1)) if found else -1
