"""01's rows of the chapter's «Tabla resumen» (09): Podman/Docker at launch, per image."""

from __future__ import annotations

from functools import partial

import pandas as pd

from ... import results
from ..summary import Figure, SummaryRow, median_of
from .claims import PODMAN_2X


def launch_ms(role: str, df: pd.DataFrame, meta: dict | None, engine: str) -> Figure:
    """The launch (ms) of `echo ok` with one image and the default network, of one engine."""
    rows = results.add_roles(df, meta)
    pick = (rows["engine"] == engine) & (rows["role"] == role)
    values = rows.loc[pick & (rows["variant"] == "por_defecto") & (rows["metric"] == "arranque"), "value"]
    return median_of(values, "ms")


CHAPTER_SUMMARY = tuple(
    SummaryRow(
        f"arranque, imagen {role}", "LAUNCH", PODMAN_2X[role], partial(launch_ms, role), (("role", role),)
    )
    for role in ("ubuntu", "alpine")
)
