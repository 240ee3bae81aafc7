"""03's rows of the chapter's «Tabla resumen» (09): the end-to-end overhead of hash and sort."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ... import stats
from ..summary import NAN, Figure, SummaryRow, declared
from .analysis import samples, tidy
from .arms import METRIC_E2E
from .claims import SAID


def overhead_pct(workload: str, df: pd.DataFrame, meta: dict | None, engine: str) -> Figure:
    """A workload's end-to-end overhead (exec included) in one engine over bare metal, in %: per round
    with its interval on a run; the ratio of medians on the reference (five repetitions, not in rounds)."""
    data = tidy(df)
    mine = samples(data, METRIC_E2E, workload, engine)
    host = samples(data, METRIC_E2E, workload, "bare")
    if not mine.size or not host.size:
        return (NAN, NAN, NAN, 0, "%")
    if "source" in df.columns:
        return ((np.median(mine) / np.median(host) - 1) * 100, NAN, NAN, int(mine.size), "%")
    value, low, high = stats.difference_ci(mine, host, percent=True).triple
    return value, low, high, stats.n_of(mine, host), "%"


CHAPTER_SUMMARY = tuple(
    SummaryRow(
        f"sobrecarga de {workload} de extremo a extremo (exec incluido)",
        "RUNNING",
        declared(SAID, key),
        partial(overhead_pct, workload),
        per_engine=True,
    )
    for workload, key in (("hash", "hash_0"), ("sort", "sort_6_8"))
)
