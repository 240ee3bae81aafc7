"""Experiment 4 (anatomy of LAUNCH) without engines: parameters, the plan, the summary, the waterfall, the
network's share, the claims, the published figures and the closing rows, on synthetic rows."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from helpers import reference
from helpers.errors import ParametroInvalido
from helpers.experiments import anatomia, verdict
from helpers.experiments.anatomia import rungs
from helpers.experiments.anatomia import rungs as anatomia_rungs
from helpers.experiments.anatomia.analysis import (
    engine_own_parts,
    largest_part,
    network_costs,
    network_share,
    run_median,
    summarize,
    waterfall,
)
from helpers.experiments.anatomia.chain import chain_split
from helpers.experiments.anatomia.claims import SOURCE as IDEA_SOURCE
from helpers.experiments.anatomia.phases import PHASE_INCLUDES, PHASES
from helpers.experiments.anatomia.published import compare
from helpers.experiments.anatomia.rungs import METRIC, NAMESPACES
from helpers.experiments.runner import Arm, Resultado
from helpers.stats import Estimate
from helpers.view.common import fmt_value_interval
from tests.support import assert_round_rows_change_nothing


# ---------------------------------------------------------------- parameters and plan
@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"peldaños": ["proceso", "escalera"]}, "PELDAÑOS"),
        ({"peldaños": []}, "PELDAÑOS"),
        ({"imagen": "fedora"}, "IMAGEN"),
        ({"imagen": ["alpine", "ubuntu"]}, "IMAGEN"),
        ({"motores": ["lxc"]}, "MOTORES"),
        ({"repeticiones": 0}, "REPETICIONES"),
        ({"repeticiones": 201}, "REPETICIONES"),
        ({"calentamiento": -1}, "CALENTAMIENTO"),
        ({"calentamiento": 21}, "CALENTAMIENTO"),
        ({"repeticiones_": 3}, "REPETICIONES_"),
    ],
)
def test_bad_parameters_raise_spanish_error_before_anything(params, fragment, results_tmp):
    with pytest.raises(ParametroInvalido, match=fragment):
        anatomia.config(**params)
    assert not results_tmp.exists()  # nothing was launched, no run folder


def test_the_panel_allows_exactly_what_the_validation_accepts():
    controls = {c["name"]: c for c in anatomia.CONTROLS}
    assert (controls["repeticiones"]["min"], controls["repeticiones"]["max"]) == (1, 200)
    assert (controls["calentamiento"]["min"], controls["calentamiento"]["max"]) == (0, 20)
    assert controls["peldaños"]["options"] == list(anatomia_rungs.GROUPS)
    cfg = anatomia.config(repeticiones=200, calentamiento=20)
    assert (cfg.repeticiones, cfg.calentamiento) == (200, 20)


def test_parameters_accept_papermill_text_lists():
    cfg = anatomia.config(peldaños='["proceso", "runc"]', imagen="ubuntu", motores="[]")
    assert (cfg.peldaños, cfg.imagen, cfg.motores) == (["proceso", "runc"], "ubuntu", [])


def test_namespace_rungs_add_one_namespace_each():
    argvs = [anatomia_rungs.namespace_argv(key, without_root=False) for key, _, _ in NAMESPACES]
    assert argvs[0] == ["unshare", "-m", "echo", "ok"]
    assert argvs[3] == ["unshare", "-m", "-u", "-i", "-p", "-f", "echo", "ok"]
    for shorter, longer in zip(argvs, argvs[1:]):
        assert longer[: len(shorter) - 2] == shorter[:-2] and len(longer) > len(shorter)
    assert argvs[-1][-4:] == ["-U", "-C", "echo", "ok"]
    # without root, each rung runs inside a user namespace of its own (unshare -r)
    rootless = [anatomia_rungs.namespace_argv(key, without_root=True) for key, _, _ in NAMESPACES]
    assert rootless[0] == ["unshare", "-r", "-m", "echo", "ok"]
    assert [a[2:] for a in rootless] == [a[1:] for a in argvs]


def test_without_root_chroot_runs_in_a_user_namespace(tmp_path, monkeypatch):
    monkeypatch.setattr(rungs, "rootless", lambda: True)
    setup = rungs.Setup("RUNID", rootfs=tmp_path)
    assert rungs.bare_argv(Arm("bare", "chroot"), setup, 1) == [
        "unshare",
        "-r",
        "chroot",
        str(tmp_path),
        "echo",
        "ok",
    ]
    assert rungs.bare_argv(Arm("bare", "ns_mount"), setup, 1)[:3] == ["unshare", "-r", "-m"]
    assert "espacios" not in anatomia.NEEDS_ROOT and "chroot" not in anatomia.NEEDS_ROOT


def test_plan_follows_the_ladder_and_the_chosen_groups():
    arms = anatomia_rungs.plan(
        ["pool", "proceso", "motor", "runc"], ["docker", "podman"], {"docker": "img-d", "podman": "img-p"}
    )
    keys = [(a.engine, a.variant) for a in arms]
    assert keys == [
        ("bare", "proceso"),
        ("bare", "runc_sin_netns"),
        ("bare", "runc_con_netns"),
        ("bare", "runc_overlay"),
        ("docker", "run_sin_red"),
        ("docker", "run_red"),
        ("docker", "pool"),
        ("docker", "pool_exec"),
        ("podman", "run_sin_red"),
        ("podman", "run_red"),
        ("podman", "pool"),
        ("podman", "pool_exec"),
    ]
    assert all(a.image == "img-p" for a in arms if a.engine == "podman")
    assert all(isinstance(a, Arm) for a in arms)
    assert arms[0].label == "proceso (echo ok)"
    assert arms[4].label == "Docker: run --network none"


def test_bare_argv_for_each_rung(tmp_path, monkeypatch):
    monkeypatch.setattr(rungs, "rootless", lambda: False)
    setup = rungs.Setup("RUNID", rootfs=tmp_path)
    assert rungs.bare_argv(Arm("bare", "proceso"), setup, 1) == ["echo", "ok"]
    assert rungs.bare_argv(Arm("bare", "chroot"), setup, 1) == ["chroot", str(tmp_path), "echo", "ok"]
    assert rungs.bare_argv(Arm("bare", "ns_red"), setup, 1) == [
        "unshare",
        "-m",
        "-u",
        "-i",
        "-p",
        "-f",
        "-n",
        "echo",
        "ok",
    ]
    with pytest.raises(KeyError):
        rungs.bare_argv(Arm("bare", "otro"), setup, 1)


# ---------------------------------------------------------------- analysis on synthetic rows
def _rows(engine, variant, values, metric=METRIC):
    return [
        {
            "experiment": "anatomia",
            "engine": engine,
            "image": "",
            "variant": variant,
            "rep": i + 1,
            "metric": metric,
            "value": float(v),
            "unit": "ms",
        }
        for i, v in enumerate(values)
    ]


def _synthetic(n=20, seed=5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def noisy(center):
        return center * rng.normal(1, 0.02, n)

    rows = _rows("bare", "proceso", noisy(1.0))
    for i, (key, _, _) in enumerate(NAMESPACES):
        rows += _rows("bare", key, noisy(2.0 + i))
    rows += _rows("bare", "runc_sin_netns", noisy(25)) + _rows("bare", "runc_con_netns", noisy(28))
    rows += _rows("bare", "runc_overlay", noisy(40))
    for engine, none, net in (("docker", 250, 340), ("podman", 230, 400)):
        rows += _rows(engine, "run_sin_red", noisy(none)) + _rows(engine, "run_red", noisy(net))
        rows += _rows(engine, "pool", noisy(300)) + _rows(engine, "pool_exec", noisy(60))
        for metric, center in (
            ("fase_crear", 40),
            ("fase_iniciar", 200),
            ("fase_esperar", 5),
            ("fase_borrar", 30),
        ):
            rows += _rows(engine, "fases", noisy(center), metric)
    return pd.DataFrame(rows)


def test_summary_orders_the_ladder_and_flags_nothing_stable():
    s = summarize(_synthetic())
    ladder = s[s["metric"] == METRIC]
    assert list(ladder["variant"][:2]) == ["proceso", "ns_mount"]
    assert ladder.iloc[0]["x_proceso"] == pytest.approx(1, rel=0.05)
    assert not s["inestable"].any()
    assert set(s[s["variant"] == "fases"]["metric"]) == {m for m, _ in PHASES}


def test_waterfall_parts_add_up_to_the_run_and_are_marked_inferred():
    df = _synthetic()
    for engine in ("docker", "podman"):
        w = waterfall(df, engine)
        total = np.median(df[(df["engine"] == engine) & (df["variant"] == "run_red")]["value"])
        assert run_median(df, engine) == pytest.approx(total)
        # each part is a median over rounds: together they make the run's median only roughly
        assert w["ms"].sum() == pytest.approx(total, rel=0.03)
        assert w["fraccion"].sum() == pytest.approx(1, rel=0.03)
        assert list(w["inferido"]) == [False, True, True, True, True, True]
        assert list(w["parte"]) == ["proceso", "espacios", "runtime", "almacenamiento", "motor", "red"]
        assert (w["ic_bajo_ms"] <= w["ms"]).all() and (w["ms"] <= w["ic_alto_ms"]).all()
    red = waterfall(df, "podman").set_index("parte").loc["red"]
    assert red["ms"] == pytest.approx(170, rel=0.1)


def test_waterfall_without_the_overlay_rung_keeps_storage_in_the_engine():
    df = _synthetic()
    df = df[df["variant"] != "runc_overlay"]
    w = waterfall(df, "docker")
    assert list(w["parte"]) == ["proceso", "espacios", "runtime", "motor", "red"]
    total = np.median(df[(df["engine"] == "docker") & (df["variant"] == "run_red")]["value"])
    assert w["ms"].sum() == pytest.approx(total, rel=0.03)


def test_one_network_share_for_the_waterfall_the_verdict_and_the_pages_that_cite_it():
    """The network's share of a launch is decided in one place (network_costs, round by round): the
    waterfall's «red» part, the claim «red_grande» and the closing row give the same figure, even on
    noisy rounds where the difference of medians would give another."""
    rng = np.random.default_rng(11)
    df = _synthetic()
    drift = rng.normal(0, 40, 20)  # a shared drift per round: paired and unpaired figures part ways
    for variant in ("run_red", "run_sin_red"):
        sel = (df["engine"] == "docker") & (df["variant"] == variant)
        df.loc[sel, "value"] = df.loc[sel, "value"].to_numpy() + drift + rng.normal(0, 25, 20)
    costs = network_costs(df)["docker"]
    red = waterfall(df, "docker").set_index("parte").loc["red"]
    assert (red["ms"], red["fraccion"]) == (costs["red_ms"], costs["fraccion"])
    assert (red["fraccion_ic_bajo"], red["fraccion_ic_alto"]) == costs["fraccion_ic"]
    claim = _by_key(anatomia.claims(df, {}))[("red_grande", "docker", None)]
    assert claim.value == pytest.approx(100 * red["fraccion"])
    assert (claim.low, claim.high) == pytest.approx(
        (100 * red["fraccion_ic_bajo"], 100 * red["fraccion_ic_alto"])
    )
    closing = anatomia.closing_rows(df)
    row = closing[(closing["entorno"] == "Docker") & closing["concepto"].str.startswith("la red")]
    assert row["valor"].iloc[0] == costs["red_ms"]


def test_network_share_reads_a_run(tmp_path):
    res = Resultado("anatomia", _synthetic(), tmp_path, {"run_id": "r1"})
    share = network_share(res)
    assert set(share) == {"docker", "podman"}
    assert share["docker"]["red_ms"] == pytest.approx(90, rel=0.1)
    lo, hi = share["podman"]["fraccion_ic"]
    assert lo < share["podman"]["fraccion"] < hi and share["podman"]["run_id"] == "r1"
    assert network_share(Resultado("anatomia", _synthetic().iloc[:0], tmp_path, {})) == {}
    assert network_share(None) == {}


def test_engine_own_part_is_run_without_network_minus_the_waterfalls_runc_rung():
    """The engine's own part starts where the waterfall's does: `runc run` on an overlay layer when the
    run measured it (40 ms here), else `runc run` with a network namespace (28 ms)."""
    own = engine_own_parts(_synthetic())
    assert own["docker"][0] == pytest.approx(250 - 40, rel=0.05)
    assert own["podman"][0] == pytest.approx(230 - 40, rel=0.05)
    assert own["podman/docker"][0] == pytest.approx((230 - 40) / (250 - 40), rel=0.05)
    df = _synthetic()
    no_overlay = df[df["variant"] != "runc_overlay"]
    assert engine_own_parts(no_overlay)["docker"][0] == pytest.approx(250 - 28, rel=0.05)
    assert engine_own_parts(no_overlay[no_overlay["variant"] != "runc_con_netns"]) == {}


@pytest.mark.parametrize("storage", [True, False])
def test_the_engines_own_part_is_one_figure_in_the_waterfall_and_the_sentence_under_it(storage):
    """04 gives the engine's own part once: the waterfall's «motor» row, the sentence naming the largest
    part and the sentence on the engines' own parts quote the same figure and interval."""
    from helpers.view import anatomia_frases as frases

    df = _synthetic()
    df = df if storage else df[df["variant"] != "runc_overlay"]
    own = engine_own_parts(df)
    frames = [waterfall(df, e) for e in ("docker", "podman")]
    sentence = frases.own_parts_sentence(df, {})
    for engine, frame in zip(("docker", "podman"), frames):
        motor = frame.set_index("parte").loc["motor"]
        assert (motor["ms"], motor["ic_bajo_ms"], motor["ic_alto_ms"]) == own[engine][:3]
        figure = fmt_value_interval(*own[engine][:3], "ms")
        assert figure in sentence and figure in frases.waterfall_sentence(frames, {})


# ---------------------------------------------------------------- claims
def _by_key(claims):
    return {(c.key, c.detail.get("engine"), c.detail.get("variante")): c for c in claims}


def test_claims_follow_the_one_rule():
    claims = _by_key(anatomia.claims(_synthetic(), {}))
    assert len(claims) == 8
    # «is Podman faster to start?» is decided in 01 and only cited here (READS), never re-judged
    assert not any(key == "api_daemon" for key, _, _ in claims)
    assert "arranque" in anatomia.READS and not any(key == "podman_mas_rapido" for key, _, _ in claims)
    assert all(c.detail.get("rondas") for c in claims.values())  # paired by round
    assert claims[("red_grande", "podman", None)].status == "se_confirma"  # 170 of 400 ms
    assert claims[("red_grande", "docker", None)].status == "se_confirma"  # 90 of 340 ms
    assert claims[("runtime_pequeno", "docker", None)].status == "se_confirma"  # 28 of 340 ms
    assert claims[("pool_en_marcha", "docker", "pool_exec")].status == "se_confirma"  # 60 instead of 340 ms
    assert claims[("pool_creado", "podman", "pool")].status == "no_se_sostiene"  # 300 instead of 400 ms


def test_each_claim_is_judged_once_per_engine():
    """One judgement per claim and engine on the page: the two kinds of warm pool (created containers
    started with `start -a`, running ones entered with `exec`) are two claims, each with its own
    statement, never one statement judged twice with opposite verdicts."""
    claims = anatomia.claims(_synthetic(), {})
    pairs = [(c.key, c.detail.get("engine")) for c in claims]
    assert len(pairs) == len(set(pairs))
    statements = {c.key: c.statement for c in claims}
    assert len(set(statements.values())) == len(statements)


def test_shares_are_percentages_against_the_declared_margins():
    claims = _by_key(anatomia.claims(_synthetic(), {}))
    red = claims[("red_grande", "podman", None)]
    assert red.value == pytest.approx(100 * 170 / 400, rel=0.05)
    assert (red.unit, red.claimed, red.region) == ("%", 25.0, (25.0, math.inf))
    assert red.quantity.endswith(", Podman") and red.source == IDEA_SOURCE
    assert red.where
    runtime = claims[("runtime_pequeno", "docker", None)]
    assert runtime.value == pytest.approx(100 * 28 / 340, rel=0.05)
    assert (runtime.claimed, runtime.region) == (20.0, (-math.inf, 20.0))
    pool = claims[("pool_en_marcha", "docker", "pool_exec")]
    assert pool.value == pytest.approx(100 * (1 - 60 / 340), rel=0.05)
    assert pool.quantity.endswith("Docker, exec en un contenedor ya en marcha (pool caliente)")


def test_claims_name_a_rootless_engine_as_such():
    meta = {"engines": {"podman": {"rootless": True}}}
    claims = _by_key(anatomia.claims(_synthetic(), meta))
    assert claims[("red_grande", "podman", None)].quantity.endswith("Podman sin root")
    assert claims[("red_grande", "docker", None)].quantity.endswith(", Docker")


def test_claims_without_the_rungs_say_so():
    claims = anatomia.claims(pd.DataFrame(_rows("bare", "proceso", [1, 1, 1])), {})
    assert claims == []


def test_a_spread_that_dwarfs_the_median_is_unstable():
    df = _synthetic()
    wild = (df["engine"] == "docker") & (df["variant"] == "run_red")
    df.loc[wild, "value"] = [5.0, 2000.0] * (int(wild.sum()) // 2)
    claims = _by_key(anatomia.claims(df, {}))
    assert claims[("red_grande", "docker", None)].status == "inestable"
    assert claims[("red_grande", "podman", None)].status == "se_confirma"


def test_the_minimum_of_repetitions_judges_and_one_fewer_does_not():
    df = _synthetic()
    enough = anatomia.claims(df[df["rep"] <= verdict.MIN_N], {})
    fewer = anatomia.claims(df[df["rep"] < verdict.MIN_N], {})
    assert all(c.status != "sin_datos" for c in enough)
    assert {c.status for c in fewer} == {"sin_datos"}
    assert {c.more_reps for c in fewer} == {verdict.MIN_N}


# ---------------------------------------------------------------- published figures and closing rows
def test_reference_loads_and_compares_as_ratios():
    ref = reference.load("anatomia")
    assert set(ref["source"]) == {
        "crun_readme",
        "crun_readme_anterior",
        "firecracker_spec",
        "kata_checkmetrics",
        "redhat_rpi",
    }
    c = compare(_synthetic(), {}, ref)
    first = c.iloc[0]
    assert first["referencia"] == pytest.approx(11.17 / 10.95)
    assert first["tu_valor"] == pytest.approx(28 / 25, rel=0.05) and first["comparable"]
    assert c[c["fuente"] == "firecracker_spec"]["referencia"].iloc[0] == 125
    assert not c[c["fuente"] == "kata_checkmetrics"]["comparable"].any()
    assert list(c["comparable"]) == [True, False, False, False, False, False]  # Red Hat: other measure
    # each row says its figure as the source wrote it, with the numbers of its rows in the reference CSV
    said = dict(zip(c["medida"], c["como_lo_dice"]))
    assert "11.17 s" in said["runc con espacio de red / sin él"] and "10.95 s" in said[c.iloc[0]["medida"]]
    assert "3.34 s" in said["runc run de /bin/true, por contenedor"]
    assert "seis veces" in said[c.iloc[2]["medida"]] and "menos de 0.3 s" in said[c.iloc[2]["medida"]]
    assert "resumen de terceros" in said[c.iloc[2]["medida"]]  # the article itself was read only in part
    for _, row in c.iloc[3:].iterrows():
        assert f"{row['referencia'] / (1000 if row['referencia'] > 500 else 1):g}" in row["como_lo_dice"]


def test_closing_rows_are_launch_rows_with_intervals():
    rows = anatomia.closing_rows(_synthetic(), {})
    assert set(rows["tipo"]) == {"LAUNCH"}
    assert list(rows.columns) == ["concepto", "tipo", "entorno", "valor", "ic_bajo", "ic_alto", "unidad"]
    assert len(rows) == 1 + 2 * 4  # runc, then per engine: no network, two pools, the network
    assert {"runc run (sin motor)", "la red por defecto: crearla y deshacerla (diferencia inferida)"} <= set(
        rows["concepto"]
    )
    assert (rows["ic_bajo"] <= rows["valor"]).all() and (rows["valor"] <= rows["ic_alto"]).all()


# ---------------------------------------------------------------- sentences that follow the data
def _rendered(monkeypatch, fn, resultado) -> str:
    import matplotlib

    matplotlib.use("Agg")
    from helpers.view import anatomia as vista
    from helpers.view import figuras

    out: list[str] = []
    monkeypatch.setattr(vista, "markdown", lambda text: out.append(text or ""))
    monkeypatch.setattr(vista, "show", lambda obj: out.append(getattr(obj, "to_html", lambda: str(obj))()))
    monkeypatch.setattr(figuras, "display", lambda *a, **k: None)  # the charts (figuras.show_figure)
    fn(resultado)
    return "\n".join(out)


def test_the_ladder_and_waterfall_sentences_follow_the_data(tmp_path, monkeypatch):
    from helpers.view import anatomia as vista

    df = _synthetic()
    res = Resultado("anatomia", df, tmp_path, {"run_id": "r1"})
    text = _rendered(monkeypatch, vista.tabla, res)
    assert "el escalón más alto está entre «+ espacio cgroup» y «runc run, sin espacio de red»" in text
    cascade = _rendered(monkeypatch, vista.cascada, res)
    assert "En Docker, la parte que más pesa es «el motor" in cascade
    assert "En Podman, la parte que más pesa es «el motor" in cascade
    # the other way: the network grows to dominate Podman, and namespaces become the highest bare step
    other = df.copy()
    other.loc[(other["engine"] == "podman") & (other["variant"] == "run_red"), "value"] *= 3
    other.loc[(other["engine"] == "bare") & (other["variant"] == "ns_pid"), "value"] += 60
    res2 = Resultado("anatomia", other, tmp_path, {"run_id": "r2"})
    assert "entre «+ espacio IPC» y «+ espacio PID»" in _rendered(monkeypatch, vista.tabla, res2)
    assert "En Podman, la parte que más pesa es «la red por defecto" in _rendered(
        monkeypatch, vista.cascada, res2
    )
    # and every view renders (one call each: tables are shown once)
    for view in (
        vista.encabezado,
        vista.grafico,
        vista.fases,
        vista.cadena,
        vista.comparacion,
        vista.veredictos,
    ):
        _rendered(monkeypatch, view, res)


def test_the_phases_sentence_names_a_longest_phase_only_when_the_data_separate_it():
    from helpers.view import anatomia_frases as frases

    def sentence(df):
        s = summarize(df)
        return frases.phases_sentence(df, s[s["variant"] == "fases"], {})

    df = _synthetic()
    assert "- Docker: la fase más larga es «iniciar»" in sentence(df)
    close = df.copy()  # «crear» as long as «iniciar»: their intervals overlap
    sel = (close["engine"] == "docker") & (close["metric"] == "fase_crear")
    close.loc[sel, "value"] = close.loc[sel, "value"] * 5
    text = sentence(close)
    assert "Docker: por la mediana" in text and "no se distingue cuál pesa más" in text
    split = df.copy()  # «esperar» in two clusters, 85 and 280 ms, like Podman's on a loaded machine
    sel = (split["engine"] == "podman") & (split["metric"] == "fase_esperar")
    split.loc[sel, "value"] = np.where(np.arange(sel.sum()) % 5 < 2, 85.0, 280.0)
    text = sentence(split)
    assert "Podman: la mediana más alta es la de «esperar»" in text and "inestable" in text
    assert "la fase más larga es «esperar»" not in text


def test_which_phase_is_longer_is_decided_round_by_round_not_by_overlapping_intervals():
    """Two phases that every round orders the same way, on a machine whose speed drifts ±30 % from
    round to round: their medians' intervals overlap, and the paired difference (phase_gap) still says
    which one is longer; the same two phases drawn independently of the round say nothing."""
    from helpers.experiments.anatomia.analysis import phase_gap
    from helpers.view import anatomia_frases as frases

    rng = np.random.default_rng(11)
    drift = rng.uniform(0.7, 1.3, 20)  # the round's speed, shared by its phases

    def with_phases(crear, iniciar):
        df = _synthetic()
        for metric, values in (("fase_crear", crear), ("fase_iniciar", iniciar)):
            sel = (df["engine"] == "docker") & (df["metric"] == metric)
            df.loc[sel, "value"] = values
        return df

    paired = with_phases(180 * drift, 200 * drift * rng.normal(1, 0.01, 20))
    s = summarize(paired)
    rows = s[(s["variant"] == "fases") & (s["engine"] == "docker")].set_index("metric")
    crear, iniciar = rows.loc["fase_crear"], rows.loc["fase_iniciar"]
    assert iniciar["ic_bajo_ms"] <= crear["ic_alto_ms"]  # the two intervals overlap
    gap = phase_gap(paired, "docker", "fase_iniciar", "fase_crear")
    assert gap.low > 0  # every round: «iniciar» is longer
    assert "- Docker: la fase más larga es «iniciar»" in frases.phases_sentence(
        paired, s[s["variant"] == "fases"], {}
    )

    apart = with_phases(180 * rng.permutation(drift), 200 * drift)  # the same spread, not tied to the round
    s = summarize(apart)
    text = frases.phases_sentence(apart, s[s["variant"] == "fases"], {})
    assert "Docker: por la mediana, la fase más larga es «iniciar»" in text
    assert "ronda a ronda dura" in text and "no se distingue cuál pesa más" in text


def test_the_phases_sentence_gives_the_tables_total_never_a_second_one():
    """The table's «total (suma)» is the median of each round's sum; the sentence below it uses that
    same figure (it printed the sum of the medians: 296.1 ms under a table that said 296.0)."""
    from helpers.view import anatomia_frases as frases
    from helpers.view.common import fmt

    df = _synthetic()
    per_round = df[df["variant"] == "fases"].groupby(["engine", "rep"], as_index=False)["value"].sum()
    totals = [
        {
            **row,
            "variant": "fases",
            "metric": anatomia.phases.PHASE_TOTAL,
            "experiment": "anatomia",
            "image": "",
            "unit": "ms",
        }
        for row in per_round.to_dict("records")
    ]  # as phases.measure_phases records it: each round's sum
    rows = pd.concat([df, pd.DataFrame(totals)], ignore_index=True)
    s = summarize(rows)
    phases = s[s["variant"] == "fases"]
    text = frases.phases_sentence(rows, phases, {})
    for engine in ("docker", "podman"):
        rows = phases[phases["engine"] == engine].set_index("metric")
        total = rows.loc[anatomia.phases.PHASE_TOTAL, "mediana_ms"]
        assert total != pytest.approx(rows.drop(anatomia.phases.PHASE_TOTAL)["mediana_ms"].sum(), abs=0.05)
        assert f"de {fmt(total, 1, 'ms')}" in text


def test_the_chain_sentence_says_what_happens_after_the_echo():
    from helpers.view import anatomia_frases as frases

    def chain(after: int) -> pd.DataFrame:
        rows = [("podman", 1, 0, "podman", "podman run", 0.0, 1.0, 300.0, np.nan)]
        rows.append(("podman", 2, 1, "echo", "echo ok", 100.0, 110.0, 130.0, np.nan))
        rows += [
            ("podman", 10 + i, 1, "iptables", "iptables -D", 150.0 + i, 151.0 + i, 152.0 + i, np.nan)
            for i in range(after)
        ]
        return pd.DataFrame(rows, columns=anatomia.chain.CHAIN_COLUMNS)

    busy = chain_split(chain(36), "podman", 339.0)
    assert busy["red"] == {}
    with_net = chain(36)
    with_net.loc[len(with_net)] = [
        "podman",
        90,
        1,
        "netavark",
        "netavark --config x setup /run/netns/a",
        20.0,
        21.0,
        60.0,
        np.nan,
    ]
    with_net.loc[len(with_net)] = [
        "podman",
        91,
        1,
        "netavark",
        "netavark --config x teardown /run/netns/a",
        140.0,
        141.0,
        290.0,
        np.nan,
    ]
    split = chain_split(with_net, "podman", 339.0)
    assert split["red"] == {"setup": 40.0, "teardown": 150.0}
    text = frases.chain_sentence(split, "podman", {})
    assert "el proceso netavark duró 40 ms al crear la red (`setup`) y 150 ms al deshacerla" in text
    assert "lo decide la cascada" not in text  # nothing to cite without the waterfall's figure
    cost = network_costs(_synthetic())["podman"]
    text = frases.chain_sentence(split, "podman", {}, cost)
    assert f"lo decide la cascada, con todas las rondas: {round(cost['red_ms'])} ms [" in text
    assert "] ms," not in text and "% [" in text  # one unit per figure, the share with its IC
    assert busy["echo_ms"] == 130 and busy["despues"] == {"iptables": 36}
    text = frases.chain_sentence(busy, "podman", {})
    assert "terminó a los 130 ms y el CLI volvió a los 339 ms: 209 ms" in text and "iptables ×36" in text
    quiet = frases.chain_sentence(chain_split(chain(0), "podman", 140.0), "podman", {})
    assert "10 ms" in quiet and "sin que arrancara ningún proceso nuevo" in quiet
    assert chain_split(chain(0).iloc[:1], "podman") == {}


def test_the_podman_wait_phase_is_labelled_with_what_it_holds():
    note = PHASE_INCLUDES[("podman", "fase_esperar")]
    assert "cerrojo" in note and "--interval 10ms" in note and "container cleanup" in note


def test_the_overlay_rung_times_syscalls_and_leaves_rmtree_out(tmp_path, monkeypatch):
    """mount(2), the runtime and umount2(2) inside the window; the layer's preparation and rmtree out."""
    calls = []
    clock = iter(range(0, 10**9, 10**6))
    monkeypatch.setattr(rungs.time, "perf_counter_ns", lambda: (calls.append("t"), next(clock))[1])
    monkeypatch.setattr(rungs.oci, "fresh_layer", lambda base: calls.append("preparar"))
    monkeypatch.setattr(rungs.oci, "mount_layer", lambda lower, base: calls.append("mount(2)"))
    monkeypatch.setattr(rungs.oci, "umount_layer", lambda base: calls.append("umount2(2)"))
    monkeypatch.setattr(rungs.oci, "clear_layer", lambda base: calls.append("rmtree"))
    monkeypatch.setattr(rungs.measure, "time_command", lambda argv: calls.append("runc"))
    rungs.measure_overlay_run(rungs.Setup("R", rootfs=tmp_path, overlay=tmp_path / "o"), ["runc"])
    assert calls == ["preparar", "t", "mount(2)", "runc", "umount2(2)", "t", "rmtree"]


def test_the_answer_of_01_is_cited_not_judged_again(monkeypatch):
    """«Is Podman faster to start?» comes from 01 (read_claim, declared in READS), both ways."""
    from helpers import experiments
    from helpers.view import anatomia_frases as frases

    asked = []

    def fake(reader, experiment, key, root=None, **detail):
        asked.append((reader.__name__, experiment, key, detail))
        said = verdict.Said(
            key, "Podman arranca con menos sobrecarga", "el capítulo original", kind="reduces"
        )
        value = fake.value
        return verdict.judge(said, Estimate(value, value * 0.95, value * 1.05, 8), detail=detail)

    monkeypatch.setattr(experiments, "read_claim", fake)
    fake.value = 0.6
    faster = frases.answer_of_01(
        Resultado("anatomia", _synthetic(), ".", {"parameters": {"imagen": "alpine"}})
    )
    assert asked[0] == ("helpers.experiments.anatomia", "arranque", "podman_mas_rapido", {"role": "alpine"})
    assert "se confirma" in faster and "Aquí no se vuelve a juzgar" in faster
    assert "con «alpine», sí: Podman tarda 0.60×" in faster  # 01's answer in 01's words
    # this notebook's own run (Podman 400 ms, Docker 340 ms here) is set beside 01's answer, with its
    # conditions, and says whether it points the same way
    assert "el mismo `run` con la red por defecto e imagen «alpine»" in faster
    assert "la dirección contraria a la del cuaderno 01" in faster
    fake.value = 1.3
    slower = frases.answer_of_01(Resultado("anatomia", _synthetic(), ".", {}))
    assert "no se sostiene" in slower and "la misma dirección que en el cuaderno 01" in slower
    assert re.search(r"Podman/Docker = 1\.1\d× \[", slower)
    assert "Aquí no se vuelve a juzgar." in frases.answer_of_01(None)
    monkeypatch.setattr(experiments, "read_claim", lambda *a, **k: None)
    assert frases.answer_of_01(None) == ""


def test_the_largest_part_is_named_only_when_its_interval_separates_it():
    top, rival, separated = largest_part(waterfall(_synthetic(), "docker"))
    assert (top["parte"], rival["parte"], separated) == ("motor", "red", True)  # ~62 % vs ~26 %
    df = _synthetic()
    rng = np.random.default_rng(2)
    sel = (df["engine"] == "podman") & (df["variant"] == "run_sin_red")
    df.loc[sel, "value"] = 220 * rng.normal(1, 0.1, sel.sum())  # engine ~180 ms, network ~180 ms
    top, rival, separated = largest_part(waterfall(df, "podman"))
    assert {top["parte"], rival["parte"]} == {"motor", "red"} and not separated
    assert largest_part(waterfall(df.iloc[:0], "docker")) == (None, None, False)


def test_the_rows_of_the_rounds_change_no_claim_and_no_closing_row(tmp_path):
    """The machine's load per round and each arm's position (runner.measure_rounds) are not measurements."""
    assert_round_rows_change_nothing(anatomia, _synthetic(), {}, tmp_path / "rondas")


def test_the_ladder_and_the_waterfall_write_their_figures_as_their_intervals_allow(tmp_path, monkeypatch):
    """«343 [306, 441]», never «343.22 [305.94, 440.54]»; a part with no figure is «—», never «— —»."""
    from helpers.view import anatomia as vista
    from tests.course.test_revision_curso import page_problems

    df = _synthetic(n=6)
    df["value"] *= np.random.default_rng(1).lognormal(0, 0.2, len(df))  # a loaded machine: wide ICs
    res = Resultado("anatomia", df, tmp_path, {"run_id": "r1"})
    for view in (vista.tabla, vista.cascada):
        text = _rendered(monkeypatch, view, res)
        assert page_problems(text) == [], (view.__name__, page_problems(text))
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", text)
        assert not [c for c in cells if re.search(r"\d{3}\.\d", c)], (view.__name__, cells)
    quick = Resultado("anatomia", df[~df["variant"].str.startswith("ns_")], tmp_path, {"run_id": "r2"})
    text = _rendered(monkeypatch, vista.cascada, quick)  # the quick profile: no namespace rungs
    assert "<td>—</td>" in text.replace(" ", "") or "—" in text
    assert page_problems(text) == [], page_problems(text)
