"""The figure a claim is judged on (experiments.figures): the builders on arms paired by round or
independent, a declaration's figure judged on a run (`judge_all`, `Sel`, `Data`), and the agreement of a
live figure with the reference's."""

import math

import numpy as np
import pandas as pd
import pytest

from helpers import stats
from helpers.experiments import figures as figs
from helpers.experiments import verdict as base
from helpers.experiments.verdict import Said
from helpers.view import common

SAID = Said("k", "A tarda el doble que B", "una fuente", claimed=2.0, kind="about", quantity="A/B")


# ---------------------------------------------------------------- builders
def test_ratio_builder_judges_the_ratio():
    rng = np.random.default_rng(3)
    b = rng.normal(100, 1, 12)
    assert figs.ratio(SAID, 2 * b, b).status == base.SE_CONFIRMA
    assert figs.ratio(SAID, b, b).status == base.NO_SE_SOSTIENE
    assert figs.ratio(SAID, [], b).status == base.SIN_DATOS
    one = figs.ratio(SAID, [200.0], [100.0])
    # independent arms: the box needs 7 values per arm (each median's interval at √95 %)
    assert one.status == base.SIN_DATOS and one.n == 1 and one.more_reps == 7 and one.too_few


def test_series_indexed_by_round_are_paired_and_n_counts_rounds():
    rng = np.random.default_rng(4)
    drift = np.exp(rng.normal(0, 0.6, 8))  # a noisy machine, round by round
    a = pd.Series(2 * drift * rng.normal(1, 0.02, 8), index=range(1, 9))
    b = pd.Series(drift * rng.normal(1, 0.02, 8), index=range(1, 9))
    paired = figs.ratio(SAID, a, b)
    assert paired.status == base.SE_CONFIRMA and paired.n == 8 and paired.detail["rondas"] is True
    independent = figs.ratio(SAID, a.to_numpy(), b.to_numpy())
    assert independent.status != base.SE_CONFIRMA and "rondas" not in independent.detail
    # the sentence names what the builder computed: the median of the per-round ratios when paired,
    # the ratio of the arms' medians when independent, «cifra» for a figure a builder did not make
    assert paired.detail["statistic"] == figs.MEDIAN
    assert (
        "(mediana de las cifras por ronda e IC 95 %, n = 8 rondas; distingue ÷/× "
        in common.claim_sentence(paired)
    )
    assert independent.detail["statistic"] == figs.OF_MEDIANS
    assert "(cifra de las medianas e IC 95 %" in common.claim_sentence(independent)
    assert figs.median(SAID, a.to_numpy()).detail["statistic"] == figs.MEDIAN
    given = base.judge(SAID, stats.Estimate(1.0, 0.9, 1.1, 8), detail={"rondas": True})
    assert "(cifra calculada ronda a ronda e IC 95 %, n = 8 rondas" in common.claim_sentence(given)
    assert "mediana" not in common.claim_sentence(given)
    assert "n = 8 rondas" in common.claim_sentence(paired)


def test_median_difference_and_formula_builders():
    rng = np.random.default_rng(4)
    a, b = rng.normal(110, 0.3, 12), rng.normal(100, 0.3, 12)
    pct = Said("p", "A es un 10 % más lento", "f", claimed=10.0, kind="percent_about", unit="%")
    assert figs.difference(pct, a, b, percent=True).status == base.SE_CONFIRMA
    ms = Said("d", "A tarda 10 ms más", "f", claimed=10.0, kind="about", unit="ms")
    assert figs.difference(ms, a, b).status == base.SE_CONFIRMA
    level = Said("m", "A tarda unos 50 ms", "f", claimed=50.0, kind="about", unit="ms")
    claim = figs.median(level, a)
    assert claim.status == base.NO_SE_SOSTIENE and claim.low <= claim.value <= claim.high
    share = Said("s", "B es al menos el 80 % de A", "f", claimed=80.0, kind="at_least", unit="%")
    assert figs.formula(share, lambda x, y: y / x, a, b, scale=100).status == base.SE_CONFIRMA


def _raw(**arms) -> pd.DataFrame:
    """Raw rows (engine, variant, metric, rep, value) of arms measured in the same 8 rounds."""
    rows = [
        {"engine": e, "variant": "v", "metric": "t", "rep": rep, "value": v}
        for e, values in arms.items()
        for rep, v in enumerate(values, start=1)
    ]
    return pd.DataFrame(rows)


def test_judge_all_judges_each_declared_figure_on_the_run():
    rng = np.random.default_rng(5)
    drift = np.exp(rng.normal(0, 0.5, 8))  # shared by each round: cancels in the paired ratio
    df = _raw(a=2 * drift * rng.normal(1, 0.01, 8), b=drift * rng.normal(1, 0.01, 8))
    arm = {e: figs.Sel(engine=e, metric="t") for e in ("a", "b", "c")}
    declared = (
        SAID.but(figure=figs.Ratio(arm["a"], arm["b"], detail={"engine": lambda df, meta: "a"})),
        SAID.but(key="r2", figure=figs.Ratio(arm["a"], arm["c"])),  # no arm c: «sin datos»
        SAID.but(key="r3", figure=figs.Ratio(arm["a"], arm["c"], optional=True)),  # no arm c: no claim
        SAID.but(key="r4", figure=figs.Ratio(arm["a"], arm["c"], missing_note="falta c")),
        SAID.but(key="r5", figure=figs.Ratio(arm["a"], arm["b"], when=lambda df, meta: False)),
        SAID.but(key="r6", figure=figs.Ratio(arm["a"], arm["b"], needs=lambda df, meta: False)),
        SAID.but(key="r7", figure=figs.NotComparable("aquí no", detail={"x": 1})),
        SAID.but(key="r8", figure=figs.Computed(lambda df, meta: stats.Estimate.missing(n=3))),
        Said("o", "pasa", "f", kind="observed", unit="", figure=figs.Outcome(lambda df, meta: [True] * 3)),
    )
    found = {c.key: c for c in figs.judge_all(declared, df, {})}
    assert set(found) == {"k", "r2", "r4", "r6", "r7", "r8", "o"}
    ratio = found["k"]
    assert ratio.status == base.SE_CONFIRMA and ratio.n == 8 and ratio.estimate.paired
    resolved = ratio.detail.pop("resolucion")  # half its IC, as a factor: the smallest effect it tells apart
    assert resolved == math.exp(math.log(ratio.high / ratio.low) / 2) > 1
    assert ratio.detail == {"engine": "a", "rondas": True, "statistic": figs.MEDIAN}
    assert ratio.estimate == stats.ratio_ci(figs.select(df, {}, arm["a"]), figs.select(df, {}, arm["b"]))
    assert found["r2"].status == base.SIN_DATOS and found["r2"].n == 0
    assert found["r4"].note == "falta c" and found["r6"].status == base.SIN_DATOS
    assert found["r7"].status == base.NO_COMPARABLE and found["r7"].detail == {"x": 1}
    assert found["r8"].status == base.SIN_DATOS and found["r8"].n == 0
    assert found["o"].status == base.SE_CONFIRMA
    # the run's own hooks: how a Sel picks an arm, and the declaration as this run words it
    doubled = figs.judge_all(
        declared[:1],
        df,
        {},
        pick=lambda df, meta, sel: (
            figs.select(df, meta, sel) * (2 if dict(sel.where)["engine"] == "a" else 1)
        ),
        adapt=lambda said, df, meta: said.but(note="de esta corrida"),
    )
    assert doubled[0].value == pytest.approx(2 * ratio.value) and doubled[0].note == "de esta corrida"


def test_judging_is_judge_all_as_an_experiments_claims_function():
    rng = np.random.default_rng(5)  # the run of test_judge_all_judges_each_declared_figure_on_the_run
    drift = np.exp(rng.normal(0, 0.5, 8))
    df = _raw(a=2 * drift * rng.normal(1, 0.01, 8), b=drift * rng.normal(1, 0.01, 8))
    declared = (
        SAID.but(figure=figs.Ratio(figs.Sel(engine="a", metric="t"), figs.Sel(engine="b", metric="t"))),
    )
    halved = lambda df: df.assign(value=np.where(df["engine"] == "a", df["value"] / 2, df["value"]))
    noted = lambda said, df, meta: said.but(note="de esta corrida")
    claims = figs.judging(declared, adapt=noted, prepare=halved)
    (claim,) = claims(df)  # meta is optional, as the contract's claims(df, meta) takes it
    (expected,) = figs.judge_all(declared, halved(df), None, adapt=noted)
    assert claim == expected and claim.note == "de esta corrida"
    assert claim.value == pytest.approx(1.0, rel=0.05) and claim.status == base.NO_SE_SOSTIENE
    assert figs.judging(declared)(df, {})[0].status == base.SE_CONFIRMA


def test_unless_gives_the_figure_or_no_comparable_and_ran_says_which_engines_were_measured():
    rng = np.random.default_rng(5)  # the run of test_judge_all_judges_each_declared_figure_on_the_run
    drift = np.exp(rng.normal(0, 0.5, 8))
    df = _raw(a=2 * drift * rng.normal(1, 0.01, 8), b=drift * rng.normal(1, 0.01, 8))
    ratio = figs.Ratio(figs.Sel(engine="a", metric="t"), figs.Sel(engine="b", metric="t"))
    emulated = lambda df, meta: meta["emulada"]
    unless = SAID.but(figure=figs.Unless(emulated, "aquí no se puede", {"tipo": "vm"}, ratio))
    (judged,) = figs.judge_all([unless], df, {"emulada": False})
    (plain,) = figs.judge_all(
        [SAID.but(figure=figs.Custom(lambda s, df, meta: figs.judge_all([s.but(figure=ratio)], df, meta)))],
        df,
        {"emulada": False},
    )
    assert judged == plain and judged.status == base.SE_CONFIRMA
    (deferred,) = figs.judge_all([unless], df, {"emulada": True})
    assert deferred.status == base.NO_COMPARABLE and deferred.note == "aquí no se puede"
    assert deferred.detail == {"tipo": "vm"} and deferred.n == 0
    assert figs.ran("a")(df, None) and figs.ran("a", "b")(df, None)
    assert not figs.ran("a", "c")(df, None) and not figs.ran("a")(df.iloc[:0], None)
    on = lambda engine: SAID.but(
        key=engine,
        figure=figs.Ratio(
            figs.Sel(engine=engine, metric="t"), figs.Sel(engine="b", metric="t"), when=figs.ran(engine)
        ),
    )
    assert [c.key for c in figs.judge_all([on("a"), on("c")], df, {})] == ["a"]


def test_a_sel_value_may_be_the_runs_own():
    df = _raw(a=[1.0] * 6, b=[2.0] * 6)
    data = figs.Data(df, {"elegido": "b"})
    chosen = data(figs.Sel(engine=lambda df, meta: meta["elegido"], metric="t"))
    assert list(chosen) == [2.0] * 6 and list(chosen.index) == list(range(1, 7))
    assert len(data(figs.Sel(engine=lambda df, meta: None))) == 0  # None selects nothing
    assert isinstance(data(figs.Sel(engine="a", paired=False)), np.ndarray)


# ---------------------------------------------------------------- agreement, judged like a claim
@pytest.mark.parametrize(
    "live, ref, expected",
    [
        ((0.50, 0.48, 0.52), (0.50, 0.49, 0.51), figs.COINCIDE),  # live ÷ ref in [0.94, 1.06]
        ((0.50, 0.48, 0.52), (0.50, float("nan"), float("nan")), figs.COINCIDE),  # a published figure
        ((1.50, 1.40, 1.60), (0.50, 0.45, 0.55), figs.NO_COINCIDE),
        ((0.50, 0.30, 0.80), (0.50, 0.30, 0.80), base.NO_CONCLUYENTE),  # two wide intervals: not «coincide»
        ((0.50, float("nan"), float("nan")), (0.5, 0.4, 0.6), base.SIN_DATOS),
        ((2.0, 1.0, 3.0), (2.0, 1.9, 2.1), base.NO_CONCLUYENTE),
        ((1.0, -2.0, 3.0), (2.0, 1.0, 3.0), figs.COINCIDE),  # a signed figure: within ±5 points
        ((12.0, 10.0, 14.0), (2.0, -1.0, 3.0), figs.NO_COINCIDE),
    ],
)
def test_agreement_is_live_over_reference_against_a_margin(live, ref, expected):
    assert figs.agreement(live, ref) == expected
    assert common.AGREEMENT[figs.agreement(live, ref)]


def test_a_published_range_over_which_live_falls_inside():
    # the reference is a range 24-30 (never resampled): live ÷ [24, 30]
    assert figs.agreement_interval((27.0, 26.0, 28.0), (27.0, 24.0, 30.0)) == pytest.approx(
        (1.0, 26 / 30, 28 / 24)
    )
    assert figs.agreement((27.0, 26.0, 28.0), (27.0, 24.0, 30.0)) == figs.COINCIDE
