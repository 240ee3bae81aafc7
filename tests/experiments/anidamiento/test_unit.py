"""Experiment 7 (anidamiento) without engines: parameters, the nested command lines, error explanations,
analysis, verdicts and views on hand-made rows."""

from __future__ import annotations

import importlib
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

from helpers import engines as eng
from helpers import experiments, reference, sources
from helpers.errors import ParametroInvalido
from helpers.experiments import anidamiento as exp
from helpers.experiments import verdict
from helpers.experiments.anidamiento import build, chains, ladder
from helpers.experiments.anidamiento import levels as anidamiento_levels
from helpers.experiments.anidamiento import measure as anidamiento_measure
from helpers.experiments.anidamiento.analysis import compare, level_ratios, summarize
from helpers.experiments.anidamiento.levels import (
    METRIC_START,
    METRIC_START_INNER,
    METRIC_WORK,
    METRIC_WORK_E2E,
    UNPRIV,
)
from helpers.experiments.contract import CLOSING_COLUMNS
from helpers.experiments.runner import Resultado
from helpers.paths import CACHE_DIR
from helpers.stats import Estimate
from tests.support import assert_round_rows_change_nothing

matplotlib.use("Agg")
claims = importlib.import_module("helpers.experiments.anidamiento.claims")  # the module, not the function


# ---------------------------------------------------------------- parameters
def test_registered_with_its_reads():
    assert experiments.get("anidamiento") is exp
    assert exp.READS == ("llamadas", "anatomia")
    assert set(exp.NEEDS_ROOT) == {"anidados", "chroot"}


def test_defaults_are_valid():
    cfg = exp.config()
    assert cfg.niveles == [1, 2, 3] and cfg.privilegiado is True
    assert exp.config(**{k.lower(): v for k, v in exp.QUICK.items()}).niveles == [1, 2]


def test_one_declaration_gives_the_widget_and_the_validator_their_limits():
    controls = {c["name"]: c for c in exp.CONTROLS}
    assert controls["repeticiones"]["max"] == 100 and controls["niveles"]["options"] == [1, 2, 3]
    assert exp.config(repeticiones=100).repeticiones == 100
    with pytest.raises(ParametroInvalido, match="REPETICIONES"):
        exp.config(repeticiones=101)


@pytest.mark.parametrize(
    "params, word",
    [
        ({"repeticiones": 0}, "REPETICIONES"),
        ({"niveles": []}, "NIVELES"),
        ({"niveles": [2, 3]}, "NIVELES debe incluir el 1"),
        ({"niveles": [1, 4]}, "NIVELES"),
        ({"niveles": ["dos"]}, "NIVELES"),
        ({"privilegiado": "sí"}, "PRIVILEGIADO"),
        ({"motores": ["lxc"]}, "MOTORES"),
        ({"calentamiento": 21}, "CALENTAMIENTO"),
        ({"tamaño_mib": 1025}, "TAMAÑO_MIB"),
        ({"tamaño_mib": 0}, "TAMAÑO_MIB"),
    ],
)
def test_bad_parameters_fail_in_spanish_before_anything_runs(params, word):
    with pytest.raises(ParametroInvalido, match=word):
        exp.config(**params)


def test_levels_given_as_text_by_papermill():
    assert exp.config(niveles="[1, 2]").niveles == [1, 2]


# ---------------------------------------------------------------- arms and command lines
def test_plan_follows_levels_and_privileged():
    busybox = {"docker": "curso/busybox-estatico:1", "podman": "localhost/curso/busybox-estatico:1"}
    arms = anidamiento_measure.plan(exp.config(), ["docker", "podman"], busybox)
    got = {(a.engine, a.variant) for a in arms}
    assert got == {
        ("bare", "nivel0"),
        ("docker", "nivel1"),
        ("docker", "nivel2"),
        ("docker", "nivel3"),
        ("podman", "nivel1"),
        ("podman", "nivel2"),
        ("podman", UNPRIV),
        ("podman", "nivel3"),
    }
    unprivileged = anidamiento_measure.plan(exp.config(privilegiado=False), ["docker", "podman"], busybox)
    assert {(a.engine, a.variant) for a in unprivileged} == {
        ("bare", "nivel0"),
        ("docker", "nivel1"),
        ("podman", "nivel1"),
        ("podman", UNPRIV),
    }
    only_one = anidamiento_measure.plan(exp.config(niveles=[1]), ["podman"], busybox)
    assert [a.variant for a in only_one] == ["nivel0", "nivel1"]


def test_nested_options_mount_the_course_files_read_only_and_never_a_socket():
    opts = chains.nested_options("podman", mode={"privileged": True}, store="/tmp/almacen", inner=False)
    assert opts.privileged and opts.network == "none" and not opts.publish
    mounts = {inside: (host, mode) for host, inside, mode in opts.volumes}
    assert mounts[build.SHARE_IN_CONTAINER] == (str(build.SHARE), "ro")
    assert mounts[build.PROBE_IN_CONTAINER][1] == "ro"
    assert mounts["/var/lib/containers"][0] == "/tmp/almacen"
    assert opts.env["CONTAINERS_CONF"].startswith(build.SHARE_IN_CONTAINER)
    for engine_name in ("docker", "podman"):
        for inner in (False, True):
            o = chains.nested_options(engine_name, mode={}, store="/x", inner=inner)
            argv = eng.get_engine(engine_name).run_argv("img", ["true"], run_id="r", opts=o)
            assert not any("docker.sock" in a or "podman.sock" in a for a in argv)
            assert "--privileged" not in argv


def test_inner_conf_lives_in_the_course_cache():
    assert build.INNER_CONF.is_relative_to(CACHE_DIR)
    for key in ('cgroup_manager = "cgroupfs"', 'events_logger = "file"', 'runtime = "runc"', "nofile=1024"):
        assert key in build.INNER_CONF_TEXT


def test_startup_command_is_the_same_at_every_level():
    argv = chains.startup_argv("podman", "img", "RUN")
    assert argv[:3] == ["podman", "run", "--rm"] and argv[-3:] == ["img", "echo", "ok"]
    assert "--network" in argv and "none" in argv


def test_missing_capabilities_from_the_bounding_set():
    assert ladder.missing_capabilities("CapBnd:\t000001fffeffffff\n") == ["SYS_RESOURCE"]
    assert ladder.missing_capabilities("CapBnd:\t000001ffffffffff\n") == []
    assert "SYS_ADMIN" in ladder.missing_capabilities("CapBnd:\t0000000000000000\n")


@pytest.mark.parametrize(
    "error, word",
    [
        (
            'error mounting "proc" to rootfs at "/proc": mount proc:/proc (via /proc/self/fd/6), flags: 0xe: '
            "operation not permitted",
            "capítulo original",
        ),
        (
            "runc create failed: unable to start container process: error during container init: sethostname: "
            "operation not permitted: OCI permission denied",
            "seccomp",
        ),
        ("fuse: device not found, try 'modprobe fuse' first", "/dev/fuse"),
        ("mkdir /sys/fs/cgroup/cpuset/docker: read-only file system", "cgroups"),
        (
            "runc create failed: unable to start container process: unable to apply caps: operation not permitted",
            "CAP_SYS_RESOURCE",
        ),
        ("algo raro", "no reconocido"),
    ],
)
def test_errors_are_explained_in_spanish(error, word):
    assert word in ladder.explain(error)


# ---------------------------------------------------------------- analysis and verdicts
def _rows(engine, variant, metric, values, unit):
    return [
        {
            "experiment": exp.EXPERIMENT,
            "engine": engine,
            "image": "" if engine == "bare" else "img",
            "variant": variant,
            "rep": i + 1,
            "metric": metric,
            "value": v,
            "unit": unit,
        }
        for i, v in enumerate(values)
    ]


def synthetic(start_l2_factor=1.1, work_l2_factor=1.0, n=12, seed=1, exec_l2_factor=None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def noisy(center):
        return list(center * (1 + 0.01 * rng.standard_normal(n)))

    rows = _rows("bare", "nivel0", METRIC_START_INNER, noisy(1.0), "ms")
    rows += _rows("bare", "nivel0", METRIC_WORK, noisy(0.5), "s")
    for engine, start in (("docker", 300.0), ("podman", 200.0)):
        rows += _rows(engine, "nivel1", METRIC_START_INNER, noisy(start), "ms")
        rows += _rows(engine, "nivel2", METRIC_START_INNER, noisy(start * start_l2_factor), "ms")
        rows += _rows(engine, "nivel3", METRIC_START_INNER, noisy(start * start_l2_factor**2), "ms")
        rows += _rows(engine, "nivel1", METRIC_WORK, noisy(0.5), "s")
        rows += _rows(engine, "nivel2", METRIC_WORK, noisy(0.5 * work_l2_factor), "s")
        # from the host, with the `exec`s: what the source timed (startup is judged on these)
        rows += _rows(engine, "nivel1", METRIC_START, noisy(start + 20), "ms")
        rows += _rows(engine, "nivel2", METRIC_START, noisy((start + 20) * start_l2_factor), "ms")
        rows += _rows(engine, "nivel1", METRIC_WORK_E2E, noisy(0.6), "s")
        e2e = work_l2_factor if exec_l2_factor is None else exec_l2_factor
        rows += _rows(engine, "nivel2", METRIC_WORK_E2E, noisy(0.6 * e2e), "s")
    return pd.DataFrame(rows)


META = {
    "parameters": {"repeticiones": 12},
    "anidamiento": {
        "intentos_sin_privilegios": [
            {
                "clave": "por_defecto",
                "opciones": "las opciones por defecto",
                "ok": False,
                "error": "mount proc:/proc: operation not permitted",
                "explicacion": ladder.explain("mount proc:/proc: operation not permitted"),
            },
            {
                "clave": "seccomp_unmask",
                "opciones": "seccomp=unconfined + unmask=ALL",
                "ok": True,
                "error": "",
                "explicacion": "",
                "mapa_uid_interior": "0 1 65536",
            },
        ],
        "escaleras_repetidas": [[{"clave": "seccomp_unmask", "ok": True, "error": ""}]] * 2,
    },
}


def test_level_ratios_compare_each_level_with_the_one_above():
    table = level_ratios(synthetic(start_l2_factor=1.2), METRIC_START_INNER)
    pairs = {(r["engine"], r["variant"]): r["base"] for _, r in table.iterrows()}
    assert pairs[("docker", "nivel1")] == "bare:nivel0"
    assert pairs[("docker", "nivel2")] == "docker:nivel1"
    assert pairs[("podman", "nivel3")] == "podman:nivel2"
    row = table[(table["engine"] == "podman") & (table["variant"] == "nivel2")].iloc[0]
    assert row["ratio"] == pytest.approx(1.2, rel=0.02)


def _claims(df, meta) -> dict:
    return {(c.key, c.detail.get("engine")): c for c in exp.claims(df, meta)}


def test_claims_follow_the_one_rule():
    found = _claims(synthetic(340 / 315, 1.0), META)
    moderate = found[("arranque_aditivo", "docker")]
    assert moderate.status == verdict.SE_CONFIRMA and moderate.source == anidamiento_levels.SOURCE
    assert moderate.value == pytest.approx(340 / 315, rel=0.02) and moderate.n == 12
    assert moderate.claimed == pytest.approx(340 / 315)
    # «+8 %» is an effect in percent: the margin table's «un p % más», not «~» (which takes in 0 % too)
    assert moderate.region == verdict.margin("percent_about", 340 / 315)
    assert moderate.region[0] > 1.0
    twice = _claims(synthetic(1.16, 1.0), META)[("arranque_aditivo", "docker")]
    assert twice.status == verdict.NO_SE_SOSTIENE  # +16 % is twice the claimed +8 %
    cpu = found[("cpu_acumula", "podman")]
    assert cpu.status == verdict.NO_SE_SOSTIENE  # the IC sits at 1.0 and excludes the chapter's +24 %
    privileged = found[("pip_necesita_privileged", None)]
    assert privileged.status == verdict.NO_SE_SOSTIENE  # one step of the ladder worked, three climbs
    assert privileged.n == verdict.MIN_OBSERVED


def test_big_startup_overhead_is_not_moderate():
    found = _claims(synthetic(2.0, 1.3), META)
    assert found[("arranque_aditivo", "podman")].status == verdict.NO_SE_SOSTIENE
    assert found[("cpu_acumula", "docker")].status == verdict.SE_CONFIRMA


def test_cpu_overhead_is_judged_on_the_work_not_on_the_exec():
    # Level 2 costs 30 % more only when timed from the host around `exec` (LAUNCH): the work is unchanged.
    exec_only = _claims(synthetic(1.1, 1.0, exec_l2_factor=1.3), META)
    assert exec_only[("cpu_acumula", "docker")].status == verdict.NO_SE_SOSTIENE
    assert exec_only[("cpu_acumula", "docker")].value == pytest.approx(1.0, rel=0.02)
    # And the other way: the work itself costs 30 % more while the host-timed figure does not move.
    work = _claims(synthetic(1.1, 1.3, exec_l2_factor=1.0), META)
    assert work[("cpu_acumula", "docker")].status == verdict.SE_CONFIRMA


def test_privileged_claim_confirmed_when_every_attempt_fails_on_every_climb():
    failed = [{"clave": k, "opciones": k, "ok": False, "error": "mount proc"} for k in ("a", "b")]
    meta = {"anidamiento": {"intentos_sin_privilegios": failed, "escaleras_repetidas": [failed, failed]}}
    claim = _claims(pd.DataFrame(columns=synthetic().columns), meta)[("pip_necesita_privileged", None)]
    assert claim.status == verdict.SE_CONFIRMA and claim.n == 3


def test_one_climb_of_the_ladder_gives_no_verdict():
    once = {"anidamiento": {"intentos_sin_privilegios": META["anidamiento"]["intentos_sin_privilegios"]}}
    claim = _claims(pd.DataFrame(columns=synthetic().columns), once)[("pip_necesita_privileged", None)]
    assert claim.status == verdict.SIN_DATOS and claim.n == 1 and claim.more_reps == verdict.MIN_OBSERVED
    varied = {
        "anidamiento": {**once["anidamiento"], "escaleras_repetidas": [[{"ok": False}], [{"ok": True}]]}
    }
    claim = _claims(pd.DataFrame(columns=synthetic().columns), varied)[("pip_necesita_privileged", None)]
    assert claim.status == verdict.NO_CONCLUYENTE and claim.n == 3


def test_claims_without_data_say_so():
    found = exp.claims(pd.DataFrame(columns=synthetic().columns), {})
    assert [c.key for c in found] == [
        "arranque_aditivo",
        "arranque_aditivo",
        "cpu_acumula",
        "cpu_acumula",
        "causa_syscalls",
        "pip_necesita_privileged",
    ]
    assert all(c.status == verdict.SIN_DATOS for c in found)
    syscall = found[4]
    assert syscall.note == claims.SYSCALL_CAUSE_MISSING.note and "05_llamadas_sistema" in syscall.note


def test_syscall_cause_is_judged_on_notebook_05s_claim_found_by_key(monkeypatch):
    theirs = verdict.judge(
        verdict.Said(
            "anidamiento", "otra frase", "otra fuente", claimed=29.5, region=(0.5, np.inf), unit="ns"
        ),
        Estimate(3.0, 2.0, 4.0, 6),
    )
    asked = []

    def read_claim(reader, experiment, key, root=None, **detail):
        asked.append((reader, experiment, key))
        return theirs

    monkeypatch.setattr(claims, "read_claim", read_claim)
    claim = claims.syscall_claim()
    assert asked == [(exp, "llamadas", "anidamiento")]
    assert claim.key == "causa_syscalls" and claim.statement == claims.SYSCALL_CAUSE.statement
    assert (claim.value, claim.low, claim.high, claim.n) == (3.0, 2.0, 4.0, 6)
    assert claim.claimed == 29.5 and claim.region == (0.5, np.inf) and claim.unit == "ns"
    assert claim.status == verdict.SE_CONFIRMA


def test_syscall_cause_without_notebook_05s_run_is_missing():
    assert experiments.read_run(exp, "llamadas") is None  # the tests' results folder is empty
    assert claims.syscall_claim().status == verdict.SIN_DATOS


def test_summary_flags_and_orders():
    s = summarize(synthetic(), META)
    assert {"mediana", "q1", "q3", "ic_bajo", "ic_alto", "inestable"} <= set(s.columns)
    assert not s["inestable"].any()
    assert summarize(pd.DataFrame(), None).empty


def test_reference_and_comparison():
    """The reference is the repository's raw repetitions (scripts/results/exp4_nested.csv: four per arm,
    the arms of a round run one after another), so its level ratio is paired by round like a live run's;
    it stays within 1 % of the ratio of the medians its page prints (241 / 166)."""
    ref = reference.load(exp.EXPERIMENT)
    assert set(ref["source"]) == {"fdd_p26"}
    assert set(ref["metric"]) == {METRIC_START, METRIC_WORK_E2E}
    assert set(ref.groupby(["engine", "variant", "metric"]).size()) == {4}
    ratios = level_ratios(ref, METRIC_START)
    podman2 = ratios[(ratios["engine"] == "podman") & (ratios["variant"] == "nivel2")].iloc[0]
    start = ref[ref["metric"] == METRIC_START].pivot(
        index="rep", columns=["engine", "variant"], values="value"
    )
    paired = (start[("podman", "nivel2")] / start[("podman", "nivel1")]).median()
    assert podman2["ratio"] == pytest.approx(paired)
    assert podman2["ratio"] == pytest.approx(241 / 166, rel=0.01)
    cmp = compare(synthetic(), META, ref)
    assert set(cmp["medida"]) >= {METRIC_START_INNER, METRIC_WORK}
    row = cmp[
        (cmp["medida"] == METRIC_START_INNER) & (cmp["engine"] == "docker") & (cmp["variant"] == "nivel2")
    ].iloc[0]
    assert row["referencia"] == pytest.approx(340 / 315, rel=0.01)  # its page: the ratio of its medians
    assert not np.isnan(row["tu_proporcion"])


def test_closing_rows_use_the_closing_columns():
    rows = exp.closing_rows(synthetic(), META)
    assert list(rows.columns) == CLOSING_COLUMNS
    assert set(rows["tipo"]) == {"LAUNCH", "RUNNING"}
    assert set(rows["entorno"]) == {"docker", "podman"}


# ---------------------------------------------------------------- views
def test_views_with_a_run(tmp_path, monkeypatch):
    from helpers.view import anidamiento as view
    from helpers.view import common

    res = Resultado(exp.EXPERIMENT, synthetic(start_l2_factor=1.2), tmp_path, {"status": "complete", **META})
    shown = []
    monkeypatch.setattr(view, "show", lambda obj: shown.append(obj))
    monkeypatch.setattr(view, "markdown", lambda text: shown.append(text))
    monkeypatch.setattr(common, "markdown", lambda text: shown.append(text))
    assert view.veredictos(res) is None
    text = "\n".join(t for t in shown if isinstance(t, str))
    for said in (claims.START_ADDITIVE["docker"], claims.CPU_ACCUMULATES["podman"], claims.NEEDS_PRIVILEGED):
        assert said.statement in text
    assert "05_llamadas_sistema" in text  # notebook 05 has no run here: the page says so
    assert "nivel 3 / nivel 2" in text and "seccomp=unconfined + unmask=ALL" in text
    for func in (view.tabla, view.tabla_niveles, view.grafico, view.intentos, view.comparacion):
        assert func(res) is None
    expected = compare(res.df, res.meta, reference.load(exp.EXPERIMENT))
    assert len(shown[-1].data) == len(expected) > 0


def test_views_without_a_run():
    from helpers.view import anidamiento as view

    for func in (
        view.tabla,
        view.tabla_niveles,
        view.grafico,
        view.modos,
        view.intentos,
        view.memoria_disco,
        view.veredictos,
        view.comparacion,
    ):
        assert func(None) is None


# ---------------------------------------------------------------- sources, references, sentences
def test_every_claim_names_its_source_and_where_in_it():
    """The figures are the repository's «experiment 4» (never «el capítulo original»), first-hand: its
    script and raw rows are in the repository; the --privileged claim is the chapter's closing note, and
    the «mount proc» error the repository's experiment 9, read first-hand in its chapter file."""
    for claim in exp.claims(synthetic(), META):
        assert claim.where, claim.key
        if claim.key == "pip_necesita_privileged":
            assert claim.source == anidamiento_levels.SOURCE_CHAPTER and "Nota sobre I/O" in claim.where
            assert "mount proc" in claim.note and "experimento 9" in claim.note
            assert "04_benchmarks.md" in claim.note and "segunda mano" not in claim.note
        else:
            assert claim.source == anidamiento_levels.SOURCE_REPO and "segunda mano" not in claim.source
            assert "exp4_nested.sh" in claim.source
            assert "06_nested.md" in claim.where and "issue 14" in claim.where


def test_claims_match_the_reference_figures():
    """Each declared figure names its row of data/reference/anidamiento.csv (`ref`) and gives it back,
    and the percentages written in the statements are those same numbers."""
    ref = reference.load(exp.EXPERIMENT)
    with_figure = [s for s in claims.SAID if s.claimed == s.claimed]
    assert {s.key for s in with_figure} == {"arranque_aditivo", "cpu_acumula"}
    for said in with_figure:
        assert said.ref is not None, said.key
        ok, found = sources.matches(said, exp.EXPERIMENT)
        assert ok, (said.key, said.claimed, found)
    for engine, pct in (("docker", "+8 %"), ("podman", "+45 %")):
        said = claims.START_ADDITIVE[engine]
        assert pct in said.statement
        assert round((said.claimed - 1) * 100) == int(pct[1:-2])
    work = ref[ref["metric"] == METRIC_WORK_E2E].groupby(["engine", "variant"])["value"].median()
    bare = work[("bare", "nivel0")]
    for engine, text in (("docker", "+15 % → +24 %"), ("podman", "+21 % → +49 %")):
        assert text in claims.CPU_ACCUMULATES[engine].statement
        # its page's percentages are the medians of its raw rows over bare metal's, rounded
        first, second = (round((work[(engine, v)] / bare - 1) * 100) for v in ("nivel1", "nivel2"))
        said_first, said_second = (int(p.strip(" +%")) for p in text.split("→"))
        assert (said_first, said_second) == (first, second)


def test_level_ratios_are_paired_by_round():
    df = synthetic(start_l2_factor=241 / 166)  # Podman's «+45 %»
    # a drift shared by each round moves both levels alike: the paired ratio does not see it
    drift = df["rep"].map(lambda r: 1 + 0.5 * (r % 3))
    drifting = df.assign(value=df["value"] * drift)
    tight = level_ratios(drifting, METRIC_START_INNER)
    row = tight[(tight["engine"] == "podman") & (tight["variant"] == "nivel2")].iloc[0]
    assert row["ratio"] == pytest.approx(241 / 166, rel=0.02) and row["ic_alto"] - row["ic_bajo"] < 0.1
    claim = _claims(drifting, META)[("arranque_aditivo", "podman")]
    assert claim.detail.get("rondas") and claim.status == verdict.SE_CONFIRMA


def test_the_sentences_follow_the_data(tmp_path, monkeypatch):
    """Synthetic runs pointing both ways: the sentence under the plot and the notice of too few
    repetitions change with the numbers."""
    import matplotlib

    matplotlib.use("Agg")
    from helpers.view import anidamiento as view
    from helpers.view import common

    shown: list = []
    monkeypatch.setattr(view, "show", lambda obj: None)
    monkeypatch.setattr(view, "markdown", lambda text: shown.append(text or ""))
    view.grafico(Resultado(exp.EXPERIMENT, synthetic(), tmp_path, META))
    assert "Sin contenedor, `echo ok` tardó 1.0" in shown[-1]
    assert re.search(r"el nivel 1 de Docker, (299|300|301)× \[", shown[-1])
    slow_bare = synthetic()
    slow_bare.loc[slow_bare["engine"] == "bare", "value"] *= 100
    view.grafico(Resultado(exp.EXPERIMENT, slow_bare, tmp_path, META))
    assert "Sin contenedor, `echo ok` tardó 100" in shown[-1]
    assert re.search(r"el nivel 1 de Docker, (2\.9\d*|3\.0\d*)× \[", shown[-1])
    assert "inestable" not in shown[-1]
    shaky = synthetic()  # bare metal in two clusters far apart: its ratio is only orientation
    bare = (shaky["engine"] == "bare") & (shaky["metric"] == METRIC_START_INNER)
    shaky.loc[bare, "value"] = [1.0 if i % 2 else 5.0 for i in range(bare.sum())]
    view.grafico(Resultado(exp.EXPERIMENT, shaky, tmp_path, META))
    assert "Pero bare metal es una medición inestable" in shown[-1]
    few = synthetic()
    few = few[few["rep"] <= 2]
    shown.clear()
    view.veredictos(Resultado(exp.EXPERIMENT, few, tmp_path, META))
    assert any("sin veredictos" in t for t in shown)
    view.grafico(Resultado(exp.EXPERIMENT, few, tmp_path, META))
    assert common.too_few(2) in shown[-1] and "IC 95 %" not in shown[-1]
    shown.clear()
    view.veredictos(Resultado(exp.EXPERIMENT, synthetic(), tmp_path, META))
    assert not any("sin veredictos" in t for t in shown)


def test_level_1_is_set_beside_notebook_04s_run_without_network(tmp_path):
    """One command, two notebooks: the level-1 median here and 04's «run --network none» side by side."""
    from helpers.view import anidamiento as view

    res = Resultado(exp.EXPERIMENT, synthetic(), tmp_path, META)
    assert view._level1_beside_04(res, None) == ""
    rows = [
        {"engine": "docker", "variant": "run_sin_red", "rep": r, "metric": "arranque", "value": 200.0 + r}
        for r in range(1, 7)
    ]
    other = Resultado("anatomia", pd.DataFrame(rows), tmp_path, {"run_id": "r4"})
    text = view._level1_beside_04(res, other)
    assert "«run --network none» (corrida `r4`)" in text and "y 204 ms en el cuaderno 04" in text
    assert "Podman" not in text  # 04 measured no Podman here: nothing to set beside it


def test_syscall_cause_counts_what_notebook_05_counted(monkeypatch):
    """05 judges its nesting claim round by round («n = 8 rondas»): 07's quote counts rounds too."""
    from helpers.view.verdicts import claim_sentence

    said = verdict.Said("anidamiento", "otra frase", "otra fuente", region=(5.0, np.inf), unit="%")
    for detail, unit in (({"rondas": True}, "rondas"), (None, "repeticiones")):
        theirs = verdict.judge(said, Estimate(-0.1, -0.2, 0.0, 8), detail=detail)
        monkeypatch.setattr(claims, "read_claim", lambda *a, theirs=theirs, **k: theirs)
        mine = claims.syscall_claim()
        assert re.search(f"n = 8 {unit}[);]", claim_sentence(mine)) and re.search(
            f"n = 8 {unit}[);]", claim_sentence(theirs)
        )


def test_the_rows_of_the_rounds_change_no_claim_and_no_closing_row(tmp_path):
    """The machine's load per round and each arm's position (runner.measure_rounds) are not measurements."""
    assert_round_rows_change_nothing(exp, synthetic(), META, tmp_path / "rondas")


def test_the_comparison_caption_and_the_climb_log_read_as_spanish(tmp_path, monkeypatch):
    """«Las cifras que da el «experimento 4»…», never «de el»; a climb's log line names the step that worked
    as the «paso a paso» table does, never its key («seccomp_unmask»)."""
    from helpers.view import anidamiento as view
    from tests.course.test_revision_curso import page_problems

    res = Resultado(exp.EXPERIMENT, synthetic(start_l2_factor=1.2), tmp_path, {"status": "complete", **META})
    shown = []
    monkeypatch.setattr(view, "show", lambda obj: shown.append(obj.to_html()))
    view.comparacion(res)
    assert shown and page_problems(shown[-1]) == [], page_problems(shown[-1])
    line = ladder.again_line(
        1, [{"clave": "por_defecto", "ok": False}, {"clave": "seccomp_unmask", "ok": True}]
    )
    assert "seccomp_unmask" not in line and "seccomp=unconfined + unmask=ALL" in line


def test_the_comparison_row_that_is_a_claim_cites_its_verdict_not_a_second_judgement(tmp_path, monkeypatch):
    """Level 2 over level 1 at startup is the «+8 %» / «+45 %» claim's own figure: its «¿coincide?» cell
    reads that claim's verdict; the other rows keep the agreement reading."""
    from helpers.view import anidamiento as view

    res = Resultado(exp.EXPERIMENT, synthetic(start_l2_factor=1.16), tmp_path, {"status": "complete", **META})
    judged = {c.detail.get("engine"): c for c in exp.claims(res.df, res.meta) if c.key == "arranque_aditivo"}
    shown = []
    monkeypatch.setattr(view, "show", lambda obj: shown.append(obj))
    view.comparacion(res)
    html = shown[-1].to_html()
    for claim in judged.values():
        assert f"{view.verdict_words(claim)} (su veredicto, arriba)" in html
    assert html.count("(su veredicto, arriba)") == len(judged) == 2


def test_level_two_is_called_privileged_only_where_privileged_ran(monkeypatch, tmp_path):
    """Docker's --privileged fails on a host without every capability (the run says so in «modos»): its
    level 2 is then never labelled «contenedor privilegiado» in the tables; Podman's, which got it, is."""
    from helpers.view import anidamiento as view

    meta = {
        "status": "complete",
        **META,
        "anidamiento": {
            **META["anidamiento"],
            "modos": {
                "docker": {"modo": "casi --privileged", "opciones": ["--cap-add", "ALL"]},
                "podman": {"modo": "--privileged"},
            },
        },
    }
    shown = []
    monkeypatch.setattr(view, "show", lambda obj: shown.append(obj))
    view.tabla(Resultado(exp.EXPERIMENT, synthetic(), tmp_path, meta))
    arms = list(shown[-1].data["brazo"])
    docker = next(a for a in arms if a.startswith("Docker: nivel 2"))
    podman = next(a for a in arms if a.startswith("Podman: nivel 2 (motor"))
    assert "privilegiado" not in docker and "sin --privileged" in docker
    assert "privilegiado" in podman
