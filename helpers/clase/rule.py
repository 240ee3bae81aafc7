"""The class rule: how the machines of a class decide a claim that one machine cannot.

A machine enters with the figure its own run could claim: the experiment's own claim, when its status
carries an IC 95 % (`ELIGIBLE`: not «bajo carga», not below MIN_N rounds, not «inestable», not «no
comparable»). Each machine enters once, and no reference source ever enters. On those m machines the
class asks two questions, each decided by the one rule (verdict.judge):

- **The typical machine**: the median of the machines' figures, with the order-statistic interval over
  the machines (stats.median_ci with n = m machines): at least 95 % for the median of the population of
  machines the class samples, whatever its law. Fewer than MIN_N machines: «sin datos». As the class
  grows its interval narrows, so a true claim is confirmed more often.
- **Machines apart**: the machines whose own IC 95 % lies entirely above the margin, and those entirely
  below it. A machine whose true figure is inside the margin falls entirely on one side at most
  (1 − LEVEL)/2 of the time (the intervals are equal-tailed), so while every machine is inside, the
  count on each side is at most Binomial(m, 2.5 %): an exact one-sided binomial test per side
  (scipy.stats.binomtest) at ALPHA_SIDE = 1.25 % says when more fall apart than chance explains
  (both sides together: 2.5 %, Bonferroni). The machines apart are always named.

The class: «no se sostiene» when the typical machine's IC lies entirely outside the margin, or when one
side has more machines apart than chance explains (the claim does not hold on every machine: an exact
test, valid from two machines on); below MIN_N machines, otherwise, «sin datos»; «se
confirma» when the typical machine's IC lies inside the margin and neither side has more than chance;
otherwise the typical machine's status («no concluyente», or «indecidible» when no class of a
reasonable size would decide it). With every machine inside the margin, a false «no se sostiene» comes
at most 2.5 % of the time from the typical machine (per side of the margin) and 2.5 % from the counts;
helpers/clase/power.py measures the rule's errors and power by simulation.

«Parecido en CPU distintas» (`about_centre`): each machine's figure is its distance to the median of the
*other* machines of the class (sources never in that centre), and the typical machine is the median of
those distances (how far the typical CPU is from the others), judged against its own declaration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import stats as sps

from .. import stats
from ..experiments import verdict as vd
from ..experiments.figures import WITH_INTERVAL

ELIGIBLE = frozenset(WITH_INTERVAL)  # a machine's own claim with one of these statuses carries an IC 95 %
MIN_MACHINES = vd.MIN_N  # the typical machine's interval needs this many machines
SIDE_MISS = (1 - stats.LEVEL) / 2  # how often an IC 95 % lies entirely on one side of the true figure
ALPHA_SIDE = (1 - stats.LEVEL) / 4  # each side's count test: the two together 2.5 % (Bonferroni)


def eligible(claim: vd.Claim) -> bool:
    """True when a machine's own claim carries an IC 95 % its run could claim (see ELIGIBLE)."""
    return (
        claim.status in ELIGIBLE
        and claim.n >= vd.MIN_N
        and not stats.any_nan(claim.value, claim.low, claim.high)
        and bool(np.isfinite(claim.value))
    )


@lru_cache(maxsize=512)
def apart_threshold(machines: int) -> int:
    """The fewest machines on one side of the margin that chance alone does not explain, out of
    `machines` (the exact one-sided binomial test at ALPHA_SIDE, each machine apart by chance at most
    SIDE_MISS of the time); machines + 1 when no count is enough."""
    for k in range(1, machines + 1):
        if sps.binomtest(k, machines, SIDE_MISS, alternative="greater").pvalue <= ALPHA_SIDE:
            return k
    return machines + 1


def centres_without_each(values: np.ndarray) -> np.ndarray:
    """For each machine, the median of the other machines' values (along the last axis; NaN with only
    one machine)."""
    values = np.asarray(values, dtype=float)
    m = values.shape[-1]
    if m < 2:
        return np.full(values.shape, np.nan)
    others = ~np.eye(m, dtype=bool)
    stacked = np.broadcast_to(values[..., None, :], (*values.shape, m))[..., others].reshape(
        *values.shape, m - 1
    )
    return np.median(stacked, axis=-1)


ABOVE, BELOW = "above", "below"


def apart_side(low: float, high: float, region: tuple[float, float]) -> str:
    """Whether a machine's IC lies entirely above the margin (ABOVE), entirely below it (BELOW), or
    neither (""), by the one rule: entirely outside (−∞, the margin's high end], or [its low end, ∞)."""
    if vd.decide(low, high, region=region) != vd.NO_SE_SOSTIENE:
        return ""
    return ABOVE if vd.decide(low, high, region=(-vd.INF, region[1])) == vd.NO_SE_SOSTIENE else BELOW


@dataclass
class Judgement:
    """The class's answer on one claim: its status, the typical machine (a Claim whose n counts
    machines), each machine's figure as the rule reads it (`figures`: name → (value, low, high)), the
    machines apart above and below the margin, and how many on one side chance does not explain."""

    status: str
    typical: vd.Claim
    machines: int
    figures: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    above: list[str] = field(default_factory=list)
    below: list[str] = field(default_factory=list)
    threshold: int = 0

    @property
    def apart(self) -> list[str]:
        return self.above + self.below

    @property
    def too_many_apart(self) -> bool:
        return self.machines >= 1 and max(len(self.above), len(self.below)) >= self.threshold


@dataclass(frozen=True)
class ClassRule:
    """The rule for one claim: `said`, the per-machine declaration (its margin); `typical`, what the
    typical machine is judged on (default: `said`); `about_centre`, the machines' figures are first
    taken as distances to the median of the others (see the module docstring)."""

    said: vd.Said
    typical: vd.Said | None = None
    about_centre: bool = False

    def judge(
        self, names: Sequence[str], values: Sequence[float], lows: Sequence[float], highs: Sequence[float]
    ) -> Judgement:
        """The class rule (module docstring) on the eligible machines' figures with their IC 95 %."""
        values, lows, highs = (np.asarray(a, dtype=float) for a in (values, lows, highs))
        names = list(names)
        typical_values = values
        if self.about_centre:
            centres = centres_without_each(values)
            values, lows, highs = values - centres, lows - centres, highs - centres
            typical_values = np.abs(values)
        m = len(names)
        typical_said = (self.typical or self.said).but(undecidable="")
        typical = vd.judge(typical_said, stats.median_ci(typical_values).but(n=m))
        typical.detail["maquinas"] = m
        above, below = [], []
        for name, low, high in zip(names, lows, highs, strict=True):
            side = apart_side(low, high, self.said.region)
            (above if side == ABOVE else below if side == BELOW else []).append(name)
        out = Judgement(
            typical.status,
            typical,
            m,
            {n: (float(v), float(lo), float(hi)) for n, v, lo, hi in zip(names, values, lows, highs)},
            above,
            below,
            apart_threshold(m) if m else 1,
        )
        if out.too_many_apart or typical.status == vd.NO_SE_SOSTIENE:
            out.status = vd.NO_SE_SOSTIENE
        elif m < MIN_MACHINES:
            out.status = vd.SIN_DATOS
        return out
