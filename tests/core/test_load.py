"""The machine's load recorded with each round decides which rounds a per-round figure is judged on
(experiments/load.py), through the verdict path every experiment uses (figures.judge_all), from the
rows a run leaves in raw.csv (results.split_run), to the sentence a student reads."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers import results
from helpers.experiments import figures as fg
from helpers.experiments import load
from helpers.experiments import verdict as vd
from helpers.view import common, numbers

PODMAN_FASTER = vd.Said(
    "podman_2x",
    "Podman es ~2x más rápido que Docker en el arranque",
    "una fuente",
    claimed=0.5,
    kind="about",
    quantity="Podman/Docker",
    figure=fg.Ratio(fg.Sel(engine="podman", metric="arranque"), fg.Sel(engine="docker", metric="arranque")),
)


def _run(pressure, added):
    """A run's raw rows: Podman half of Docker each round plus the round's added time (ms), and the CPU
    pressure each round recorded; split as the loader splits them."""
    rng = np.random.default_rng(3)
    rows = []
    for rep, (p, extra) in enumerate(zip(pressure, added, strict=True), start=1):
        docker = 100 * np.exp(rng.normal(0, 0.02))
        rows += [
            ("docker", rep, "arranque", docker + extra),
            ("podman", rep, "arranque", docker / 2 + extra),
            ("docker", rep, results.POSITION, 1),
            (results.MACHINE, rep, results.LOAD_PRESSURE, p),
            (results.MACHINE, rep, results.STEAL, 0.0),
        ]
    raw = pd.DataFrame(rows, columns=["engine", "rep", "metric", "value"]).assign(
        experiment="arranque", image="", variant="", unit="ms"
    )
    return results.split_run(raw, {"experiment": "arranque"})


def _claim(pressure, added):
    df, meta = _run(pressure, added)
    (claim,) = fg.judge_all([PODMAN_FASTER], df, meta)
    return claim, meta


def test_the_loader_hands_the_load_of_each_round_to_the_analyses():
    df, meta = _run([18.0, 19.0], [0, 0])
    assert results.MACHINE not in set(df["engine"])
    assert {(r["metric"], r["rep"]) for r in meta[results.ROUND_LOADS]} == {
        (m, rep) for m in (results.LOAD_PRESSURE, results.STEAL) for rep in (1, 2)
    }


def test_a_quiet_run_is_judged_on_every_round_as_before():
    quiet = [18 + d for d in (0.5, -1, 1.5, 0, -0.5, 2, 1, -1.5, 0.5, 0)]
    claim, meta = _claim(quiet, [0] * 10)
    (without_load,) = fg.judge_all([PODMAN_FASTER], *_run(quiet, [0] * 10)[:1], {})
    assert claim.status == vd.SE_CONFIRMA and claim.n == 10
    assert claim.estimate == without_load.estimate and claim.detail == without_load.detail
    assert "carga" not in common.claim_sentence(claim)


def test_load_that_lasts_most_rounds_gives_no_verdict():
    """Rounds 5-10 under a background load that adds 60 ms to both arms (the ratio drifts from 0.5
    towards 1): only 4 quiet rounds, fewer than MIN_N, so no verdict, and the sentence says why."""
    claim, _ = _claim([18] * 4 + [40] * 6, [0] * 4 + [60] * 6)
    assert claim.status == vd.BAJO_CARGA and not claim.decided and claim.more_reps is None
    assert claim.detail["carga_min"] == 18 and claim.detail["carga_max"] == 40
    # its figure stays, its interval goes: no closing sentence or kit fact can print an «IC 95 %» of it
    assert claim.value == claim.value and not claim.estimate.has_interval
    assert "[" not in numbers.fmt_value_interval(claim.estimate, unit=claim.unit)
    text = common.claim_sentence(claim)
    assert "medición bajo carga: repite" in text and "sin IC 95 %" in text
    assert "la presión de CPU fue de 18.0 % a 40.0 % según la ronda" in text


def test_a_burst_of_load_leaves_the_figure_to_the_quiet_rounds():
    """Three loaded rounds of ten: the figure and its interval come from the seven quiet ones, and the
    verdict stands (on all ten rounds, the loaded ones would have pulled the ratio off 0.5)."""
    pressure, added = [18] * 7 + [45] * 3, [0] * 7 + [80] * 3
    claim, meta = _claim(pressure, added)
    assert claim.status == vd.SE_CONFIRMA and claim.n == 7 and claim.detail["rondas_tranquilas"] == 7
    assert claim.high < 0.55
    assert "de las 7 rondas con la máquina más tranquila" in common.claim_sentence(claim)
    screen = load.screen(meta, [pd.Series(range(10), index=range(1, 11))])
    assert screen.rounds == tuple(range(1, 8)) and not screen.loaded


def test_steal_time_that_varies_counts_as_load():
    df, meta = _run([18] * 10, [0] * 10)
    for row in meta[results.ROUND_LOADS]:
        if row["metric"] == results.STEAL and row["rep"] > 3:
            row["value"] = 20.0
    (claim,) = fg.judge_all([PODMAN_FASTER], df, meta)
    assert claim.status == vd.BAJO_CARGA
    assert "el tiempo robado por el hipervisor fue de 0.0 % a 20.0 %" in common.claim_sentence(claim)


def test_independent_arms_have_no_rounds_to_screen():
    meta = {
        results.ROUND_LOADS: [{"metric": results.LOAD_PRESSURE, "rep": r, "value": 10.0 * r} for r in (1, 2)]
    }
    assert load.screen(meta, [np.array([1.0, 2.0])]) == load.Screen()


def test_a_figure_computed_from_the_whole_run_is_screened_on_the_run_s_load():
    """A Custom figure picks its own rounds: a load that varied over the run leaves it without a verdict
    when it is judged by rounds, and leaves a figure of independent arms alone."""
    df, meta = _run([18] * 7 + [45] * 3, [0] * 7 + [80] * 3)
    by_rounds = PODMAN_FASTER.but(
        figure=fg.Custom(
            lambda said, df, meta: fg.ratio(
                said,
                fg.select(df, meta, fg.Sel(engine="podman", metric="arranque")),
                fg.select(df, meta, fg.Sel(engine="docker", metric="arranque")),
            )
        )
    )
    independent = PODMAN_FASTER.but(
        key="independiente",
        figure=fg.Ratio(
            fg.Sel(engine="podman", metric="arranque", paired=False),
            fg.Sel(engine="docker", metric="arranque", paired=False),
        ),
    )
    run_wide, arrays = fg.judge_all([by_rounds, independent], df, meta)
    assert run_wide.status == vd.BAJO_CARGA
    assert arrays.status != vd.BAJO_CARGA and "carga_metrica" not in arrays.detail


def test_a_figure_wrapped_in_a_custom_one_is_screened_once_on_its_own_rounds():
    """A Custom that judges a declared figure (an instance chosen by the run, a path of the run's cluster)
    leaves it as its own rounds left it: two loaded rounds of ten drop out and the quiet eight decide,
    wrapped or not; the whole run's load does not take that verdict away a second time."""
    df, meta = _run([18] * 8 + [45] * 2, [0] * 8 + [80] * 2)
    wrapped = PODMAN_FASTER.but(
        key="envuelta",
        figure=fg.Custom(lambda said, df, meta: fg.judge_all([PODMAN_FASTER], df, meta)),
    )
    plain, through = fg.judge_all([PODMAN_FASTER, wrapped], df, meta)
    assert plain.status == vd.SE_CONFIRMA and plain.detail["rondas_tranquilas"] == 8
    assert through.status == plain.status and through.estimate == plain.estimate
    assert through.detail == plain.detail


def test_a_trend_the_pressure_does_not_see_gives_no_verdict():
    """The pressure stays within its quiet range, yet both arms slow down round after round (a clock that
    throttles): the per-round ratio rises with the round's order, the trend test fires, and the sentence
    names it with its p."""
    quiet = [18 + d for d in (0.5, -1, 1.5, 0, -0.5, 2, 1, -1.5, 0.5, 0)]
    claim, _ = _claim(quiet, [10.0 * r for r in range(10)])
    assert claim.status == vd.BAJO_CARGA and not claim.estimate.has_interval
    assert claim.detail["dependencia"] == load.TREND and claim.detail["dependencia_p"] < load.ALPHA
    text = common.claim_sentence(claim)
    assert "medición bajo carga: repite" in text
    assert "suben o bajan con el orden de las rondas (τ de Kendall, p < 0.001" in text
    assert "Las rondas no son independientes" in text


def test_a_figure_that_follows_the_load_within_its_range_gives_no_verdict():
    """The pressure varies by 4.2 points (under VARIED: every round counts) and the time it adds follows
    it: the ratio follows the load, and the load test names the metric it followed."""
    pressure = [18 + d for d in (0, 3, 1, 4, 0.5, 3.5, 1.5, 2.5, 0.2, 4.2)]
    claim, _ = _claim(pressure, [20 * (p - 18) for p in pressure])
    assert claim.status == vd.BAJO_CARGA and claim.detail["dependencia"] == load.WITH_LOAD
    assert claim.detail["dependencia_metrica"] == results.LOAD_PRESSURE
    assert "siguen a la presión de CPU de cada ronda" in common.claim_sentence(claim)


def test_the_dependence_tests_leave_independent_rounds_alone():
    """iid rounds under a pressure that wanders by its noise: no test fires (p above ALPHA for each)."""
    rng = np.random.default_rng(5)
    idx = pd.RangeIndex(1, 11)
    figures = pd.Series(rng.lognormal(size=10), index=idx)
    loads = {results.LOAD_PRESSURE: pd.Series(18 + rng.normal(size=10), index=idx)}
    assert load.dependence(figures, loads) is None
    assert load.dependence(pd.Series(np.arange(10.0), index=idx), loads).test == load.TREND


def test_each_figure_is_screened_on_the_load_of_its_own_loop():
    """Two loops share their round numbers (experiments 4, 6 and 8): a figure measured in the first is
    judged on the first loop's load only, so other work in the second loop's rounds leaves it alone, and
    a figure of the second loop is withheld by it. A run that does not name its arms' loops keeps every
    loop's load."""
    df, meta = _run([18.0] * 8, [0] * 8)
    busy = [
        {
            "metric": results.round_metric(results.OTHER_CPU, "segundo"),
            "rep": r,
            "value": 30.0 if r > 2 else 1.0,
        }
        for r in range(1, 9)
    ]
    quiet = [{"metric": results.OTHER_CPU, "rep": r, "value": 1.0} for r in range(1, 9)]
    arms = [{"engine": e, "variant": "", "image": ""} for e in ("docker", "podman")]
    meta = {**meta, results.ROUND_LOADS: quiet + busy}
    first = {**meta, "arms": arms + [{"engine": "otro", "variant": "", "image": "", "loop": "segundo"}]}
    (claim,) = fg.judge_all([PODMAN_FASTER], df, first)
    assert claim.status == vd.SE_CONFIRMA
    second = {**meta, "arms": [{**a, "loop": "segundo"} for a in arms]}
    (claim,) = fg.judge_all([PODMAN_FASTER], df, second)
    assert claim.status == vd.BAJO_CARGA and claim.detail["carga_metrica"].endswith("_segundo")
    (claim,) = fg.judge_all([PODMAN_FASTER], df, {**meta, "arms": arms})  # no loop named: both count
    assert claim.status == vd.BAJO_CARGA
    assert load.of_arms(first, [{"engine": "docker"}])[results.ROUND_LOADS] == quiet
    assert load.of_arms(first, [{"engine": "nadie"}]) is first


def test_an_arm_of_several_loops_is_screened_on_the_loop_that_gave_the_figures_metric():
    """Experiment 8 measures its application container in four loops: a figure of one metric is screened
    on the loop that gave that metric (meta["arms"] lists each loop's metrics), so other work in the
    launch loop leaves the workloads' figure alone; an entry without its metrics could be any loop."""
    df, meta = _run([18.0] * 8, [0] * 8)
    busy = [{"metric": results.OTHER_CPU, "rep": r, "value": 30.0 if r > 2 else 1.0} for r in range(1, 9)]
    quiet = [
        {"metric": results.round_metric(results.OTHER_CPU, "cargas"), "rep": r, "value": 1.0}
        for r in range(1, 9)
    ]
    meta = {**meta, results.ROUND_LOADS: busy + quiet}
    both = [{"engine": e, "variant": "", "image": ""} for e in ("docker", "podman")]
    listed = {
        **meta,
        "arms": [{**a, "metrics": ["arranque_listo"]} for a in both]
        + [{**a, "loop": "cargas", "metrics": ["arranque"]} for a in both],
    }
    (claim,) = fg.judge_all([PODMAN_FASTER], df, listed)
    assert claim.status == vd.SE_CONFIRMA
    assert load.of_arms(listed, [{"engine": "docker", "metric": "arranque"}])[results.ROUND_LOADS] == quiet
    unlisted = {**meta, "arms": both + [{**a, "loop": "cargas"} for a in both]}
    (claim,) = fg.judge_all([PODMAN_FASTER], df, unlisted)
    assert claim.status == vd.BAJO_CARGA
