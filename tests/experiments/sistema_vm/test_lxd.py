"""Experiment 8 with real LXD (or Incus): the system container and the nested engine arms measure, their
claims are judged by the shared rule, nothing of the run is left; without LXD the Podman stand-in is
planned, named as such."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

from helpers import PROJECT_ROOT
from helpers.engines import lxd
from helpers.experiments import sistema_vm as exp
from helpers.experiments import verdict
from helpers.experiments.sistema_vm import disk_io
from helpers.experiments.sistema_vm import measure as sistema_vm_measure
from helpers.experiments.sistema_vm.kinds import ARRANQUE, DISCO, FIO, GZIP, PSS, kind_label
from helpers.results import COLUMNS
from tests.support import setup_step_missing


def require_lxd():
    lxd.reset_cache()
    ok, why = lxd.availability()
    if not ok:
        setup_step_missing("LXD sin red (la preparación de LXD)", f"LXD/Incus no está disponible: {why}")


def rows_of(variant, engine, metric, values, unit):
    """Rows of raw.csv for one arm and metric, one per round (also for test_network.py)."""
    return [
        dict(
            experiment=exp.EXPERIMENT,
            engine=engine,
            image="",
            variant=variant,
            rep=i + 1,
            metric=metric,
            value=v,
            unit=unit,
        )
        for i, v in enumerate(values)
    ]


def _lxd_df(nested_iops=(9000, 9100, 8900, 9050, 8950, 9010), vm_variant="vm_emulada"):
    rows = []
    rows += rows_of("aplicacion", "docker", exp.GZIP, [500, 505, 495, 502, 498, 500], "ms")
    rows += rows_of("sistema_lxd", "lxd", exp.GZIP, [501, 504, 497, 500, 499, 502], "ms")
    rows += rows_of("anidado_lxd", "docker", exp.GZIP, [700, 705, 710, 695, 702, 704], "ms")
    rows += rows_of("aplicacion", "docker", exp.FIO, [9000, 9050, 8950, 9020, 8980, 9000], "IOPS")
    rows += rows_of("sistema_lxd", "lxd", exp.FIO, [9010, 9040, 8960, 9000, 8990, 9005], "IOPS")
    rows += rows_of("anidado_lxd", "docker", exp.FIO, list(nested_iops), "IOPS")
    rows += rows_of(vm_variant, "qemu", exp.FIO, [1500, 1400, 1450, 1460, 1440, 1450], "IOPS")
    rows += rows_of(vm_variant, "qemu", exp.DISCO, [0.3, 0.3, 0.3], "MB")
    rows += rows_of("sistema_lxd", "lxd", exp.DISCO, [210.2, 210.2, 210.2], "MB")
    rows += rows_of("sistema_lxd_cow", "lxd", exp.DISCO, [7.9, 8.0, 8.1], "MB")
    rows += rows_of("anidado_lxd", "lxd", exp.DISCO_ESCRITO, [12.6], "MB")
    rows += rows_of("anidado_lxd", "docker", "run_motor", [280, 290, 285], "ms")
    rows += rows_of("anfitrion", "docker", "run_motor", [270, 275, 272], "ms")
    return pd.DataFrame(rows, columns=COLUMNS)


def test_lxd_workload_claims_are_judged_against_the_application_container():
    claims = {c.key: c for c in exp.claims(_lxd_df(), {})}
    assert claims["sistema_sin_penalizacion"].status == verdict.SE_CONFIRMA
    assert claims["sistema_sin_penalizacion_disco"].status == verdict.SE_CONFIRMA
    assert claims["anidado_disco"].status == verdict.SE_CONFIRMA
    assert claims["anidado_gzip"].status == verdict.NO_SE_SOSTIENE  # 1.4x slower: outside «casi igual»
    assert claims["anidado_gzip"].value == pytest.approx(703 / 500, rel=0.01)
    # an emulated VM decides nothing about a VM's disk speed
    assert claims["vm_disco_lento"].status == verdict.NO_COMPARABLE
    # storage: every pool's figure is in the detail of the «no comparable» verdict
    detail = claims["disco_40"].detail
    assert detail["sistema_lxd_dir_mb"] == 210.2 and detail["sistema_lxd_cow_mb"] == 8.0
    assert detail["anidado_lxd_escrito_mb"] == 12.6


def test_nested_disk_io_far_below_the_host_does_not_confirm():
    claims = {c.key: c for c in exp.claims(_lxd_df(nested_iops=(6000, 6100, 5900, 6050, 5950, 6000)), {})}
    assert claims["anidado_disco"].status == verdict.NO_SE_SOSTIENE


def test_with_kvm_the_vm_disk_claim_is_judged():
    """«Up to 40 % less» is 0.6x-0.95x: a VM at 0.16x of the container is outside it, at 0.8x inside."""
    claims = {c.key: c for c in exp.claims(_lxd_df(vm_variant="vm_kvm"), {})}
    assert claims["vm_disco_lento"].status == verdict.NO_SE_SOSTIENE
    assert claims["vm_disco_lento"].value == pytest.approx(1450 / 9000, rel=0.05)
    df = _lxd_df(vm_variant="vm_kvm")
    vm_fio = (df["variant"] == "vm_kvm") & (df["metric"] == FIO)
    df.loc[vm_fio, "value"] = [7200, 7150, 7250, 7210, 7190, 7200]
    claims = {c.key: c for c in exp.claims(df, {})}
    assert claims["vm_disco_lento"].status == verdict.SE_CONFIRMA
    assert claims["vm_disco_lento"].value == pytest.approx(7200 / 9000, rel=0.02)


def test_without_the_cow_pool_its_kind_is_skipped_with_a_reason(monkeypatch):
    monkeypatch.setattr(lxd, "availability", lambda: (True, None))
    monkeypatch.setattr(lxd, "pools", lambda: {lxd.POOL: "dir"})
    cfg = exp.config(tipos=["sistema_lxd", "sistema_lxd_cow"], repeticiones=2)
    skipped = {}
    arms = sistema_vm_measure.plan(cfg, [], {}, "tcg", skip=skipped.__setitem__)
    assert [a.kind for a in arms] == ["sistema_lxd"]
    assert "btrfs" in skipped[kind_label("sistema_lxd_cow")]


def test_every_lxd_kind_goes_to_its_declared_pool_and_none_is_privileged():
    from helpers.experiments.sistema_vm import measure

    assert measure.POOLS == {
        "sistema_lxd": lxd.POOL,
        "sistema_lxd_cow": lxd.POOL_COW,
        "anidado_lxd": lxd.POOL,
    }
    source = "\n".join(p.read_text() for p in Path(exp.__file__).parent.glob("*.py"))
    assert "security.privileged" not in source.replace('"security.privileged"', "")
    assert "privileged=True" not in source


def test_without_lxd_the_podman_stand_in_is_planned(monkeypatch):
    monkeypatch.setattr(lxd, "availability", lambda: (False, "no hay LXD ni Incus en esta máquina."))
    cfg = exp.config(tipos=["sistema_lxd", "anidado_lxd"], repeticiones=2)
    skipped = {}
    arms = sistema_vm_measure.plan(cfg, ["podman"], {}, "tcg", skip=skipped.__setitem__)
    assert kind_label("sistema_lxd") in skipped and "sustituto" in skipped[kind_label("sistema_lxd")]
    planned = [a.kind for a in arms]
    if sistema_vm_measure.systemd_image() is None:
        setup_step_missing(
            "la imagen curso/debian-systemd en Podman (sistema_vm.provision)",
            "sin la imagen con systemd no hay sustituto que planear.",
        )
    assert planned == ["sistema_systemd"]
    assert "sustituto" in arms[0].label


@pytest.mark.engines
def test_lxd_arms_measure_and_leave_nothing(results_tmp):
    require_lxd()
    if not disk_io.available():  # the run would skip fio's arm, and find no fio_iops rows
        setup_step_missing("la carpeta de fio para las instancias (sistema_vm.provision)", disk_io.reason())
    kinds = ["aplicacion", "sistema_lxd", "anidado_lxd"]
    if lxd.POOL_COW in lxd.pools():
        kinds.insert(2, "sistema_lxd_cow")
    scratch_before = set(Path("/var/tmp").glob("curso-fio-*"))
    cfg = exp.config(tipos=kinds, repeticiones=2, instancias=1, calentamiento=0, memoria_mb=32, densidad=0)
    resultado = exp.run(cfg, log=lambda line: None, root=results_tmp)
    df = resultado.df
    assert resultado.meta["status"] == "complete"
    assert resultado.meta.get("skipped_arms", {}) == {}, resultado.meta["skipped_arms"]
    have = set(zip(df["metric"], df["variant"]))
    for metric in (ARRANQUE, DISCO, GZIP, PSS, "lxd_crear", "lxd_systemd"):
        assert (metric, "sistema_lxd") in have, metric
    assert ("memoria_pss_daemon", "sistema_lxd") in have
    monitor = df[(df["metric"] == "memoria_pss_monitor") & (df["variant"] == "sistema_lxd")]["value"]
    assert (monitor > 1).all()  # the [lxc monitor] of each instance is found and counted
    assert ("run_motor", "anidado_lxd") in have and ("run_motor", "anfitrion") in have
    pss = df[(df["metric"] == PSS) & (df["variant"] == "sistema_lxd")]["value"]
    assert (pss > 1).all()  # systemd and its services, plus the [lxc monitor]
    disk = df[(df["metric"] == DISCO) & (df["variant"] == "sistema_lxd")]["value"]
    assert (disk > 50).all()  # the dir pool: a full copy of the image
    if "sistema_lxd_cow" in kinds:  # the copy-on-write pool keeps only what the instance wrote
        cow = df[(df["metric"] == DISCO) & (df["variant"] == "sistema_lxd_cow")]["value"]
        assert len(cow) == 2 and cow.max() < disk.min() / 4
        assert resultado.meta["lxd"]["pools"]["sistema_lxd_cow"] == lxd.POOL_COW
    # scenario 3 runs the workloads in a container of the inner engine, next to the others
    for metric in (GZIP, FIO):
        for variant in ("proceso", "aplicacion", "sistema_lxd", "anidado_lxd"):
            values = df[(df["metric"] == metric) & (df["variant"] == variant)]["value"]
            assert len(values) == 2 and (values > 0).all(), (metric, variant)
    assert ("disco_escrito", "anidado_lxd") in have
    assert resultado.meta["nested"]["privileged"] is False
    assert resultado.meta["nested"]["uid_map"][:1] == ["0"] and resultado.meta["nested"]["uid_map"][1] != "0"
    keys = {c.key: c for c in exp.claims(df, resultado.meta)}
    for key in (
        "sistema_sin_penalizacion",
        "sistema_sin_penalizacion_disco",
        "anidado_gzip",
        "anidado_disco",
    ):
        # measured (a figure from 2 rounds), and below the minimum number of rounds: no verdict yet
        claim = keys[key]
        assert claim.status == verdict.SIN_DATOS and claim.too_few and claim.n == 2, (key, claim.status)
        assert claim.value > 0 and claim.more_reps == verdict.MIN_N, key
    assert keys["anidado_17"].status == "no_comparable" and keys["anidado_17"].detail
    assert not [
        n
        for n, labels in lxd.course_instances()
        if labels.get("curso-contenedores.run") == resultado.meta["run_id"]
    ]
    assert set(Path("/var/tmp").glob("curso-fio-*")) <= scratch_before  # fio's scratch folder is gone


@pytest.mark.engines
def test_ctrl_c_during_the_nested_scenario_leaves_nothing(results_tmp):
    """SIGINT once the nested instance exists: its instances, fio's scratch folder and the folder of the
    images handed in go with the run."""
    require_lxd()
    script = (
        "from helpers.experiments import sistema_vm as s\n"
        "s.run(s.config(tipos=['sistema_lxd', 'anidado_lxd'], instancias=1, repeticiones=3, calentamiento=0,"
        " memoria_mb=32))\n"
    )
    before = set(Path("/var/tmp").glob("curso-fio-*")) | set(
        Path(tempfile.gettempdir()).glob("curso-anidado-*")
    )
    env = dict(os.environ, CURSO_RESULTADOS=str(results_tmp), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        run_id, deadline = None, time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            metas = list(results_tmp.rglob("meta.json"))
            run_id = run_id or (json.loads(metas[0].read_text()).get("run_id") if metas else None)
            mine = [
                n for n, labels in lxd.course_instances() if labels.get("curso-contenedores.run") == run_id
            ]
            if run_id and any("-anid-" in n for n in mine):
                break
            time.sleep(1)
        assert run_id and proc.poll() is None, "no apareció la instancia anidada"
        time.sleep(3)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "KeyboardInterrupt" in out
    meta = json.loads(next(results_tmp.rglob("meta.json")).read_text())
    assert meta["status"] == "interrupted"
    assert not [n for n, labels in lxd.course_instances() if labels.get("curso-contenedores.run") == run_id]
    after = set(Path("/var/tmp").glob("curso-fio-*")) | set(
        Path(tempfile.gettempdir()).glob("curso-anidado-*")
    )
    assert after <= before
