"""The machine's load over a run's rounds, and what it lets a per-round figure say.

Every round records the machine's CPU pressure (or, without PSI, the load average), the steal time and
the CPU time the rest of the machine used apart from the run's own work («otra CPU», helpers/other_work.py)
(runner.measure_rounds; results.round_loads hands them to the analyses in meta[results.ROUND_LOADS]).
Only other work and steal gate a figure: CPU pressure counts our own containers, engines and load
generators too (launching containers on two cores moves it by more than `VARIED` round to round by
itself), so a loop that recorded its other work is screened on that and on steal, never on its pressure.
Its rule is a level, not a range, so it also sees a load that stays for the whole run: a round counts
only if other work used at most `OTHER_QUIET` % of the machine's CPU time; fewer than MIN_N such rounds,
«bajo carga». Runs recorded before other work was (and windows too short to count it) keep the pressure
rule below.
Rounds are independent only while the machine is: background load that persists from one round to the
next (a browser, a video call, an indexer) adds time to the arms for several rounds running, and the
order-statistic interval of a per-round figure then covers far less than 95 % (a seeded simulation with
AR(1) load, ρ = 0.7-0.9: 0.63-0.95 at n = 6-10, tests/core/test_coverage.py). Additive load does not
cancel in a per-round ratio.

The pressure rule (chosen by that simulation among quietest-rounds, regression-on-load and flag designs;
steal follows it too):

- the load varied between rounds by no more than `VARIED` (6 points of CPU pressure or of steal, 0.5
  processes of load average: a quiet machine's rounds stay within 4 points): every round counts;
- it varied more: only the quiet rounds count, those within `QUIET_BAND` of the run's least loaded
  round, when there are at least MIN_N of them («la cifra en las rondas tranquilas»);
- fewer quiet rounds than that: no verdict, «medición bajo carga: repite» (`LOADED`);
- on the rounds that count, the per-round figures depend on the round's order (a trend), on the
  round's recorded load or on the previous round (`dependence`: Kendall's τ, each at ALPHA): no verdict
  either, the test and its p in the claim's detail (`tested`). A drift the pressure does not see (a
  clock that throttles, a cache that fills up) can only be caught there.

It rests on the pressure rising with the load that slows the arms (the time a task waits for a CPU
is what PSI counts): a load the CPU pressure does not see (disk, memory bandwidth, a throttled clock)
escapes it. A run with several measuring loops (experiments 4, 6 and 8) screens each figure on the load of
the loops its arms were measured in (`of_arms`).
Independent arms of one run (no rounds in common) are not screened; two arms from two runs (03's
`exec` ÷ 01's `run`) are screened each on its own run's rounds (ejecucion.claims.exec_over_run); a
figure an experiment computes from the whole run (a slope, a crossover) is screened on the whole run's
load, with no quiet-rounds subset (`screen_run`), and its rounds are not tested for dependence (its
per-round figures are the experiment's own); a claim it wraps that its own figure already screened on
its rounds (Claim.screened) is not screened again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats as sps

from .. import results, stats

LOADED = "bajo_carga"  # a status: the load varied and too few rounds were quiet (verdict.BAJO_CARGA)

# How far a round's load may stray from the others' before the rounds stop being alike
VARIED = {results.LOAD_PRESSURE: 6.0, results.LOAD_AVERAGE: 0.5, results.STEAL: 6.0}
QUIET_BAND = {metric: limit / 2 for metric, limit in VARIED.items()}
# The most CPU other work may take in a round that counts (% of the machine's CPU time, all cores): on a
# 2-core machine a tenth of a core; a quiet machine's rounds stay at 0-3 % (a browser tab, an indexer).
OTHER_QUIET = 5.0
BASES = (*VARIED, results.OTHER_CPU)
HIDES = (results.LOAD_PRESSURE, results.LOAD_AVERAGE)  # what a loop's recorded other work replaces


# What tests/core/test_coverage.py measures (seeded simulation of persistent additive AR(1) load, ρ = 0.7
# and 0.9, light and heavy, on log-normal, bimodal and unequally spread arms; ratios, differences and
# one arm's median by round), worst case by n: the share of runs whose interval covers the quiet
# machine's figure or whose claim shows no verdict; the coverage of the intervals it did give (the worst,
# 0.863 at n = 6, is one arm's median under ρ = 0.9: ratios and differences stay ≥ 0.94); the share of
# runs a quiet machine is left without a verdict (the range screen and the dependence tests together);
# and the share of runs left without a verdict when the ratio drifts over the run by 6 times its own
# spread and the pressure does not see it (the trend test alone). The test fails if a re-run drifts.
TESTED: dict[str, dict[int, float]] = {
    "cubre_o_sin_veredicto": {6: 0.936, 10: 0.978},
    "cobertura_de_los_ic_dados": {6: 0.863, 10: 0.955},
    "sin_veredicto_en_reposo": {6: 0.0075, 10: 0.008},
    "tendencia_detectada": {6: 0.092, 10: 0.69},
}

# What tests/core/test_coverage.py measures of the gate on other work (the one a run that records it goes
# through; «Cómo medimos» prints these): worst case by n over log-normal, bimodal and unequally spread arms,
# ratios, differences and one arm's median by round. The share of verdicts a quiet machine loses (other work
# 0.4-2.7 %: the dependence tests' own false alarms); the share withheld under a seen load that never stops
# (a busy loop on half the machine, adding time to every round: the load a within-run test cannot see); the
# share covered or withheld under a seen load that comes and goes over several rounds (AR(1), ρ = 0.9); and
# the coverage of the intervals given under a load that never stops and that the counter does not see
# (memory bandwidth, a throttled clock), which no gate stops: a difference by round cancels its added time,
# a ratio only partly, one arm's median not at all. The test fails if a re-run drifts from these.
OTHER_TESTED: dict[str, dict[int, float]] = {
    "reposo_sin_veredicto": {6: 0.012, 10: 0.0075},
    "persistente_sin_veredicto": {6: 1.0, 10: 1.0},
    "intermitente_cubre_o_sin_veredicto": {6: 0.9865, 10: 0.986},
    "invisible_cobertura_proporcion_por_ronda": {6: 0.803, 10: 0.7427},
    "invisible_cobertura_diferencia_por_ronda": {6: 0.9717, 10: 0.9784},
    "invisible_cobertura_mediana": {6: 0.0, 10: 0.0},
}


@dataclass(frozen=True)
class Screen:
    """What the load of a figure's rounds allows: `rounds`, the rounds that count (None: all of them);
    `loaded`, no verdict; `metric`, `low`, `high`: the load that decided it (its least and greatest
    value over the rounds), for the words."""

    rounds: tuple[int, ...] | None = None
    loaded: bool = False
    metric: str = ""
    low: float = float("nan")
    high: float = float("nan")
    run_wide: bool = False  # screened on the whole run's load: only claims judged by rounds are touched

    @property
    def varied(self) -> bool:
        return bool(self.metric)

    def keep(self, samples: list) -> list:
        """The samples on the rounds that count (Series indexed by round); all of them when the load
        leaves no verdict (the figure is still shown)."""
        if self.rounds is None or self.loaded:
            return samples
        return [s[s.index.isin(self.rounds)] for s in samples]

    def detail(self) -> dict:
        """What a view needs to word it (never words): the load's metric and range, the rounds kept."""
        if not self.varied:
            return {}
        out = {"carga_metrica": self.metric, "carga_min": self.low, "carga_max": self.high}
        if self.rounds is not None:
            out["rondas_tranquilas"] = len(self.rounds)
        return out

    def judged(self, claim):
        """The claim as the load leaves it: «bajo carga» (no verdict, no interval claimed) or, when
        only the quiet rounds counted, with their count in its detail. A claim without a figure, or
        below MIN_N rounds, stays as it is."""
        if isinstance(claim, list):
            return [self.judged(c) for c in claim]
        if claim is None or not self.varied or claim.n < stats.MIN_N or stats.any_nan(claim.value):
            return claim
        if not claim.said.moved_by_cpu:
            return claim  # memory, a size, a count: CPU load does not move it
        if self.run_wide and (claim.screened or not (claim.estimate.paired or claim.detail.get("rondas"))):
            return claim  # screened on its own rounds already, or no rounds to screen
        if self.loaded:
            return without_verdict(claim, self.detail())
        return replace(claim, detail={**claim.detail, **self.detail()})


def without_verdict(claim, load_detail: dict):
    """The claim «bajo carga»: its figure kept without its interval (the load leaves no «IC 95 %» to
    claim, so no page, closing sentence or kit fact can print one), no verdict, the load's detail added."""
    estimate = replace(claim.estimate, low=float("nan"), high=float("nan"))
    return replace(
        claim, status=LOADED, more_reps=None, estimate=estimate, detail={**claim.detail, **load_detail}
    )


def per_round(meta: dict | None) -> dict[str, pd.Series]:
    """Each load metric of the run (by its name in raw.csv, loop suffix included) as a Series indexed
    by round; the loops that load the machine on purpose (meta[results.SELF_LOADED]) left out."""
    rows = (meta or {}).get(results.ROUND_LOADS) or []
    own = [
        results.round_metric(base, loop)
        for loop in (meta or {}).get(results.SELF_LOADED, [])
        for base in VARIED
    ]
    by_metric: dict[str, dict[int, float]] = {}
    for row in rows:
        if row["metric"] in own:
            continue  # a loop that loads the machine on purpose (runner.measure_rounds, own_load)
        by_metric.setdefault(row["metric"], {})[int(row["rep"])] = float(row["value"])
    for metric in list(by_metric):
        if _base(metric) == results.OTHER_CPU:  # this loop's pressure counts our own work: not a gate
            loop = metric[len(results.OTHER_CPU) + 1 :]
            for hidden in HIDES:
                by_metric.pop(results.round_metric(hidden, loop), None)
    return {m: pd.Series(v, dtype=float).sort_index() for m, v in by_metric.items()}


ARM_KEYS = ("engine", "variant", "image")  # how a selection of rows names its arm (figures.Sel)


def of_arms(meta: dict | None, wheres: list[dict]) -> dict | None:
    """The run's meta with the load of only the loops that measured these arms (each a {column: value}
    selection, matched on its engine, variant and image, and on its metric where meta["arms"] lists what
    each loop's arm gave, to meta["arms"], which names each arm's loop): a claim is screened on the machine
    of its own rounds, not on another loop's that shares their numbers (experiment 8's, 04's and 06's
    loops), also when the same arm was measured in several loops. A run that does not record its arms'
    loops, or an arm not found there, keeps every loop's load."""
    arms = (meta or {}).get("arms") or []
    if not any("loop" in a for a in arms):
        return meta
    loops: set[str] = set()
    for where in wheres:
        keys = [k for k in ARM_KEYS if k in where]
        found = {
            a.get("loop", "")
            for a in arms
            if keys and all(a.get(k) == where[k] for k in keys) and _gave(a, where.get("metric"))
        }
        if not found:
            return meta
        loops |= found
    rows = [r for r in meta.get(results.ROUND_LOADS) or [] if _loop(r["metric"]) in loops]
    return {**meta, results.ROUND_LOADS: rows}


def _gave(arm: dict, metric) -> bool:
    """Whether this loop's entry of an arm gave `metric` (meta["arms"] lists the metrics of each loop;
    an entry without that list, or a selection without a metric, could be any of its loops)."""
    return metric is None or "metrics" not in arm or metric in arm["metrics"]


def _loop(metric: str) -> str:
    """The loop a round's load metric belongs to ("" for the first, results.round_metric)."""
    for base in results.ROUND_METRICS:
        if metric.startswith(base + "_"):
            return metric[len(base) + 1 :]
    return ""


def _base(metric: str) -> str:
    for base in BASES:
        if metric == base or metric.startswith(base + "_"):
            return base
    return ""


def quiet(base: str, load: pd.Series) -> tuple[bool, tuple[int, ...] | None]:
    """(varied, rounds) for a load metric: other work by its level (`OTHER_QUIET`), the others by their
    range (`quiet_rounds`)."""
    if base == results.OTHER_CPU:
        values = load.to_numpy(float)
        if not (values > OTHER_QUIET).any():
            return False, None
        return True, tuple(int(r) for r in load.index[values <= OTHER_QUIET])
    return quiet_rounds(load, VARIED[base], QUIET_BAND[base])


def quiet_rounds(load: pd.Series, limit: float, band: float) -> tuple[bool, tuple[int, ...] | None]:
    """(varied, rounds): whether the load's range over these rounds exceeds `limit`, and then the rounds
    within `band` of its least value (None: every round counts)."""
    arr = stats.values(load)
    if arr.size < 2 or float(arr.max() - arr.min()) <= limit:
        return False, None
    return True, tuple(int(r) for r in load.index[load.to_numpy(float) <= float(arr.min()) + band])


def screen_run(meta: dict | None) -> Screen:
    """The load's verdict on a figure an experiment computes from the whole run (`figures.Computed`,
    `figures.Custom`): its rounds cannot be picked from outside, so a load that varied over the run
    leaves every such claim judged by rounds without a verdict."""
    for metric, load in per_round(meta).items():
        base = _base(metric)
        if base and quiet(base, load)[0]:
            return Screen(None, True, metric, float(load.min()), float(load.max()), run_wide=True)
    return Screen()


def screen(meta: dict | None, samples: list) -> Screen:
    """The load's verdict on a figure of arms paired by round (Series indexed by round): see the module
    docstring. Plain arrays (independent arms), or a run without load rows: every round counts."""
    if not samples or not stats.is_paired(*samples) or any(len(s) == 0 for s in samples):
        return Screen()
    reps = stats.rounds(*samples).index
    kept: set[int] | None = None
    worst: tuple[str, float, float] | None = None
    for metric, load in per_round(meta).items():
        base = _base(metric)
        load = load[load.index.isin(reps)]
        if not base or load.empty:
            continue
        varied, rounds = quiet(base, load)
        if not varied:
            continue
        kept = set(rounds) if kept is None else kept & set(rounds)
        if worst is None:
            worst = (metric, float(load.min()), float(load.max()))
    if worst is None:
        return Screen()
    rounds = tuple(sorted(kept or ()))
    return Screen(rounds, len(rounds) < stats.MIN_N, *worst)


def carried(claim, source):
    """A claim judged on another claim's figure (`source`, read from another experiment) carries that
    claim's load: «bajo carga» stays without a verdict."""
    if source.status != LOADED:
        return claim
    return without_verdict(claim, {k: v for k, v in source.detail.items() if k.startswith("carga_")})


# ---------------------------------------------------------------- are the rounds independent?
# The interval of a per-round figure holds while its rounds are independent draws of one law. Three
# tests on the per-round figures a claim is judged on (the rounds that count, in their order), each
# Kendall's τ (scipy.stats.kendalltau, its exact p when nothing ties, as at the course's n):
TREND = "tendencia"  # the figure against the round's order: it grows or shrinks over the run
WITH_LOAD = "carga"  # the figure against the round's recorded load (CPU pressure or load average)
LAG1 = "autocorrelacion"  # each round's figure against the previous round's: the rounds run in streaks
DEPENDENCE_TESTS = (TREND, WITH_LOAD, LAG1)
# Where one fires at ALPHA the claim shows «medición bajo carga: repite». ALPHA is each test's level
# (against several load metrics, experiment 8's loops, the load test splits it between them): chosen
# with tests/core/test_coverage.py's seeded simulation so that a quiet machine (iid rounds) loses at
# most ~1 % of its verdicts to this screen and to the load's range together (see TESTED). At n = 6 it
# fires only on rounds in perfect order (Kendall's exact p is then 2/6! ≈ 0.0028, the least it can be),
# and the lag-1 test, on 5 pairs, never (its least p is 2/5! ≈ 0.017): at the course's n these tests
# catch only strong dependence, and the range screen above stays the main defence.
ALPHA = 0.003


@dataclass(frozen=True)
class Dependence:
    """The test that found the rounds dependent (one of DEPENDENCE_TESTS), its p, and the load metric
    it tested against (WITH_LOAD)."""

    test: str
    p: float
    metric: str = ""

    def detail(self) -> dict:
        """What a view needs to word it (never words)."""
        out = {"dependencia": self.test, "dependencia_p": self.p}
        if self.metric:
            out["dependencia_metrica"] = self.metric
        return out


def kendall_p(x, y) -> float:
    """The two-sided p of Kendall's τ between x and y (scipy.stats.kendalltau): exact without ties,
    asymptotic with them; NaN below 3 pairs or when either side is constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    ties = np.unique(x).size < x.size or np.unique(y).size < y.size
    return float(sps.kendalltau(x, y, method="asymptotic" if ties else "exact").pvalue)


def dependence(figures: pd.Series, loads: dict[str, pd.Series]) -> Dependence | None:
    """The first of the three tests (the one with the smallest p relative to its level) that finds the
    per-round figures (a Series indexed by round) dependent at ALPHA; None when none does. `loads`:
    each load metric by round (`per_round`); the load test tries the other work (or, in a run that did
    not record it, the CPU pressure and load average) recorded over these rounds, each at ALPHA divided
    by their number."""
    x = figures.sort_index()
    tests = [(TREND, "", kendall_p(x.index.to_numpy(float), x), ALPHA)]
    on = {results.OTHER_CPU, results.LOAD_PRESSURE, results.LOAD_AVERAGE}
    against = {m: v.reindex(x.index) for m, v in loads.items() if _base(m) in on}
    against = {m: v for m, v in against.items() if v.notna().sum() >= stats.MIN_N}
    for metric, v in against.items():
        seen = v.notna().to_numpy()
        tests.append((WITH_LOAD, metric, kendall_p(x[seen], v[seen]), ALPHA / len(against)))
    arr = x.to_numpy(float)
    tests.append((LAG1, "", kendall_p(arr[:-1], arr[1:]), ALPHA))
    fired = sorted((p / level, test, metric, p) for test, metric, p, level in tests if p <= level)
    if not fired:
        return None
    _, test, metric, p = fired[0]
    return Dependence(test, p, metric)


def tested(claim, by_round, samples: list, meta: dict | None):
    """The claim as its rounds' dependence leaves it: «bajo carga» (`without_verdict`, the test and its
    p in its detail) when `dependence` finds the per-round figures by_round(*samples) dependent. Arms
    not paired by round, a claim already without a verdict or below MIN_N rounds stay as they are."""
    if isinstance(claim, list):
        return [tested(c, by_round, samples, meta) for c in claim]
    if by_round is None or claim is None or claim.status == LOADED or not samples:
        return claim
    if not stats.is_paired(*samples) or claim.n < stats.MIN_N or stats.any_nan(claim.value):
        return claim
    figures = stats.round_figures(by_round, *samples)
    if len(figures) < stats.MIN_N:
        return claim
    found = dependence(figures, per_round(meta))
    return claim if found is None else without_verdict(claim, found.detail())
