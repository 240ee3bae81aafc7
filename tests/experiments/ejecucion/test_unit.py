"""Experiment 3 without engines: parameters, the plan of arms, analysis, claims and views, on synthetic rows."""

from __future__ import annotations

import importlib
import re

import IPython.display
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from helpers import reference, results, stats  # noqa: E402
from helpers.errors import ParametroInvalido  # noqa: E402
from helpers.experiments import ejecucion as exp  # noqa: E402
from helpers.experiments import figures, runner, verdict  # noqa: E402
from helpers.experiments.contract import CLOSING_COLUMNS  # noqa: E402
from helpers.experiments.ejecucion import arms as ejecucion_arms
from helpers.experiments.ejecucion import measure  # noqa: E402
from helpers.experiments.ejecucion.analysis import (
    compare,
    exec_costs,
    explanation,
    layer_vs_volume,
    overheads,
    samples,
    summarize,
    tidy,
)
from helpers.experiments.ejecucion.analysis import reading as ejecucion_reading
from helpers.experiments.ejecucion.arms import WORKLOAD_NAMES
from helpers.view import common, figuras  # noqa: E402
from helpers.view import ejecucion as vista  # noqa: E402
from helpers.view import ejecucion_frases as frases  # noqa: E402
from tests.support import assert_round_rows_change_nothing, capture_figures, write_run

claims_mod = importlib.import_module(
    "helpers.experiments.ejecucion.claims"
)  # the package's `claims` is the function


def rows(engine, image, variant, metric, values):
    return [
        {
            "experiment": "ejecucion",
            "engine": engine,
            "image": image,
            "variant": variant,
            "rep": i + 1,
            "metric": metric,
            "value": float(v),
            "unit": "s",
        }
        for i, v in enumerate(values)
    ]


def spread(center, n=verdict.MIN_N + 2, width=0.02):
    """n values spread within about ±width around center, each round a little off its neighbours (so
    per-round figures vary too): deterministic, so every verdict is too."""
    wobble = np.random.default_rng(int(center * 1e6) % 2**32).uniform(-0.2, 0.2, n) * width
    return center * (1 + np.linspace(-width, width, n) + wobble)


def claim(claims, key, engine):
    return next(c for c in claims if c.key == key and c.detail["engine"] == engine)


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "params, message",
    [
        ({"repeticiones": 0}, "REPETICIONES"),
        ({"repeticiones": "5"}, "REPETICIONES"),
        ({"repeticiones": True}, "REPETICIONES"),
        ({"cargas": ["hash", "bitcoin"]}, "CARGAS"),
        ({"cargas": []}, "CARGAS"),
        ({"motores": ["lxc"]}, "MOTORES"),
        ({"imagen": "fedora"}, "IMAGEN"),
        ({"imagen": ["ubuntu", "alpine"]}, "IMAGEN"),
        ({"megas": 0}, "MEGAS"),
        ({"archivos": 0}, "ARCHIVOS"),
        ({"fijar_cpu": 4096}, "FIJAR_CPU"),
        ({"fijar_cpu": "0"}, "FIJAR_CPU"),
        ({"fijar_cpu": True}, "FIJAR_CPU"),
        ({"chroot": "sí"}, "CHROOT"),
        ({"tamano_mb": 8}, "Parámetro desconocido: TAMANO_MB"),
    ],
)
def test_bad_parameters_raise_a_spanish_error(params, message):
    with pytest.raises(ParametroInvalido, match=message):
        exp.config(**params)


def test_good_parameters_are_normalised():
    cfg = exp.config(cargas="HASH", motores=["podman", "podman"], imagen="Alpine", fijar_cpu=measure.CPUS[1])
    assert cfg.cargas == ["hash"] and cfg.motores == ["podman"] and cfg.imagen == "alpine"
    assert cfg.fijar_cpu == measure.CPUS[1]
    assert exp.config(motores=[]).motores == []  # bare metal alone


@pytest.mark.parametrize("name", ["repeticiones", "megas", "archivos"])
def test_the_widget_allows_exactly_what_the_validator_accepts(name):
    control = next(c for c in exp.CONTROLS if c["name"] == name)
    assert getattr(exp.config(**{name: control["max"]}), name) == control["max"]
    with pytest.raises(ParametroInvalido, match=name.upper()):
        exp.config(**{name: control["max"] + 1})
    with pytest.raises(ParametroInvalido, match=name.upper()):
        exp.config(**{name: control["min"] - 1})


def test_the_cpu_control_names_each_choice_in_spanish_and_offers_only_valid_values():
    control = next(c for c in exp.CONTROLS if c["name"] == "fijar_cpu")
    assert control["options"][0] == ("sin fijar", None)
    for label, value in control["options"][1:]:
        assert label == f"CPU {value}" and exp.config(fijar_cpu=value).fijar_cpu == value


def test_the_default_run_reaches_the_minimum_for_a_verdict_and_quick_says_it_does_not():
    assert exp.Config().repeticiones >= verdict.MIN_N
    assert exp.QUICK["REPETICIONES"] < verdict.MIN_N  # the quick profile: figures without verdicts
    assert set(exp.QUICK) <= {c["name"].upper() for c in exp.CONTROLS} | {"CALENTAMIENTO"}


def test_run_validates_before_launching_anything(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("no debería lanzar nada")

    monkeypatch.setattr(measure, "experiment_run", boom)
    monkeypatch.setattr(measure.probes, "ensure", boom)
    with pytest.raises(ParametroInvalido):
        exp.run(exp.Config(repeticiones=-1))


# ---------------------------------------------------------------- arms
def test_arms_share_the_runner_base_and_chroot_runs_on_bare_metal():
    arm = ejecucion_arms.make_arm("hash", "", "chroot", "img")
    assert isinstance(arm, runner.Arm)
    assert (arm.engine, arm.variant, arm.image, arm.label) == (
        "bare",
        "hash",
        "img",
        "hash (SHA-256), en chroot",
    )
    io = ejecucion_arms.make_arm("escritura", "capa", "docker", "img")
    assert io.label == "escritura con fsync, capa del contenedor (overlay), en Docker"  # no identifiers
    write = ejecucion_arms.make_arm("escritura", "volumen", "podman", "localhost/img")
    assert (write.engine, write.variant) == ("podman", "escritura:volumen")


def test_plan_interleaves_every_environment_with_each_io_workload_in_each_place():
    """Bare metal writes each I/O workload beside the volumes (`host`) and on each engine's layer
    filesystem (`almacen-<motor>`, for the engines given); the chroot runs only the CPU workloads."""
    images = {"docker": "img", "podman": "localhost/img"}
    arms = ejecucion_arms.plan(["hash", "archivos", "copia"], ["docker", "podman"], images, "img", ["docker"])
    envs = [(a.workload, a.place, a.env) for a in arms]
    assert envs == [
        ("exec_true", "", "bare"),
        ("exec_true", "", "docker"),
        ("exec_true", "", "podman"),
        ("exec_dentro", "", "bare"),
        ("exec_dentro", "", "chroot"),
        ("exec_dentro", "", "docker"),
        ("exec_dentro", "", "podman"),
        ("hash", "", "bare"),
        ("hash", "", "chroot"),
        ("hash", "", "docker"),
        ("hash", "", "podman"),
        ("archivos", "host", "bare"),
        ("archivos", "almacen-docker", "bare"),
        ("archivos", "capa", "docker"),
        ("archivos", "volumen", "docker"),
        ("archivos", "capa", "podman"),
        ("archivos", "volumen", "podman"),
        ("copia", "host", "bare"),
        ("copia", "almacen-docker", "bare"),
        ("copia", "capa", "docker"),
        ("copia", "volumen", "docker"),
        ("copia", "capa", "podman"),
        ("copia", "volumen", "podman"),
    ]
    assert {a.env for a in ejecucion_arms.plan(["hash", "sort"], [], {}, "")} == {"bare"}
    layer_base = next(a for a in arms if a.place == "almacen-docker" and a.workload == "archivos")
    argv = ejecucion_arms.argv_for(
        layer_base,
        size_mb=1,
        files=3,
        containers={},
        rootfs=None,
        host_dirs={"archivos": "/tmp/x", "archivos:almacen-docker": "/var/lib/docker/curso-x/archivos"},
    )
    assert "/var/lib/docker/curso-x/archivos/curso-archivos" in argv[-1]


def test_copy_up_modifies_the_image_file_only_on_the_writable_layer(tmp_path):
    containers = {"docker": "c", "docker:capa": "c-copia"}
    kw = dict(size_mb=1, files=1, containers=containers, rootfs=None, host_dirs={"copia": str(tmp_path)})
    layer = exp.arms.argv_for(
        ejecucion_arms.make_arm("copia", "capa", "docker", "img"), copy=("/usr/f.h", 4096), **kw
    )
    assert "c-copia" in layer and "cat /usr/f.h > /dev/null" in layer[-1] and "seek=4096" in layer[-1]
    volume = exp.arms.argv_for(
        ejecucion_arms.make_arm("copia", "volumen", "docker", "img"), copy=("/usr/f.h", 4096), **kw
    )
    assert "c" in volume and "/datos/curso-copia.bin" in volume[-1] and "/usr/f.h" not in volume[-1]
    host = exp.arms.argv_for(ejecucion_arms.make_arm("copia", "host", "bare"), copy=("/usr/f.h", 4096), **kw)
    assert f"{tmp_path}/curso-copia.bin" in host[-1]
    inside = exp.arms.argv_for(ejecucion_arms.make_arm("exec_dentro", "", "docker", "img"), **kw)
    assert inside[-2:] == [exp.arms.PROBE_IN_CONTAINER, "true"]


# ---------------------------------------------------------------- analysis
def test_tidy_tells_chroot_from_host_binaries():
    df = pd.DataFrame(
        rows("bare", "", "hash", "trabajo", [1])
        + rows("bare", "img", "hash", "trabajo", [1])
        + rows("docker", "img", "escritura:capa", "trabajo", [1])
    )
    t = tidy(df)
    assert list(t["entorno"]) == ["bare", "chroot", "docker"]
    assert list(t["lugar"]) == ["", "", "capa"]
    assert list(t["carga"]) == ["hash", "hash", "escritura"]


def test_samples_are_paired_by_round():
    df = tidy(pd.DataFrame(rows("docker", "img", "sort", "trabajo", [3.0, 1.0, 2.0])))
    s = samples(df, "trabajo", "sort", "docker")
    assert list(s.index) == [1, 2, 3] and list(s) == [3.0, 1.0, 2.0]


def test_overhead_clearly_slower_has_an_interval_above_zero():
    df = pd.DataFrame(
        rows("bare", "", "sort", "trabajo", spread(1.0))
        + rows("docker", "img", "sort", "trabajo", spread(1.2))
    )
    r = overheads(df).set_index(["entorno", "base"]).loc[("docker", "bare")]
    assert r["sobrecarga_pct"] == pytest.approx(20, abs=0.5)
    assert r["ic_bajo_pct"] > 0 and r["direccion"] == verdict.ABOVE


def test_overhead_of_the_same_distribution_points_nowhere():
    values = spread(1.0, n=15, width=0.05)
    df = pd.DataFrame(
        rows("bare", "", "hash", "trabajo", values) + rows("podman", "img", "hash", "trabajo", values[::-1])
    )
    r = overheads(df).iloc[0]
    assert r["sobrecarga_pct"] == pytest.approx(0, abs=1e-9) and r["ic_bajo_pct"] < 0 < r["ic_alto_pct"]
    assert r["direccion"] == verdict.NO_CONCLUYENTE  # [-5.0 %, +5.3 %]: neither inside ±5 % nor outside


def test_an_overhead_reads_its_direction_from_the_one_rule():
    """«+0.5 % [+0.5, +2.0]» used to read «más lento»: inside ±5 % it is «casi igual» (verdict.direction)."""
    assert ejecucion_reading(-1.0, 2.0, 10) == verdict.LEVEL
    assert ejecucion_reading(0.5, 2.0, 10) == verdict.LEVEL
    assert ejecucion_reading(6.0, 9.0, 10) == verdict.ABOVE
    assert ejecucion_reading(-9.0, -6.0, 10) == verdict.BELOW
    assert ejecucion_reading(-1.0, 8.0, 10) == verdict.NO_CONCLUYENTE
    assert ejecucion_reading(6.0, 9.0, verdict.MIN_N - 1) == verdict.SIN_DATOS
    assert ejecucion_reading(float("nan"), 1.0, 10) == verdict.SIN_DATOS
    assert ejecucion_reading(6.0, 9.0, 10, shaky=True) == verdict.INESTABLE
    assert common.overhead_words(verdict.ABOVE, 10) == "más lento"
    assert common.overhead_words(verdict.SIN_DATOS, 3) == common.too_few(3)


def test_no_figure_and_no_verdict_against_a_baseline_unstable_on_its_own():
    """Bare metal's small files drift 10× between rounds; the container drifts with it, 1.6× slower in
    every round. The per-round figure looks steady, but the baseline is not one: the overhead points
    nowhere («inestable»), leaves the closing table, and the claim goes through the one rule as
    «inestable» with no figure in its sentence (the page says «repite»)."""
    drift = np.array([0.12, 1.1, 0.5, 0.2, 1.0, 0.15, 0.9, 0.3])
    df = pd.DataFrame(
        rows("bare", "", "archivos:almacen-docker", "trabajo", drift)
        + rows("docker", "img", "archivos:capa", "trabajo", drift * 1.6)
        + rows("bare", "", "hash", "trabajo", drift)
        + rows("docker", "img", "hash", "trabajo", drift * 1.05)
    )
    o = overheads(df).set_index(["carga", "entorno", "lugar"])
    r = o.loc[("archivos", "docker", "capa")]
    assert r["base"] == "almacen" and r["inestable_base"] and r["inestable"]
    assert r["direccion"] == verdict.INESTABLE
    assert o.loc[("hash", "docker", ""), "direccion"] == verdict.INESTABLE
    assert exp.closing_rows(df, {}).query("tipo == 'RUNNING'").empty
    claims = exp.claims(df)
    small = claim(claims, "archivos_pequenos", "docker")
    assert small.status == verdict.INESTABLE and small.detail["sin_cifra"]
    sentence = common.claim_sentence(small)
    assert "repite" in sentence and "+60" not in sentence and "= " not in sentence
    assert claim(claims, "dos_horas_10_min", "docker").status == verdict.INESTABLE
    # A steady baseline with the same steady per-round figure is judged.
    steady = pd.DataFrame(
        rows("bare", "", "archivos:almacen-docker", "trabajo", spread(0.3))
        + rows("docker", "img", "archivos:capa", "trabajo", spread(0.3) * 1.6)
    )
    assert claim(exp.claims(steady), "archivos_pequenos", "docker").status == verdict.SE_CONFIRMA


def test_an_unstable_figure_is_flagged_and_kept_out_of_the_closing_table():
    two_clusters = np.array([0.13, 2.0, 0.14, 2.1, 0.15, 1.9, 0.14, 2.05])
    df = pd.DataFrame(
        rows("bare", "", "archivos:almacen-docker", "trabajo", spread(0.2))
        + rows("docker", "img", "archivos:capa", "trabajo", two_clusters)
        + rows("bare", "", "sort", "trabajo", spread(1.0))
        + rows("docker", "img", "sort", "trabajo", spread(1.07))
    )
    o = overheads(df).set_index("carga")
    assert o.loc["archivos", "inestable"] and o.loc["archivos", "direccion"] == verdict.INESTABLE
    assert o.loc["archivos", "inestable_entorno"] and not o.loc["archivos", "inestable_base"]
    assert not o.loc["sort", "inestable"]
    concepts = " | ".join(exp.closing_rows(df, {})["concepto"])
    assert WORKLOAD_NAMES["sort"] in concepts and WORKLOAD_NAMES["archivos"] not in concepts
    assert claim(exp.claims(df), "archivos_pequenos", "docker").status == verdict.INESTABLE


def test_exec_costs_from_the_host_inside_and_as_the_paired_difference():
    work = spread(1.0)
    df = pd.DataFrame(
        rows("docker", "img", "hash", "trabajo", work)
        + rows("docker", "img", "hash", "extremo_a_extremo", work + 0.060)
        + rows("docker", "img", "exec_true", "extremo_a_extremo", spread(0.070))
        + rows("docker", "img", "exec_dentro", "trabajo", spread(0.0008))
        + rows("docker", "img", "exec_dentro", "extremo_a_extremo", spread(0.072))
    )
    costs = exec_costs(df).set_index("medida")
    assert costs.loc["hash", "mediana_ms"] == pytest.approx(60, abs=0.01)
    assert costs.loc["exec_true", "mediana_ms"] == pytest.approx(70, abs=0.5)
    assert costs.loc["exec_dentro", "mediana_ms"] == pytest.approx(0.8, abs=0.01)


def test_compare_recomputes_the_seed_overhead_from_its_raw_rows():
    ref = reference.load("ejecucion")
    live = pd.DataFrame(
        rows("bare", "", "hash", "extremo_a_extremo", spread(1.0))
        + rows("docker", "img", "hash", "extremo_a_extremo", spread(1.1))
    )
    cmp = compare(live, None, ref)
    docker_hash = cmp[(cmp["carga"] == "hash") & (cmp["entorno"] == "docker")].iloc[0]
    assert docker_hash["ref_sobrecarga_pct"] == pytest.approx((0.7810 / 1.0354 - 1) * 100, abs=0.01)
    assert docker_hash["tu_sobrecarga_e2e_pct"] == pytest.approx(10, abs=0.5)
    assert docker_hash["acuerdo"] == figures.NO_COINCIDE  # +10 % here, −24.6 % in the chapter


def test_closing_rows_put_exec_in_launch_and_the_work_in_running():
    df = pd.DataFrame(
        rows("docker", "img", "exec_true", "extremo_a_extremo", spread(0.07))
        + rows("docker", "img", "exec_dentro", "trabajo", spread(0.0008))
        + rows("bare", "", "exec_true", "extremo_a_extremo", spread(0.001))
        + rows("bare", "", "sort", "trabajo", spread(1.0))
        + rows("bare", "img", "sort", "trabajo", spread(1.0))
        + rows("docker", "img", "sort", "trabajo", spread(1.2))
    )
    out = exp.closing_rows(df, {})
    assert list(out.columns) == CLOSING_COLUMNS
    launch, running = out[out["tipo"] == "LAUNCH"], out[out["tipo"] == "RUNNING"]
    assert set(launch["unidad"]) == {"ms"} and len(launch) == 3 and set(running["unidad"]) == {"%"}
    assert all("LAUNCH" in c for c in launch["concepto"])  # says why exec, from notebook 03, is LAUNCH
    assert all(c.startswith("sobrecarga del trabajo: ") for c in running["concepto"])
    exec_docker = launch[launch["concepto"].str.contains("exec … true")].iloc[0]
    assert exec_docker["valor"] == pytest.approx(70, rel=0.01)
    assert len(running) == 1 and "chroot" in running.iloc[0]["concepto"]
    assert running.iloc[0]["valor"] == pytest.approx(20, abs=0.5)
    assert exp.closing_rows(df.iloc[0:0], {}).empty


# ---------------------------------------------------------------- claims
def test_every_claim_names_its_source_and_where_and_is_judged_per_engine():
    claims = exp.claims(pd.DataFrame(rows("bare", "", "hash", "trabajo", spread(1.0))))
    keys = [(c.key, c.detail["engine"], c.detail.get("carga")) for c in claims]
    # per engine: 11 claims, hash and sort again as the chapter measured them, and the bottom line on both
    assert len(keys) == len(set(keys)) == 2 * 11 + 2 * 2 + 2 * 2
    assert {c.key for c in claims} == {
        "exec_1ms",
        "exec_1ms_dentro",
        "hash_0",
        "sort_6_8",
        "hash_0_con_exec",
        "sort_6_8_con_exec",
        "sort_20mb",
        "sort_mmap",
        "overlay_20",
        "volumen_nativo",
        "volumen_nativo_archivos",
        "archivos_pequenos",
        "copia_capa",
        "dos_horas_10_min",
    }
    assert all(c.status == verdict.SIN_DATOS and c.source and c.where and c.quantity for c in claims)
    assert all(c.kind for c in claims)  # each margin comes from the kind of claim


def launch_rows(engine: str, ms: float) -> list[dict]:
    """Experiment 1's `run` of one engine with «ubuntu» (as the reference names its image) and the
    default network, in ms."""
    return [
        {"engine": engine, "image": "ubuntu", "variant": "por_defecto", "rep": i + 1, "metric": "arranque"}
        | {"value": float(v), "unit": "ms"}
        for i, v in enumerate(spread(ms, n=10))
    ]


EXEC_ARMS = (
    rows("docker", "img", "exec_true", "extremo_a_extremo", spread(0.070))  # 70 ms: 0.23 of a 300 ms run
    + rows("docker", "img", "exec_dentro", "trabajo", spread(0.0006))  # 1/500 of the run
    + rows("podman", "img", "exec_true", "extremo_a_extremo", spread(0.0003))  # 1/667 of a 200 ms run
    + rows("podman", "img", "exec_dentro", "trabajo", spread(0.0030))  # 1/67
)


def test_exec_claim_in_its_two_readings_is_the_ratio_to_the_same_engines_run():
    """«< 1 ms» against «~428 ms» of `run` in the same table: exec ÷ run (at most 1/428) judged with
    experiment 1's `run` of the same engine, the milliseconds beside it, unjudged."""
    write_run("arranque", launch_rows("docker", 300.0) + launch_rows("podman", 200.0))
    claims = exp.claims(pd.DataFrame(EXEC_ARMS))
    waited, inside = claim(claims, "exec_1ms", "docker"), claim(claims, "exec_1ms_dentro", "docker")
    assert waited.status == verdict.NO_SE_SOSTIENE and waited.unit == "x" and "Docker" in waited.statement
    assert waited.region == (-np.inf, pytest.approx(1 / 428)) and waited.value == pytest.approx(
        70 / 300, rel=0.03
    )
    assert waited.detail[verdict.BESIDE]["valor"] == pytest.approx(70, rel=0.02)
    assert verdict.OTHER_MACHINE in waited.note and "70 ms" in common.claim_sentence(waited)
    assert inside.status == verdict.SE_CONFIRMA and inside.value == pytest.approx(0.6 / 300, rel=0.03)
    assert claim(claims, "exec_1ms", "podman").status == verdict.SE_CONFIRMA
    assert claim(claims, "exec_1ms_dentro", "podman").status == verdict.NO_SE_SOSTIENE


def other_work_rows(busy: set[int], n: int = 10) -> list[dict]:
    """The other work each round recorded (results.OTHER_CPU, % of the machine): 30 % in `busy`, 1 % else."""
    return [
        {"engine": results.MACHINE, "image": "", "variant": "", "rep": r, "metric": results.OTHER_CPU}
        | {"value": 30.0 if r in busy else 1.0, "unit": "%"}
        for r in range(1, n + 1)
    ]


def test_exec_over_run_is_screened_by_the_load_of_experiment_1s_run_too():
    """exec ÷ run joins two runs: each arm counts the quiet rounds of its own run (its other work), and
    the claim is «bajo carga» when either run left fewer than MIN_N."""
    write_run("arranque", launch_rows("docker", 300.0) + other_work_rows(set(range(1, 8))))
    loaded = claim(exp.claims(pd.DataFrame(EXEC_ARMS)), "exec_1ms", "docker")
    assert loaded.status == verdict.BAJO_CARGA and loaded.detail["carga_metrica"] == results.OTHER_CPU
    write_run("arranque", launch_rows("docker", 300.0) + other_work_rows({2, 5}))
    quiet = claim(exp.claims(pd.DataFrame(EXEC_ARMS)), "exec_1ms", "docker")
    assert quiet.status == verdict.NO_SE_SOSTIENE and quiet.detail["rondas_tranquilas"] == 8
    mine = results.split_run(pd.DataFrame(EXEC_ARMS + other_work_rows(set(range(1, 6)))), {})  # 03's, loaded
    assert claim(exp.claims(*mine), "exec_1ms", "docker").status == verdict.BAJO_CARGA


def test_exec_claim_without_experiment_1_shows_its_milliseconds_and_no_verdict():
    claims = exp.claims(pd.DataFrame(EXEC_ARMS))  # the tests' results folder is empty
    waited = claim(claims, "exec_1ms", "docker")
    assert waited.status == verdict.SIN_DATOS and claims_mod.NO_LAUNCH in waited.note
    assert waited.detail[verdict.BESIDE]["valor"] == pytest.approx(70, rel=0.02)
    write_run("arranque", launch_rows("docker", 300.0))  # Podman not launched in experiment 1
    podman = claim(exp.claims(pd.DataFrame(EXEC_ARMS)), "exec_1ms", "podman")
    assert podman.status == verdict.SIN_DATOS and claims_mod.NO_LAUNCH in podman.note


def memory_rows(engine: str, mmap_kb: float, rss_kb: float, heap_kb: float, n: int = 6) -> list[dict]:
    """What `cronometro --pico sort` leaves in each round of one engine's sort arm, in KB."""
    read = {"memoria_mmap": mmap_kb, "memoria_mmap_residente": rss_kb, "memoria_heap": heap_kb}
    read["memoria_pico"] = rss_kb + heap_kb + 1500
    return [
        {"experiment": "ejecucion", "engine": engine, "image": "img", "variant": "sort", "rep": r}
        | {"metric": metric, "value": kb, "unit": "KB"}
        for r in range(1, n + 1)
        for metric, kb in read.items()
    ]


def test_sorts_buffer_is_judged_on_the_mmap_region_the_probe_read_in_each_round():
    """«~20 MB» on the size of the anonymous mapping holding most of sort's memory (this machine's GNU sort
    asked for 8 324 KiB from a pipe), and «con mmap()» observed once per round: that mapping holds more
    than the heap. The memory rows stay out of the tables of times."""
    df = pd.DataFrame(
        memory_rows("docker", 8324, 6452, 132)  # what the probe read here: 8.5 MB, in an mmap region
        + memory_rows("podman", 19_531, 300, 19_000)  # 20 MB (19.07 MiB), but resident in the heap
        + rows("docker", "img", "sort", "trabajo", spread(1.5))
    )
    claims = exp.claims(df)
    size, mapped = claim(claims, "sort_20mb", "docker"), claim(claims, "sort_mmap", "docker")
    assert size.status == verdict.NO_SE_SOSTIENE and size.value == pytest.approx(8324 / 1024)  # MiB
    assert size.unit == "MB" and size.region == pytest.approx((20e6 / 2**20 / 1.25, 20e6 / 2**20 * 1.25))
    assert mapped.status == verdict.SE_CONFIRMA and mapped.detail["veces"] == 6
    assert claim(claims, "sort_20mb", "podman").status == verdict.SE_CONFIRMA
    assert claim(claims, "sort_mmap", "podman").status == verdict.NO_SE_SOSTIENE
    assert set(summarize(df)["metric"]) == {"trabajo"}
    few = claim(exp.claims(pd.DataFrame(memory_rows("docker", 8324, 6452, 132, n=2))), "sort_mmap", "docker")
    assert few.status == verdict.SIN_DATOS and few.more_reps == verdict.MIN_OBSERVED


def test_each_io_arm_is_judged_against_bare_metal_on_its_own_filesystem():
    """The layer against bare metal in the engine's storage (`almacen-<motor>`), the volume against bare
    metal beside it (`host`): never the other way round, and never the chroot (it writes under the
    course's cache)."""
    df = pd.DataFrame(
        rows("bare", "", "escritura:host", "trabajo", spread(2.0))  # the volumes' filesystem: slow
        + rows("bare", "", "escritura:almacen-docker", "trabajo", spread(1.0))
        + rows("bare", "img", "archivos:host", "trabajo", spread(0.1))  # an old run's chroot: ignored
        + rows("bare", "", "archivos:host", "trabajo", spread(0.5))
        + rows("docker", "img", "archivos:volumen", "trabajo", spread(0.5))
        + rows("docker", "img", "escritura:capa", "trabajo", spread(1.2))
        + rows("docker", "img", "escritura:volumen", "trabajo", spread(2.0))
    )
    o = overheads(df).set_index(["carga", "lugar"])
    assert o.loc[("escritura", "capa"), "base"] == "almacen"
    assert o.loc[("escritura", "capa"), "sobrecarga_pct"] == pytest.approx(20, abs=0.5)
    assert o.loc[("escritura", "volumen"), "base"] == "host"
    assert "chroot" not in set(o["entorno"]) and "chroot" not in set(o["base"])
    claims = exp.claims(df)
    overlay = claim(claims, "overlay_20", "docker")
    assert (
        overlay.status == verdict.SE_CONFIRMA and "mismo sistema de archivos que la capa" in overlay.quantity
    )
    assert claim(claims, "overlay_20", "podman").status == verdict.SIN_DATOS
    volume = claim(claims, "volumen_nativo", "docker")
    assert volume.status == verdict.SE_CONFIRMA and -5 < volume.low <= 0 <= volume.high < 5
    files = claim(claims, "volumen_nativo_archivos", "docker")
    assert files.detail["base"] == "host" and files.status == verdict.SE_CONFIRMA


def test_a_layer_without_bare_metal_on_its_filesystem_is_not_comparable():
    """A run that measured bare metal only beside the volumes (or from before the layer's baseline was
    measured): the layer is «no comparable», with the reason meta.json gives, and has no figure."""
    df = pd.DataFrame(
        rows("bare", "", "archivos:host", "trabajo", spread(0.3))
        + rows("docker", "img", "archivos:capa", "trabajo", spread(0.3))
    )
    assert overheads(df).empty
    old = claim(exp.claims(df), "archivos_pequenos", "docker")
    assert old.status == verdict.NO_COMPARABLE and "meta.json" in old.note
    why = "este usuario no puede escribir en el almacén de Docker (/var/lib/docker: Permission denied)"
    meta = {"lineas_base": {"docker:capa": {"comparable": False, "motivo": why}}}
    rootless = claim(exp.claims(df, meta), "archivos_pequenos", "docker")
    assert rootless.status == verdict.NO_COMPARABLE and why in rootless.note
    assert "no comparable" in common.claim_sentence(rootless)


def test_overlay_at_about_zero_is_refuted_now_and_inconclusive_only_when_it_overlaps():
    """The margin of «~20 %» is 15.7-24.5 % (1.2^0.8 … 1.2^1.2): −1.6 % [−7.0, +11.8] lies entirely outside it."""
    overlay = claims_mod.BY_KEY["overlay_20"]
    assert overlay.region == pytest.approx(((1.2**0.8 - 1) * 100, (1.2**1.2 - 1) * 100))
    assert verdict.decide(-7.0, 11.8, region=overlay.region) == verdict.NO_SE_SOSTIENE
    assert verdict.decide(-7.0, 18.0, region=overlay.region) == verdict.NO_CONCLUYENTE
    volume = claims_mod.BY_KEY["volumen_nativo"]
    assert verdict.decide(-10.7, 6.7, region=volume.region) == verdict.NO_CONCLUYENTE


def test_hash_is_judged_on_the_work_alone_against_the_host_s_binaries_and_the_chroot_explains_it():
    # Host binaries are slow; the image's binaries are fast everywhere, inside a container or not.
    df = pd.DataFrame(
        rows("bare", "", "hash", "trabajo", spread(1.0))
        + rows("bare", "", "hash", "extremo_a_extremo", spread(1.0))
        + rows("bare", "img", "hash", "trabajo", spread(0.76))
        + rows("docker", "img", "hash", "trabajo", spread(0.76))
        + rows("docker", "img", "hash", "extremo_a_extremo", spread(0.76))
    )
    claims = exp.claims(df)
    hash_docker = claim(claims, "hash_0", "docker")
    assert hash_docker.status == verdict.NO_SE_SOSTIENE and hash_docker.value == pytest.approx(-24, abs=0.5)
    assert hash_docker.detail["base"] == "bare" and "del trabajo solo" in hash_docker.quantity
    why = explanation(df).set_index(["carga", "entorno"]).loc[("hash", "docker")]
    assert why["capitulo"][0] == pytest.approx(-24, abs=0.5)
    assert why["trabajo_chroot"][0] == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize(
    "work, status", [(0.80, verdict.SE_CONFIRMA), (0.96, verdict.NO_SE_SOSTIENE)]
)  # against the chroot (0.76 s): +5 % is 6 min of 2 h, +26 % is 32 min
def test_the_chapters_bottom_line_is_2_hours_times_the_work_alone_against_the_fairest_baseline(work, status):
    df = pd.DataFrame(
        rows("bare", "", "hash", "trabajo", spread(1.0))  # the host's binaries: not the baseline here
        + rows("bare", "img", "hash", "trabajo", spread(0.76))
        + rows("docker", "img", "hash", "trabajo", spread(work))
        + rows("docker", "img", "hash", "extremo_a_extremo", spread(work + 0.07))  # exec: not counted
    )
    line = claim([c for c in exp.claims(df) if c.detail.get("carga") == "hash"], "dos_horas_10_min", "docker")
    assert line.detail["base"] == "chroot"
    assert line.value == pytest.approx(120 * (work / 0.76 - 1), rel=0.05) and line.unit == "min"
    assert line.status == status and line.region == (-np.inf, 10.0)
    assert line.source == "el capítulo original" and "LAUNCH vs RUNNING" in line.where


def test_no_claim_note_blames_exec_or_the_binaries_for_the_chapters_minus_24():
    note = claims_mod.BY_KEY["hash_0"].note
    assert "/dev/urandom" in note and "−24.6 %" in note and "−17.9 %" in note
    assert "exec" not in note and "binarios" not in note


# ---------------------------------------------------------------- views
def _full_run(tmp_path, container_scale=1.1, files_scale=1.6) -> runner.Resultado:
    data = []
    for engine, image, scale in (
        ("bare", "", 1.0),
        ("bare", "img", 0.9),
        ("docker", "img", container_scale),
        ("podman", "img", 1.05),
    ):
        for carga in ("hash", "sort"):
            data += rows(engine, image, carga, "trabajo", spread(scale))
            data += rows(engine, image, carga, "extremo_a_extremo", spread(scale) + 0.05)
        if engine == "bare":
            data += rows(engine, image, "exec_dentro", "trabajo", spread(0.0007))
        if image == "img" and engine != "bare":
            data += rows(engine, image, "exec_true", "extremo_a_extremo", spread(0.05))
            data += rows(engine, image, "exec_dentro", "trabajo", spread(0.0008))
            for place, s in (("capa", 1.2), ("volumen", 1.0)):
                data += rows(engine, image, f"escritura:{place}", "trabajo", spread(s))
                data += rows(engine, image, f"escritura:{place}", "extremo_a_extremo", spread(s) + 0.05)
                data += rows(engine, image, f"copia:{place}", "trabajo", spread(0.02 * s * s * s))
            data += rows(engine, image, "archivos:capa", "trabajo", spread(0.5 * files_scale))
            data += rows(engine, image, "archivos:volumen", "trabajo", spread(0.5))
    data += rows("bare", "", "exec_true", "extremo_a_extremo", spread(0.001))
    for place in ("host", "almacen-docker", "almacen-podman"):  # bare metal on each arm's filesystem
        data += rows("bare", "", f"archivos:{place}", "trabajo", spread(0.5))
        data += rows("bare", "", f"escritura:{place}", "trabajo", spread(1.0))
        data += rows("bare", "", f"escritura:{place}", "extremo_a_extremo", spread(1.0))
        data += rows("bare", "", f"copia:{place}", "trabajo", spread(0.02))
    return runner.Resultado("ejecucion", pd.DataFrame(data), tmp_path, {"parameters": {"megas": 8}})


@pytest.mark.parametrize(
    "view, which",
    [
        (vista.tabla, None),
        (vista.tabla, "exec"),
        (vista.tabla, "sobrecarga"),
        (vista.grafico, None),
        (vista.grafico, "sobrecarga"),
        (vista.veredictos, None),
        (vista.veredictos, "corrida"),
        (vista.comparacion, None),
    ],
)
def test_each_view_displays_itself_and_returns_none(view, which, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    monkeypatch.setattr(figuras, "display", lambda fig, **k: shown.append(fig))  # the charts
    args = (which,) if which else ()
    assert view(_full_run(tmp_path), *args) is None
    assert shown and not any(isinstance(obj, str) and "Aún no hay resultados" in obj for obj in shown)


def _text(monkeypatch, view, *args) -> str:
    shown = []
    monkeypatch.setattr(
        IPython.display, "display", lambda obj, *a, **k: shown.append(str(getattr(obj, "data", obj)))
    )
    view(*args)
    return "\n".join(shown)


def test_the_verdicts_view_renders_every_claim_with_the_common_sentence(tmp_path, monkeypatch):
    run = _full_run(tmp_path)
    text = _text(monkeypatch, vista.veredictos, run)
    for c in exp.claims(run.df, run.meta):
        assert c.statement in text and c.where in text
    assert "De dónde sale cada cifra de hash y sort" in text
    for identifier in ("exec_true", "exec_dentro", "archivos_pequenos", "escritura:capa", "nan"):
        assert identifier not in text


def test_the_verdict_sentences_follow_the_data_both_ways(tmp_path, monkeypatch):
    slower = _text(monkeypatch, vista.veredictos, _full_run(tmp_path, files_scale=1.6))
    same = _text(monkeypatch, vista.veredictos, _full_run(tmp_path, files_scale=1.0))
    key = "Crear, listar y borrar muchos archivos pequeños"
    assert f"{key}" in slower and f"{key}" in same
    line = lambda text: next(s for s in text.split("\n") if key in s and "Docker" in s)  # noqa: E731
    assert "se confirma" in line(slower) and "no se sostiene" in line(same)
    run_slower = _text(monkeypatch, vista.veredictos, _full_run(tmp_path, files_scale=1.6), "corrida")
    run_same = _text(
        monkeypatch, vista.veredictos, _full_run(tmp_path, container_scale=0.9, files_scale=1.0), "corrida"
    )
    assert re.search(r"archivos pequeños — capa del contenedor \(overlay\) \(Docker, \+6[01]", run_slower)
    assert "archivos pequeños —" not in run_same  # not among what stands out
    assert "archivos pequeños en Docker, 0 % (casi igual" in run_same  # layer = volume


def test_the_run_summary_says_launch_and_running_apart(tmp_path, monkeypatch):
    text = _text(monkeypatch, vista.veredictos, _full_run(tmp_path), "corrida")
    assert text.index("LAUNCH") < text.index("RUNNING")
    assert "costó 50.2 ms [" in text and "en Docker" in text and "en Podman" in text
    assert "donde más se nota el contenedor" in text


def test_quick_runs_say_plainly_they_show_figures_without_verdicts(tmp_path, monkeypatch):
    run = _full_run(tmp_path)
    run = runner.Resultado("ejecucion", run.df[run.df["rep"] <= 2], tmp_path, run.meta)
    text = _text(monkeypatch, vista.veredictos, run)
    assert "sin veredictos" in text and "— se confirma" not in text


def test_a_view_asked_for_something_it_does_not_show_says_what_it_can(tmp_path):
    with pytest.raises(ValueError, match="'tiempos', 'exec', 'sobrecarga'"):
        vista.tabla(_full_run(tmp_path), "memoria")


def test_every_claim_is_listed_in_sources_with_where_and_status():
    """SOURCES.md's hand-written list for ejecucion.csv names every declared claim by key, with the section
    or table of the chapter its declaration names first, and a status."""
    from helpers import PROJECT_ROOT

    text = (PROJECT_ROOT / "data" / "reference" / "SOURCES.md").read_text(encoding="utf-8")
    section = text[text.index("## `ejecucion.csv`") :]
    section = section[: section.index("\n## ", 5)]
    for said in exp.SAID:
        row = next(
            (ln.strip() for ln in section.splitlines() if ln.strip().startswith(f"| `{said.key}` |")), None
        )
        assert row is not None, f"SOURCES.md no lista {said.key}"
        if said.source == claims_mod.SOURCE:  # the chapter's claims: where it says them
            first = re.search(r"«[^»]+»", said.where)[0]
            assert first.replace("`", "") in row.replace("`", ""), (said.key, first, row)
        assert row.endswith("|") and row.count("|") == 5, row


@pytest.mark.parametrize("which", ["repeticiones", "sobrecarga"])
def test_every_chart_fits_a_screen(which, tmp_path, monkeypatch):
    """Five workloads, every place: no chart taller than a projector's screen (10 in at 100 dpi)."""
    import matplotlib.pyplot as plt

    sizes = []
    monkeypatch.setattr(figuras, "display", lambda fig, **k: sizes.append(tuple(fig.get_size_inches())))
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: None)
    vista.grafico(_full_run(tmp_path), which)
    plt.close("all")
    assert len(sizes) == 1 and sizes[0][1] <= 10, sizes


@pytest.mark.parametrize("layer, reading", [(1.5, "más lento"), (1.0, "casi igual")])
def test_the_run_says_whether_the_layer_or_the_container_costs(layer, reading, tmp_path, monkeypatch):
    """Small files may cost as much in a volume as in the layer: then the layer is not what costs. The
    run's summary compares the two places of the same container, round by round."""
    df = pd.DataFrame(
        rows("docker", "img", "archivos:capa", "trabajo", spread(0.5 * layer))
        + rows("docker", "img", "archivos:volumen", "trabajo", spread(0.5))
    )
    lv = layer_vs_volume(df).iloc[0]
    assert lv["carga"] == "archivos" and common.overhead_words(lv["direccion"], lv["n"]).startswith(reading)
    assert lv["sobrecarga_pct"] == pytest.approx((layer - 1) * 100, abs=3)
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.veredictos(runner.Resultado("ejecucion", df, tmp_path, {}), "corrida")
    assert (
        f"archivos pequeños en Docker, {frases.pct(lv['sobrecarga_pct'], lv['ic_bajo_pct'], lv['ic_alto_pct'])} ({reading}"
        in shown[-1].data
    )


def test_the_rows_of_the_rounds_change_no_claim_and_no_closing_row(tmp_path):
    """The machine's load per round and each arm's position (runner.measure_rounds) are not measurements."""
    assert_round_rows_change_nothing(
        exp, _full_run(tmp_path).df, {"parameters": {"megas": 8}}, tmp_path / "rondas"
    )


def test_the_repetitions_chart_lists_every_workload_in_one_order_with_level_labels(tmp_path, monkeypatch):
    """Rows come in the shuffled order of the rounds; the chart does not: bare metal and its baselines
    first, then the chroot, Docker and Podman (layer before volume), the same in every panel, and no
    label turned on its side (a turned label once set the height of every row of panels)."""
    import matplotlib.pyplot as plt

    run = _full_run(tmp_path)
    shuffled = runner.Resultado("ejecucion", run.df.sample(frac=1.0, random_state=3), tmp_path, run.meta)
    figures = capture_figures(monkeypatch)
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: None)
    vista.grafico(shuffled)
    (fig,) = figures
    panels = {ax.get_title(loc="left"): [t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes}
    plt.close("all")
    assert panels["hash (SHA-256)"] == ["bare metal", "chroot", "Docker", "Podman"], panels
    files = panels["archivos pequeños"]
    assert (
        files.index("Docker (capa overlay)")
        < files.index("Docker (volumen)")
        < files.index("Podman (capa overlay)")
    )
    assert all(name.startswith("bare metal") for name in files[:3]), files
    for ax in fig.axes:
        assert all(t.get_rotation() == 0 for t in ax.get_yticklabels() + ax.get_xticklabels())


def test_the_worked_answers_give_both_places_and_the_layer_against_the_volume(tmp_path):
    """Solution 03 (exercises 3 and 4): per engine, the layer and the volume each against bare metal on its
    own filesystem with the one rule's reading, and the layer against the volume paired by round, the
    figure that decides whether the layer itself costs; never «sus IC se solapan» (two intervals compared
    by their ends)."""
    from helpers.course.facts import ejecucion as kit

    out = kit.facts(_full_run(tmp_path, files_scale=1.6))
    files = out["archivos"]
    assert "se solapan" not in files and "la capa frente al volumen, ronda a ronda: +6" in files, files
    for engine in ("Docker", "Podman"):
        assert f"en {engine}, la capa: " in files and "el volumen: " in files, files
    assert "más lento" in files and "Con la corrida" not in files, files


def test_hash_and_sort_are_judged_as_running_the_work_alone_and_the_five_lines_say_so(tmp_path):
    """03 judges «~0 %» and «+6-8 %» as RUNNING: the work alone, timed inside, against the host's binaries
    (the chapter's baseline), never with `exec` (LAUNCH) inside; the summary, read alone, says so."""
    from helpers.view import common as view_common

    df = _full_run(tmp_path).df
    claims = exp.claims(df)
    data = tidy(df)
    lines = "\n".join(view_common.verdict_summary(claims))
    for c in claims:
        if c.key in ("hash_0", "sort_6_8"):
            assert c.statement.endswith(", el trabajo solo)"), c.statement
            engine, carga = c.detail["engine"], c.detail["carga"]
            work = [samples(data, exp.METRIC_WORK, carga, e) for e in (engine, "bare")]
            assert c.value == pytest.approx(stats.difference_ci(*work, percent=True).value)
    assert "~0 % (Docker, el trabajo solo)" in lines, lines
