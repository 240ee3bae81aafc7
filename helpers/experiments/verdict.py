"""The one verdict rule, the margin of each kind of claim, the claim builders and the minimum number of
repetitions. No experiment decides a verdict any other way.

A claim is declared once, as its source said it (`Said`), with its `kind` (how the source said it: «~2×»,
«+11 %», «casi igual», «al menos la cuarta parte», «24-30 %»…), which with the claimed figure gives its
margin (`MARGINS`, one table for every notebook; `margin`), and with the figure it is judged on:

    PODMAN_2X = Said("podman_2x", "Podman es ~2x más rápido que Docker en el arranque", SOURCE,
                     claimed=0.5, kind="about", quantity="Podman/Docker", unit="x",
                     figure=Ratio(Sel(engine="podman", metric="arranque"), Sel(engine="docker", metric="arranque")))
    judge_all(SAID, df, meta)   # every declaration judged on its figure in this run

Figures: `Ratio`, `Median`, `Difference` (a − b, or in %), `Formula` (any function of several arms),
`Computed` (a figure with its own interval: a slope, a crossover), `Outcome` (a deterministic result),
`NotComparable` and `Custom`. A `Sel` picks an arm as a pandas Series indexed by round (`rep`): arms of the
same rounds are paired by round (the figure is computed round by round); paired=False gives plain arrays,
independent arms (see helpers/stats.py). Underneath, the builders (`ratio`, `median`, `difference`,
`formula`, `outcome`, `missing`, `not_comparable`) turn arms into a `stats.Estimate` and `judge` decides
it:

- no data → «sin datos»; fewer than MIN_N repetitions (rounds) → «sin datos» too, with the number needed
  (`Claim.more_reps`): no interval below it reaches 95 %;
- a measurement whose spread dwarfs its median → «inestable»;
- the IC lies inside the claim's margin → «se confirma»;
- the IC lies entirely outside the margin → «no se sostiene»;
- otherwise → «no concluyente», with about how many repetitions would decide it.

The Spanish sentence of a claim is rendered by one function (`view.common.claim_sentence`) from the
declared fields: statement, source, where, quantity, unit, claimed, kind, region, note.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .. import results, stats
from .margins import ABOUT as ABOUT
from .margins import KINDS as KINDS
from .margins import MARGINS as MARGINS
from .margins import SAME as SAME
from .margins import Kind as Kind
from .margins import Ref as Ref
from .margins import margin as margin
from .margins import ref as ref

SE_CONFIRMA = "se_confirma"
NO_SE_SOSTIENE = "no_se_sostiene"
NO_CONCLUYENTE = "no_concluyente"
INESTABLE = "inestable"
SIN_DATOS = "sin_datos"
NO_COMPARABLE = "no_comparable"
STATUSES = (SE_CONFIRMA, NO_SE_SOSTIENE, NO_CONCLUYENTE, INESTABLE, SIN_DATOS, NO_COMPARABLE)

# Fewer repetitions than this: no verdict. Derived from coverage: the fewest values whose
# distribution-free interval for a median reaches 95 % (6: [min, max] covers it 96.9 % of the time).
MIN_N = stats.MIN_N
INF = math.inf


# ---------------------------------------------------------------- a claim as said, and as judged
@dataclass(frozen=True)
class Said:
    """A claim as its source said it, with what counts as «the claim» (its margin).

    key: a stable identifier other experiments and views may refer to; statement: the claim in Spanish,
    in the source's form; source: the source as the reader sees it («el capítulo original», a
    document's title); where: section or table of the source; claimed: the figure claimed (for
    at_least/at_most: the threshold); kind: how the source said it (a key of KINDS), which with
    `claimed` (and `bounds` for a range) gives `region`, the margin; quantity: what is measured, in
    Spanish («Podman/Docker, imagen ubuntu»); unit: "x" (ratio), "%" (percent), "ms", "ns", "MiB",
    "" (a count); note: a Spanish sentence the verdict line carries; ref: where the claimed number
    comes from in data/reference (`ref(...)`); figure: what it is judged on in a run (`Ratio`,
    `Median`, `Difference`, `Formula`, `Outcome`, `Computed`, `Custom`; see `judge_all`).

    A declaration without kind has no margin: only `missing` and `not_comparable` use one."""

    key: str
    statement: str
    source: str
    claimed: float = float("nan")
    region: tuple[float, float] | None = None
    quantity: str = ""
    unit: str = "x"
    where: str = ""
    note: str = ""
    kind: str = ""
    bounds: tuple[float, float] | None = None
    ref: Ref | None = None
    figure: Figure | None = None

    def __post_init__(self) -> None:
        if self.kind:
            derived = margin(self.kind, self.claimed, self.unit, self.bounds)
            if self.region is not None and tuple(self.region) != derived:
                raise ValueError(
                    f"{self.key}: region {self.region} contradicts kind {self.kind!r} ({derived})"
                )
            object.__setattr__(self, "region", derived)
        elif self.region is None:
            object.__setattr__(self, "region", (-INF, INF))
        else:
            object.__setattr__(self, "region", tuple(float(v) for v in self.region))

    def but(self, **changes) -> Said:
        """The same declaration with some fields changed (a per-image variant, say); the margin follows
        the kind and the claimed figure."""
        if (changes.get("kind", self.kind)) and "region" not in changes:
            changes["region"] = None
        return replace(self, **changes)


def _from_said(name: str) -> property:
    return property(lambda self: getattr(self.said, name), doc=f"The declared {name} (claim.said.{name}).")


def _from_estimate(name: str) -> property:
    return property(lambda self: getattr(self.estimate, name), doc=f"claim.estimate.{name}.")


@dataclass
class Claim:
    """A claim judged on live data: its declaration (`said`), the figure measured for it (`estimate`,
    value and IC), the status the one rule gave, more_reps (how many repetitions would decide it) and
    detail, what a view needs beyond that (never words). The declared fields read through to `said`."""

    said: Said
    status: str
    estimate: stats.Estimate = field(default_factory=stats.Estimate.missing)
    detail: dict = field(default_factory=dict)
    more_reps: int | None = None

    key = _from_said("key")
    statement = _from_said("statement")
    source = _from_said("source")
    claimed = _from_said("claimed")
    region = _from_said("region")
    unit = _from_said("unit")
    quantity = _from_said("quantity")
    where = _from_said("where")
    note = _from_said("note")
    kind = _from_said("kind")
    bounds = _from_said("bounds")
    value = _from_estimate("value")
    low = _from_estimate("low")
    high = _from_estimate("high")
    n = _from_estimate("n")

    @property
    def decided(self) -> bool:
        return self.status in (SE_CONFIRMA, NO_SE_SOSTIENE)

    @property
    def too_few(self) -> bool:
        """Measured, but below MIN_N repetitions: no verdict, and `more_reps` says how many are needed."""
        return self.status == SIN_DATOS and 0 < self.n < max(MIN_N, self.estimate.needs)


def decide(low: float, high: float, *, region: tuple[float, float], claimed: float | None = None) -> str:
    """The one verdict rule, on the IC [low, high] and the claim's margin `region`: the IC inside the
    margin → se_confirma; the IC entirely outside it (high below its low end, or low above its high
    end) → no_se_sostiene; otherwise → no_concluyente. An IC that merely contains the claimed value
    confirms nothing, and one that excludes it refutes nothing while it still overlaps the margin.
    (`claimed` is accepted for old callers and not used: the margin already says it.)"""
    if stats.any_nan(low, high) or region is None or stats.any_nan(*region):
        return SIN_DATOS
    lo_r, hi_r = region
    if math.isinf(lo_r) and math.isinf(hi_r):
        return SIN_DATOS  # a claim without a margin cannot be judged
    if lo_r <= low and high <= hi_r:
        return SE_CONFIRMA
    if high < lo_r or low > hi_r:
        return NO_SE_SOSTIENE
    return NO_CONCLUYENTE


# ---------------------------------------------------------------- which way a figure points
# Readings of a figure that no source claimed («más lento», «favorece a Podman», «casi igual»): the same
# rule, through these two functions only (tests/course/test_decision_path.py keeps views, kit facts and
# tables from comparing a bound with a threshold themselves). Words: view.common.direction_words.
ABOVE, BELOW, LEVEL = "above", "below", "level"
ORDER = 2.0  # «del mismo orden»: within a factor 2 either way


def reading(low: float, high: float, n: int | None, *, region: tuple[float, float]) -> str:
    """`decide` on [low, high] against `region`, with no reading below MIN_N repetitions or without an
    interval (SIN_DATOS). n=None: an interval from helpers.stats, whose bounds are NaN below MIN_N."""
    if (n is not None and n < MIN_N) or stats.any_nan(low, high):
        return SIN_DATOS
    return decide(low, high, region=region)


def level_region(around: float = 1.0) -> tuple[float, float]:
    """The margin of «no difference» around `around` (margins.SAME): 0.95× … 1.05× around 1 (a ratio),
    ±5 points around 0 (a percentage), ±5 % around any other reference figure."""
    if around in (0, 1):
        return margin("no_difference", unit="%" if around == 0 else "x")
    step = abs(around) * SAME
    return (around - step, around + step)


def direction(low: float, high: float, n: int | None, *, around: float = 1.0) -> str:
    """Which way a figure with IC 95 % [low, high] over n repetitions points from `around` (1 for a
    ratio, 0 for a percentage or points, any other reference figure), by the one rule against the
    margin of «no difference» (`level_region`): ABOVE (the IC inside «adds», above the margin), BELOW
    (inside «reduces»), LEVEL (inside «no difference»), NO_CONCLUYENTE (none of these), SIN_DATOS (no
    interval, or fewer than MIN_N repetitions)."""
    lo_r, hi_r = level_region(around)
    # LEVEL first: an interval on the margin's very edge (both closed) reads «casi igual», not a side.
    for code, region in ((LEVEL, (lo_r, hi_r)), (ABOVE, (hi_r, INF)), (BELOW, (-INF, lo_r))):
        status = reading(low, high, n, region=region)
        if status == SIN_DATOS:
            return SIN_DATOS
        if status == SE_CONFIRMA:
            return code
    return NO_CONCLUYENTE


def repetitions_to_decide(
    value: float,
    low: float,
    high: float,
    n: int,
    *,
    region: tuple[float, float],
    claimed: float | None = None,
    cap: int = 10_000,
) -> int | None:
    """About how many repetitions would make an inconclusive IC decisive, assuming each side of it
    shrinks around `value` like 1/√n: to fit inside the margin (value inside it), or to clear the
    margin's nearer end (value outside it). Always more than the n already run; None where the model
    says nothing: an infinite or missing bound, a value on the margin's edge, more than `cap`."""
    if stats.any_nan(value, low, high) or n <= 0 or not all(math.isfinite(v) for v in (value, low, high)):
        return None
    lo_r, hi_r = region
    below, above = value - low, high - value  # the IC's two sides
    if below < 0 or above < 0 or below + above <= 0:
        return None
    if lo_r < value < hi_r:
        shrink = max(
            below / (value - lo_r) if math.isfinite(lo_r) else 0.0,
            above / (hi_r - value) if math.isfinite(hi_r) else 0.0,
        )
    elif value > hi_r:
        shrink = below / (value - hi_r)
    elif value < lo_r:
        shrink = above / (lo_r - value)
    else:
        return None
    if shrink <= 0:
        return None
    needed = math.ceil(n * shrink**2)
    if needed > cap:
        return None
    return max(needed, n + 1, MIN_N)


def judge(
    said: Said, estimate: stats.Estimate, *, unstable: bool = False, detail: dict | None = None
) -> Claim:
    """A Claim decided by the one rule (see the module docstring) on a figure with its interval."""
    value, low, high, n = estimate.value, estimate.low, estimate.high, estimate.n
    more = None
    if n <= 0 or stats.any_nan(value):
        status = SIN_DATOS
    elif n < max(MIN_N, estimate.needs):  # more than MIN_N where the method needs more (independent arms)
        status, more = SIN_DATOS, max(MIN_N, estimate.needs)
    elif unstable:
        status = INESTABLE
    else:
        status = decide(low, high, region=said.region)
        if status == NO_CONCLUYENTE:
            more = repetitions_to_decide(value, low, high, n, region=said.region)
    return Claim(said, status, estimate, dict(detail or {}), more)


# ---------------------------------------------------------------- builders
def missing(said: Said, detail: dict | None = None) -> Claim:
    """No data for this claim in this run (the arm was skipped, not selected, or failed)."""
    return judge(said, stats.Estimate.missing(), detail=detail)


def not_comparable(said: Said, reason: str, detail: dict | None = None) -> Claim:
    """Our setup cannot reproduce the source's: «no comparable», with the reason (Spanish)."""
    return Claim(said.but(note=reason), NO_COMPARABLE, detail=dict(detail or {}))


def _samples_unstable(*samples) -> bool:
    return any(stats.unstable(s) for s in samples)


def _ratio_unstable(a, b) -> bool:
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
    shaky = _ratio_unstable(numerator, denominator)
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
    shaky = _ratio_unstable(a, b) if percent else _samples_unstable(a, b)
    return judge(said, est, unstable=shaky, detail=_with_pairing(detail, est))


def outcome(said: Said, observed: Sequence[bool], *, detail: dict | None = None) -> Claim:
    """A deterministic result observed `len(observed)` times (True: the claimed thing happened): an
    observed outcome, not an estimate, so one observation decides. Confirmed when it happened every
    time, refuted when it never did, «no concluyente» when it varied; the value is the share of times
    it happened."""
    obs = [bool(o) for o in observed]
    if not obs:
        return missing(said, detail)
    share = sum(obs) / len(obs)
    status = SE_CONFIRMA if share == 1 else NO_SE_SOSTIENE if share == 0 else NO_CONCLUYENTE
    est = stats.Estimate(share, share, share, len(obs), stats.OUTCOME)
    detail = {**dict(detail or {}), "observado": True, "veces": len(obs), "exitos": sum(obs)}
    return Claim(said, status, est, detail)


# ---------------------------------------------------------------- the figure a claim is judged on
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
        where = {k: v(self.df, self.meta) if callable(v) else v for k, v in sel.where}
        return self.pick(self.df, self.meta, Sel(paired=sel.paired, **where))


@dataclass(frozen=True)
class Figure:
    """What a claim is judged on: a builder on the arms its selections pick (`Ratio`, `Difference`,
    `Median`, `Formula`), or a claim computed from the whole run (`Computed`, `Outcome`, `NotComparable`,
    `Custom`). Options every figure takes: detail, what the views need (never words; a value that is a
    function is computed from the run, fn(df, meta); or one function giving it all); optional: no claim
    at all (rather than «sin datos») when an arm has no values; missing_note: the claim's note when an
    arm has no values; when(df, meta): no claim at all when false (an engine this run did not measure);
    needs(df, meta): «sin datos» when false."""

    build: Callable  # build(said, *arms, detail=...) → Claim; or, with of_run, build(said, df, meta, detail)
    sels: tuple[Sel, ...] = ()
    of_run: bool = False
    detail: tuple[tuple[str, object], ...] | Callable = ()
    optional: bool = False
    missing_note: str = ""
    when: Callable | None = None
    needs: Callable | None = None

    def details(self, data: Data) -> dict:
        if callable(self.detail):
            return self.detail(data.df, data.meta)
        return {k: v(data.df, data.meta) if callable(v) else v for k, v in self.detail}

    def claim(self, said: Said, data: Data) -> Claim | list[Claim] | None:
        if self.of_run:
            return self.build(said, data.df, data.meta, self.details(data))
        samples = [data(sel) for sel in self.sels]
        if any(len(s) == 0 for s in samples):
            if self.optional:
                return None
            if self.missing_note:
                return missing(said.but(note=self.missing_note), self.details(data))
        return self.build(said, *samples, detail=self.details(data))


def _figure(build: Callable, sels=(), of_run=False, *, detail=None, **options) -> Figure:
    detail = detail if callable(detail) else tuple((detail or {}).items())
    return Figure(build, tuple(sels), of_run, detail, **options)


# The figures, named like the classes they stand for: each returns a Figure.
def Ratio(num: Sel, den: Sel, **options) -> Figure:
    """num / den (see `ratio`)."""
    return _figure(ratio, (num, den), **options)


def Difference(a: Sel, b: Sel, *, percent: bool = False, **options) -> Figure:
    """a − b, or (a / b − 1) × 100 with percent=True (see `difference`)."""
    return _figure(
        lambda said, x, y, detail: difference(said, x, y, percent=percent, detail=detail), (a, b), **options
    )


def Median(sel: Sel, **options) -> Figure:
    """One arm's median (see `median`)."""
    return _figure(median, (sel,), **options)


def Formula(fn: Callable, *sels: Sel, scale: float = 1.0, **options) -> Figure:
    """fn(*arms) × scale (see `formula`)."""
    return _figure(
        lambda said, *arms, detail: formula(said, fn, *arms, scale=scale, detail=detail), sels, **options
    )


def Computed(fn: Callable, **options) -> Figure:
    """A figure the experiment computes with its own interval (a slope, a crossover, a spread):
    fn(df, meta) → stats.Estimate, judged as it comes; no figure (n = 0) → «sin datos»."""

    def build(said, df, meta, detail):
        est = fn(df, meta)
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


def Custom(fn: Callable, **options) -> Figure:
    """The rare claim no other figure says: fn(said, df, meta) → a Claim (from the builders), a list of
    them, or None for no claim in this run."""
    return _figure(lambda said, df, meta, detail: fn(said, df, meta), of_run=True, **options)


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
    words it (a note on the run's setup, the server or engine in its quantity)."""
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
        if figure.needs is not None and not figure.needs(df, meta):
            out.append(missing(s))
            continue
        claim = figure.claim(s, data)
        out.extend(claim if isinstance(claim, list) else [] if claim is None else [claim])
    return out


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
    «coincide» (inside), «no_coincide» (entirely outside), «no_concluyente» (neither), «sin_datos» (no
    live IC). Two wide intervals no longer «coinciden»: they are «no_concluyente»."""
    _, low, high = agreement_interval(live, ref)
    if stats.any_nan(low, high):
        return SIN_DATOS
    region = margin(kind, 1.0, "x") if _quotient(live, ref) else (-AGREEMENT_POINTS, AGREEMENT_POINTS)
    status = decide(low, high, region=region)
    return {SE_CONFIRMA: COINCIDE, NO_SE_SOSTIENE: NO_COINCIDE}.get(status, status)
