"""helpers.workloads: the shell commands of the workloads, run for real with the host's sh."""

from __future__ import annotations

import subprocess

import pytest

from helpers import workloads


def test_the_parameters_reach_the_command_line():
    assert "count=7" in workloads.script("hash", size_mb=7)
    write = workloads.script("escritura", directory="/datos", size_mb=3)
    assert "of=/datos/curso-escritura.bin" in write and "count=3" in write and "conv=fsync" in write
    assert "-lt 123" in workloads.script("archivos", files=123)
    with pytest.raises(KeyError):
        workloads.script("nada")


@pytest.mark.parametrize("workload", [w for w in workloads.SCRIPTS if w != "copia"])
def test_each_workload_runs_in_posix_sh_and_cleans_up_after_itself(workload, tmp_path):
    line = workloads.script(workload, directory=str(tmp_path), size_mb=1, files=20)
    done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == (["curso-escritura.bin"] if workload == "escritura" else [])
    if workload == "escritura":
        assert (tmp_path / "curso-escritura.bin").stat().st_size == 2**20


def test_copia_reads_the_file_then_appends_one_byte_with_fsync(tmp_path):
    target = tmp_path / workloads.COPY_NAME
    target.write_bytes(b"a" * 5000)
    line = workloads.script("copia", directory=str(tmp_path), target_bytes=5000)
    assert "conv=notrunc,fsync" in line and line.startswith(f"cat {target} ")
    done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == b"a" * 5000 + b"x"
    other = workloads.script("copia", directory="/datos", target="/usr/share/f", target_bytes=7)
    assert "/usr/share/f" in other and "/datos" not in other and "seek=7" in other
