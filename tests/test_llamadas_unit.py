"""Experiment 5 (system calls) without engines: validation, the probe itself, analysis, verdicts, gVisor
provisioning helpers. Timings are never asserted in absolute terms."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest

from helpers import probes, reference
from helpers.errors import ParametroInvalido
from helpers.experiments import base
from helpers.experiments import llamadas as exp
from helpers.experiments.base import Resultado


# ---------------------------------------------------------------- bad input, before anything runs
@pytest.mark.parametrize(
    "params, name",
    [
        ({"llamadas": 0}, "LLAMADAS"),
        ({"llamadas": -5}, "LLAMADAS"),
        ({"llamadas": "mil"}, "LLAMADAS"),
        ({"operaciones": ["getpid", "fork"]}, "OPERACIONES"),
        ({"brazos": ["host", "kvm"]}, "BRAZOS"),
        ({"cpu": 4096}, "CPU"),
        ({"cpu": "cero"}, "CPU"),
        ({"repeticiones": 0}, "REPETICIONES"),
        ({"motores": ["lxc"]}, "MOTORES"),
    ],
)
def test_bad_parameters_get_a_spanish_error(params, name):
    with pytest.raises(ParametroInvalido, match=name):
        exp.config(**params)


def test_bad_parameters_stop_run_before_any_folder_is_made(tmp_path):
    with pytest.raises(ParametroInvalido):
        exp.run(exp.Config(llamadas=0), root=tmp_path, log=lambda _: None)
    assert not any(tmp_path.iterdir())


def test_defaults_and_quick_profile_are_valid():
    cfg = exp.config()
    assert cfg == exp.Config().validated()
    assert cfg.operaciones == list(exp.OPERATIONS) and cfg.brazos == list(exp.ARM_KINDS)
    quick = exp.config(**{k.lower(): v for k, v in exp.QUICK.items()})
    assert quick.llamadas < cfg.llamadas and quick.repeticiones < cfg.repeticiones
    assert exp.config(cpu=None).cpu is None


# ---------------------------------------------------------------- the probe, for real
@pytest.fixture(scope="module")
def probe():
    return probes.ensure(exp.PROBE, log=lambda _: None)


def test_probe_prints_one_parseable_line_per_operation(probe):
    out = subprocess.run(
        [str(probe), ",".join(exp.OPERATIONS), "2000", "-1"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    found = exp.parse_probe(out.stdout)
    assert list(found) == list(exp.OPERATIONS)
    assert len(out.stdout.strip().splitlines()) == len(exp.OPERATIONS)
    for values in found.values():
        assert values["n"] == 2000 and values["ns_cpu"] > 0 and values["ns_pared"] > 0
        assert values["niveles_pid"] >= 1


def test_probe_rejects_bad_usage(probe):
    for argv in (["fork", "10"], ["getpid", "0"], ["getpid", "10", "-2"], ["getpid,", "x"]):
        assert subprocess.run([str(probe), *argv], capture_output=True, timeout=30).returncode == 2


def test_probe_pins_to_the_given_cpu_and_refuses_a_missing_one(probe):
    import os

    cpu = sorted(os.sched_getaffinity(0))[-1]
    ok = subprocess.run([str(probe), "getpid", "1000", str(cpu)], capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0 and f"cpu={cpu}" in ok.stdout
    bad = subprocess.run([str(probe), "getpid", "1000", "1023"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 3 and "CPU" in bad.stderr


def test_probe_time_cap_stops_a_long_loop_early(probe):
    out = subprocess.run(
        [str(probe), "open_close", "100000000", "-1", "20"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0
    n = exp.parse_probe(out.stdout)["open_close"]["n"]
    assert 0 < n < 100_000_000 and n % 1024 == 0


def test_vdso_call_is_cheaper_than_a_kernel_entry_in_the_same_run(probe):
    """clock_gettime through the vDSO never enters the kernel: in one run it costs less than getpid."""
    out = subprocess.run(
        [str(probe), "getpid,clock_gettime", "200000", "-1"], capture_output=True, text=True, timeout=60
    )
    found = exp.parse_probe(out.stdout)
    assert found["clock_gettime"]["ns_cpu"] < found["getpid"]["ns_cpu"]


def test_gvisor_arms_are_measured_on_the_wall_clock():
    assert exp.primary_clock(exp.Arm("docker", "gvisor")) == "ns_pared"
    assert exp.primary_clock(exp.Arm("docker", "seccomp")) == "ns_cpu"
    assert exp.primary_clock(exp.Arm("bare", "pid:2", depth=2)) == "ns_cpu"


def test_unshare_prefix_nests_and_falls_back_to_a_user_namespace():
    assert exp.unshare_prefix(0, as_root=True) == []
    assert exp.unshare_prefix(1, as_root=True) == ["unshare", "--pid", "--fork"]
    assert exp.unshare_prefix(3, as_root=True).count("--pid") == 3
    no_root = exp.unshare_prefix(2, as_root=False)
    assert no_root[:5] == exp.USER_PID_ARMS and no_root.count("--user") == 1 and no_root.count("--pid") == 2


def test_arms_follow_brazos_and_motores():
    bare = exp.bare_arms(["host", "anidado"])
    assert [a.variant for a in bare] == ["host", "pid:2", "pid:4", "pid:8"]
    assert [a.depth for a in bare] == [0, 2, 4, 8]
    arms = exp.engine_arms(
        ["seccomp", "gvisor"], ["docker", "podman"], {"docker": "img:1", "podman": "img:2"}
    )
    assert [(a.engine, a.variant, a.image) for a in arms] == [
        ("docker", "seccomp", "img:1"),
        ("docker", "gvisor", "img:1"),
        ("podman", "seccomp", "img:2"),
        ("podman", "gvisor", "img:2"),
    ]
    opts = exp.container_options("sin_seccomp", "/x")
    assert opts.security_opt == ["seccomp=unconfined"] and opts.runtime is None and not opts.privileged
    assert exp.container_options("gvisor", "/x").runtime == "runsc"
    assert exp.container_options("seccomp", "/x").volumes == [("/x", exp.PROBE_IN_CONTAINER, "ro")]


# ---------------------------------------------------------------- analysis on synthetic runs
def synthetic(
    arms: dict[tuple[str, str], float], reps: int = 12, spread: float = 0.01, seed: int = 1
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for (engine, variant), ns in arms.items():
        for rep in range(1, reps + 1):
            for op, factor in (("getpid", 1.0), ("clock_gettime", 0.2)):
                value = ns * factor * (1 + rng.normal(0, spread))
                rows.append(
                    dict(
                        experiment="llamadas",
                        engine=engine,
                        image="",
                        variant=variant,
                        rep=rep,
                        metric=op,
                        value=value,
                        unit="ns",
                    )
                )
                rows.append(
                    dict(
                        experiment="llamadas",
                        engine=engine,
                        image="",
                        variant=variant,
                        rep=rep,
                        metric=op + exp.WALL_SUFFIX,
                        value=value * 3,
                        unit="ns",
                    )
                )
            depth = (
                0 if variant in ("host",) else int(variant.split(":")[1]) if variant.startswith("pid:") else 1
            )
            rows.append(
                dict(
                    experiment="llamadas",
                    engine=engine,
                    image="",
                    variant=variant,
                    rep=rep,
                    metric=exp.LEVELS_METRIC,
                    value=depth + 1,
                    unit="niveles",
                )
            )
    return pd.DataFrame(rows)


def status(claims, key, engine=None):
    found = [c for c in claims if c.key == key and (engine is None or c.detail.get("engine") == engine)]
    assert len(found) == 1, [c.key for c in claims]
    return found[0]


def test_summarize_gives_medians_and_ratios_against_the_host():
    df = synthetic({("bare", "host"): 100, ("docker", "seccomp"): 150})
    s = exp.summarize(df)
    row = s[(s["engine"] == "docker") & (s["operacion"] == "getpid")].iloc[0]
    assert row["mediana_ns"] == pytest.approx(150, rel=0.03)
    assert row["x_host"] == pytest.approx(1.5, rel=0.03)
    assert row["x_host_ic_bajo"] <= row["x_host"] <= row["x_host_ic_alto"]
    assert set(s["operacion"]) == {"getpid", "clock_gettime"}  # wall-clock rows are not mixed in
    wall = exp.summarize(exp.wall_clock(df))
    assert wall[wall["operacion"] == "getpid"]["mediana_ns"].min() > 250


def test_verdicts_when_the_filter_is_the_cost_and_the_pid_namespace_is_free():
    df = synthetic(
        {
            ("bare", "host"): 100,
            ("bare", "pid:1"): 100,
            ("bare", "pid:2"): 100,
            ("bare", "pid:4"): 100,
            ("bare", "pid:8"): 100,
            ("docker", "seccomp"): 125,
            ("docker", "sin_seccomp"): 100,
            ("docker", "gvisor"): 5000,
        }
    )
    claims = exp.claims(df, {}, exec_run=None)
    assert status(claims, "contenedor_11", "docker").status == base.SE_CONFIRMA
    pid = status(claims, "causa_pid")
    assert pid.status == base.NO_SE_SOSTIENE and pid.value == pytest.approx(1.0, abs=0.02)
    assert pid.detail["seccomp_vs_sin"]["docker"][0] == pytest.approx(1.25, rel=0.03)
    assert status(claims, "anidamiento").status == base.NO_SE_SOSTIENE
    assert status(claims, "entre_cpus").status == base.SIN_DATOS
    assert status(claims, "exec_1_9ms").status == base.SIN_DATOS


def test_verdicts_when_every_level_adds_what_the_document_says():
    per_level = exp.SEED_CONTAINER_NS - exp.SEED_HOST_NS
    arms = {("bare", "host"): 100}
    arms.update({("bare", f"pid:{d}"): 100 + per_level * d for d in (1, 2, 4, 8)})
    claims = exp.claims(synthetic(arms), {}, exec_run=None)
    nest = status(claims, "anidamiento")
    assert nest.status == base.SE_CONFIRMA and nest.value == pytest.approx(per_level, rel=0.05)
    assert status(claims, "causa_pid").status == base.SE_CONFIRMA  # a PID namespace alone costs 1.29x
    assert exp.nesting(synthetic(arms))["niveles_vistos"].tolist() == [1, 2, 3, 5, 9]


def test_noisy_run_is_inconclusive_or_unstable_never_confirmed():
    df = synthetic({("bare", "host"): 100, ("docker", "seccomp"): 118}, reps=3, spread=0.3)
    c = status(exp.claims(df, {}, exec_run=None), "contenedor_11", "docker")
    assert c.status in (base.NO_CONCLUYENTE, base.INESTABLE)
    assert c.low < exp.OVERHEAD_REGION[0] or c.high > exp.OVERHEAD_REGION[1]


def test_exec_claim_uses_experiment_3s_exec_true(tmp_path):
    rows = [
        dict(
            experiment="ejecucion",
            engine="docker",
            image="x",
            variant="exec_true",
            rep=r,
            metric="extremo_a_extremo",
            value=v,
            unit="s",
        )
        for r, v in enumerate([0.09, 0.1, 0.11, 0.095, 0.105], 1)
    ]
    run = Resultado("ejecucion", pd.DataFrame(rows), tmp_path, {})
    (c,) = exp.exec_claims(run)
    assert c.status == base.NO_SE_SOSTIENE and c.unit == "ms" and c.value == pytest.approx(100, rel=0.06)
    near = Resultado(
        "ejecucion",
        pd.DataFrame([dict(r, value=0.0019 + 0.00001 * i) for i, r in enumerate(rows)]),
        tmp_path,
        {},
    )
    assert exp.exec_claims(near)[0].status == base.SE_CONFIRMA
    assert exp.exec_claims(None)[0].status == base.SIN_DATOS


def test_compare_puts_the_documents_ratios_next_to_this_run():
    ref = reference.load(exp.EXPERIMENT)
    assert set(ref["source"]) >= {"seed001"}
    seed = ref[(ref["source"] == "seed001") & (ref["metric"] == "getpid")]
    assert sorted(seed["value"]) == [268.83, 298.31]
    df = synthetic({("bare", "host"): 100, ("docker", "seccomp"): 130})
    c = exp.compare(df, {}, ref)
    assert c.loc[c["fuente"] == "seed001", "x_host"].iloc[0] == pytest.approx(1.11, abs=0.005)
    assert len(c) == 5  # its run, three CPUs of its table, and this machine (Docker)
    assert c.iloc[-1]["x_host"] == pytest.approx(1.3, rel=0.03)


def test_closing_rows_and_decomposition():
    df = synthetic(
        {
            ("bare", "host"): 100,
            ("bare", "pid:1"): 101,
            ("docker", "seccomp"): 125,
            ("docker", "sin_seccomp"): 100,
            ("docker", "gvisor"): 5000,
        }
    )
    rows = exp.closing_rows(df, {})
    assert list(rows.columns) == base.CLOSING_COLUMNS and set(rows["tipo"]) == {"RUNNING"}
    assert set(rows["unidad"]) == {"ns"} and len(rows) == 5
    d = exp.decomposition(df)
    assert list(d["variant"]) == ["host", "pid:1", "sin_seccomp", "seccomp", "gvisor"]
    assert d.iloc[3]["x_paso_anterior"] == pytest.approx(1.25, rel=0.03)
