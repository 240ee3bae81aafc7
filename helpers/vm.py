"""Virtual machines with QEMU, built offline from Debian packages (experiment sistema_vm).

The guest is the course's own, kept small so it boots in about a second and a half even under
software emulation:
- kernel: the uncompressed kernel (vmlinux) of Debian's `linux-image-cloud-amd64`; the .deb is fetched
  with `apt-get download` (no root needed) and unpacked with `dpkg-deb -x`. Its vmlinuz is a bzImage
  with an lz4 payload; `lz4` unpacks it, and the ELF boots directly on QEMU's `microvm` machine (PVH);
- initramfs: busybox-static plus the virtio modules of that same kernel; its /init mounts the disk
  and hands over to busybox init (`switch_root`);
- disk: an ext4 image holding a busybox root filesystem (the same busybox the course's «alpine»
  stand-in image holds), the probes and the gzip input. Every VM boots from its own copy-on-write
  qcow2 overlay on that shared base, like a VM cloned from a master image.
busybox init runs the same /etc/inittab line in the VM and in the system container, and that line
prints the ready marker on the console.

Acceleration: KVM only if a probe boots the guest under `-accel kvm` within a short time (on this
course's machines /dev/kvm exists but a guest does not boot on it); otherwise TCG, QEMU's software
emulation, whose figures are labelled «emulada» everywhere.

Every VM is a child process in its own process group, owned by the run: `VM.stop()` kills the group
and removes the overlay; experiments register it with `ctx.defer`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import measure
from .engines import CACHE_DIR
from .errors import ComandoFallido, ErrorDelCurso, ParametroInvalido

VM_DIR = CACHE_DIR / "vm"
KERNEL_PACKAGE = "linux-image-cloud-amd64"
DEBIAN_PACKAGES = ["qemu-system-x86", "qemu-utils", "lz4", "e2fsprogs", "busybox-static"]
QEMU = "qemu-system-x86_64"
# microvm with the legacy PIC, PIT and RTC. microvm has no HPET nor ACPI PM timer: under TCG on a loaded
# host the guest's PIT-based TSC calibration fails and the boot hangs, so the guest is told the TSC
# frequency (under TCG the guest reads the host's TSC).
MACHINE = "microvm,pit=on,pic=on,rtc=on"
READY = "CURSO-LISTO"
FORMAT_VERSION = 3  # bump when the guest's layout changes: provision() rebuilds
MODULES = ("virtio_ring", "virtio", "virtio_mmio", "virtio_blk", "virtio_balloon")
MODULE_PATHS = {
    "virtio": "drivers/virtio/virtio.ko",
    "virtio_ring": "drivers/virtio/virtio_ring.ko",
    "virtio_mmio": "drivers/virtio/virtio_mmio.ko",
    "virtio_blk": "drivers/block/virtio_blk.ko",
    "virtio_balloon": "drivers/virtio/virtio_balloon.ko",
}
GUEST_DATA_MB = 8  # gzip input, in MB (the same file on every side)
DISK_MB = 64  # size of the guest's ext4 file system
BOOT_TIMEOUT = 90  # s; TCG on a loaded machine is slow, but a boot never takes this long
KVM_PROBE_TIMEOUT = 20  # s; a working KVM boots the guest in well under a second
BASE_MEMORY_MB = 256

Log = Callable[[str], None]

# The inittab line shared by the VM and the system container; the VM adds a shell on its console.
INITTAB_COMMON = f"::sysinit:/bin/echo {READY}\n"
INITTAB_VM = INITTAB_COMMON + "ttyS0::respawn:/bin/sh\n"

INIT_SCRIPT = """#!/bin/busybox sh
# The course's initramfs: load the virtio modules, mount the disk, hand over to busybox init.
/bin/busybox mkdir -p /proc /sys /dev /newroot
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
for m in %(modules)s; do /bin/busybox insmod /lib/modules/$m.ko; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 1000 ]; do /bin/busybox usleep 10000; i=$((i+1)); done
if ! /bin/busybox mount -t ext4 /dev/vda /newroot; then
    echo "CURSO-ERROR: no se pudo montar el disco"; /bin/busybox poweroff -f
fi
for d in proc sys dev; do /bin/busybox mount --move /$d /newroot/$d; done
# The disk's init: busybox init by default, systemd with curso.init=/sbin/init on the kernel command line.
INIT="/bin/busybox init"
for arg in $(/bin/busybox cat /newroot/proc/cmdline); do
    case "$arg" in curso.init=*) INIT="${arg#curso.init=}" ;; esac
done
exec /bin/busybox switch_root /newroot $INIT
"""


@dataclass(frozen=True)
class Assets:
    kernel: Path
    initramfs: Path
    base_disk: Path
    kernel_version: str
    rootfs: Path  # the guest's root file system as a directory (system containers mount from it)
    systemd_disk: Path | None = None  # a Debian base disk whose init is systemd (built as root only)

    @property
    def probes(self) -> Path:
        return self.rootfs / "sonda"

    @property
    def data_file(self) -> Path:
        return self.rootfs / "datos" / "entrada.txt"


def _manifest() -> Path:
    return VM_DIR / "manifest.json"


def assets() -> Assets | None:
    """The built guest, or None if `make setup` has not built it (or built an older layout)."""
    try:
        info = json.loads(_manifest().read_text())
    except (OSError, ValueError):
        return None
    if info.get("format") != FORMAT_VERSION:
        return None
    systemd_disk = Path(info["systemd_disk"]) if info.get("systemd_disk") else None
    found = Assets(
        Path(info["kernel"]),
        Path(info["initramfs"]),
        Path(info["base_disk"]),
        info["kernel_version"],
        Path(info["rootfs"]),
        systemd_disk if systemd_disk and systemd_disk.exists() else None,
    )
    if not all(p.exists() for p in (found.kernel, found.initramfs, found.base_disk, found.rootfs)):
        return None
    return found


def qemu_binary() -> str | None:
    return shutil.which(QEMU)


def qemu_img_binary() -> str | None:
    return shutil.which("qemu-img")


def availability() -> tuple[bool, str | None]:
    """Can this machine boot the course's VM (under TCG at least)? (ok, Spanish reason)."""
    if not qemu_binary():
        return False, f"falta {QEMU} (paquete de Debian qemu-system-x86; «make setup» lo instala como root)."
    if not qemu_img_binary():
        return False, "falta qemu-img (paquete de Debian qemu-utils; «make setup» lo instala como root)."
    if assets() is None:
        return False, "la VM del curso aún no está construida: ejecuta «make setup»."
    return True, None


# ---------------------------------------------------------------- provisioning
def _run(argv, *, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    result = subprocess.run(list(argv), cwd=cwd, capture_output=True, timeout=timeout)
    if result.returncode != 0:
        err = result.stderr.decode("utf-8", "replace").strip()[-400:]
        raise ComandoFallido(f"«{' '.join(map(str, argv[:4]))}» falló (código {result.returncode}): {err}")
    return result


def _kernel_deb(work: Path) -> Path:
    """apt-get download the kernel package the metapackage points at (works without root)."""
    deps = _run(["apt-cache", "depends", KERNEL_PACKAGE]).stdout.decode()
    names = [
        line.split(":", 1)[1].strip()
        for line in deps.splitlines()
        if line.strip().startswith("Depends:") and "linux-image-" in line
    ]
    if not names:
        raise ComandoFallido(f"apt no conoce el paquete {KERNEL_PACKAGE} (¿falta «apt-get update»?).")
    _run(["apt-get", "download", names[0]], cwd=work, timeout=600)
    debs = sorted(work.glob("linux-image-*.deb"))
    if not debs:
        raise ComandoFallido(f"apt-get download no dejó el paquete {names[0]}.")
    return debs[0]


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


def _cpio_newc(entries: list[tuple[str, int, bytes]]) -> bytes:
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
    return _run([str(busybox), "--list"]).stdout.decode().split()


def build_initramfs(busybox: Path, modules_dir: Path, dest: Path) -> Path:
    dirs = ["bin", "dev", "proc", "sys", "newroot", "lib", "lib/modules"]
    entries: list[tuple[str, int, bytes]] = [(d, 0o040755, b"") for d in dirs]
    entries.append(("bin/busybox", 0o100755, busybox.read_bytes()))
    entries += [(f"bin/{a}", 0o120777, b"busybox") for a in _busybox_applets(busybox) if a != "busybox"]
    for name in MODULES:
        entries.append((f"lib/modules/{name}.ko", 0o100644, (modules_dir / MODULE_PATHS[name]).read_bytes()))
    init = INIT_SCRIPT % {"modules": " ".join(MODULES)}
    entries.append(("init", 0o100755, init.encode()))
    dest.write_bytes(gzip.compress(_cpio_newc(entries), compresslevel=6))
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


def build_disk(rootfs: Path, dest: Path) -> Path:
    """ext4 from a directory without root or loop devices (mke2fs -d), then a qcow2 base image."""
    raw = dest.with_suffix(".raw")
    raw.unlink(missing_ok=True)
    mkfs = shutil.which("mke2fs") or "/sbin/mke2fs"
    _run(
        [
            mkfs,
            "-q",
            "-F",
            "-t",
            "ext4",
            "-L",
            "curso",
            "-E",
            "root_owner=0:0",
            "-d",
            str(rootfs),
            str(raw),
            f"{DISK_MB}M",
        ]
    )
    _run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(dest)])
    raw.unlink()
    return dest


def provision(log: Log = print, *, force: bool = False) -> Assets | None:
    """Build the guest once into ~/.cache/curso-contenedores/vm. Never raises for a missing tool:
    says what is missing in Spanish and returns None."""
    from . import images, probes

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
            _run(["dpkg-deb", "-x", str(deb), str(work / "x")], timeout=300)
            vmlinuz = sorted((work / "x" / "boot").glob("vmlinuz-*"))[0]
            version = vmlinuz.name.removeprefix("vmlinuz-")
            kernel = extract_vmlinux(vmlinuz, VM_DIR / "vmlinux")
            modules_dir = work / "x" / "lib" / "modules" / version / "kernel"
            initramfs = build_initramfs(busybox, modules_dir, VM_DIR / "initramfs.cpio.gz")
        rootfs = build_rootfs(busybox, probe_paths, VM_DIR / "rootfs")
        disk = build_disk(rootfs, VM_DIR / "base.qcow2")
    except (ErrorDelCurso, OSError, subprocess.SubprocessError, IndexError) as exc:
        log(f"[AVISO] No pude construir la VM del curso: {exc}")
        return None
    _manifest().write_text(
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
SYSTEMD_IMAGE = "curso/debian-systemd:bookworm"
SYSTEMD_PACKAGES = ("systemd", "systemd-sysv")
SYSTEMD_DISK_MB = 1024
# Ready when systemd says the boot is over (is-system-running --wait); the same unit in the container
# image and in the VM's disk. Type=simple, so this unit's own job does not keep the boot waiting.
UNIT_READY = f"""[Unit]
Description=Marca de «listo» del curso
After=multi-user.target

[Service]
Type=simple
ExecStart=/bin/sh -c 'systemctl is-system-running --wait >/dev/null 2>&1; echo {READY} > /dev/console'

[Install]
WantedBy=multi-user.target
"""
# The VM only: a root shell on the serial console, for the course's commands (a container uses exec).
UNIT_CONSOLE = """[Unit]
Description=Consola del curso en ttyS0

[Service]
ExecStart=/bin/sh
StandardInput=tty-force
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
Restart=always

[Install]
WantedBy=multi-user.target
"""


def _add_unit(root: Path, name: str, text: str) -> None:
    unit = root / "etc" / "systemd" / "system" / name
    unit.parent.mkdir(parents=True, exist_ok=True)
    unit.write_text(text)
    wants = unit.parent / "multi-user.target.wants" / name
    wants.parent.mkdir(parents=True, exist_ok=True)
    wants.unlink(missing_ok=True)
    wants.symlink_to(f"/etc/systemd/system/{name}")


def _tar_add_unit(tar_path: Path, name: str, text: str) -> None:
    import io
    import tarfile

    with tarfile.open(tar_path, "a") as archive:
        data = text.encode()
        info = tarfile.TarInfo(f"./etc/systemd/system/{name}")
        info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
        archive.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo(f"./etc/systemd/system/multi-user.target.wants/{name}")
        link.type, link.linkname, link.mtime = (
            tarfile.SYMTYPE,
            f"/etc/systemd/system/{name}",
            int(time.time()),
        )
        archive.addfile(link)


def systemd_reason() -> str | None:
    """Why the systemd pair (container image and VM disk) cannot be built here, or None."""
    from . import images

    if os.geteuid() != 0:
        return (
            "hace falta root para crear el disco de la VM con systemd (los archivos del sistema deben "
            "pertenecer a root); como usuario, el curso compara solo con busybox init."
        )
    return images.rootfs_builder_reason()


def provision_systemd(found: Assets, log: Log = print) -> Path | None:
    """Build once: a Debian minbase with systemd as a tarball (mmdebstrap), the ready unit added; import
    it into Podman as SYSTEMD_IMAGE; and a VM base disk from the same files plus the console unit, the
    probes and the gzip input. Returns the disk, or None (said in Spanish) if it cannot be built."""
    from . import engines, images

    why = systemd_reason()
    if why:
        log(f"[AVISO] Sin la pareja con systemd: {why}")
        return None
    tar = VM_DIR / "debian-systemd.tar"
    disk = VM_DIR / "base-systemd.qcow2"
    try:
        if not tar.exists():
            log("Construyendo Debian con systemd para el contenedor de sistema y la VM (una sola vez)…")
            partial = images.build_rootfs_tar(
                VM_DIR / "debian-systemd.base.tar", include=SYSTEMD_PACKAGES, log=log
            )
            _tar_add_unit(partial, "curso-listo.service", UNIT_READY)
            partial.rename(tar)
        podman = engines.get_engine("podman")
        if podman.available and podman.image_info(f"localhost/{SYSTEMD_IMAGE}") is None:
            log(f"    importando {SYSTEMD_IMAGE} en Podman…")
            images.import_tar(podman, tar, SYSTEMD_IMAGE, changes=('CMD ["/sbin/init"]',))
        if not disk.exists():
            with tempfile.TemporaryDirectory(dir=VM_DIR) as tmp:
                root = Path(tmp) / "raiz"
                root.mkdir()
                _run(["tar", "-x", "--numeric-owner", "-f", str(tar), "-C", str(root)], timeout=600)
                _add_unit(root, "curso-consola.service", UNIT_CONSOLE)
                # The serial console belongs to the course's shell: the stock getty on ttyS0 would wait
                # 90 s for a device unit that never appears on this machine type, delaying the boot.
                (root / "etc" / "systemd" / "system" / "serial-getty@ttyS0.service").symlink_to("/dev/null")
                shutil.copytree(found.probes, root / "sonda", dirs_exist_ok=True)
                shutil.copytree(found.data_file.parent, root / "datos", dirs_exist_ok=True)
                raw = Path(tmp) / "disco.raw"
                mkfs = shutil.which("mke2fs") or "/sbin/mke2fs"
                _run(
                    [
                        mkfs,
                        "-q",
                        "-F",
                        "-t",
                        "ext4",
                        "-L",
                        "curso-systemd",
                        "-d",
                        str(root),
                        str(raw),
                        f"{SYSTEMD_DISK_MB}M",
                    ],
                    timeout=600,
                )
                _run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(disk) + ".parcial"], timeout=600)
                os.rename(str(disk) + ".parcial", disk)
    except (ErrorDelCurso, OSError, subprocess.SubprocessError) as exc:
        log(f"[AVISO] No pude construir la pareja con systemd: {exc}")
        return None
    info = json.loads(_manifest().read_text())
    info["systemd_disk"] = str(disk)
    _manifest().write_text(json.dumps(info, indent=2))
    return disk


# ---------------------------------------------------------------- acceleration
def _kvm_state_path() -> Path:
    return VM_DIR / "kvm.json"


def _kvm_key(found: Assets) -> str:
    uname = os.uname()
    qemu = subprocess.run([QEMU, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    return hashlib.sha256(
        f"{uname.release}|{uname.version}|{qemu}|{found.kernel_version}".encode()
    ).hexdigest()


def kvm_status(*, refresh: bool = False, timeout: float = KVM_PROBE_TIMEOUT) -> tuple[bool, str]:
    """(works, Spanish explanation). Works only if a guest really boots under -accel kvm; the answer
    is cached per host kernel, QEMU and guest kernel."""
    if not os.path.exists("/dev/kvm"):
        return False, "no existe /dev/kvm (sin virtualización por hardware, o el módulo kvm no está cargado)."
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "no tienes permiso sobre /dev/kvm (en Debian: entra en el grupo «kvm»)."
    found = assets()
    ok, why = availability()
    if not ok or found is None:
        return False, why or "la VM del curso no está construida."
    key = _kvm_key(found)
    state = _kvm_state_path()
    if not refresh:
        try:
            cached = json.loads(state.read_text())
            if cached.get("key") == key:
                return bool(cached["ok"]), cached["reason"]
        except (OSError, ValueError, KeyError):
            pass
    vm = VM("sonda-kvm", accel="kvm", memory_mb=BASE_MEMORY_MB, found=found)
    try:
        vm.boot(timeout=timeout)
        ok, reason = True, f"un huésped arrancó con KVM en {vm.boot_ms / 1000:.1f} s."
    except (TimeoutError, ErrorDelCurso, OSError) as exc:
        detail = str(exc).split(";")[0][:160]
        ok, reason = (
            False,
            (f"/dev/kvm existe, pero un huésped no arranca con KVM en {timeout:.0f} s ({detail})."),
        )
    finally:
        vm.stop()
    state.write_text(json.dumps({"key": key, "ok": ok, "reason": reason}))
    return ok, reason


def resolve_acceleration(requested: str) -> tuple[str, str]:
    """("kvm"|"tcg", Spanish reason). `kvm` where it does not work raises ParametroInvalido."""
    if requested not in ("auto", "kvm", "tcg"):
        raise ParametroInvalido(f"ACELERACION debe ser «auto», «kvm» o «tcg», no «{requested}».")
    if requested == "tcg":
        return "tcg", "pediste emulación por software (TCG)."
    ok, why = kvm_status()
    if ok:
        return "kvm", why
    if requested == "kvm":
        raise ParametroInvalido(
            f"Pediste ACELERACION = «kvm», pero KVM no funciona aquí: {why} Usa «auto» o «tcg»."
        )
    return "tcg", f"KVM no funciona aquí: {why} Se usa la emulación por software (TCG)."


def host_tsc_khz() -> int | None:
    """The host's TSC frequency in kHz as /proc/cpuinfo reports it (constant on machines with a TSC
    that does not follow the CPU's frequency; good enough for the guest's early calibration)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return int(float(line.split(":", 1)[1]) * 1000)
    except (OSError, ValueError):
        pass
    return None


def kernel_cmdline(init: str | None = None) -> str:
    args = ["console=ttyS0", "quiet", "panic=-1", "reboot=t"] + ([f"curso.init={init}"] if init else [])
    khz = host_tsc_khz()
    if khz:
        args += [f"tsc_early_khz={khz}", "tsc=reliable"]
    return " ".join(args)


# ---------------------------------------------------------------- a running VM
class VM:
    """One guest: a qcow2 overlay on the base disk and a QEMU child process with its serial console
    on a pipe. `boot()` times overlay creation + QEMU start until the ready marker; `sh()` runs a
    command on the console; `stop()` kills QEMU's process group and removes the overlay."""

    def __init__(
        self,
        name: str,
        *,
        accel: str,
        memory_mb: int = BASE_MEMORY_MB,
        workdir: Path | None = None,
        found: Assets | None = None,
        balloon_reporting: bool = False,
        flavor: str = "busybox",
    ):
        self.name = name
        self.accel = accel
        self.memory_mb = int(memory_mb)
        self.assets = found or assets()
        if self.assets is None:
            raise ErrorDelCurso("La VM del curso aún no está construida: ejecuta «make setup».")
        self.workdir = Path(workdir or VM_DIR / "instancias")
        self.overlay = self.workdir / f"{name}.qcow2"
        self.flavor = flavor
        if flavor == "systemd" and self.assets.systemd_disk is None:
            raise ErrorDelCurso(
                "No hay disco con systemd para la VM (se construye solo como root, con «make setup»)."
            )
        self.base_disk = self.assets.systemd_disk if flavor == "systemd" else self.assets.base_disk
        self.balloon_reporting = balloon_reporting
        self.child: measure.Child | None = None
        self.boot_ms = float("nan")
        self._seq = 0

    def argv(self) -> list[str]:
        accel = (
            ["-accel", "kvm", "-cpu", "host"]
            if self.accel == "kvm"
            else ["-accel", "tcg,tb-size=32", "-cpu", "max"]
        )
        balloon = "virtio-balloon-device" + (",free-page-reporting=on" if self.balloon_reporting else "")
        return [
            QEMU,
            "-M",
            MACHINE,
            *accel,
            "-m",
            str(self.memory_mb),
            "-smp",
            "1",
            "-nodefaults",
            "-no-user-config",
            "-display",
            "none",
            "-serial",
            "stdio",
            "-monitor",
            "none",
            "-no-reboot",
            "-kernel",
            str(self.assets.kernel),
            "-initrd",
            str(self.assets.initramfs),
            "-append",
            kernel_cmdline("/sbin/init" if self.flavor == "systemd" else None),
            "-drive",
            f"id=d0,file={self.overlay},format=qcow2,if=none,cache=writeback",
            "-device",
            "virtio-blk-device,drive=d0",
            "-device",
            balloon,
            "-name",
            f"curso-{self.name}",
        ]

    def create_overlay(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        _run(
            [
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-F",
                "qcow2",
                "-b",
                str(self.base_disk),
                str(self.overlay),
            ]
        )

    def boot(self, timeout: float = BOOT_TIMEOUT) -> float:
        """Overlay + QEMU until the guest's init prints the ready marker; returns (and keeps) ms."""
        start = time.perf_counter_ns()
        self.create_overlay()
        self.child = measure.Child(self.argv(), stdin=True)
        self.child.wait_for(READY, timeout)
        self.boot_ms = (self.child.marked_ns - start) / 1e6
        return self.boot_ms

    @property
    def pid(self) -> int | None:
        return self.child.pid if self.child else None

    def sh(self, command: str, timeout: float = 60) -> list[str]:
        """Run a shell command on the guest's console; returns its output lines."""
        if not self.child or not self.child.alive():
            raise ComandoFallido(f"La VM {self.name} no está corriendo.")
        self._seq += 1
        tag = f"CURSO-FIN-{self._seq}"
        start = len(self.child.lines)
        # Split the marker in the command so the console's echo of the input never matches it.
        head, tail = tag[:5], tag[5:]
        self.child.send(f'{command}; echo "{head}""{tail}:$?"\n')
        line = self.child.wait_for(f"{tag}:", timeout, start=start)
        end = self.child.lines.index(line, start)
        out = [x for x in self.child.lines[start:end] if tag[5:] not in x]
        if line.index(f"{tag}:") > 0:  # output without a final newline shares the marker's line
            out.append(line[: line.index(f"{tag}:")])
        code = int(line.rsplit(":", 1)[1].strip() or 0)
        if code != 0:
            raise ComandoFallido(f"En la VM, «{command}» terminó con código {code}: {' | '.join(out[-5:])}")
        return out

    def send(self, command: str) -> None:
        """Type a command on the guest's console without waiting (read its output with wait_for)."""
        if not self.child or not self.child.alive():
            raise ComandoFallido(f"La VM {self.name} no está corriendo.")
        self.child.send(command + "\n")

    def wait_for(self, marker: str, timeout: float) -> str:
        return self.child.wait_for(marker, timeout)

    def overlay_bytes(self) -> int:
        """Bytes the overlay really occupies on the host's disk (allocated blocks)."""
        try:
            return self.overlay.stat().st_blocks * 512
        except OSError:
            return 0

    def stop(self) -> None:
        if self.child:
            self.child.stop()
        self.overlay.unlink(missing_ok=True)


def leftover_processes(tag: str = "curso-") -> list[int]:
    """PIDs of QEMU processes started by the course (-name curso-...) still alive."""
    import psutil

    pids = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if cmd and os.path.basename(cmd[0]) == QEMU and any(a.startswith(tag) for a in cmd):
            pids.append(proc.pid)
    return pids
