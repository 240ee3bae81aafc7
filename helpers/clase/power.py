"""How often the class rule (helpers/clase/rule.py) decides, by seeded simulation: its error and power
on invented classes of 2, 10, 30 and 60 machines (`simulate`, stored in SIMULATED: the page prints that
table and tests/course/test_clase_regla.py recomputes it and fails on drift), and how many machines a
real class needs to decide a claim at the spread its own machines show (`machines_needed`).

The invented classes: each machine runs ROUNDS rounds (the default of notebook 05), and its own figure is
the median of its per-round figures with the order-statistic IC 95 % (what stats.median_ci gives an
experiment's claim). Two claims:

- RATIO, a claim «~1×» (margin 0.8× to 1.25×): each machine's true figure 1.0 with a 2 % spread
  between machines, a 5 % spread between rounds;
- ACROSS, «parecido en CPU distintas» as notebook 90 judges it (deferred.ACROSS_RULE: each machine within
  3 points of the median of the others): each machine's true overhead 27 % with 1 point of spread
  between machines, 2 points between rounds.

Scenarios (SCENARIOS): the claim true; the claim off by one margin (RATIO: every machine at 1.5625×,
1.25 × 1.25; ACROSS: half the machines 6 points below the centre, half 6 above); 10 % and 20 % of the
machines apart (at 1.5× the figure, or the overhead); 30 % of the machines under load (figures at 1.5×,
their own run «bajo carga», so they must not count).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from .. import stats
from ..experiments import verdict as vd
from .deferred import ACROSS_RULE
from .rule import ClassRule

ROUNDS = 8  # notebook 05's default REPETICIONES
DRAWS = 400  # invented classes per scenario and size
SEED = 20260143
SIZES = (2, 10, 30, 60)
APART_AT = 1.5
LOADED_SHARE = 0.3

RATIO_SAID = vd.Said(
    "simulada_1x",
    "Una cifra de «~1×» (simulada)",
    "simulación",
    claimed=1.0,
    kind="about",
    unit="x",
    quantity="cifra de cada máquina",
)


@dataclass(frozen=True)
class Model:
    """An invented class: the rule, the machines' true figure (`centre`), their spread between
    machines (`between`) and between rounds (`noise`), on a log scale (`log`) or in points."""

    rule: ClassRule
    centre: float
    between: float
    noise: float
    log: bool


MODELS = {
    "razon": Model(ClassRule(RATIO_SAID), 1.0, 0.02, 0.05, True),
    "entre_cpus": Model(ACROSS_RULE, 27.0, 1.0, 2.0, False),
}
SCENARIO_WORDS = {
    "verdadera": "la afirmación es cierta en todas",
    "un_margen_fuera": "todas fuera, a un margen del borde",
    "apartadas_10": "10 % de las máquinas apartadas (a 1.5×)",
    "apartadas_20": "20 % de las máquinas apartadas (a 1.5×)",
    "bajo_carga_30": "30 % de las máquinas bajo carga (a 1.5×, sin voto)",
}
SCENARIOS = tuple(SCENARIO_WORDS)
MODEL_WORDS = {
    "razon": "una cifra «~1×» (margen de 0.8× a 1.25×)",
    "entre_cpus": "«parecido en CPU distintas» (±3 puntos)",
}


def _truths(model: Model, scenario: str, m: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """The machines' true figures (DRAWS × m) and how many of the last ones are under load."""
    if model.log:
        truth = model.centre * np.exp(rng.normal(0, model.between, (DRAWS, m)))
    else:
        truth = model.centre + rng.normal(0, model.between, (DRAWS, m))
    loaded = 0
    if scenario == "un_margen_fuera":
        if model.log:
            truth = truth * ABOUT_SQUARED
        else:
            truth = truth + np.where(np.arange(m) % 2 == 0, -6.0, 6.0)
    elif scenario.startswith("apartadas_"):
        k = int(round(m * int(scenario.split("_")[1]) / 100))
        truth[:, m - k :] *= APART_AT
    elif scenario == "bajo_carga_30":
        loaded = int(round(m * LOADED_SHARE))
        truth[:, m - loaded :] *= APART_AT
    return truth, loaded


ABOUT_SQUARED = vd.ABOUT**2  # «~1×» off by one margin beyond its edge: 1.25 × 1.25


def machine_figures(per_round: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each machine's median of its rounds (last axis) with the order-statistic IC 95 %, as
    stats.median_ci gives it."""
    ordered = np.sort(per_round, axis=-1)
    n = per_round.shape[-1]
    k = stats.order_k(n)
    return np.median(ordered, axis=-1), ordered[..., k - 1], ordered[..., n - k]


def simulate_cell(name: str, scenario: str, m: int, seed: int = SEED) -> tuple[float, float]:
    """P(«se confirma»), P(«no se sostiene») of the class rule over DRAWS invented classes."""
    model = MODELS[name]
    rng = np.random.default_rng([seed, SIZES.index(m) if m in SIZES else m, SCENARIOS.index(scenario)])
    truth, loaded = _truths(model, scenario, m, rng)
    noise = rng.normal(0, model.noise, (DRAWS, m, ROUNDS))
    per_round = truth[..., None] * np.exp(noise) if model.log else truth[..., None] + noise
    values, lows, highs = machine_figures(per_round)
    quiet = m - loaded  # the loaded machines' own runs are «bajo carga»: no interval, no vote
    names = [f"m{i}" for i in range(quiet)]
    counts = {vd.SE_CONFIRMA: 0, vd.NO_SE_SOSTIENE: 0}
    for d in range(DRAWS):
        status = model.rule.judge(names, values[d, :quiet], lows[d, :quiet], highs[d, :quiet]).status
        if status in counts:
            counts[status] += 1
    return round(counts[vd.SE_CONFIRMA] / DRAWS, 3), round(counts[vd.NO_SE_SOSTIENE] / DRAWS, 3)


def simulate(seed: int = SEED) -> dict[tuple[str, str], dict[int, tuple[float, float]]]:
    """Every model, scenario and size: (P(«se confirma»), P(«no se sostiene»))."""
    return {
        (name, scenario): {m: simulate_cell(name, scenario, m, seed) for m in SIZES}
        for name in MODELS
        for scenario in SCENARIOS
    }


# ---------------------------------------------------------------- the typical machine's interval
COVERAGE_SIZES = (6, 10, 30, 60)
COVERAGE_DRAWS = 2000
LAWS = {  # the machines' true figures around 1.0 (their median), and the rounds' noise around each
    "lognormal": "verdaderas log-normales (2 % entre máquinas), ruido log-normal del 5 % por ronda",
    "sesgada": "verdaderas muy sesgadas (gamma de forma 2), ruido de Student t con 3 g. l. por ronda",
}


def coverage_cell(law: str, m: int, seed: int = SEED) -> float:
    """How often the typical machine's IC 95 % (the median over m machines, each the median of its
    ROUNDS rounds) covers the median of the machines' true figures, over COVERAGE_DRAWS classes."""
    rng = np.random.default_rng([seed, m, list(LAWS).index(law), 7])
    if law == "lognormal":
        truth = np.exp(rng.normal(0, 0.02, (COVERAGE_DRAWS, m)))
        per_round = truth[..., None] * np.exp(rng.normal(0, 0.05, (COVERAGE_DRAWS, m, ROUNDS)))
        centre = 1.0
    else:
        shape = 2.0
        truth = rng.gamma(shape, 0.1, (COVERAGE_DRAWS, m))
        per_round = truth[..., None] + 0.02 * rng.standard_t(3, (COVERAGE_DRAWS, m, ROUNDS))
        centre = float(sps.gamma.median(shape, scale=0.1))
    values, _, _ = machine_figures(per_round)
    covered = 0
    for d in range(COVERAGE_DRAWS):
        estimate = stats.median_ci(values[d])
        covered += estimate.low <= centre <= estimate.high
    return round(covered / COVERAGE_DRAWS, 3)


def coverage() -> dict[str, dict[int, float]]:
    """The typical machine's coverage, by law and number of machines."""
    return {law: {m: coverage_cell(law, m) for m in COVERAGE_SIZES} for law in LAWS}


# What `simulate()` gives (tests/course/test_clase_regla.py recomputes it: the page prints these).
SIMULATED: dict[tuple[str, str], dict[int, tuple[float, float]]] = {
    ("entre_cpus", "apartadas_10"): {2: (0.0, 0.0), 10: (0.75, 0.0), 30: (1.0, 0.0), 60: (0.0, 1.0)},
    ("entre_cpus", "apartadas_20"): {2: (0.0, 0.0), 10: (0.0, 0.0), 30: (0.0, 1.0), 60: (0.0, 1.0)},
    ("entre_cpus", "bajo_carga_30"): {2: (0.0, 0.0), 10: (0.765, 0.0), 30: (1.0, 0.0), 60: (1.0, 0.0)},
    ("entre_cpus", "un_margen_fuera"): {2: (0.0, 0.0), 10: (0.0, 1.0), 30: (0.0, 1.0), 60: (0.0, 1.0)},
    ("entre_cpus", "verdadera"): {2: (0.0, 0.0), 10: (0.963, 0.0), 30: (1.0, 0.0), 60: (1.0, 0.0)},
    ("razon", "apartadas_10"): {2: (0.0, 0.0), 10: (1.0, 0.0), 30: (1.0, 0.0), 60: (0.018, 0.983)},
    ("razon", "apartadas_20"): {2: (0.0, 0.0), 10: (0.0, 0.0), 30: (0.0, 1.0), 60: (0.0, 1.0)},
    ("razon", "bajo_carga_30"): {2: (0.0, 0.0), 10: (1.0, 0.0), 30: (1.0, 0.0), 60: (1.0, 0.0)},
    ("razon", "un_margen_fuera"): {2: (0.0, 1.0), 10: (0.0, 1.0), 30: (0.0, 1.0), 60: (0.0, 1.0)},
    ("razon", "verdadera"): {2: (0.0, 0.0), 10: (1.0, 0.0), 30: (1.0, 0.0), 60: (1.0, 0.0)},
}
# What `coverage()` gives (the same test recomputes it).
COVERAGE: dict[str, dict[int, float]] = {
    "lognormal": {6: 0.974, 10: 0.978, 30: 0.957, 60: 0.969},
    "sesgada": {6: 0.971, 10: 0.984, 30: 0.966, 60: 0.969},
}


# ---------------------------------------------------------------- machines a real class needs
GRID = (6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200)
TARGET = 0.8  # «decides»: «se confirma» or «no se sostiene» in at least this share of classes
NEEDED_DRAWS = 200


@dataclass(frozen=True)
class Needed:
    """How many machines decide a claim at the spread the class shows: `machines` (None: more than
    the largest of GRID), and the share of classes of today's size that would decide it (`now`)."""

    machines: int | None
    now: float
    seen: int


def machines_needed(
    rule: ClassRule,
    values,
    lows,
    highs,
    *,
    seed: int = SEED,
) -> Needed | None:
    """Classes of GRID's sizes drawn from the machines seen (each with its own figure and IC, with
    replacement): the smallest size that decides the claim in TARGET of them. None with fewer than two
    machines seen (no spread to go by)."""
    values, lows, highs = (np.asarray(a, dtype=float) for a in (values, lows, highs))
    seen = values.size
    if seen < 2:
        return None
    rng = np.random.default_rng(seed)

    def decided_share(m: int) -> float:
        names = [f"m{i}" for i in range(m)]
        hits = 0
        for _ in range(NEEDED_DRAWS):
            pick = rng.integers(0, seen, m)
            status = rule.judge(names, values[pick], lows[pick], highs[pick]).status
            hits += status in (vd.SE_CONFIRMA, vd.NO_SE_SOSTIENE)
        return hits / NEEDED_DRAWS

    now_share = decided_share(seen)
    for m in GRID:
        if decided_share(m) >= TARGET:
            return Needed(m, now_share, seen)
    return Needed(None, now_share, seen)
