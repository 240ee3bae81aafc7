"""The names every part of experiment 7 shares: levels, variants, metrics and their units."""

from __future__ import annotations

import re

EXPERIMENT = "anidamiento"
# The figures and most claims come from the repository the chapter grew from, not from the chapter: the
# chapter's only text on nesting is its closing note (SOURCE_CHAPTER). First-hand, at the repository's
# commit 2115e325: its «experiment 4» is `REPO_FILE` (the tables and conclusions), run by
# scripts/exp4_nested.sh, whose raw repetitions, scripts/results/exp4_nested.csv, are
# data/reference/anidamiento.csv. An older commit's chapter file, `REPO_CHAPTER_FILE`, holds the «mount proc»
# error (REPO_MOUNT_PROC). data/reference/SOURCES.md says what each file says.
SOURCE_REPO = (
    "el repositorio del capítulo original, sonder-art/fdd_p26 (su experimento de anidamiento, "
    "`scripts/exp4_nested.sh`)"
)
SOURCE = SOURCE_REPO
REPO_FILE = "clase/08_containers/06_nested.md"
REPO_CHAPTER_FILE = "clase/08_containers/04_benchmarks.md"
REPO_FIGURES = (
    "el «experimento 4» del repositorio del capítulo (sonder-art/fdd_p26; cifras de segunda mano, citadas del "
    "issue 14 del curso)"
)
REPO_MOUNT_PROC = (
    f"el experimento 9 («Nested containers v2») de {REPO_CHAPTER_FILE}, en el repositorio del capítulo "
    "original (sonder-art/fdd_p26)"
)
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
