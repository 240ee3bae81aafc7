"""The one verdict rule, the claim builders and the minimum number of repetitions. No experiment
decides a verdict any other way.

A claim is declared once, as its source said it (`Said`), and judged by a builder on the run's data:

    PODMAN_2X = Said("podman_2x", "Podman es ~2x más rápido que Docker en el arranque", SOURCE,
                     claimed=0.5, region=(0.4, 0.625), quantity="Podman/Docker", unit="x")
    ratio(PODMAN_2X, podman_times, docker_times)

Builders: `ratio` (ratio of the medians of two arms), `median` (one arm's median against a figure),
`difference` (difference of two arms' medians, absolute or in %), `estimate` (a figure the experiment
computed with its own interval: a slope, a crossover), `outcome` (a deterministic result: a step that
works or fails), `missing` (no data). Each returns a `Claim`, decided by `judge`:

- below MIN_N repetitions → «sin datos» (no verdict without an interval);
- a measurement whose spread dwarfs its median → «inestable»;
- the IC lies inside the claim's margin → «se confirma»;
- otherwise, the IC excludes the claimed value → «no se sostiene»;
- otherwise → «no concluyente», with about how many repetitions would decide it.

The Spanish sentence of a claim is rendered by one function (`view.common.claim_sentence`) from the
declared fields: statement, source, where, quantity, unit, claimed, region, note.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from .. import measure

SE_CONFIRMA = "se_confirma"
NO_SE_SOSTIENE = "no_se_sostiene"
NO_CONCLUYENTE = "no_concluyente"
INESTABLE = "inestable"
SIN_DATOS = "sin_datos"
NO_COMPARABLE = "no_comparable"
STATUSES = (SE_CONFIRMA, NO_SE_SOSTIENE, NO_CONCLUYENTE, INESTABLE, SIN_DATOS, NO_COMPARABLE)

MIN_N = 2  # fewer repetitions than this: no interval, no verdict


@dataclass(frozen=True)
class Said:
    """A claim as its source said it, with what counts as «the claim» (its margin).

    key: a stable identifier other experiments and views may refer to; statement: the claim in Spanish,
    in the source's form; source: the source as the reader sees it («el capítulo original», a
    document's title); where: section or table of the source; claimed: the figure claimed; region: the
    margin (low, high) within which a measured interval confirms it; quantity: what is measured, in
    Spanish («Podman/Docker, imagen ubuntu»); unit: how the figure reads: "x" (ratio), "%" (percent),
    "ms", "ns", "MiB", "" (a count); note: a Spanish sentence the verdict line carries (the
    conditions of our setup, a correction the course makes)."""

    key: str
    statement: str
    source: str
    claimed: float = float("nan")
    region: tuple[float, float] = (float("-inf"), float("inf"))
    quantity: str = ""
    unit: str = "x"
    where: str = ""
    note: str = ""

    def but(self, **changes) -> Said:
        """The same declaration with some fields changed (a per-image variant, say)."""
        return replace(self, **changes)


@dataclass
class Claim:
    """A claim judged on live data. The declared fields come from its `Said`; status, value, low,
    high, n and more_reps from the data; detail holds what a view needs beyond that (never words)."""

    key: str
    statement: str
    status: str
    value: float = float("nan")
    low: float = float("nan")
    high: float = float("nan")
    detail: dict = field(default_factory=dict)
    source: str = ""
    claimed: float = float("nan")
    region: tuple[float, float] = (float("-inf"), float("inf"))
    unit: str = ""
    n: int = 0
    more_reps: int | None = None
    quantity: str = ""
    where: str = ""
    note: str = ""

    @property
    def decided(self) -> bool:
        return self.status in (SE_CONFIRMA, NO_SE_SOSTIENE)


def _nan(*values) -> bool:
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


def decide(low: float, high: float, *, claimed: float, region: tuple[float, float]) -> str:
    """The one verdict rule. The IC [low, high] lies inside the claim's margin `region` → se_confirma;
    otherwise, the IC excludes the claimed value → no_se_sostiene; otherwise → no_concluyente.
    A claim of "no difference" (claimed 1, region (0.95, 1.05) say) is confirmed only when the whole
    IC lies inside the margin: an IC that merely contains 1 is no_concluyente."""
    if _nan(low, high, claimed):
        return SIN_DATOS
    lo_r, hi_r = region
    if lo_r <= low and high <= hi_r:
        return SE_CONFIRMA
    if claimed < low or claimed > high:
        return NO_SE_SOSTIENE
    return NO_CONCLUYENTE


def repetitions_to_decide(
    value: float,
    low: float,
    high: float,
    n: int,
    *,
    claimed: float,
    region: tuple[float, float],
    cap: int = 10_000,
) -> int | None:
    """About how many repetitions would make an inconclusive IC decisive, assuming its width shrinks
    like 1/sqrt(n): enough to fit inside the margin around `value`, or to exclude `claimed`."""
    if _nan(value, low, high) or n <= 0 or high <= low:
        return None
    half = (high - low) / 2
    targets = [abs(value - claimed)]  # exclude the claimed value
    if region[0] <= value <= region[1]:
        targets.append(min(value - region[0], region[1] - value))  # fit inside the margin
    target = max(targets)
    if target <= 0 or not math.isfinite(target):
        return None if target <= 0 else n
    needed = math.ceil(n * (half / target) ** 2)
    return min(max(needed, n + 1), cap)


def judge(
    said: Said,
    value: float,
    low: float,
    high: float,
    *,
    n: int,
    unstable: bool = False,
    detail: dict | None = None,
) -> Claim:
    """A Claim decided by the one rule (see the module docstring)."""
    if n < MIN_N:
        status = SIN_DATOS
    elif unstable:
        status = INESTABLE
    else:
        status = decide(low, high, claimed=said.claimed, region=said.region)
    more = (
        repetitions_to_decide(value, low, high, n, claimed=said.claimed, region=said.region)
        if status == NO_CONCLUYENTE
        else None
    )
    return Claim(
        key=said.key,
        statement=said.statement,
        status=status,
        value=value,
        low=low,
        high=high,
        detail=dict(detail or {}),
        source=said.source,
        claimed=said.claimed,
        region=tuple(said.region),
        unit=said.unit,
        n=int(n),
        more_reps=more,
        quantity=said.quantity,
        where=said.where,
        note=said.note,
    )


# ---------------------------------------------------------------- builders
def missing(said: Said, detail: dict | None = None) -> Claim:
    """No data for this claim in this run (the arm was skipped, not selected, or failed)."""
    return judge(said, float("nan"), float("nan"), float("nan"), n=0, detail=detail)


def not_comparable(said: Said, reason: str, detail: dict | None = None) -> Claim:
    """Our setup cannot reproduce the source's: «no comparable», with the reason (Spanish)."""
    claim = missing(said, detail)
    claim.status = NO_COMPARABLE
    claim.note = reason
    return claim


def ratio(said: Said, numerator, denominator, *, detail: dict | None = None) -> Claim:
    """The ratio of medians numerator/denominator (raw repetitions of two arms) with its bootstrap IC;
    «inestable» when either arm's spread dwarfs its median."""
    num, den = measure._values(numerator), measure._values(denominator)
    if num.size == 0 or den.size == 0:
        return missing(said, detail)
    value, low, high = measure.bootstrap_ratio_ci(num, den)
    shaky = measure.unstable(num) or measure.unstable(den)
    return judge(said, value, low, high, n=int(min(num.size, den.size)), unstable=shaky, detail=detail)


def median(said: Said, values, *, detail: dict | None = None) -> Claim:
    """One arm's median (bootstrap IC) against the claimed figure."""
    arr = measure._values(values)
    if arr.size == 0:
        return missing(said, detail)
    low, high = measure.bootstrap_median_ci(arr)
    return judge(
        said, float(np.median(arr)), low, high, n=int(arr.size), unstable=measure.unstable(arr), detail=detail
    )


def difference(said: Said, a, b, *, percent: bool = False, detail: dict | None = None) -> Claim:
    """median(a) - median(b) (or, with percent=True, (median(a) / median(b) - 1) × 100) with its
    bootstrap IC, against the claimed figure."""
    arr_a, arr_b = measure._values(a), measure._values(b)
    if arr_a.size == 0 or arr_b.size == 0:
        return missing(said, detail)
    if percent:
        value, low, high = measure.bootstrap_medians_ci(lambda x, y: (x / y - 1) * 100, arr_a, arr_b)
    else:
        value, low, high = measure.bootstrap_diff_ci(arr_a, arr_b)
    shaky = measure.unstable(arr_a) or measure.unstable(arr_b)
    return judge(said, value, low, high, n=int(min(arr_a.size, arr_b.size)), unstable=shaky, detail=detail)


def estimate(
    said: Said,
    value: float,
    low: float,
    high: float,
    *,
    n: int,
    unstable: bool = False,
    detail: dict | None = None,
) -> Claim:
    """A figure the experiment computed with its own interval (a regression slope, a crossover, a
    share of a waterfall), judged by the same rule."""
    return judge(said, value, low, high, n=n, unstable=unstable, detail=detail)


def outcome(said: Said, observed: Sequence[bool], *, detail: dict | None = None) -> Claim:
    """A deterministic result observed `len(observed)` times (True: the claimed thing happened).
    The claim is confirmed when it happened every time, refuted when it never did, and «no
    concluyente» when it varied; the value is the share of times it happened."""
    obs = [bool(o) for o in observed]
    if not obs:
        return missing(said, detail)
    share = sum(obs) / len(obs)
    claim = judge(said.but(claimed=1.0, region=(1.0, 1.0)), share, share, share, n=max(len(obs), MIN_N))
    if 0 < share < 1:
        claim.status, claim.more_reps = NO_CONCLUYENTE, None
    claim.n = len(obs)
    claim.claimed, claim.region, claim.unit = said.claimed, tuple(said.region), said.unit or ""
    claim.detail = {**dict(detail or {}), "observado": True, "veces": len(obs), "exitos": sum(obs)}
    return claim


# ---------------------------------------------------------------- agreement with the reference
COINCIDE = "coincide"
NO_COINCIDE = "no_coincide"


def agreement(live: tuple[float, float, float], ref: tuple[float, float, float]) -> str:
    """Does a live figure agree with the reference's? Both are (value, low, high) with their IC 95 %
    (the reference's bootstrapped from its own raw repetitions where it has them; a single published
    figure is its own degenerate interval). They agree when the intervals overlap: «coincide»;
    disjoint intervals: «no_coincide»; a missing side: «sin_datos»."""
    (_, a_low, a_high), (ref_value, b_low, b_high) = live, ref
    if _nan(b_low, b_high) and not _nan(ref_value):
        b_low = b_high = ref_value
    if _nan(a_low, a_high, b_low, b_high):
        return SIN_DATOS
    return COINCIDE if measure.intervals_overlap((a_low, a_high), (b_low, b_high)) else NO_COINCIDE
