"""The rounds of a run: every round visits the arms in its own seeded random order, records each arm's
place in it and the machine's load over it (runner.measure_rounds); the loader keeps those rows apart
from the measurements; a fixed order would bias a per-round ratio that the shuffled order does not."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from helpers import engines as eng
from helpers import measure, results
from helpers.engines import registry
from helpers.errors import ErrorDelCurso
from helpers.experiments import runner
from helpers.view import common
from tests.support import with_round_rows

from .fake_engine import AfterEffects, FakeEngine


# ---------------------------------------------------------------- the schedule
def test_every_round_visits_each_arm_once_in_its_own_seeded_order():
    arms = list("ABCDEFGH")
    steps = measure.round_robin(arms, 3, 1, seed=7)
    assert steps == measure.round_robin(arms, 3, 1, seed=7)  # reproducible from the seed
    assert steps != measure.round_robin(arms, 3, 1, seed=8)
    rounds = [steps[i : i + 8] for i in range(0, 32, 8)]
    assert all(sorted(s.arm for s in r) == arms for r in rounds)
    assert all([s.position for s in r] == list(range(1, 9)) for r in rounds)
    assert len({tuple(s.arm for s in r) for r in rounds}) > 1
    assert [s.warmup for s in steps] == [True] * 8 + [False] * 24
    assert [s.rep for s in steps] == [1] * 16 + [2] * 8 + [3] * 8


def test_over_many_rounds_each_arm_follows_each_other_arm_about_as_often():
    steps = [s.arm for s in measure.round_robin(["A", "B", "C"], 600, 0, seed=3)]
    pairs = list(zip(steps, steps[1:]))
    after_a = [b for a, b in pairs if a == "A"]
    shares = {x: after_a.count(x) / len(after_a) for x in "ABC"}
    # Within a round A is followed by B or C alike; across rounds A (last) may be followed by itself.
    assert shares["B"] == pytest.approx(shares["C"], abs=0.06) and shares["A"] > 0.05


# ---------------------------------------------------------------- the machine's load
def _files(tmp_path, pressure_total: int | None, steal: int, idle: int, loadavg: str = "1.50 1.0 0.5 1/99 7"):
    pressure = tmp_path / "pressure"
    if pressure_total is not None:
        pressure.write_text(
            f"some avg10=1.00 avg60=0.50 avg300=0.10 total={pressure_total}\n"
            "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
        )
    stat = tmp_path / "stat"
    stat.write_text(f"cpu  100 0 50 {idle} 0 0 0 {steal} 7 0\ncpu0 50 0 25 0 0 0 0 0 0 0\n")
    (tmp_path / "loadavg").write_text(loadavg + "\n")
    return str(pressure), str(stat), str(tmp_path / "loadavg")


def test_the_load_of_a_window_is_the_difference_of_the_counters(tmp_path):
    pressure, stat, loadavg = _files(tmp_path, 1_000, steal=10, idle=840)
    start = measure.load_counters(pressure, stat)
    assert (start.pressure_us, start.steal_ticks, start.all_ticks) == (1_000, 10, 1_000)
    pressure, stat, loadavg = _files(tmp_path, 1_000 + 250_000, steal=15, idle=935)
    end = measure.load_counters(pressure, stat)
    end = measure.LoadCounters(start.ns + 1_000_000_000, end.pressure_us, end.steal_ticks, end.all_ticks)
    load = measure.load_between(start, end, loadavg)
    # 0.25 s of «some task waited» in a 1 s window; 5 of the 100 ticks that went by were stolen
    assert load.pressure_pct == pytest.approx(25.0) and load.steal_pct == pytest.approx(5.0)
    assert load.loadavg is None


def test_without_psi_the_load_average_stands_in_and_no_tick_means_no_steal(tmp_path):
    pressure, stat, loadavg = _files(tmp_path, None, steal=10, idle=840)
    start = measure.load_counters(pressure, stat)
    assert start.pressure_us is None
    load = measure.load_between(start, measure.load_counters(pressure, stat), loadavg)
    assert load.pressure_pct is None and load.loadavg == 1.5 and load.steal_pct is None


def test_this_machine_gives_its_counters():
    start = measure.load_counters()
    sum(i * i for i in range(200_000))
    load = measure.load_between(start, measure.load_counters())
    assert start.all_ticks is not None  # /proc/stat is there on every Linux
    assert (load.pressure_pct is None) != (load.loadavg is None)
    if load.pressure_pct is not None:
        assert 0 <= load.pressure_pct <= 100


# ---------------------------------------------------------------- measure_rounds on fake engines
def _toy(arm):
    engine = eng.get_engine(arm.engine)
    argv = engine.run_argv("curso/juguete", ["true"], run_id=None)
    return [("arranque", measure.time_command(argv, env=engine.env()), "ms")]


def _fakes(after: AfterEffects | None = None) -> dict[str, FakeEngine]:
    return {n: FakeEngine(n, after_effects=after) for n in ("docker", "podman")}


def _in_a_run(fakes, body):
    with registry.substituted("docker", fakes["docker"]), registry.substituted("podman", fakes["podman"]):
        with runner.experiment_run("rondas", {}, ["docker", "podman"], log=lambda _: None) as ctx:
            body(ctx)
            run_dir = ctx.run.dir
    return runner.Resultado.load(run_dir)


ARMS = [
    runner.Arm("docker", "a", "curso/juguete"),
    runner.Arm("docker", "b", "curso/juguete"),
    runner.Arm("podman", "a", "curso/juguete"),
]


def test_each_round_records_the_places_of_its_arms_and_the_load_it_saw(results_tmp):
    res = _in_a_run(
        _fakes(),
        lambda ctx: runner.measure_rounds(ctx, ARMS, repetitions=4, warmup=1, measure=_toy),
    )
    assert set(res.df["metric"]) == {"arranque"} and len(res.df) == 12  # the measurements alone
    seed = res.meta["shuffle_seeds"]["rondas"]
    assert f"semilla {seed}" in res.meta["schedule"] and "barajado" in res.meta["schedule"]
    places = res.rondas[res.rondas["metric"] == results.POSITION]
    assert len(places) == 12 and places["unit"].eq("lugar").all()
    scheduled = {
        (s.arm.engine, s.arm.variant, s.rep): s.position
        for s in measure.round_robin(ARMS, 4, 1, seed=seed)
        if not s.warmup
    }
    recorded = {(r.engine, r.variant, r.rep): int(r.value) for r in places.itertuples()}
    assert recorded == scheduled  # the seed in meta.json gives back the order of every round
    machine = res.rondas[res.rondas["engine"] == results.MACHINE]
    load_metric = res.meta["carga"]["metrica"]
    assert load_metric in (results.LOAD_PRESSURE, results.LOAD_AVERAGE)
    assert sorted(machine.loc[machine["metric"] == load_metric, "rep"]) == [1, 2, 3, 4]
    summary = res.meta["carga"]
    assert summary["rondas"] == 4 and summary["mediana"] <= summary["maximo"]
    values = machine.loc[machine["metric"] == load_metric, "value"]
    assert summary["maximo"] == pytest.approx(values.max(), abs=1e-3)
    raw = results.read_raw(res.run_dir / "raw.csv")
    assert len(raw) == len(res.df) + len(res.rondas) == res.meta["rows"]


def test_the_loops_of_one_run_keep_their_rounds_apart(results_tmp):
    def two_loops(ctx):
        runner.measure_rounds(ctx, ARMS[:2], repetitions=2, warmup=0, measure=_toy, seed=1)
        runner.measure_rounds(ctx, ARMS[:2], repetitions=2, warmup=0, measure=_toy, loop="cargas", seed=2)

    res = _in_a_run(_fakes(), two_loops)
    assert res.meta["shuffle_seeds"] == {"rondas": 1, "cargas": 2}
    counts = res.rondas["metric"].value_counts()
    assert counts[results.POSITION] == counts[results.round_metric(results.POSITION, "cargas")] == 4
    assert len(res.df) == 8 and res.meta["carga"]["rondas"] == 4
    # each loop's arms, with the loop and the metrics they gave in it (load.of_arms screens by them)
    assert [(a["variant"], a.get("loop", ""), a["metrics"]) for a in res.meta["arms"]] == [
        ("a", "", ["arranque"]),
        ("b", "", ["arranque"]),
        ("a", "cargas", ["arranque"]),
        ("b", "cargas", ["arranque"]),
    ]


def test_an_arm_with_no_engine_adapter_fails_with_its_own_error(results_tmp):
    """The Kubernetes rungs of 04 have no engine adapter: their failure is theirs, not a KeyError."""

    def body(ctx):
        def broken(arm):
            raise ErrorDelCurso("Kubernetes: el Pod no quedó listo.")

        runner.measure_rounds(ctx, [runner.Arm("kubernetes", "pod")], repetitions=1, warmup=0, measure=broken)

    with pytest.raises(ErrorDelCurso, match="no quedó listo"):
        _in_a_run(_fakes(), body)


def test_the_loader_keeps_the_rows_of_the_rounds_apart():
    rows = [
        ("docker", "a", 1, "arranque", 10.0),
        ("docker", "a", 1, results.POSITION, 2),
        ("docker", "a", 1, results.round_metric(results.POSITION, "cargas"), 1),
        (results.MACHINE, "", 1, results.LOAD_PRESSURE, 12.5),
        (results.MACHINE, "", 1, results.round_metric(results.STEAL, "cargas"), 0.0),
        ("podman", "a", 1, "posicionamiento", 3.0),  # a measurement whose name only looks alike
    ]
    df = pd.DataFrame(rows, columns=["engine", "variant", "rep", "metric", "value"])
    assert list(results.measurements(df)["metric"]) == ["arranque", "posicionamiento"]
    assert len(results.rounds(df)) == 4


# ---------------------------------------------------------------- the order of the arms, and its bias
BASE_S, EXTRA_S = 0.02, 0.02  # every command 20 ms; 20 ms more right after a command of image HEAVY
HEAVY, LIGHT = "curso/pesada", "curso/juguete"
SLOWED = np.log((BASE_S + EXTRA_S) / BASE_S)  # the after-effect, as a log-ratio
REPETITIONS, SEEDS = 8, range(8)


def _toy_image(arm):
    engine = eng.get_engine(arm.engine)
    argv = engine.run_argv(arm.image, ["true"], run_id=None)
    return [("arranque", measure.time_command(argv, env=engine.env()), "ms")]


def _log_ratios(res, numerator: runner.Arm, denominator: runner.Arm) -> np.ndarray:
    """log(numerator / denominator) round by round, as the course's paired verdicts pair them."""
    wide = res.df.pivot_table(index="rep", columns=["engine", "variant"], values="value")
    ratio = wide[(numerator.engine, numerator.variant)] / wide[(denominator.engine, denominator.variant)]
    return np.log(ratio.to_numpy(dtype=float))


def _fixed_order(arms):
    """The loop as experiments measured before: the same order in every round."""

    def loop(ctx):
        for rep in range(1, REPETITIONS + 1):
            for arm in arms:
                for metric, value, unit in _toy_image(arm):
                    ctx.record(arm, metric, value, unit, rep=rep)

    return loop


def _shuffled(arms, seed):
    def loop(ctx):
        runner.measure_rounds(ctx, arms, repetitions=REPETITIONS, warmup=0, measure=_toy_image, seed=seed)

    return loop


def _biases(arms, numerator, denominator) -> tuple[float, float]:
    """How far the ratio estimated over a seeded set of runs is from the truth (1×: both arms' commands
    cost the same, only what the command before them left differs), as |mean log-ratio| over every
    round of every run: in a fixed order, and in measure_rounds' order. In SLOWED units."""
    fixed, shuffled = [], []
    for seed in SEEDS:
        res = _in_a_run(_fakes(AfterEffects(HEAVY, base=BASE_S, extra=EXTRA_S)), _fixed_order(arms))
        fixed.append(_log_ratios(res, numerator, denominator))
        res = _in_a_run(_fakes(AfterEffects(HEAVY, base=BASE_S, extra=EXTRA_S)), _shuffled(arms, seed))
        shuffled.append(_log_ratios(res, numerator, denominator))
    return tuple(abs(float(np.mean(np.concatenate(x)))) / SLOWED for x in (fixed, shuffled))


def test_a_fixed_order_biases_the_per_round_ratio_and_the_shuffled_one_does_not(results_tmp):
    """A heavy arm leaves an after-effect on the next command (as a launch's clean-up in the kernel
    would). In a fixed order (heavy, Docker, Podman) it always lands on Docker, and Podman/Docker per
    round reads about 0.5× where both cost the same; measure_rounds draws each round's order anew, so
    it lands on either alike and the ratio comes back to the truth (1×) over a seeded set of runs.
    (Within one run of 8 rounds the after-effect is now noise instead: each run's ratio scatters.)"""
    heavy, docker, podman = (
        runner.Arm("docker", "pesada", HEAVY),
        runner.Arm("docker", "", LIGHT),
        runner.Arm("podman", "", LIGHT),
    )
    fixed, shuffled = _biases([heavy, docker, podman], podman, docker)
    # 1 in theory (a little less: the spawn's own cost dilutes the after-effect); 0.03 from these seeds'
    # schedules with no timing noise at all
    assert fixed > 0.6, (fixed, shuffled)  # the after-effect, read as a difference between engines
    assert shuffled < 0.25, (fixed, shuffled)


def test_an_arm_that_leaves_the_after_effect_itself_still_gains_by_it(results_tmp):
    """The limit of shuffling: when the arm that leaves the after-effect is one of the two compared, it
    never follows itself within a round, so the other arm meets the after-effect more often (with 2 arms,
    3 rounds in 4 against 1 in 4). Shuffling shrinks that bias, not to zero: the positions recorded
    with every round are what lets an analysis look for it."""
    cause, other = runner.Arm("docker", "pesada", HEAVY), runner.Arm("podman", "", LIGHT)
    fixed, shuffled = _biases([cause, other], other, cause)
    # 1 in theory: the other arm always follows the cause (a busy machine's spawns dilute it: 0.59 at a
    # load average of 10); shuffled, 3/4 - 1/4 = 1/2 of that in theory, diluted alike.
    assert fixed > 0.4, (fixed, shuffled)
    assert 0.25 < shuffled / fixed < 0.8, (fixed, shuffled)


# ---------------------------------------------------------------- what a student reads
def test_no_sentence_says_that_load_cancels():
    text = common.method_sentence()
    assert "se cancela" not in text and "barajado" in text and "no suponemos que se cancele" in text


def test_the_load_sentence_gives_the_median_and_the_maximum_of_the_run():
    meta = {
        "carga": runner.load_summary(
            [measure.WindowLoad(p, None, s) for p, s in ((10, 0), (30, 0), (20, 2.5))]
        )
    }
    text = common.load_sentence(meta)
    assert "mediana del 20.0 %" in text and "máximo del 30.0 %" in text and "3 rondas" in text
    assert "2.5 %" in text and "steal" in text
    quiet = common.load_sentence({"carga": runner.load_summary([measure.WindowLoad(5, None, 0.0)])})
    assert "steal" not in quiet
    average = common.load_sentence({"carga": runner.load_summary([measure.WindowLoad(None, 1.5, None)])})
    assert "promedio de carga" in average and "1.50" in average
    assert "no registró la carga" in common.load_sentence({})


def test_como_medimos_shows_the_load_of_the_latest_run(results_tmp, monkeypatch):
    import IPython.display

    from helpers import experiments
    from tests import experimento_juguete as toy

    monkeypatch.setitem(experiments._extra, toy.EXPERIMENT, toy)  # a page reads registered experiments
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    common.como_medimos(toy)
    assert not any("Carga de la máquina" in str(getattr(o, "data", "")) for o in shown)  # no run yet
    folder = results_tmp / toy.EXPERIMENT / "20260101T000000Z-carga"
    folder.mkdir(parents=True)
    (folder / "raw.csv").write_text(",".join(results.COLUMNS) + "\n")
    summary = runner.load_summary([measure.WindowLoad(12.0, None, 0.0)])
    meta = {"experiment": toy.EXPERIMENT, "status": results.STATUS_COMPLETE, "carga": summary}
    (folder / "meta.json").write_text(json.dumps(meta))
    shown.clear()
    common.como_medimos(toy)
    assert any("mediana del 12.0 %" in str(getattr(o, "data", "")) for o in shown)


def test_the_rows_of_the_rounds_change_nothing_in_the_class_comparison(tmp_path):
    """A student's hand-in carries raw.csv as written, rows of the rounds included, and the class
    comparison reads raw.csv itself: every table it shows (the comparable metrics only) and the class
    verdicts are the same with those rows and without them."""
    from helpers import clase
    from helpers.clase import deferred

    plain = clase.demo(tmp_path / "sin", machines=2)
    loaded = clase.demo(tmp_path / "con", machines=2)
    for raw in loaded.glob("**/raw.csv"):
        try:
            df = results.read_raw(raw)
        except ValueError:
            continue  # the demo's deliberately broken run
        if len(df):
            with_round_rows(df).to_csv(raw, index=False)

    def shown(folder):
        runs = clase.recolectar(folder)
        data = clase.only_comparable(runs.data)
        frames = (
            clase.ratios_vs_bare(data),
            clase.podman_over_docker(data),
            clase.against_reference(runs),
            deferred.source_overheads(deferred.across_cpus(runs)),
        )
        return [f.to_csv() for f in frames] + [repr(deferred.across_cpus(runs)), repr(deferred.kvm(runs))]

    assert shown(plain) == shown(loaded)
    assert not results.is_round_row(clase.recolectar(loaded).data).any(), (
        "la clase guardó filas de las rondas"
    )
