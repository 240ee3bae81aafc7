"""The toy's summary and its rows of the closing table."""

from __future__ import annotations

import pandas as pd

from helpers.experiments.contract import CLOSING_COLUMNS


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    return df.groupby(["engine", "variant"], as_index=False)["value"].median()


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    s = summarize(df, meta)
    return pd.DataFrame(
        [
            {
                "concepto": f"arrancar `{v}`",
                "tipo": "LAUNCH",
                "entorno": "bare",
                "valor": m,
                "ic_bajo": m,
                "ic_alto": m,
                "unidad": "ms",
            }
            for v, m in zip(s["variant"], s["value"])
        ],
        columns=CLOSING_COLUMNS,
    )
