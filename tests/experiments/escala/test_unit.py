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
from helpers.course.facts import escala as escala_kit
from helpers.errors import ParametroInvalido
from helpers.experiments import escala
from helpers.experiments.escala import measure as escala_measure
from helpers.experiments.escala import probing as escala_probing
from helpers.experiments.escala.analysis import (
    SEED_CROSSOVER,
    compare,
    crossover,
    crossover_interval,
    memory_bill,
    wide,
)
from helpers.experiments.escala.probing import launch as escala_launch
from tests.support import assert_round_rows_change_nothing

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
        totals, names = escala_probing.helper_memory([c, c])  # the same helper counted once
        assert totals["count"] == 1 and totals["rss"] > 0
        p = engines.get_engine("podman").describe({"State": {"Pid": child.pid, "ConmonPid": 1}})
        assert p.helper_pid == 1
    finally:
        child.kill()
        child.wait()


def test_parse_stats_sizes():
    assert escala_probing.parse_size("848KiB ") == 848 * 1024
    assert escala_probing.parse_size("749.6kB") == pytest.approx(749600)
    assert escala_probing.parse_size("1.5MiB") == 1.5 * 2**20
    assert escala_probing.parse_size("--") is None


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize("bad", [[], [-3], [1.5], ["5"], [True], "diez", [201], None])
def test_bad_cantidades_are_refused_in_spanish(bad):
    with pytest.raises(ParametroInvalido) as err:
        escala.config(cantidades=bad)
    assert "CANTIDADES" in str(err.value)


def test_cantidades_are_sorted_and_deduplicated():
    assert escala.config(cantidades=[10, 1, 10, 5]).cantidades == [1, 5, 10]


def test_more_than_free_memory_is_refused_with_the_estimate():
    with pytest.raises(ParametroInvalido) as err:
        escala_measure.check_memory([1, 150], ["docker"], available_bytes=2 * 2**30)
    text = str(err.value)
    assert "MiB" in text and "150" in text and "caben" in text
    escala_measure.check_memory([1, 150], ["docker"], available_bytes=64 * 2**30)  # fits: no error


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
    c = crossover(df, "rss")
    assert c["n_cruce"] is None  # Docker's per-container cost is higher: no crossing
    assert c["n_cruce_modelo_semilla"] == pytest.approx(45)  # 90 MB / 2 MB per conmon
    cheap = df.copy()
    cheap.loc[cheap["metric"] == "rss_shims_total", "value"] = 0
    c2 = crossover(cheap, "rss")
    assert c2["n_cruce"] == pytest.approx(130_000 / (2_300 - 600))
    status = {c.key: c.status for c in escala.claims(df)}
    # one repetition per N: no interval, so no verdict (with several, see the next test)
    assert status["cruce_102"] == "sin_datos"


CHAPTER_META = {"launch_network": "por_defecto", "parameters": {"concurrencia": 1, "red": "por_defecto"}}


def _noisy_class(
    reps=6, seed=0, shim_kb=13_000, conmon_kb=2_000, ns=(1, 5, 10, 20), docker_ms=300, podman_ms=150
):
    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(1, reps + 1):
        rows += _rows("docker", 0, rep, rss_daemon=rng.normal(90_000, 500), rss_containerd=40_000)
        for n in ns:
            d_ms, p_ms = rng.normal(docker_ms, 10), rng.normal(podman_ms, 10)
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
                lanzamiento_por_contenedor=d_ms,
                lanzamiento_total=d_ms * n / 1000,
            )
            rows += _rows(
                "podman",
                n,
                rep,
                rss_conmon_total=conmon_kb * n * rng.normal(1, 0.02),
                memoria_cgroup_total=300 * n,
                memoria_cgroup_por_contenedor=rng.normal(300, 3),
                memoria_stats_por_contenedor=rng.normal(97, 2),
                lanzamiento_por_contenedor=p_ms,
                lanzamiento_total=p_ms * n / 1000,
            )
    return pd.DataFrame(rows)


def test_the_chapter_crossover_is_judged_as_the_chapter_computed_it():
    # dockerd 90 MB against 2 MB per conmon: the chapter's arithmetic gives 45 on these data
    df = _noisy_class(shim_kb=0)
    c = {c.key: c for c in escala.claims(df, CHAPTER_META)}["cruce_102"]
    assert c.value == pytest.approx(45, rel=0.05) and c.low < c.value < c.high and c.n == 6
    assert c.status == "no_se_sostiene" and "El impuesto del daemon" in c.where
    # with a daemon twice as big the same arithmetic lands near 90, inside «unos 102»
    big = df.copy()
    big.loc[big.metric == "rss_daemon", "value"] *= 2
    assert {c.key: c for c in escala.claims(big, CHAPTER_META)}["cruce_102"].status == "se_confirma"


def test_the_whole_bill_has_its_own_crossover_with_an_interval():
    # no shims: Docker 130 MB fixed + 0.6 MB/container, Podman 2.3 MB/container -> N ≈ 76
    df = _noisy_class(shim_kb=0)
    value, low, high = crossover_interval(df, "rss")
    assert low < value < high and value == pytest.approx(130_000 / 1_700, rel=0.05)
    # with the shims the lines never cross
    assert crossover_interval(_noisy_class(), "rss")[1] == float("inf")


def test_scale_claims_in_the_chapter_words_count_repetitions_not_rows():
    claims = escala.claims(_noisy_class(), CHAPTER_META)
    by_key = {(c.key, c.detail.get("engine")): c for c in claims}
    launch = by_key[("lanzamiento_20", None)]
    assert launch.status == "se_confirma" and launch.n == 6  # 6 repetitions at N = 20, not 20 rows
    assert "20 contenedores" in launch.where
    assert by_key[("cgroup_4x", None)].status == "se_confirma" and by_key[("cgroup_4x", None)].n == 6
    assert by_key[("cgroup_estable", "docker")].status == "se_confirma"
    assert by_key[("daemon_fijo", None)].status == "se_confirma"
    assert all(c.source == "el capítulo original" and c.where for c in claims)
    assert all(not math.isnan(c.low) for c in claims if c.status != "sin_datos")


def test_launch_claims_are_not_judged_outside_the_chapter_conditions():
    df = _noisy_class()
    for meta in (
        {"launch_network": "sin_red", "parameters": {"red": "sin_red"}},
        {"launch_network": "por_defecto", "parameters": {"concurrencia": 4}},
    ):
        by_key = {c.key: c for c in escala.claims(df, meta)}
        assert by_key["lanzamiento_20"].status == "no_comparable"
        assert by_key["escala_constante"].status == "no_comparable"
        assert by_key["cgroup_4x"].status == "se_confirma"  # memory does not depend on how it launched


@pytest.mark.parametrize(
    "docker_ms_per_n, podman_spread, expected",
    [(10, 5, {"se_confirma"}), (10, 300, {"no_se_sostiene"}), (0, 0, {"no_concluyente", "no_se_sostiene"})],
)
def test_steadiness_compares_each_engine_s_slope_across_n(docker_ms_per_n, podman_spread, expected):
    """Docker's time per container grows with N (its daemon), Podman's not: confirmed; Podman's growing
    three times over: refuted; neither growing: never confirmed, whatever the noise between N."""
    df = _noisy_class(reps=8)
    at = df["metric"] == "lanzamiento_por_contenedor"
    n = df["variant"].str.extract(r"n=(\d+)", expand=False).astype(float)
    docker, podman = at & (df.engine == "docker"), at & (df.engine == "podman")
    df.loc[docker, "value"] += n[docker] * docker_ms_per_n  # Docker: 190 ms more from N = 1 to 20
    df.loc[podman, "value"] += n[podman] / 20 * podman_spread
    c = {c.key: c for c in escala.claims(df, CHAPTER_META)}["escala_constante"]
    assert c.status in expected and c.n == 8
    assert set(c.detail["crecimiento"]) == {"docker", "podman"}


def test_default_batches_are_the_chapters_with_the_daemon_alone():
    """The chapter's N = 1, 5, 10 and 20 by default (four points can show whether launch time grows in a
    straight line; two always lie on one), and N = 0 for dockerd with no container (daemon_fijo), in the
    Config and in the notebook's parameters cell alike."""
    import ast

    import nbformat

    from helpers import PROJECT_ROOT

    assert escala.Config().cantidades == [0, 1, 5, 10, 20]
    nb = nbformat.read(PROJECT_ROOT / "notebooks" / "02_escala.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    values = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in ast.parse(cell.source).body
        if isinstance(node, ast.Assign)
    }
    assert values["CANTIDADES"] == escala.Config().cantidades


def test_n_zero_is_allowed_and_only_docker_measures_it():
    cfg = escala.config(cantidades=[0, 1, 20])
    assert cfg.cantidades == [0, 1, 20]
    arms = escala_measure.plan(cfg.cantidades, ["docker", "podman"])
    assert [(a.engine, a.n) for a in arms if a.n == 0] == [("docker", 0)]


def test_default_run_reaches_the_verdicts_minimum_and_quick_says_it_does_not():
    from helpers.experiments import verdict
    from helpers.view import common

    assert escala.Config().repeticiones >= verdict.MIN_N
    quick = _noisy_class(reps=escala.QUICK["REPETICIONES"], ns=(1, 3))
    n = max(c.n for c in escala.claims(quick, CHAPTER_META))
    if escala.QUICK["REPETICIONES"] < verdict.MIN_N:
        assert "sin veredictos" in common.too_few_banner(n)
    else:
        assert common.too_few_banner(n) == ""


def test_the_launch_window_holds_only_the_launches():
    """No callback reaches inside the timed batch (the progress bar moves between steps)."""
    import inspect

    assert list(inspect.signature(escala_launch).parameters) == ["engine", "argvs", "concurrency", "env"]


def test_comparison_with_the_chapter_is_at_the_same_n():
    from helpers import reference

    c = compare(_noisy_class(), None, reference.load("escala")).set_index("medida")
    assert set(c["n"]) == {20}
    assert c.loc["s_lanzamiento_total", "acuerdo"] == "coincide"  # 0.5 here, 0.496 there
    assert (
        c.loc["memoria_proceso_kb", "acuerdo"] == "no_coincide"
    )  # dockerd 90 MB vs 40 MB of conmon: 0.44, not 0.19
    low, high = c.loc[
        "s_lanzamiento_total", ["tu_podman_sobre_docker_ic_bajo", "tu_podman_sobre_docker_ic_alto"]
    ]
    assert low < 0.5 < high
    assert np.isnan(
        c.loc["s_lanzamiento_total", "ref_podman_sobre_docker_ic_bajo"]
    )  # one figure, no interval


# ---------------------------------------------------------------- sentences that follow the data
def test_the_free_sentence_follows_the_noise_both_ways():
    from helpers.view import escala as vista

    row = {"engine": "docker", "n": 1, "cgroup_total_kb": 600.0, "delta_sistema_kb": 0.0}
    noisy = pd.DataFrame(
        [
            {
                **row,
                "ruido_sistema_kb": 50_000.0,
                "ruido_sistema_min_kb": -80_000.0,
                "ruido_sistema_max_kb": 1.0,
            }
        ]
    )
    quiet = pd.DataFrame(
        [{**row, "ruido_sistema_kb": 100.0, "ruido_sistema_min_kb": -50.0, "ruido_sistema_max_kb": 120.0}]
    )
    assert "no lo distinguiría" in vista.frase_ruido(noisy)
    text = vista.frase_ruido(quiet)
    assert "no lo distinguiría" not in text and "habría visto la diferencia" in text


def test_the_stats_sentence_follows_the_timings_both_ways():
    from helpers.view import escala as vista

    base = {"engine": "docker", "n": 20, "tiempo_inspect_y_lectura": 0.1}
    slow = pd.DataFrame([{**base, "tiempo_stats_cli": 2.7, "veces_mas_lento": 27.0}])
    fast = pd.DataFrame([{**base, "tiempo_stats_cli": 0.05, "veces_mas_lento": 0.5}])
    # One timing each (no interval): the ratio is said, and no direction is read from it (verdict.direction)
    # and each figure with 2 significant digits, as every figure without an interval («368.6×» was not)
    assert "tardó 2.7 s, 27× lo que buscar" in vista.frase_stats(slow)
    assert "tardó 0.050 s, 0.50× lo que buscar" in vista.frase_stats(fast)
    odd = pd.DataFrame([{**base, "tiempo_stats_cli": 2.5432, "veces_mas_lento": 368.62}])
    assert "tardó 2.5 s, 370× lo que buscar" in vista.frase_stats(odd), vista.frase_stats(odd)
    assert not any(w in vista.frase_stats(t) for t in (slow, fast) for w in (": más", ": menos"))


def test_the_bill_sentence_gives_each_helper_from_the_data():
    import re

    from helpers.view import escala as vista

    def helpers_mib(text):
        return {k: float(v) for k, v in re.findall(r"cada (shim|conmon) ([\d.]+) MiB", text)}

    got = helpers_mib(vista.frase_factura(memory_bill(_noisy_class()), "rss"))
    assert got["shim"] == pytest.approx(13_000 / 1024, rel=0.05) and got["conmon"] == pytest.approx(
        2_000 / 1024, rel=0.05
    )
    got = helpers_mib(vista.frase_factura(memory_bill(_noisy_class(shim_kb=1_000, conmon_kb=8_000)), "rss"))
    assert got["shim"] < got["conmon"]
    text = vista.frase_factura(memory_bill(_noisy_class(shim_kb=13_210)), "rss")
    assert not re.search(r"\d\d\.\d\d MiB", text), text  # «13 MiB», never «12.90 MiB»


def test_02_cites_01_answer_and_says_its_own_conditions(results_tmp, monkeypatch):
    import IPython.display

    from helpers import results
    from helpers.experiments.runner import Resultado
    from helpers.view import escala as vista

    shown = []
    monkeypatch.setattr(
        IPython.display, "display", lambda obj, *a, **k: shown.append(getattr(obj, "data", ""))
    )
    res = Resultado(
        "escala", _noisy_class(), results_tmp, {**CHAPTER_META, "parameters": {"imagen": "ubuntu"}}
    )
    vista.respuesta_de_01(res, root=results_tmp)
    assert "01_arranque" in shown[0]  # no run of 01 yet: say so
    with results.Run("arranque", {}, results_tmp) as run:
        for rep in range(1, 9):
            for engine_name, ms in (("docker", 400.0), ("podman", 200.0)):
                run.append(
                    engine=engine_name,
                    image="ubuntu",
                    variant="por_defecto",
                    rep=rep,
                    metric="arranque",
                    value=ms + (3 * rep) % 8,  # a wobble, not a trend over the rounds
                    unit="ms",
                )
    shown.clear()
    vista.respuesta_de_01(res, root=results_tmp)
    assert "Lo decide el cuaderno 01" in shown[0] and "se confirma" in shown[0]
    assert "uno tras otro, con la red por defecto" in shown[1]


def test_the_chapter_comparison_words_every_agreement_outcome(monkeypatch):
    """«no concluyente» (the interval ÷ the chapter's figure straddles the margin) used to print «nan» in
    the table and be listed as «no coincide» in the sentence."""
    import IPython.display

    from helpers import reference
    from helpers.experiments.runner import Resultado
    from helpers.view import escala as vista

    # Podman/Docker ≈ 0.61 against the chapter's 0.496: ÷ ≈ 1.23, an interval across the 1.25 end but
    # entirely above 1 (the chapter's figure outside it): «no coincide» (issue 41: disjoint, never
    # «no concluyente»)
    chapter = reference.load("escala")
    apart = compare(_noisy_class(docker_ms=300, podman_ms=184, seed=3), CHAPTER_META, chapter)
    assert apart.set_index("medida").loc["s_lanzamiento_total", "acuerdo"] == "no_coincide"
    # ≈ 0.43 against 0.496: ÷ [0.72, 1.03], an interval that holds 1 and crosses the 0.8 end
    df = _noisy_class(docker_ms=300, podman_ms=128, seed=8)
    c = compare(df, CHAPTER_META, chapter).set_index("medida")
    assert c.loc["s_lanzamiento_total", "acuerdo"] == "no_concluyente"
    text = vista.frase_referencia(c.reset_index())
    assert (
        "No concluyente" in text and "el tiempo total de lanzar la tanda" in text.split("No concluyente")[1]
    )
    assert "el tiempo total" not in text.split("No concluyente")[0]
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.comparacion(Resultado("escala", df, None, CHAPTER_META))
    cells = shown[0].data.to_string()
    assert "nan" not in cells and "no concluyente" in cells
    assert "0.0947" in cells  # the chapter's 97 KB, not rounded to 0.09 MiB


def test_02_says_whether_its_batches_and_01_point_the_same_way():
    from types import SimpleNamespace

    from helpers.experiments import verdict
    from helpers.view import common
    from helpers.view.escala_frases import same_way

    n = verdict.MIN_N
    podman_first = SimpleNamespace(value=0.7, low=0.67, high=0.74, n=n)
    assert "mismo lado: arranca antes Podman" in same_way(podman_first, 0.6, 0.58, 0.63, n)
    text = same_way(podman_first, 1.2, 1.1, 1.3, n)
    assert "en 01 arranca antes Podman y en estas tandas Docker" in text
    assert "no se puede decir" in same_way(podman_first, 0.9, 0.8, 1.1, n)
    assert "no se puede decir" in same_way(None, 0.6, 0.58, 0.63, n)
    # 1.03× [1.01, 1.04] lies inside «casi igual» (0.95×-1.05×): it points nowhere, though it excludes 1
    assert "no se puede decir" in same_way(podman_first, 1.03, 1.01, 1.04, n)
    few = same_way(podman_first, 0.64, float("nan"), float("nan"), n - 1)
    assert "no tienen IC 95 %" in few and common.too_few(n - 1) in few
    # 01 below the minimum: no direction there either, whatever its median says
    assert "no se puede decir" in same_way(
        SimpleNamespace(value=0.7, low=0.6, high=0.8, n=n - 1), 0.6, 0.58, 0.63, n
    )


def test_the_free_sentence_gives_the_noise_over_the_signal_and_the_chapter_arithmetic():
    from helpers.view import escala as vista

    row = {"engine": "docker", "n": 1, "cgroup_total_kb": 500.0, "delta_sistema_kb": 0.0}
    noisy = pd.DataFrame(
        [{**row, "ruido_sistema_kb": 5_000.0, "ruido_sistema_min_kb": -50_000.0, "ruido_sistema_max_kb": 1.0}]
    )
    text = vista.frase_ruido(noisy)
    assert "100× lo que se quería pesar" in text  # 50 000 KB of noise over 500 KB
    assert "120×" in text and "360×" in text  # the chapter's ±50-150 MiB over its 437 kB (decimal)


@pytest.mark.parametrize(
    "shim_kb,conmon_kb,words", [(3_000, 400, "el shim pesa más"), (300, 900, "el conmon pesa")]
)
def test_the_kit_facts_of_02_follow_the_run_both_ways(shim_kb, conmon_kb, words, tmp_path):
    """Exercise 6 (which helper weighs more with PSS) and exercise 7 (the chapter's arithmetic with its
    verdict, apart from the whole bill's crossing) come from the run, never from the page."""
    from helpers.experiments.runner import Resultado

    df = _noisy_class(shim_kb=shim_kb * 3, conmon_kb=conmon_kb * 3)
    extra = df[df.metric.isin(["rss_shims_total", "rss_conmon_total"])].copy()
    extra["metric"] = extra["metric"].str.replace("rss_", "pss_")
    extra["value"] /= 3
    facts = escala_kit.facts(Resultado("escala", pd.concat([df, extra]), tmp_path, CHAPTER_META))
    assert words in facts["pss_ayudantes"]
    chapter = {c.key: c for c in escala.claims(df, CHAPTER_META)}["cruce_102"]
    assert f"veredicto «{chapter.status.replace('_', ' ')}" in facts["cruce"]
    assert "la cuenta del capítulo (dockerd ÷ un conmon)" in facts["cruce"]
    assert "con la factura completa y RSS" in facts["cruce"]


def test_the_kit_answers_capacity_with_09s_count_and_the_limit_that_binds_first(tmp_path):
    """Solution 02's «cuántos caben» is 09's CAPACITY (cierre.capacity_of, the same sentence): the bridge's
    1 023 ports bind before the memory's tens of thousands, and the memory alone is never the answer."""
    from helpers import cierre
    from helpers.experiments.runner import Resultado
    from helpers.view import cierre as closing

    df = _noisy_class()
    extra = df[df.metric.isin(["rss_shims_total", "rss_conmon_total"])].copy()
    extra["metric"] = extra["metric"].str.replace("rss_", "pss_")
    df = pd.concat([df, extra])
    meta = {**CHAPTER_META, "host": {"memory_available_bytes": 64 * 2**30}}
    res = Resultado("escala", df, tmp_path, meta)
    found = cierre.capacity_of(res)
    assert found and all(cap.binding == cierre.BRIDGE for cap in found)  # the chapter launched on a bridge
    text = escala_kit.facts(res)["caben"]
    assert "cabrían" not in text
    for cap in found:
        assert closing.capacity_sentence(cap) in text and "lo primero que se acaba" in text
    bare = escala_kit.facts(Resultado("escala", df, tmp_path, CHAPTER_META))["caben"]
    assert "la memoria (meta.json no la registró)" in bare


def test_the_results_table_and_the_bill_print_the_same_fixed_memory(monkeypatch):
    """dockerd + containerd used to be a sum of two medians in one table and the median of the sums in
    the other (136.0 against 136.1 MiB for the same N = 0)."""
    import IPython.display

    from helpers.experiments.runner import Resultado
    from helpers.view import escala as vista

    df = _noisy_class()
    df.loc[df.metric == "rss_containerd", "value"] = np.random.default_rng(1).normal(
        40_000, 3_000, (df.metric == "rss_containerd").sum()
    )
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.tabla(Resultado("escala", df, None, CHAPTER_META))
    vista.tabla_factura(Resultado("escala", df, None, CHAPTER_META), "rss")
    main = shown[0].data.set_index(["motor", "N"])["RSS dockerd + containerd (MiB)"]
    bill = shown[1].data.set_index(["motor", "N"])["procesos fijos (MiB)"]
    for key in [("Docker", 0), ("Docker", 20)]:
        assert main[key] == bill[key]
    assert main[("Podman", 20)] == "—"


def test_the_chapter_figures_of_the_scale_claims_match_its_raw_rows():
    """The figures claims.py and its notes quote (184 MB and 1.8 MB per conmon, the per-container ranges
    of its table) come out of escala.csv, so the claims and the reference cannot drift apart."""
    from helpers import reference

    w = wide(reference.load("escala"))
    per = {
        e: w[w.engine == e].set_index("n")["lanzamiento_total"] * 1000 / w[w.engine == e].set_index("n").index
        for e in ("docker", "podman")
    }
    assert (round(per["docker"].min()), round(per["docker"].max())) == (220, 350)
    assert (round(per["podman"].min()), round(per["podman"].max())) == (123, 190)
    daemon_mb = w[w.engine == "docker"]["rss_daemon"].median() / 1000
    conmon_mb = (
        w[w.engine == "podman"].set_index("n")["rss_conmon_total"]
        / w[w.engine == "podman"].set_index("n").index
    ).median() / 1000
    assert round(daemon_mb) == 184 and round(conmon_mb, 1) == 1.8
    assert SEED_CROSSOVER == round(184 / 1.8)


def test_the_rows_of_the_rounds_change_no_claim_and_no_closing_row(tmp_path):
    """The machine's load per round and each arm's position (runner.measure_rounds) are not measurements."""
    # analysis.wide pivots every row of the df it is given, so escala relies on the loader setting the
    # rows of the rounds apart (Resultado.load): on raw rows that still hold them, its claims fail.
    assert_round_rows_change_nothing(escala, _noisy_class(), CHAPTER_META, tmp_path / "rondas", raw_too=False)


def test_capacity_without_any_readable_limit_says_so_instead_of_crashing():
    """A run of 02 that lets no limit be read (no host memory, no bridge, no pid_max) has no binding
    limit: 09's sentence says it cannot tell how many fit (it used to raise KeyError: None)."""
    from helpers import cierre, stats
    from helpers.view import cierre as closing

    kb = stats.Estimate(3_000.0, 2_900.0, 3_100.0, n=6)
    cap = cierre.Capacity("docker", 20, kb, 1.0, "", float("nan"))
    assert cap.binding is None
    text = closing.capacity_sentence(cap)
    assert "no deja leer ningún límite" in text and "lo primero que se acaba" not in text


@pytest.mark.parametrize("reps", [2, 8])
def test_the_steadiness_note_writes_each_engine_s_growth_as_the_course_writes_a_ratio(reps):
    """«Podman 1.15× [1.10, 1.40]», the «×» after the number; with too few rounds for an interval, the
    figure alone (never «IC 95 % de nan a nan»)."""
    c = {c.key: c for c in escala.claims(_noisy_class(reps=reps), CHAPTER_META)}["escala_constante"]
    assert "nan" not in c.note.lower() and " ×" not in c.note, c.note
    assert ("[" in c.note) == (reps >= 6), c.note


def test_capacity_without_an_interval_gives_the_count_alone(tmp_path):
    """Two repetitions give the memory per container no interval: «caben unos 3 700», never «[—, —]»."""
    from helpers import cierre
    from helpers.experiments.runner import Resultado
    from helpers.view import cierre as closing

    df = _noisy_class(reps=2)
    extra = df[df.metric.isin(["rss_shims_total", "rss_conmon_total"])].copy()
    extra["metric"] = extra["metric"].str.replace("rss_", "pss_")
    meta = {**CHAPTER_META, "host": {"memory_available_bytes": 64 * 2**30}}
    found = cierre.capacity_of(Resultado("escala", pd.concat([df, extra]), tmp_path, meta))
    assert found
    for cap in found:
        text = closing.capacity_sentence(cap)
        assert "—" not in text and "caben unos" in text, text


def test_the_comparison_sentence_says_which_side_has_no_figure():
    """A quick run (N = 3) has both engines, but the chapter published N = 1, 5, 10 and 20: the sentence
    says the chapter has no figure at that N, never «Faltan datos de Docker o de Podman»; and figures
    without an interval say that no interval decides them."""
    from helpers.view import escala_frases

    row = {"medida": "s_lanzamiento_total", "n": 3, "acuerdo": "sin_datos"}
    row |= {"tu_podman_sobre_docker": 0.67, "tu_docker": 0.86, "tu_podman": 0.57}
    row |= {"ref_podman_sobre_docker": np.nan, "ref_docker": np.nan, "ref_podman": np.nan}
    text = escala_frases.frase_referencia(pd.DataFrame([row]))
    assert "Docker o de Podman" not in text and "N = 3" in text, text
    row |= {"ref_podman_sobre_docker": 0.5, "ref_docker": 5.5, "ref_podman": 2.7}
    text = escala_frases.frase_referencia(pd.DataFrame([row]))
    assert "Docker o de Podman" not in text and "IC 95 %" in text, text
