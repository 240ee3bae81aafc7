"""Experiment 4 (anatomy of LAUNCH) without engines: parameters, the plan, statistics of differences,
the proc connector's parser and chain, the waterfall, the claims and the reference."""

from __future__ import annotations

import struct

import numpy as np
import pandas as pd
import pytest

from helpers import measure, proc_events, reference
from helpers.errors import ParametroInvalido
from helpers.experiments import anatomia
from helpers.experiments.base import Arm, Resultado


# ---------------------------------------------------------------- parameters and plan
@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"peldanos": ["proceso", "escalera"]}, "PELDANOS"),
        ({"peldanos": []}, "PELDANOS"),
        ({"imagen": "fedora"}, "IMAGEN"),
        ({"imagen": ["alpine", "ubuntu"]}, "una sola imagen"),
        ({"motores": ["lxc"]}, "MOTORES"),
        ({"repeticiones": 0}, "REPETICIONES"),
        ({"calentamiento": -1}, "CALENTAMIENTO"),
    ],
)
def test_bad_parameters_raise_spanish_error_before_anything(params, fragment, results_tmp):
    with pytest.raises(ParametroInvalido, match=fragment):
        anatomia.config(**params)
    assert not results_tmp.exists()  # nothing was launched, no run folder


def test_parameters_accept_papermill_text_lists():
    cfg = anatomia.config(peldanos='["proceso", "runc"]', imagen='["ubuntu"]', motores="[]")
    assert (cfg.peldanos, cfg.imagen, cfg.motores) == (["proceso", "runc"], "ubuntu", [])


def test_namespace_rungs_add_one_namespace_each():
    argvs = [anatomia.namespace_argv(key) for key, _, _ in anatomia.NAMESPACES]
    assert argvs[0] == ["unshare", "-m", "echo", "ok"]
    assert argvs[3] == ["unshare", "-m", "-u", "-i", "-p", "-f", "echo", "ok"]
    for shorter, longer in zip(argvs, argvs[1:]):
        assert longer[: len(shorter) - 2] == shorter[:-2] and len(longer) > len(shorter)
    assert argvs[-1][-4:] == ["-U", "-C", "echo", "ok"]


def test_plan_follows_the_ladder_and_the_chosen_groups():
    cfg = anatomia.config(peldanos=["pool", "proceso", "motor", "runc"], motores=["docker", "podman"])
    arms = anatomia.plan(cfg, ["docker", "podman"], {"docker": "img-d", "podman": "img-p"})
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
    assert all(a.label for a in arms)


# ---------------------------------------------------------------- statistics of differences
def test_bootstrap_difference_and_share_of_medians():
    rng = np.random.default_rng(3)
    a, b = rng.normal(300, 5, 40), rng.normal(200, 5, 40)
    diff, lo, hi = measure.bootstrap_diff_ci(a, b)
    assert diff == pytest.approx(np.median(a) - np.median(b))
    assert lo < diff < hi and 90 < lo and hi < 110
    assert measure.bootstrap_diff_ci(a, b) == (diff, lo, hi)  # seeded, reproducible
    share, slo, shi = measure.bootstrap_medians_ci(lambda x, y: (x - y) / x, a, b)
    assert share == pytest.approx((np.median(a) - np.median(b)) / np.median(a))
    assert slo < share < shi


def test_bootstrap_of_medians_says_nan_without_data():
    assert all(np.isnan(v) for v in measure.bootstrap_diff_ci([], [1.0, 2.0]))
    value, lo, hi = measure.bootstrap_medians_ci(lambda x, y: x / y, [1.0, 2.0], [0.0, 0.0])
    assert np.isnan(lo) and np.isnan(hi)


# ---------------------------------------------------------------- proc connector
def _datagram(what: int, ts: int, body: bytes) -> bytes:
    event = struct.pack("=IIQ", what, 0, ts) + body
    cn = struct.pack("=IIIIHH", 1, 1, 0, 0, len(event), 0) + event
    return struct.pack("=IHHII", 16 + len(cn), 3, 0, 0, 0) + cn


def test_parser_reads_fork_exec_exit_and_ignores_threads():
    fork = _datagram(proc_events.PROC_EVENT_FORK, 10, struct.pack("=IIII", 100, 100, 200, 200))
    thread = _datagram(proc_events.PROC_EVENT_FORK, 11, struct.pack("=IIII", 100, 100, 201, 100))
    exec_ = _datagram(proc_events.PROC_EVENT_EXEC, 12, struct.pack("=II", 200, 200))
    exit_ = _datagram(proc_events.PROC_EVENT_EXIT, 13, struct.pack("=IIII", 200, 200, 0, 17))
    events = [e for d in (fork, thread, exec_, exit_) for e in proc_events.parse(d)]
    assert [(e.kind, e.pid, e.ppid, e.ts_ns) for e in events] == [
        ("fork", 200, 100, 10),
        ("exec", 200, 0, 12),
        ("exit", 200, 0, 13),
    ]


def test_chain_keeps_descendants_and_processes_naming_the_container():
    E = proc_events.Event
    ms = 1_000_000
    events = [
        E("fork", 1 * ms, 50, ppid=1),
        E("exec", 1 * ms, 50, cmdline="docker run img"),
        E("fork", 2 * ms, 60, ppid=900),
        E("exec", 2 * ms, 60, cmdline="containerd-shim -id abc123 start"),
        E("fork", 3 * ms, 61, ppid=60),
        E("exec", 3 * ms, 61, cmdline="runc create abc123"),
        E("fork", 4 * ms, 62, ppid=61),
        E("exec", 5 * ms, 62, cmdline="echo ok"),
        E("exit", 6 * ms, 62),
        E("fork", 4 * ms, 70, ppid=900),
        E("exec", 4 * ms, 70, cmdline="containerd-shim -id other start"),
        E("exit", 9 * ms, 50),
    ]
    events += [E("fork", 7 * ms, 63, ppid=61), E("exec", 8 * ms, 63, cmdline=""), E("exit", 8 * ms, 63)]
    cap = proc_events.Capture(50, 0, 9 * ms, 0, events, {900: "containerd"}, False)
    chain = proc_events.chain(cap, markers=["abc123"])
    assert [p.pid for p in chain] == [50, 60, 61, 62, 63]
    assert chain[-1].name == proc_events.CONTAINER_PROCESS  # exec'd by runc, gone before it was read
    echo = chain[-2]
    assert (echo.name, echo.start_ms, echo.end_ms, echo.execs) == ("echo", 4.0, 6.0, [(5.0, "echo")])
    assert chain[0].end_ms == 9.0 and chain[1].name == "containerd-shim"


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


def test_claims_follow_the_one_rule():
    claims = {
        (c.key, c.detail.get("engine"), c.detail.get("variante")): c for c in anatomia.claims(_synthetic())
    }
    # Podman's own engine part (~200 ms) is not "eliminated" next to Docker's (~222 ms).
    assert claims[("api_daemon", None, None)].status == "no_se_sostiene"
    assert claims[("api_daemon", None, None)].source == "el capítulo original"
    assert claims[("red_grande", "podman", None)].status == "se_confirma"  # 170 of 400 ms
    assert claims[("red_grande", "docker", None)].status == "se_confirma"  # 90 of 340 ms
    assert claims[("runtime_pequeno", "docker", None)].status == "se_confirma"  # 28 of 340 ms
    assert claims[("pool", "docker", "pool_exec")].status == "se_confirma"  # 60 instead of 340 ms
    assert claims[("pool", "podman", "pool")].status == "no_se_sostiene"  # 300 instead of 400 ms


def test_claims_without_the_rungs_say_so():
    df = pd.DataFrame(_rows("bare", "proceso", [1, 1, 1]))
    claims = anatomia.claims(df)
    assert [c.status for c in claims] == ["sin_datos"]


def test_network_share_reads_a_run(tmp_path):
    res = Resultado("anatomia", _synthetic(), tmp_path, {"run_id": "r1"})
    share = anatomia.network_share(res)
    assert set(share) == {"docker", "podman"}
    assert share["docker"]["red_ms"] == pytest.approx(90, rel=0.1)
    lo, hi = share["podman"]["fraccion_ic"]
    assert lo < share["podman"]["fraccion"] < hi and share["podman"]["run_id"] == "r1"
    assert anatomia.network_share(Resultado("anatomia", _synthetic().iloc[:0], tmp_path, {})) == {}


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


def test_closing_rows_are_launch_rows_with_intervals():
    rows = anatomia.closing_rows(_synthetic(), {})
    assert set(rows["tipo"]) == {"LAUNCH"}
    assert {"runc run (sin motor)", "configurar la red (diferencia inferida)"} <= set(rows["concepto"])
    assert (rows["ic_bajo"] <= rows["valor"]).all() and (rows["valor"] <= rows["ic_alto"]).all()


def test_bare_argv_for_each_rung(tmp_path):
    setup = anatomia.Setup("RUNID", rootfs=tmp_path)
    assert anatomia.bare_argv(Arm("bare", "proceso"), setup, 1) == ["echo", "ok"]
    assert anatomia.bare_argv(Arm("bare", "chroot"), setup, 1) == ["chroot", str(tmp_path), "echo", "ok"]
    assert anatomia.bare_argv(Arm("bare", "ns_red"), setup, 1)[:2] == ["unshare", "-m"]


def test_engine_verbs_for_the_phases():
    from helpers import engines as eng
    from helpers.errors import ErrorDelCurso

    assert eng.get_engine("podman").wait_argv("c1") == ["podman", "wait", "c1"]
    assert eng.get_engine("docker").wait_argv("c1") == ["docker", "wait", "c1"]
    with pytest.raises(ErrorDelCurso, match="solo admite la opción de red"):
        eng.Docker().api_create("img", ["true"], run_id="r", opts=eng.RunOptions(privileged=True))


def test_shuffled_rounds_visit_every_arm_once_in_a_seeded_order():
    arms = list("ABCDEFGH")
    plain = measure.round_robin(arms, 3, 1)
    assert [s.arm for s in plain] == arms * 4
    steps = measure.round_robin(arms, 3, 1, shuffle_seed=7)
    assert steps == measure.round_robin(arms, 3, 1, shuffle_seed=7)  # reproducible
    rounds = [[s.arm for s in steps[i : i + 8]] for i in range(0, 32, 8)]
    assert all(sorted(r) == arms for r in rounds)
    assert len({tuple(r) for r in rounds}) > 1
    assert [s.warmup for s in steps] == [True] * 8 + [False] * 24
    assert [s.rep for s in steps[8:]] == [1] * 8 + [2] * 8 + [3] * 8


def test_cpu_time_of_a_process():
    import os

    sum(i * i for i in range(200_000))  # burn a little CPU
    assert proc_events.cpu_ms(os.getpid()) > 0
    assert proc_events.cpu_ms(2**22 + 12345) is None


def test_waterfall_without_the_overlay_rung_keeps_storage_in_the_engine():
    df = _synthetic()
    df = df[df["variant"] != "runc_overlay"]
    w = anatomia.waterfall(df, "docker")
    assert "almacenamiento" not in set(w["parte"])
    total = np.median(df[(df["engine"] == "docker") & (df["variant"] == "run_red")]["value"])
    assert w["ms"].sum() == pytest.approx(total)
