"""Experiment 2 against the real engines, with small N. Times are never asserted, only behaviour.

Other engineers use the same engines at the same time: everything is filtered by this run's label."""

from __future__ import annotations

import pytest

from helpers import engines as eng
from helpers.experiments import escala
from helpers.experiments.escala import probing as escala_probing
from helpers.experiments.escala.analysis import summarize, wide
from tests.conftest import require_engine
from tests.support import interrupt_run, setup_step_missing

pytestmark = pytest.mark.engines


def _available(name):
    return eng.get_engine(name).available


ENGINES = list(eng.CONTAINER_ENGINES)


@pytest.fixture(autouse=True)
def resultados(tmp_path, monkeypatch):
    monkeypatch.setenv("CURSO_RESULTADOS", str(tmp_path / "resultados"))
    return tmp_path / "resultados"


def test_small_run_both_engines(resultados):
    motores = [n for n in eng.CONTAINER_ENGINES if _available(n)]
    if not motores:
        setup_step_missing("Docker o Podman instalado y en marcha", "ningún motor disponible.")
    seen = []
    r = escala.run(
        escala.config(cantidades=[1, 3], motores=motores, imagen="alpine", repeticiones=1),
        progress=lambda d, t, label: seen.append((d, t)),
        log=lambda line: None,
    )
    assert r.status == "complete"
    assert r.run_dir.parent.parent == resultados
    assert seen[-1][0] == seen[-1][1] == len(motores) * 2  # the bar moves per step, between batches
    for name in motores:
        assert eng.get_engine(name).list_labelled(r.meta["run_id"]) == []
        assert r.meta["cleanup_leftovers"][name] == 0
    w = wide(r.df)
    assert set(w["engine"]) == set(motores) and set(w["n"]) == {1, 3}
    assert (w["memoria_cgroup_por_contenedor"] > 0).all()
    assert (w["memoria_stats_por_contenedor"] <= w["memoria_cgroup_por_contenedor"]).all()
    for name in motores:
        g = w[w["engine"] == name].set_index("n")
        helper = escala_probing.HELPER[name]
        assert g.loc[3, f"{helper}_procesos"] == 3 and g.loc[1, f"{helper}_procesos"] == 1
        assert g.loc[3, f"rss_{helper}_total"] > g.loc[1, f"rss_{helper}_total"]
        # the helpers' own reading beats the engine's CLI on the same containers (a ratio, same run),
        # and inspect + reading (what `stats` has to do too) holds the reading
        assert g.loc[3, "tiempo_lectura_cgroup"] < g.loc[3, "tiempo_stats_cli"]
        assert g.loc[3, "tiempo_lectura_cgroup"] < g.loc[3, "tiempo_inspect_y_lectura"]
    if "docker" in motores:
        assert (w[w["engine"] == "docker"]["rss_daemon"] > 0).all()
    assert summarize(r.df).shape[0] == len(motores) * 2
    assert {c.key for c in escala.claims(r.df, r.meta)} >= {"cgroup_estable", "lanzamiento_20", "cruce_102"}
    assert r.meta["launch_network"] == "por_defecto"


def test_n_zero_weighs_docker_with_no_container(resultados):
    require_engine("docker")
    r = escala.run(
        escala.config(cantidades=[0], motores=["docker"], imagen="alpine", repeticiones=1),
        log=lambda line: None,
    )
    w = wide(r.df)
    assert list(w["n"]) == [0] and (w["rss_daemon"] > 0).all()
    assert "lanzamiento_total" not in w.columns


@pytest.mark.parametrize("motor", ENGINES)
def test_parallel_launch(motor):
    require_engine(motor)
    r = escala.run(
        escala.config(cantidades=[4], motores=[motor], imagen="alpine", concurrencia=4, comparar_stats=False),
        log=lambda line: None,
    )
    assert r.status == "complete"
    w = wide(r.df)
    assert w[f"{escala_probing.HELPER[motor]}_procesos"].iloc[0] == 4
    assert eng.get_engine(motor).list_labelled(r.meta["run_id"]) == []


@pytest.mark.parametrize("concurrencia", [1, 3])
@pytest.mark.parametrize("motor", ENGINES)
def test_ctrl_c_halfway_through_launching_removes_everything(motor, concurrencia, resultados):
    """SIGINT (Ctrl-C) once a few of the 12 containers are up: all of this run's containers go, the
    rows measured so far stay, and meta.json says «interrupted»."""
    engine = require_engine(motor)

    def measured_n2() -> bool:
        raws = list(resultados.glob("*/*/raw.csv"))
        return bool(raws) and ",n=2," in raws[0].read_text()

    def halfway(run_id):
        assert 3 <= len(engine.list_labelled(run_id)) < 12  # halfway through N=12

    # Each round visits N=2 and N=12 in a shuffled order: two rounds make sure that some launch of N=12
    # comes after a measured N=2, whatever the order.
    run = interrupt_run(
        "escala",
        dict(cantidades=[2, 12], motores=[motor], imagen="alpine", repeticiones=2, concurrencia=concurrencia),
        resultados,
        ready=lambda meta, rows: measured_n2() and len(engine.list_labelled(meta["run_id"])) >= 3,
        before_signal=halfway,
        poll=0.1,
    )
    assert engine.list_labelled(run.run_id) == [], "quedaron contenedores de la corrida"
    meta = run.meta
    assert meta["cleanup_leftovers"] == {motor: 0}
    rows = (run.run_dir / "raw.csv").read_text().splitlines()
    assert rows[0].startswith("experiment,engine")
    assert any(",n=2," in row for row in rows[1:]), "se perdieron las filas ya medidas (N=2)"
    assert meta["rows"] == len(rows) - 1
