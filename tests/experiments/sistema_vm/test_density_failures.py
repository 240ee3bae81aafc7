"""Experiment 8's density phase when an instance does not come up: its time-out sized for the VMs that
boot at once, and a VM that never prints the ready marker (a real child process that stays silent, as a
hung guest does) recorded as a failure while the phase goes on with the others. The instances that come
up are stand-ins (no engine needed); the silent one goes through VMInstance's own launch and wait."""

from __future__ import annotations

from dataclasses import asdict
from types import SimpleNamespace

import pytest

from helpers import cgroups, vm
from helpers.experiments import sistema_vm as exp
from helpers.experiments import verdict
from helpers.experiments.runner import Resultado, experiment_run
from helpers.experiments.sistema_vm import density
from helpers.experiments.sistema_vm import kinds as k
from helpers.experiments.sistema_vm.instances import VMInstance
from helpers.view import sistema_vm_densidad as density_view

APP = k.Arm("docker", "aplicacion", "", "contenedor de aplicación", "aplicacion")
SYSTEM = k.Arm("docker", "sistema", "", "contenedor de sistema", "sistema")
VM = k.Arm("qemu", "vm_emulada", "", "VM emulada (TCG)", "vm")


class Touch:
    """memtoca inside a stand-in: the host's view goes up by the block, then back (a container) or not."""

    def __init__(self, instance):
        self.instance = instance

    def wait_for(self, marker: str, timeout: float) -> str:
        if marker.endswith("tocado"):
            self.instance.held = 32 * k.MB
        elif not self.instance.keeps:
            self.instance.held = 0
        return marker

    def finish(self, timeout: float = 60) -> None:
        pass


class Up:
    """An instance that comes up: gzip in 100 ms, 2 CPUs and 384 MiB read back."""

    keeps, cpus = False, 2

    def __init__(self):
        self.held, self.stopped = 0, False

    def launch(self) -> None:
        pass

    def start(self, timeout: float | None = None) -> float:
        return 1.0

    def timed_gzip(self, mib: int) -> float:
        return 100.0

    def limits(self) -> cgroups.Limits:
        return cgroups.Limits(2.0, 384 * k.MB, "de prueba")

    def host_memory(self) -> int:
        return 100 * k.MB + self.held

    def resident_split(self) -> None:
        return None

    def start_command(self, command):
        return Touch(self)

    def stop(self) -> None:
        self.stopped = True


class UpVM(Up, VMInstance):
    """A VM that comes up (a stand-in: start_all tells VMs apart by their class)."""

    keeps, cpus = True, 2

    def __init__(self):
        Up.__init__(self)


class SilentVM(VMInstance):
    """The course's VM object whose QEMU is a process that prints nothing: VMInstance.launch() spawns
    it, start(timeout) waits for the marker on its console like a real boot."""

    def __init__(self, ctx, tmp_path):
        self.kind, self.name, self.mounts, self.fio = "vm", "silenciosa", [], False
        found = SimpleNamespace(base_disk=tmp_path / "base.qcow2", systemd_disk=None)
        self.vm = vm.VM("silenciosa", accel="tcg", workdir=tmp_path, found=found, cpus=2)
        self.vm.argv = lambda: ["sleep", "600"]  # a guest that never gets to its init
        self.vm.create_overlay = lambda: None
        ctx.defer(self.vm.stop)


def _phase(tmp_path, results_tmp, monkeypatch, silent: int | None):
    """The density phase with an application container, a system container and a VM, 4 of each on 2 cores (N = 1, 2, 4),
    2 rounds; the VM made `silent`-th never prints the marker. Returns (the run, its log, every VM)."""
    monkeypatch.setattr(density, "cores", lambda: 2)
    monkeypatch.setattr(density, "boot_timeout", lambda n_vms, n_cores, cpus=2: 1.5)
    cfg = exp.config(
        tipos=["aplicacion", "sistema", "vm"], repeticiones=2, calentamiento=0, memoria_mb=32, densidad=4
    )
    lines, made = [], []
    with experiment_run(k.EXPERIMENT, asdict(cfg), [], root=results_tmp, log=lines.append) as ctx:

        def make(arm, tag, cpus=None, memory_mb=None):
            vms = [m for m in made if isinstance(m, VMInstance)]
            if arm.kind == "vm":
                instance = SilentVM(ctx, tmp_path) if len(vms) + 1 == silent else UpVM()
            else:
                instance = Up()
            made.append(instance)
            return instance

        density.run(ctx, cfg, [APP, SYSTEM, VM], make, lambda *a: None, lines.append)
    return Resultado.load(ctx.run.dir), lines, made


def test_a_vm_that_never_prints_the_marker_is_a_recorded_failure_and_the_phase_goes_on(
    tmp_path, results_tmp, monkeypatch
):
    res, lines, made = _phase(tmp_path, results_tmp, monkeypatch, silent=3)
    assert res.meta["status"] == "complete"
    failed = res.meta["densidad"]["no_arrancaron"]
    assert failed == [
        {"tipo": "vm_emulada", "instancia": 3, "de": 4, "motivo": f"no imprimió «{k.READY}» en 2 s"}
    ]
    assert any(line.startswith("[AVISO] Densidad: la instancia 3 de 4 (VM emulada (TCG))") for line in lines)
    silent = next(m for m in made if isinstance(m, SilentVM))
    assert not silent.vm.child.alive()  # stopped at once, not left to the run's clean-up
    assert all(m.stopped for m in made if not isinstance(m, SilentVM))
    df = res.df

    def values(variant, metric):
        return df[(df["variant"] == variant) & (df["metric"] == metric)]["value"].tolist()

    for n in (1, 2, 4):  # the containers: every level, both rounds
        assert len(values("aplicacion", k.level_metric(k.DENSIDAD_INSTANCIA, n))) == 2, n
        assert len(values("sistema", k.level_metric(k.DENSIDAD_INSTANCIA, n))) == 2, n
    for n in (1, 2):  # the VM: the levels its 3 instances that came up can fill, not N = 4
        assert len(values("vm_emulada", k.level_metric(k.DENSIDAD_INSTANCIA, n))) == 2, n
    assert values("vm_emulada", k.level_metric(k.DENSIDAD_INSTANCIA, 4)) == []
    assert len(values("vm_emulada", k.DENSIDAD_CPUS)) == 3
    assert len(values("vm_emulada", k.DENSIDAD_RETENIDA)) == 3  # the 3 still count as observations
    # the page says it in Spanish, and what is missing because of it
    said = density_view.no_arrancaron(res.meta)
    assert "la 3 de 4 (VM emulada (TCG)) no imprimió" in said and "hasta N = 3" in said
    assert "«sin datos»" in said


def test_a_vm_short_of_the_largest_n_leaves_its_density_claims_without_data_not_absent(
    tmp_path, results_tmp, monkeypatch
):
    res, _, _ = _phase(tmp_path, results_tmp, monkeypatch, silent=2)
    claims = {c.key: c for c in exp.claims(res.df, res.meta)}
    for key in ("densidad_cae_mas_vm", "densidad_cpu_30"):  # they need the VM at N = 4
        assert claims[key].status == verdict.SIN_DATOS and claims[key].n == 0, key
    assert claims["densidad_cae_aplicacion"].n == 2  # the kinds that came up: judged on their 2 rounds
    # the VM that did not come up is not an observation; the other 3 are
    assert claims["vm_retiene_memoria"].n == 3 and claims["vm_retiene_memoria"].status == verdict.SE_CONFIRMA


def test_every_instance_up_records_no_failure(tmp_path, results_tmp, monkeypatch):
    res, lines, _ = _phase(tmp_path, results_tmp, monkeypatch, silent=None)
    assert res.meta["densidad"]["no_arrancaron"] == []
    assert not [line for line in lines if "[AVISO] Densidad" in line]
    assert density_view.no_arrancaron(res.meta) == ""
    assert len(res.df[res.df["metric"] == k.level_metric(k.DENSIDAD_INSTANCIA, 4)]) == 3 * 2


@pytest.mark.parametrize(
    "n_vms, n_cores, factor",
    [
        (1, 2, 1.0),  # one VM of 2 vCPUs on 2 cores: the time-out of a VM alone
        (4, 2, 4.0),  # the default phase on 2 cores: 8 vCPUs on 2 cores
        (4, 8, 1.0),  # 4 VMs fill 8 cores: no longer than alone
        (0, 2, 1.0),
    ],
)
def test_the_boot_time_out_grows_with_the_vcpus_booting_at_once_per_core(n_vms, n_cores, factor):
    expected = vm.BOOT_TIMEOUT * max(1.0, density.BOOT_SLOWDOWN * factor)
    assert density.boot_timeout(n_vms, n_cores) == pytest.approx(expected)
    assert density.boot_timeout(n_vms, n_cores) >= vm.BOOT_TIMEOUT


def test_the_page_says_which_instance_did_not_come_up_and_how_long_it_waited():
    meta = {
        "densidad": {
            "niveles": [1, 2, 4],
            "espera_vm_s": 180,
            "no_arrancaron": [
                {"tipo": "vm_emulada", "instancia": 4, "de": 4, "motivo": "no imprimió «X» en 180 s"}
            ],
        }
    }
    said = density_view.no_arrancaron(meta)
    assert said.startswith("**No todas las instancias arrancaron** (la espera de cada VM, 180 s")
    assert "hasta N = 3" in said
    assert density_view.no_arrancaron({}) == "" and density_view.no_arrancaron(None) == ""
