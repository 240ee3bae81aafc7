"""The closing LAUNCH vs RUNNING table: built from every registered experiment's latest run through its
own closing_rows, with the experiments that have no run yet named."""

from __future__ import annotations

import IPython.display
import numpy as np
import pandas as pd
import pytest

from helpers import cierre, experiments, results
from helpers.experiments import arranque, ejecucion
from helpers.experiments.base import CLOSING_COLUMNS, Resultado
from helpers.view import cierre as vista

RNG = np.random.default_rng(3)


def _run(root, experiment, frame: pd.DataFrame):
    with results.Run(experiment, {}, root) as run:
        for _, r in frame.iterrows():
            run.append(
                engine=r["engine"],
                image=r["image"],
                variant=r["variant"],
                rep=int(r["rep"]),
                metric=r["metric"],
                value=float(r["value"]),
                unit=r["unit"],
            )
    return run


def _arranque_rows():
    return pd.DataFrame(
        [
            {
                "engine": e,
                "image": i,
                "variant": v,
                "rep": k,
                "metric": "arranque",
                "value": val * (1 + RNG.normal(0, 0.01)),
                "unit": "ms",
            }
            for e, i, v, val in (("bare", "", "proceso", 1.0), ("docker", "img", "por_defecto", 300.0))
            for k in range(1, 9)
        ]
    )


def _ejecucion_rows():
    return pd.DataFrame(
        [
            {
                "engine": e,
                "image": i,
                "variant": v,
                "rep": k,
                "metric": m,
                "value": val * (1 + RNG.normal(0, 0.01)),
                "unit": "s",
            }
            for e, i, v, m, val in (
                ("docker", "img", "exec_true", "extremo_a_extremo", 0.07),
                ("bare", "", "hash", "trabajo", 1.0),
                ("docker", "img", "hash", "trabajo", 1.05),
            )
            for k in range(1, 9)
        ]
    )


@pytest.fixture
def root(tmp_path):
    return tmp_path / "resultados"


def test_every_contributor_is_registered_and_declares_closing_rows():
    names = [m.EXPERIMENT for m in cierre.contributors()]
    assert {"arranque", "ejecucion"} <= set(names)
    assert names == [n for n in experiments.names() if n in names]  # notebook order


def test_rows_come_from_the_latest_run_of_each_experiment(root):
    _run(root, "arranque", _arranque_rows())
    _run(root, "ejecucion", _ejecucion_rows())
    data = cierre.gather(root=root)
    assert list(data.rows.columns) == cierre.COLUMNS
    assert set(data.rows["experimento"]) == {"arranque", "ejecucion"}
    assert set(data.rows["tipo"]) == {"LAUNCH", "RUNNING"}
    docker_launch = data.rows[(data.rows["tipo"] == "LAUNCH") & (data.rows["entorno"] == "docker")].iloc[0]
    assert docker_launch["valor"] == pytest.approx(300, rel=0.05)
    assert "arranque" not in data.missing and "ejecucion" not in data.missing
    assert set(data.missing) == {m.EXPERIMENT for m in cierre.contributors()} - {"arranque", "ejecucion"}


def test_a_given_run_replaces_the_latest_and_a_broken_run_is_reported(root, monkeypatch):
    _run(root, "arranque", _arranque_rows())
    mine = Resultado(
        "ejecucion", _ejecucion_rows().assign(experiment="ejecucion"), root / "x", {"run_id": "MIO"}
    )
    data = cierre.gather(mine, root=root)
    assert set(data.rows.loc[data.rows["experimento"] == "ejecucion", "corrida"]) == {"MIO"}

    def broken(df, meta):
        raise KeyError("metric")

    monkeypatch.setattr(arranque, "closing_rows", broken)
    data = cierre.gather(mine, root=root)
    assert "arranque" in data.unreadable and "KeyError" in data.unreadable["arranque"]
    assert set(data.rows["experimento"]) == {"ejecucion"}


def test_the_view_shows_a_spanish_table_and_names_what_is_missing(root, monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    assert vista.tabla(root=root) is None
    assert any("Aún no hay resultados" in (getattr(o, "data", "") or "") for o in shown)
    shown.clear()
    _run(root, "ejecucion", _ejecucion_rows())
    rows = vista.tabla(root=root)
    assert list(rows.columns) == cierre.COLUMNS
    html = shown[0].to_html()
    assert "RUNNING" in html and "Docker" in html and " ms" in html and "%" in html
    notes = " ".join(getattr(o, "data", "") or "" for o in shown[1:])
    assert ejecucion.TITLE in notes and "01_arranque.ipynb" in notes  # arranque: no run yet


@pytest.mark.parametrize(
    "value, unit, text",
    [
        (312.44, "ms", "312.4 ms"),
        (5.2, "%", "+5.2 %"),
        (1.051, "x bare metal", "1.05× bare metal"),
        (53.2, "ns", "53.2 ns"),
        (float("nan"), "ms", "—"),
    ],
)
def test_figures_are_formatted_through_the_common_helpers(value, unit, text):
    assert vista.valor(value, unit) == text


def test_closing_columns_are_the_contract():
    for module in cierre.contributors():
        assert list(module.closing_rows(pd.DataFrame(columns=results.COLUMNS), {}).columns) == CLOSING_COLUMNS


def test_escala_declares_its_launch_per_container_at_the_largest_n():
    from helpers.experiments import escala

    rows = [
        {
            "experiment": "escala",
            "engine": e,
            "image": "img",
            "variant": f"n={n}",
            "rep": r,
            "metric": "lanzamiento_por_contenedor",
            "value": v * (1 + r / 100),
            "unit": "ms",
        }
        for e, v in (("docker", 300.0), ("podman", 150.0))
        for n in (1, 5)
        for r in (1, 2, 3)
    ]
    out = escala.closing_rows(pd.DataFrame(rows), {})
    assert list(out.columns) == CLOSING_COLUMNS and set(out["entorno"]) == {"docker", "podman"}
    assert all("lanzar 5 contenedores" in c for c in out["concepto"])
    assert out.set_index("entorno").loc["podman", "valor"] == pytest.approx(150 * 1.02)
