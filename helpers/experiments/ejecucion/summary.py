"""03's rows of the chapter's «Tabla resumen» (09): hash and sort as RUNNING (the work alone, timed
inside, against the host's binaries: the chapter's baseline without its `exec`) and that `exec` apart,
as LAUNCH (`exec … true` from the host ÷ `run`, the figure 03 judges «menos de 1 ms» on, with
exec's ms in the row's note)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import stats
from ..summary import NAN, Figure, SummaryRow, declared
from ..verdict import Claim
from .analysis import samples, tidy
from .arms import EXEC_TRUE, METRIC_E2E, METRIC_WORK
from .claims import SAID, SORT_6_8, work_alone


def overhead_pct(workload: str, df: pd.DataFrame, meta: dict | None, engine: str) -> Figure:
    """A workload's overhead in one engine over bare metal (the host's binaries), in %: on a run, the work
    alone (exec left out), per round with its interval; on the reference, which timed only end to end
    (exec included), the ratio of its medians (five repetitions, not in rounds)."""
    data = tidy(df)
    reference = "source" in df.columns
    metric = METRIC_E2E if reference else METRIC_WORK
    mine = samples(data, metric, workload, engine)
    host = samples(data, metric, workload, "bare")
    if not mine.size or not host.size:
        return (NAN, NAN, NAN, 0, "%")
    if reference:
        return ((np.median(mine) / np.median(host) - 1) * 100, NAN, NAN, int(mine.size), "%")
    value, low, high = stats.difference_ci(mine, host, percent=True).triple
    return value, low, high, stats.n_of(mine, host), "%"


def work_claim(key: str, workload: str, df: pd.DataFrame, meta: dict | None, engine: str) -> Claim:
    """The chapter's claim on a workload as 03 judges it (claims.work_alone, the row's own figure: the work
    alone against the host's binaries)."""
    said = SORT_6_8[engine] if key == SORT_6_8[engine].key else declared(SAID, key)
    said = said.but(
        statement=f"{said.statement} ({eng.DISPLAY[engine]}; el trabajo solo)",
        quantity=f"sobrecarga del trabajo solo (sin `exec`) en {eng.DISPLAY[engine]} frente a los binarios "
        "del host",
    )
    return work_alone(said, tidy(df), meta, engine, workload)


def exec_ms(df: pd.DataFrame, meta: dict | None, engine: str) -> Figure:
    """`exec … true` from the host into a running container, in ms: median and its interval."""
    values = samples(tidy(df), METRIC_E2E, EXEC_TRUE, engine).to_numpy(float) * 1e3
    if not values.size:
        return (NAN, NAN, NAN, 0, "ms")
    ci = stats.median_ci(values)
    return ci.value, ci.low, ci.high, ci.n, "ms"


CHAPTER_SUMMARY = (
    *(
        SummaryRow(
            f"sobrecarga de {workload}: el trabajo solo, sin `exec` (el capítulo la midió con el `exec`)",
            "RUNNING",
            declared(SAID, key),
            partial(overhead_pct, workload),
            per_engine=True,
            verdict=partial(work_claim, key, workload),
        )
        for workload, key in (("hash", "hash_0"), ("sort", "sort_6_8"))
    ),
    SummaryRow(
        "`exec … true` en un contenedor que ya corre ÷ `run` (cuaderno 01): el `exec` que el capítulo "
        "sumaba a hash y sort",
        "LAUNCH",
        declared(SAID, "exec_1ms"),
        exec_ms,
        per_engine=True,
        aside="tu `exec` solo",
    ),
)
