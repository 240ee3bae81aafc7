"""The course's statistics: medians, intervals that really are 95 % (coverage tested by simulation in
tests/core/test_coverage.py), and published figures that are not samples.

The method, written once (meta.json records `method()`, the notebooks' «Cómo medimos» says it):

- **One arm's median**: the distribution-free order-statistic interval (the sign test's, from
  `scipy.stats.binom`): [x(k), x(n−k+1)] with the largest k such that P(Binom(n, ½) ≤ k−1) ≤ 2.5 %.
  Its coverage is at least 95 % for any continuous distribution (skewed, heavy-tailed), with no
  resampling; it needs n ≥ 6 (with 6 values, [min, max] covers the median 96.9 % of the time).
- **Arms measured in the same rounds** (pandas Series indexed by round, the `rep` of raw.csv): the
  figure is computed round by round (a/b, a − b, (a/b − 1)·100, any fn(a, b, c)) and its median gets the
  same interval. A drift that multiplies both arms of a round cancels in a per-round ratio, and while
  the rounds are independent the interval is exact for the median of the per-round figure. Load that
  adds time and persists across rounds neither cancels nor leaves the rounds independent: the
  verdicts screen each figure's rounds by the load they recorded (experiments/load.py).
- **Independent arms** (plain arrays): a function of the arms' medians, with a conservative interval
  that needs no distribution either: each of the k arms' medians gets its order-statistic interval at
  level^(1/k), so that all k hold at once with probability ≥ level (the arms are independent), and the
  figure's interval is its least and greatest value over that box, found at its corners. That bounds
  the figure whenever it is monotone in each arm or a ratio of linear functions of the arms (a ratio,
  a difference, a percentage, a share, a slope: every figure of the course). A percentile bootstrap
  fell to 0.91-0.945 on bimodal arms and unequal spreads at n = 6-10; this box never falls below its
  level, at the price of width (and of one more repetition: 7 per arm for two arms).
- Below `MIN_N` values (or rounds) no interval is called 95 %: every function returns NaN bounds.
- Quantiles for the IQR: numpy's "linear" method (Hyndman & Fan type 7).
- A published range (a source's «24-30 %») is a range: `published` shows it as (low, high), never
  resampled; a single published figure has no interval.

Pass pandas Series indexed by round to say «paired by round» (they are aligned on their common index;
several values of one round are first reduced to their median); pass lists or numpy arrays for
independent arms.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import stats as sps

LEVEL = 0.95
QUANTILE_METHOD = "linear"  # numpy default; Hyndman & Fan type 7
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261122
NAN = float("nan")

# How an Estimate's interval was computed (Estimate.method)
ORDER = "orden"  # the order-statistic interval of a median (of one arm, or of per-round figures)
BOOTSTRAP = "bootstrap"  # percentile bootstrap (kept for figures that are not functions of medians)
BOX = "caja"  # independent arms: each median's interval at level^(1/k), the figure at the box's corners
RANGE_METHOD = "rango_publicado"  # a published range, not a sample
OUTCOME = "resultado"  # a deterministic result observed n times: no interval, a share


@dataclass(frozen=True)
class Estimate:
    """A figure with its IC 95 %: value, low, high, the n independent repetitions behind it (rounds
    for paired arms), how the interval was computed (`method`: ORDER, BOOTSTRAP, or a caller's own
    code) and whether the arms were paired by round. NaN bounds: no interval (below MIN_N, or none)."""

    value: float = NAN
    low: float = NAN
    high: float = NAN
    n: int = 0
    method: str = ""
    paired: bool = False
    needs: int = 0  # the fewest repetitions its method needs for an interval (0: MIN_N, one arm's)
    # The spread of the values whose median it is (ORDER: `spread`), for a power calculation
    # (`rounds_to_decide`); NaN where the figure is not one sample's median (the box, a bootstrap).
    spread: float = field(default=NAN, compare=False)

    @classmethod
    def missing(cls, n: int = 0, *, method: str = "", paired: bool = False) -> Estimate:
        """No figure (no data, or a figure that is undefined): NaN value and bounds."""
        return cls(NAN, NAN, NAN, int(n), method, paired)

    @property
    def has_interval(self) -> bool:
        return not (np.isnan(self.low) or np.isnan(self.high))

    @property
    def interval(self) -> tuple[float, float]:
        return self.low, self.high

    @property
    def triple(self) -> tuple[float, float, float]:
        """(value, low, high), for a table that keeps them in three columns."""
        return self.value, self.low, self.high

    def but(self, **changes) -> Estimate:
        return replace(self, **changes)

    def scaled(self, factor: float) -> Estimate:
        """The same estimate in another unit (× factor)."""
        return replace(
            self,
            value=self.value * factor,
            low=self.low * factor,
            high=self.high * factor,
            spread=self.spread * abs(factor),
        )


# ---------------------------------------------------------------- values
def any_nan(*values) -> bool:
    """True when any of the values is None or a float NaN (a figure that is not there)."""
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


def values(data: Iterable[float]) -> np.ndarray:
    """The finite-or-infinite (not NaN) values of a sample, as a float array."""
    if isinstance(data, pd.Series):
        arr = data.to_numpy(dtype=float)
    else:
        arr = np.asarray(list(data), dtype=float)
    return arr[~np.isnan(arr)]


def is_paired(*samples) -> bool:
    """True when every sample is a pandas Series (indexed by round): the arms are paired by round."""
    return bool(samples) and all(isinstance(s, pd.Series) for s in samples)


def rounds(*samples: pd.Series) -> pd.DataFrame:
    """The samples side by side, one row per round present in all of them (NaN rows dropped); a round
    with several values of one arm is reduced to their median first."""
    cols = {}
    for i, s in enumerate(samples):
        s = pd.to_numeric(s, errors="coerce")
        if not s.index.is_unique:
            s = s.groupby(level=0).median()
        cols[i] = s
    return pd.DataFrame(cols).dropna()


def n_of(*samples) -> int:
    """The number of independent repetitions behind a figure: complete rounds for paired samples, the
    smallest arm for independent ones."""
    if not samples:
        return 0
    if is_paired(*samples):
        return len(rounds(*samples))
    return int(min(values(s).size for s in samples))


# ---------------------------------------------------------------- the order-statistic interval
@lru_cache(maxsize=512)
def order_k(n: int, level: float = LEVEL) -> int:
    """The k of the order-statistic interval [x(k), x(n−k+1)] for the median at `level`: the largest
    k ≥ 1 with P(Binom(n, ½) ≤ k − 1) ≤ (1 − level)/2; 0 when no k reaches the level."""
    if n < 1:
        return 0
    alpha = (1 - level) / 2
    k = int(sps.binom.ppf(alpha, n, 0.5))  # smallest j with cdf(j) >= alpha
    while k >= 1 and sps.binom.cdf(k - 1, n, 0.5) > alpha:
        k -= 1
    while sps.binom.cdf(k, n, 0.5) <= alpha:
        k += 1
    return k if k <= (n + 1) // 2 else 0


def coverage(n: int, level: float = LEVEL) -> float:
    """The exact coverage of the order-statistic interval for the median at n values (continuous data):
    1 − 2 · P(Binom(n, ½) ≤ k − 1). NaN when no interval reaches the level."""
    k = order_k(n, level)
    return float(1 - 2 * sps.binom.cdf(k - 1, n, 0.5)) if k else NAN


@lru_cache(maxsize=8)
def min_n(level: float = LEVEL) -> int:
    """The fewest values whose order-statistic interval reaches `level` (6 at 95 %: [min, max] covers
    the median 1 − 2/2⁶ = 96.9 % of the time)."""
    n = 1
    while not order_k(n, level):
        n += 1
    return n


MIN_N = min_n(LEVEL)


def order_step(n: int, level: float = LEVEL) -> tuple[int, int]:
    """(first, following) around n values: the fewest values whose order-statistic interval uses n's k,
    and the fewest whose interval uses the next k. Between them the interval is the same [x(k), x(n−k+1)]
    over more values, so it widens (and covers more than `level`): 7 and 8 values give a wider interval
    than 6, and 9 is the first narrower one."""
    k = order_k(n, level)
    first = n
    while first > 1 and order_k(first - 1, level) == k:
        first -= 1
    following = n + 1
    while order_k(following, level) <= k:
        following += 1
    return first, following


def median_ci(data, *, level: float = LEVEL) -> Estimate:
    """One arm's median with its distribution-free interval [x(k), x(n−k+1)] (see `order_k`); NaN
    bounds below min_n values, NaN everywhere without values."""
    arr = np.sort(values(data))
    if arr.size == 0:
        return Estimate.missing(method=ORDER)
    k = order_k(arr.size, level)
    low, high = (float(arr[k - 1]), float(arr[arr.size - k])) if k else (NAN, NAN)
    return Estimate(float(np.median(arr)), low, high, int(arr.size), ORDER, spread=spread(arr))


def spread(data) -> float:
    """The spread of a sample for a power calculation: its standard deviation (ddof 1). Not a robust
    one on purpose: at 6-8 values the order-statistic interval is [min, max], which a heavy tail
    widens, and a spread that ignored the tail would ask for too few repetitions. NaN below two values."""
    arr = values(data)
    return float(np.std(arr, ddof=1)) if arr.size >= 2 else NAN


# ---------------------------------------------------------------- power: how many rounds would decide
POWER = 0.8  # «would decide it»: 8 runs in 10 reach a verdict


def order_power(n, value: float, sigma: float, region: tuple[float, float], level: float = LEVEL):
    """The probability that the order-statistic interval of the median of n values drawn from
    Normal(value, sigma) decides a claim with margin `region`, either way: inside the margin (x(k)
    above its low end and x(n−k+1) below its top: fewer than k values beyond each end, a sum over the
    trinomial counts) or entirely beyond one of its ends. Exact for that law (scipy.stats.binom); 0
    where no interval reaches the level. `n` may be an array of sizes: one probability each."""
    ns = np.atleast_1d(np.asarray(n, dtype=int))
    ks = np.array([order_k(int(m), level) for m in ns])
    lo_r, hi_r = region
    # below 1e-12 a tail adds nothing (and a denormal one overflows scipy's binomial)
    below, above = (
        float(p) if p > 1e-12 else 0.0
        for p in (sps.norm.cdf(lo_r, value, sigma), sps.norm.sf(hi_r, value, sigma))
    )
    rest = above / (1 - below) if below < 1 else 0.0
    i = np.arange(max(int(ks.max()), 1))[None, :]  # values at or below the margin's low end: fewer than k
    inside = sps.binom.pmf(i, ns[:, None], below) * sps.binom.cdf(ks[:, None] - 1, ns[:, None] - i, rest)
    confirmed = np.where(i < ks[:, None], inside, 0.0).sum(axis=1)
    refuted = sps.binom.cdf(ks - 1, ns, 1 - above) + sps.binom.cdf(ks - 1, ns, 1 - below)
    power = np.where(ks > 0, confirmed + refuted, 0.0)
    return float(power[0]) if np.ndim(n) == 0 else power


def rounds_to_decide(
    estimate: Estimate, region: tuple[float, float], *, power: float = POWER, cap: int = 1_000
) -> float | None:
    """A power calculation with this run as the pilot: the fewest repetitions (more than the estimate's
    n) with which a run reaches a verdict `power` of the time, if the values are normal with this run's
    median and `spread` (`order_power`). A planning figure, not a verdict: one short run's median and
    spread are themselves uncertain, so it never says that no n decides a claim (that is declared
    before the run, `verdict.Said.undecidable`). The power of that interval rises in steps, not like
    1/√n (at 7 and 8 values it is the same [min, max] as at 6, over more values), so the search is over
    n itself. Infinite where no n up to `cap` reaches `power`; None where it cannot be calculated: the
    estimate is not one sample's median (no spread), or its spread is 0."""
    value, sigma, n = estimate.value, estimate.spread, estimate.n
    if any_nan(value, sigma) or not (math.isfinite(value) and sigma > 0) or n <= 0:
        return None
    return _rounds_to_decide(float(value), float(sigma), int(n), tuple(map(float, region)), power, cap)


@lru_cache(maxsize=4096)  # the same claim is judged again by every page that shows it
def _rounds_to_decide(value, sigma, n, region, power, cap) -> float:
    ns = np.arange(max(n + 1, min_n(LEVEL)), cap + 1)
    reaches = np.flatnonzero(order_power(ns, value, sigma, region) >= power) if ns.size else []
    return int(ns[reaches[0]]) if len(reaches) else math.inf


def round_figures(fn: Callable[..., np.ndarray], *samples: pd.Series) -> pd.Series:
    """fn(a, b, …) computed round by round on Series indexed by round: its finite results, indexed by
    round in the rounds' order."""
    table = rounds(*samples).sort_index()
    if table.empty:
        return pd.Series([], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        figures = np.asarray(fn(*(table[c].to_numpy() for c in table.columns)), dtype=float)
    out = pd.Series(np.broadcast_to(figures, len(table)), index=table.index, dtype=float)
    return out[np.isfinite(out.to_numpy())]


def per_round(fn: Callable[..., np.ndarray], *samples: pd.Series) -> np.ndarray:
    """fn(a, b, …) computed round by round on Series indexed by round (its finite results)."""
    return round_figures(fn, *samples).to_numpy()


# The per-round figures of the course (the interval functions below and experiments/figures.py use them)
def quotient(a, b):
    return a / b


def minus(a, b):
    return a - b


def percent_change(a, b):
    return (a / b - 1) * 100


def itself(a):
    return a


def _per_round(fn: Callable[..., np.ndarray], *samples: pd.Series, level: float) -> Estimate:
    figures = per_round(fn, *samples)
    n = n_of(*samples)
    if figures.size == 0:
        return Estimate.missing(n, method=ORDER, paired=True)
    return replace(median_ci(figures, level=level), n=n, paired=True)


# ---------------------------------------------------------------- independent arms: bootstrap
def bootstrap_ci(
    fn: Callable[..., float],
    *samples,
    level: float = LEVEL,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Estimate:
    """fn(medians of independent samples) with a percentile-bootstrap interval: each sample resampled
    on its own. NaN bounds below MIN_N values in any sample, NaN everywhere where a sample is empty or
    fn is undefined."""
    arrays = [values(s) for s in samples]
    if not arrays or any(a.size == 0 for a in arrays):
        return Estimate.missing(method=BOOTSTRAP)
    n = int(min(a.size for a in arrays))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(fn(*[np.median(a) for a in arrays]))
        if not np.isfinite(value) or n < min_n(level):
            return Estimate(value, NAN, NAN, n, BOOTSTRAP)
        rng = np.random.default_rng(seed)
        medians = [np.median(rng.choice(a, size=(resamples, a.size), replace=True), axis=1) for a in arrays]
        figures = np.asarray(fn(*medians), dtype=float)
    figures = figures[np.isfinite(figures)]
    if figures.size == 0:
        return Estimate(value, NAN, NAN, n, BOOTSTRAP)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(figures, [alpha, 1 - alpha])
    return Estimate(value, float(lo), float(hi), n, BOOTSTRAP)


# ---------------------------------------------------------------- independent arms: the box
def box_ci(fn: Callable[..., float], *samples, level: float = LEVEL) -> Estimate:
    """fn(medians of independent samples) with the box interval (module docstring): each arm's median
    interval at level^(1/k), fn's extremes over the box's 2^k corners. NaN bounds when an arm is too
    short for its share of the level (`needs` says how many values it takes) or fn is undefined on a
    corner; NaN everywhere when a sample is empty."""
    arrays = [values(s) for s in samples]
    share = level ** (1 / max(len(arrays), 1))
    needs = min_n(share)
    if not arrays or any(a.size == 0 for a in arrays):
        return Estimate.missing(method=BOX).but(needs=needs)
    n = int(min(a.size for a in arrays))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(fn(*[np.median(a) for a in arrays]))
        sides = [median_ci(a, level=share) for a in arrays]
        if not np.isfinite(value) or not all(c.has_interval for c in sides):
            return Estimate(value, NAN, NAN, n, BOX, needs=needs)
        corners = np.array(list(itertools.product(*(c.interval for c in sides))), dtype=float)
        figures = np.asarray(fn(*corners.T), dtype=float)
    if not np.all(np.isfinite(figures)):  # fn undefined somewhere in the box (a denominator near 0)
        return Estimate(value, NAN, NAN, n, BOX, needs=needs)
    return Estimate(value, float(figures.min()), float(figures.max()), n, BOX, needs=needs)


# ---------------------------------------------------------------- the figures experiments judge
def figure_ci(fn: Callable[..., float], *samples, level: float = LEVEL) -> Estimate:
    """Any figure of several arms with its interval: round by round for Series (paired), the box of
    the arms' median intervals for arrays (independent)."""
    if is_paired(*samples):
        return _per_round(fn, *samples, level=level)
    return box_ci(fn, *samples, level=level)


def ratio_ci(numerator, denominator, *, level: float = LEVEL) -> Estimate:
    """numerator / denominator with its interval (paired: the median of the per-round ratios;
    independent: the ratio of medians). NaN against a zero median."""
    if not is_paired(numerator, denominator):
        den = values(denominator)
        if den.size and np.median(den) == 0:  # a ratio against zero says nothing
            return Estimate.missing(n_of(numerator, denominator), method=BOX)
    return figure_ci(quotient, numerator, denominator, level=level)


def difference_ci(a, b, *, percent: bool = False, level: float = LEVEL) -> Estimate:
    """a − b, or with percent=True (a / b − 1) × 100, with its interval (paired or independent)."""
    return figure_ci(percent_change if percent else minus, a, b, level=level)


# ---------------------------------------------------------------- summaries
def iqr(data) -> tuple[float, float]:
    arr = values(data)
    if arr.size == 0:
        return NAN, NAN
    q1, q3 = np.quantile(arr, [0.25, 0.75], method=QUANTILE_METHOD)
    return float(q1), float(q3)


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    q1: float
    q3: float
    minimum: float
    ci_low: float
    ci_high: float

    def columns(self, unit: str = "") -> dict[str, float]:
        """The summary as a results table's columns: n, mediana, q1, q3, the minimum, ic_bajo, ic_alto;
        with a unit, each but n ends in `_<unit>` and the minimum is `min_<unit>` (else `minimo`)."""
        end = f"_{unit}" if unit else ""
        return {
            "n": self.n,
            f"mediana{end}": self.median,
            f"q1{end}": self.q1,
            f"q3{end}": self.q3,
            f"min{end}" if unit else "minimo": self.minimum,
            f"ic_bajo{end}": self.ci_low,
            f"ic_alto{end}": self.ci_high,
        }


def summarize(data) -> Summary:
    """n, median, IQR, min and the median's IC 95 % (NaN below MIN_N values)."""
    arr = values(data)
    if arr.size == 0:
        return Summary(0, NAN, NAN, NAN, NAN, NAN, NAN)
    q1, q3 = iqr(arr)
    ci = median_ci(arr)
    return Summary(int(arr.size), ci.value, q1, q3, float(arr.min()), ci.low, ci.high)


UNSTABLE_SPREAD = 0.5  # IQR / median above this: the measurement is too spread out to summarise


def unstable(data, *, threshold: float = UNSTABLE_SPREAD) -> bool:
    """True when the spread dwarfs the median (IQR / median > threshold, or two clusters far apart:
    max / min > 4 with a quarter of the values in each half). Such a measurement is flagged
    «medición inestable: repite» and kept out of summaries and closing tables."""
    arr = values(data)
    if arr.size < 3:
        return False
    median = float(np.median(arr))
    if median <= 0:
        return False
    q1, q3 = iqr(arr)
    if (q3 - q1) / median > threshold:
        return True
    lo, hi = float(arr.min()), float(arr.max())
    if lo > 0 and hi / lo > 4:
        mid = (lo * hi) ** 0.5
        low_share = float(np.mean(arr < mid))
        return 0.25 <= low_share <= 0.75
    return False


# ---------------------------------------------------------------- published figures (not samples)
RANGE = "rango"
POINT = "cifra"
REPETITIONS = "repeticiones"
KEYS = ["source", "engine", "image", "variant", "metric", "unit"]


def published(rows: pd.DataFrame, ranges: Iterable[str] = ()) -> pd.DataFrame:
    """One row per published figure of reference rows (with `source`): each source stays its own
    «machine». A source named in `ranges` gave ranges (its rep 1 is the low end, rep 2 the high end):
    the figure is that range as (low, high), never resampled, with value its midpoint; a single row is a
    point without interval; several repetitions of one source get their median and its interval.
    Columns: KEYS + value, low, high, n, forma («rango», «cifra», «repeticiones»)."""
    ranges = set(ranges)
    out = []
    keys = [k for k in KEYS if k in rows.columns]
    for key, group in rows.groupby(keys, dropna=False, sort=False):
        vals = values(group["value"])
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        if row.get("source") in ranges:
            low, high = float(vals.min()), float(vals.max())
            row.update(value=(low + high) / 2, low=low, high=high, n=0, forma=RANGE)
        elif vals.size == 1:
            row.update(value=float(vals[0]), low=NAN, high=NAN, n=1, forma=POINT)
        else:
            ci = median_ci(vals)
            row.update(value=ci.value, low=ci.low, high=ci.high, n=ci.n, forma=REPETITIONS)
        out.append(row)
    return pd.DataFrame(out, columns=keys + ["value", "low", "high", "n", "forma"])


# ---------------------------------------------------------------- the method, for meta.json
# Coverage of the interval called «IC 95 %», as measured by tests/core/test_coverage.py (seeded
# simulation; the test fails if a re-run drifts from these figures beyond its Monte-Carlo error).
TESTED_COVERAGE: dict[str, dict[int, float]] = {  # the worst case over the simulated laws, by n
    "mediana": {6: 0.9647, 10: 0.9775},
    "proporcion_por_ronda": {6: 0.9675, 10: 0.9765},
    "diferencia_por_ronda": {6: 0.967, 10: 0.9755},
    "proporcion_independiente": {7: 0.9912, 10: 0.99},  # the box: conservative by construction
}


def method() -> dict:
    """The statistical method of every verdict and interval, for meta.json («estadistica»)."""
    return {
        "nivel": LEVEL,
        "repeticiones_minimas": MIN_N,
        "mediana": "intervalo de estadísticos de orden (prueba del signo, scipy.stats.binom), sin suponer "
        "distribución",
        "brazos_en_las_mismas_rondas": "la cifra se calcula ronda a ronda y se toma su mediana con el "
        "mismo intervalo",
        "brazos_independientes": "la cifra en las esquinas de la caja que forman los intervalos de las "
        "medianas de cada brazo, cada uno al nivel^(1/k) (k brazos): al menos el 95 % sin suponer "
        f"distribución; con dos brazos hacen falta {min_n(math.sqrt(LEVEL))} valores por brazo",
        "rango_publicado": "se muestra como rango, sin remuestrear",
        "cuantiles": f"numpy «{QUANTILE_METHOD}» (Hyndman y Fan tipo 7)",
        "cobertura_exacta_mediana": {str(n): round(coverage(n), 4) for n in (MIN_N, 10, 20)},
        "cobertura_probada": {k: {str(n): v for n, v in d.items()} for k, d in TESTED_COVERAGE.items()},
    }
