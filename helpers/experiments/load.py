"""The machine's load over a run's rounds, and what it lets a per-round figure say.

Every round records the machine's CPU pressure (or, without PSI, the load average) and the steal time
(runner.measure_rounds; results.round_loads hands them to the analyses in meta[results.ROUND_LOADS]).
Rounds are independent only while the machine is: background load that persists from one round to the
next (a browser, a video call, an indexer) adds time to the arms for several rounds running, and the
order-statistic interval of a per-round figure then covers far less than 95 % (a seeded simulation with
AR(1) load, ρ = 0.7-0.9: 0.63-0.95 at n = 6-10, tests/core/test_coverage.py). Additive load does not
cancel in a per-round ratio.

The rule (chosen by that simulation among quietest-rounds, regression-on-load and flag designs):

- the load varied between rounds by no more than `VARIED` (6 points of CPU pressure or of steal, 0.5
  processes of load average: a quiet machine's rounds stay within 4 points): every round counts;
- it varied more: only the quiet rounds count, those within `QUIET_BAND` of the run's least loaded
  round, when there are at least MIN_N of them («la cifra en las rondas tranquilas»);
- fewer quiet rounds than that: no verdict, «medición bajo carga: repite» (`LOADED`).

It rests on the pressure rising with the load that slows the arms (the time a task waits for a CPU
is what PSI counts): a load the CPU pressure does not see (disk, memory bandwidth, a throttled clock)
escapes it. A run with several measuring loops (experiment 8) is screened against each loop's load.
Independent arms (no rounds) are not screened; a figure an experiment computes from the whole run (a
slope, a crossover) is screened on the whole run's load, with no quiet-rounds subset (`screen_run`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from .. import results, stats

LOADED = "bajo_carga"  # a status: the load varied and too few rounds were quiet (verdict.BAJO_CARGA)

# How far a round's load may stray from the others' before the rounds stop being alike
VARIED = {results.LOAD_PRESSURE: 6.0, results.LOAD_AVERAGE: 0.5, results.STEAL: 6.0}
QUIET_BAND = {metric: limit / 2 for metric, limit in VARIED.items()}


# What tests/core/test_coverage.py measures (seeded simulation of persistent additive AR(1) load, ρ = 0.7
# and 0.9, light and heavy, on log-normal, bimodal and unequally spread arms; ratios, differences and
# one arm's median by round), worst case by n: the share of runs whose interval covers the quiet
# machine's figure or whose claim shows no verdict; the coverage of the intervals it did give; and the
# share of runs a quiet machine is left without a verdict. The test fails if a re-run drifts from these.
TESTED: dict[str, dict[int, float]] = {
    "cubre_o_sin_veredicto": {6: 0.936, 10: 0.978},
    "cobertura_de_los_ic_dados": {6: 0.863, 10: 0.955},
    "sin_veredicto_en_reposo": {6: 0.0, 10: 0.002},
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
        if self.run_wide and not (claim.estimate.paired or claim.detail.get("rondas")):
            return claim
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
    return {m: pd.Series(v, dtype=float).sort_index() for m, v in by_metric.items()}


def _base(metric: str) -> str:
    for base in VARIED:
        if metric == base or metric.startswith(base + "_"):
            return base
    return ""


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
        if base and quiet_rounds(load, VARIED[base], QUIET_BAND[base])[0]:
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
        varied, rounds = quiet_rounds(load, VARIED[base], QUIET_BAND[base])
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
