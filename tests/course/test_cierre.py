"""The closing LAUNCH vs RUNNING table: built from every registered experiment's latest run through its
own closing_rows, with the experiments that have no run yet named."""

from __future__ import annotations

import IPython.display
import numpy as np
import pandas as pd
import pytest

from helpers import cierre, experiments, results
from helpers.experiments import arranque, ejecucion
from helpers.experiments.contract import CLOSING_COLUMNS
from helpers.experiments.runner import Resultado
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


def _startup(docker: float, podman: float) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "engine": e,
                "image": role,
                "variant": v,
                "rep": k,
                "metric": "arranque",
                "value": val * (1 + 0.01 * (k % 3)),
                "unit": "ms",
            }
            for e, role, v, val in (
                ("bare", "", "proceso", 1.0),
                ("bare", "", "metodo_semilla", 2.0),
                ("docker", "alpine", "por_defecto", docker),
                ("podman", "alpine", "por_defecto", podman),
                ("docker", "ubuntu", "por_defecto", docker),
                ("podman", "ubuntu", "por_defecto", podman),
            )
            for k in range(1, 9)
        ]
    )


def _markdown(shown) -> str:
    return "\n".join(getattr(o, "data", "") or "" for o in shown if isinstance(getattr(o, "data", None), str))


@pytest.mark.parametrize("podman, answer", [(150.0, "sí: la afirmación"), (450.0, "no: la afirmación")])
def test_each_question_is_answered_from_the_notebook_that_decides_it(root, monkeypatch, podman, answer):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    found = vista.preguntas(root=root)
    assert all(found[q.key] == [] for q in cierre.QUESTIONS)  # no run anywhere yet
    assert "01_arranque.ipynb" in _markdown(shown) and "aún no tiene corrida" in _markdown(shown)
    shown.clear()
    _run(root, "arranque", _startup(docker=300.0, podman=podman))
    found = vista.preguntas(root=root)
    first = found["podman_mas_rapido"][0]
    assert first is not None and first.key == "podman_mas_rapido"  # read by key from 01's own claims
    text = _markdown(shown)
    assert "¿Arranca Podman más rápido que Docker?" in text and answer in text
    assert "podman_mas_rapido" not in text and "se_confirma" not in text


def test_exec_is_launch_wherever_it_was_measured():
    assert (
        cierre.cost_of({"concepto": "`exec true` en un contenedor que ya corre", "tipo": "RUNNING"})
        == "LAUNCH"
    )
    assert cierre.cost_of({"concepto": "sobrecarga de hash", "tipo": "RUNNING"}) == "RUNNING"
    assert cierre.cost_of({"concepto": "memoria por contenedor", "tipo": "CAPACITY"}) == "CAPACITY"


def test_the_view_puts_every_figure_in_one_cost(root, monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    _run(root, "ejecucion", _ejecucion_rows())
    vista.tabla(root=root)
    frame = shown[0].data
    exec_rows = frame[frame["Qué se mide"].str.contains("exec")]
    assert not exec_rows.empty and set(exec_rows["Costo"]) == {vista.TIPO["LAUNCH"]}


def test_the_chapter_summary_sits_beside_the_students(root, monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    _run(root, "arranque", _startup(docker=300.0, podman=150.0))
    data = vista.resumen(root=root)
    docker = data.query("experimento == 'arranque' and imagen == 'alpine' and motor == 'docker'").iloc[0]
    assert docker["capitulo"] == pytest.approx(430, rel=0.05)  # the chapter's median, from data/reference
    assert docker["tuyo"] == pytest.approx(303, rel=0.01) and docker["n"] == 8
    assert docker["tuyo_bajo"] <= docker["tuyo"] <= docker["tuyo_alto"]
    assert data.query("experimento == 'ejecucion'")["n"].eq(0).all()  # no run of 03 here
    html = shown[0].to_html()
    assert "Capítulo" in html and "sin corrida" in html and "303" in html


def _closing(overhead_pct: float, low: float, high: float, launch_ms: float = 300.0) -> pd.DataFrame:
    return pd.DataFrame(
        [
            ("arranque de echo", "LAUNCH", "docker", launch_ms, launch_ms * 0.9, launch_ms * 1.1, "ms"),
            ("sobrecarga de hash", "RUNNING", "docker", overhead_pct, low, high, "%"),
            ("`exec true`", "RUNNING", "docker", 60.0, 55.0, 65.0, "ms"),
        ],
        columns=CLOSING_COLUMNS,
    )


@pytest.mark.parametrize(
    "pct, low, high, words",
    [
        (2.0, 1.0, 3.0, "con todo su intervalo por debajo de 10 min: 1"),
        (20.0, 15.0, 25.0, "con todo su intervalo por encima de 10 min: 1"),
        (8.0, 2.0, 14.0, "con el intervalo a los dos lados de 10 min: 1"),
    ],
)
def test_the_bottom_line_is_recomputed_from_the_students_data(monkeypatch, pct, low, high, words):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    line = vista.balance(_closing(pct, low, high))
    load = line.loads.iloc[0]
    assert len(line.loads) == 1 and load["minutos"] == pytest.approx(120 * pct / 100 + 300 / 60_000)
    assert load["minutos_bajo"] < load["minutos"] < load["minutos_alto"]
    assert line.launch["concepto"] == "arranque de echo"  # exec is not the launch that is paid once
    assert words in _markdown(shown)
    shown.clear()
    assert not vista.balance(None).measured and "cuaderno 03" in _markdown(shown)


def test_the_bottom_line_leaves_out_what_is_not_a_container_and_says_when_there_is_no_interval(monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    rows = pd.concat(
        [
            _closing(2.0, float("nan"), float("nan")),
            pd.DataFrame(
                [("arranque hasta listo: VM", "LAUNCH", "vm_emulada", 3600.0, 3500.0, 3700.0, "ms")],
                columns=CLOSING_COLUMNS,
            ),
        ],
        ignore_index=True,
    )
    line = vista.balance(rows)
    assert line.launch["valor"] == 300.0  # a VM's boot is not a container's launch
    assert "sin IC 95 %" in _markdown(shown)


def test_every_question_reads_claims_its_notebook_declares():
    for q in cierre.QUESTIONS:
        declared = {s.key for s in experiments.get(q.experiment).SAID}
        assert set(q.claims) <= declared, (q.key, set(q.claims) - declared)
        assert q.experiment in cierre.READS and q.cost in cierre.COSTS
