"""Experiment 3 without engines: parameters, the plan of arms, analysis, claims and views, on synthetic rows."""

from __future__ import annotations

import importlib

import IPython.display
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from helpers import reference  # noqa: E402
from helpers.errors import ParametroInvalido  # noqa: E402
from helpers.experiments import ejecucion as exp  # noqa: E402
from helpers.experiments import runner, verdict  # noqa: E402
from helpers.experiments.contract import CLOSING_COLUMNS  # noqa: E402
from helpers.experiments.ejecucion import measure  # noqa: E402
from helpers.view import ejecucion as vista  # noqa: E402

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


def spread(center, n=12, width=0.02):
    """n values evenly spread within ±width around center: deterministic, so every verdict is too."""
    return center * (1 + np.linspace(-width, width, n))


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
        ({"tamano_mb": 0}, "TAMANO_MB"),
        ({"archivos": 0}, "ARCHIVOS"),
        ({"fijar_cpu": 4096}, "FIJAR_CPU"),
        ({"fijar_cpu": "0"}, "FIJAR_CPU"),
        ({"fijar_cpu": True}, "FIJAR_CPU"),
        ({"chroot": "sí"}, "CHROOT"),
        ({"tamano": 8}, "Parámetro desconocido: TAMANO"),
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


@pytest.mark.parametrize("name", ["repeticiones", "tamano_mb"])
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


def test_run_validates_before_launching_anything(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("no debería lanzar nada")

    monkeypatch.setattr(measure, "experiment_run", boom)
    monkeypatch.setattr(measure.probes, "ensure", boom)
    with pytest.raises(ParametroInvalido):
        exp.run(exp.Config(repeticiones=-1))


# ---------------------------------------------------------------- arms
def test_arms_share_the_runner_base_and_chroot_runs_on_bare_metal():
    arm = exp.make_arm("hash", "", "chroot", "img")
    assert isinstance(arm, runner.Arm)
    assert (arm.engine, arm.variant, arm.image, arm.label) == ("bare", "hash", "img", "hash en chroot")
    write = exp.make_arm("escritura", "volumen", "podman", "localhost/img")
    assert (write.engine, write.variant) == ("podman", "escritura:volumen")


def test_plan_interleaves_every_environment_and_skips_chroot_for_writes():
    images = {"docker": "img", "podman": "localhost/img"}
    arms = exp.plan(["hash", "escritura"], ["docker", "podman"], images, "img")
    envs = [(a.workload, a.place, a.env) for a in arms]
    assert envs == [
        ("exec_true", "", "bare"),
        ("exec_true", "", "docker"),
        ("exec_true", "", "podman"),
        ("hash", "", "bare"),
        ("hash", "", "chroot"),
        ("hash", "", "docker"),
        ("hash", "", "podman"),
        ("escritura", "host", "bare"),
        ("escritura", "capa", "docker"),
        ("escritura", "volumen", "docker"),
        ("escritura", "capa", "podman"),
        ("escritura", "volumen", "podman"),
    ]
    assert {a.env for a in exp.plan(["hash", "sort"], [], {}, "")} == {"bare"}


# ---------------------------------------------------------------- analysis
def test_tidy_tells_chroot_from_host_binaries():
    df = pd.DataFrame(
        rows("bare", "", "hash", "trabajo", [1])
        + rows("bare", "img", "hash", "trabajo", [1])
        + rows("docker", "img", "escritura:capa", "trabajo", [1])
    )
    t = exp.tidy(df)
    assert list(t["entorno"]) == ["bare", "chroot", "docker"]
    assert list(t["lugar"]) == ["", "", "capa"]
    assert list(t["carga"]) == ["hash", "hash", "escritura"]


def test_overhead_clearly_slower_has_an_interval_above_zero():
    df = pd.DataFrame(
        rows("bare", "", "sort", "trabajo", spread(1.0))
        + rows("docker", "img", "sort", "trabajo", spread(1.2))
    )
    r = exp.overheads(df).set_index(["entorno", "base"]).loc[("docker", "bare")]
    assert r["sobrecarga_pct"] == pytest.approx(20, abs=0.5)
    assert r["ic_bajo_pct"] > 0 and r["lectura"] == "más lento"


def test_overhead_of_the_same_distribution_is_indistinguishable_from_noise():
    values = spread(1.0, n=15, width=0.05)
    df = pd.DataFrame(
        rows("bare", "", "hash", "trabajo", values) + rows("podman", "img", "hash", "trabajo", values[::-1])
    )
    r = exp.overheads(df).iloc[0]
    assert r["sobrecarga_pct"] == 0 and r["ic_bajo_pct"] < 0 < r["ic_alto_pct"]
    assert r["lectura"] == "indistinguible del ruido"


def test_noise_reading_of_an_interval():
    assert exp.noise_reading(-1.0, 2.0) == "indistinguible del ruido"
    assert exp.noise_reading(0.5, 2.0) == "más lento"
    assert exp.noise_reading(-3.0, -0.1) == "más rápido"
    assert exp.noise_reading(float("nan"), 1.0) == "sin datos"


def test_an_unstable_workload_is_flagged_and_kept_out_of_the_closing_table():
    two_clusters = np.array([0.13, 0.14, 0.13, 0.15, 2.0, 2.1, 1.9, 2.05, 0.14, 2.02])
    df = pd.DataFrame(
        rows("bare", "", "archivos", "trabajo", spread(0.2, n=10))
        + rows("docker", "img", "archivos", "trabajo", two_clusters)
        + rows("bare", "", "sort", "trabajo", spread(1.0))
        + rows("docker", "img", "sort", "trabajo", spread(1.07))
    )
    o = exp.overheads(df).set_index("carga")
    assert o.loc["archivos", "inestable"] and o.loc["archivos", "lectura"] == "medición inestable: repite"
    assert not o.loc["sort", "inestable"]
    concepts = " | ".join(exp.closing_rows(df, {"parameters": {"imagen": "ubuntu"}})["concepto"])
    assert exp.WORKLOAD_NAMES["sort"] in concepts and exp.WORKLOAD_NAMES["archivos"] not in concepts
    unstable = claim(exp.claims(df), "sort_6_8", "docker")
    assert unstable.status == "se_confirma"  # sort is stable: +7 % inside +2..+12 %


def test_exec_cost_is_the_paired_difference_and_exec_true():
    work = spread(1.0)
    df = pd.DataFrame(
        rows("docker", "img", "hash", "trabajo", work)
        + rows("docker", "img", "hash", "extremo_a_extremo", work + 0.060)
        + rows("docker", "img", "exec_true", "extremo_a_extremo", spread(0.070))
    )
    costs = exp.exec_costs(df).set_index("medida")
    assert costs.loc["hash", "mediana_ms"] == pytest.approx(60, abs=0.01)
    assert costs.loc["exec_true", "mediana_ms"] == pytest.approx(70, abs=0.5)


def test_compare_recomputes_the_seed_overhead_from_its_raw_rows():
    ref = reference.load("ejecucion")
    live = pd.DataFrame(
        rows("bare", "", "hash", "extremo_a_extremo", spread(1.0))
        + rows("docker", "img", "hash", "extremo_a_extremo", spread(1.1))
    )
    cmp = exp.compare(live, None, ref)
    docker_hash = cmp[(cmp["carga"] == "hash") & (cmp["entorno"] == "docker")].iloc[0]
    assert docker_hash["ref_sobrecarga_pct"] == pytest.approx((0.781 / 1.035 - 1) * 100, abs=0.01)
    assert docker_hash["tu_sobrecarga_e2e_pct"] == pytest.approx(10, abs=0.5)
    assert docker_hash["acuerdo"] == "no_coincide"  # +10 % here, −24 % [−30, −16] in the chapter


def test_closing_rows_give_exec_cost_and_overhead_against_the_same_userland():
    df = pd.DataFrame(
        rows("docker", "img", "exec_true", "extremo_a_extremo", spread(0.07))
        + rows("bare", "", "exec_true", "extremo_a_extremo", spread(0.001))
        + rows("bare", "", "sort", "trabajo", spread(1.0))
        + rows("bare", "img", "sort", "trabajo", spread(1.0))
        + rows("docker", "img", "sort", "trabajo", spread(1.2))
    )
    out = exp.closing_rows(df, {"parameters": {"imagen": "ubuntu"}})
    assert list(out.columns) == CLOSING_COLUMNS and set(out["tipo"]) == {"RUNNING"}
    exec_docker = out[(out["unidad"] == "ms") & (out["entorno"] == "docker")].iloc[0]
    assert exec_docker["valor"] == pytest.approx(70, rel=0.01)
    sort = out[out["unidad"] == "%"]
    assert len(sort) == 1 and "chroot" in sort.iloc[0]["concepto"] and sort.iloc[0]["entorno"] == "docker"
    assert sort.iloc[0]["valor"] == pytest.approx(20, abs=0.5)
    assert exp.closing_rows(df.iloc[0:0], {}).empty


# ---------------------------------------------------------------- claims
def test_every_claim_is_declared_once_and_judged_per_engine():
    claims = exp.claims(pd.DataFrame(rows("bare", "", "hash", "trabajo", spread(1.0))))
    keys = [(c.key, c.detail["engine"]) for c in claims]
    assert len(keys) == len(set(keys)) == 2 * 6
    assert {c.key for c in claims} == {
        "exec_1ms",
        "hash_0",
        "hash_0_como_capitulo",
        "sort_6_8",
        "overlay_20",
        "volumen_nativo",
    }
    assert all(c.status == verdict.SIN_DATOS and c.source == "el capítulo original" for c in claims)
    assert all(c.where == "experimento 3" and c.quantity for c in claims)


def test_exec_claim_is_refuted_at_70_ms_and_confirmed_below_one():
    df = pd.DataFrame(
        rows("docker", "img", "exec_true", "extremo_a_extremo", spread(0.070))
        + rows("podman", "img", "exec_true", "extremo_a_extremo", spread(0.0005))
    )
    claims = exp.claims(df)
    docker, podman = claim(claims, "exec_1ms", "docker"), claim(claims, "exec_1ms", "podman")
    assert docker.status == verdict.NO_SE_SOSTIENE and docker.unit == "ms"
    assert docker.value == pytest.approx(70, abs=0.5) and "Docker" in docker.statement
    assert podman.status == verdict.SE_CONFIRMA


def test_writes_are_judged_against_the_host_disk():
    df = pd.DataFrame(
        rows("bare", "", "escritura:host", "trabajo", spread(1.0))
        + rows("docker", "img", "escritura:capa", "trabajo", spread(1.2))
        + rows("docker", "img", "escritura:volumen", "trabajo", spread(1.0))
    )
    o = exp.overheads(df).set_index("lugar")
    assert set(o["base"]) == {"host"} and o.loc["capa", "lectura"] == "más lento"
    claims = exp.claims(df)
    assert claim(claims, "overlay_20", "docker").status == verdict.SE_CONFIRMA
    assert claim(claims, "overlay_20", "podman").status == verdict.SIN_DATOS
    volume = claim(claims, "volumen_nativo", "docker")
    assert volume.status == verdict.SE_CONFIRMA and -5 < volume.low <= 0 <= volume.high < 5


def test_absence_of_evidence_is_not_confirmation():
    """A volume at +0.2 % [−10.7, +6.7] does not confirm «native speed» (±5 %), and overlay at
    [−12.0, +1.9] does not sustain «~20 % slower»."""
    volume, overlay = claims_mod.VOLUME_NATIVE, claims_mod.OVERLAY_20
    assert verdict.decide(-10.7, 6.7, claimed=volume.claimed, region=volume.region) == verdict.NO_CONCLUYENTE
    assert (
        verdict.decide(-12.0, 1.9, claimed=overlay.claimed, region=overlay.region) == verdict.NO_SE_SOSTIENE
    )


def test_hash_is_judged_on_the_same_userland_and_again_as_the_chapter_measured_it():
    # Host binaries are slow; the image's binaries are fast everywhere, inside a container or not.
    df = pd.DataFrame(
        rows("bare", "", "hash", "trabajo", spread(1.0))
        + rows("bare", "", "hash", "extremo_a_extremo", spread(1.0))
        + rows("bare", "img", "hash", "trabajo", spread(0.76))
        + rows("docker", "img", "hash", "trabajo", spread(0.76))
        + rows("docker", "img", "hash", "extremo_a_extremo", spread(0.76))
    )
    claims = exp.claims(df)
    fair = claim(claims, "hash_0", "docker")
    assert fair.detail["base"] == "chroot" and fair.status == verdict.SE_CONFIRMA
    assert "chroot" in fair.quantity
    # the chapter's way mixes the userland in: −24 %, outside ±5 %
    as_chapter = claim(claims, "hash_0_como_capitulo", "docker")
    assert as_chapter.status == verdict.NO_SE_SOSTIENE and as_chapter.value == pytest.approx(-24, abs=0.5)
    assert (
        as_chapter.statement
        == "Para hash, la sobrecarga del contenedor es ~0 % (Docker; medida como el capítulo)"
    )


def test_cpu_claims_fall_back_to_the_host_binaries_without_chroot():
    df = pd.DataFrame(
        rows("bare", "", "sort", "trabajo", spread(1.0))
        + rows("podman", "img", "sort", "trabajo", spread(1.3))
    )
    sort = claim(exp.claims(df), "sort_6_8", "podman")
    assert sort.detail["base"] == "bare" and "binarios del host" in sort.quantity
    assert sort.status == verdict.NO_SE_SOSTIENE and sort.value == pytest.approx(30, abs=0.5)


# ---------------------------------------------------------------- views
def _full_run(tmp_path) -> runner.Resultado:
    data = []
    for engine, image, scale in (
        ("bare", "", 1.0),
        ("bare", "img", 0.9),
        ("docker", "img", 1.1),
        ("podman", "img", 1.05),
    ):
        for carga in ("hash", "sort", "archivos"):
            data += rows(engine, image, carga, "trabajo", spread(scale))
            data += rows(engine, image, carga, "extremo_a_extremo", spread(scale) + 0.05)
        if image == "img" and engine != "bare":
            data += rows(engine, image, "exec_true", "extremo_a_extremo", spread(0.05))
            for place, s in (("capa", 1.2), ("volumen", 1.0)):
                data += rows(engine, image, f"escritura:{place}", "trabajo", spread(s))
                data += rows(engine, image, f"escritura:{place}", "extremo_a_extremo", spread(s) + 0.05)
    data += rows("bare", "", "exec_true", "extremo_a_extremo", spread(0.001))
    data += rows("bare", "", "escritura:host", "trabajo", spread(1.0))
    data += rows("bare", "", "escritura:host", "extremo_a_extremo", spread(1.0))
    return runner.Resultado("ejecucion", pd.DataFrame(data), tmp_path, {"parameters": {"tamano_mb": 8}})


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
    monkeypatch.setattr(vista.plt, "show", lambda: shown.append(vista.plt.gcf()) or vista.plt.close("all"))
    args = (which,) if which else ()
    assert view(_full_run(tmp_path), *args) is None
    assert shown and not any(isinstance(obj, str) and "Aún no hay resultados" in obj for obj in shown)


def test_the_verdicts_view_renders_every_claim_with_the_common_sentence(tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(
        IPython.display, "display", lambda obj, *a, **k: shown.append(getattr(obj, "data", ""))
    )
    run = _full_run(tmp_path)
    vista.veredictos(run)
    text = "\n".join(shown)
    for c in exp.claims(run.df, run.meta):
        assert c.statement in text
    assert "Veredictos sobre las afirmaciones del capítulo original" in text


def test_the_run_summary_names_where_the_container_shows_most(tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(
        IPython.display, "display", lambda obj, *a, **k: shown.append(getattr(obj, "data", ""))
    )
    vista.veredictos(_full_run(tmp_path), "corrida")
    text = "\n".join(shown)
    # docker against the same image: 1.1 / 0.9 − 1 = +22 %, the largest stable overhead here
    assert (
        "Donde más se nota el contenedor" in text and "Docker" in text and "+22 % [+20, +24]" in text
    )  # decimals follow the IC
    assert "Entrar con `exec` costó 50 ms en Docker y 50 ms en Podman" in text


def test_a_view_asked_for_something_it_does_not_show_says_what_it_can(tmp_path):
    with pytest.raises(ValueError, match="'tiempos', 'exec', 'sobrecarga'"):
        vista.tabla(_full_run(tmp_path), "memoria")
