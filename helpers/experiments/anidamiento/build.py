"""The level-2 images (an engine inside a Debian root filesystem, built by the shared
`images.build_rootfs_tar`), the images the inner engines load, and the folder every outer container
mounts read-only. `make setup` prepares them once (`provision`); a run prepares what is missing."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ... import engines as eng
from ... import images, probes, system
from ...engines.nested import INNER_PODMAN_CONF
from ...errors import ComandoFallido, ErrorDelCurso
from ...paths import CACHE_DIR
from ..runner import Log, print_log

# Where the course's shared files appear inside every outer container (read-only).
SHARE_IN_CONTAINER = "/opt/curso-anidado"
PROBE_IN_CONTAINER = probes.in_container("cronometro")
CACHE = CACHE_DIR / "anidamiento"
SHARE = CACHE / "compartido"  # mounted read-only: containers.conf and the saved images
INNER_CONF = SHARE / "containers.conf"

INNER_CONF_TEXT = (
    "# Written by the course (helpers/experiments/anidamiento/build.py) for the Podman that runs INSIDE a\n"
    "# container (helpers.engines.nested.INNER_PODMAN_CONF).\n" + INNER_PODMAN_CONF
)

NESTED_WHAT = (
    "anidar un motor dentro de un contenedor (niveles 2 y 3: el contenedor exterior monta sistemas "
    "de archivos y crea contenedores)"
)


@dataclass(frozen=True)
class NestedImage:
    """The image of a container that runs an engine inside (built with mmdebstrap, like the stand-ins)."""

    engine: str
    tag: str
    packages: tuple[str, ...]
    store: str  # the inner engine's image store, a host directory mounted here

    @property
    def rootfs_tar(self) -> Path:
        return CACHE / f"rootfs-{self.engine}.tar"

    @property
    def saved_tar(self) -> Path:
        """`<engine> save` of this image, loaded one level down for level 3."""
        return SHARE / f"anidado-{self.engine}.tar"


NESTED = {
    "podman": NestedImage(
        "podman",
        "curso/anidado-podman:1",
        ("podman", "runc", "uidmap", "fuse-overlayfs", "iptables"),
        "/var/lib/containers",
    ),
    "docker": NestedImage("docker", "curso/anidado-docker:1", ("docker.io", "iptables"), "/var/lib/docker"),
}


def busybox_tar(engine_name: str) -> Path:
    """`<engine> save` of the busybox ("alpine" role) image, loaded by the innermost engine."""
    return SHARE / f"busybox-{engine_name}.tar"


def unavailable_reason() -> str | None:
    """Why nesting cannot be tried here at all (Spanish), or None."""
    return system.needs_root_reason(NESTED_WHAT)


def write_inner_conf() -> Path:
    SHARE.mkdir(parents=True, exist_ok=True)
    if not INNER_CONF.exists() or INNER_CONF.read_text() != INNER_CONF_TEXT:
        INNER_CONF.write_text(INNER_CONF_TEXT)
    return INNER_CONF


def nested_image_info(engine_name: str) -> dict | None:
    engine = eng.get_engine(engine_name)
    spec = NESTED[engine_name]
    for name in images.local_names(engine, spec.tag):
        info = engine.image_info(name)
        if info:
            return {
                **info,
                "name": name,
                "packages": list(spec.packages),
                "origin": "mmdebstrap --variant=minbase bookworm --include=" + ",".join(spec.packages),
            }
    return None


def ensure_nested_image(engine_name: str, log: Log = print_log) -> dict:
    """The nesting image of this engine, built (mmdebstrap, once, cached) and imported if missing."""
    info = nested_image_info(engine_name)
    if info:
        return info
    spec = NESTED[engine_name]
    engine = eng.get_engine(engine_name)
    start = time.monotonic()
    if not spec.rootfs_tar.is_file():
        log(
            f"Construyo la imagen de nivel 2 con {engine.display} dentro ({', '.join(spec.packages)}); "
            "se hace una sola vez…"
        )
        images.build_rootfs_tar(spec.rootfs_tar, include=spec.packages, log=log)
        log(
            f"    sistema de archivos listo en {time.monotonic() - start:.0f} s "
            f"({spec.rootfs_tar.stat().st_size / 1e6:.0f} MB)."
        )
    log(f"    importando {spec.tag} en {engine.display}…")
    images.import_tar(engine, spec.rootfs_tar, spec.tag)
    spec.rootfs_tar.unlink(missing_ok=True)  # the engine holds it now; a rebuild takes a minute or two
    info = nested_image_info(engine_name)
    if info is None:
        raise ErrorDelCurso(f"{engine.display} importó {spec.tag}, pero no la encuentra.")
    log(
        f"[ OK ] {engine.display}: {info['name']} ({(info['size_bytes'] or 0) / 1e6:.0f} MB) en "
        f"{time.monotonic() - start:.0f} s."
    )
    return info


def ensure_saved(engine_name: str, image: str, dest: Path, log: Log = print_log) -> Path:
    """`<engine> save IMAGE` into the shared folder, once (replaced if the image changed)."""
    engine = eng.get_engine(engine_name)
    info = engine.image_info(image) or {}
    stamp = dest.with_suffix(".id")
    if dest.is_file() and stamp.is_file() and stamp.read_text().strip() == str(info.get("id")):
        return dest
    SHARE.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    log(f"    guardando {image} de {engine.display} para el motor de dentro ({dest.name})…")
    engine.save_image(image, dest)
    stamp.write_text(f"{info.get('id')}\n")
    log(f"    {dest.name}: {dest.stat().st_size / 1e6:.0f} MB en {time.monotonic() - start:.0f} s.")
    return dest


def prepare(engine_name: str, busybox_name: str, *, level3: bool, log: Log = print_log) -> dict:
    """Everything nesting needs for one host engine: its nesting image, the saved busybox image and
    (for level 3) the saved nesting image. Returns the nesting image's info."""
    write_inner_conf()
    info = ensure_nested_image(engine_name, log)
    ensure_saved(engine_name, busybox_name, busybox_tar(engine_name), log)
    if level3:
        ensure_saved(engine_name, info["name"], NESTED[engine_name].saved_tar, log)
    return info


def provision(log: Log = print_log) -> None:
    """`make setup`: build the nesting images and save the images the inner engines load. Never raises
    for a missing part: says why in Spanish and returns."""
    reason = unavailable_reason() or images.rootfs_builder_reason()
    if reason:
        log(f"[AVISO] anidamiento: no preparo las imágenes de nivel 2: {reason}")
        return
    start = time.monotonic()
    for engine_name in eng.CONTAINER_ENGINES:
        engine = eng.get_engine(engine_name)
        if not engine.available:
            log(f"[AVISO] anidamiento: {engine.display} no está disponible: {engine.reason}")
            continue
        busybox = images.resolve("alpine", engine)
        if busybox is None:
            log(f"[AVISO] anidamiento: {engine.display} no tiene la imagen «alpine»; ejecuta «make setup».")
            continue
        try:
            prepare(engine_name, busybox["name"], level3=True, log=log)
        except (ErrorDelCurso, ComandoFallido) as exc:
            log(f"[AVISO] anidamiento: {engine.display}: {exc}")
    log(f"anidamiento: imágenes listas en {time.monotonic() - start:.0f} s.")
