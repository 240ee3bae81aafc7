"""Experiment 8's workloads (workload.py): GNU gzip at level 6 from its bundle, busybox's only without it,
the one function that measures any target (and several at once), the sentence the page gives, the VM's
extra disks in order; with the real things, GNU gzip and fio in a busybox container and in the VM."""

from __future__ import annotations

import gzip
import subprocess
import time

import pytest

from helpers import engines as eng
from helpers import images, vm
from helpers.experiments.sistema_vm import disk_io, workload
from helpers.experiments.sistema_vm.bundle import vm_disks
from helpers.experiments.sistema_vm.kinds import FIO, GZIP
from helpers.vm.assets import DISK_MB
from tests.support import setup_step_missing


class Timed:
    """A target that takes a known time per workload (the shape workload.measure reads)."""

    def __init__(self, gzip_s: float, iops: float):
        self.gzip_s, self.iops = gzip_s, iops

    def timed_gzip(self) -> float:
        start = time.perf_counter()
        time.sleep(self.gzip_s)
        return (time.perf_counter() - start) * 1000

    def timed_fio(self) -> float:
        return self.iops


def require_gzip():
    if not workload.gnu():
        setup_step_missing(
            "la carpeta de GNU gzip para las instancias (sistema_vm.provision)", workload.tool()
        )


def test_gnu_gzip_runs_from_its_folder_at_level_6_and_busybox_only_without_it(monkeypatch):
    monkeypatch.setattr(workload, "gnu", lambda: True)
    line = workload.gzip_script(mib=None)
    assert line.startswith("/gzip/ld.so --library-path /gzip/lib /gzip/gzip -6 -c /datos/entrada.txt")
    assert line.endswith("> /dev/null") and "busybox" not in line
    assert "GNU" in workload.tool() and workload.metadata()["tool"] == "GNU gzip"
    monkeypatch.setattr(workload, "gnu", lambda: False)
    assert (
        workload.gzip_script(busybox="/opt/bb", mib=None)
        == "/opt/bb gzip -6 -c /datos/entrada.txt > /dev/null"
    )
    assert "busybox" in workload.tool() and workload.metadata()["tool"] == "busybox gzip"


def test_gzip_compresses_the_first_mib_of_the_file_piped_in_by_head(tmp_path, monkeypatch):
    """Every gzip (workloads and density) compresses the file's first INPUT_MIB MiB: the host's own head
    and gzip run the very line, to a file, and only that part comes back out."""
    assert workload.INPUT_MIB < workload.FILE_MIB == vm.GUEST_DATA_MB
    monkeypatch.setattr(workload, "gnu", lambda: True)
    line = workload.gzip_script()
    assert line.startswith(f"head -c {workload.INPUT_MIB * 2**20} {workload.DATA} | /gzip/ld.so ")
    assert line.endswith("/gzip/gzip -6 -c > /dev/null")
    assert workload.gzip_script(busybox="/opt/bb").startswith("/opt/bb head -c ")
    monkeypatch.setattr(workload, "gnu", lambda: False)
    data = tmp_path / "entrada.txt"
    data.write_bytes(bytes(range(256)) * (3 * 2**20 // 256))  # 3 MiB
    out = tmp_path / "salida.gz"
    line = workload.gzip_script(data=str(data), mib=1)
    assert line == f"head -c {2**20} {data} | gzip -6 -c > /dev/null"
    subprocess.run(["sh", "-c", line.replace("> /dev/null", f"> {out}")], check=True, timeout=60)
    assert gzip.decompress(out.read_bytes()) == data.read_bytes()[: 2**20]


def test_the_page_names_the_gzip_it_ran_and_the_profile_it_follows():
    gnu = workload.sentence(workload.metadata() | {"tool": "GNU gzip"})
    assert "GNU gzip" in gnu and "nivel 6" in gnu and workload.PROFILE in gnu
    assert f"los primeros {workload.INPUT_MIB} MiB de un archivo de {workload.FILE_MIB} MiB" in gnu
    assert "sobre un archivo de 8 MiB" in workload.sentence({"tool": "GNU gzip", "input_mb": 8})  # older
    assert "tar -zcf" in gnu and "Linux 4.13" in gnu
    old = workload.sentence({"tool": "busybox gzip", "input_mb": 8})  # a run from before the level
    assert "busybox" in old and "nivel" not in old
    assert workload.sentence(None) == ""
    assert f"la mediana de {workload.GZIP_PASSES} pasadas seguidas" in gnu
    assert "pasadas" not in workload.sentence({"tool": "GNU gzip", "input_mb": 8})  # a run of one pass


class Passes:
    """A target whose gzip passes take the given times, in turn (ms)."""

    def __init__(self, *ms: float):
        self.ms = list(ms)

    def timed_gzip(self) -> float:
        return self.ms.pop(0)


def test_a_rounds_gzip_is_the_median_of_its_passes_so_one_slow_pass_does_not_move_it():
    target = Passes(134.3, 169.7, 135.3, 999.0)
    assert workload.measure(target, fio=False) == [(GZIP, 135.3, "ms")]
    assert target.ms == [999.0]  # GZIP_PASSES passes, no more
    assert workload.metadata()["passes"] == workload.GZIP_PASSES == 3


def test_measure_gives_the_rows_of_one_target():
    assert workload.measure(Timed(0.01, 1234.56)) == [
        (GZIP, pytest.approx(10, abs=40), "ms"),
        (FIO, 1234.6, "IOPS"),
    ]
    assert [m for m, _, _ in workload.measure(Timed(0.0, 1.0), fio=False)] == [GZIP]


def test_the_vm_gets_each_folder_on_its_own_disk_in_order():
    drives, mounts = vm_disks([disk_io.FIO, workload.GZIP_BUNDLE])
    assert drives == (disk_io.FIO.image, workload.GZIP_BUNDLE.image)
    assert mounts[0].endswith("/dev/vdb /fio") and mounts[1].endswith("/dev/vdc /gzip")
    assert vm_disks([]) == ((), [])


def test_the_fio_job_is_direct_on_a_file_that_fits_the_vm_and_the_vm_disk_skips_the_host_cache():
    assert disk_io.JOB["direct"] == "1" and disk_io.JOB["size"] == f"{disk_io.FILE_MB}m"
    assert disk_io.FILE_MB < DISK_MB / 2
    assert disk_io.VM_DISK_CACHE == "none"


@pytest.mark.engines
def test_gnu_gzip_and_fio_run_in_a_busybox_container(container_engines, results_tmp):
    require_gzip()
    guest = vm.assets()
    engine = eng.get_engine(container_engines[0])
    image = images.resolve("alpine", engine)["name"]
    volumes = [
        (str(workload.GZIP_BUNDLE.folder), workload.GZIP_BUNDLE.where, "ro"),
        (str(guest.data_file.parent), "/datos", "ro"),
    ]
    opts = eng.RunOptions(network="none", volumes=volumes)
    argv = engine.run_argv(
        image, ["sh", "-c", workload.gzip_script() + " && echo hecho"], run_id="prueba-gz", opts=opts
    )
    try:
        out = subprocess.run(argv, capture_output=True, text=True, env=engine.env(), timeout=120)
    finally:
        engine.cleanup("prueba-gz")
    assert out.returncode == 0 and "hecho" in out.stdout, out.stderr


@pytest.mark.engines
def test_the_vm_runs_gnu_gzip_and_fio_from_its_extra_disks(tmp_path):
    require_gzip()
    if not disk_io.available() or vm.assets() is None:
        setup_step_missing("la VM del curso y la carpeta de fio", disk_io.reason())
    drives, mounts = vm_disks([disk_io.FIO, workload.GZIP_BUNDLE])
    machine = vm.VM("prueba-cargas", accel="tcg", workdir=tmp_path, extra_drives=drives, disk_cache="none")
    assert "cache=none" in " ".join(machine.argv())
    try:
        machine.boot()
        machine.sh("stty -echo; PS1=''")
        for mount in mounts:
            machine.sh(mount)
        version = " ".join(machine.sh(" ".join(workload.GZIP_BUNDLE.argv("--version")) + " 2>&1 | head -1"))
        timed = machine.sh(f"/sonda/cronometro sh -c '{workload.gzip_script()}' 2>&1", timeout=600)
        iops = disk_io.iops("\n".join(machine.sh(" ".join(disk_io.command()), timeout=180)))
    finally:
        machine.stop()
    assert "gzip" in version and "busybox" not in version.lower()
    assert workload.cronometro_ms("\n".join(timed), 0) > 0 and iops > 0
