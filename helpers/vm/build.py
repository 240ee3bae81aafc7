"""Building the guest offline: kernel (vmlinux), initramfs, root file system, base disk; provision()."""

from __future__ import annotations

import gzip
import json
import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .. import images, probes, system
from ..errors import ComandoFallido, ErrorDelCurso
from .assets import (
    DEBIAN_PACKAGES,
    DISK_MB,
    FORMAT_VERSION,
    GUEST_DATA_MB,
    INIT_SCRIPT,
    INITTAB_COMMON,
    INITTAB_VM,
    KERNEL_PACKAGE,
    MODULE_PATHS,
    MODULES,
    QEMU,
    VM_DIR,
    Assets,
    Log,
    assets,
    manifest_path,
)
from .disk import build_disk
from .systemd import provision_systemd


def _kernel_deb(work: Path) -> Path:
    """apt-get download the kernel package the metapackage points at (works without root)."""
    deps = system.run_checked(["apt-cache", "depends", KERNEL_PACKAGE])
    names = [
        line.split(":", 1)[1].strip()
        for line in deps.splitlines()
        if line.strip().startswith("Depends:") and "linux-image-" in line
    ]
    if not names:
        raise ComandoFallido(f"apt no conoce el paquete {KERNEL_PACKAGE} (¿falta «apt-get update»?).")
    system.run_checked(["apt-get", "download", names[0]], cwd=work, timeout=600)
    debs = sorted(work.glob("linux-image-*.deb"))
    if not debs:
        raise ComandoFallido(f"apt-get download no dejó el paquete {names[0]}.")
    return debs[0]


def guest_modules(names: dict[str, str], dest: Path) -> None:
    """Copy kernel modules of the guest's own kernel (`names`: module -> its path under kernel/) into
    `dest`: the package the guest was built from is downloaded again (apt-get download, no root)."""
    found = assets()
    package = json.loads(manifest_path().read_text()).get("package", "") if found else ""
    name, _, rest = package.partition("_")
    if not name:
        raise ComandoFallido("La VM del curso no está construida (o no dice de qué paquete es su kernel).")
    with tempfile.TemporaryDirectory(dir=VM_DIR) as tmp:
        work = Path(tmp)
        system.run_checked(["apt-get", "download", f"{name}={rest.split('_')[0]}"], cwd=work, timeout=600)
        deb = next(work.glob("linux-image-*.deb"), None)
        if deb is None:
            raise ComandoFallido(f"apt-get download no dejó el paquete {name}.")
        system.run_checked(["dpkg-deb", "-x", str(deb), str(work / "x")], timeout=300)
        kernel = work / "x" / "lib" / "modules" / found.kernel_version / "kernel"
        dest.mkdir(parents=True, exist_ok=True)
        for module, path in names.items():
            shutil.copy2(kernel / path, dest / f"{module}.ko")


def extract_vmlinux(bzimage: Path, dest: Path) -> Path:
    """The ELF kernel inside a bzImage whose payload is lz4 (Debian's cloud kernel)."""
    data = bzimage.read_bytes()
    if data[:4] == b"\x7fELF":
        shutil.copyfile(bzimage, dest)
        return dest
    start = data.find(b"\x02\x21\x4c\x18")  # lz4 legacy frame magic
    if start < 0:
        raise ComandoFallido(f"{bzimage.name} no lleva una carga lz4 que yo sepa descomprimir.")
    if not shutil.which("lz4"):
        raise ComandoFallido("falta la herramienta lz4 (paquete de Debian lz4).")
    with tempfile.NamedTemporaryFile(dir=dest.parent, suffix=".lz4", delete=False) as tmp:
        tmp.write(data[start:])
    try:
        # lz4 complains about the bytes after the payload: the exit code is not the verdict, the ELF is.
        with open(dest, "wb") as out:
            subprocess.run(["lz4", "-dc", tmp.name], stdout=out, stderr=subprocess.DEVNULL, timeout=120)
    finally:
        os.unlink(tmp.name)
    if dest.read_bytes()[:4] != b"\x7fELF":
        raise ComandoFallido("la carga lz4 del kernel no contiene un ELF.")
    return dest


def cpio_newc(entries: list[tuple[str, int, bytes]]) -> bytes:
    """A cpio archive in the kernel's «newc» format. entries: (path, mode, data or symlink target)."""
    out = bytearray()
    for ino, (name, mode, data) in enumerate(entries + [("TRAILER!!!", 0, b"")], start=1):
        encoded = name.encode() + b"\0"
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(encoded), 0]
        header = b"070701" + b"".join(f"{v:08X}".encode() for v in fields)
        out += header + encoded
        out += b"\0" * (-len(out) % 4)
        out += data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def _busybox_applets(busybox: Path) -> list[str]:
    return system.run_checked([str(busybox), "--list"]).split()


def build_initramfs(busybox: Path, modules_dir: Path, dest: Path) -> Path:
    dirs = ["bin", "dev", "proc", "sys", "newroot", "lib", "lib/modules"]
    entries: list[tuple[str, int, bytes]] = [(d, 0o040755, b"") for d in dirs]
    entries.append(("bin/busybox", 0o100755, busybox.read_bytes()))
    entries += [(f"bin/{a}", 0o120777, b"busybox") for a in _busybox_applets(busybox) if a != "busybox"]
    for name in MODULES:
        entries.append((f"lib/modules/{name}.ko", 0o100644, (modules_dir / MODULE_PATHS[name]).read_bytes()))
    init = INIT_SCRIPT % {"modules": " ".join(MODULES)}
    entries.append(("init", 0o100755, init.encode()))
    dest.write_bytes(gzip.compress(cpio_newc(entries), compresslevel=6))
    return dest


def gzip_input(path: Path, megabytes: int = GUEST_DATA_MB) -> Path:
    """A deterministic, text-like file for the gzip workload (the same bytes on every side)."""
    rng = random.Random(20261122)
    words = [
        "contenedor",
        "máquina",
        "virtual",
        "núcleo",
        "memoria",
        "disco",
        "arranque",
        "init",
        "proceso",
        "página",
        "huésped",
        "anfitrión",
        "QEMU",
        "busybox",
        "cgroup",
        "espacio",
    ]
    lines, size = [], 0
    while size < megabytes << 20:
        line = " ".join(rng.choice(words) for _ in range(12)) + f" {rng.randrange(10**6):06d}\n"
        lines.append(line)
        size += len(line.encode())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines))
    return path


def build_rootfs(busybox: Path, probes: dict[str, Path], dest: Path) -> Path:
    """The guest's root: busybox and its applet links, inittab, probes, the gzip input."""
    if dest.exists():
        shutil.rmtree(dest)
    for d in ("bin", "sbin", "etc", "proc", "sys", "dev", "tmp", "root", "sonda", "datos"):
        (dest / d).mkdir(parents=True, exist_ok=True)
    shutil.copy2(busybox, dest / "bin" / "busybox")
    for applet in _busybox_applets(busybox):
        if applet != "busybox":
            link = dest / "bin" / applet
            if not link.exists():
                link.symlink_to("busybox")
    (dest / "etc" / "inittab").write_text(INITTAB_VM)
    (dest / "etc" / "inittab.contenedor").write_text(INITTAB_COMMON)
    (dest / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    for name, src in probes.items():
        shutil.copy2(src, dest / "sonda" / name)
    gzip_input(dest / "datos" / "entrada.txt")
    return dest


def provision(log: Log = print, *, force: bool = False) -> Assets | None:
    """Build the guest once into ~/.cache/curso-contenedores/vm. Never raises for a missing tool:
    says what is missing in Spanish and returns None."""
    if not force and assets() is not None:
        log("VM del curso: ya construida.")
        if assets().systemd_disk is None:
            provision_systemd(assets(), log)
        return assets()
    missing = [tool for tool in (QEMU, "qemu-img", "lz4", "apt-get", "dpkg-deb") if not shutil.which(tool)]
    if not (shutil.which("mke2fs") or Path("/sbin/mke2fs").exists()):
        missing.append("mke2fs")
    busybox = images.busybox_binary()
    if busybox is None:
        missing.append("busybox estático")
    if missing:
        log(
            f"[AVISO] No construyo la VM del curso: falta {', '.join(missing)} "
            f"(paquetes de Debian: {', '.join(DEBIAN_PACKAGES)}). El cuaderno 08 omitirá la VM."
        )
        return None
    try:
        probe_paths = {name: probes.ensure(name, log) for name in ("memtoca", "cronometro")}
    except Exception as exc:  # noqa: BLE001 - provisioning never stops setup
        log(f"[AVISO] No construyo la VM del curso: faltan las sondas ({exc}).")
        return None
    VM_DIR.mkdir(parents=True, exist_ok=True)
    log("Construyendo la VM del curso (kernel de Debian, initramfs con busybox, disco base)…")
    start = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(dir=VM_DIR) as tmp:
            work = Path(tmp)
            deb = _kernel_deb(work)
            system.run_checked(["dpkg-deb", "-x", str(deb), str(work / "x")], timeout=300)
            vmlinuz = sorted((work / "x" / "boot").glob("vmlinuz-*"))[0]
            version = vmlinuz.name.removeprefix("vmlinuz-")
            kernel = extract_vmlinux(vmlinuz, VM_DIR / "vmlinux")
            modules_dir = work / "x" / "lib" / "modules" / version / "kernel"
            initramfs = build_initramfs(busybox, modules_dir, VM_DIR / "initramfs.cpio.gz")
        rootfs = build_rootfs(busybox, probe_paths, VM_DIR / "rootfs")
        disk = build_disk(rootfs, VM_DIR / "base.qcow2", label="curso", size_mb=DISK_MB)
    except (ErrorDelCurso, OSError, subprocess.SubprocessError, IndexError) as exc:
        log(f"[AVISO] No pude construir la VM del curso: {exc}")
        return None
    manifest_path().write_text(
        json.dumps(
            {
                "format": FORMAT_VERSION,
                "kernel": str(kernel),
                "initramfs": str(initramfs),
                "base_disk": str(disk),
                "rootfs": str(rootfs),
                "kernel_version": version,
                "package": deb.name,
            },
            indent=2,
        )
    )
    log(f"VM del curso lista en {time.monotonic() - start:.0f} s: kernel {version}.")
    provision_systemd(assets(), log)
    return assets()


# ---------------------------------------------------------------- systemd on both sides
