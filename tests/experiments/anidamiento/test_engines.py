"""Experiment 7 (anidamiento) with the real engines: level 2 (and the attempts without --privileged),
clean-up of outer and inner containers on success, on error and on Ctrl-C, and a host left clean.

Only behaviour is asserted, never absolute times: the machine is shared."""

from __future__ import annotations

import json

import psutil
import pytest

from helpers import engines as eng
from helpers.errors import ComandoFallido
from helpers.experiments import anidamiento as exp
from helpers.experiments.anidamiento import build as anidamiento_build
from helpers.experiments.anidamiento import levels, measure
from tests.support import interrupt_run, results_and_scratch, setup_step_missing

pytestmark = pytest.mark.engines

SMALL = dict(repeticiones=1, calentamiento=0, tamaño_mib=2, niveles=[1, 2])


@pytest.fixture
def sandbox(tmp_path, monkeypatch, podman_engine):
    """Results and the run's scratch folder (the inner image stores) go under tmp_path."""
    if anidamiento_build.unavailable_reason():
        pytest.skip(anidamiento_build.unavailable_reason())
    if anidamiento_build.nested_image_info("podman") is None:
        setup_step_missing(
            "la imagen de nivel 2 de Podman (anidamiento.provision)",
            "falta la imagen de nivel 2 de Podman: ejecuta «make setup».",
        )
    return results_and_scratch(tmp_path, monkeypatch)


def engines_here() -> list[str]:
    return [
        n
        for n in eng.CONTAINER_ENGINES
        if eng.get_engine(n).available and anidamiento_build.nested_image_info(n)
    ]


def assert_host_clean(meta: dict, scratch) -> None:
    run_id = meta["run_id"]
    assert {n: eng.get_engine(n).list_labelled(run_id) for n in engines_here()} == {
        n: [] for n in engines_here()
    }
    # Every process of the outer containers (inner engines and inner containers) died with them.
    assert meta.get("pids_exteriores"), "la corrida no arrancó ningún contenedor exterior"
    assert not [pid for pid in meta["pids_exteriores"] if psutil.pid_exists(pid)]
    assert not [
        p.info
        for p in psutil.process_iter(["pid", "cmdline"])
        if run_id.lower() in " ".join(p.info["cmdline"] or [])
    ]
    nested = meta.get("procesos_anidados") or []
    assert any(name != "sleep" for _, name, _ in nested), "no se registró ningún proceso del motor de dentro"
    alive = []
    for pid, name, created in nested:
        try:
            if psutil.Process(pid).create_time() == created:
                alive.append((pid, name))
        except psutil.NoSuchProcess:
            pass
    assert alive == [], "quedaron procesos de dentro vivos"
    assert list(scratch.iterdir()) == []  # the inner image stores are gone


def test_level_two_runs_and_leaves_the_host_clean(sandbox):
    _, scratch = sandbox
    engines = engines_here()
    res = exp.run(exp.config(motores=engines, **SMALL), log=lambda _: None)
    assert res.status == "complete"
    df = res.df
    arms = set(zip(df["engine"], df["variant"]))
    assert {("bare", "nivel0"), ("podman", "nivel1"), ("podman", "nivel2")} <= arms
    nested = res.meta["anidamiento"]
    # The attempts without --privileged: the default one fails with the chapter's error, explained.
    attempts = nested["intentos_sin_privilegios"]
    assert attempts and attempts[0]["clave"] == "por_defecto" and not attempts[0]["ok"]
    assert attempts[0]["explicacion"] and attempts[0]["error"]
    if attempts[-1]["ok"]:
        assert ("podman", levels.UNPRIV) in arms
        assert attempts[-1]["mapa_uid_interior"]
    for engine_name, variant in arms:
        part = df[(df["engine"] == engine_name) & (df["variant"] == variant)]
        assert {
            levels.METRIC_START,
            levels.METRIC_START_INNER,
            levels.METRIC_WORK,
            levels.METRIC_WORK_E2E,
        } <= set(part["metric"])
        # The inner part is timed inside the host-timed command, so it can never be longer.
        for outer, inner in (
            (levels.METRIC_START, levels.METRIC_START_INNER),
            (levels.METRIC_WORK_E2E, levels.METRIC_WORK),
        ):
            o = part[part["metric"] == outer]["value"].iloc[0] * (
                1e3 if outer == levels.METRIC_WORK_E2E else 1
            )
            i = part[part["metric"] == inner]["value"].iloc[0] * (1e3 if inner == levels.METRIC_WORK else 1)
            assert i <= o
    # Memory and disk of the inner engine, once per nested arm.
    nested_arms = {(e, v) for e, v in arms if v in (levels.PRIV, levels.UNPRIV)}
    store = df[df["metric"] == levels.METRIC_STORE]
    assert set(zip(store["engine"], store["variant"])) == nested_arms and len(store) == len(nested_arms)
    assert (store["value"] > 0).all()
    pss = df[df["metric"] == levels.METRIC_PSS]
    assert set(zip(pss["engine"], pss["variant"])) == nested_arms and (pss["value"] > 0).all()
    if "docker" in engines:
        assert ("docker", levels.PRIV) in arms or any("docker" in k for k in res.meta.get("skipped_arms", {}))
        assert nested["modos"]["docker"]["modo"] in ("--privileged", "casi --privileged")
    judged = {c.key: c for c in exp.claims(df, res.meta)}
    assert set(judged) == {"arranque_aditivo", "cpu_acumula", "causa_syscalls", "pip_necesita_privileged"}
    ladder_worked = attempts[-1]["ok"]
    climbs = [attempts, *nested["escaleras_repetidas"]]
    assert len(climbs) == 3 and all(any(a["ok"] for a in c) == ladder_worked for c in climbs)
    assert judged["pip_necesita_privileged"].status == ("no_se_sostiene" if ladder_worked else "se_confirma")
    assert_host_clean(res.meta, scratch)


def test_error_midway_removes_outer_and_inner_containers(sandbox, monkeypatch):
    results, scratch = sandbox
    real = measure.probes.parse_cronometro
    calls = {"n": 0}

    def failing(stderr):
        calls["n"] += 1
        if calls["n"] == 5:  # the nested containers are up and measuring by now
            raise ComandoFallido("fallo inyectado por la prueba")
        return real(stderr)

    monkeypatch.setattr(measure.probes, "parse_cronometro", failing)
    with pytest.raises(ComandoFallido, match="fallo inyectado"):
        exp.run(exp.config(motores=["podman"], **SMALL), log=lambda _: None)
    meta = json.loads(next(results.glob(f"{exp.EXPERIMENT}/*/meta.json")).read_text())
    assert meta["status"] == "failed" and "fallo inyectado" in meta["reason"]
    assert_host_clean(meta, scratch)


def test_ctrl_c_removes_outer_and_inner_containers(sandbox):
    """A real SIGINT to a separate Python process while the nested containers are measuring."""
    results, scratch = sandbox

    def outer_up(run_id):
        assert eng.get_engine("podman").list_labelled(run_id)

    run = interrupt_run(
        "anidamiento",
        dict(motores=["podman"], repeticiones=50, calentamiento=0, tamaño_mib=2, niveles=[1, 2]),
        results,
        ready=lambda meta, rows: rows > 5,  # measuring: every chain is up
        before_signal=outer_up,
        scratch=scratch,
        timeout=150,
    )
    assert_host_clean(run.meta, scratch)
