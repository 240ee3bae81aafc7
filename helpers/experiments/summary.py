"""The rows an experiment adds to the chapter's «Tabla resumen» in 09 (`CHAPTER_SUMMARY`, a name of the
contract): what each row compares, the declaration it stands for, and how its figure is computed.

The row never restates a claim: the chapter's conclusion is its declaration's statement (`said`), and
09 finds the judged claim by that declaration's key. The figure is a function of the experiment's own
rows, the same on the student's run and on the chapter's reference rows (`source` = seed000).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from .. import stats
from .verdict import Said

# (value, low, high, n, unit): one figure of one engine, its IC 95 % (NaN without one) and its count
Figure = tuple[float, float, float, int, str]
NAN = float("nan")


@dataclass(frozen=True)
class SummaryRow:
    """One row of the chapter's «Tabla resumen», per engine.

    label: what it compares (Spanish); cost: LAUNCH, RUNNING or CAPACITY; said: the declaration of what
    the chapter concluded (its statement is shown, its key finds the verdict); figure: `figure(df,
    meta, engine) -> Figure` on a run's rows or the reference's (meta None); detail: what picks the
    judged claim among those with the key (`engine` added per engine when `per_engine`); judged: the
    engines the claim is about (the others show «not about this engine»); verdict: when the row's figure
    is not the one its page judges the claim on (hash and sort, which the page judges with `exec`
    inside, shown here as the work alone), `verdict(df, meta, engine) -> Claim`: the declaration judged
    by the one rule on the row's figure, built by the experiment (None: the page's claim, by key);
    aside: when the page judges the claim on another figure than `figure` (exec ÷ run, where `figure`
    is exec's ms), what `figure` is (Spanish): the row shows the figure that was judged (the claim's,
    with its IC, in its unit, and the chapter's claimed figure beside it) and `figure`, under this name,
    goes in the row's note, unjudged."""

    label: str
    cost: str
    said: Said
    figure: Callable[[pd.DataFrame, dict | None, str], Figure]
    detail: tuple = ()
    per_engine: bool = False
    judged: tuple = ("docker", "podman")
    verdict: Callable | None = None
    aside: str = ""


def declared(said: tuple[Said, ...], key: str) -> Said:
    """The (first) declaration with this key in an experiment's SAID."""
    return next(s for s in said if s.key == key)


def median_of(values, unit: str) -> Figure:
    """The median of some figures with its order-statistics IC 95 % (none for a single value)."""
    values = pd.Series(values, dtype=float).dropna().to_numpy()
    if not values.size:
        return (NAN, NAN, NAN, 0, unit)
    ci = stats.median_ci(values)
    return ci.value, ci.low, ci.high, ci.n, unit
