"""The figure a claim is judged on: which arms of a run it reads, the figure computed from them with its
interval, handed to the one verdict rule (`verdict.judge`); and the agreement of a live figure with the
reference's. This module computes; helpers/experiments/verdict.py decides (this module imports it, never
the reverse).

A declaration (`verdict.Said`) names its figure:

    figure=Ratio(Sel(engine="podman", metric="arranque"), Sel(engine="docker", metric="arranque"))
    judge_all(SAID, df, meta)   # every declaration judged on its figure in this run
    claims = judging(SAID)      # an experiment's claims(df, meta): the same, as a function

Figures: `Ratio`, `Median`, `Difference` (a − b, or in %), `Formula` (any function of several arms),
`Computed` (a figure with its own interval: a slope, a crossover), `Outcome` (a deterministic result),
`NotComparable`, `Unless` (a figure, or «no comparable» on a run that cannot give it) and `Custom`. A `Sel`
picks an arm as a pandas Series indexed by round (`rep`): arms of the same rounds are paired by round (the
figure is computed round by round); paired=False gives plain arrays, independent arms (see helpers/stats.py).
Underneath, the builders (`ratio`, `median`, `difference`, `formula`) turn arms into a `stats.Estimate`, mark
it «inestable» when a spread dwarfs its median, and `verdict.judge` decides it; `verdict.missing`,
`verdict.not_comparable` and `verdict.outcome` are the claims with no interval to compute.

`agreement` judges a live figure against the reference's (live ÷ reference, `agreement_interval`) by the
same rule: «coincide», «no_coincide», «no_concluyente» or «sin_datos».
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .. import results, stats
from . import load
from .margins import SAME, margin
from .verdict import (
    INDECIDIBLE,
    NO_CONCLUYENTE,
    NO_SE_SOSTIENE,
    SE_CONFIRMA,
    SIN_DATOS,
    Claim,
    Said,
    decide,
    judge,
    missing,
    not_comparable,
    outcome,
    side,
)


# ---------------------------------------------------------------- builders: arms → a judged figure
def _samples_unstable(*samples) -> bool:
    return any(stats.unstable(s) for s in samples)


def ratio_unstable(a, b) -> bool:
    """Arms paired by round: the per-round ratio is what is judged, so its spread is what counts (a
    drift shared by a round spreads each arm, not their ratio); independent arms: each arm's spread."""
    if stats.is_paired(a, b):
        return stats.unstable(stats.per_round(lambda x, y: x / y, a, b))
    return _samples_unstable(a, b)


# What a builder's figure is, in detail["statistic"] (a code; the view words it): the median of one
# arm's values or of the per-round figures (paired arms), or the figure of the arms' medians
# (independent arms). A figure judged as it comes (`judge`) leaves it to the caller.
MEDIAN, OF_MEDIANS = "median", "of_medians"


def _with_pairing(detail: dict | None, estimate: stats.Estimate) -> dict:
    out = dict(detail or {})
    if estimate.paired:
        out.setdefault("rondas", True)  # n counts rounds; the figure was computed round by round
        out.setdefault("statistic", MEDIAN)  # the median of the per-round figures
    else:
        out.setdefault("statistic", OF_MEDIANS)
    return out


def formula(said: Said, fn, *samples, scale: float = 1.0, detail: dict | None = None) -> Claim:
    """fn(*arms) × scale with its IC: round by round for Series indexed by round (paired), from the
    arms' medians for arrays (independent); «inestable» when any arm's spread dwarfs its median."""
    if stats.n_of(*samples) == 0:
        return missing(said, detail)
    est = stats.figure_ci(fn, *samples).scaled(scale)
    return judge(said, est, unstable=_samples_unstable(*samples), detail=_with_pairing(detail, est))


def ratio(said: Said, numerator, denominator, *, detail: dict | None = None) -> Claim:
    """numerator / denominator (two arms) with its IC (see `formula`)."""
    if stats.n_of(numerator, denominator) == 0:
        return missing(said, detail)
    est = stats.ratio_ci(numerator, denominator)
    shaky = ratio_unstable(numerator, denominator)
    return judge(said, est, unstable=shaky, detail=_with_pairing(detail, est))


def median(said: Said, values, *, detail: dict | None = None) -> Claim:
    """One arm's median with its distribution-free IC, against the claim."""
    arr = stats.values(values)
    if arr.size == 0:
        return missing(said, detail)
    detail = {"statistic": MEDIAN, **dict(detail or {})}
    return judge(said, stats.median_ci(arr), unstable=stats.unstable(arr), detail=detail)


def difference(said: Said, a, b, *, percent: bool = False, detail: dict | None = None) -> Claim:
    """a − b (or, with percent=True, (a / b − 1) × 100) with its IC (see `formula`)."""
    if stats.n_of(a, b) == 0:
        return missing(said, detail)
    est = stats.difference_ci(a, b, percent=percent)
    shaky = ratio_unstable(a, b) if percent else _samples_unstable(a, b)
    return judge(said, est, unstable=shaky, detail=_with_pairing(detail, est))


# ---------------------------------------------------------------- the figure a claim is judged on
# The statuses whose interval rests on independent rounds: load.tested may take their verdict away.
WITH_INTERVAL = (SE_CONFIRMA, NO_SE_SOSTIENE, NO_CONCLUYENTE, INDECIDIBLE)


@dataclass(frozen=True, init=False)
class Sel:
    """A selection of raw rows, column=value («engine="podman", role="ubuntu", metric="arranque"»):
    one arm's values, indexed by round (`rep`) so that arms of the same rounds are paired, or a plain
    array with paired=False. `role` (the image role) is added from meta when asked for; a value that is
    a function is the run's own (fn(df, meta): the run's main server, its VM's variant), and None
    selects nothing."""

    where: tuple[tuple[str, object], ...]
    paired: bool

    def __init__(self, *, paired: bool = True, **where) -> None:
        object.__setattr__(self, "where", tuple(where.items()))
        object.__setattr__(self, "paired", paired)


def select(df: pd.DataFrame, meta: dict | None, sel: Sel):
    """The values of the rows `sel` picks (see `Sel`)."""
    where = dict(sel.where)
    if "role" in where and "role" not in df.columns:
        df = results.add_roles(df, meta)
    at = np.ones(len(df), dtype=bool)
    for column, wanted in where.items():
        at &= (df[column] == wanted).to_numpy() if wanted is not None else False
    rows = df[at]
    values = pd.Series(
        pd.to_numeric(rows["value"], errors="coerce").to_numpy(float), index=rows["rep"].to_numpy()
    )
    values = values.dropna()
    return values if sel.paired else values.to_numpy()


@dataclass(frozen=True)
class Data:
    """A run as the figures see it: its rows, its meta, and how a `Sel` picks an arm (`select`, or an
    experiment's own)."""

    df: pd.DataFrame
    meta: dict | None
    pick: Callable = select

    def __call__(self, sel: Sel):
        """The arm `sel` picks, its values that are functions of the run computed first."""
        return self.pick(self.df, self.meta, Sel(paired=sel.paired, **self.where(sel)))

    def where(self, sel: Sel) -> dict:
        """{column: value} of `sel`, its values that are functions of the run computed."""
        return {k: v(self.df, self.meta) if callable(v) else v for k, v in sel.where}


@dataclass(frozen=True)
class Figure:
    """What a claim is judged on: a builder on the arms its selections pick (`Ratio`, `Difference`,
    `Median`, `Formula`), or a claim computed from the whole run (`Computed`, `Outcome`, `NotComparable`,
    `Custom`). Options every figure takes: detail, what the views need (never words; a value that is a
    function is computed from the run, fn(df, meta); or one function giving it all); optional: no claim
    at all (rather than «sin datos») when an arm has no values; missing_note: the claim's note when an
    arm has no values or `needs` says no; when(df, meta): no claim at all when false (an engine this run
    did not measure);
    needs(df, meta): «sin datos» when false; incomparable(df, meta): a Spanish reason when this run
    cannot be compared with the source (another load than the one the source stated), and the claim is
    then «no comparable» with it ("" when it can)."""

    build: Callable  # build(said, *arms, detail=...) → Claim; or, with of_run, build(said, df, meta, detail)
    sels: tuple[Sel, ...] = ()
    of_run: bool = False
    detail: tuple[tuple[str, object], ...] | Callable = ()
    optional: bool = False
    missing_note: str = ""
    when: Callable | None = None
    needs: Callable | None = None
    incomparable: Callable | None = None
    # the figure of one round's values (stats.quotient …), whose rounds load.tested tests for dependence
    by_round: Callable | None = field(default=None, repr=False)

    def details(self, data: Data) -> dict:
        if callable(self.detail):
            return self.detail(data.df, data.meta)
        return {k: v(data.df, data.meta) if callable(v) else v for k, v in self.detail}

    def claim(self, said: Said, data: Data) -> Claim | list[Claim] | None:
        if self.of_run:  # its rounds are the experiment's: screened on the whole run's load
            return load.screen_run(data.meta).judged(self.build(said, data.df, data.meta, self.details(data)))
        samples = [data(sel) for sel in self.sels]
        if any(len(s) == 0 for s in samples):
            if self.optional:
                return None
            if self.missing_note:
                return missing(said.but(note=self.missing_note), self.details(data))
        own = load.of_arms(data.meta, [data.where(sel) for sel in self.sels])  # the load of their loops
        screen = load.screen(own, samples)  # the machine's load over these rounds
        kept = screen.keep(samples)
        claim = screen.judged(self.build(said, *kept, detail=self.details(data)))
        if not isinstance(claim, Claim):
            return claim
        if claim.status in WITH_INTERVAL:  # an interval that rests on the rounds: are they independent?
            claim = load.tested(claim, self.by_round, kept, own)
        return replace(claim, screened=True)


def _figure(build: Callable, sels=(), of_run=False, *, detail=None, **options) -> Figure:
    detail = detail if callable(detail) else tuple((detail or {}).items())
    return Figure(build, tuple(sels), of_run, detail, **options)


# The figures, named like the classes they stand for: each returns a Figure.
def Ratio(num: Sel, den: Sel, **options) -> Figure:
    """num / den (see `ratio`)."""
    return _figure(ratio, (num, den), by_round=stats.quotient, **options)


def Difference(a: Sel, b: Sel, *, percent: bool = False, **options) -> Figure:
    """a − b, or (a / b − 1) × 100 with percent=True (see `difference`)."""
    return _figure(
        lambda said, x, y, detail: difference(said, x, y, percent=percent, detail=detail),
        (a, b),
        by_round=stats.percent_change if percent else stats.minus,
        **options,
    )


def Median(sel: Sel, **options) -> Figure:
    """One arm's median (see `median`)."""
    return _figure(median, (sel,), by_round=stats.itself, **options)


def Formula(fn: Callable, *sels: Sel, scale: float = 1.0, **options) -> Figure:
    """fn(*arms) × scale (see `formula`)."""
    return _figure(
        lambda said, *arms, detail: formula(said, fn, *arms, scale=scale, detail=detail),
        sels,
        by_round=fn,
        **options,
    )


def Computed(fn: Callable, *args, **options) -> Figure:
    """A figure the experiment computes with its own interval (a slope, a crossover, a spread):
    fn(df, meta, *args) → stats.Estimate, judged as it comes; no figure (n = 0) → «sin datos»."""

    def build(said, df, meta, detail):
        est = fn(df, meta, *args)
        return (
            judge(said, est, detail=detail)
            if est.n and not stats.any_nan(est.value)
            else missing(said, detail)
        )

    return _figure(build, of_run=True, **options)


def Outcome(fn: Callable, **options) -> Figure:
    """A deterministic result observed several times: fn(df, meta) → the observations (see `outcome`)."""
    return _figure(
        lambda said, df, meta, detail: outcome(said, fn(df, meta), detail=detail), of_run=True, **options
    )


def NotComparable(reason: str, **options) -> Figure:
    """Our setup cannot reproduce the source's (see `not_comparable`): the reason; detail, what a view
    shows beside it."""
    return _figure(
        lambda said, df, meta, detail: not_comparable(said, reason, detail or None), of_run=True, **options
    )


def Custom(fn: Callable, *args, **options) -> Figure:
    """The rare claim no other figure says: fn(said, df, meta, *args) → a Claim (from the builders), a
    list of them, or None for no claim in this run."""
    return _figure(lambda said, df, meta, detail: fn(said, df, meta, *args), of_run=True, **options)


def Unless(test: Callable, reason: str, detail: dict, figure: Figure, **options) -> Figure:
    """`figure`, or «no comparable» with `reason` (and `detail`, what a view shows beside it) on a run
    where test(df, meta) holds: a figure this run cannot give (a VM measured under emulation says nothing
    of an accelerated one's speed), left to another judge (the class comparison, notebook 90)."""
    instead = NotComparable(reason, detail=detail)
    return Custom(
        lambda said, df, meta: judge_all([said.but(figure=instead if test(df, meta) else figure)], df, meta),
        **options,
    )


def ran(*engines: str) -> Callable:
    """when(df, meta) of a claim on engines: the run measured every one of them (on an engine it did not
    measure, no claim is made)."""
    return lambda df, meta=None: df is not None and len(df) > 0 and set(engines) <= set(df["engine"])


def judge_all(
    said: Iterable[Said],
    df: pd.DataFrame,
    meta: dict | None,
    *,
    pick: Callable = select,
    adapt: Callable | None = None,
) -> list[Claim]:
    """Every declared claim judged on its figure in this run, in order (a claim whose figure is
    `optional` and has no data, or whose `when` says no, is left out; one whose `needs` says no is
    «sin datos»). pick(df, meta, sel): how a `Sel` picks an arm (`select`
    unless the experiment's rows need their own); adapt(said, df, meta): the declaration as this run
    words it (a note on the run's setup, the server or engine in its quantity). A figure's `incomparable`
    reason comes before `needs`: a run at another load is «no comparable» whether or not it has the arms."""
    data = Data(df, meta, pick)
    out = []
    for s in said:
        if adapt is not None:
            s = adapt(s, df, meta)
        figure = s.figure
        if figure is None:
            out.append(missing(s))
            continue
        if figure.when is not None and not figure.when(df, meta):
            continue
        if figure.incomparable is not None and (reason := figure.incomparable(df, meta)):
            out.append(not_comparable(s, reason, figure.details(data) or None))
            continue
        if figure.needs is not None and not figure.needs(df, meta):
            out.append(missing(s.but(note=figure.missing_note) if figure.missing_note else s))
            continue
        claim = figure.claim(s, data)
        out.extend(claim if isinstance(claim, list) else [] if claim is None else [claim])
    return out


def judging(
    said: Iterable[Said],
    *,
    pick: Callable = select,
    adapt: Callable | None = None,
    prepare: Callable | None = None,
) -> Callable[..., list[Claim]]:
    """An experiment's claims(df, meta=None): its declarations judged on their figures in the run
    (`judge_all`, with its pick and adapt), the run's rows first through prepare(df) when given."""
    said = tuple(said)

    def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
        return judge_all(said, prepare(df) if prepare else df, meta, pick=pick, adapt=adapt)

    return claims


# ---------------------------------------------------------------- agreement with the reference
COINCIDE = "coincide"
NO_COINCIDE = "no_coincide"
AGREEMENT_KIND = "about"  # «coincide»: this machine's figure is about the reference's (÷ 1.25 … × 1.25)
AGREEMENT_POINTS = SAME * 100  # for signed figures (a percentage that may be ≤ 0): within ±5 points


def _bounds(ref: tuple[float, float, float]) -> tuple[float, float]:
    """The reference's (low, high): its IC or range, or its single figure as both ends."""
    value, low, high = ref
    return (value, value) if stats.any_nan(low, high) else (low, high)


def _quotient(live, ref) -> bool:
    """Compare as live ÷ reference (both positive) rather than live − reference."""
    return not stats.any_nan(live[1], *_bounds(ref)) and min(live[1], _bounds(ref)[0]) > 0


def agreement_interval(
    live: tuple[float, float, float], ref: tuple[float, float, float]
) -> tuple[float, float, float]:
    """live ÷ reference (value, low, high) for positive figures: the live IC over the reference's
    (its IC from raw repetitions, its published range, or its single figure):
    [l_low / r_high, l_high / r_low]. Figures that may be ≤ 0 (a percentage): live − reference the
    same way. NaN without a live IC."""
    (value, low, high), (r_value, _, _) = live, ref
    r_low, r_high = _bounds(ref)
    if stats.any_nan(low, high, r_low, r_high):
        return (float("nan"),) * 3
    if _quotient(live, ref):
        point = value / r_value if not stats.any_nan(value, r_value) else float("nan")
        return point, low / r_high, high / r_low
    point = value - r_value if not stats.any_nan(value, r_value) else float("nan")
    return point, low - r_high, high - r_low


def agreement(
    live: tuple[float, float, float], ref: tuple[float, float, float], *, kind: str = AGREEMENT_KIND
) -> str:
    """Does a live figure agree with the reference's? Both are (value, low, high). Judged like a claim:
    live ÷ reference (`agreement_interval`), by the one rule, against the margin of «about 1»
    (÷ 1.25 … × 1.25; figures that may be ≤ 0 are compared as live − reference within ±5 points):
    «coincide» (inside), «no_coincide» (entirely outside, or two intervals that do not touch: live ÷
    reference entirely on one side of 1, `verdict.side`), «no_concluyente» (the two intervals overlap
    without fitting the margin), «sin_datos» (no live IC). Two wide intervals no longer «coinciden»:
    they are «no_concluyente»; two disjoint ones never are."""
    _, low, high = agreement_interval(live, ref)
    if stats.any_nan(low, high):
        return SIN_DATOS
    quotient = _quotient(live, ref)
    region = margin(kind, 1.0, "x") if quotient else (-AGREEMENT_POINTS, AGREEMENT_POINTS)
    status = decide(low, high, region=region)
    if status == NO_CONCLUYENTE and side(low, high, None, around=1.0 if quotient else 0.0) != NO_CONCLUYENTE:
        status = NO_SE_SOSTIENE  # the intervals are disjoint: the figures differ, by how much or not
    return {SE_CONFIRMA: COINCIDE, NO_SE_SOSTIENE: NO_COINCIDE}.get(status, status)
