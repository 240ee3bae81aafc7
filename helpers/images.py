"""Images without a registry.

The course speaks of two image *roles*: "alpine" (tiny) and "ubuntu" (a full glibc userland). For each
role and engine we use, in order:
1. the official image, if the engine already has it;
2. the local stand-in built earlier by this module;
3. the official image pulled from a registry (fails at once when none is reachable);
4. a stand-in built now and imported into the engine:
   - alpine role: a root filesystem with Debian's busybox-static and its applet links (~2 MB);
   - ubuntu role: `debootstrap --variant=minbase bookworm` (~200 MB, about 40 s).

Results always record the real image used (name, ID, size, origin), never the role's name alone.
"""
from __future__ import annotations

import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from .engines import CACHE_DIR, Engine, get_engine
from .errors import ErrorDelCurso

IMAGES_CACHE = CACHE_DIR / "images"


@dataclass(frozen=True)
class Role:
    name: str
    official: tuple[str, ...]
    standin: str
    description: str


ROLES = {
    "alpine": Role("alpine", ("alpine:latest", "docker.io/library/alpine:latest"),
                   "curso/busybox-estatico:1",
                   "imagen mínima (Alpine, o un sustituto con busybox-static de unos 2 MB)"),
    "ubuntu": Role("ubuntu", ("ubuntu:latest", "docker.io/library/ubuntu:latest"),
                   "curso/debian-minbase:bookworm",
                   "imagen con userland glibc completo (Ubuntu, o un sustituto Debian minbase)"),
}
ROLE_NAMES = tuple(ROLES)


def _names_for(engine: Engine, ref: str) -> list[str]:
    """Podman stores unqualified local imports as localhost/<name>."""
    names = [ref]
    if engine.name == "podman" and "/" in ref and not ref.startswith(("localhost/", "docker.io/")):
        names.insert(0, f"localhost/{ref}")
    return names


def resolve(role: str, engine: Engine) -> dict | None:
    """The image this engine already has for `role`, or None."""
    spec = ROLES[role]
    for origin, refs in (("oficial", spec.official), ("sustituto", (spec.standin,))):
        for ref in refs:
            for name in _names_for(engine, ref):
                info = engine.image_info(name)
                if info:
                    return {"role": role, "engine": engine.name, "name": name, "id": info["id"],
                            "size_bytes": info["size_bytes"], "origin": origin}
    return None


# ---------------------------------------------------------------- stand-in root filesystems
def _run(argv: Sequence[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def _tool(name: str) -> str | None:
    return shutil.which(name) or next((str(p) for p in (Path("/usr/sbin") / name, Path("/sbin") / name)
                                       if p.exists()), None)


def busybox_binary() -> Path | None:
    for candidate in ("/bin/busybox", "/usr/bin/busybox"):
        path = Path(candidate)
        if path.exists():
            out = _run(["file", "-L", str(path)]) if shutil.which("file") else None
            if out is None or "statically linked" in out.stdout or "static-pie" in out.stdout:
                return path
    return None


def rootfs_dir(role: str) -> Path:
    return IMAGES_CACHE / role / "rootfs"


def build_rootfs(role: str, log: Callable[[str], None] = print) -> Path:
    """Build (once) the stand-in root filesystem of `role`; return its directory."""
    target = rootfs_dir(role)
    done = target.parent / "rootfs.ok"
    if done.exists() and target.is_dir():
        return target
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    if role == "alpine":
        busybox = busybox_binary()
        if busybox is None:
            raise ErrorDelCurso("No encuentro busybox estático: instala el paquete Debian «busybox-static».")
        for sub in ("bin", "tmp", "etc", "proc", "sys", "dev", "root", "var/tmp"):
            (target / sub).mkdir(parents=True, exist_ok=True)
        shutil.copy2(busybox, target / "bin" / "busybox")
        applets = _run([str(busybox), "--list"]).stdout.split()
        for applet in applets:
            if applet != "busybox":
                (target / "bin" / applet).symlink_to("busybox")
        (target / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
        (target / "etc" / "group").write_text("root:x:0:\n")
        (target / "tmp").chmod(0o1777)
    elif role == "ubuntu":
        debootstrap = _tool("debootstrap")
        if debootstrap is None:
            raise ErrorDelCurso("No encuentro debootstrap: instala el paquete Debian «debootstrap».")
        log("    debootstrap --variant=minbase bookworm (unos 40 s la primera vez)…")
        result = _run([debootstrap, "--variant=minbase", "bookworm", str(target)])
        if result.returncode != 0:
            shutil.rmtree(target, ignore_errors=True)
            raise ErrorDelCurso(f"debootstrap falló: {(result.stderr or result.stdout)[-400:]}")
        _run(["rm", "-rf", str(target / "var/cache/apt/archives"), str(target / "var/lib/apt/lists")])
    else:
        raise KeyError(role)
    done.write_text("ok\n")
    return target


def import_dir(engine: Engine, source: Path, tag: str, changes: Sequence[str] = ('CMD ["/bin/sh"]',)) -> None:
    """Import a directory tree as image `tag` into one engine (`docker/podman import`), with Dockerfile
    instructions `changes` (e.g. CMD or ENTRYPOINT)."""
    tar = subprocess.Popen(["tar", "-C", str(source), "--numeric-owner", "-c", "."], stdout=subprocess.PIPE)
    argv = [engine.name, "import"]
    for change in changes:
        argv += ["--change", change]
    result = subprocess.run(argv + ["-", tag], stdin=tar.stdout, capture_output=True, text=True, env=engine.env())
    tar.stdout.close()
    tar.wait()
    if result.returncode != 0:
        raise ErrorDelCurso(f"{engine.display} no pudo importar {tag}: {result.stderr.strip()[-300:]}")


def _import(engine: Engine, role: str, tag: str, log: Callable[[str], None]) -> None:
    source = build_rootfs(role, log)
    log(f"    importando {tag} en {engine.display}…")
    import_dir(engine, source, tag)


def ensure(roles: Sequence[str] = ROLE_NAMES, engines: Sequence[str] = ("docker", "podman"),
           log: Callable[[str], None] = print, try_pull: bool = True) -> dict[str, dict[str, dict]]:
    """Make every role available in every available engine. Returns {engine: {role: image info}}."""
    out: dict[str, dict[str, dict]] = {}
    for engine_name in engines:
        engine = get_engine(engine_name)
        if not engine.available:
            log(f"[FALTA] {engine.display}: {engine.reason}")
            continue
        out[engine_name] = {}
        for role in roles:
            info = resolve(role, engine)
            if info is None and try_pull:
                for ref in ROLES[role].official:
                    pulled = _run([engine.name, "pull", "-q", ref], env=engine.env(), timeout=120)
                    if pulled.returncode == 0:
                        info = resolve(role, engine)
                        break
            if info is None:
                log(f"  {engine.display}: no hay imagen «{role}» ni registro alcanzable; construyo un sustituto local.")
                _import(engine, role, ROLES[role].standin, log)
                info = resolve(role, engine)
            if info is None:
                raise ErrorDelCurso(f"No pude preparar la imagen «{role}» en {engine.display}.")
            out[engine_name][role] = info
            log(f"[ OK ] {engine.display}: {role} -> {info['name']} ({info['origin']}, "
                f"{(info['size_bytes'] or 0) / 1e6:.1f} MB)")
    return out


def resolve_all(roles: Sequence[str], engines: Sequence[str]) -> dict[str, dict[str, dict | None]]:
    """Look up (without building) the image of each role in each available engine."""
    out: dict[str, dict[str, dict | None]] = {}
    for engine_name in engines:
        engine = get_engine(engine_name)
        if engine.is_container and engine.available:
            out[engine_name] = {role: resolve(role, engine) for role in roles}
    return out
