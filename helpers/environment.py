"""Checks for notebook 00: is everything the course needs here? Each check says how to fix it."""

from __future__ import annotations

import importlib
import os
import shutil
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from . import engines, experiments, images, probes, system, vm
from .engines import lxd
from .experiments.sistema_vm import disk_io
from .paths import PROBES_DIR, PROJECT_ROOT

PACKAGES = {  # import name -> distribution name
    "jupyterlab": "jupyterlab",
    "ipywidgets": "ipywidgets",
    "pandas": "pandas",
    "seaborn": "seaborn",
    "docker": "docker",
    "papermill": "papermill",
    "nbconvert": "nbconvert",
    "psutil": "psutil",
}


@dataclass
class Check:
    ok: bool
    item: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "[ OK ]" if self.ok else "[FALTA]"
        text = f"{mark} {self.item}: {self.detail}"
        if not self.ok and self.fix:
            text += f" → {self.fix}"
        return text


def check_packages() -> list[Check]:
    out = []
    for module, dist in PACKAGES.items():
        try:
            importlib.import_module(module)
            out.append(Check(True, f"paquete {dist}", metadata.version(dist)))
        except Exception as exc:  # noqa: BLE001 - any import failure is "missing"
            out.append(
                Check(
                    False,
                    f"paquete {dist}",
                    f"no se puede importar ({type(exc).__name__})",
                    "ejecuta «make setup» (instala el entorno en .venv)",
                )
            )
    return out


def check_engines() -> list[Check]:
    out = []
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        ok, why = engine.availability()
        if not ok:
            out.append(
                Check(
                    False,
                    f"motor {engine.display}",
                    why or "no disponible",
                    "como root en Debian/Ubuntu, «make setup» lo instala y lo arranca; "
                    "si no, el curso sigue con bare metal y los datos de referencia",
                )
            )
            continue
        info = engine.info()
        detail = (
            f"versión {info.get('server_version')}, runtime {info.get('runtime')}, "
            f"almacenamiento {info.get('storage') or info.get('storage_driver')}, "
            f"red {info.get('network_backend') or '?'}, cgroups {info.get('cgroup_version')}"
        )
        if info.get("rootless"):
            detail += "; corre sin root, dentro de un espacio de usuarios"
        if engine.workarounds():
            detail += " (con el arreglo de containers.conf para este kernel)"
        out.append(Check(True, f"motor {engine.display}", detail))
    return out


def check_user() -> list[Check]:
    """Who runs the course: root, or a user (in the docker group or not)."""
    if system.is_root():
        return [Check(True, "usuario", "root: el curso entero está a tu alcance")]
    user = system.user_name()
    groups = "en el grupo «docker»" if system.in_group("docker") else "fuera del grupo «docker»"
    return [Check(True, "usuario", f"«{user}», sin root ({groups}): mira abajo qué partes del curso tienes")]


def check_images() -> list[Check]:
    out = []
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        if not engine.available:
            continue
        for role in images.ROLE_NAMES:
            info = images.resolve(role, engine)
            if info:
                kind = "oficial" if info["origin"] == "oficial" else "sustituto local"
                out.append(
                    Check(
                        True,
                        f"imagen «{role}» en {engine.display}",
                        f"{info['name']} ({kind}, {(info['size_bytes'] or 0) / 2**20:.1f} MiB, "
                        f"ID {short_id(info['id'])})",
                    )
                )
            else:
                out.append(
                    Check(
                        False,
                        f"imagen «{role}» en {engine.display}",
                        "no está",
                        "ejecuta «make setup»: la construye sin registro",
                    )
                )
    return out


def short_id(image_id: str | None) -> str:
    """An image ID the way both engines print it short: 12 hex digits, without «sha256:»."""
    return (image_id or "").removeprefix("sha256:")[:12] or "?"


def check_vm() -> list[Check]:
    """The course's VM (notebook 08): built or not, and whether it will be accelerated (KVM) or emulated
    (TCG). kvm_status answers from the cache `make setup` leaves (it boots a probe guest only once)."""
    ok, why = vm.availability()
    label = "máquina virtual del cuaderno 08 (QEMU)"
    if not ok:
        return [
            Check(False, label, why or "no disponible", "el cuaderno 08 mide entonces solo los contenedores")
        ]
    kvm, reason = vm.kvm_status()
    reason = reason[:1].lower() + reason[1:]
    accel = f"acelerada (KVM): {reason}" if kvm else f"emulada (TCG): {reason}"
    out = [Check(True, label, f"lista; será {accel}")]
    if not disk_io.available():
        out.append(Check(False, "fio para la prueba de disco del cuaderno 08", disk_io.reason()))
    return out


def check_cgroups() -> list[Check]:
    version = system.cgroup_version()
    ok = version != "desconocido"
    return [
        Check(
            ok,
            "versión de cgroups",
            version,
            "el experimento 2 lee la memoria de los cgroups; sin ellos no hay medida por contenedor",
        )
    ]


def user_service_cgroup(uid: int, root: Path = system.CGROUP_ROOT) -> Path:
    """Where systemd puts a user's session manager on cgroup v2 (user@UID.service)."""
    return Path(root) / "user.slice" / f"user-{uid}.slice" / f"user@{uid}.service"


def check_delegation(root: Path = system.CGROUP_ROOT, uid: int | None = None) -> list[Check]:
    """Without root on cgroup v2: does systemd delegate the memory controller to this user's session?
    Only then does rootless Podman give each container a cgroup of its own, whose memory 02 reads."""
    if system.is_root() or system.cgroup_version(root) != "v2":
        return []
    uid = os.getuid() if uid is None else uid
    service = user_service_cgroup(uid, root)
    try:
        delegated = (service / "cgroup.controllers").read_text().split()
    except OSError:
        delegated = []
    item = "delegación de cgroups v2"
    if "memory" in delegated:
        return [
            Check(
                True,
                item,
                f"tu sesión (user@{uid}.service) tiene {', '.join(delegated)}: Podman sin root crea un "
                "cgroup por contenedor y el experimento 2 lee su memoria",
            )
        ]
    return [
        Check(
            False,
            item,
            f"tu sesión (user@{uid}.service) no tiene el controlador memory"
            + (f" (solo {', '.join(delegated)})" if delegated else " o no existe"),
            "un administrador puede delegarlo con «Delegate=cpu memory pids» en "
            "/etc/systemd/system/user@.service.d/delegate.conf; sin eso, 02 no lee la memoria de cada "
            "contenedor de Podman sin root",
        )
    ]


def check_probes(directory: Path = PROBES_DIR) -> list[Check]:
    sources = sorted(Path(directory).glob("*.c"))
    out = []
    for src in sources:
        binary = Path(directory) / "bin" / src.stem
        if binary.is_file():
            out.append(
                Check(
                    True,
                    f"sonda {src.stem}",
                    f"compilada en {binary.relative_to(PROJECT_ROOT)}"
                    if binary.is_relative_to(PROJECT_ROOT)
                    else str(binary),
                )
            )
        elif why := probes.cannot_build(directory):
            fix = f"{why} Después, {probes.BUILT_ON_USE}"
            out.append(Check(False, f"sonda {src.stem}", "sin compilar, y aquí no se puede compilar", fix))
        else:
            out.append(Check(True, f"sonda {src.stem}", f"sin compilar aún: {probes.BUILT_ON_USE}"))
    return out


def check_leftovers() -> list[Check]:
    """Containers left by runs that died (a killed kernel, a lost engine): removed now, and said."""
    present = [n for n in engines.CONTAINER_ENGINES if engines.get_engine(n).available]
    if not present:
        return []
    reaped = engines.reap_orphans(present)
    if not reaped:
        return [Check(True, "contenedores abandonados", "ninguno")]
    total = sum(r["removed"] for r in reaped.values() if r.get("what") != "puente")
    own_bridges = sum(r["removed"] for r in reaped.values() if r.get("what") == "puente")
    runs = ", ".join(f"{r['run']} ({engines.DISPLAY[r['engine']]}: {r['reason']})" for r in reaped.values())
    nouns = [
        f"{n} {one if n == 1 else many}"
        for n, one, many in (
            (total, "contenedor abandonado", "contenedores abandonados"),
            (own_bridges, "puente propio abandonado", "puentes propios abandonados"),
        )
        if n
    ]
    return [
        Check(
            True,
            "contenedores abandonados",
            f"eliminé {' y '.join(nouns)} de corridas que ya no viven: {runs}",
        )
    ]


def check_lxd() -> list[Check]:
    """LXD or Incus (the real system containers of notebook 08), and instances left by dead runs."""
    f = lxd.flavor()
    ok, why = lxd.availability()
    if not ok:
        return [
            Check(
                False,
                "contenedores de sistema (LXD/Incus)",
                why or "no disponible",
                "el cuaderno 08 usa entonces Podman con --systemd=always como sustituto",
            )
        ]
    out = [
        Check(
            True, f"contenedores de sistema ({f.display})", f"versión {lxd.version()}, sin red, imagen lista"
        )
    ]
    reaped = lxd.reap_orphans()
    total = sum(r["removed"] for r in reaped.values())
    left = len(lxd.course_instances())
    detail = f"eliminé {total} de corridas que ya no viven" if total else "ninguno"
    if left:
        detail += f"; {left} de una corrida viva siguen en marcha"
    out.append(Check(True, f"contenedores de sistema abandonados ({f.display})", detail))
    return out


def all_checks() -> list[Check]:
    return (
        check_user()
        + check_packages()
        + check_engines()
        + check_images()
        + check_leftovers()
        + check_lxd()
        + check_vm()
        + check_cgroups()
        + check_delegation()
        + check_probes()
    )


# ---------------------------------------------------------------- what a user without root gets
@dataclass
class Part:
    """One part of the course: does this user get it, why not, and what an administrator would run."""

    part: str
    ok: bool
    detail: str
    admin: str = ""


def _docker_part() -> Part:
    engine = engines.get_engine("docker")
    ok, why = engine.availability()
    if ok:
        how = "como root" if system.is_root() else "por el grupo «docker» (equivale a root)"
        return Part("Docker", True, f"disponible {how}")
    user = system.user_name()
    if not shutil.which("docker"):
        admin = "sudo apt-get install docker.io && sudo make setup"
    elif Path("/var/run/docker.sock").is_socket() and not system.is_root():
        admin = f"sudo usermod -aG docker {user}"
    else:
        admin = "sudo make setup   (arranca dockerd)"
    return Part("Docker", False, why or "no disponible", admin)


def _podman_part() -> Part:
    engine = engines.get_engine("podman")
    ok, why = engine.availability()
    if not ok:
        return Part("Podman", False, why or "no disponible", "sudo apt-get install podman uidmap slirp4netns")
    if not engine.rootless:
        return Part("Podman", True, "disponible como root")
    info = engine.info()
    detail = f"sin root: red {info.get('network_backend')}, almacenamiento {info.get('storage')}"
    if info.get("storage_driver") == "vfs":
        detail += (
            ". Con vfs cada contenedor copia la imagen entera: «ubuntu» arranca muchas veces más lento. "
            "Puedes cambiarlo tú mismo (borra tus imágenes de Podman): escribe [storage] y "
            'driver = "overlay" en ~/.config/containers/storage.conf, ejecuta «podman system reset» '
            "y luego «make setup»"
        )
    user = system.user_name()
    if not (
        images.has_subid_range(Path("/etc/subuid"), user, os.getuid())
        and images.has_subid_range(Path("/etc/subgid"), user, os.getuid())
    ):
        return Part(
            "Podman",
            True,
            detail + "; sin UID subordinados solo puede mapear tu propio usuario",
            system.subid_command(user),
        )
    return Part("Podman", True, detail)


def _image_part() -> Part:
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        info = images.resolve("ubuntu", engine) if engine.available else None
        if info:
            return Part(
                "imagen «ubuntu» (Debian minbase)", True, f"lista en {engine.display} ({info['name']})"
            )
    why = images.standin_reason("ubuntu")
    if why is None:
        how = "con mmdebstrap" + ("" if system.is_root() else " --mode=unshare, sin root")
        return Part("imagen «ubuntu» (Debian minbase)", True, f"se construye {how} si no está ya")
    admin = "sudo apt-get install mmdebstrap uidmap" if "apt-get" in why or "mmdebstrap" in why else ""
    if "subordinados" in why:
        admin = system.subid_command()
    return Part("imagen «ubuntu» (Debian minbase)", False, why, admin)


def root_only_parts() -> list[Part]:
    """Every arm an experiment declares as root-only (NEEDS_ROOT = {key: what}), from the registry."""
    out = []
    for module in experiments.all_experiments():
        for what in getattr(module, "NEEDS_ROOT", {}).values():
            label = f"{module.NOTEBOOK}: {what[:1].lower() + what[1:]}"
            if system.is_root():
                out.append(Part(label, True, "eres root"))
            else:
                out.append(
                    Part(
                        label,
                        False,
                        f"necesita privilegios de root, y corres como «{system.user_name()}»",
                        "sudo make course   (o correr ese cuaderno como root)",
                    )
                )
    return out


def course_parts() -> list[Part]:
    """Which parts of the course this user gets, and for each missing one the administrator's command."""
    parts = [Part("bare metal y datos de referencia", True, "funcionan siempre, con o sin root")]
    parts += [_docker_part(), _podman_part(), _image_part()]
    try:
        parts += root_only_parts()
    except Exception as exc:  # noqa: BLE001 - the report must never break notebook 00
        parts.append(Part("partes que necesitan root", False, f"no pude leerlas ({type(exc).__name__})"))
    return parts


def admin_commands(parts: list[Part]) -> list[str]:
    """The distinct commands an administrator would run, in order."""
    return list(dict.fromkeys(p.admin for p in parts if p.admin))
