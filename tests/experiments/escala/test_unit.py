"""Unit tests of experiment 2's readers and parameter checks: no engine needed.

The cgroup v1 fixture holds the files of a real idle Docker container on this project's machines
(Docker 20.10, cgroupfs, v1 hybrid); there `docker stats` printed 848KiB = usage - total_inactive_file.
The v2 fixture follows the kernel's cgroup-v2 documentation (memory.current, memory.stat).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pytest

from helpers import cgroups, engines, system
from helpers.errors import ParametroInvalido
from helpers.experiments import escala

FIXTURES = Path(__file__).parents[2] / "fixtures"
V1, V2, PROC = FIXTURES / "cgroup_v1", FIXTURES / "cgroup_v2", FIXTURES / "proc"


# ---------------------------------------------------------------- cgroups
def test_layout_tells_v1_hybrid_from_v2():
    assert cgroups.layout(V1) == "v1"
    assert cgroups.layout(V2) == "v2"


def test_read_v1_memory_files():
    r = cgroups.read_memory("/docker/abc123", root=V1)
    assert r.version == "v1"
    assert r.usage == 1867776
    assert (r.anon, r.file, r.inactive_file) == (143360, 1257472, 999424)
    assert r.stats_view // 1024 == 848  # what `docker stats` printed for this container


def test_read_v2_memory_files():
    r = cgroups.read_memory("/system.slice/libpod-def456.scope", root=V2)
    assert r.version == "v2"
    assert r.usage == 749568
    assert (r.anon, r.file, r.inactive_file) == (94208, 610304, 364544)
    assert r.stats_view == 749568 - 364544


def test_missing_cgroup_raises():
    with pytest.raises(FileNotFoundError):
        cgroups.read_memory("/docker/nope", root=V1)


def test_read_many_times_the_reading():
    readings, seconds = cgroups.read_many(["/docker/abc123"] * 3, root=V1)
    assert len(readings) == 3 and seconds >= 0


def test_parse_memory_stat_skips_junk():
    assert cgroups.parse_memory_stat("a 1\nbroken\nb -2\nc x\n") == {"a": 1, "b": -2}


def test_proc_cgroup_v1_memory_line_wins():
    assert cgroups.cgroup_of_pid(4242, proc_root=PROC) == "/docker/abc123"
    assert cgroups.parse_proc_cgroup("1:cpu,cpuacct:/x\n0::/y\n", "cpuacct") == "/x"


def test_proc_cgroup_v2_unified_line():
    assert cgroups.cgroup_of_pid(4343, proc_root=PROC) == "/system.slice/libpod-def456.scope"
    assert cgroups.cgroup_of_pid(999999, proc_root=PROC) is None


def test_cgroup_from_inspect_prefers_explicit_path_then_pid():
    podman = {"State": {"Pid": 4343, "CgroupPath": "/libpod_parent/libpod-def456"}}
    docker = {"State": {"Pid": 4242}}  # Docker's inspect (API 1.41) has no cgroup field
    assert cgroups.cgroup_from_inspect(podman, proc_root=PROC) == "/libpod_parent/libpod-def456"
    assert cgroups.cgroup_from_inspect(docker, proc_root=PROC) == "/docker/abc123"
    assert cgroups.cgroup_from_inspect({"State": {"Pid": 0}}, proc_root=PROC) is None


def test_this_host_own_cgroup_is_readable():
    path = cgroups.cgroup_of_pid(os.getpid())
    assert path is not None
    if cgroups.memory_dir(path).is_dir():
        assert cgroups.read_memory(path).usage > 0


# ---------------------------------------------------------------- processes
def test_process_memory_of_this_process_has_rss_and_pss():
    reading = system.process_memory(psutil.Process())
    assert reading["rss"] > 0
    if os.geteuid() == 0:
        assert 0 < reading["pss"] <= reading["rss"] * 1.01


def test_memory_totals_sum_and_unknown_pss():
    rows = [{"rss": 10, "pss": 4}, {"rss": 20, "pss": 6}]
    assert system.memory_totals(rows) == {"count": 2, "rss": 30, "pss": 10}
    assert system.memory_totals(rows + [{"rss": 5, "pss": None}])["pss"] is None
    assert system.memory_totals([{"rss": None, "pss": None}]) == {"count": 0, "rss": 0, "pss": 0}


def test_helper_of_a_container_is_the_parent_of_its_pid1():
    child = psutil.Popen(["sleep", "5"])
    try:
        c = engines.get_engine("docker").describe({"Name": "/x", "Id": "i", "State": {"Pid": child.pid}})
        assert c.helper_pid == os.getpid()
        totals, names = escala.helper_memory([c, c])  # the same helper counted once
        assert totals["count"] == 1 and totals["rss"] > 0
        p = engines.get_engine("podman").describe({"State": {"Pid": child.pid, "ConmonPid": 1}})
        assert p.helper_pid == 1
    finally:
        child.kill()
        child.wait()


def test_parse_stats_sizes():
    assert escala.parse_size("848KiB ") == 848 * 1024
    assert escala.parse_size("749.6kB") == pytest.approx(749600)
    assert escala.parse_size("1.5MiB") == 1.5 * 2**20
    assert escala.parse_size("--") is None


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize("bad", [[], [0], [-3], [1.5], ["5"], [True], "diez", [201], None])
def test_bad_cantidades_are_refused_in_spanish(bad):
    with pytest.raises(ParametroInvalido) as err:
        escala.config(cantidades=bad)
    assert "CANTIDADES" in str(err.value)


def test_cantidades_are_sorted_and_deduplicated():
    assert escala.config(cantidades=[10, 1, 10, 5]).cantidades == [1, 5, 10]


def test_more_than_free_memory_is_refused_with_the_estimate():
    with pytest.raises(ParametroInvalido) as err:
        escala.check_memory([1, 150], ["docker"], available_bytes=2 * 2**30)
    text = str(err.value)
    assert "MB" in text and "150" in text and "caben" in text
    escala.check_memory([1, 150], ["docker"], available_bytes=64 * 2**30)  # fits: no error


@pytest.mark.parametrize(
    "params",
    [
        {"motores": []},
        {"motores": ["lxc"]},
        {"imagen": ["alpine", "ubuntu"]},
        {"repeticiones": 0},
        {"concurrencia": 99},
        {"comparar_stats": "sí"},
    ],
)
def test_other_bad_parameters(params):
    with pytest.raises(ParametroInvalido):
        escala.config(cantidades=[1], **params)


# ---------------------------------------------------------------- analysis on synthetic rows
def _rows(engine, n, rep, **metrics):
    return [
        {
            "experiment": "escala",
            "engine": engine,
            "image": "img",
            "variant": f"n={n}",
            "rep": rep,
            "metric": m,
            "value": v,
            "unit": "KB",
        }
        for m, v in metrics.items()
    ]


def test_crossover_with_and_without_helpers():
    rows = []
    for n in (1, 10):
        rows += _rows(
            "docker",
            n,
            1,
            rss_daemon=90_000,
            rss_containerd=40_000,
            rss_shims_total=13_000 * n,
            memoria_cgroup_total=600 * n,
        )
        rows += _rows("podman", n, 1, rss_conmon_total=2_000 * n, memoria_cgroup_total=300 * n)
    df = pd.DataFrame(rows)
    c = escala.crossover(df, "rss")
    assert c["n_cruce"] is None  # Docker's per-container cost is higher: no crossing
    assert c["n_cruce_modelo_semilla"] == pytest.approx(45)  # 90 MB / 2 MB per conmon
    cheap = df.copy()
    cheap.loc[cheap["metric"] == "rss_shims_total", "value"] = 0
    c2 = escala.crossover(cheap, "rss")
    assert c2["n_cruce"] == pytest.approx(130_000 / (2_300 - 600))
    status = {c.key: c.status for c in escala.claims(df)}
    # one repetition per N: no interval, so no verdict (with several, see the next test)
    assert status["cruce_rss"] == "sin_datos" and status["cruce_pss"] == "sin_datos"


def _noisy_class(reps=6, seed=0, shim_kb=13_000, conmon_kb=2_000):
    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(1, reps + 1):
        for n in (1, 5, 10, 20):
            rows += _rows(
                "docker",
                n,
                rep,
                rss_daemon=rng.normal(90_000, 500),
                rss_containerd=40_000,
                rss_shims_total=shim_kb * n * rng.normal(1, 0.02),
                memoria_cgroup_total=600 * n,
                memoria_cgroup_por_contenedor=rng.normal(600, 5),
                memoria_stats_por_contenedor=rng.normal(440, 5),
                lanzamiento_por_contenedor=rng.normal(300, 10),
            )
            rows += _rows(
                "podman",
                n,
                rep,
                rss_conmon_total=conmon_kb * n * rng.normal(1, 0.02),
                memoria_cgroup_total=300 * n,
                memoria_cgroup_por_contenedor=rng.normal(300, 3),
                memoria_stats_por_contenedor=rng.normal(97, 2),
                lanzamiento_por_contenedor=rng.normal(150, 10),
            )
    return pd.DataFrame(rows)


def test_crossover_has_an_interval_and_is_judged_by_the_rule():
    # no shims: Docker 130 MB fixed + 0.6 MB/container, Podman 1.9 MB/container -> N ≈ 100, «about 102»
    df = _noisy_class(shim_kb=0, conmon_kb=1_600)
    value, low, high = escala.crossover_interval(df, "rss")
    assert low < value < high and value == pytest.approx(130_000 / 1_300, rel=0.05)
    claims = {c.key: c for c in escala.claims(df)}
    assert claims["cruce_rss"].status == "se_confirma" and claims["cruce_rss"].n == 6
    # Podman 2.3 MB/container: N ≈ 76, a quarter below the chapter's ~102: outside «about»
    df = _noisy_class(shim_kb=0)
    assert {c.key: c.status for c in escala.claims(df)}["cruce_rss"] == "no_se_sostiene"
    # with the shims the lines never cross: the interval is [inf, inf] and excludes ~102
    df = _noisy_class()
    assert escala.crossover_interval(df, "rss")[1] == float("inf")
    assert {c.key: c.status for c in escala.claims(df)}["cruce_rss"] == "no_se_sostiene"


def test_scale_claims_in_the_chapter_words():
    claims = escala.claims(_noisy_class())
    by_key = {(c.key, c.detail.get("engine")): c for c in claims}
    assert by_key[("lanzamiento_2x", None)].status == "se_confirma"
    assert by_key[("cgroup_4x", None)].status == "se_confirma"
    assert by_key[("cgroup_estable", "docker")].status == "se_confirma"
    assert all(c.source == "el capítulo original" for c in claims)
    assert all(not math.isnan(c.low) for c in claims if c.status != "sin_datos")


def test_comparison_with_the_chapter_is_judged_like_a_claim():
    from helpers import reference

    c = escala.compare(_noisy_class(), None, reference.load("escala")).set_index("medida")
    # here ÷ the chapter's figure, with this run's interval, within 0.8×-1.25×
    assert c.loc["ms_por_contenedor", "acuerdo"] == "coincide"  # 0.51 here, 0.54 there
    assert c.loc["kb_por_contenedor", "acuerdo"] == "coincide"
    assert c.loc["memoria_proceso_kb", "acuerdo"] == "no_coincide"  # 0.45 here, 0.19 there
    # the chapter's four rows (one per N) are not six repetitions: its figure has no IC 95 %
    assert math.isnan(c.loc["ms_por_contenedor", "ref_podman_sobre_docker_ic_bajo"])
