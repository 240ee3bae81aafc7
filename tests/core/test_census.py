"""The census (`python -m helpers.census`, `make census`): each experiment's claims counted per status from
the run its pages read, judged once by the experiment's own `claims(df, meta)`.

The runs are real run folders: the toy experiment measured for real (tests/experimento_juguete), a second
toy whose claims give several statuses, and empty complete runs of the registered experiments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from collections import Counter

import pytest

from helpers import PROJECT_ROOT, census, experiments, results
from helpers.experiments import verdict as vd
from helpers.experiments.runner import Resultado
from helpers.view.verdicts import VERDICT
from tests import experimento_juguete as juguete
from tests.experimento_juguete.claims import SH_SLOWER

VARIAS = "juguete_varias"
REPS = 8  # the toy's ratio of two independent arms needs more than MIN_N rounds for an interval


@pytest.fixture
def toy():
    experiments.register(juguete)
    yield juguete
    experiments.unregister(juguete.EXPERIMENT)


def _varias(calls: list | None = None, fail: bool = False) -> types.ModuleType:
    """A second toy: the toy's contract, with claims that give «se confirma», «no se sostiene», «no
    comparable» and «no se puede juzgar» on the toy's rows (its own run folders, written below)."""
    module = types.ModuleType(VARIAS)
    for name in ("TITLE", "QUICK", "Config", "run"):
        setattr(module, name, getattr(juguete, name))
    module.EXPERIMENT, module.NOTEBOOK = VARIAS, "96_juguete_varias"
    said = SH_SLOWER

    def claims(df, meta=None):
        if calls is not None:
            calls.append(len(df))
        if fail:
            raise ValueError("una fila rota")
        return [
            *juguete.claims(df, meta),
            vd.outcome(said.but(key="siempre"), [True] * vd.MIN_OBSERVED),
            vd.outcome(said.but(key="nunca"), [False] * vd.MIN_OBSERVED),
            vd.not_comparable(said.but(key="otra"), "otra máquina"),
            vd.missing(said.but(key="falta")),
        ]

    module.claims = claims
    return module


@pytest.fixture
def varias():
    calls: list = []
    module = _varias(calls)
    experiments.register(module)
    yield module, calls
    experiments.unregister(VARIAS)


def _copy_run(source: Resultado, experiment: str, status: str = results.STATUS_COMPLETE) -> str:
    """A run of `experiment` holding `source`'s measurements, ended with `status`; its id."""
    run = results.Run(experiment, {})
    for r in source.df.itertuples():
        run.append(
            engine=r.engine,
            image=r.image,
            variant=r.variant,
            rep=r.rep,
            metric=r.metric,
            value=r.value,
            unit=r.unit,
        )
    run.finish(status)
    return run.id


def _expected(module) -> Counter:
    res = Resultado.latest(module.EXPERIMENT)
    return Counter(c.status for c in module.claims(res.df, res.meta))


def test_every_status_of_the_rule_has_a_column_worded_as_the_notebooks_word_it():
    assert set(census.ORDER) == set(vd.STATUSES) and len(census.ORDER) == len(vd.STATUSES)
    assert census.ORDER[:2] == census.DECIDED == (vd.SE_CONFIRMA, vd.NO_SE_SOSTIENE)
    header = [c.strip() for c in census.table([]).splitlines()[0].strip("|").split("|")]
    assert header == ["experimento", "afirmaciones", "decididas", *(VERDICT[s] for s in census.ORDER)]


def test_counts_match_the_statuses_of_each_runs_claims(toy, varias):
    module, calls = varias
    measured = toy.run(toy.config(repeticiones=REPS), log=lambda _: None)
    _copy_run(measured, VARIAS)
    calls.clear()

    rows = {r.experiment: r for r in census.census()}

    assert list(rows) == experiments.names()  # the registry, in its order
    for name in experiments.REGISTRY:  # the tests' results folder holds no run of theirs
        assert rows[name].run_id is None and rows[name].claims == 0
    toy_row, varias_row = rows["juguete"], rows[VARIAS]
    assert toy_row.run_id == measured.meta["run_id"] and toy_row.run_status == results.STATUS_COMPLETE
    assert toy_row.counts == _expected(toy) and toy_row.claims == 1
    expected = _expected(module)
    assert varias_row.counts == expected and varias_row.claims == 5
    added = {vd.SE_CONFIRMA: 1, vd.NO_SE_SOSTIENE: 1, vd.NO_COMPARABLE: 1, vd.SIN_DATOS: 1}
    assert expected == toy_row.counts + Counter(added)  # the toy's claim on the same rows, and four more
    assert varias_row.decided == expected[vd.SE_CONFIRMA] + expected[vd.NO_SE_SOSTIENE] >= 2
    assert len(calls) == 2  # once by the census, once by _expected above: the census judges a run once

    tot = census.total(list(rows.values()))
    assert tot.counts == toy_row.counts + varias_row.counts
    assert tot.claims == 6 and tot.decided == toy_row.decided + varias_row.decided


def test_the_table_and_the_json_say_the_same_counts(toy, varias, capsys):
    module, _ = varias
    measured = toy.run(toy.config(repeticiones=REPS), log=lambda _: None)
    _copy_run(measured, VARIAS)
    expected = _expected(module)

    assert census.main([]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    row = next(line for line in lines if line.startswith("| 96 juguete_varias |"))
    cells = dict(zip(header, (c.strip() for c in row.strip("|").split("|")), strict=True))
    assert cells["afirmaciones"] == "5"
    assert cells["decididas"] == str(expected[vd.SE_CONFIRMA] + expected[vd.NO_SE_SOSTIENE])
    for status in vd.STATUSES:
        assert cells[VERDICT[status]] == str(expected[status])
    for module_ in experiments.all_experiments()[: len(experiments.REGISTRY)]:
        number = module_.NOTEBOOK.split("_")[0]
        assert f"| {number} {module_.EXPERIMENT} | sin corrida |" in text
    assert f"- 95 juguete: corrida {measured.meta['run_id']} (completa)" in text

    assert census.main(["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by_name = {e["experimento"]: e for e in data["experimentos"]}
    assert by_name[VARIAS]["por_estado"] == {s: expected[s] for s in census.ORDER}
    assert by_name["arranque"]["corrida"] is None
    assert data["estados"] == {s: VERDICT[s] for s in census.ORDER}
    assert data["total"]["afirmaciones"] == 6 and data["total"]["experimentos_con_corrida"] == 2


def test_a_newer_run_that_did_not_finish_never_hides_the_complete_one(toy):
    complete = toy.run(toy.config(repeticiones=REPS), log=lambda _: None)
    newer = _copy_run(complete, "juguete", results.STATUS_INTERRUPTED)
    assert results.list_runs("juguete")[-1].name == newer

    row = census.count(toy)
    assert row.run_id == complete.meta["run_id"] and row.run_status == results.STATUS_COMPLETE
    assert row.counts == _expected(toy)


def test_a_run_that_did_not_finish_is_counted_and_flagged(toy):
    measured = toy.run(toy.config(repeticiones=2), log=lambda _: None)
    meta = results.read_meta(measured.run_dir)
    (measured.run_dir / "meta.json").write_text(
        json.dumps({**meta, "status": results.STATUS_INTERRUPTED}), encoding="utf-8"
    )
    rows = census.census()
    row = next(r for r in rows if r.experiment == "juguete")
    assert row.run_status == results.STATUS_INTERRUPTED and row.counts == _expected(toy)
    assert row.counts[vd.SIN_DATOS] == 1  # 2 rounds: below MIN_N, no verdict
    assert "| 95 juguete (interrumpida) | 1 | 0 |" in census.table(rows)


def test_claims_that_cannot_be_judged_are_said_and_the_rest_still_counted(toy, capsys):
    experiments.register(_varias(fail=True))
    try:
        measured = toy.run(toy.config(repeticiones=REPS), log=lambda _: None)
        _copy_run(measured, VARIAS)
        assert census.main([]) == 1
    finally:
        experiments.unregister(VARIAS)
    text = capsys.readouterr().out
    assert "| 96 juguete_varias (corrida completa) | error |" in text
    assert "no se pudieron juzgar sus afirmaciones (ValueError: una fila rota)" in text
    assert "| 95 juguete | 1 |" in text


def test_the_command_counts_every_registered_experiment_on_its_run(tmp_path):
    """`python -m helpers.census --json` in its own process, on a complete (empty) run of every
    registered experiment: each count is its own claims' statuses on that run."""
    root = tmp_path / "censo"
    for name in experiments.REGISTRY:
        with results.Run(name, {}, root=root):
            pass
    out = subprocess.run(
        [sys.executable, "-m", "helpers.census", "--json", "--resultados", str(root)],
        cwd=PROJECT_ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = json.loads(out)
    assert [e["experimento"] for e in data["experimentos"]] == experiments.REGISTRY
    total = Counter()
    for entry in data["experimentos"]:
        module = experiments.get(entry["experimento"])
        res = Resultado.latest(module.EXPERIMENT, root)
        expected = Counter(c.status for c in module.claims(res.df, res.meta))
        assert entry["corrida"] == res.meta["run_id"] and entry["estado_corrida"] == results.STATUS_COMPLETE
        assert {k: v for k, v in entry["por_estado"].items() if v} == dict(expected)
        assert entry["afirmaciones"] == sum(expected.values())
        total += expected
    assert data["total"]["afirmaciones"] == sum(total.values())
    assert data["total"]["experimentos_con_corrida"] == len(experiments.REGISTRY)
