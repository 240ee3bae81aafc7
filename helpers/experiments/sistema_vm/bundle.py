"""A host binary carried into every instance: the binary, every shared library it loads and the dynamic
loader in one folder (a bundle), run as `WHERE/ld.so --library-path WHERE/lib WHERE/NAME …`, whatever the
instance's root file system (busybox, Debian, the VM's busybox disk). Containers and system containers
get the folder read-only at WHERE; the VM gets an ext4 image of it as an extra read-only disk. Built once
by `make setup` (gzip for the CPU workload, fio for the disk one, iperf3 for the network one)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ... import vm

LOADER = Path("/lib64/ld-linux-x86-64.so.2")


def libraries(binary: Path) -> list[Path]:
    """Every shared library `binary` loads, as ldd resolves them."""
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    return [Path(line.split("=>")[1].split()[0]) for line in out.splitlines() if "=>" in line and "/" in line]


@dataclass(frozen=True)
class Bundle:
    name: str  # the binary, as the host's PATH names it
    where: str  # where every instance sees the folder
    package: str  # Debian's package that holds it

    @property
    def folder(self) -> Path:
        return vm.VM_DIR / self.name

    @property
    def image(self) -> Path:
        return vm.VM_DIR / f"{self.name}.img"

    def available(self) -> bool:
        return (self.folder / self.name).exists() and (self.folder / "ld.so").exists() and self.image.exists()

    def reason(self, what: str) -> str:
        return (
            f"falta {self.name} para {what} (paquete de Debian «{self.package}»; «make setup» lo instala como "
            "root y prepara su carpeta para las instancias)."
        )

    def argv(self, *args: str, where: str | None = None) -> list[str]:
        """The binary from the bundle at `where` (default: where the instances see it)."""
        at = where or self.where
        return [f"{at}/ld.so", "--library-path", f"{at}/lib", f"{at}/{self.name}", *args]

    def build(self, log, what: str, extra=None) -> bool:
        """Gather the host's binary, its libraries and the loader into the folder, and an ext4 image of
        it; once. `extra(folder)` may add files (it returns False to give up, having said why)."""
        if self.available():
            return True
        binary = shutil.which(self.name)
        if binary is None or not LOADER.exists():
            log(f"[AVISO] {self.reason(what)}")
            return False
        vm.VM_DIR.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=vm.VM_DIR) as tmp:
            work = Path(tmp) / self.name
            (work / "lib").mkdir(parents=True)
            shutil.copy2(binary, work / self.name)
            shutil.copy2(LOADER.resolve(), work / "ld.so")
            for lib in libraries(Path(binary)):
                shutil.copy2(lib.resolve(), work / "lib" / lib.name)
            if extra is not None and not extra(work):
                return False
            size_mb = sum(p.stat().st_size for p in work.rglob("*") if p.is_file()) // 2**20 + 32
            raw = Path(tmp) / "disco.img"
            mkfs = shutil.which("mke2fs") or "/sbin/mke2fs"
            label = f"curso-{self.name}"[:16]
            argv = [mkfs, "-q", "-F", "-t", "ext4", "-L", label, "-E", "root_owner=0:0", "-d", str(work)]
            result = subprocess.run([*argv, str(raw), f"{size_mb}M"], capture_output=True, text=True)
            if result.returncode != 0:
                log(
                    f"[AVISO] No pude preparar el disco de {self.name} para la VM: {result.stderr.strip()[-200:]}"
                )
                return False
            shutil.rmtree(self.folder, ignore_errors=True)
            shutil.move(work, self.folder)
            shutil.move(raw, self.image)
        log(
            f"[ OK ] {self.name} preparado para las instancias ({self.folder}, "
            f"{self.image.stat().st_size / 2**20:.0f} MiB)."
        )
        return True


def vm_disks(bundles) -> tuple[tuple[Path, ...], list[str]]:
    """The images of `bundles` for a VM (`extra_drives`, in this order: /dev/vdb, /dev/vdc… in the guest)
    and the guest's commands that mount each one read-only where the instances see its folder."""
    images, mounts = [], []
    for i, bundle in enumerate(bundles):
        device = f"/dev/vd{chr(ord('b') + i)}"
        images.append(bundle.image)
        mounts.append(f"mkdir -p {bundle.where} && mount -t ext4 -o ro {device} {bundle.where}")
    return tuple(images), mounts
