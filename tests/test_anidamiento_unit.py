"""Experiment 7 (anidamiento) without engines: parameters, the nested command lines, error explanations,
analysis and verdicts on hand-made rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers import engines as eng
from helpers import reference
from helpers.errors import ParametroInvalido
from helpers.experiments import anidamiento as exp
from helpers.experiments import base


# ---------------------------------------------------------------- parameters
def test_defaults_are_valid():
    cfg = exp.config()
    assert cfg.niveles == [1, 2, 3] and cfg.privilegiado is True
    assert exp.config(**{k.lower(): v for k, v in exp.QUICK.items()}).niveles == [1, 2]


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
        ({"tamano_mb": 0}, "TAMANO_MB"),
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
    arms = exp.plan(exp.config(), ["docker", "podman"], busybox)
    got = {(a.engine, a.variant) for a in arms}
    assert got == {
        ("bare", "nivel0"),
        ("docker", "nivel1"),
        ("docker", "nivel2"),
        ("docker", "nivel3"),
        ("podman", "nivel1"),
        ("podman", "nivel2"),
        ("podman", exp.UNPRIV),
        ("podman", "nivel3"),
    }
    unprivileged = exp.plan(exp.config(privilegiado=False), ["docker", "podman"], busybox)
    assert {(a.engine, a.variant) for a in unprivileged} == {
        ("bare", "nivel0"),
        ("docker", "nivel1"),
        ("podman", "nivel1"),
        ("podman", exp.UNPRIV),
    }
    only_one = exp.plan(exp.config(niveles=[1]), ["podman"], busybox)
    assert [a.variant for a in only_one] == ["nivel0", "nivel1"]


def test_chain_wraps_one_exec_per_outer_container():
    chain = exp.Chain("podman", outer=["fuera", "medio"])
    argv = chain.wrap(["echo", "ok"])
    assert argv == ["podman", "exec", "fuera", "podman", "exec", "medio", "echo", "ok"]
    assert chain.wrap(["true"], depth=1) == ["podman", "exec", "fuera", "true"]
    assert exp.Chain("docker").wrap(["true"]) == ["true"]


def test_nested_options_mount_the_course_files_read_only_and_never_a_socket():
    opts = exp.nested_options("podman", mode={"privileged": True}, store="/tmp/almacen", inner=False)
    assert opts.privileged and opts.network == "none" and not opts.publish
    mounts = {inside: (host, mode) for host, inside, mode in opts.volumes}
    assert mounts[exp.SHARE_IN_CONTAINER] == (str(exp.SHARE), "ro")
    assert mounts[exp.PROBE_IN_CONTAINER][1] == "ro"
    assert mounts["/var/lib/containers"][0] == "/tmp/almacen"
    assert opts.env["CONTAINERS_CONF"].startswith(exp.SHARE_IN_CONTAINER)
    for engine_name in ("docker", "podman"):
        for inner in (False, True):
            o = exp.nested_options(engine_name, mode={}, store="/x", inner=inner)
            argv = eng.get_engine(engine_name).run_argv("img", ["true"], run_id="r", opts=o)
            assert not any("docker.sock" in a or "podman.sock" in a for a in argv)
            assert "--privileged" not in argv


def test_inner_conf_lives_in_the_course_cache():
    assert exp.INNER_CONF.is_relative_to(eng.CACHE_DIR)
    for key in ('cgroup_manager = "cgroupfs"', 'events_logger = "file"', 'runtime = "runc"', "nofile=1024"):
        assert key in exp.INNER_CONF_TEXT


def test_startup_command_is_the_same_at_every_level():
    argv = exp.startup_argv("podman", "img", "RUN")
    assert argv[:3] == ["podman", "run", "--rm"] and argv[-3:] == ["img", "echo", "ok"]
    assert "--network" in argv and "none" in argv


def test_missing_capabilities_from_the_bounding_set():
    assert exp.missing_capabilities("CapBnd:\t000001fffeffffff\n") == ["SYS_RESOURCE"]
    assert exp.missing_capabilities("CapBnd:\t000001ffffffffff\n") == []
    assert "SYS_ADMIN" in exp.missing_capabilities("CapBnd:\t0000000000000000\n")


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
    assert word in exp.explain(error)


def test_short_error_keeps_the_error_line():
    text = "Getting image source signatures\nCopying blob\nError: runc: mount proc: denied\n"
    assert exp.short_error(text) == "Error: runc: mount proc: denied"
    assert exp.short_error("") == "(sin mensaje)"


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


def synthetic(start_l2_factor=1.1, work_l2_factor=1.0, n=12, seed=1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def noisy(center):
        return list(center * (1 + 0.01 * rng.standard_normal(n)))

    rows = _rows("bare", "nivel0", exp.METRIC_START_INNER, noisy(1.0), "ms")
    rows += _rows("bare", "nivel0", exp.METRIC_WORK, noisy(0.5), "s")
    for engine, start in (("docker", 300.0), ("podman", 200.0)):
        rows += _rows(engine, "nivel1", exp.METRIC_START_INNER, noisy(start), "ms")
        rows += _rows(engine, "nivel2", exp.METRIC_START_INNER, noisy(start * start_l2_factor), "ms")
        rows += _rows(engine, "nivel3", exp.METRIC_START_INNER, noisy(start * start_l2_factor**2), "ms")
        rows += _rows(engine, "nivel1", exp.METRIC_WORK, noisy(0.5), "s")
        rows += _rows(engine, "nivel2", exp.METRIC_WORK, noisy(0.5 * work_l2_factor), "s")
        rows += _rows(engine, "nivel1", exp.METRIC_WORK_E2E, noisy(0.6), "s")
        rows += _rows(engine, "nivel2", exp.METRIC_WORK_E2E, noisy(0.7), "s")
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
            },
            {
                "clave": "seccomp_unmask",
                "opciones": "seccomp=unconfined + unmask=ALL",
                "ok": True,
                "error": "",
            },
        ]
    },
}


def test_level_ratios_compare_each_level_with_the_one_above():
    table = exp.level_ratios(synthetic(start_l2_factor=1.2), exp.METRIC_START_INNER)
    pairs = {(r["engine"], r["variant"]): r["base"] for _, r in table.iterrows()}
    assert pairs[("docker", "nivel1")] == "bare:nivel0"
    assert pairs[("docker", "nivel2")] == "docker:nivel1"
    assert pairs[("podman", "nivel3")] == "podman:nivel2"
    row = table[(table["engine"] == "podman") & (table["variant"] == "nivel2")].iloc[0]
    assert row["ic_bajo"] < 1.2 < row["ic_alto"] or abs(row["ratio"] - 1.2) < 0.02


def test_claims_follow_the_one_rule():
    claims = {(c.key, c.detail.get("engine")): c for c in exp.claims(synthetic(1.1, 1.0), META)}
    moderate = claims[("arranque_aditivo", "docker")]
    assert moderate.status == base.SE_CONFIRMA and moderate.source == exp.SOURCE
    assert moderate.detail["nivel3_sobre_nivel2"] is not None
    cpu = claims[("cpu_acumula", "podman")]
    assert cpu.status == base.NO_SE_SOSTIENE  # the IC sits at 1.0 and excludes the chapter's +24 %
    assert cpu.detail["extremo_a_extremo"][0] > 1.1
    privileged = claims[("pip_necesita_privileged", None)]
    assert privileged.status == base.NO_SE_SOSTIENE
    assert privileged.detail["funciono_con"] == "seccomp=unconfined + unmask=ALL"
    assert privileged.detail["error_del_capitulo_visto"]


def test_big_startup_overhead_is_not_moderate():
    claims = {(c.key, c.detail.get("engine")): c for c in exp.claims(synthetic(2.0, 1.3), META)}
    assert claims[("arranque_aditivo", "podman")].status == base.NO_SE_SOSTIENE
    assert claims[("cpu_acumula", "docker")].status == base.SE_CONFIRMA


def test_privileged_claim_confirmed_when_every_attempt_fails():
    meta = {
        "anidamiento": {
            "intentos_sin_privilegios": [
                {"clave": k, "opciones": k, "ok": False, "error": "mount proc"} for k in ("a", "b")
            ]
        }
    }
    claim = [
        c
        for c in exp.claims(pd.DataFrame(columns=synthetic().columns), meta)
        if c.key == "pip_necesita_privileged"
    ][0]
    assert claim.status == base.SE_CONFIRMA


def test_claims_without_data_say_so():
    claims = exp.claims(pd.DataFrame(columns=synthetic().columns), {})
    assert {c.key for c in claims} == {
        "arranque_aditivo",
        "cpu_acumula",
        "causa_syscalls",
        "pip_necesita_privileged",
    }
    assert all(c.status == base.SIN_DATOS for c in claims)
    syscall = [c for c in claims if c.key == "causa_syscalls"][0]
    assert "05_llamadas_sistema" in syscall.detail["motivo"] or syscall.detail.get("de_llamadas")


def test_summary_flags_and_orders():
    s = exp.summarize(synthetic(), META)
    assert {"mediana", "q1", "q3", "ic_bajo", "ic_alto", "inestable"} <= set(s.columns)
    assert not s["inestable"].any()
    assert exp.summarize(pd.DataFrame(), None).empty


def test_reference_and_comparison():
    ref = reference.load(exp.EXPERIMENT)
    assert set(ref["source"]) == {"fdd_p26"}
    assert set(ref["metric"]) == {exp.METRIC_START, exp.METRIC_WORK_E2E}
    ratios = exp.level_ratios(ref, exp.METRIC_START)
    podman2 = ratios[(ratios["engine"] == "podman") & (ratios["variant"] == "nivel2")].iloc[0]
    assert podman2["ratio"] == pytest.approx(241 / 166)
    cmp = exp.compare(synthetic(), META, ref)
    assert set(cmp["medida"]) >= {exp.METRIC_START_INNER, exp.METRIC_WORK}
    row = cmp[
        (cmp["medida"] == exp.METRIC_START_INNER) & (cmp["engine"] == "docker") & (cmp["variant"] == "nivel2")
    ].iloc[0]
    assert row["referencia"] == pytest.approx(340 / 315)
    assert not np.isnan(row["tu_proporcion"])


def test_closing_rows_use_the_closing_columns():
    rows = exp.closing_rows(synthetic(), META)
    assert list(rows.columns) == base.CLOSING_COLUMNS
    assert set(rows["tipo"]) == {"LAUNCH", "RUNNING"}
    assert set(rows["entorno"]) == {"docker", "podman"}
