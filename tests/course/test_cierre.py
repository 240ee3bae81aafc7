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
from helpers.experiments.ejecucion.analysis import overheads
from helpers.experiments.runner import Resultado
from helpers.view import cierre as vista
from helpers.view.common import (
    ENGINE_LABEL,
    approx,
    direction_words,
    fmt,
    fmt_ratio,
    fmt_value_interval,
    verdict_words,
)

RNG = np.random.default_rng(3)


def _run(root, experiment, frame: pd.DataFrame, **meta):
    with results.Run(experiment, {}, root) as run:
        run.update_meta(**meta)
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


NAN = float("nan")


@pytest.mark.parametrize(
    "value, unit, low, high, text, interval",
    [
        (312.44, "ms", NAN, NAN, "310 ms", "—"),  # without an interval: 2 significant digits
        (286.28, "ms", 281.66, 292.85, "286 ms", "[282, 293]"),  # the interval's place
        (1.24, "ms", 0.93, 1.74, "1.2 ms", "[0.93, 1.7]"),
        (5.2, "%", NAN, NAN, "+5.2 %", "—"),
        (0.355, "%", -3.2, 7.6, "+0.35 %", "[−3.2, +7.6]"),  # as 03 prints it (fmt_value_interval)
        (1.051, "x bare metal", NAN, NAN, "1.1× bare metal", "—"),
        (53.2, "ns", NAN, NAN, "53 ns", "—"),
        (NAN, "ms", NAN, NAN, "—", "—"),
    ],
)
def test_figures_are_formatted_through_the_common_helpers(value, unit, low, high, text, interval):
    assert vista.valor(value, unit, low, high) == text
    assert vista.intervalo(low, high, value, unit) == interval


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


def _displayed(show, root) -> str:
    """The markdown a 09 view displays (show(root=root))."""
    shown = []
    original = IPython.display.display
    IPython.display.display = lambda obj, *a, **k: shown.append(obj)
    try:
        show(root=root)
    finally:
        IPython.display.display = original
    return _markdown(shown)


def _answer(view, root, question: str) -> str:
    """The paragraph 09 shows for one question (view.preguntas, displayed), from its header on."""
    return _displayed(view.preguntas, root).split(question)[1].split("####")[0]


def _markdown(shown) -> str:
    return "\n".join(getattr(o, "data", "") or "" for o in shown if isinstance(getattr(o, "data", None), str))


@pytest.mark.parametrize("podman, verdict", [(150.0, "se confirma"), (450.0, "no se sostiene")])
def test_each_question_is_answered_from_the_notebook_that_decides_it(root, monkeypatch, podman, verdict):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    found = vista.preguntas(root=root)
    assert all(found[q.key] == [] for q in cierre.QUESTIONS)  # no run anywhere yet
    assert "01_arranque.ipynb" in _markdown(shown) and "aún no tienen corrida" in _markdown(shown)
    shown.clear()
    _run(root, "arranque", _startup(docker=300.0, podman=podman))
    found = vista.preguntas(root=root)
    first = found["podman_mas_rapido"][0]
    assert first is not None and first.key == "podman_mas_rapido"  # read by key from 01's own claims
    text = _markdown(shown)
    faster = text.split("¿Arranca Podman más rápido que Docker?")[1].split("####")[0]
    assert f"«Podman arranca con menos sobrecarga»** (cuaderno 01): con «ubuntu», **{verdict}**" in faster
    assert "podman_mas_rapido" not in text and "se_confirma" not in text


def _launch_split(docker: float, podman: float, docker_none: float, podman_none: float) -> pd.DataFrame:
    """01's arms with the default network and with `--network none`, both images, paired by round."""
    rows = _startup(docker, podman)
    none = rows[rows["engine"].isin(["docker", "podman"])].copy()
    none["variant"] = "sin_red"
    none["value"] = (
        np.where(none["engine"] == "docker", docker_none, podman_none)
        * none["value"]
        / np.where(none["engine"] == "docker", docker, podman)
    )
    return pd.concat([rows, none], ignore_index=True)


# (Docker's run without network, with it; Podman's without, with): ms. The engine apart from the network,
# and the network apart from the engine, each pointing one way or the other.
PODMAN_ENGINE_FASTER_NETWORK_SLOWER = ((250.0, 300.0), (180.0, 400.0))
PODMAN_ENGINE_SLOWER_NETWORK_FASTER = ((200.0, 300.0), (320.0, 330.0))


@pytest.mark.parametrize(
    "arms, engine_side, network_side",
    [
        (PODMAN_ENGINE_FASTER_NETWORK_SLOWER, vista.FASTER, vista.SLOWER),
        (PODMAN_ENGINE_SLOWER_NETWORK_FASTER, vista.SLOWER, vista.FASTER),
    ],
)
def test_podman_vs_docker_splits_2x_from_where_the_difference_lives(root, arms, engine_side, network_side):
    """09's answer cites 01's «~2×» verdicts (read by key), then reads, by the one rule, Podman/Docker of
    the engine without network (04's own parts, 01's `--network none`) and of the network's set-up and
    teardown (04): when the runs point the other way, the sentences say the other way."""
    from helpers.experiments import verdict
    from helpers.experiments.anatomia.analysis import engine_own_parts, network_costs

    (d_none, d_net), (p_none, p_net) = arms
    _run(root, "arranque", _launch_split(d_net, p_net, d_none, p_none))
    _run(root, "anatomia", _anatomia_rows((("docker", d_none, d_net), ("podman", p_none, p_net))))
    text = _answer(vista, root, "¿Arranca Podman más rápido que Docker?")
    lines = text.splitlines()
    twice = [
        experiments.read_claim(cierre, "arranque", "podman_2x", root, role=r) for r in ("ubuntu", "alpine")
    ]
    said = next(line for line in lines if "~2×" in line)
    for claim in twice:
        assert f"con «{claim.detail['role']}», **{verdict_words(claim)}**" in said
        assert fmt_ratio(claim.value, claim.low, claim.high) in said
    own = next(line for line in lines if "El motor mismo, sin red" in line)
    value, low, high, n = engine_own_parts(Resultado.latest("anatomia", root).df)["podman/docker"]
    assert fmt_ratio(value, low, high) in own  # 04's figure, read by the one rule
    assert direction_words(verdict.direction(low, high, n), vista.SLOWER, vista.FASTER) == engine_side
    assert own.endswith(f": {engine_side}.")
    no_network = next(line for line in lines if "sin red (`--network none`)" in line)
    assert no_network.count(engine_side) == 2  # both images, 01's own arms
    network = next(line for line in lines if "La red por defecto" in line)
    assert network.endswith(f": {network_side}.")
    costs = network_costs(Resultado.latest("anatomia", root).df)
    for engine, cost in costs.items():
        figure = fmt_value_interval(cost["red_ms"], *cost["red_ic"], "ms")
        assert f"{ENGINE_LABEL[engine]} {figure}" in network  # 04's figures, as 04 decides them


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


def _running(root, hash_work: float, with_io: bool = True):
    """A run of 03: hash and sort (the work alone) on bare metal and in Docker, hash `hash_work` times the
    bare-metal time; with_io adds small files (+50 %) and a copy-up (left out of the bottom line)."""
    arms = [("bare", "", "hash", 1.0), ("docker", "img", "hash", hash_work)]
    arms += [("bare", "", "sort", 1.0), ("docker", "img", "sort", 1.0)]
    if with_io:
        arms += [("bare", "", "archivos:almacen-docker", 1.0), ("docker", "img", "archivos:capa", 1.5)]
        arms += [("bare", "", "copia:almacen-docker", 1.0), ("docker", "img", "copia:capa", 3.0)]
    frame = pd.DataFrame(
        [
            {"engine": e, "image": i, "variant": v, "rep": k, "metric": "trabajo", "unit": "s"}
            | {"value": val * (1 + 0.01 * ((k * 7 + len(v)) % 5 - 2) / 2)}
            for e, i, v, val in arms
            for k in range(1, 9)
        ]
    )
    _run(root, "ejecucion", frame)


@pytest.mark.parametrize(
    "hash_work, verdict", [(1.05, "se confirma"), (1.20, "no se sostiene")]
)  # +5 %: 6 min of 2 h; +20 %: 24 min
def test_the_bottom_line_is_recomputed_from_the_students_data(root, monkeypatch, hash_work, verdict):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    assert not vista.balance(root=root).measured and "cuaderno 03" in _markdown(shown)
    shown.clear()
    _run(root, "arranque", _startup(docker=300.0, podman=150.0))
    _running(root, hash_work)
    line = vista.balance(root=root)
    hashed = next(c for c in line.claims if c.detail["carga"] == "hash")
    assert {c.key for c in line.claims} == {"dos_horas_10_min"}  # 03's claim, read by key
    assert hashed.value == pytest.approx(120 * (hash_work - 1), rel=0.1)
    assert hashed.low <= hashed.value <= hashed.high
    text = _markdown(shown)
    assert (
        f"hash (SHA-256), Docker: {fmt_value_interval(hashed.value, hashed.low, hashed.high, 'min')}" in text
    )
    assert verdict in text
    # the I/O workloads are figures, not verdicts; a copy-up is paid per file, not per hour
    assert list(line.others["carga"]) == ["archivos"]
    assert line.others["minutos"].iloc[0] == pytest.approx(60, rel=0.1)
    assert "archivos pequeños en capa del contenedor (overlay), Docker: +50." in text
    # the launch paid once is 01's `docker run --rm` (ubuntu, default network), never an exec
    assert line.launch["mediana_ms"] == pytest.approx(300, rel=0.05) and line.launch["role"] == "ubuntu"
    launch = line.launch
    assert fmt_value_interval(launch["mediana_ms"], launch["ic_bajo_ms"], launch["ic_alto_ms"], "ms") in text


def test_the_bottom_line_without_a_launch_run_says_so(root, monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    _running(root, 1.05, with_io=False)
    line = vista.balance(root=root)
    assert line.launch is None and line.others.empty
    assert "(cuaderno 01) aún no tiene corrida" in _markdown(shown)


def test_the_chapter_summary_has_every_row_of_the_chapters_table_and_its_verdicts(root, monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    assert len(vista.resumen(root=root)) == 16  # no run anywhere: the chapter's figures, «sin corrida»
    assert "sin corrida" in shown.pop().to_html()
    _run(root, "arranque", _startup(docker=300.0, podman=150.0))
    _running(root, 1.05, with_io=False)
    data = vista.resumen(root=root)
    rows = [row for _, row in cierre.summary_rows()]
    assert len(data) == 2 * len(rows) == 16  # seven rows of the chapter and exec apart, two engines each
    chapter = data.set_index(["aspecto", "motor"])["capitulo"]
    assert chapter[(rows[2].label, "docker")] == pytest.approx(5.52)  # 20 containers, s
    assert chapter[(rows[3].label, "podman")] == pytest.approx(
        97 * 1000 / 1024 / 1024
    )  # 97 kB (decimal) in MiB
    assert chapter[(rows[5].label, "docker")] == pytest.approx(-24.57, abs=0.01)  # hash, % (its −24.6 %)
    two_x = data[(data["experimento"] == "arranque")]["veredicto"]
    assert all(c is not None and c.key == "podman_2x" for c in two_x)  # 01's verdict, read by key
    scale = data[data["experimento"] == "escala"].set_index(["aspecto", "motor"])["veredicto"]
    assert scale.drop((rows[4].label, "podman")).isna().all()  # no run of 02 here
    assert scale[(rows[4].label, "podman")] == cierre.NOT_JUDGED  # dockerd's claim: not Podman's
    html = shown[0].to_html()
    assert "sin corrida" in html and "01_arranque.ipynb" in html and "se confirma" in html


def test_the_chapter_summary_is_declared_by_each_experiment_and_quotes_its_declarations(root):
    """Each row of 09's «Tabla resumen» comes from its experiment's CHAPTER_SUMMARY; what the chapter
    concluded is the statement of a claim that experiment declares (never a second wording), and the
    row's verdict is that claim's, found by its key."""
    rows = cierre.summary_rows()
    assert [e for e, _ in rows] == ["arranque"] * 2 + ["escala"] * 3 + ["ejecucion"] * 3  # notebook order
    for experiment, row in rows:
        assert row.said in experiments.get(experiment).SAID, (experiment, row.label)
    data = cierre.summary(root)
    said = [row.said.statement for _, row in rows for _engine in cierre.CONTAINERS]
    assert list(data["dice_el_capitulo"]) == said


def test_every_question_reads_claims_its_notebook_declares():
    for q in cierre.QUESTIONS:
        declared = {s.key for s in experiments.get(q.experiment).SAID}
        assert set(q.claims) <= declared, (q.key, set(q.claims) - declared)
        assert q.experiment in cierre.READS and q.cost in cierre.COSTS


@pytest.mark.parametrize("hash_work, heavier", [(1.001, "LAUNCH"), (1.5, "RUNNING")])
def test_the_kits_facts_for_03_and_09_follow_the_data_both_ways(root, hash_work, heavier):
    """The worked answers of 03 and 09 state the run's figures as the notebooks show them (the same
    baseline, the same format), and their conclusion changes with the data."""
    from helpers.course import facts as kit

    _run(root, "arranque", _startup(docker=300.0, podman=150.0))
    _running(root, hash_work)
    facts = kit.kit_facts(root)
    assert f"Con las medianas pesa más {heavier}" in facts["cierre.cuenta"]
    assert f"de LAUNCH: pesa más {heavier}." in facts["cierre.cuenta"]  # the one rule on RUNNING's IC
    assert "frente a bare metal" not in facts["cierre.cuenta"]  # the fairest baseline, as 09's table
    over = overheads(Resultado.latest("ejecucion", root).df)
    hashed = over[(over["carga"] == "hash") & over["justa"] & (over["entorno"] == "docker")].iloc[0]
    figure = fmt_value_interval(hashed["sobrecarga_pct"], hashed["ic_bajo_pct"], hashed["ic_alto_pct"], "%")
    assert f"Docker {figure} frente a los binarios del host" in facts["ejecucion.cpu"]
    assert figure in facts["cierre.corto_y_largo"]
    assert "no midió «archivos pequeños» en la capa y en un volumen" in facts["ejecucion.archivos"]
    assert "caben unos" not in facts["cierre.exec_en_run"]  # no `exec true` in this run: it says so
    assert "no midió" in facts["cierre.exec_en_run"]


def _anatomia_rows(engines) -> pd.DataFrame:
    from helpers.experiments.anatomia.rungs import METRIC

    rng = np.random.default_rng(7)
    ladder = [("bare", "proceso", 1.0), ("bare", "ns_red", 4.0)]
    ladder += [("bare", "runc_con_netns", 28.0), ("bare", "runc_overlay", 40.0)]
    for engine, none, net in engines:
        ladder += [(engine, "run_sin_red", none), (engine, "run_red", net)]
    return pd.DataFrame(
        [
            {
                "engine": e,
                "image": "",
                "variant": v,
                "rep": k,
                "metric": METRIC,
                "value": c * rng.normal(1, 0.02),
                "unit": "ms",
            }
            for e, v, c in ladder
            for k in range(1, 9)
        ]
    )


def test_where_launch_goes_is_answered_by_04s_largest_part_per_engine(root, monkeypatch):
    """«¿A dónde se va LAUNCH?»: 04's waterfall names each engine's largest part with its interval (only
    when the interval separates it), in 04's own words and figures; the claims' verdicts stay beside it."""
    from helpers.experiments.anatomia.analysis import largest_part, waterfall
    from helpers.view.anatomia_frases import waterfall_sentence

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    # Docker: the engine ~210 ms of 340 (separated); Podman: engine ~190 ms, network ~190 ms (no winner)
    df = _anatomia_rows((("docker", 250.0, 340.0), ("podman", 230.0, 420.0)))
    _run(root, "anatomia", df)
    found = vista.preguntas(root=root)
    text = _markdown(shown)
    answer = text.split("¿A dónde se va el tiempo de LAUNCH?")[1].split("####")[0]
    frames = [waterfall(df, e) for e in ("docker", "podman")]
    assert waterfall_sentence(frames, {}) in answer  # 04's sentence, figures as 04 prints them
    docker = largest_part(frames[0])
    assert docker[0]["parte"] == "motor" and docker[2]
    assert f"En Docker, la parte que más pesa es «{docker[0]['etiqueta']}»" in answer
    assert "En Podman, por la mediana" in answer and "no se distingue" in answer
    assert not largest_part(frames[1])[2]
    verdicts = [c for c in found["donde_va_launch"] if c is not None]
    assert verdicts and all(f"«{c.statement}»" in answer for c in verdicts)  # cited beside it


@pytest.mark.parametrize(
    "value, low, high, unit, page",
    [
        (88.0, 87.047, 89.641, "ns", "88 ns [87, 90]"),  # as 05 prints it
        (287.2364, 274.3625, 297.4339, "ms", "290 ms [270, 300]"),  # as 01 prints it
        (97.6, 97.142, 98.512, "ns", "97.6 ns [97.1, 98.5]"),
        (0.355, -3.2, 7.6, "%", "+0.35 % [−3.2, +7.6]"),  # as 03 prints it
        (1.0512, 1.031, 1.072, "x bare metal", "1.05× bare metal [1.03, 1.07]"),
    ],
)
def test_a_closing_figure_reads_as_the_page_that_decided_it(value, low, high, unit, page):
    """09's table writes a figure and its interval in two columns, as the page that decided it writes
    them in one (fmt_value_interval: digits by the interval's width, «×» against the number)."""
    shown = f"{vista.valor(value, unit, low, high)} {vista.intervalo(low, high, value, unit)}"
    assert shown == page
    if not unit.startswith("x"):  # a ratio's page writes «1.05× [1.03, 1.07]» and names the baseline apart
        assert fmt_value_interval(value, low, high, unit) == page


def _running_with_exec(root, work: float, exec_s: float = 0.4):
    """A run of 03 whose hash and sort take `work` × bare metal's time inside the container, and whose
    end-to-end timing adds an `exec` of exec_s seconds (bare metal: none); `exec … true` from the host."""
    arms = []
    for carga in ("hash", "sort"):
        arms += [("bare", "", carga, "trabajo", 1.0), ("bare", "", carga, "extremo_a_extremo", 1.0)]
        arms += [(e, "img", carga, "trabajo", work) for e in ("docker", "podman")]
        arms += [(e, "img", carga, "extremo_a_extremo", work + exec_s) for e in ("docker", "podman")]
    arms += [(e, "img", "exec_true", "extremo_a_extremo", exec_s / 4) for e in ("docker", "podman")]
    frame = pd.DataFrame(
        [
            {"engine": e, "image": i, "variant": v, "rep": k, "metric": m, "unit": "s"}
            | {"value": val * (1 + 0.01 * ((k * 7 + len(v) + len(e)) % 5 - 2) / 2)}
            for e, i, v, m, val in arms
            for k in range(1, 9)
        ]
    )
    _run(root, "ejecucion", frame)
    # 01's `run` (the other side of 03's exec claim, exec ÷ run): 300 ms, «ubuntu», default network
    launch = [
        {"engine": e, "image": "ubuntu", "variant": "por_defecto", "rep": k, "metric": "arranque"}
        | {"value": 300.0 + k, "unit": "ms"}
        for e in ("docker", "podman")
        for k in range(1, 11)
    ]
    _run(root, "arranque", pd.DataFrame(launch))


@pytest.mark.parametrize("work, verdict", [(1.0, "se confirma"), (1.3, "no se sostiene")])
def test_the_summarys_running_is_the_work_alone_and_exec_is_launch(root, work, verdict):
    """09's «Tabla resumen»: hash and sort are RUNNING as the work alone (the chapter's claim judged by the
    one rule on that figure, whatever `exec` adds end to end), and `exec` is a LAUNCH row of its own with
    03's verdict on it, read by key."""
    _running_with_exec(root, work)
    data = cierre.summary(root)
    mine = data[data["experimento"] == "ejecucion"]
    running = mine[mine["costo"] == "RUNNING"]
    assert len(running) == 4 and all("el trabajo solo" in a for a in running["aspecto"])
    hashed = running[running["aspecto"].str.contains("hash")].set_index("motor")
    for engine in ("docker", "podman"):
        assert hashed.loc[engine, "tuyo"] == pytest.approx(100 * (work - 1), abs=1.5)  # not the +40 % of exec
        claim = hashed.loc[engine, "veredicto"]
        assert claim.key == "hash_0" and verdict_words(claim) == verdict
        assert claim.value == pytest.approx(hashed.loc[engine, "tuyo"])  # judged on the row's own figure
    for engine in ("docker", "podman"):  # 03 judges the same figure: one verdict for the claim, page and 09
        page = experiments.read_claim(cierre, "ejecucion", "hash_0", root, engine=engine)
        assert verdict_words(page) == verdict and page.value == pytest.approx(hashed.loc[engine, "tuyo"])
    launch = mine[mine["costo"] == "LAUNCH"].set_index("motor")
    assert list(launch.index) == ["docker", "podman"]
    exec_claim = experiments.read_claim(cierre, "ejecucion", "exec_1ms", root, engine="podman")
    assert launch.loc["podman", "veredicto"].status == exec_claim.status == "no_se_sostiene"


def test_the_summarys_exec_row_shows_the_ratio_it_was_judged_on_and_its_ms_in_the_note(root, monkeypatch):
    """09's exec row: the figure beside its verdict is the one 03 judged (exec ÷ run, with its IC, against
    the chapter's 1/428), never exec's ms; those go in the row's note, unjudged."""
    _running_with_exec(root, 1.0)
    data = cierre.summary(root)
    launch = data[(data["experimento"] == "ejecucion") & (data["costo"] == "LAUNCH")].set_index("motor")
    for engine in ("docker", "podman"):
        row, claim = launch.loc[engine], launch.loc[engine, "veredicto"]
        assert row["unidad"] == "x" and row["tuyo"] == pytest.approx(100 / 305, rel=0.05)  # exec ÷ run
        assert (row["tuyo"], row["tuyo_bajo"], row["tuyo_alto"]) == (claim.value, claim.low, claim.high)
        assert row["capitulo"] == pytest.approx(1 / 428, rel=0.01)
        name, value, *_ = row["aparte"]
        assert "exec" in name and value == pytest.approx(100, rel=0.05)  # ms: `exec … true`, beside
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.resumen(root=root)
    html = shown[0].to_html()
    ratio = launch.loc["docker"]
    assert fmt_value_interval(ratio["tuyo"], ratio["tuyo_bajo"], ratio["tuyo_alto"], "x") in html
    assert "tu exec solo: 1" in html and "(al lado, no se juzga)" in html  # no raw backtick in HTML


def _scale_rows(n: int, per_container_kb: dict, helpers: dict) -> pd.DataFrame:
    """02's rows at N = 0, 1 and n: each container's cgroup and its helper's PSS, in KB (half and half),
    and its helper processes."""
    rows = []
    for engine, kb in per_container_kb.items():
        helper = helpers[engine]
        for count in (1, n):
            for k in range(1, 7):
                jitter = 1 + 0.01 * (k % 3)
                rows += [
                    (engine, f"n={count}", k, "memoria_cgroup_total", kb / 2 * count * jitter, "KB"),
                    (engine, f"n={count}", k, f"pss_{helper}_total", kb / 2 * count * jitter, "KB"),
                    (engine, f"n={count}", k, f"{helper}_procesos", count, "procesos"),
                ]
    return pd.DataFrame(rows, columns=["engine", "variant", "rep", "metric", "value", "unit"]).assign(
        image="img"
    )


@pytest.mark.parametrize(
    "available_gib, network, pid_max, docker_binds, podman_binds",
    [
        (64, "por_defecto", None, "los puertos del bridge", "los puertos del bridge"),
        (2, "por_defecto", None, "la memoria", "los puertos del bridge"),
        (64, "sin_red", 20_000, "los PID del kernel", "los PID del kernel"),
        (2, "sin_red", 4_194_304, "la memoria", "la memoria"),
    ],
)
def test_capacity_is_a_number_per_engine_with_the_limit_that_binds_first(
    root, available_gib, network, pid_max, docker_binds, podman_binds
):
    """CAPACITY: the containers the recorded memory holds (MemAvailable ÷ what one more holds, from 02's
    run), beside a bridge's 1 023 ports (default network only) and kernel.pid_max ÷ PIDs per container
    (when meta.json recorded it); the smallest binds; what the run cannot read is named."""
    per = {"docker": 4096.0, "podman": 1024.0}  # KB per container: 4 MiB and 1 MiB
    host = {"memory_available_bytes": available_gib * 2**30, "memory_total_bytes": 128 * 2**30}
    if pid_max:
        host["limits"] = {"pid_max": pid_max}
    _run(
        root,
        "escala",
        _scale_rows(20, per, {"docker": "shims", "podman": "conmon"}),
        host=host,
        launch_network=network,
    )
    found = {c.engine: c for c in cierre.capacity(root)}
    assert set(found) == {"docker", "podman"}
    for engine, kb in per.items():
        cap = found[engine]
        assert cap.n == 20 and cap.memory_field == "memory_available_bytes"
        assert cap.memory_kb.value == pytest.approx(kb, rel=0.02)
        assert cap.limits[cierre.MEMORY][0] == pytest.approx(available_gib * 2**20 / kb, rel=0.02)
        assert (cierre.BRIDGE in cap.limits) == (network == "por_defecto")
        assert (cierre.PIDS in cap.limits) == bool(pid_max)
        if pid_max:
            assert cap.limits[cierre.PIDS][0] == pytest.approx(pid_max / 2)  # its helper and its own process
    text = _answer(vista, root, "¿Cuántos caben")
    for engine, binds in (("docker", docker_binds), ("podman", podman_binds)):
        line = next(x for x in text.splitlines() if x.startswith(f"- **{ENGINE_LABEL[engine]}:"))
        assert f"lo primero que se acaba: {binds}" in line
        count = found[engine].limits[found[engine].binding][0]
        exact = found[engine].binding != cierre.MEMORY
        assert f"caben {fmt(count, 0) if exact else 'unos ' + approx(count)}" in line
    assert "descriptores de archivo" in text  # never counted per container: said, not guessed
    assert ("kernel.pid_max (esta corrida no lo registró" in text) == (pid_max is None)


def test_a_row_its_latest_run_did_not_measure_is_not_called_without_a_run(root, monkeypatch):
    """The quick profile launches N = 1 and 3: the chapter's rows at N = 20 are «no medido en tu última
    corrida», never «sin corrida» (02 did run)."""
    from tests.experiments.escala.test_unit import _noisy_class

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    _run(root, "escala", _noisy_class(reps=2, ns=(1, 3)), launch_network="por_defecto")
    data = vista.resumen(root=root)
    table = shown.pop().data.set_index(["Qué", "Motor"])["Tu máquina (mediana e IC 95 %)"]
    scale = data[data["experimento"] == "escala"]
    assert len(scale) and (scale["n"] == 0).all()
    for label in scale["aspecto"].unique():
        assert "sin corrida" not in set(table.loc[label.replace("`", "")]), table.loc[label]


@pytest.mark.parametrize("work, verdict", [(1.0, "se confirma"), (1.3, "no se sostiene")])
def test_a_summary_row_never_hides_that_its_page_judged_the_claim_otherwise(root, monkeypatch, work, verdict):
    """09's «Tabla resumen» and 03 give the chapter's hash claim one judgement: where they agree (same
    figure, same verdict) the row says nothing more; where the row's figure is not the page's, its note
    carries the page's verdict with its figure, so two judgements of one claim never read as one."""
    from dataclasses import replace

    from helpers.experiments import verdict as vd
    from helpers.experiments.ejecucion import summary as ejecucion_summary

    _running_with_exec(root, work)
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.resumen(root=root)
    table = shown.pop().data
    hashed = table[table["Qué"].str.contains("hash")]
    for engine in ("docker", "podman"):
        row = hashed[hashed["Motor"] == ENGINE_LABEL[engine]].iloc[0]
        page = experiments.read_claim(cierre, "ejecucion", "hash_0", root, engine=engine)
        assert row["Tu veredicto"] == verdict_words(page) == verdict  # the page's own verdict
        assert "su cuaderno" not in row["Nota"]
    assert not any("`" in str(cell) for cell in table.to_numpy().ravel())  # no raw markdown in a cell
    # a row judged on another figure than its page's: the note names the page's verdict and figure
    rows = tuple(
        replace(r, verdict=lambda df, meta, e, r=r: replace(r.verdict(df, meta, e), status=vd.NO_CONCLUYENTE))
        if r.verdict is not None
        else r
        for r in ejecucion_summary.CHAPTER_SUMMARY
    )
    monkeypatch.setattr(ejecucion, "CHAPTER_SUMMARY", rows)
    vista.resumen(root=root)
    table = shown.pop().data
    row = table[table["Qué"].str.contains("hash") & (table["Motor"] == "Docker")].iloc[0]
    page = experiments.read_claim(cierre, "ejecucion", "hash_0", root, engine="docker")
    assert f"su cuaderno (03) la juzga sobre otra cifra, {page.quantity.replace('`', '')}" in row["Nota"]
    assert row["Nota"].endswith(f": {verdict_words(page)}")


def _short_answers(root) -> str:
    return _displayed(vista.respuestas, root)


def test_the_short_answer_carries_every_judgement_its_page_made(root):
    """«¿A dónde se va LAUNCH?» in short and in detail: 04 judges «the network is a large part» per
    engine; when Docker's network is a small part and Podman's a large one, both verdicts are in 09's
    answer (before, only the first judgement, Docker's, was), each with its engine and figure."""
    _run(root, "anatomia", _anatomia_rows((("docker", 280.0, 300.0), ("podman", 180.0, 400.0))))
    found = cierre.answers(root)["donde_va_launch"]
    network = [c for c in found if c.key == "red_grande"]
    assert {c.detail["engine"] for c in network} == {"docker", "podman"}
    assert {verdict_words(c) for c in network} >= {"se confirma", "no se sostiene"}
    text = _short_answers(root)
    line = next(ln for ln in text.splitlines() if "¿A dónde se va el tiempo de LAUNCH?" in ln)
    said = line.split(f"«{network[0].statement.rstrip('.')}»")[1].split("; «")[0]
    for c in network:
        figure = fmt_value_interval(c.value, c.low, c.high, c.unit)
        assert f"{ENGINE_LABEL[c.detail['engine']]} {figure}" in said
        assert f"**{verdict_words(c).split(' (')[0]}**" in said
    detail = _answer(vista, root, "¿A dónde se va el tiempo de LAUNCH?")
    assert detail.count(network[0].statement) == len(network)  # the detail lists each judgement too


def test_the_short_answers_follow_the_runs_and_say_what_is_missing(root):
    """No run: every question says which notebook it waits for. With 01's run, «is Podman faster?» carries
    01's verdict, and it turns when the run turns."""
    text = _short_answers(root)
    assert text.lower().count("sin corrida de") + text.lower().count("sin veredicto") == 5
    _run(root, "arranque", _startup(docker=300.0, podman=450.0))
    first = _short_answers(root)
    assert "«Podman arranca con menos sobrecarga»: **no se sostiene**" in first
    _run(root, "arranque", _startup(docker=300.0, podman=150.0))
    assert "«Podman arranca con menos sobrecarga»: **se confirma**" in _short_answers(root)


def test_09_answers_first_and_folds_the_details():
    """09 is the take-home page: its first output is «Lo que te llevas»; every other output cell (the
    short answers, each answer in detail, the full table, the chapter's table, its bottom line) is
    folded, in HTML (tag «detalle», with its summary) and in JupyterLab (outputs hidden)."""
    import json

    from helpers import PROJECT_ROOT

    cells = json.loads((PROJECT_ROOT / "notebooks" / "09_cierre.ipynb").read_text())["cells"]
    code = [
        c for c in cells if c["cell_type"] == "code" and "parameters" not in c["metadata"].get("tags", [])
    ]
    assert "cierre.lo_que_te_llevas()" in "".join(code[0]["source"]) and not code[0]["metadata"].get("tags")
    assert "cierre.respuestas()" in "".join(code[1]["source"])
    for cell in code[1:]:
        meta = cell["metadata"]
        assert "detalle" in meta.get("tags", []) and meta.get("resumen"), cell["source"]
        assert meta.get("jupyter", {}).get("outputs_hidden") is True, cell["source"]


def test_a_figure_from_a_run_that_did_not_finish_says_so_in_its_row(root, monkeypatch):
    """08's default run failed in the fresh course and 09's table showed its figures like any other: a
    row from a run that did not finish names its status in the row itself, not only in the notes."""
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    _run(root, "arranque", _arranque_rows())
    failed = Resultado(
        "ejecucion",
        _ejecucion_rows().assign(experiment="ejecucion"),
        root / "x",
        {"run_id": "ROTA", "status": "failed"},
    )
    vista.tabla(failed, root=root)
    table = shown[0].data
    mine = table[table["Experimento"].str.startswith(ejecucion.TITLE)]
    assert len(mine) and all(e.endswith("(corrida fallida)") for e in mine["Experimento"])
    assert not any("(corrida" in e for e in table[~table.index.isin(mine.index)]["Experimento"])


def test_the_chapter_table_says_when_the_images_were_local_stand_ins(root, monkeypatch):
    """The chapter ran the official ubuntu and alpine; a machine without a registry runs stand-ins
    (meta.json «images», origin «sustituto»): 09 says which, under the table, and says nothing otherwise."""
    frame = pd.DataFrame(
        [
            {
                "engine": "docker",
                "image": "ubuntu",
                "variant": "",
                "rep": 1,
                "metric": "arranque",
                "value": 300.0,
            }
        ]
    ).assign(unit="ms")
    stand_in = {"role": "ubuntu", "name": "curso/debian-minbase:bookworm", "origin": "sustituto"}
    official = {"role": "alpine", "name": "alpine:3.20", "origin": "oficial"}
    _run(root, "arranque", frame, images={"docker": {"ubuntu": stand_in, "alpine": official}})
    assert vista.substitutes(["arranque", "ejecucion"], root) == {"ubuntu": "curso/debian-minbase:bookworm"}
    shown = []
    monkeypatch.setattr(vista, "markdown", shown.append)
    monkeypatch.setattr(vista, "show", lambda obj: None)
    vista.resumen(root=root)
    assert any("«ubuntu» fue `curso/debian-minbase:bookworm`" in s and "alpine" not in s for s in shown), (
        shown
    )


def test_after_an_interrupted_newer_run_the_answers_and_the_tables_cite_the_same_run(root):
    """results.latest, one policy for every reader: a newer run that did not finish never hides the
    complete one, so 09's answers, its closing table and its «Tabla resumen» read the same run."""
    complete = _run(root, "ejecucion", _ejecucion_rows())
    slower = _ejecucion_rows()
    slower.loc[(slower["engine"] == "docker") & (slower["variant"] == "hash"), "value"] *= 2  # +100 %
    with pytest.raises(KeyboardInterrupt):
        with results.Run("ejecucion", {}, root) as interrupted:
            for _, r in slower.iterrows():
                run_row = {k: r[k] for k in ("engine", "image", "variant", "metric", "unit")}
                interrupted.append(**run_row, rep=int(r["rep"]), value=float(r["value"]))
            raise KeyboardInterrupt
    assert results.list_runs("ejecucion", root)[-1] == interrupted.dir
    assert results.read_meta(interrupted.dir)["status"] == results.STATUS_INTERRUPTED

    table = cierre.gather(root=root)
    assert table.runs["ejecucion"].run_dir == complete.dir
    assert set(table.rows.loc[table.rows["experimento"] == "ejecucion", "corrida"]) == {complete.dir.name}
    expected = [c for c in ejecucion.claims(*results.load_run(complete.dir)) if c.key == "dos_horas_10_min"]
    answered = [c for c in cierre.answers(root)["costo_running"] if c.key == "dos_horas_10_min"]
    assert [(c.value, c.status) for c in answered] == [(c.value, c.status) for c in expected]
    assert answered and answered[0].value == pytest.approx(120 * 0.05, rel=0.3)  # not the +100 % run's
    summary = cierre.summary(root)
    hash_row = summary[(summary["experimento"] == "ejecucion") & (summary["motor"] == "docker")].iloc[0]
    assert hash_row["tuyo"] == pytest.approx(5, rel=0.3)
