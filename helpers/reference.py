"""Bundled reference data: the seed documents' figures, tidy, with `source`.

An experiment's reference rows are every `data/reference/<experiment>*.csv` (found by name; one
section per file in SOURCES.md), with the live-run columns plus `source`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import experiments, stats
from .paths import PROJECT_ROOT
from .results import COLUMNS

REFERENCE_DIR = PROJECT_ROOT / "data" / "reference"
# Sources whose rows are published ranges («110-120 ns»): rep 1 is the low end, rep 2 the high end (each
# one's section of SOURCES.md says so). `figures` shows them as ranges, never resampled.
RANGE_SOURCES = frozenset(
    {"seed001-esperado", "seed001-tabla-xeon-8370c", "seed001-tabla-epyc-7763", "seed001-tabla-i7-12700k"}
)
VERSIONS = {"seed000": {"docker": "28.4.0", "podman": "4.6.2", "kernel": "6.12"}}


def files(experiment: str, directory: Path | None = None) -> list[Path]:
    """The reference files of one experiment: <experiment>.csv and <experiment>_*.csv."""
    folder = directory or REFERENCE_DIR
    return sorted(
        p
        for p in folder.glob(f"{experiment}*.csv")
        if p.stem == experiment or p.stem.startswith(f"{experiment}_")
    )


def available(directory: Path | None = None) -> list[str]:
    """Registered experiments that have reference data, in registry order."""
    return [name for name in experiments.names() if files(name, directory)]


DECIMAL_KB = "kB"  # a reference row in decimal kilobytes; load() gives it in KiB like a live run


def load(experiment: str, directory: Path | None = None) -> pd.DataFrame:
    """Reference rows of one experiment, with the live-run columns plus `source`."""
    found = files(experiment, directory)
    if not found:
        raise KeyError(
            f"No hay datos de referencia para el experimento «{experiment}». "
            f"Hay: {', '.join(available(directory)) or 'ninguno'}."
        )
    expected = COLUMNS + ["source"]
    frames = []
    for path in found:
        df = pd.read_csv(path, dtype={"image": str, "variant": str, "source": str})
        missing = [c for c in expected if c not in df.columns]
        if missing:
            raise ValueError(f"{path}: faltan columnas {', '.join(missing)}")
        frames.append(df[expected])
    df = pd.concat(frames, ignore_index=True)
    df["image"] = df["image"].fillna("")
    df["variant"] = df["variant"].fillna("")
    # a source's decimal kB (1000 bytes) in the course's KB (KiB, 1024 bytes, as the live runs write them)
    decimal = df["unit"] == DECIMAL_KB
    df.loc[decimal, "value"] = df.loc[decimal, "value"] * 1000 / 1024
    df.loc[decimal, "unit"] = "KB"
    return df


def figures(experiment: str, directory: Path | None = None) -> pd.DataFrame:
    """One row per published figure of an experiment (stats.published): each source is its own
    «machine», a published range stays a range (low, high; never bootstrapped), a single figure has
    no interval, and only a source's raw repetitions get a median with its IC 95 %."""
    return stats.published(load(experiment, directory), RANGE_SOURCES)
