"""Experiment 8 with the real things: the course's VM under TCG (or KVM where it boots), real Docker or
Podman containers, the memory-given-back measurement on both, and clean-up of QEMU processes and
overlays on Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from helpers import PROJECT_ROOT, vm
from helpers import engines as eng
from helpers.experiments import runner
from helpers.experiments import sistema_vm as exp
from helpers.experiments.runner import Resultado
from helpers.experiments.sistema_vm import analysis as sistema_vm_analysis
from helpers.experiments.sistema_vm import disk_io
from helpers.experiments.sistema_vm import instances as sistema_vm_instances
from helpers.experiments.sistema_vm import measure as sistema_vm_measure
from helpers.experiments.sistema_vm.kinds import (
    ANTES,
    ARRANQUE,
    DESPUES,
    DESPUES_HUESPED,
    DESPUES_QEMU,
    DISCO,
    DURANTE,
    FIO,
    GZIP,
    RETENIDA,
)
from tests.support import setup_step_missing

pytestmark = pytest.mark.engines


def require_vm():
    ok, why = vm.availability()
    if not ok:
        setup_step_missing(
            "la VM del curso (sistema_vm.provision)", f"la VM del curso no está disponible: {why}"
        )


def first_engine() -> str:
    for name in eng.CONTAINER_ENGINES:
        if eng.get_engine(name).available:
            return name
    setup_step_missing(
        "Docker o Podman instalado y en marcha", "no hay ningún motor de contenedores disponible."
    )


def qemu_of(tag: str) -> list[int]:
    return vm.run.leftover_processes(tag)


def test_the_vm_boots_runs_commands_and_leaves_nothing(tmp_path):
    require_vm()
    machine = vm.VM("prueba-unidad", accel="tcg", workdir=tmp_path)
    try:
        elapsed = machine.boot()
        assert elapsed > 0 and machine.overlay.exists()
        machine.sh("stty -echo; PS1=''")
        assert machine.sh("uname -r")[-1].strip() == vm.assets().kernel_version  # the guest's own kernel
        assert (
            machine.sh("cat /proc/1/cmdline")[-1].replace("\0", " ").strip() == "/bin/busybox init"
        )  # PID 1
        machine.sh("dd if=/dev/zero of=/x bs=1M count=4 2>/dev/null; sync")
        assert machine.overlay_bytes() >= 4 << 20  # copy-on-write grew
        assert psutil.Process(machine.pid).is_running()
        # What the host holds, split: the guest's RAM (never more than -m) and QEMU's own, which add up
        guest, own = machine.resident_split()
        rss = psutil.Process(machine.pid).memory_info().rss
        assert 0 < guest <= machine.memory_mb << 20 and own > 0
        assert abs(guest + own - rss) < 0.05 * rss
    finally:
        machine.stop()
    assert not machine.overlay.exists()
    assert qemu_of("curso-prueba-unidad") == []


def test_a_short_run_measures_every_kind_and_cleans_up(results_tmp):
    require_vm()
    motor = first_engine()
    cfg = exp.config(
        tipos=["aplicacion", "sistema", "vm"],  # the LXD kinds: tests/experiments/sistema_vm/test_lxd.py
        instancias=1,
        repeticiones=1,
        calentamiento=0,
        memoria_mb=48,
        motor=motor,
        densidad=0,  # the density phase: tests/experiments/sistema_vm/test_density.py
    )
    res: Resultado = exp.run(cfg, root=results_tmp, log=lambda line: None)
    assert res.status == "complete"
    df = res.df
    vm_variant = sistema_vm_analysis.vm_variant(df)
    assert vm_variant in ("vm_emulada", "vm_kvm")
    for kind in ("aplicacion", "sistema", vm_variant):
        assert (df[(df["variant"] == kind) & (df["metric"] == ARRANQUE)]["value"] > 0).sum() == 1
        assert (df[(df["variant"] == kind) & (df["metric"] == GZIP)]["value"] > 0).sum() == 1
    assert set(df["variant"]) == {"aplicacion", "sistema", vm_variant, exp.BASELINE[1]}
    if disk_io.available():  # the disk workload ran everywhere, in the VM from its second, read-only disk
        for kind in ("aplicacion", "sistema", vm_variant, exp.BASELINE[1]):
            assert (df[(df["variant"] == kind) & (df["metric"] == FIO)]["value"] > 0).sum() == 1, kind
    # memory given back: one share per kind, computed (the block was seen touched); the container's
    # cgroup returns it at once (a mechanism, not a hypothesis on the VM's figure)
    kept = df[df["metric"] == RETENIDA].set_index("variant")["value"]
    assert sorted(kept.index) == sorted(["aplicacion", "sistema", vm_variant]) and kept.notna().all()
    assert kept["sistema"] < 20 and kept["aplicacion"] < 20
    during = df[(df["metric"] == DURANTE) & (df["variant"] == "sistema")]["value"].iloc[0]
    before = df[(df["metric"] == ANTES) & (df["variant"] == "sistema")]["value"].iloc[0]
    assert during - before > 40  # the 48 MB block was really touched and seen
    assert df[(df["metric"] == DISCO) & (df["variant"] == vm_variant)]["value"].min() > 0
    # the VM's «después» split into the guest's RAM and QEMU's own, only for the VM, adding up
    split = df[df["metric"].isin([DESPUES_HUESPED, DESPUES_QEMU])]
    assert set(split["variant"]) == {vm_variant}
    held = df[(df["metric"] == DESPUES) & (df["variant"] == vm_variant)]["value"].iloc[0]
    guest, own = (split[split["metric"] == m]["value"].iloc[0] for m in (DESPUES_HUESPED, DESPUES_QEMU))
    assert 0 < guest <= cfg.vm_memory_mb and own > 0 and abs(guest + own - held) < 0.05 * held
    assert res.meta["vm"]["acceleration"] in ("tcg", "kvm")
    assert qemu_of(f"curso-{exp.EXPERIMENT}-{res.meta['run_id'].lower()}") == []
    assert not (vm.VM_DIR / "instancias" / res.meta["run_id"]).exists()  # overlays go with the run
    assert eng.get_engine(motor).list_labelled(res.meta["run_id"]) == []


def test_ctrl_c_while_a_vm_boots_kills_qemu_and_removes_its_overlay(results_tmp):
    require_vm()
    script = (
        "from helpers.experiments import sistema_vm as s\n"
        "s.run(s.config(tipos=['vm'], instancias=1, repeticiones=3, calentamiento=0, memoria_mb=32,"
        " aceleracion='tcg'))\n"
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
        deadline = time.monotonic() + 120
        pids: list[int] = []
        while time.monotonic() < deadline and not pids:
            time.sleep(0.1)
            pids = [
                p.pid
                for p in psutil.Process(proc.pid).children(recursive=True)
                if p.name().startswith("qemu-system")
            ]
        assert pids, "no apareció ningún proceso de QEMU"
        overlays = list((vm.VM_DIR / "instancias").rglob("*.qcow2"))
        proc.send_signal(signal.SIGINT)  # mid-boot: the marker has not appeared yet
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0, out
    assert "KeyboardInterrupt" in out
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    metas = list(results_tmp.rglob("meta.json"))
    assert len(metas) == 1
    meta = json.loads(metas[0].read_text())
    assert meta["status"] == "interrupted"
    assert not (vm.VM_DIR / "instancias" / meta["run_id"]).exists()
    assert all(not p.exists() for p in overlays if meta["run_id"] in str(p))
    assert qemu_of(f"curso-{exp.EXPERIMENT}-{meta['run_id'].lower()}") == []


def test_systemd_system_container_is_ready_when_systemd_says_so(results_tmp):
    require_vm()
    if (
        "podman" not in [n for n in eng.CONTAINER_ENGINES if eng.get_engine(n).available]
        or not sistema_vm_measure.systemd_image()
    ):
        setup_step_missing(
            f"la imagen {vm.SYSTEMD_IMAGE} en Podman (sistema_vm.provision)",
            f"hace falta Podman con la imagen {vm.SYSTEMD_IMAGE} (make setup como root).",
        )
    with runner.experiment_run(
        exp.EXPERIMENT, {}, ["podman"], root=results_tmp, log=lambda line: None
    ) as ctx:
        instance = sistema_vm_instances.ContainerInstance(
            ctx,
            "podman",
            sistema_vm_measure.systemd_image(),
            "sistema_systemd",
            ctx.container_name("systemd"),
        )
        assert instance.start() > 0
        engine = eng.get_engine("podman")
        state = engine.call(engine.exec_argv(instance.name, ["systemctl", "is-system-running"]))
        assert state.stdout.strip() in ("running", "degraded")
        comm = engine.call(engine.exec_argv(instance.name, ["cat", "/proc/1/comm"])).stdout.strip()
        assert comm == "systemd"
        kept = exp.memory_given_back(instance, 32)[RETENIDA]
        assert kept < 20
