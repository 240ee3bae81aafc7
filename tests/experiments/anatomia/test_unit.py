"""Experiment 4 (anatomy of LAUNCH) without engines: parameters, the plan, the summary, the waterfall, the
network's share, the claims, the published figures and the closing rows, on synthetic rows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from helpers import reference
from helpers.errors import ParametroInvalido
from helpers.experiments import anatomia, verdict
from helpers.experiments.anatomia import rungs
from helpers.experiments.runner import Arm, Resultado


# ---------------------------------------------------------------- parameters and plan
@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"peldanos": ["proceso", "escalera"]}, "PELDANOS"),
        ({"peldanos": []}, "PELDANOS"),
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
    assert controls["peldanos"]["options"] == list(anatomia.GROUPS)
    cfg = anatomia.config(repeticiones=200, calentamiento=20)
    assert (cfg.repeticiones, cfg.calentamiento) == (200, 20)


def test_parameters_accept_papermill_text_lists():
    cfg = anatomia.config(peldanos='["proceso", "runc"]', imagen="ubuntu", motores="[]")
    assert (cfg.peldanos, cfg.imagen, cfg.motores) == (["proceso", "runc"], "ubuntu", [])


def test_namespace_rungs_add_one_namespace_each():
    argvs = [anatomia.namespace_argv(key) for key, _, _ in anatomia.NAMESPACES]
    assert argvs[0] == ["unshare", "-m", "echo", "ok"]
    assert argvs[3] == ["unshare", "-m", "-u", "-i", "-p", "-f", "echo", "ok"]
    for shorter, longer in zip(argvs, argvs[1:]):
        assert longer[: len(shorter) - 2] == shorter[:-2] and len(longer) > len(shorter)
    assert argvs[-1][-4:] == ["-U", "-C", "echo", "ok"]


def test_plan_follows_the_ladder_and_the_chosen_groups():
    arms = anatomia.plan(
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


def test_bare_argv_for_each_rung(tmp_path):
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
def _rows(engine, variant, values, metric=anatomia.METRIC):
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
    for i, (key, _, _) in enumerate(anatomia.NAMESPACES):
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
    s = anatomia.summarize(_synthetic())
    ladder = s[s["metric"] == anatomia.METRIC]
    assert list(ladder["variant"][:2]) == ["proceso", "ns_mount"]
    assert ladder.iloc[0]["x_proceso"] == pytest.approx(1, rel=0.05)
    assert not s["inestable"].any()
    assert set(s[s["variant"] == "fases"]["metric"]) == {m for m, _ in anatomia.PHASES}


def test_waterfall_parts_add_up_to_the_run_and_are_marked_inferred():
    df = _synthetic()
    for engine in ("docker", "podman"):
        w = anatomia.waterfall(df, engine)
        total = np.median(df[(df["engine"] == engine) & (df["variant"] == "run_red")]["value"])
        assert w["ms"].sum() == pytest.approx(total)
        assert w["fraccion"].sum() == pytest.approx(1)
        assert list(w["inferido"]) == [False, True, True, True, True, True]
        assert list(w["parte"]) == ["proceso", "espacios", "runtime", "almacenamiento", "motor", "red"]
        assert (w["ic_bajo_ms"] <= w["ms"]).all() and (w["ms"] <= w["ic_alto_ms"]).all()
    red = anatomia.waterfall(df, "podman").set_index("parte").loc["red"]
    assert red["ms"] == pytest.approx(170, rel=0.1)


def test_waterfall_without_the_overlay_rung_keeps_storage_in_the_engine():
    df = _synthetic()
    df = df[df["variant"] != "runc_overlay"]
    w = anatomia.waterfall(df, "docker")
    assert list(w["parte"]) == ["proceso", "espacios", "runtime", "motor", "red"]
    total = np.median(df[(df["engine"] == "docker") & (df["variant"] == "run_red")]["value"])
    assert w["ms"].sum() == pytest.approx(total)


def test_network_share_reads_a_run(tmp_path):
    res = Resultado("anatomia", _synthetic(), tmp_path, {"run_id": "r1"})
    share = anatomia.network_share(res)
    assert set(share) == {"docker", "podman"}
    assert share["docker"]["red_ms"] == pytest.approx(90, rel=0.1)
    lo, hi = share["podman"]["fraccion_ic"]
    assert lo < share["podman"]["fraccion"] < hi and share["podman"]["run_id"] == "r1"
    assert anatomia.network_share(Resultado("anatomia", _synthetic().iloc[:0], tmp_path, {})) == {}
    assert anatomia.network_share(None) == {}


def test_engine_own_part_is_run_without_network_minus_runc():
    own = anatomia.engine_own_part(_synthetic())
    assert own["docker"] == pytest.approx(250 - 28, rel=0.05)
    assert own["podman"] == pytest.approx(230 - 28, rel=0.05)
    df = _synthetic()
    assert anatomia.engine_own_part(df[df["variant"] != "runc_con_netns"]) == {}


# ---------------------------------------------------------------- claims
def _by_key(claims):
    return {(c.key, c.detail.get("engine"), c.detail.get("variante")): c for c in claims}


def test_claims_follow_the_one_rule():
    claims = _by_key(anatomia.claims(_synthetic(), {}))
    assert len(claims) == 9
    # Podman's own engine part (~202 ms) is not "eliminated" next to Docker's (~222 ms).
    api = claims[("api_daemon", None, None)]
    assert api.status == "no_se_sostiene" and api.source == "el capítulo original"
    assert api.value == pytest.approx(202 / 222, rel=0.05) and api.unit == "x"
    assert (api.claimed, api.region) == (0.5, (-math.inf, 0.5))
    assert claims[("red_grande", "podman", None)].status == "se_confirma"  # 170 of 400 ms
    assert claims[("red_grande", "docker", None)].status == "se_confirma"  # 90 of 340 ms
    assert claims[("runtime_pequeno", "docker", None)].status == "se_confirma"  # 28 of 340 ms
    assert claims[("pool", "docker", "pool_exec")].status == "se_confirma"  # 60 instead of 340 ms
    assert claims[("pool", "podman", "pool")].status == "no_se_sostiene"  # 300 instead of 400 ms


def test_shares_are_percentages_against_the_declared_margins():
    claims = _by_key(anatomia.claims(_synthetic(), {}))
    red = claims[("red_grande", "podman", None)]
    assert red.value == pytest.approx(100 * 170 / 400, rel=0.05)
    assert (red.unit, red.claimed, red.region) == ("%", 25.0, (25.0, math.inf))
    assert red.where == "Podman" and red.source == "idea extendida"
    runtime = claims[("runtime_pequeno", "docker", None)]
    assert runtime.value == pytest.approx(100 * 28 / 340, rel=0.05)
    assert (runtime.claimed, runtime.region) == (20.0, (-math.inf, 20.0))
    pool = claims[("pool", "docker", "pool_exec")]
    assert pool.value == pytest.approx(100 * (1 - 60 / 340), rel=0.05)
    assert pool.where == "Docker, exec en un contenedor ya en marcha (pool caliente)"


def test_claims_name_a_rootless_engine_as_such():
    meta = {"engines": {"podman": {"rootless": True}}}
    claims = _by_key(anatomia.claims(_synthetic(), meta))
    assert claims[("red_grande", "podman", None)].where == "Podman sin root"
    assert claims[("red_grande", "docker", None)].where == "Docker"


def test_claims_without_the_rungs_say_so():
    claims = anatomia.claims(pd.DataFrame(_rows("bare", "proceso", [1, 1, 1])), {})
    assert [(c.key, c.status) for c in claims] == [("api_daemon", "sin_datos")]
    assert "Faltan peldaños" in claims[0].note


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
    c = anatomia.compare(_synthetic(), {}, ref)
    first = c.iloc[0]
    assert first["referencia"] == pytest.approx(11.17 / 10.95)
    assert first["tu_valor"] == pytest.approx(28 / 25, rel=0.05) and first["comparable"]
    assert c[c["fuente"] == "firecracker_spec"]["referencia"].iloc[0] == 125
    assert not c[c["fuente"] == "kata_checkmetrics"]["comparable"].any()
    assert list(c["comparable"]) == [True, False, True, False, False, False]


def test_closing_rows_are_launch_rows_with_intervals():
    rows = anatomia.closing_rows(_synthetic(), {})
    assert set(rows["tipo"]) == {"LAUNCH"}
    assert list(rows.columns) == ["concepto", "tipo", "entorno", "valor", "ic_bajo", "ic_alto", "unidad"]
    assert len(rows) == 1 + 2 * 4  # runc, then per engine: no network, two pools, the network
    assert {"runc run (sin motor)", "configurar la red (diferencia inferida)"} <= set(rows["concepto"])
    assert (rows["ic_bajo"] <= rows["valor"]).all() and (rows["valor"] <= rows["ic_alto"]).all()
