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


@pytest.mark.parametrize("workload", workloads.SCRIPTS)
def test_each_workload_runs_in_posix_sh_and_cleans_up_after_itself(workload, tmp_path):
    line = workloads.script(workload, directory=str(tmp_path), size_mb=1, files=20)
    done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == (["curso-escritura.bin"] if workload == "escritura" else [])
    if workload == "escritura":
        assert (tmp_path / "curso-escritura.bin").stat().st_size == 2**20
