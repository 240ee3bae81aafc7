"""The toy's one claim, declared once and judged by a builder of the verdict module."""

from __future__ import annotations

import pandas as pd

from helpers.experiments.figures import ratio
from helpers.experiments.verdict import Said

SH_SLOWER = Said(
    "sh_mas_lento",
    "`sh -c true` tarda más que `true`",
    "esta prueba",
    claimed=1.0,
    region=(1.0, float("inf")),
    quantity="`sh -c true` / `true`",
    unit="x",
)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list:
    values = {v: df.loc[df["variant"] == v, "value"].to_numpy() for v in ("sh", "true")}
    return [ratio(SH_SLOWER, values["sh"], values["true"])]
