"""The post's disk-I/O workload: Debian's `fio`, small and bounded, the same binary in every instance.

Debian's fio is linked against some sixty shared libraries, and the instances run different root file
systems (busybox, Debian, a VM's busybox disk). So `make setup` gathers fio with every library it loads
and the dynamic loader into one folder (a bundle, ~80 MB, built once), run as
`/fio/ld.so --library-path /fio/lib /fio/fio …`: containers and system containers get the folder
read-only at /fio, the VM as a second read-only disk (an ext4 image of the folder) that it mounts there.

The job: 4 KiB random reads and writes (half and half) on a 4 MiB file in the instance's own root file
system, with direct I/O (O_DIRECT: past the page cache, to the instance's storage: overlay2, LXD's
pool, the VM's virtual disk), one synchronous thread, for a fixed 0.25 s after the file is laid out
(time-based: every instance works for the same time, and IOPS are counted over enough operations
even where they are slow). The figure is read + write IOPS.
"""

from __future__ import annotations

import subprocess

from ...errors import ComandoFallido
from .bundle import Bundle

FIO = Bundle("fio", "/fio", "fio")
FIO_DIR = FIO.where  # where every instance sees the bundle
TARGET = "/curso-fio.dat"  # the job's file, in the instance's own root file system
BUNDLE = FIO.folder  # the folder (containers mount it)
IMAGE = FIO.image  # the same folder as an ext4 image (the VM's second disk)
DEBIAN_PACKAGE = "fio"
FILE_MB = 4
RUNTIME = "250ms"
JOB = {
    "name": "curso",
    "size": f"{FILE_MB}m",
    "bs": "4k",
    "rw": "randrw",
    "rwmixread": "50",
    "ioengine": "psync",
    "direct": "1",
    "time_based": "1",
    "runtime": RUNTIME,
    "unlink": "1",
    "output-format": "terse",
}
# fio's terse format, version 3: fields (0-based) of the read and the write IOPS
TERSE_READ_IOPS, TERSE_WRITE_IOPS = 7, 48


def available() -> bool:
    return FIO.available()


def reason() -> str:
    return FIO.reason("la prueba de disco")


def command(target: str = TARGET, where: str = FIO_DIR) -> list[str]:
    """fio from the bundle at `where`, on `target`."""
    options = [f"--{key}={value}" for key, value in JOB.items()]
    return FIO.argv(*options, f"--filename={target}", where=where)


def iops(output: str) -> float:
    """read + write IOPS from fio's terse line (the last line that is one)."""
    lines = [ln for ln in output.splitlines() if ln.startswith("3;fio-")]
    if not lines:
        raise ComandoFallido(f"fio no dio su línea de resultados: {output.strip()[-300:]}")
    fields = lines[-1].split(";")
    if fields[4] != "0":
        raise ComandoFallido(f"fio terminó con error {fields[4]}.")
    return float(fields[TERSE_READ_IOPS]) + float(fields[TERSE_WRITE_IOPS])


def run_checked(argv: list[str], env: dict | None = None, timeout: float = 120) -> float:
    """Run a command that ends in fio (on the host, or through an engine's exec); its IOPS."""
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    if result.returncode != 0:
        raise ComandoFallido(
            f"fio falló (código {result.returncode}): {(result.stderr or result.stdout)[-300:]}"
        )
    return iops(result.stdout)


def provision(log) -> bool:
    """Gather the host's fio, its libraries and the loader into BUNDLE, and an ext4 image of it; once."""
    return FIO.build(log, "la prueba de disco")
