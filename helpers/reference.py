"""Bundled reference data (data/reference/*.csv): the seed documents' figures, tidy, with `source`."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import PROJECT_ROOT
from .results import COLUMNS

REFERENCE_DIR = PROJECT_ROOT / "data" / "reference"
FILES = {
    "arranque": "exp1_arranque.csv",
    "escala": "exp2_escala.csv",
    "ejecucion": "exp3_ejecucion.csv",
}
VERSIONS = {"seed000": {"docker": "28.4.0", "podman": "4.6.2", "kernel": "6.12"}}


def available() -> list[str]:
    return [exp for exp, name in FILES.items() if (REFERENCE_DIR / name).is_file()]


def load(experiment: str, directory: Path | None = None) -> pd.DataFrame:
    """Reference rows of one experiment, with the live-run columns plus `source`."""
    if experiment not in FILES:
        raise KeyError(f"No hay datos de referencia para el experimento «{experiment}». "
                       f"Hay: {', '.join(FILES)}.")
    path = (directory or REFERENCE_DIR) / FILES[experiment]
    df = pd.read_csv(path, dtype={"image": str, "variant": str, "source": str})
    expected = COLUMNS + ["source"]
    missing = [c for c in expected if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: faltan columnas {missing}")
    df["image"] = df["image"].fillna("")
    df["variant"] = df["variant"].fillna("")
    return df[expected]
