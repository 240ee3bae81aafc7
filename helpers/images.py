"""Images without a registry.

The course speaks of two image *roles*: "alpine" (tiny) and "ubuntu" (a full glibc userland). For each
role and engine we use, in order:
1. the official image, if the engine already has it;
2. the local stand-in built earlier by this module;
3. the official image pulled from a registry (fails at once when none is reachable);
4. a stand-in built now and imported into the engine:
   - alpine role: a root filesystem with Debian's busybox-static and its applet links (~2 MB);
   - ubuntu role: `mmdebstrap --variant=minbase bookworm` (~170 MB, 15 s to 2 min), as root or, for a user
     without root, in a user namespace (--mode=unshare). Where neither can run, the role is skipped
     with a Spanish line and the course goes on with the other role.

Results always record the real image used (name, ID, size, origin), never the role's name alone.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import system
from .engines import Engine, get_engine
from .errors import ErrorDelCurso
from .paths import CACHE_DIR

IMAGES_CACHE = CACHE_DIR / "images"


@dataclass(frozen=True)
class Role:
    name: str
    official: tuple[str, ...]
    standin: str
    description: str


ROLES = {
    "alpine": Role(
        "alpine",
        ("alpine:latest", "docker.io/library/alpine:latest"),
        "curso/busybox-estatico:1",
        "imagen mínima (Alpine, o un sustituto con busybox-static de unos 2 MB)",
    ),
    "ubuntu": Role(
        "ubuntu",
        ("ubuntu:latest", "docker.io/library/ubuntu:latest"),
        "curso/debian-minbase:bookworm",
        "imagen con userland glibc completo (Ubuntu, o un sustituto Debian minbase)",
    ),
}
ROLE_NAMES = tuple(ROLES)


def local_names(engine: Engine, ref: str) -> list[str]:
    """The names under which `engine` may hold a locally built or imported image `ref`, most likely
    first: Podman stores unqualified local imports as localhost/<name>."""
    names = [ref]
    if engine.name == "podman" and "/" in ref and not ref.startswith(("localhost/", "docker.io/")):
        names.insert(0, f"localhost/{ref}")
    return names


def resolve(role: str, engine: Engine) -> dict | None:
    """The image this engine already has for `role`, or None."""
    spec = ROLES[role]
    for origin, refs in (("oficial", spec.official), ("sustituto", (spec.standin,))):
        for ref in refs:
            found = local_image(engine, ref)
            if found:
                return {"role": role, **found, "origin": origin}
    return None


def local_image(engine: Engine, ref: str) -> dict | None:
    """The image `ref` as this engine has it (engine, name, id, size_bytes), under any of its local
    names, or None."""
    for name in local_names(engine, ref):
        info = engine.image_info(name)
        if info:
            return {"engine": engine.name, "name": name, "id": info["id"], "size_bytes": info["size_bytes"]}
    return None


# ---------------------------------------------------------------- stand-in root filesystems
def find_tool(name: str) -> str | None:
    """The path of a command, also in /usr/sbin and /sbin (not on a user's PATH), or None."""
    return shutil.which(name) or next(
        (str(p) for p in (Path("/usr/sbin") / name, Path("/sbin") / name) if p.exists()), None
    )


def busybox_binary() -> Path | None:
    for candidate in ("/bin/busybox", "/usr/bin/busybox"):
        path = Path(candidate)
        if path.exists():
            out = system.capture(["file", "-L", str(path)]) if shutil.which("file") else None
            if out is None or "statically linked" in out.stdout or "static-pie" in out.stdout:
                return path
    return None


def standin_tar(role: str) -> Path:
    """Where the stand-in root filesystem of `role` is cached, as a tarball ready to import."""
    return IMAGES_CACHE / role / "rootfs.tar"


def has_subid_range(path: Path, user: str, uid: int) -> bool:
    """Whether /etc/subuid or /etc/subgid (`path`) gives `user` (by name or uid) the 65,536 subordinate
    ids a whole image needs (rootless Podman, mmdebstrap --mode=unshare)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return False
    for line in lines:
        fields = line.strip().split(":")
        if (
            len(fields) == 3
            and fields[0] in (user, str(uid))
            and fields[2].isdigit()
            and int(fields[2]) >= 65536
        ):
            return True
    return False


def rootfs_builder_reason() -> str | None:
    """Why `build_rootfs_tar` cannot run for this user here (one Spanish sentence), or None if it can.

    As root mmdebstrap builds directly; without root it uses --mode=unshare, which needs newuidmap and
    newgidmap (Debian package uidmap) and a range of 65536 subordinate ids in /etc/subuid and /etc/subgid.
    """
    if not sys.platform.startswith("linux"):
        return "construir una imagen Debian con mmdebstrap solo funciona en Linux."
    if find_tool("mmdebstrap") is None:
        return (
            "no está mmdebstrap (paquete Debian «mmdebstrap»; un administrador puede instalarlo con "
            "«sudo apt-get install mmdebstrap»)."
        )
    if system.is_root():
        return None
    if not (find_tool("newuidmap") and find_tool("newgidmap")):
        return (
            "sin root, mmdebstrap necesita newuidmap y newgidmap (paquete «uidmap»; un administrador "
            "puede instalarlo con «sudo apt-get install uidmap»)."
        )
    user, uid = system.user_name(), os.getuid()
    if not (
        has_subid_range(Path("/etc/subuid"), user, uid) and has_subid_range(Path("/etc/subgid"), user, uid)
    ):
        return (
            f"sin root, mmdebstrap necesita un rango de 65536 UID y GID subordinados para «{user}» en "
            f"/etc/subuid y /etc/subgid (un administrador: {system.subid_command(user)})."
        )
    return None


def build_rootfs_tar(
    dest: Path | str,
    *,
    include: Sequence[str] = (),
    variant: str = "minbase",
    suite: str = "bookworm",
    log: Callable[[str], None] = print,
    timeout: float = 900,
) -> Path:
    """Build a Debian root filesystem as a tarball at `dest` with mmdebstrap, with or without root.

    One builder for everybody: as root mmdebstrap works directly; without root it runs in a user
    namespace (--mode=unshare), so a student without root gets the same image. `include` adds Debian
    packages (the nesting experiment's level-2 image adds podman, runc...). The tarball is written
    under a temporary name and renamed at the end, so a half-built one is never mistaken for a good one.
    Raises ErrorDelCurso (Spanish) if it cannot be built here; `rootfs_builder_reason()` says why first.
    """
    reason = rootfs_builder_reason()
    if reason:
        raise ErrorDelCurso(f"No puedo construir la imagen Debian: {reason}")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".parcial.tar")
    mode = "root" if system.is_root() else "unshare"
    argv = [find_tool("mmdebstrap"), f"--mode={mode}", f"--variant={variant}", "--quiet"]
    if include:
        argv.append("--include=" + ",".join(include))
    argv += [suite, str(partial)]
    extra = f" con {', '.join(include)}" if include else ""
    log(
        f"    mmdebstrap --mode={mode} --variant={variant} {suite}{extra} (entre 15 s y 2 min la primera vez)…"
    )
    for attempt in (1, 2):  # the mirror can fail once (a dropped download): one more try
        try:
            result = system.capture(argv, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            partial.unlink(missing_ok=True)
            raise ErrorDelCurso(
                f"mmdebstrap no terminó en {timeout:.0f} s (¿se alcanza el mirror de Debian?)."
            ) from None
        if result.returncode == 0 and partial.is_file():
            break
        partial.unlink(missing_ok=True)
        if attempt == 1:
            log(
                f"    mmdebstrap falló ({(result.stderr or result.stdout).strip()[-160:]}); lo intento otra vez…"
            )
    if result.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        raise ErrorDelCurso(f"mmdebstrap falló: {(result.stderr or result.stdout).strip()[-400:]}")
    partial.replace(dest)
    return dest


def _busybox_tar(dest: Path) -> Path:
    """The "alpine" stand-in: busybox-static and its applet links, written straight into a tarball
    (every file owned by root inside the image, whoever builds it)."""
    busybox = busybox_binary()
    if busybox is None:
        raise ErrorDelCurso("No encuentro busybox estático: instala el paquete Debian «busybox-static».")
    applets = [a for a in system.capture([str(busybox), "--list"]).stdout.split() if a != "busybox"]
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".parcial.tar")

    def entry(name: str, kind: bytes = tarfile.DIRTYPE, mode: int = 0o755, **kw) -> tarfile.TarInfo:
        info = tarfile.TarInfo(name)
        info.type, info.mode, info.uid, info.gid, info.uname, info.gname = kind, mode, 0, 0, "root", "root"
        info.mtime = int(time.time())
        for key, value in kw.items():
            setattr(info, key, value)
        return info

    with tarfile.open(partial, "w") as tar:
        for sub in ("bin", "etc", "proc", "sys", "dev", "root", "var", "var/tmp"):
            tar.addfile(entry(sub))
        tar.addfile(entry("tmp", mode=0o1777))
        data = busybox.read_bytes()
        tar.addfile(entry("bin/busybox", tarfile.REGTYPE, size=len(data)), io.BytesIO(data))
        for applet in applets:
            tar.addfile(entry(f"bin/{applet}", tarfile.SYMTYPE, mode=0o777, linkname="busybox"))
        for name, text in (("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"), ("etc/group", "root:x:0:\n")):
            raw = text.encode()
            tar.addfile(entry(name, tarfile.REGTYPE, mode=0o644, size=len(raw)), io.BytesIO(raw))
    partial.replace(dest)
    return dest


def standin_reason(role: str) -> str | None:
    """Why the stand-in of `role` cannot be built here (Spanish), or None."""
    if standin_tar(role).is_file():
        return None
    if role == "alpine":
        return (
            None if busybox_binary() else "no encuentro busybox estático (paquete Debian «busybox-static»)."
        )
    return rootfs_builder_reason()


def missing_hint(roles: Sequence[str]) -> str:
    """What to do about missing image roles, in Spanish: why they cannot be built here, or make setup."""
    for role in roles:
        why = standin_reason(role)
        if why:
            return f"no se puede construir aquí: {why.rstrip('.')}"
    return "ejecuta «make setup» para prepararlas"


def build_standin(role: str, log: Callable[[str], None] = print) -> Path:
    """Build (once) the stand-in tarball of `role`; return its path."""
    dest = standin_tar(role)
    if dest.is_file():
        return dest
    if role == "alpine":
        return _busybox_tar(dest)
    if role == "ubuntu":
        return build_rootfs_tar(dest, variant="minbase", suite="bookworm", log=log)
    raise KeyError(role)


def import_tar(engine: Engine, source: Path, tag: str, changes: Sequence[str] = ('CMD ["/bin/sh"]',)) -> None:
    """Import a root filesystem tarball as image `tag` into one engine (`docker/podman import`), with
    Dockerfile instructions `changes` (CMD, ENTRYPOINT...)."""
    argv = [engine.name, "import"]
    for change in changes:
        argv += ["--change", change]
    result = system.capture(argv + [str(source), tag], env=engine.env(), timeout=600)
    if result.returncode != 0:
        raise ErrorDelCurso(f"{engine.display} no pudo importar {tag}: {result.stderr.strip()[-300:]}")


def _import(engine: Engine, role: str, tag: str, log: Callable[[str], None]) -> None:
    source = build_standin(role, log)
    log(f"    importando {tag} en {engine.display}…")
    import_tar(engine, source, tag)


def _pull(engine: Engine, role: str) -> dict | None:
    for ref in ROLES[role].official:
        try:
            pulled = system.capture([engine.name, "pull", "-q", ref], env=engine.env(), timeout=120)
        except subprocess.TimeoutExpired:
            return None
        if pulled.returncode == 0:
            return resolve(role, engine)
    return None


def ensure(
    roles: Sequence[str] = ROLE_NAMES,
    engines: Sequence[str] = ("docker", "podman"),
    log: Callable[[str], None] = print,
    try_pull: bool = True,
) -> dict[str, dict[str, dict]]:
    """Make every role available in every available engine. Returns {engine: {role: image info}}.

    A role whose stand-in cannot be built here (no mmdebstrap, no subordinate ids without root...) is
    left out with one Spanish line: the experiments then skip that image and run with the other one."""
    out: dict[str, dict[str, dict]] = {}
    for engine_name in engines:
        engine = get_engine(engine_name)
        if not engine.available:
            log(f"[FALTA] {engine.display}: {engine.reason}")
            continue
        out[engine_name] = {}
        for role in roles:
            info = resolve(role, engine) or (_pull(engine, role) if try_pull else None)
            if info is None:
                why = standin_reason(role)
                if why:
                    log(f"[AVISO] {engine.display}: se omite la imagen «{role}»: {why}")
                    continue
                log(
                    f"  {engine.display}: no hay imagen «{role}» ni registro alcanzable; construyo un sustituto local."
                )
                try:
                    _import(engine, role, ROLES[role].standin, log)
                except ErrorDelCurso as exc:
                    log(f"[AVISO] {engine.display}: se omite la imagen «{role}»: {exc}")
                    continue
                info = resolve(role, engine)
            if info is None:
                log(
                    f"[AVISO] {engine.display}: se omite la imagen «{role}»: importada, pero el motor no la encuentra."
                )
                continue
            out[engine_name][role] = info
            log(
                f"[ OK ] {engine.display}: {role} -> {info['name']} ({info['origin']}, "
                f"{(info['size_bytes'] or 0) / 1e6:.1f} MB)"
            )
    return out


def resolve_all(roles: Sequence[str], engines: Sequence[str]) -> dict[str, dict[str, dict | None]]:
    """Look up (without building) the image of each role in each available engine."""
    out: dict[str, dict[str, dict | None]] = {}
    for engine_name in engines:
        engine = get_engine(engine_name)
        if engine.is_container and engine.available:
            out[engine_name] = {role: resolve(role, engine) for role in roles}
    return out
