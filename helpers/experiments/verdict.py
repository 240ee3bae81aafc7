"""The one verdict rule, the margin of each kind of claim, the claim as said and as judged, and the minimum
number of repetitions. No experiment decides a verdict any other way.

A claim is declared once, as its source said it (`Said`), with its `kind` (how the source said it: «~2×»,
«+11 %», «casi igual», «al menos la cuarta parte», «24-30 %»…), which with the claimed figure gives its
margin (`MARGINS`, one table for every notebook; `margin`), and with the figure it is judged on:

    PODMAN_2X = Said("podman_2x", "Podman es ~2x más rápido que Docker en el arranque", SOURCE,
                     claimed=0.5, kind="about", quantity="Podman/Docker", unit="x",
                     figure=Ratio(Sel(engine="podman", metric="arranque"), Sel(engine="docker", metric="arranque")))
    judge_all(SAID, df, meta)   # every declaration judged on its figure in this run

The figure (`Ratio`, `Median`, …, `Sel`, `judge_all`) and its interval are helpers/experiments/figures.py's
job: it picks the arms, computes the figure as a `stats.Estimate` and hands it to `judge` here, which
decides it (figures imports this module; this module never imports figures):

- no data → «sin datos»; fewer than MIN_N repetitions (rounds) → «sin datos» too, with the number needed
  (`Claim.more_reps`): no interval below it reaches 95 %;
- a measurement whose spread dwarfs its median → «inestable»;
- the IC lies inside the claim's margin → «se confirma»;
- the IC lies entirely outside the margin → «no se sostiene»;
- otherwise → «no concluyente», with about how many repetitions would decide it 8 times in 10 (a power
  calculation on this run's median and spread, `stats.rounds_to_decide`: for a median of one sample or of
  per-round figures, nearly every figure of the course; the box and the bootstrap give no number);
- a claim that no reasonable n decides → «indecidible»: its figure and IC, no verdict, and the reason,
  declared before the run (`Said.undecidable`, from a simulation of its power). One run never decides
  that: its median and spread are too uncertain to say that no n would do (a plug-in power calculation
  from runs of 6-10 rounds called 40-55 % of claims that 50-110 rounds decide «never», in simulation).

Every judged claim carries in `detail["resolucion"]` the smallest effect its run can tell apart
(`resolution`): half its IC 95 %, as a factor (÷/×) on a ratio, in the claim's unit otherwise.

The claims decided without an interval are built here too: `missing` (no data), `not_comparable` (our
setup cannot reproduce the source's) and `outcome` (a deterministic result, observed at least
MIN_OBSERVED times; fewer → «sin datos», with the number needed). `beside` shows this machine's absolute
figure next to a claim, unjudged, where the source's came from other CPUs (OTHER_MACHINE). Readings of a
figure no source claimed («más lento», «casi igual») go through the same rule (`reading`, `direction`).

The Spanish sentence of a claim is rendered by one function (`view.common.claim_sentence`) from the
declared fields: statement, source, where, quantity, unit, claimed, kind, region, note.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .. import stats
from . import load
from .margins import ABOUT as ABOUT
from .margins import EFFECT as EFFECT
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
BAJO_CARGA = load.LOADED  # the machine's load varied between rounds: no verdict (experiments/load.py)
INDECIDIBLE = (
    "indecidible"  # no reasonable n decides it (declared, or this run's noise): a figure, no verdict
)
STATUSES = (
    SE_CONFIRMA,
    NO_SE_SOSTIENE,
    NO_CONCLUYENTE,
    INESTABLE,
    SIN_DATOS,
    NO_COMPARABLE,
    BAJO_CARGA,
    INDECIDIBLE,
)
# The most repetitions a power calculation looks for (`stats.rounds_to_decide`): beyond them an
# inconclusive claim says «más de 200», not «unas 5 500».
PRACTICAL_REPS = 200

# Fewer repetitions than this: no verdict. Derived from coverage: the fewest values whose
# distribution-free interval for a median reaches 95 % (6: [min, max] covers it 96.9 % of the time).
MIN_N = stats.MIN_N
# Fewer observations of a deterministic result than this: no verdict (`outcome`). One run that saw a thing
# once may have caught an accident (a leftover container, a busy host); three that agree are a result.
MIN_OBSERVED = 3
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
    `Median`, `Difference`, `Formula`, `Outcome`, `Computed`, `Custom`: a `figures.Figure`; see
    `figures.judge_all`).

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
    figure: object | None = None  # a figures.Figure (figures imports this module, never the reverse)
    undecidable: str = ""  # why no reasonable n decides it (Spanish, from a simulation): no verdict
    # False: its figure is memory, a size on disk, a count or a kernel constant, which the CPU load of the
    # rest of the machine does not move: the load gate leaves it alone (experiments/load.py)
    moved_by_cpu: bool = True

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
    value and IC), the status the one rule gave, more_reps (how many repetitions would decide it, 8 times in 10) and
    detail, what a view needs beyond that (never words). The declared fields read through to `said`."""

    said: Said
    status: str
    estimate: stats.Estimate = field(default_factory=stats.Estimate.missing)
    detail: dict = field(default_factory=dict)
    more_reps: float | None = None  # a count, or math.inf: «más de PRACTICAL_REPS»
    # Its rounds' load was screened by its own figure (figures.Figure.claim): a figure that wraps it
    # (figures.Custom) does not screen it again on the whole run's load.
    screened: bool = field(default=False, repr=False, compare=False)

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
    """The margin of «no difference» around `around` (margins.SAME): 1/1.05× … 1.05× around 1 (a ratio),
    −4.76 … +5 points around 0 (a percent change), ÷/× 1.05 around any other positive reference figure
    (±5 % around a negative one)."""
    if around in (0, 1):
        return margin("no_difference", unit="%" if around == 0 else "x")
    if around > 0:
        return (around / (1 + SAME), around * (1 + SAME))
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


# An interval direction() leaves undecided (neither inside «no difference» nor beyond it) that still
# lies entirely on one side of `around`: the figure points that way, without telling whether by more than
# «casi igual». «No se distingue hacia qué lado» is only an interval that holds `around` (`side`).
ABOVE_NULL, BELOW_NULL = "above_null", "below_null"


def side(low: float, high: float, n: int | None, *, around: float = 1.0) -> str:
    """`direction`, with its NO_CONCLUYENTE split by the one rule: ABOVE_NULL when the whole IC lies
    above `around` (it refutes «at most `around`»), BELOW_NULL when it lies below it, NO_CONCLUYENTE only
    when it holds `around`."""
    code = direction(low, high, n, around=around)
    if code != NO_CONCLUYENTE:
        return code
    if reading(low, high, n, region=(-INF, around)) == NO_SE_SOSTIENE:
        return ABOVE_NULL
    if reading(low, high, n, region=(around, INF)) == NO_SE_SOSTIENE:
        return BELOW_NULL
    return code


def exceeds(low: float, high: float, n: int | None, *, than: float = 0.0) -> bool:
    """Whether a figure with IC 95 % [low, high] over n repetitions lies above `than`, by the one rule:
    the claim «more than `than`» (the margin (than, ∞)) confirmed. For «which of two weighs more»: the
    paired difference of the two, round by round, above 0; intervals of the two side by side that merely
    do not overlap are not this test (two medians' intervals can overlap while every round says the same
    one is larger)."""
    return reading(low, high, n, region=(than, INF)) == SE_CONFIRMA


def resolution(estimate: stats.Estimate, unit: str) -> float:
    """The smallest effect a run with this IC can tell apart: half the IC 95 %, as a factor on a ratio
    (exp of half its width in log) and in the figure's unit otherwise; NaN without an interval. A
    figure confirms only a margin at least this wide on each side of it, and refutes only a margin at
    least this far from it."""
    low, high = estimate.low, estimate.high
    if stats.any_nan(low, high) or not (math.isfinite(low) and math.isfinite(high)):
        return math.nan
    if unit == "x" and low > 0:
        return math.exp((math.log(high) - math.log(low)) / 2)
    return (high - low) / 2


def judge(
    said: Said, estimate: stats.Estimate, *, unstable: bool = False, detail: dict | None = None
) -> Claim:
    """A Claim decided by the one rule (see the module docstring) on a figure with its interval."""
    value, low, high, n = estimate.value, estimate.low, estimate.high, estimate.n
    more = None
    detail = dict(detail or {})
    if n <= 0 or stats.any_nan(value):
        status = SIN_DATOS
    elif n < max(MIN_N, estimate.needs):  # more than MIN_N where the method needs more (independent arms)
        status, more = SIN_DATOS, max(MIN_N, estimate.needs)
    elif unstable:
        status = INESTABLE
    else:
        status = decide(low, high, region=said.region)
        if status == NO_CONCLUYENTE:
            more = stats.rounds_to_decide(estimate, said.region, cap=PRACTICAL_REPS)
        detail["resolucion"] = resolution(estimate, said.unit)
        if said.undecidable:
            status, more = INDECIDIBLE, None
    return Claim(said, status, estimate, detail, more)


# ---------------------------------------------------------------- builders
def missing(said: Said, detail: dict | None = None) -> Claim:
    """No data for this claim in this run (the arm was skipped, not selected, or failed)."""
    return judge(said, stats.Estimate.missing(), detail=detail)


# The reason every absolute figure a source measured on other CPUs (ns, µs, ms per call, requests per
# second…) is «no comparable»: what a source's machine took says nothing about this one, and a course
# machine is often a VM. Its relative figures (a ratio, a percentage over its own baseline) are judged.
OTHER_MACHINE = "Una cifra absoluta de otra máquina no se compara con la tuya."


# The detail key of an absolute figure of this machine shown beside a claim and never judged (`beside`):
# the source's absolute figure came from other CPUs (OTHER_MACHINE). The view words it.
BESIDE = "cifra_absoluta"


def not_comparable(said: Said, reason: str, detail: dict | None = None) -> Claim:
    """Our setup cannot reproduce the source's: «no comparable», with the reason (Spanish)."""
    return Claim(said.but(note=reason), NO_COMPARABLE, detail=dict(detail or {}))


def beside(claim: Claim, figure: stats.Estimate | None, unit: str) -> Claim:
    """The claim with this machine's absolute figure (value, IC 95 %, n, in `unit`) shown beside it in
    detail[BESIDE], unjudged: the claim is judged on a figure that travels across machines (a ratio over
    the source's own other side), or is «no comparable» (OTHER_MACHINE). Unchanged without a figure."""
    if figure is None or figure.n <= 0 or stats.any_nan(figure.value):
        return claim
    shown = {"valor": figure.value, "bajo": figure.low, "alto": figure.high, "n": figure.n, "unidad": unit}
    return replace(claim, detail={**claim.detail, BESIDE: shown})


def outcome(said: Said, observed: Sequence[bool], *, detail: dict | None = None) -> Claim:
    """A deterministic result observed `len(observed)` times (True: the claimed thing happened): an
    observed outcome, not an estimate, so it needs no interval, but it needs MIN_OBSERVED observations:
    fewer → «sin datos» with `more_reps` = MIN_OBSERVED (the view shows what was observed, no verdict).
    From MIN_OBSERVED on: confirmed when it happened every time, refuted when it never did, «no
    concluyente» when it varied; the value is the share of times it happened."""
    obs = [bool(o) for o in observed]
    if not obs:
        return missing(said, detail)
    share = sum(obs) / len(obs)
    more = None
    if len(obs) < MIN_OBSERVED:
        status, more = SIN_DATOS, MIN_OBSERVED
    else:
        status = SE_CONFIRMA if share == 1 else NO_SE_SOSTIENE if share == 0 else NO_CONCLUYENTE
    est = stats.Estimate(share, share, share, len(obs), stats.OUTCOME, needs=MIN_OBSERVED)
    detail = {**dict(detail or {}), "observado": True, "veces": len(obs), "exitos": sum(obs)}
    return Claim(said, status, est, detail, more)


def too_few_observed(claim) -> bool:
    """An observed outcome (a Claim, or a row read back from a run) with fewer than MIN_OBSERVED
    observations: what was seen, no verdict."""
    observed = bool((getattr(claim, "detail", None) or {}).get("observado"))
    return claim.status == SIN_DATOS and observed and 0 < getattr(claim, "n", 0) < MIN_OBSERVED
