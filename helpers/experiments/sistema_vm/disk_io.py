"""The post's disk-I/O workload: Debian's `fio`, small and bounded, the same binary in every instance.

Debian's fio is linked against some sixty shared libraries, and the instances run different root file
systems (busybox, Debian, a VM's busybox disk). So `make setup` gathers fio with every library it loads
and the dynamic loader into one folder (a bundle, ~80 MB, built once), run as
`/fio/ld.so --library-path /fio/lib /fio/fio …`: containers and system containers get the folder
read-only at /fio, the VM as a second read-only disk (an ext4 image of the folder) that it mounts there.

The job (JOB): 4 KiB random reads and writes (half and half) over a FILE_MB MiB file in the instance's own
root file system, one synchronous thread, for a fixed RUNTIME after fio lays the file out (time-based:
every instance works for the same time, and IOPS are counted over enough operations even where they are
slow); the file is removed at the end. The figure is read + write IOPS. The post names only «a disk IO
bound workload» from the Phoronix Test Suite, without its profile: this job is ours.
Why direct I/O and not a file larger than the RAM: O_DIRECT sends every read and write past the page cache
of the kernel that runs fio (the host's, for every container; the guest's, in the VM), to the instance's
storage (overlay2 on ext4, LXD's `dir` pool, the VM's virtual disk), so the file needs not outgrow the RAM
(nor could it: the VM's disk holds 64 MB). The VM's disk is opened by QEMU with cache=none
(VM_DISK_CACHE): with QEMU's default (writeback) the guest's direct I/O would land in the host's page
cache, and the VM would be measured against the host's RAM. The post does not say which mode its VMs
(Vagrant + libvirt) used; libvirt leaves QEMU's default unless told otherwise.
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
FILE_MB = 16  # MiB; it fits in the VM's 64 MB disk next to busybox and the gzip input
# s of work measured, once the file is laid out: in the quiet run, the emulated VM did 1 842-2 610 IOPS
# (some 500 operations in 0.25 s) and every container 13 000 or more; 0.5 s cost 10 s of its 65 s of
# workloads (42 passes), for no operation that was missing
RUNTIME_S = 0.25
RUNTIME = f"{RUNTIME_S * 1000:.0f}ms"
VM_DISK_CACHE = "none"  # QEMU's cache mode of the VM's disk (above)
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
