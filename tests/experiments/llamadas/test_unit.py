"""Experiment 5 (system calls) without engines: parameters, the probe itself, arms, analysis, the claims
and their verdicts, reading experiment 3's run and being read by experiment 7, and the views. Timings
are never asserted in absolute terms."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
from pathlib import Path

import IPython.display
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from helpers import experiments, probes, reference  # noqa: E402
from helpers.errors import ParametroInvalido  # noqa: E402
from helpers.experiments import anidamiento, verdict  # noqa: E402
from helpers.experiments import llamadas as exp  # noqa: E402
from helpers.experiments.contract import CLOSING_COLUMNS  # noqa: E402
from helpers.experiments.llamadas import analysis as llamadas_analysis
from helpers.experiments.llamadas import arms as llamadas_arms
from helpers.experiments.llamadas import probe as llamadas_probe
from helpers.experiments.llamadas.claims import SEED_DIFFERENCE_NS, SOURCE, exec_claims
from helpers.experiments.llamadas.probe import OPERATIONS, PROBE, WALL_SUFFIX
from helpers.experiments.runner import Resultado  # noqa: E402
from helpers.view import (
    common,  # noqa: E402
    figuras,  # noqa: E402
)
from tests.support import (
    assert_round_rows_change_nothing,
    capture_figures,  # noqa: E402
    write_run,
)

# The packages' `claims` is the contract's function; the declarations live in their claims modules.
said = importlib.import_module("helpers.experiments.llamadas.claims")
nesting_07 = importlib.import_module("helpers.experiments.anidamiento.claims")


# ---------------------------------------------------------------- bad input, before anything runs
@pytest.mark.parametrize(
    "params, name",
    [
        ({"llamadas": 0}, "LLAMADAS"),
        ({"llamadas": 999}, "LLAMADAS"),
        ({"llamadas": exp.Config.limits("llamadas").maximum + 1}, "LLAMADAS"),
        ({"llamadas": "mil"}, "LLAMADAS"),
        ({"operaciones": ["getpid", "fork"]}, "OPERACIONES"),
        ({"brazos": ["host", "kvm"]}, "BRAZOS"),
        ({"cpu": 4096}, "CPU"),
        ({"cpu": "cero"}, "CPU"),
        ({"cpu": True}, "CPU"),
        ({"repeticiones": 0}, "REPETICIONES"),
        ({"repeticiones": 101}, "REPETICIONES"),
        ({"motores": ["lxc"]}, "MOTORES"),
        ({"imagen": "fedora"}, "IMAGEN"),
    ],
)
def test_bad_parameters_get_a_spanish_error(params, name):
    with pytest.raises(ParametroInvalido, match=name):
        exp.config(**params)


def test_the_widgets_allow_what_the_validator_accepts():
    controls = {c["name"]: c for c in exp.CONTROLS}
    calls = controls["llamadas"]
    assert exp.config(llamadas=calls["min"]).llamadas == calls["min"]
    assert exp.config(llamadas=calls["max"]).llamadas == calls["max"]
    allowed = sorted(os.sched_getaffinity(0))
    assert controls["cpu"]["options"] == [*((f"CPU {c}", c) for c in allowed), ("sin fijar", None)]
    assert exp.config(cpu=None).cpu is None and exp.config(cpu=allowed[-1]).cpu == allowed[-1]


def test_bad_parameters_stop_run_before_any_folder_is_made(tmp_path):
    with pytest.raises(ParametroInvalido):
        exp.run(exp.Config(llamadas=0), root=tmp_path, log=lambda _: None)
    assert not any(tmp_path.iterdir())


def test_defaults_and_quick_profile_are_valid():
    cfg = exp.config()
    assert cfg == exp.Config().validated()
    assert cfg.operaciones == list(OPERATIONS) and cfg.brazos == list(llamadas_arms.ARM_KINDS)
    quick = exp.config(**{k.lower(): v for k, v in exp.QUICK.items()})
    assert quick.llamadas < cfg.llamadas
    # Both reach the minimum for a verdict; the estimates keep them inside their budgets (4 min, 1 min).
    assert min(cfg.repeticiones, quick.repeticiones) >= verdict.MIN_N
    assert exp.estimated_seconds(quick) < 60 < exp.estimated_seconds(cfg) < 240
    assert exp.READS == ("ejecucion",)


def test_the_documents_settings_are_one_preset_away_with_a_time_warning():
    from helpers.view import llamadas as view
    from helpers.view.panel import preset_message

    (preset,) = view.PRESETS
    cfg = exp.config(**preset.values)
    assert cfg.llamadas == 10_000_000 and cfg.operaciones == ["getpid"] and cfg.tope_ms == 0
    # Tests A, B and C of the repository's first run.sh, unpinned as that script ran them.
    assert cfg.brazos == ["host", "seccomp", "nsenter"] and cfg.motores == ["docker"] and cfg.cpu is None
    assert cfg.nsenter == 1000
    # Ten million calls per measurement take longer than the default's 200 000 capped at 250 ms.
    per_round = exp.estimated_seconds(
        cfg.__class__(**{**cfg.__dict__, "repeticiones": 1, "calentamiento": 0})
    )
    assert per_round > 2 * 10_000_000 * exp.measure.EXPECTED_NS["getpid"] / 1e9 * 0.99
    said_text = preset_message(exp, {**exp.config().__dict__, **preset.values}, preset)
    assert "diez millones" in said_text and "tardaría" in said_text.lower()


# ---------------------------------------------------------------- the probe, for real
@pytest.fixture(scope="module")
def probe():
    return probes.ensure(PROBE, log=lambda _: None)


def test_probe_prints_one_parseable_line_per_operation(probe):
    args = llamadas_probe.probe_args(OPERATIONS, 2000, None, 250)
    out = subprocess.run([str(probe), *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    found = llamadas_probe.parse_probe(out.stdout)
    assert list(found) == list(OPERATIONS)
    assert len(out.stdout.strip().splitlines()) == len(OPERATIONS)
    for values in found.values():
        assert values["n"] == 2000 and values["cpu"] == -1
        assert values["niveles_pid"] == 1  # the host's own PID namespace only


def test_probe_rejects_bad_usage(probe):
    for argv in (["fork", "10"], ["getpid", "0"], ["getpid", "10", "-2"], ["getpid,", "x"]):
        assert subprocess.run([str(probe), *argv], capture_output=True, timeout=30).returncode == 2


def test_probe_pins_to_the_given_cpu_and_refuses_a_missing_one(probe):
    cpu = sorted(os.sched_getaffinity(0))[-1]
    ok = subprocess.run([str(probe), "getpid", "1000", str(cpu)], capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0 and llamadas_probe.parse_probe(ok.stdout)["getpid"]["cpu"] == cpu
    bad = subprocess.run([str(probe), "getpid", "1000", "1023"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 3 and "CPU" in bad.stderr


def test_probe_time_cap_stops_a_long_loop_early(probe):
    args = llamadas_probe.probe_args(["open_close"], 100_000_000, None, 20)
    out = subprocess.run([str(probe), *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    n = llamadas_probe.parse_probe(out.stdout)["open_close"]["n"]
    assert 0 < n < 100_000_000 and n % 1024 == 0


def test_vdso_call_is_cheaper_than_a_kernel_entry_in_the_same_run(probe):
    """clock_gettime through the vDSO never enters the kernel: in one run it costs less than getpid."""
    args = llamadas_probe.probe_args(["getpid", "clock_gettime"], 200_000, None, 250)
    found = llamadas_probe.parse_probe(
        subprocess.run([str(probe), *args], capture_output=True, text=True, timeout=60).stdout
    )
    assert found["clock_gettime"]["ns_cpu"] < found["getpid"]["ns_cpu"]


def test_nested_pid_namespaces_are_seen_by_the_probe(probe):
    """The proof the nesting arms rest on: under `unshare` twice, the probe counts three PID namespaces."""
    reason = exp.arms.namespaces_unavailable()
    if reason:
        pytest.skip(reason)
    arm = llamadas_arms.bare_arms(["anidado"])[0]
    argv = llamadas_arms.argv_for(
        arm, llamadas_probe.probe_args(["getpid"], 1000, None, 250), probe_path=str(probe)
    )
    assert argv[: len(llamadas_arms.unshare_prefix(2, as_root=os.geteuid() == 0))].count("--pid") == 2
    assert llamadas_probe.run_probe(argv, "bare", ["getpid"])["getpid"]["niveles_pid"] == 3


# ---------------------------------------------------------------- arms
def test_gvisor_arms_are_measured_on_the_wall_clock_and_a_ratio_uses_one_clock():
    assert llamadas_arms.primary_clock("gvisor") == llamadas_analysis.WALL
    assert (
        llamadas_arms.primary_clock("seccomp")
        == llamadas_arms.primary_clock("pid:2")
        == llamadas_analysis.CPU
    )
    assert llamadas_analysis.shared_clock(("docker", "gvisor"), exp.BASELINE) == llamadas_analysis.WALL
    assert llamadas_analysis.shared_clock(("docker", "seccomp"), exp.BASELINE) == llamadas_analysis.CPU


def test_unshare_prefix_nests_and_falls_back_to_a_user_namespace():
    assert llamadas_arms.unshare_prefix(0, as_root=True) == []
    assert llamadas_arms.unshare_prefix(1, as_root=True) == ["unshare", "--pid", "--fork"]
    assert llamadas_arms.unshare_prefix(3, as_root=True).count("--pid") == 3
    no_root = llamadas_arms.unshare_prefix(2, as_root=False)
    assert (
        no_root[:5] == llamadas_arms.USER_PID_ARMS
        and no_root.count("--user") == 1
        and no_root.count("--pid") == 2
    )


def test_arms_follow_brazos_and_motores():
    bare = llamadas_arms.bare_arms(["host", "anidado"])
    assert [a.variant for a in bare] == ["host", "pid:2", "pid:4", "pid:8"]
    assert [a.depth for a in bare] == [0, 2, 4, 8]
    assert [a.kind for a in bare] == ["host", "anidado", "anidado", "anidado"]
    assert bare[1].label == "2 namespaces PID anidados"
    arms = llamadas_arms.engine_arms(
        ["seccomp", "gvisor"], ["docker", "podman"], {"docker": "img:1", "podman": "img:2"}
    )
    assert [(a.engine, a.variant, a.image) for a in arms] == [
        ("docker", "seccomp", "img:1"),
        ("docker", "gvisor", "img:1"),
        ("podman", "seccomp", "img:2"),
        ("podman", "gvisor", "img:2"),
    ]
    opts = llamadas_arms.container_options("sin_seccomp", "/x")
    assert opts.security_opt == ["seccomp=unconfined"] and opts.runtime is None and not opts.privileged
    assert llamadas_arms.container_options("gvisor", "/x").runtime == "runsc"
    assert llamadas_arms.container_options("seccomp", "/x").volumes == [
        ("/x", llamadas_probe.PROBE_IN_CONTAINER, "ro")
    ]
    assert llamadas_arms.container_options("seccomp", "/x").network == "none"


# ---------------------------------------------------------------- synthetic runs
def synthetic(
    arms: dict[tuple[str, str], float],
    reps: int = 12,
    spread: float = 0.01,
    seed: int = 1,
    *,
    cpu_factor: dict | None = None,
    vdso: dict | None = None,
):
    """Rows as run() writes them: per arm and repetition, getpid (`ns`) and clock_gettime (20 ns, times
    `vdso[arm]`) on the CPU clock (times `cpu_factor[arm]`) and on the wall clock (three times the CPU
    figure), and the PID-namespace levels the probe saw."""
    rng = np.random.default_rng(seed)
    rows = []

    def row(engine, variant, rep, metric, value, unit):
        rows.append(dict(experiment="llamadas", engine=engine, image="", variant=variant, rep=rep, metric=metric, value=value, unit=unit))  # fmt: skip

    for (engine, variant), ns in arms.items():
        for rep in range(1, reps + 1):
            vdso_ns = 20.0 * (vdso or {}).get((engine, variant), 1)  # the same in every arm, unless told
            for op, base in (("getpid", ns), ("clock_gettime", vdso_ns)):
                value = base * (1 + rng.normal(0, spread))
                row(engine, variant, rep, op, value * (cpu_factor or {}).get((engine, variant), 1), "ns")
                row(engine, variant, rep, op + WALL_SUFFIX, value * 3, "ns")
            depth = exp.arms.depth_of(variant) if engine == "bare" else 0
            row(engine, variant, rep, llamadas_probe.LEVELS_METRIC, depth + 1, "niveles")
    return pd.DataFrame(rows)


PER_LEVEL = SEED_DIFFERENCE_NS
FILTER_IS_THE_COST = {
    ("bare", "host"): 100,
    ("bare", "pid:1"): 100,
    ("bare", "pid:2"): 100,
    ("bare", "pid:4"): 100,
    ("bare", "pid:8"): 100,
    ("docker", "seccomp"): 127,
    ("docker", "sin_seccomp"): 100,
    ("docker", "gvisor"): 5000,
}


def by_key(claims, key, engine=None):
    found = [c for c in claims if c.key == key and (engine is None or c.detail.get("engine") == engine)]
    assert len(found) == 1, [c.key for c in claims]
    return found[0]


def test_summarize_gives_medians_and_ratios_against_the_host():
    df = synthetic({("bare", "host"): 100, ("docker", "seccomp"): 150})
    s = llamadas_analysis.summarize(df)
    row = s[(s["engine"] == "docker") & (s["operacion"] == "getpid")].iloc[0]
    assert row["mediana_ns"] == pytest.approx(150, rel=0.03)
    assert row["x_host"] == pytest.approx(1.5, rel=0.03)
    assert row["x_host_ic_bajo"] < 1.5 * 1.03 and row["x_host_ic_alto"] > 1.5 * 0.97
    assert set(s["operacion"]) == {"getpid", "clock_gettime"}  # wall-clock rows are not mixed in
    assert set(s["reloj"]) == {llamadas_analysis.CPU}
    wall = llamadas_analysis.summarize(df, clock=llamadas_analysis.WALL)
    assert wall[wall["operacion"] == "getpid"]["mediana_ns"].tolist() == pytest.approx(
        (3 * s[s["operacion"] == "getpid"]["mediana_ns"]).tolist()
    )
    assert llamadas_analysis.summarize(pd.DataFrame()).empty


def test_decomposition_closing_rows_and_cost_at_a_rate():
    df = synthetic({("bare", "host"): 100, ("bare", "pid:1"): 101, **{k: v for k, v in FILTER_IS_THE_COST.items() if k[0] == "docker"}})  # fmt: skip
    d = llamadas_analysis.decomposition(df)
    assert list(d["variant"]) == ["host", "pid:1", "sin_seccomp", "seccomp", "gvisor"]
    assert d.iloc[3]["x_paso_anterior"] == pytest.approx(1.27, rel=0.03)
    assert list(d["reloj"]) == [llamadas_analysis.CPU] * 4 + [llamadas_analysis.WALL]
    rows = exp.closing_rows(df, {})
    assert list(rows.columns) == CLOSING_COLUMNS and set(rows["tipo"]) == {"RUNNING"}
    assert set(rows["unidad"]) == {"ns"} and len(rows) == 5
    # The environment is an engine the closing table names (never «docker (Docker sin seccomp)»).
    assert set(rows["entorno"]) == {"bare", "docker"}
    assert "una llamada getpid · Docker sin seccomp" in set(rows["concepto"])
    assert "una llamada getpid · Docker + gVisor (reloj de pared)" in set(rows["concepto"])
    cost = llamadas_analysis.cost_at_rate(df, 1_000_000).set_index("brazo")
    assert cost.loc["host", "cpu_por_segundo"] == 0
    # gVisor on the wall clock, the host too: (5 000 - 100) x 3 ns per call x 1e6 calls/s.
    assert cost.loc["Docker + gVisor", "cpu_por_segundo"] == pytest.approx(14.7, rel=0.03)
    assert not cost["inestable"].any()


def test_an_unstable_arm_is_marked_where_its_cost_is_read_and_a_flat_profile_has_no_direction(
    shown, tmp_path
):
    """«Un brazo inestable no entra en los resúmenes»: the «¿Cuándo importa?» table says so beside its
    figure; the seccomp sentence says «no se distingue» when its IC contains 1; an IQR narrower than
    the median's IC keeps its own decimals (never «[88, 88]»)."""
    from helpers.view import llamadas as view

    df = synthetic({("bare", "host"): 100, ("docker", "seccomp"): 100, ("docker", "sin_seccomp"): 100})
    shaky = df["variant"].eq("seccomp") & df["metric"].eq("getpid") & df["rep"].isin([1, 2, 3, 4, 5, 6])
    df.loc[shaky, "value"] = df.loc[shaky, "value"] * np.array([1, 9, 1, 9, 1, 9])
    cost = llamadas_analysis.cost_at_rate(df, 1_000_000).set_index("brazo")
    assert cost.loc["Docker (seccomp por defecto)", "inestable"] and not cost.loc["host", "inestable"]
    res = Resultado(exp.EXPERIMENT, df, tmp_path, {"status": "complete"})
    view.tabla(res, "cuanto_importa")
    assert "Docker (seccomp por defecto) ⚠ inestable: repite" in _text(shown)
    shown.clear()
    flat = Resultado(
        exp.EXPERIMENT,
        synthetic(
            dict(list(FILTER_IS_THE_COST.items())[:5])
            | {("docker", "seccomp"): 100, ("docker", "sin_seccomp"): 100},
            spread=0.05,
        ),
        tmp_path,
        {},
    )
    view.veredictos(flat)
    # 1.01× [0.91, 1.05]: neither inside «casi igual» (0.95×-1.05×) nor above or below it
    assert "lo del mismo contenedor sin seccomp: no se distingue hacia qué lado" in _text(shown)
    shown.clear()
    wide = synthetic({("bare", "host"): 88}, reps=8, spread=0.003)
    wide.loc[(wide["metric"] == "getpid") & (wide["rep"] == 1), "value"] = (
        91.0  # one slow round: with 8 the IC runs to it
    )
    view.tabla(Resultado(exp.EXPERIMENT, wide, tmp_path, {}), "brazos")
    q1, q3 = shown[-1].data["IQR (ns)"].iloc[0].strip("[]").split(", ")
    assert q1 != q3, (q1, q3)


def test_a_gvisor_ratio_reads_both_arms_on_the_wall_clock():
    # gVisor's own CPU accounting says 1 000 ns; its calls take 15 000 ns of wall clock, the host's 300.
    df = synthetic(
        {("bare", "host"): 100, ("docker", "gvisor"): 5000}, cpu_factor={("docker", "gvisor"): 0.2 / 3}
    )
    row = llamadas_analysis.summarize(df).set_index(["variant", "operacion"]).loc[("gvisor", "getpid")]
    assert row["reloj"] == llamadas_analysis.WALL and row["mediana_ns"] == pytest.approx(15_000, rel=0.03)
    assert row["x_host"] == pytest.approx(50, rel=0.03)  # 15 000 / 300, not 15 000 / 100 (two clocks)
    assert llamadas_analysis.arm_ratio(df, ("docker", "gvisor"), exp.BASELINE)[0] == pytest.approx(
        50, rel=0.03
    )


def test_nesting_and_its_slope_in_ns_and_in_percent_of_the_host():
    arms = {("bare", "host"): 100.0, **{("bare", f"pid:{d}"): 100 + PER_LEVEL * d for d in (1, 2, 4, 8)}}
    df = synthetic(arms)
    assert llamadas_analysis.nesting(df)["niveles_vistos"].tolist() == [1, 2, 3, 5, 9]
    slope, low, high, n = llamadas_analysis.nesting_slope(df)
    assert slope == pytest.approx(PER_LEVEL, rel=0.05) and low < slope < high and n == 12
    pct, low, high, _ = llamadas_analysis.nesting_slope(df, relative=True)
    assert pct == pytest.approx(PER_LEVEL, rel=0.05)  # the host costs 100 ns: ns and % coincide
    assert llamadas_analysis.nesting_slope(synthetic({("bare", "host"): 100, ("bare", "pid:1"): 100}))[3] == 0


# ---------------------------------------------------------------- claims
KEYS = [
    "esperado_host",
    "contenedor_11",
    "contenedor_25",
    "contenedor_tabla",
    "esperado_contenedor",
    "causa_pid",
    "anidamiento",
    "entre_cpus",
    "exec_1_9ms",
    "test_c_nsenter",
]
DECLARED = [
    said.EXPECTED_HOST,
    said.CONTAINER_RUN,
    said.CONTAINER_TAKEAWAY,
    said.CONTAINER_TABLE,
    said.EXPECTED_CONTAINER,
    said.PID_CAUSE,
    said.NESTING,
    said.ACROSS_CPUS,
]


def test_every_claim_comes_from_its_declaration_and_names_where_the_source_says_it():
    found = exp.claims(synthetic(FILTER_IS_THE_COST), {})
    assert [c.key for c in found] == KEYS
    for claim, declared in zip(found, DECLARED):
        assert claim.source == declared.source == SOURCE and claim.where == declared.where != ""
        assert claim.statement.startswith(declared.statement)
        assert (claim.unit, claim.region) == (declared.unit, declared.region)
        assert claim.claimed == declared.claimed or np.isnan(declared.claimed)
    assert found[1].statement.endswith(" — Docker") and found[1].detail["engine"] == "docker"
    assert found[1].detail["rondas"]  # paired by round: n counts rounds
    # Its two figures are two claims whose margins do not overlap: one figure cannot confirm both.
    run, table = said.CONTAINER_RUN.region, said.CONTAINER_TABLE.region
    assert run[1] < table[0] and table == (24.0, 30.0)
    assert said.SEED_RUN_PCT == pytest.approx(100 * (298.31 / 268.83 - 1))
    # «Container syscall overhead: 25%» (its «Key Takeaways») is its repository's run 2, judged as said
    assert said.RUN2_PCT == pytest.approx(100 * (145.12 / 116.14 - 1)) == pytest.approx(24.95, abs=0.01)
    assert run[1] < said.CONTAINER_TAKEAWAY.region[0] and said.CONTAINER_TAKEAWAY.region[1] < 100


def test_verdicts_when_the_filter_is_the_cost_and_the_pid_namespace_is_free():
    found = exp.claims(synthetic(FILTER_IS_THE_COST), {})
    assert by_key(found, "contenedor_11", "docker").status == verdict.NO_SE_SOSTIENE  # +27 %
    assert by_key(found, "contenedor_25", "docker").status == verdict.SE_CONFIRMA  # +27 % is «about 25 %»
    assert by_key(found, "contenedor_tabla", "docker").status == verdict.SE_CONFIRMA
    # 100 and 127 ns sit inside the document's ranges, and still: other CPUs' nanoseconds are not judged.
    for expected in (by_key(found, "esperado_host"), by_key(found, "esperado_contenedor", "docker")):
        assert expected.status == verdict.NO_COMPARABLE and verdict.OTHER_MACHINE in expected.note
    pid = by_key(found, "causa_pid")
    assert pid.status == verdict.NO_SE_SOSTIENE and pid.value == pytest.approx(0, abs=2)
    nest = by_key(found, "anidamiento")
    assert nest.status == verdict.NO_SE_SOSTIENE and nest.unit == "%" and abs(nest.value) < 1
    across = by_key(found, "entre_cpus")
    assert across.status == verdict.NO_COMPARABLE and "comparación de la clase (90)" in across.note
    exec_claim = by_key(found, "exec_1_9ms")
    assert exec_claim.status == verdict.SIN_DATOS and exec_claim.note == said.EXEC_NO_RUN.note


def test_verdicts_when_the_container_costs_its_own_run_and_every_level_adds_cost():
    # 11 % per level over a 200 ns host: the document's own run, and nesting that does add cost.
    per_level = 0.11 * 200
    arms = {("bare", "host"): 200.0, **{("bare", f"pid:{d}"): 200 + per_level * d for d in (1, 2, 4, 8)}}
    found = exp.claims(synthetic({**arms, ("docker", "seccomp"): 222.0}), {})
    nest = by_key(found, "anidamiento")
    assert nest.status == verdict.SE_CONFIRMA and nest.value == pytest.approx(11, rel=0.05)
    assert by_key(found, "causa_pid").status == verdict.SE_CONFIRMA  # one level alone: +11 %
    assert by_key(found, "contenedor_11", "docker").status == verdict.SE_CONFIRMA
    assert by_key(found, "contenedor_25", "docker").status == verdict.NO_SE_SOSTIENE
    assert by_key(found, "contenedor_tabla", "docker").status == verdict.NO_SE_SOSTIENE
    assert by_key(found, "esperado_host").status == verdict.NO_COMPARABLE  # 200 ns: above 80-150, not judged
    assert by_key(found, "esperado_contenedor", "docker").status == verdict.NO_COMPARABLE  # 222 ns


def getpid_rows(engine: str, variant: str, values) -> pd.DataFrame:
    return pd.DataFrame(
        [
            dict(
                experiment="llamadas",
                engine=engine,
                image="",
                variant=variant,
                rep=rep,
                metric="getpid",
                value=v,
                unit="ns",
            )  # fmt: skip
            for rep, v in enumerate(values, 1)
        ]
    )


def test_a_claim_whose_interval_crosses_its_margin_is_inconclusive():
    df = pd.concat(
        [
            getpid_rows("bare", "host", [100] * 6),
            getpid_rows("docker", "seccomp", [109.5, 110, 111, 111, 112, 114]),
        ]
    )
    claim = by_key(exp.claims(df, {}), "contenedor_11", "docker")
    assert claim.high > said.CONTAINER_RUN.region[1] and claim.low < said.CONTAINER_RUN.region[1]
    assert claim.status == verdict.NO_CONCLUYENTE and 6 < claim.more_reps <= verdict.PRACTICAL_REPS
    # +8 … +30 % against a margin of +8.7 … +13.3 %: with this noise, more than a course can run
    wide = pd.concat(
        [
            getpid_rows("bare", "host", [100] * 6),
            getpid_rows("docker", "seccomp", [112, 130, 108, 118, 110, 114]),
        ]
    )
    claim = by_key(exp.claims(wide, {}), "contenedor_11", "docker")
    assert claim.status == verdict.NO_CONCLUYENTE and claim.more_reps == float("inf")
    assert f"harían falta más de {verdict.PRACTICAL_REPS}" in common.claim_sentence(claim)


def test_a_spread_that_dwarfs_the_median_is_unstable():
    df = pd.concat(
        [
            getpid_rows("bare", "host", [100] * 6),
            getpid_rows("docker", "seccomp", [60, 70, 400, 500, 450, 80]),
        ]
    )
    assert by_key(exp.claims(df, {}), "contenedor_11", "docker").status == verdict.INESTABLE


def test_missing_arms_are_said_not_guessed():
    found = exp.claims(synthetic({("bare", "host"): 100}), {})
    for key in ("contenedor_11", "contenedor_tabla", "causa_pid", "anidamiento"):
        claim = by_key(found, key)
        assert claim.status == verdict.SIN_DATOS and claim.note == said.NEEDS_ARMS


# ---------------------------------------------------------------- other experiments' runs
def exec_rows(seconds, engine="docker") -> list[dict]:
    ejecucion = experiments.get("ejecucion")
    return [
        dict(
            engine=engine,
            image="x",
            variant=ejecucion.EXEC_TRUE,
            rep=r,
            metric=ejecucion.METRIC_E2E,
            value=v,
            unit="s",
        )  # fmt: skip
        for r, v in enumerate(seconds, 1)
    ]


def test_exec_claim_is_another_machines_milliseconds_with_experiment_3s_beside_it():
    """«1.9 ms per exec» has no same-machine counterpart in the document: «no comparable» whatever this
    machine took (even 1.9 ms), with experiment 3's latest `exec true` shown beside it, unjudged."""
    assert experiments.read_run(exp, "ejecucion") is None  # the tests' results folder is empty
    write_run("ejecucion", exec_rows([0.09, 0.1, 0.11, 0.095, 0.105, 0.1]))
    claim = by_key(exp.claims(synthetic(FILTER_IS_THE_COST), {}), "exec_1_9ms")
    assert claim.status == verdict.NO_COMPARABLE and verdict.OTHER_MACHINE in claim.note
    shown = claim.detail[verdict.BESIDE]
    assert shown["valor"] == pytest.approx(100) and shown["n"] == 6 and shown["unidad"] == "ms"
    assert claim.detail["engine"] == "docker" and "100 ms" in common.claim_sentence(claim)
    write_run("ejecucion", exec_rows([0.0019 + 0.00001 * i for i in range(6)], engine="podman"))
    claim = by_key(exp.claims(synthetic(FILTER_IS_THE_COST), {}), "exec_1_9ms")
    assert claim.status == verdict.NO_COMPARABLE and claim.detail["engine"] == "podman"
    assert claim.detail[verdict.BESIDE]["valor"] == pytest.approx(1.925)


def test_exec_claim_when_experiment_3_did_not_measure_exec_true():
    other = [dict(r, variant="cpu") for r in exec_rows([0.1, 0.2])]
    (claim,) = exec_claims(Resultado("ejecucion", pd.DataFrame(other), None, {}))
    assert claim.status == verdict.SIN_DATOS and claim.note == said.EXEC_NOT_MEASURED.note


def test_notebook_07_judges_its_cause_on_this_nesting_claim_by_key():
    arms = {("bare", "host"): 100.0, **{("bare", f"pid:{d}"): 100.0 for d in (1, 2, 4, 8)}}
    write_run("llamadas", synthetic(arms).drop(columns="experiment").to_dict("records"))
    ours = experiments.read_claim(anidamiento, "llamadas", "anidamiento")
    theirs = nesting_07.syscall_claim()
    assert theirs.key == "causa_syscalls" and ours.key == "anidamiento"
    assert (theirs.value, theirs.low, theirs.high, theirs.n) == (ours.value, ours.low, ours.high, ours.n)
    assert (theirs.claimed, theirs.region, theirs.unit) == (ours.claimed, ours.region, "%")
    assert theirs.status == ours.status == verdict.NO_SE_SOSTIENE


def test_compare_puts_the_documents_ratios_next_to_this_run():
    ref = reference.load(exp.EXPERIMENT)
    seed = ref[(ref["source"] == "seed001") & (ref["metric"] == "getpid")]
    assert sorted(seed["value"]) == [268.83, 298.31]
    c = llamadas_analysis.compare(synthetic({("bare", "host"): 100, ("docker", "seccomp"): 130}), {}, ref)
    assert c.loc[c["fuente"] == "seed001", "x_host"].iloc[0] == pytest.approx(1.11, abs=0.005)
    assert len(c) == 7  # its runs 3 and 2, what it expects, three CPUs of its table, this machine (Docker)
    assert c.iloc[-1]["x_host"] == pytest.approx(1.3, rel=0.03)
    # Its own «Overhead» figures as the ranges it published (its run's +11 % to the +30 % its table and
    # its «Expected» reach), not ratios of the middles of its ns ranges.
    assert llamadas_analysis.document_span(c) == pytest.approx((298.31 / 268.83, 1.30))
    table = c.set_index("fuente")
    assert tuple(table.loc["seed001-tabla-epyc-7763", ["rango_bajo", "rango_alto"]]) == pytest.approx(
        (1.24, 1.28)
    )
    assert tuple(table.loc["seed001-esperado", ["rango_bajo", "rango_alto"]]) == pytest.approx((1.2, 1.3))


# ---------------------------------------------------------------- views
@pytest.fixture
def shown(monkeypatch):
    out: list = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: out.append(obj))
    capture_figures(monkeypatch)
    monkeypatch.setattr(figuras, "display", lambda fig, **k: out.append(fig))  # the charts, in order
    yield out
    plt.close("all")


def _text(shown) -> str:
    return "\n".join(str(getattr(o, "data", "")) for o in shown)


def test_every_table_and_plot_shows_itself_and_returns_none(shown, tmp_path):
    from helpers.view import llamadas as view

    meta = {"status": "complete", "run_id": "x", "skipped_arms": {"Podman + gVisor": "sin root"}}
    res = Resultado(exp.EXPERIMENT, synthetic(FILTER_IS_THE_COST), tmp_path, meta)
    for que in view.TABLAS:
        before = len(shown)
        assert view.tabla(res, que) is None
        assert len(shown) > before, que
    for que in view.GRAFICOS:
        before = len(shown)
        assert view.grafico(res, que) is None
        assert len(shown) > before, que
        plt.close("all")
    assert view.referencia() is None and view.comparacion(res) is None
    with pytest.raises(ValueError, match="relojes"):
        view.tabla(res, "reloj")


def test_the_page_says_what_test_c_is_and_which_clock_the_document_read(shown):
    """Its per-CPU table's «Test C (µs)» is defined in its repository's first run.sh (1 000 × nsenter, 1 872
    µs): the page says so, credits the file, and says the document's clock (CLOCK_MONOTONIC after 1 000
    warm-up calls) against the one the course judges on, and why."""
    from helpers.view import llamadas as view

    view.referencia()
    text = _text(shown)
    assert "«Test C»: nsenter (µs)" in text and "sin definir" not in text and "Suponemos" not in text
    assert "nsenter --target PID --pid -- /bin/true" in text and "27364cb" in text
    assert "test-c-nsenter.txt" in text and "1 872 µs" in text
    assert "CLOCK_MONOTONIC" in text and "1 000 llamadas de calentamiento" in text
    assert "getpid_bench.c" in text and "tiempo de CPU del hilo" in text and "esperaba una CPU" in text


def test_no_statement_about_seed_001_contradicts_its_repository():
    """The repository's files say: Test C is defined (first run.sh), getpid_bench.c reads CLOCK_MONOTONIC
    after 1 000 warm-up calls, and no run.sh pins test B or C (the recorded run pinned nothing)."""
    from helpers.experiments.llamadas import measure as llamadas_measure
    from helpers.experiments.llamadas import probe as llamadas_probe
    from helpers.view import llamadas as view

    assert "no dice qué mide" not in said.EXEC_ELSEWHERE and "nsenter --target PID" in said.EXEC_ELSEWHERE
    assert said.SEED_TEST_C_US == 1872.0 and "27364cb" in said.TEST_C.where
    assert said.EXEC_ELSEWHERE.startswith(verdict.OTHER_MACHINE)
    for text in (llamadas_measure.__doc__, llamadas_probe.__doc__ or "", said.__doc__):
        assert "never says which clock" not in text and "names no clock" not in text
    assert "CLOCK_MONOTONIC" in said.__doc__ and "1 000 warm-up" in said.__doc__
    (preset,) = view.PRESETS
    assert preset.values["cpu"] is None and "sin fijar ninguna" in preset.warning
    assert "CLOCK_MONOTONIC" in preset.warning
    sources = (Path(__file__).parents[3] / "data" / "reference" / "SOURCES.md").read_text()
    assert (
        "ni se corre el «Test C»" not in sources
        and "fijada a la CPU 0 por defecto y en el botón" not in sources
    )


def test_test_c_is_another_machines_microseconds_with_this_runs_nsenter_beside_it(tmp_path):
    """Test C per engine: «no comparable» whatever this machine took, its nsenter (median of the rounds,
    IC 95 %) beside it in µs; Docker's is said without the arm («sin datos», with the reason)."""
    rows = [
        dict(experiment="llamadas", engine=e, image="", variant="nsenter", rep=r, metric="nsenter", value=v + r, unit="µs")
        for e, v in (("docker", 1800.0), ("podman", 900.0))
        for r in range(1, 9)
    ]  # fmt: skip
    df = pd.concat([synthetic(FILTER_IS_THE_COST), pd.DataFrame(rows)], ignore_index=True)
    found = exp.claims(df, {})
    docker, podman = by_key(found, "test_c_nsenter", "docker"), by_key(found, "test_c_nsenter", "podman")
    for claim, middle in ((docker, 1804.5), (podman, 904.5)):
        assert claim.status == verdict.NO_COMPARABLE and verdict.OTHER_MACHINE in claim.note
        shown = claim.detail[verdict.BESIDE]
        assert shown["valor"] == pytest.approx(middle) and shown["n"] == 8 and shown["unidad"] == "µs"
    assert (docker.claimed, docker.unit) == (1872.0, "µs")
    # The getpid tables never read the nsenter rows (µs per entry, not ns per call).
    assert not (llamadas_analysis.summarize(df)["variant"] == "nsenter").any()
    (alone,) = [c for c in exp.claims(synthetic(FILTER_IS_THE_COST), {}) if c.key == "test_c_nsenter"]
    assert alone.status == verdict.SIN_DATOS and alone.note == said.NO_TEST_C
    # Beside experiment 3's exec true, engine by engine, as a ratio of the two medians.
    write_run("ejecucion", exec_rows([0.0036] * 6))
    t = llamadas_analysis.test_c(df, experiments.read_run(exp, "ejecucion").df)
    row = t.set_index("engine").loc["docker"]
    assert row["exec_us"] == pytest.approx(3600) and row["exec_sobre_nsenter"] == pytest.approx(3600 / 1804.5)
    assert np.isnan(t.set_index("engine").loc["podman", "exec_us"])


def test_verdicts_render_every_claim_and_say_experiment_3_is_missing(shown, tmp_path):
    from helpers.view import common
    from helpers.view import llamadas as view

    res = Resultado(exp.EXPERIMENT, synthetic(FILTER_IS_THE_COST), tmp_path, {"status": "complete"})
    assert view.veredictos(res) is None
    text = _text(shown)
    for claim in exp.claims(res.df, res.meta):
        assert common.claim_sentence(claim) in text
    assert "03_ejecucion.ipynb" in text  # view.common.missing_run
    assert "el mismo contenedor **sin seccomp** cuesta" in text
    assert "En Docker, con el perfil seccomp getpid cuesta 1.2" in text  # 127/100
    assert "lo del mismo contenedor sin seccomp: más, con todo el IC 95 % por encima del margen" in text
    assert "Cada nivel de namespace PID añade" in text
    assert "Corrección del curso" in text and "esta corrida respalda la corrección" in text
    shown.clear()
    write_run("ejecucion", exec_rows([0.002] * 4))
    view.veredictos(res)
    assert "03_ejecucion.ipynb" not in _text(shown)


def test_comparison_sentence_cites_the_verdicts_and_never_judges_again(shown, tmp_path):
    """The document's two overhead figures are claims judged once, in the verdicts: the comparison shows
    this machine beside the span it publishes and cites those verdicts, never a «coincide» of its own
    (which said «coincide» beside a «no se sostiene» of the 24-30 % on the same page)."""
    from helpers.view import llamadas as view

    df = synthetic({("bare", "host"): 100, ("podman", "seccomp"): 112})  # +12 %: inside the run's 11 %
    res = Resultado(exp.EXPERIMENT, df, tmp_path, {})
    view.comparacion(res)
    text = _text(shown)
    assert re.search(r"con Podman, 1\.1\d×", text)
    assert "coincide" not in text and "por encima de todo" not in text
    judged = {c.key: c for c in exp.claims(df, {}) if c.detail.get("engine") == "podman"}
    assert judged["contenedor_tabla"].status == verdict.NO_SE_SOSTIENE
    assert f"el 24-30 % de su tabla, «{view.verdict_words(judged['contenedor_tabla'])}»" in text
    assert f"el 11 % de su corrida, «{view.verdict_words(judged['contenedor_11'])}»" in text


def test_the_sentences_under_the_figures_follow_the_data(tmp_path):
    from helpers.view import llamadas as view
    from helpers.view.llamadas_vdso import vdso_sentence

    # The vDSO call: the same fifth of getpid everywhere, or twice as dear in the container.
    flat = vdso_sentence(synthetic(FILTER_IS_THE_COST))
    dear = vdso_sentence(synthetic(FILTER_IS_THE_COST, vdso={("docker", "seccomp"): 2.0}))
    assert "a menos de un 5 % del host: namespace PID" in flat and "más cara" not in flat
    assert "más cara que en el host: Docker (seccomp por defecto) (" in dear and "más barata" not in dear
    few = vdso_sentence(synthetic(FILTER_IS_THE_COST, reps=verdict.MIN_N - 1))
    assert f"sin juzgar (menos de {verdict.MIN_N} repeticiones): namespace PID (" in few
    # The course's correction to the document's kernel code, with the slope that tests it.
    free = exp.claims(synthetic(FILTER_IS_THE_COST), {})
    costly = {("bare", "host"): 100.0, **{("bare", f"pid:{d}"): 100 + 11.0 * d for d in (1, 2, 4, 8)}}
    for found, words in (
        (free, "esta corrida respalda la corrección"),
        (exp.claims(synthetic(costly), {}), "esta corrida contradice la corrección"),
        (exp.claims(synthetic({("bare", "host"): 100}), {}), "la corrección queda sin su medida"),
    ):
        text = view._correccion_pid(by_key(found, "anidamiento"))
        assert text.startswith(view.KERNEL_CORRECTION) and words in text


# ---------------------------------------------------------------- claims tied to the reference figures
def test_every_claimed_number_is_the_reference_figure_it_names():
    from helpers import sources

    tied = {s.key: s for s in exp.SAID if s.ref is not None}
    assert set(tied) == {
        "contenedor_11",
        "contenedor_25",
        "esperado_host",
        "esperado_contenedor",
        "causa_pid",
    }
    for key, declared in tied.items():
        ok, found = sources.matches(declared, exp.EXPERIMENT)
        assert ok, (key, found)
    assert sources.figure(said.CONTAINER_RUN.ref, exp.EXPERIMENT) == pytest.approx(11.0, abs=0.05)
    # The table's 24-30 % spans its three CPUs (one Ref names one source): tied here, row by row.
    ref = reference.load(exp.EXPERIMENT)
    table = ref[ref["source"].isin(said.TABLE_SOURCES) & (ref["metric"] == "sobrecarga")]["value"]
    assert set(ref["source"]) >= set(said.TABLE_SOURCES) and len(table) == 6
    assert (table.min(), table.max()) == said.CONTAINER_TABLE.bounds


def test_every_claim_of_the_document_is_listed_in_sources_with_where_and_status():
    """SOURCES.md's hand-written list for llamadas.csv names every declared claim by key, with where the
    document says it (the same section as the declaration) and a status."""
    from helpers import PROJECT_ROOT

    text = (PROJECT_ROOT / "data" / "reference" / "SOURCES.md").read_text(encoding="utf-8")
    section = text[text.index("## `llamadas.csv`") :]
    section = section[: section.index("\n## ", 5)]
    for said in exp.SAID:
        row = next((ln for ln in section.splitlines() if ln.startswith(f"| `{said.key}` |")), None)
        assert row is not None, f"SOURCES.md no lista {said.key}"
        first = re.search(r"«[^»]+»", said.where)[0]  # the section or table it names first
        assert first in row, (said.key, first, row)
        assert row.rstrip().endswith("|") and row.count("|") == 5, row


def test_the_rows_of_the_rounds_change_no_claim_and_no_closing_row(tmp_path):
    """The machine's load per round and each arm's position (runner.measure_rounds) are not measurements."""
    assert_round_rows_change_nothing(exp, synthetic(FILTER_IS_THE_COST), {}, tmp_path / "rondas")


def test_the_cpu_a_call_rate_costs_says_when_it_does_not_fit_and_never_goes_negative():
    # a difference of two medians, without an interval: 2 significant digits, as every such figure
    assert common.cpu_share(0.0418) == "4.2 % de un núcleo"
    assert common.cpu_share(0.000691) == "0.069 % de un núcleo"
    assert common.cpu_share(3.95, 2) == "4.0 núcleos (más de los 2 de esta máquina: a ese ritmo no cabe)"
    assert common.cpu_share(1.5, 4) == "1.5 núcleos"
    assert common.cpu_share(-0.00212).startswith("ninguna medible")


def test_the_cost_table_leaves_the_host_out_and_writes_two_significant_digits(shown, tmp_path):
    """The host is the baseline of «ns extra»: its own row read «0 … su mediana quedó por debajo de la del
    host». A difference of two medians has no interval: «−0.56», never «−0.564»."""
    from helpers.view import llamadas as view

    df = synthetic({("bare", "host"): 100, ("docker", "seccomp"): 107.13, ("docker", "sin_seccomp"): 100.6})
    view.tabla(Resultado(exp.EXPERIMENT, df, tmp_path, {"status": "complete"}), "cuanto_importa")
    frame = next(o.data for o in shown if hasattr(o, "data") and "Brazo" in getattr(o.data, "columns", []))
    assert "host" not in set(frame["Brazo"]), frame
    for cell in [*frame["ns extra por llamada"], *frame["CPU extra por segundo"]]:
        for number in re.findall(r"\d[\d.]*", cell):
            assert len(number.replace(".", "").lstrip("0")) <= 2, (cell, frame)


def test_the_tables_list_the_arms_layer_by_layer_not_in_the_runs_shuffled_order():
    """The run's rounds are shuffled, so its first rows can be any arm: the tables still read host, PID
    namespaces by depth, then per engine without seccomp, with it and gVisor."""
    arms = {
        ("podman", "seccomp"): 120,
        ("bare", "pid:4"): 100,
        ("docker", "gvisor"): 5000,
        ("bare", "pid:1"): 100,
        ("docker", "sin_seccomp"): 100,
        ("bare", "host"): 100,
        ("docker", "seccomp"): 120,
    }
    s = llamadas_analysis.summarize(synthetic(arms, reps=6))
    getpid = s[s["operacion"] == "getpid"]
    assert list(zip(getpid["engine"], getpid["variant"])) == [
        ("bare", "host"),
        ("bare", "pid:1"),
        ("bare", "pid:4"),
        ("docker", "sin_seccomp"),
        ("docker", "seccomp"),
        ("docker", "gvisor"),
        ("podman", "seccomp"),
    ]
    assert list(s[s["variant"] == "host"]["operacion"]) == ["getpid", "clock_gettime"]
