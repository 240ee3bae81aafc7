"""Experiment 3 against the real engines, on small sizes.

Only behaviour is asserted (rows, clean-up, statuses), never absolute times: the machine is shared.
Containers are found by this run's label only; other people's containers are never touched.
"""

from __future__ import annotations

import json
import os

import pytest

from helpers import engines as eng
from helpers.experiments import ejecucion as exp
from helpers.experiments.ejecucion import arms
from helpers.experiments.ejecucion.analysis import tidy
from helpers.experiments.ejecucion.arms import EXEC_INSIDE, METRIC_WORK, WORKLOADS
from tests.support import available_engines, interrupt_run, leftovers, results_and_scratch, setup_step_missing

pytestmark = pytest.mark.engines

SMALL = dict(repeticiones=1, calentamiento=0, megas=2, archivos=50)


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """Results and every temporary directory of the run go under tmp_path."""
    if not available_engines():
        setup_step_missing(
            "Docker o Podman instalado y en marcha", "No hay Docker ni Podman disponibles en esta máquina."
        )
    return results_and_scratch(tmp_path, monkeypatch)


@pytest.mark.parametrize("carga", WORKLOADS)
def test_each_workload_runs_everywhere_and_cleans_up(sandbox, carga):
    _, scratch = sandbox
    engines = available_engines()
    res = exp.run(exp.config(cargas=[carga], motores=engines, **SMALL), log=lambda _: None)
    assert res.status == "complete"
    df = tidy(res.df)
    work = df[(df["carga"] == carga) & (df["metric"] == METRIC_WORK)]
    e2e = df[(df["carga"] == carga) & (df["metric"] == exp.METRIC_E2E)]
    expected = set(engines) | {"bare"}
    assert res.meta["chroot"]["usada"] is (os.geteuid() == 0)  # without root: skipped, with its reason
    if carga in arms.CHROOT_WORKLOADS and os.geteuid() == 0:
        expected.add("chroot")
    assert set(work["entorno"]) == expected
    if carga in arms.IO_WORKLOADS:
        assert res.meta["filesystems"][f"{engines[0]}:capa"] == "overlay"
        assert_same_filesystem_baselines(res, work, engines)
    if carga in arms.PEEKED:  # sort's memory, read by the probe in every environment, in that round
        memory = df[(df["carga"] == carga) & df["metric"].isin(arms.MEMORY_METRICS.values())]
        mapped = memory[memory["metric"] == arms.MEMORY_METRICS["mmap_kb"]]
        assert set(mapped["entorno"]) == expected and (mapped["value"] > 1024).all()
        assert set(memory["unit"]) == {"KB"} and set(res.meta["memoria"]) == {carga}
    if carga == "copia":  # the image's own file, found in the container, copied up afresh each time
        assert res.meta["copia"]["archivo"].startswith("/") and res.meta["copia"]["bytes"] > 256 * 1024
    # The work alone is measured inside the end-to-end command, so it can never be longer.
    merged = work.merge(e2e, on=["engine", "image", "variant", "rep"], suffixes=("_t", "_e"))
    assert len(merged) == len(work) and (merged["value_t"] <= merged["value_e"]).all()
    assert set(df.loc[df["carga"] == exp.EXEC_TRUE, "entorno"]) == set(engines) | {"bare"}
    inside = df[(df["carga"] == EXEC_INSIDE) & (df["metric"] == METRIC_WORK)]
    assert set(engines) <= set(inside["entorno"])  # one new process, timed inside each container
    assert leftovers(res.meta["run_id"]) == {n: [] for n in engines}
    assert res.meta["host_scratch_removed"] is True
    assert list(scratch.iterdir()) == []  # the files of `escritura` and `archivos` are gone
    assert_layer_dirs_removed(res.meta)


def assert_same_filesystem_baselines(res, work, engines):
    """meta.json records what every place sits on, and each I/O arm's bare-metal baseline wrote on the
    arm's filesystem: the layer's in the engine's storage (same device as the layer's upper directory),
    the volume's beside it; or the layer's comparison says why it cannot be made."""
    places = res.meta["sistemas_de_archivos"]
    assert {"tipo", "dispositivo", "montaje", "origen"} <= set(places["host"])
    measured = set(work["lugar"])
    assert {"host", "capa", "volumen"} <= measured
    for e in engines:
        volume, layer = places[f"{e}:volumen"], places[f"{e}:capa"]
        assert volume["dispositivo"] == places["host"]["dispositivo"]  # the volume's baseline: `host`
        assert res.meta["lineas_base"][f"{e}:volumen"]["lugar"] == "host"
        assert layer["dentro"] == "overlay"
        base = res.meta["lineas_base"][f"{e}:capa"]
        if not base["comparable"]:  # e.g. a user who may not write in the engine's storage
            assert base["motivo"] and f"almacen-{e}" not in measured
            continue
        assert f"almacen-{e}" in measured and base["lugar"] == f"almacen-{e}"
        written = places[f"bare:almacen-{e}"]
        # The same filesystem: the same device and type (Podman bind-mounts its `overlay` directory onto
        # itself, so the layer's mount point may be a bind mount of the one bare metal wrote on).
        assert (written["dispositivo"], written["tipo"]) == (layer["dispositivo"], layer["tipo"])
        assert os.path.commonpath([written["ruta"], layer["ruta"]]) != "/"  # in the engine's storage
    judged = [
        c for c in exp.claims(res.df, res.meta) if c.key in ("archivos_pequenos", "overlay_20", "copia_capa")
    ]
    for c in judged:  # one repetition: figures without verdicts, never «no comparable» when measured
        comparable = res.meta["lineas_base"][f"{c.detail['engine']}:capa"]["comparable"]
        assert (c.status == "no_comparable") is (not comparable), c


def assert_layer_dirs_removed(meta):
    """Bare metal's directories in the engines' storage are gone (they are outside the scratch dir)."""
    for base in (meta.get("lineas_base") or {}).values():
        if base.get("comparable") and base.get("lugar", "").startswith("almacen"):
            assert not os.path.exists(base["directorio"]), base


def test_containers_and_files_removed_on_error(sandbox, monkeypatch):
    results, scratch = sandbox
    real = arms.time_arm
    calls = {"n": 0}

    def failing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 4:  # containers are up and measuring by now
            raise RuntimeError("fallo inyectado por la prueba")
        return real(*args, **kwargs)

    monkeypatch.setattr(arms, "time_arm", failing)
    with pytest.raises(RuntimeError, match="fallo inyectado"):
        exp.run(
            exp.config(cargas=["escritura", "hash"], motores=available_engines(), **SMALL), log=lambda _: None
        )
    run_dir = next((results / exp.EXPERIMENT).iterdir())
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["status"] == "failed" and "fallo inyectado" in meta["reason"]
    assert leftovers(meta["run_id"]) == {n: [] for n in available_engines()}
    assert list(scratch.iterdir()) == []
    assert meta["lineas_base"]  # written before the first measurement
    assert_layer_dirs_removed(meta)


def test_a_container_removed_by_someone_else_is_started_again_once(sandbox, monkeypatch):
    """Fault injection on the real engines: another process removes our container mid-run; the run
    starts it again, repeats that measurement, says so in meta.json and completes."""
    engines = available_engines()
    victim = engines[0]
    real = arms.time_arm
    state = {"done": False}

    def remove_first(argv, env, **kwargs):
        if not state["done"] and victim in argv[0] and "exec" in argv:
            state["done"] = True
            container = argv[argv.index("exec") + 1]
            eng.get_engine(victim).remove([container])
        return real(argv, env, **kwargs)

    monkeypatch.setattr(arms, "time_arm", remove_first)
    res = exp.run(exp.config(cargas=["sort"], motores=engines, **SMALL), log=lambda _: None)
    assert state["done"] and res.status == "complete"
    assert [r["engine"] for r in res.meta["contenedores_reiniciados"]] == [victim]
    measured = tidy(res.df)
    assert victim in set(measured.loc[measured["carga"] == exp.EXEC_TRUE, "entorno"])
    assert leftovers(res.meta["run_id"]) == {n: [] for n in engines}


def test_containers_and_files_removed_on_ctrl_c(sandbox, tmp_path):
    """A real SIGINT to a separate Python process in the middle of the measurements."""
    results, scratch = sandbox
    engines = available_engines()

    def in_progress(run_id):
        assert any(leftovers(run_id).values()) and any(scratch.iterdir())

    run = interrupt_run(
        "ejecucion",
        dict(
            cargas=["escritura", "sort"],
            motores=engines,
            repeticiones=50,
            calentamiento=0,
            megas=2,
            archivos=50,
        ),
        results,
        # Interrupt once every container is up and rows are being measured.
        ready=lambda meta, rows: rows >= 2 and all(leftovers(meta["run_id"]).values()),
        before_signal=in_progress,
        scratch=scratch,
    )
    assert run.meta["rows"] >= 2
    assert leftovers(run.run_id) == {n: [] for n in engines}
    assert list(scratch.iterdir()) == []
    assert run.meta["lineas_base"]
    assert_layer_dirs_removed(run.meta)
