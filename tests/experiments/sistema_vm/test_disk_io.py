"""The disk-I/O workload of experiment 8 (fio): its bundle runs on the host and inside a container with a
busybox root (no libc of its own), the job is bounded and direct, its figure is read from fio's own
line, and a fio that fails says so in Spanish."""

from __future__ import annotations

import subprocess
import time

import pytest

from helpers import images
from helpers.errors import ComandoFallido
from helpers.experiments.sistema_vm import disk_io
from tests.support import setup_step_missing


def require_bundle():
    if not disk_io.available():
        setup_step_missing("la carpeta de fio para las instancias (sistema_vm.provision)", disk_io.reason())


def test_the_job_is_direct_random_and_bounded_in_time():
    argv = disk_io.command("/x.dat")
    assert argv[:3] == [f"{disk_io.FIO_DIR}/ld.so", "--library-path", f"{disk_io.FIO_DIR}/lib"]
    for option in ("--direct=1", "--rw=randrw", "--time_based=1", f"--runtime={disk_io.RUNTIME}"):
        assert option in argv
    assert argv[-1] == "--filename=/x.dat"


def test_iops_reads_the_terse_line_and_refuses_other_output():
    fields = ["0"] * 130
    fields[:5] = ["3", "fio-3.33", "curso", "0", "0"]
    fields[disk_io.TERSE_READ_IOPS], fields[disk_io.TERSE_WRITE_IOPS] = "1200", "1300"
    assert disk_io.iops("ruido\n" + ";".join(fields) + "\n") == 2500.0
    fields[4] = "5"
    with pytest.raises(ComandoFallido, match="error 5"):
        disk_io.iops(";".join(fields))
    with pytest.raises(ComandoFallido, match="no dio su línea"):
        disk_io.iops("fio: algo salió mal")


@pytest.mark.engines
def test_the_bundle_runs_on_the_host_for_the_time_asked(tmp_path):
    require_bundle()
    argv = disk_io.command(str(tmp_path / "f.dat"), where=str(disk_io.BUNDLE))
    start = time.monotonic()
    value = disk_io.run_checked(argv)
    elapsed = time.monotonic() - start
    assert value > 0
    assert elapsed >= 0.25  # time-based: it works for the whole runtime, not less
    assert not (tmp_path / "f.dat").exists()  # --unlink


@pytest.mark.engines
def test_a_failing_fio_is_a_spanish_error():
    require_bundle()
    argv = disk_io.command("/proc/curso-fio.dat", where=str(disk_io.BUNDLE))  # /proc takes no new file
    with pytest.raises(ComandoFallido, match="fio"):
        disk_io.run_checked(argv)


@pytest.mark.engines
def test_the_bundle_runs_in_a_busybox_container(container_engines, results_tmp):
    require_bundle()
    engine_name = container_engines[0]
    from helpers import engines as eng

    engine = eng.get_engine(engine_name)
    image = images.resolve("alpine", engine)["name"]
    opts = eng.RunOptions(network="none", volumes=[(str(disk_io.BUNDLE), disk_io.FIO_DIR, "ro")])
    argv = engine.run_argv(image, disk_io.command(), run_id="prueba-fio", opts=opts)
    try:
        assert disk_io.run_checked(argv, engine.env()) > 0
    finally:
        engine.cleanup("prueba-fio")
    # the container's root has no libc: fio ran only through the bundle's loader
    check = subprocess.run(
        engine.run_argv(image, ["ls", "/lib64/ld-linux-x86-64.so.2"], run_id="prueba-fio", opts=opts),
        capture_output=True,
        env=engine.env(),
    )
    engine.cleanup("prueba-fio")
    assert check.returncode != 0
