"""The one verdict rule (experiments.verdict.decide / judge), branch by branch, on constructed intervals;
and how a verdict is worded (view.common)."""

import math

import numpy as np
import pytest

from helpers import measure
from helpers.experiments import verdict as base
from helpers.experiments.verdict import Said
from helpers.view import common

INF = float("inf")


def J(key, statement, source, value, low, high, *, claimed, region, n, unit="", unstable=False):
    """verdict.judge on a declaration built in place."""
    said = Said(key, statement, source, claimed=claimed, region=region, unit=unit)
    return base.judge(said, value, low, high, n=n, unstable=unstable)


# ---------------------------------------------------------------- decide: every branch
@pytest.mark.parametrize(
    "low, high, claimed, region, expected",
    [
        # "no difference" (ratio 1, margin ±5 %): only an IC wholly inside the margin confirms it
        (0.97, 1.03, 1.0, (0.95, 1.05), base.SE_CONFIRMA),
        (0.96, 1.04, 1.0, (0.95, 1.05), base.SE_CONFIRMA),
        (0.90, 1.03, 1.0, (0.95, 1.05), base.NO_CONCLUYENTE),  # contains 1, but pokes out of the margin
        (0.80, 1.40, 1.0, (0.95, 1.05), base.NO_CONCLUYENTE),  # absence of evidence is not confirmation
        (1.10, 1.30, 1.0, (0.95, 1.05), base.NO_SE_SOSTIENE),  # excludes 1
        (0.70, 0.90, 1.0, (0.95, 1.05), base.NO_SE_SOSTIENE),
        # inside the margin while excluding the claimed value exactly: equivalence wins
        (1.01, 1.04, 1.0, (0.95, 1.05), base.SE_CONFIRMA),
        # a claimed factor ("~2x", margin 1.6-2.5)
        (1.80, 2.20, 2.0, (1.6, 2.5), base.SE_CONFIRMA),
        (1.20, 1.50, 2.0, (1.6, 2.5), base.NO_SE_SOSTIENE),  # faster, but far from twice
        (0.70, 0.90, 2.0, (1.6, 2.5), base.NO_SE_SOSTIENE),  # the other way round
        (1.50, 2.10, 2.0, (1.6, 2.5), base.NO_CONCLUYENTE),
        # a claimed percentage with a one-sided margin (-inf allowed)
        (-3.0, 2.0, 0.0, (-INF, 5.0), base.SE_CONFIRMA),
        (-30.0, 2.0, 0.0, (-INF, 5.0), base.SE_CONFIRMA),
        (-3.0, 9.0, 0.0, (-INF, 5.0), base.NO_CONCLUYENTE),
        (6.0, 9.0, 0.0, (-INF, 5.0), base.NO_SE_SOSTIENE),
        # the boundaries belong to the margin
        (0.95, 1.05, 1.0, (0.95, 1.05), base.SE_CONFIRMA),
    ],
)
def test_decide_branches(low, high, claimed, region, expected):
    assert base.decide(low, high, claimed=claimed, region=region) == expected


@pytest.mark.parametrize(
    "low, high, claimed", [(math.nan, 1.0, 1.0), (0.9, math.nan, 1.0), (0.9, 1.1, math.nan), (None, 1.1, 1.0)]
)
def test_decide_without_an_interval_cannot_judge(low, high, claimed):
    assert base.decide(low, high, claimed=claimed, region=(0.9, 1.1)) == base.SIN_DATOS


# ---------------------------------------------------------------- judge
def test_judge_inconclusive_says_how_many_repetitions_would_help():
    c = J(
        "k",
        "«No hay diferencia»",
        "el capítulo original",
        1.02,
        0.90,
        1.14,
        claimed=1.0,
        region=(0.95, 1.05),
        n=10,
    )
    assert c.status == base.NO_CONCLUYENTE
    assert c.more_reps is not None and c.more_reps > 10
    # a wider interval (same centre) asks for more repetitions
    wider = J("k", "s", "f", 1.02, 0.80, 1.24, claimed=1.0, region=(0.95, 1.05), n=10)
    assert wider.more_reps > c.more_reps
    assert c.source == "el capítulo original" and c.n == 10 and c.region == (0.95, 1.05)


def test_judge_only_inconclusive_carries_more_repetitions():
    for low, high in ((0.97, 1.03), (1.2, 1.3)):
        c = J("k", "s", "f", (low + high) / 2, low, high, claimed=1.0, region=(0.95, 1.05), n=10)
        assert c.status in (base.SE_CONFIRMA, base.NO_SE_SOSTIENE)
        assert c.more_reps is None


def test_a_single_measurement_gets_no_verdict():
    c = J("k", "s", "f", 13.0, 13.0, 13.0, claimed=10.0, region=(7.5, 13.3), n=1)
    assert c.status == base.SIN_DATOS
    assert (
        J("k", "s", "f", 13.0, 12.0, 13.2, claimed=10.0, region=(7.5, 13.3), n=3).status == base.SE_CONFIRMA
    )


def test_judge_unstable_overrides_the_interval():
    c = J("k", "s", "f", 1.0, 0.99, 1.01, claimed=1.0, region=(0.95, 1.05), n=10, unstable=True)
    assert c.status == base.INESTABLE


def test_repetitions_to_decide_shrinks_like_root_n():
    # half-width 0.1 around 1.05, outside the narrow margin; the claimed value sits 0.05 away:
    # excluding it needs a half-width of 0.05, (0.1 / 0.05)^2 = 4x the repetitions
    n = base.repetitions_to_decide(1.05, 0.95, 1.15, 10, claimed=1.0, region=(0.99, 1.01))
    assert 35 <= n <= 45
    # inside a wide margin, fitting in it is the nearer goal
    assert base.repetitions_to_decide(1.05, 0.80, 1.30, 10, claimed=1.0, region=(0.9, 1.5)) < n
    assert base.repetitions_to_decide(1.0, math.nan, 1.1, 10, claimed=1.0, region=(0.9, 1.1)) is None


# ---------------------------------------------------------------- unstable measurements
def test_unstable_flags_two_clusters_and_wide_spread():
    two_clusters = [0.13, 0.14, 0.15, 0.13, 2.0, 2.1, 1.9, 2.05]  # 03's «archivos» in Docker
    assert measure.unstable(two_clusters)
    assert measure.unstable([1, 1, 1, 3, 3, 3, 5, 5])  # IQR / median > 0.5
    assert not measure.unstable([1.00, 1.02, 0.98, 1.01, 0.99, 1.03])
    assert not measure.unstable([1.0, 50.0])  # too few to say
    rng = np.random.default_rng(1)
    assert not measure.unstable(rng.normal(100, 5, 30))


# ---------------------------------------------------------------- words
def test_every_status_has_its_words():
    statuses = list(base.STATUSES)
    assert set(common.VERDICT) == set(statuses)  # the old statuses are gone
    assert common.VERDICT[base.SE_CONFIRMA] == "se confirma"
    assert common.VERDICT[base.NO_SE_SOSTIENE] == "no se sostiene"
    assert common.VERDICT[base.INESTABLE] == "medición inestable: repite"
    assert common.VERDICT[base.SIN_DATOS] == "no se puede juzgar"


def test_verdict_words_name_the_repetitions_needed():
    c = J("k", "s", "f", 1.02, 0.90, 1.14, claimed=1.0, region=(0.95, 1.05), n=10)
    words = common.verdict_words(c)
    assert words.startswith("no concluyente con estas repeticiones")
    assert f"harían falta unas {common.num(c.more_reps)}" in words
    assert common.verdict_words(base.missing(Said("k", "s", "f"))) == "no se puede juzgar"


# ---------------------------------------------------------------- builders
SAID = Said("k", "A tarda el doble que B", "una fuente", claimed=2.0, region=(1.6, 2.5), quantity="A/B")


def test_ratio_builder_judges_the_ratio_of_medians():
    rng = np.random.default_rng(3)
    b = rng.normal(100, 1, 12)
    assert base.ratio(SAID, 2 * b, b).status == base.SE_CONFIRMA
    assert base.ratio(SAID, b, b).status == base.NO_SE_SOSTIENE
    assert base.ratio(SAID, [], b).status == base.SIN_DATOS
    one = base.ratio(SAID, [200.0], [100.0])
    assert one.status == base.SIN_DATOS and one.n == 1  # below the minimum: no verdict


def test_median_and_difference_builders():
    rng = np.random.default_rng(4)
    a = rng.normal(110, 1, 12)
    b = rng.normal(100, 1, 12)
    pct = Said("p", "A es un 10 % más lento", "f", claimed=10.0, region=(5.0, 15.0), unit="%")
    assert base.difference(pct, a, b, percent=True).status == base.SE_CONFIRMA
    ms = Said("d", "A tarda 10 ms más", "f", claimed=10.0, region=(8.0, 12.0), unit="ms")
    assert base.difference(ms, a, b).status == base.SE_CONFIRMA
    level = Said("m", "A tarda unos 50 ms", "f", claimed=50.0, region=(40.0, 60.0), unit="ms")
    claim = base.median(level, a)
    assert claim.status == base.NO_SE_SOSTIENE and claim.low <= claim.value <= claim.high


def test_outcome_builder_observes_a_deterministic_result():
    said = Said("o", "sin --privileged falla", "f", unit="")
    assert base.outcome(said, [True, True, True]).status == base.SE_CONFIRMA
    refuted = base.outcome(said, [False])  # one observation of a deterministic step decides
    assert refuted.status == base.NO_SE_SOSTIENE and refuted.n == 1
    assert base.outcome(said, [True, False]).status == base.NO_CONCLUYENTE
    assert base.outcome(said, []).status == base.SIN_DATOS


def test_not_comparable_carries_its_reason():
    c = base.not_comparable(SAID, "una VM de busybox no es una VM de Ubuntu")
    assert c.status == base.NO_COMPARABLE and "busybox" in c.note


def test_claim_sentence_is_built_from_declared_fields():
    rng = np.random.default_rng(5)
    b = rng.normal(100, 1, 12)
    said = SAID.but(where="tabla 2", note="Nuestra línea base es otra.")
    text = common.claim_sentence(base.ratio(said, 2 * b, b))
    assert "«A tarda el doble que B» (una fuente, tabla 2) — se confirma" in text
    assert "A/B = 2.00×" in text and "n = 12" in text and "de 1.60× a 2.50×" in text
    assert text.endswith("Nuestra línea base es otra.")
    refuted = common.claim_sentence(base.ratio(said, b, b))
    assert "no se sostiene" in refuted and "deja fuera" in refuted
    observed = common.claim_sentence(base.outcome(Said("o", "falla", "f", quantity="el intento"), [True]))
    assert "Observado: el intento, 1 de 1 veces." in observed
