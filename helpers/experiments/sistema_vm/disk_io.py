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

import shutil
import subprocess
import tempfile
from pathlib import Path

from ... import vm
from ...errors import ComandoFallido

FIO_DIR = "/fio"  # where every instance sees the bundle
TARGET = "/curso-fio.dat"  # the job's file, in the instance's own root file system
BUNDLE = vm.VM_DIR / "fio"  # the folder (containers mount it)
IMAGE = vm.VM_DIR / "fio.img"  # the same folder as an ext4 image (the VM's second disk)
LOADER = Path("/lib64/ld-linux-x86-64.so.2")
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
    return (BUNDLE / "fio").exists() and (BUNDLE / "ld.so").exists() and IMAGE.exists()


def reason() -> str:
    return (
        "falta fio para la prueba de disco (paquete de Debian «fio»; «make setup» lo instala como root y "
        "prepara su carpeta para las instancias)."
    )


def command(target: str = TARGET, where: str = FIO_DIR) -> list[str]:
    """fio from the bundle at `where`, on `target`."""
    options = [f"--{key}={value}" for key, value in JOB.items()]
    return [
        f"{where}/ld.so",
        "--library-path",
        f"{where}/lib",
        f"{where}/fio",
        *options,
        f"--filename={target}",
    ]


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


def libraries(binary: Path) -> list[Path]:
    """Every shared library `binary` loads, as ldd resolves them."""
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    return [Path(line.split("=>")[1].split()[0]) for line in out.splitlines() if "=>" in line and "/" in line]


def provision(log) -> bool:
    """Gather the host's fio, its libraries and the loader into BUNDLE, and an ext4 image of it; once."""
    if available():
        return True
    fio = shutil.which("fio")
    if fio is None or not LOADER.exists():
        log(f"[AVISO] {reason()}")
        return False
    vm.VM_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=vm.VM_DIR) as tmp:
        work = Path(tmp) / "fio"
        (work / "lib").mkdir(parents=True)
        shutil.copy2(fio, work / "fio")
        shutil.copy2(LOADER.resolve(), work / "ld.so")
        for lib in libraries(Path(fio)):
            shutil.copy2(lib.resolve(), work / "lib" / lib.name)
        size_mb = sum(p.stat().st_size for p in work.rglob("*") if p.is_file()) // 2**20 + 32
        raw = Path(tmp) / "fio.img"
        mkfs = shutil.which("mke2fs") or "/sbin/mke2fs"
        argv = [mkfs, "-q", "-F", "-t", "ext4", "-L", "curso-fio", "-E", "root_owner=0:0", "-d", str(work)]
        result = subprocess.run([*argv, str(raw), f"{size_mb}M"], capture_output=True, text=True)
        if result.returncode != 0:
            log(f"[AVISO] No pude preparar el disco de fio para la VM: {result.stderr.strip()[-200:]}")
            return False
        shutil.rmtree(BUNDLE, ignore_errors=True)
        shutil.move(work, BUNDLE)
        shutil.move(raw, IMAGE)
    log(f"[ OK ] fio preparado para las instancias ({BUNDLE}, {IMAGE.stat().st_size / 2**20:.0f} MiB).")
    return True
