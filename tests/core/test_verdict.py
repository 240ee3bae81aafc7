"""The one verdict rule (experiments.verdict.decide / judge), branch by branch, on constructed intervals;
the margins of each kind of claim; the minimum of repetitions; the claims built without an interval
(missing, not comparable, an observed outcome); and how a verdict is worded (view.common). The figures
(builders, judge_all, agreement) are tests/core/test_figures.py's."""

import math

import numpy as np
import pandas as pd
import pytest

from helpers import experiments, results, stats
from helpers.experiments import figures as figs
from helpers.experiments import verdict as base
from helpers.experiments.verdict import Said
from helpers.view import common
from helpers.view.verdicts import POWER_NOTE

INF = float("inf")
N = base.MIN_N


def J(value, low, high, *, region, n=10, unstable=False, unit="x", spread=stats.NAN):
    """verdict.judge on a declaration with a hand-made margin (with `spread`, a median's: a power
    calculation says how many repetitions would decide it)."""
    said = Said("k", "s", "f", claimed=value, region=region, unit=unit)
    estimate = stats.Estimate(value, low, high, n, stats.ORDER, spread=spread)
    return base.judge(said, estimate, unstable=unstable)


# ---------------------------------------------------------------- decide: every branch
@pytest.mark.parametrize(
    "low, high, region, expected",
    [
        # "no difference" (margin ±5 %): only an IC wholly inside the margin confirms it
        (0.97, 1.03, (0.95, 1.05), base.SE_CONFIRMA),
        (0.95, 1.05, (0.95, 1.05), base.SE_CONFIRMA),  # the ends belong to the margin
        (0.90, 1.03, (0.95, 1.05), base.NO_CONCLUYENTE),  # pokes out of the margin
        (0.80, 1.40, (0.95, 1.05), base.NO_CONCLUYENTE),  # absence of evidence is not confirmation
        (1.06, 1.30, (0.95, 1.05), base.NO_SE_SOSTIENE),  # entirely above
        (0.70, 0.94, (0.95, 1.05), base.NO_SE_SOSTIENE),  # entirely below
        # a claimed factor ("~2x", margin 1.6-2.5)
        (1.80, 2.20, (1.6, 2.5), base.SE_CONFIRMA),
        (1.20, 1.50, (1.6, 2.5), base.NO_SE_SOSTIENE),
        (1.50, 2.10, (1.6, 2.5), base.NO_CONCLUYENTE),
        # the review's cases: an IC that excludes the claimed value but overlaps the margin is not refuted
        (0.94, 1.05, (1.05, INF), base.NO_CONCLUYENTE),  # 01: «algo de diferencia» (adds), 0.98× [0.94, 1.05]
        (-7.0, 11.8, (16.0, 25.0), base.NO_SE_SOSTIENE),  # 03: «~20 %» (percent_about): entirely below
        (-7.0, 17.0, (16.0, 25.0), base.NO_CONCLUYENTE),
        (0.56, 0.71, (-INF, 0.5), base.NO_SE_SOSTIENE),  # 04: «at most 0.5×»
        (0.45, 0.71, (-INF, 0.5), base.NO_CONCLUYENTE),
        # one-sided margins
        (-30.0, 2.0, (-INF, 5.0), base.SE_CONFIRMA),
        (-3.0, 9.0, (-INF, 5.0), base.NO_CONCLUYENTE),
        (6.0, 9.0, (-INF, 5.0), base.NO_SE_SOSTIENE),
        (1.0, 10.0, (0.5, INF), base.SE_CONFIRMA),  # «adds cost» against its floor, not a point
        # an infinite end of the IC
        (5.0, INF, (0.5, INF), base.SE_CONFIRMA),
        (130.0, INF, (81.6, 127.5), base.NO_SE_SOSTIENE),
        (100.0, INF, (81.6, 127.5), base.NO_CONCLUYENTE),
    ],
)
def test_decide_branches(low, high, region, expected):
    assert base.decide(low, high, region=region) == expected


@pytest.mark.parametrize("low, high", [(math.nan, 1.0), (0.9, math.nan), (None, 1.1)])
def test_decide_without_an_interval_cannot_judge(low, high):
    assert base.decide(low, high, region=(0.9, 1.1)) == base.SIN_DATOS


def test_a_claim_without_a_margin_cannot_be_judged():
    assert base.decide(0.9, 1.1, region=(-INF, INF)) == base.SIN_DATOS
    assert Said("k", "s", "f").region == (-INF, INF)


# ---------------------------------------------------------------- margins: one per kind
@pytest.mark.parametrize(
    "kind, claimed, unit, bounds, region",
    [
        ("about", 0.5, "x", None, (0.4, 0.625)),
        ("about", 2.0, "x", None, (1.6, 2.5)),
        ("about", 650.0, "MB", None, (520.0, 812.5)),
        ("percent_about", 11.0, "%", None, (1.11**1.2 * 100 - 100, 1.11**0.8 * 100 - 100)[::-1]),
        ("percent_about", -20.0, "%", None, (0.8**1.2 * 100 - 100, 0.8**0.8 * 100 - 100)),
        ("percent_about", 1.2, "x", None, (1.2**0.8, 1.2**1.2)),  # log(r) within ±20 %
        ("percent_about", 0.3417, "x", None, (0.3417**1.2, 0.3417**0.8)),  # no longer 0.177-0.473
        ("no_difference", 1.0, "x", None, (1 / 1.05, 1.05)),
        ("no_difference", 0.0, "%", None, (100 / 1.05 - 100, 5.0)),
        ("adds", 1.1, "x", None, (1.05, INF)),
        ("adds", 10.0, "%", None, (5.0, INF)),
        ("reduces", 0.8, "x", None, (-INF, 1 / 1.05)),
        ("at_least", 25.0, "%", None, (25.0, INF)),
        ("at_most", 0.5, "x", None, (-INF, 0.5)),
        ("range", math.nan, "%", (30.0, 24.0), (24.0, 30.0)),
        ("observed", math.nan, "", None, (1.0, 1.0)),
    ],
)
def test_each_kind_has_one_margin(kind, claimed, unit, bounds, region):
    said = Said("k", "s", "f", claimed=claimed, kind=kind, unit=unit, bounds=bounds)
    assert said.region == pytest.approx(region)
    assert base.margin(kind, claimed, unit, bounds) == pytest.approx(region)


@pytest.mark.parametrize(
    "kind, claimed, unit, bounds",
    [
        ("about", math.nan, "x", None),
        ("about", 0.0, "x", None),
        ("percent_about", 1.0, "x", None),  # an effect of 0 %: that is «no_difference»
        ("no_difference", 0.0, "ms", None),  # «no difference» of a time: say the threshold
        ("range", math.nan, "%", None),
        ("nearly", 1.0, "x", None),
    ],
)
def test_a_kind_without_what_it_needs_is_a_programming_error(kind, claimed, unit, bounds):
    with pytest.raises(ValueError):
        base.margin(kind, claimed, unit, bounds)


def test_a_declared_region_must_agree_with_the_kind():
    with pytest.raises(ValueError, match="contradicts"):
        Said("k", "s", "f", claimed=2.0, kind="about", region=(1.0, 3.0))
    assert Said("k", "s", "f", claimed=2.0, kind="about", region=(1.6, 2.5)).region == (1.6, 2.5)


def test_but_recomputes_the_margin_from_the_kind():
    said = Said("k", "s", "f", claimed=0.5, kind="about")
    other = said.but(claimed=1 / 2.2)
    assert other.region == pytest.approx((1 / 2.2 / 1.25, 1.25 / 2.2))
    legacy = Said("k", "s", "f", claimed=1.0, region=(0.9, 1.1))
    assert legacy.but(claimed=1.1).region == (0.9, 1.1)  # a hand-made margin stays as declared


def test_two_figures_of_one_source_never_both_confirm():
    """Seed 001 says +11 % (its own run) and +24-30 % (its table) for the same overhead: no interval can
    lie inside both margins, so no run confirms both."""
    eleven = Said("a", "s", "seed 001", claimed=11.0, kind="percent_about", unit="%")
    table = Said("b", "s", "seed 001", kind="range", bounds=(24.0, 30.0), unit="%")
    assert eleven.region[1] < table.region[0]
    for low, high in ((9.0, 13.0), (25.0, 29.0), (12.0, 25.0)):
        verdicts = {base.decide(low, high, region=s.region) for s in (eleven, table)}
        assert verdicts != {base.SE_CONFIRMA}


@pytest.mark.parametrize(
    "kind, unit, apart",
    [("about", "x", base.ABOUT**2), ("percent_about", "%", (1 + base.EFFECT) / (1 - base.EFFECT))],
)
def test_figures_far_enough_apart_have_disjoint_margins(kind, unit, apart):
    """«about k»: k more than 1.25² apart; an effect: log(r) more than 1.2/0.8 apart."""
    for a in (0.2, 0.5, 2.0, 11.0, 66.0, 100.0):
        if kind == "about":
            b = a * apart * 1.01
        else:
            b = ((1 + a / 100) ** (apart * 1.01) - 1) * 100
        ra = base.margin(kind, a, unit)
        rb = base.margin(kind, b, unit)
        assert ra[1] < rb[0]


@pytest.mark.parametrize("claimed", [0.1, 0.3417, 0.83, 0.97, 1.11, 1.45, 3.0, 12.0])
def test_a_ratio_margin_is_the_same_factor_either_way(claimed):
    """On a ratio, every margin is symmetric on log(r): an effect of −65.83 % is no wider on one side than
    +11 % is, and «no difference» accepts 1/1.05 as it accepts 1.05."""
    lo, hi = base.margin("percent_about", claimed, "x")
    assert math.isclose(math.log(claimed) - math.log(lo), math.log(hi) - math.log(claimed))
    assert math.isclose(math.log(hi) - math.log(lo), 2 * base.EFFECT * abs(math.log(claimed)))
    pct = base.margin("percent_about", (claimed - 1) * 100, "%")
    assert all(math.isclose(p, (r - 1) * 100) for p, r in zip(pct, (lo, hi), strict=True))
    same = base.margin("no_difference", unit="x")
    assert math.isclose(same[0] * same[1], 1.0)
    assert base.margin("no_difference", unit="%")[0] == pytest.approx((same[0] - 1) * 100)


def test_the_printed_margins_state_what_the_code_accepts():
    """Every kind's example in the printed table (KINDS) states margin(kind, …) as the page formats it,
    for each case it declares: editing a constant or the code without the text (or the reverse) fails.
    And the accepted text carries the constants the code uses."""
    from helpers.view.numbers import fmt_margin

    for name, kind in base.KINDS.items():
        if name == "observed":
            assert not kind.cases  # a result, every time: no figure
            continue
        assert kind.cases, name
        at = 0
        for case in kind.cases:
            stated = fmt_margin(base.margin(name, *case), case[1])
            at = kind.example.find(stated, at)
            assert at >= 0, f"{name}: {kind.example!r} does not state {stated!r}"
    assert f"÷ {base.ABOUT:g}" in base.KINDS["about"].accepted
    assert f"r^{1 - base.EFFECT:g} a r^{1 + base.EFFECT:g}" in base.KINDS["percent_about"].accepted
    for name in ("no_difference", "adds", "reduces"):
        assert f"{1 + base.SAME:g}" in base.KINDS[name].accepted


def test_no_difference_excludes_what_the_chapter_calls_some_difference():
    """The chapter calls +10 % (Podman, Ubuntu/Alpine 213/193 ms) «algo de diferencia»: the margin of
    «no difference» must not reach it, and «adds» starts where «no difference» ends."""
    same = base.margin("no_difference", 1.0, "x")
    assert same[1] < 212.7 / 193.3
    assert base.margin("adds", 1.1, "x")[0] == same[1]
    assert base.margin("reduces", 0.9, "x")[1] == same[0]


def test_every_kind_is_in_the_printed_table():
    frame = common.margins_frame()
    assert len(frame) == len(base.MARGINS) and frame.notna().all().all()
    some = common.margins_frame({"range", "about"})  # only the kinds asked for, in the table's order
    assert list(some.iloc[:, 0]) == [frame.iloc[0, 0], frame.iloc[list(base.MARGINS).index("range"), 0]]


# ---------------------------------------------------------------- the minimum of repetitions
def test_the_minimum_is_derived_from_coverage():
    assert base.MIN_N == stats.MIN_N == 6
    assert stats.coverage(base.MIN_N) >= 0.95 and math.isnan(stats.coverage(base.MIN_N - 1))


@pytest.mark.parametrize("n", [1, 2, 3, N - 1])
def test_below_the_minimum_no_verdict_and_the_number_needed(n):
    c = J(2.0, 1.9, 2.1, region=(1.6, 2.5), n=n)
    assert c.status == base.SIN_DATOS and c.too_few and c.more_reps == N and c.n == n
    words = common.verdict_words(c)
    assert (
        words == f"no se puede juzgar con {n} {'repetición' if n == 1 else 'repeticiones'}; hacen falta {N}"
    )
    assert words in common.claim_sentence(c)


def test_at_the_minimum_a_verdict():
    assert J(2.0, 1.9, 2.1, region=(1.6, 2.5), n=N).status == base.SE_CONFIRMA


def test_no_data_is_not_too_few():
    c = base.missing(Said("k", "s", "f", claimed=2.0, kind="about"))
    assert c.status == base.SIN_DATOS and not c.too_few and c.more_reps is None
    assert common.verdict_words(c) == "no se puede juzgar"


def test_unstable_overrides_the_interval_from_the_minimum_on():
    assert J(1.0, 0.99, 1.01, region=(0.95, 1.05), unstable=True).status == base.INESTABLE
    assert J(1.0, 0.99, 1.01, region=(0.95, 1.05), n=2, unstable=True).status == base.SIN_DATOS


# ---------------------------------------------------------------- how many repetitions would decide
def judged_sample(sample, region):
    """verdict.judge on the median of a sample (its order-statistic interval and its spread)."""
    return base.judge(Said("k", "s", "f", claimed=1.0, region=region), stats.median_ci(sample))


def decided_as(sample, region):
    """The one rule on the order-statistic interval of a sample's median (what judge decides)."""
    return base.decide(*stats.median_ci(sample).interval, region=region)


def test_inconclusive_says_how_many_repetitions_would_help():
    c = judged_sample([0.93, 0.97, 1.0, 1.01, 1.03, 1.06, 0.99, 1.08, 0.96, 1.02], (0.95, 1.05))
    assert c.status == base.NO_CONCLUYENTE and c.more_reps > 10
    wider = judged_sample([0.86, 0.94, 1.0, 1.01, 1.03, 1.12, 0.98, 1.16, 0.92, 1.04], (0.95, 1.05))
    assert wider.status == base.NO_CONCLUYENTE and wider.more_reps > c.more_reps
    hopeless = judged_sample([0.6, 0.8, 1.0, 1.02, 1.1, 1.3, 0.9, 1.5, 0.7, 1.2], (0.95, 1.05))
    # one run never says «no n decides it» (its median and spread are too uncertain): «más de 200»
    assert hopeless.status == base.NO_CONCLUYENTE and hopeless.more_reps == INF


def test_only_inconclusive_carries_more_repetitions():
    for sample in ([0.99, 1.0, 1.01, 0.995, 1.005, 1.0], [1.2, 1.25, 1.3, 1.22, 1.28, 1.26]):
        assert judged_sample(sample, (0.95, 1.05)).more_reps is None


@pytest.mark.parametrize(
    "value, sigma, n, region",
    [
        (1.0, 0.05, 6, (0.95, 1.05)),  # inside: both ends must fit
        (1.0, 0.08, 20, (0.95, 1.05)),
        (1.1, 0.06, 9, (0.95, 1.05)),  # above: the low end must clear the top
        (0.9, 0.2, 30, (0.95, 1.05)),  # below
        (1.02, 0.1, 50, (0.95, INF)),  # a one-sided margin
    ],
)
def test_the_power_of_the_order_interval_is_what_a_simulation_of_the_rule_finds(value, sigma, n, region):
    """order_power in closed form (a verdict either way) against the rule itself on 4 000 simulated
    runs of that law."""
    rng = np.random.default_rng(20261204)
    runs = rng.normal(value, sigma, (4000, n))
    decided = np.mean([decided_as(run, region) != base.NO_CONCLUYENTE for run in runs])
    assert abs(stats.order_power(n, value, sigma, region) - decided) < 0.025  # 3.5 σ of 4 000 draws


def test_the_rounds_it_asks_for_decide_it_eight_times_in_ten():
    """The n of the power calculation, run 2 000 times on the law it assumed: the rule decides ≥ 80 %
    of the runs (within Monte-Carlo error), and with half that n far fewer."""
    rng = np.random.default_rng(7)
    sample = rng.normal(1.03, 0.05, 8)
    estimate = stats.median_ci(sample)
    need = stats.rounds_to_decide(estimate, (0.95, 1.05))
    assert estimate.n < need < 200

    def decided(n):
        runs = rng.normal(estimate.value, estimate.spread, (2000, n))
        return np.mean([decided_as(r, (0.95, 1.05)) != base.NO_CONCLUYENTE for r in runs])

    assert decided(need) >= stats.POWER - 0.03
    assert decided(max(need // 2, base.MIN_N)) < stats.POWER - 0.1


def test_seven_and_eight_rounds_are_no_better_than_six():
    """The order-statistic interval is [min, max] at 6, 7 and 8 values: its power falls from 6 to 8
    and jumps at 9 (the k of the interval steps to 2), so the search is over n, never a 1/√n rule."""
    power = {n: stats.order_power(n, 1.0, 0.02, (0.95, 1.05)) for n in (6, 7, 8, 9)}
    assert power[6] > power[7] > power[8] < power[9]


def test_a_heavy_tail_asks_for_more_rounds_than_its_calm_middle():
    """The spread is the standard deviation: at 6-8 values the interval is [min, max], which one wild
    round widens, so a spread that ignored it would promise a decision that the next run misses."""
    calm = [1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0]
    region = (0.95, 1.05)
    assert stats.rounds_to_decide(stats.median_ci(calm + [1.3]), region) > stats.rounds_to_decide(
        stats.median_ci(calm + [1.0]), region
    )


@pytest.mark.parametrize(
    "value, low, high",
    [
        (150.0, 100.0, INF),  # notebook 02's crossover: one infinite bound (it crashed: math.ceil(inf))
        (150.0, -INF, 200.0),
        (INF, 100.0, INF),
        (1.0, math.nan, 1.1),
    ],
)
def test_an_infinite_or_missing_bound_says_nothing_instead_of_crashing(value, low, high):
    c = J(value, low, high, region=(81.6, 127.5))
    assert c.more_reps is None
    common.claim_sentence(c)  # renders


def test_without_a_spread_no_number_and_no_undecidable():
    """A box or a bootstrap is not one sample's median: no power calculation, «no concluyente» alone."""
    c = J(1.02, 0.80, 1.24, region=(0.95, 1.05))
    assert c.status == base.NO_CONCLUYENTE and c.more_reps is None
    assert "harían falta" not in common.verdict_words(c)


def test_never_about_n_when_n_were_already_run():
    # an IC barely out of the margin, with a tiny spread: the power calculation needs no more than n,
    # but n did not decide it, so it asks for more
    estimate = stats.Estimate(1.0, 0.9499, 1.0001, 30, stats.ORDER, spread=0.001)
    c = base.judge(Said("k", "s", "f", claimed=1.0, region=(0.95, 1.05)), estimate)
    assert c.status == base.NO_CONCLUYENTE and c.more_reps == 31


def test_a_figure_far_from_its_margin_has_tails_that_underflow_and_power_one():
    """Tails of 1e-309 (a class of machines far inside the margin) once overflowed scipy's binomial."""
    power = stats.order_power(np.arange(7, 200), 1.0, 0.001, (0.962, 1.038))
    assert np.all(np.isfinite(power)) and np.all(power > 0.999)


def test_on_the_margins_edge_no_n_decides():
    edge = stats.median_ci([1.03, 1.04, 1.05, 1.05, 1.06, 1.07])
    assert stats.rounds_to_decide(edge, (0.95, 1.05), cap=200) == INF


# ---------------------------------------------------------------- claims as said and as judged
SAID = Said("k", "A tarda el doble que B", "una fuente", claimed=2.0, kind="about", quantity="A/B")


def test_a_claim_holds_its_declaration_and_its_estimate():
    claim = base.judge(SAID, stats.Estimate(2.0, 1.9, 2.1, 8, stats.ORDER, paired=True))
    assert claim.said is SAID and claim.estimate.paired and claim.estimate.method == stats.ORDER
    assert (claim.key, claim.quantity, claim.region) == (SAID.key, SAID.quantity, SAID.region)
    assert (claim.value, claim.low, claim.high, claim.n) == (2.0, 1.9, 2.1, 8)
    reason = base.not_comparable(SAID, "otra máquina")
    assert reason.note == "otra máquina" and reason.said.region == SAID.region


def test_outcome_builder_observes_a_deterministic_result():
    said = Said("o", "sin --privileged falla", "f", kind="observed", unit="")
    assert base.outcome(said, [True] * base.MIN_OBSERVED).status == base.SE_CONFIRMA
    refuted = base.outcome(said, [False] * base.MIN_OBSERVED)
    assert refuted.status == base.NO_SE_SOSTIENE and refuted.n == base.MIN_OBSERVED
    assert base.outcome(said, [True, False, True]).status == base.NO_CONCLUYENTE
    assert base.outcome(said, []).status == base.SIN_DATOS


def test_an_outcome_needs_min_observed_observations_for_a_verdict():
    said = Said("o", "sin --privileged falla", "f", kind="observed", unit="", quantity="el intento")
    for seen in ([False], [True], [True, True], [True, False]):
        few = base.outcome(said, seen)
        assert few.status == base.SIN_DATOS and few.n == len(seen) and not few.decided, seen
        assert few.more_reps == base.MIN_OBSERVED and base.too_few_observed(few)
    assert not base.too_few_observed(base.outcome(said, [True] * base.MIN_OBSERVED))
    text = common.claim_sentence(base.outcome(said, [False]))
    assert "sin veredicto: observado 1 vez" in text and f"al menos {base.MIN_OBSERVED} observaciones" in text
    assert "Observado: el intento, 0 de 1 veces." in text and "no se sostiene" not in text


def test_not_comparable_carries_its_reason():
    c = base.not_comparable(SAID, "una VM de busybox no es una VM de Ubuntu")
    assert c.status == base.NO_COMPARABLE and "busybox" in c.note


def test_an_absolute_figure_beside_a_claim_is_shown_and_never_judged():
    """verdict.beside: this machine's milliseconds next to a claim judged on something else (or «no
    comparable»), with their IC 95 % from MIN_N values on, and without one below; no figure, no change."""
    said = Said("x_ms", "Tarda menos de 1 ms", "la fuente", claimed=1.0, kind="at_most", unit="ms")
    elsewhere = base.not_comparable(said, base.OTHER_MACHINE)
    shown = base.beside(elsewhere, stats.median_ci(np.array([58.0, 55, 60, 57, 59, 61])), "ms")
    assert shown.status == base.NO_COMPARABLE and shown.detail[base.BESIDE]["n"] == 6
    text = common.claim_sentence(shown)
    assert "no comparable" in text and "58 ms [55, 61] (mediana e IC 95 %, n = 6 repeticiones)" in text
    few = common.claim_sentence(base.beside(elsewhere, stats.median_ci(np.array([58.0, 60])), "ms"))
    assert f"sin IC 95 %: hacen falta {base.MIN_N}" in few and "n = 2 repeticiones" in few
    assert base.beside(elsewhere, None, "ms") is elsewhere
    assert base.beside(elsewhere, stats.Estimate.missing(), "ms") is elsewhere


# ---------------------------------------------------------------- words
def test_every_status_has_its_words():
    assert set(common.VERDICT) == set(base.STATUSES)
    assert common.VERDICT[base.SE_CONFIRMA] == "se confirma"
    assert common.VERDICT[base.NO_SE_SOSTIENE] == "no se sostiene"
    assert common.VERDICT[base.INESTABLE] == "medición inestable: repite"
    assert common.VERDICT[base.SIN_DATOS] == "no se puede juzgar"


def test_verdict_words_name_the_repetitions_needed():
    c = J(1.02, 0.90, 1.14, region=(0.95, 1.05), spread=0.06)
    words = common.verdict_words(c)
    assert words.startswith("no concluyente con estas repeticiones")
    assert f"harían falta unas {common.approx(c.more_reps)}" in words
    c.more_reps = 154  # a calculation on one run: two significant digits, not «154»
    assert common.verdict_words(c).endswith("(harían falta unas 150)")
    assert POWER_NOTE in common.list_note([c]) and "8 de cada 10" in POWER_NOTE
    hopeless = J(1.02, 0.80, 1.24, region=(0.95, 1.05), spread=0.2)  # beyond what a class can run
    assert common.verdict_words(hopeless).endswith(f"(harían falta más de {base.PRACTICAL_REPS})")
    assert POWER_NOTE in common.list_note([hopeless])


def test_claim_sentence_is_built_from_declared_fields():
    rng = np.random.default_rng(5)
    b = rng.normal(100, 1, 12)
    said = SAID.but(where="tabla 2", note="Nuestra línea base es otra.")
    text = common.claim_sentence(figs.ratio(said, 2 * b, b))
    assert "«A tarda el doble que B» (una fuente, tabla 2) — se confirma" in text
    assert "n = 12 repeticiones" in text and "la fuente dice 2× y aceptamos de 1.6× a 2.5×" in text
    assert text.endswith("Nuestra línea base es otra.")
    refuted = common.claim_sentence(figs.ratio(said, b, b))
    assert "no se sostiene" in refuted and "fuera del margen" in refuted
    observed = common.claim_sentence(base.outcome(Said("o", "falla", "f", quantity="el intento"), [True]))
    assert "Observado: el intento, 1 de 1 veces." in observed


def test_a_threshold_and_a_range_are_worded_as_such():
    floor = Said("f", "añade costo", "f", claimed=0.5, kind="at_least", unit="ns", quantity="el costo")
    text = common.claim_sentence(base.judge(floor, stats.Estimate(3.0, 1.0, 10.0, 10)))
    assert "aceptamos al menos 0.5 ns" in text and "la fuente dice" not in text
    rng = Said("r", "24-30 %", "f", kind="range", bounds=(24.0, 30.0), unit="%")
    text = common.claim_sentence(base.judge(rng, stats.Estimate(27.0, 25.0, 29.0, 10)))
    assert "la fuente da de +24 % a +30 %" in text and "se confirma" in text


def test_the_method_sentence_names_the_minimum_and_the_rule():
    text = common.method_sentence()
    assert f"Con menos de {N} repeticiones no hay veredicto" in text
    assert "96.9 %" in text and "ronda a ronda" in text and "no se sostiene" in text
    assert "Cada cifra es una mediana" not in text  # not every figure is one (an IQR ratio, a count)


def test_the_method_sentence_prints_the_simulated_gate_and_what_it_cannot_see():
    """«Cómo medimos» gives the gate's own simulated figures (load.OTHER_TESTED: false alarms, a load that
    never stops, one the counter does not see), not the old pressure generator's."""
    from helpers.experiments import load

    text = common.method_sentence()
    gate = load.OTHER_TESTED
    for name in (
        "reposo_sin_veredicto",
        "persistente_sin_veredicto",
        "invisible_cobertura_proporcion_por_ronda",
    ):
        assert f"{100 * gate[name][N]:.1f} %" in text, name
    assert "el contador no ve" in text and "no la para ninguna puerta" in text


def test_a_claim_no_reasonable_n_decides_shows_its_figure_and_the_reason():
    """INDECIDIBLE, through the one rule, only where declared before the run (a simulation showed no
    power): a decisive IC on a declared one still gives no verdict, and the sentence carries the figure,
    its IC and the reason. This run's noise alone never gives it (one short run knows its noise badly):
    «no concluyente», with «más de PRACTICAL_REPS»."""
    declared = Said("k", "s", "f", kind="adds", undecidable="Sin potencia: una simulación lo muestra.")
    c = base.judge(declared, stats.Estimate(1.5, 1.2, 1.9, 12))
    assert c.status == base.INDECIDIBLE and c.more_reps is None and not c.decided
    text = common.claim_sentence(c)
    assert "sin veredicto posible" in text and "Sin potencia" in text and "1.2" in text
    wide = J(1.0, 0.5, 2.0, region=(0.99, 1.01), n=6, spread=0.5)  # would need thousands
    assert wide.status == base.NO_CONCLUYENTE and wide.more_reps == INF
    near = J(1.0, 0.97, 1.03, region=(0.96, 1.02), n=6, spread=0.02)  # a few more repetitions decide it
    assert near.status == base.NO_CONCLUYENTE and near.more_reps <= base.PRACTICAL_REPS
    assert "n = 6 repeticiones; distingue ÷/× 1.03)" in common.claim_sentence(near)
    summary = "\n".join(common.verdict_summary([c, near, wide]))
    assert "sin veredicto posible" in summary and "«s»" in summary


@pytest.mark.parametrize("module", experiments.all_experiments(), ids=lambda m: m.EXPERIMENT)
def test_a_run_without_rows_leaves_every_claim_without_data_and_raises_nothing(module):
    """A run stopped before its first row (Ctrl-C, a full disk) still shows its claims: none decided."""
    claims = module.claims(pd.DataFrame(columns=results.COLUMNS), {})
    assert all(not c.decided and c.status != base.BAJO_CARGA for c in claims)


# ---------------------------------------------------------------- which way a figure points
@pytest.mark.parametrize(
    "low, high, around, expected",
    [
        (1.10, 1.30, 1.0, base.ABOVE),  # beyond «casi igual»
        (0.98, 1.03, 1.0, base.LEVEL),
        (1.02, 1.40, 1.0, base.ABOVE_NULL),  # leaves 1 out, overlaps «casi igual»
        (0.70, 0.99, 1.0, base.BELOW_NULL),
        (0.90, 1.20, 1.0, base.NO_CONCLUYENTE),  # holds 1
        (3.8, 26.0, 0.0, base.ABOVE_NULL),  # 03's «sort … +8.4 % [+3.8, +26]»
        (0.0, 26.0, 0.0, base.NO_CONCLUYENTE),  # touching the null still holds it
        (-8.0, 9.0, 0.0, base.NO_CONCLUYENTE),
    ],
)
def test_side_says_no_se_distingue_only_when_the_interval_holds_the_null(low, high, around, expected):
    assert base.side(low, high, 10, around=around) == expected
    assert base.side(low, high, N - 1, around=around) == base.SIN_DATOS
    if expected not in (base.ABOVE_NULL, base.BELOW_NULL):
        assert base.direction(low, high, 10, around=around) == expected  # side only splits the rest


def test_the_side_alone_is_worded_without_no_se_distingue():
    above = common.direction_words(base.ABOVE_NULL, "más lento", "más rápido", around=0)
    below = common.direction_words(base.BELOW_NULL, "más lento", "más rápido", around=0)
    assert above.startswith("más lento, sin saber si fuera de «casi igual»"), above
    assert below.startswith("más rápido, sin saber si fuera"), below
    assert common.direction_words(base.ABOVE_NULL).startswith("más, sin saber")
    undecided = common.direction_words(base.NO_CONCLUYENTE)
    assert "no se distingue" in undecided and "no se distingue" not in above + below
