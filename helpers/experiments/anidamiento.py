"""Experiment 7: containers inside containers (anidamiento) — what nesting costs and what it gives away.

Arms (engine = the engine on the host; variant = the level and how it was opened):
- `nivel0`: bare metal. Startup: `echo ok` as a real process. CPU: a chroot into the busybox image's
  exported root filesystem (the same busybox binary the containers run, without namespaces).
- `nivel1`: a container of the host's Docker or Podman.
- `nivel2`: an engine of the same kind inside an outer container started with `--privileged` (the
  chapter's pattern). Where the host itself cannot grant every capability (this machine has no
  CAP_SYS_RESOURCE, so Docker's `--privileged` fails), Docker-in-Docker falls back to every capability
  the host has plus unconfined seccomp and /proc, /sys; meta.json says so.
- `nivel2_sin_privilegios`: Podman inside Podman without `--privileged`, with the narrowest set of
  relaxations found by a ladder of attempts (each attempt's error is kept, explained in Spanish).
- `nivel3`: one more level inside the level-2 container.

Per round and arm (interleaved round-robin), two measurements:
- startup of `echo ok`: `arranque` (ms, timed from the host around the whole chain of `exec`s into the
  already-running outer containers) and `arranque_interior` (ms, the innermost `run` alone, timed by
  probes/cronometro one level up);
- CPU work (`dd if=/dev/urandom | sha256sum`, experiment 3's `hash` workload) by `exec` into an already
  running busybox container at that level: `trabajo` (s, timed inside by cronometro) and
  `trabajo_extremo` (s, timed from the host, all the `exec`s included).
Once per nested arm: the memory of the inner engine (`pss_motor_interior`, MB: PSS of every process in
the outer container except the idle `sleep`s) and its image store on disk (`almacen_interior`, MB).

The socket-mount pattern is explained in the notebook and never run: no container gets the host
engine's socket.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import engines as eng
from .. import images, measure, probes, system, validate
from ..errors import ComandoFallido, ErrorDelCurso, ParametroInvalido
from . import ejecucion
from .base import (
    Claim,
    Log,
    Progress,
    Resultado,
    experiment_run,
    judge,
    measure_rounds,
    no_data,
    no_progress,
    print_log,
)

EXPERIMENT = "anidamiento"
TITLE = "Experimento 7: anidamiento, contenedores dentro de contenedores"
NOTEBOOK = "07_anidamiento"
BASELINE = ("bare", "nivel0")
# Quick profile: Podman only (no inner Docker daemon to start), levels 1 and 2, the ladder without --privileged.
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0, "NIVELES": [1, 2], "MOTORES": ["podman"], "TAMANO_MB": 8}
DEBIAN_PACKAGES = ["mmdebstrap"]  # builds the level-2 images (provision)
SOURCE = "el capítulo original"
SOURCE_REPO = "repositorio del capítulo original (sonder-art/fdd_p26, clase/08_containers/06_nested.md)"

LEVELS = (1, 2, 3)
PRIV = "nivel2"
UNPRIV = "nivel2_sin_privilegios"
VARIANTS = ("nivel0", "nivel1", PRIV, UNPRIV, "nivel3")
METRIC_START = "arranque"
METRIC_START_INNER = "arranque_interior"
METRIC_WORK = "trabajo"
METRIC_WORK_E2E = "trabajo_extremo"
METRIC_PSS = "pss_motor_interior"
METRIC_STORE = "almacen_interior"
COMPARABLE = [
    METRIC_START,
    METRIC_START_INNER,
    METRIC_WORK,
    METRIC_WORK_E2E,
]  # not the one-off memory/disk reads
UNITS = {
    METRIC_START: "ms",
    METRIC_START_INNER: "ms",
    METRIC_WORK: "s",
    METRIC_WORK_E2E: "s",
    METRIC_PSS: "MB",
    METRIC_STORE: "MB",
}

# Where the course's shared files appear inside every outer container (read-only).
SHARE_IN_CONTAINER = "/opt/curso-anidado"
PROBE_IN_CONTAINER = probes.in_container("cronometro")
CACHE = eng.CACHE_DIR / "anidamiento"
SHARE = CACHE / "compartido"  # mounted read-only: containers.conf and the saved images
INNER_CONF = SHARE / "containers.conf"
SLEEP = ["sleep", "86400"]

INNER_CONF_TEXT = """\
# Written by the course (helpers/experiments/anidamiento.py) for the Podman that runs INSIDE a container.
# Same rlimit/runtime workaround as the host (this kernel refuses to raise NOFILE/NPROC; crun refuses
# hybrid cgroups), plus: no systemd inside, so cgroups are managed directly and events go to a file.
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""

# PID 1 of a container with an engine inside must reap: each inner `run --rm` leaves its conmon (or shim)
# reparented to PID 1, and a bare `sleep` would keep them as zombies. The shell's `wait` reaps any child.
REAPER = 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait; done'
# The inner Docker daemon: cgroup v1 hierarchies are bind-mounted read-only into a container that is not
# fully privileged, so they are remounted read-write first (harmless where they already are), then the
# daemon runs without touching the network (every container of this experiment runs with --network none).
DIND_ENTRY = (
    'for d in /sys/fs/cgroup/*; do mount -o remount,bind,rw "$d" 2>/dev/null; done; '
    "dockerd --iptables=false --bridge=none --log-level=error & "
    'trap "exit 0" TERM INT; while :; do wait; sleep 1; done'
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


# Capabilities by number (linux/capability.h), to find the ones the host itself lacks.
CAPABILITIES = (
    "CHOWN",
    "DAC_OVERRIDE",
    "DAC_READ_SEARCH",
    "FOWNER",
    "FSETID",
    "KILL",
    "SETGID",
    "SETUID",
    "SETPCAP",
    "LINUX_IMMUTABLE",
    "NET_BIND_SERVICE",
    "NET_BROADCAST",
    "NET_ADMIN",
    "NET_RAW",
    "IPC_LOCK",
    "IPC_OWNER",
    "SYS_MODULE",
    "SYS_RAWIO",
    "SYS_CHROOT",
    "SYS_PTRACE",
    "SYS_PACCT",
    "SYS_ADMIN",
    "SYS_BOOT",
    "SYS_NICE",
    "SYS_RESOURCE",
    "SYS_TIME",
    "SYS_TTY_CONFIG",
    "MKNOD",
    "LEASE",
    "AUDIT_WRITE",
    "AUDIT_CONTROL",
    "SETFCAP",
    "MAC_OVERRIDE",
    "MAC_ADMIN",
    "SYSLOG",
    "WAKE_ALARM",
    "BLOCK_SUSPEND",
    "AUDIT_READ",
    "PERFMON",
    "BPF",
    "CHECKPOINT_RESTORE",
)


def missing_capabilities(status_text: str | None = None) -> list[str]:
    """Capabilities absent from this process's bounding set (/proc/self/status, CapBnd)."""
    if status_text is None:
        try:
            status_text = Path("/proc/self/status").read_text()
        except OSError:
            return []
    found = re.search(r"^CapBnd:\s*([0-9a-fA-F]+)", status_text, re.MULTILINE)
    if not found:
        return []
    mask = int(found.group(1), 16)
    return [name for bit, name in enumerate(CAPABILITIES) if not mask >> bit & 1]


# ---------------------------------------------------------------- the attempts without --privileged
@dataclass(frozen=True)
class Attempt:
    key: str
    label: str  # Spanish, what was added
    security_opt: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()


# The narrowest relaxations first; the first that works becomes the measured arm. The image store of
# the inner engine is a host directory in every attempt, so storage is never what fails.
LADDER = (
    Attempt("por_defecto", "las opciones por defecto"),
    Attempt(
        "seccomp",
        "seccomp=unconfined (sin filtro de llamadas al sistema)",
        security_opt=("seccomp=unconfined",),
    ),
    Attempt("unmask", "unmask=ALL (/proc y /sys sin rutas tapadas)", security_opt=("unmask=ALL",)),
    Attempt(
        "seccomp_unmask", "seccomp=unconfined + unmask=ALL", security_opt=("seccomp=unconfined", "unmask=ALL")
    ),
)

# Known errors of a nested engine and what they mean (pattern, Spanish explanation).
ERROR_EXPLANATIONS = (
    (
        r"unable to apply caps",
        "--privileged pide todas las capacidades del kernel, y el host mismo no las tiene todas (aquí falta "
        "CAP_SYS_RESOURCE, la de subir límites de recursos): runc no puede dar lo que no tiene.",
    ),
    (
        r"sethostname",
        "El filtro seccomp por defecto del contenedor exterior bloquea sethostname (y otras llamadas al sistema "
        "de administración) a un proceso sin CAP_SYS_ADMIN: runc, dentro, no puede dar nombre al contenedor "
        "interior.",
    ),
    (
        r"mount proc|mounting \"proc\"",
        "Es el error que registró el capítulo original. runc, dentro, intenta montar un /proc nuevo para el "
        "contenedor interior y el kernel se niega: el /proc del contenedor exterior tiene rutas tapadas (por "
        "ejemplo /proc/kcore o /proc/sys) y el kernel no deja montar un proc que mostraría más de lo que ya "
        "se ve.",
    ),
    (
        r"fuse: device not found|fuse-overlayfs: cannot mount",
        "El Podman de dentro no puede montar su almacén de imágenes. Sin CAP_SYS_ADMIN no puede usar el overlay "
        "del kernel directamente y recurre a fuse-overlayfs, que necesita el dispositivo /dev/fuse, y el "
        "contenedor exterior no lo tiene.",
    ),
    (
        r"read-only file system",
        "Los cgroups del contenedor exterior están montados solo lectura: el motor de dentro no puede crear el "
        "cgroup del contenedor interior.",
    ),
    (
        r"newuidmap|uid_map",
        "No se pudo crear el espacio de nombres de usuario: newuidmap no pudo escribir el mapa de UID.",
    ),
    (
        r"Cannot connect to the Docker daemon|daemon de Docker de dentro",
        "El daemon de Docker de dentro no respondió.",
    ),
)


def explain(error: str) -> str:
    """The Spanish explanation of a nested engine's error (the first known pattern found)."""
    for pattern, text in ERROR_EXPLANATIONS:
        if re.search(pattern, error or "", re.IGNORECASE):
            return text
    return "Error no reconocido: lee el mensaje original."


def short_error(stderr: str, limit: int = 400) -> str:
    """The meaningful tail of an engine's error output (the last lines, trimmed)."""
    lines = [ln.strip() for ln in (stderr or "").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()] or lines
    return (errors[-1] if errors else "(sin mensaje)")[-limit:]


# ---------------------------------------------------------------- parameters
CONTROLS = [
    {"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 100},
    {"name": "niveles", "kind": "multi", "label": "Niveles", "options": list(LEVELS)},
    {"name": "motores", "kind": "multi", "label": "Motores", "options": list(eng.CONTAINER_ENGINES)},
    {"name": "privilegiado", "kind": "bool", "label": "Brazos con --privileged"},
    {"name": "tamano_mb", "kind": "int", "label": "MB del trabajo de CPU (sha256)", "min": 1, "max": 1024},
]


@dataclass
class Config:
    repeticiones: int = 6
    calentamiento: int = 1
    niveles: list = field(default_factory=lambda: [1, 2, 3])
    motores: list = field(default_factory=lambda: ["docker", "podman"])
    privilegiado: bool = True
    tamano_mb: int = 20

    def validated(self) -> Config:
        """A checked copy; raises ParametroInvalido (Spanish) before anything is launched."""
        niveles = validate.as_list("NIVELES", self.niveles)
        if not niveles:
            raise ParametroInvalido("NIVELES no puede estar vacía: elige entre 1, 2 y 3.")
        clean = []
        for value in niveles:
            if not validate.is_int(value) or value not in LEVELS:
                raise ParametroInvalido(f"NIVELES: valor desconocido {value!r}. Opciones válidas: 1, 2, 3.")
            clean.append(int(value))
        if 1 not in clean:
            raise ParametroInvalido(
                "NIVELES debe incluir el 1: cada nivel se compara con el anterior, "
                "empezando por un contenedor normal."
            )
        if not isinstance(self.privilegiado, bool):
            raise ParametroInvalido(
                f"PRIVILEGIADO debe ser True o False, pero recibió {self.privilegiado!r}."
            )
        motores = validate.choices("MOTORES", self.motores, eng.ENGINE_NAMES, allow_empty=True)
        return Config(
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=200),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=20),
            niveles=sorted(set(clean)),
            motores=[m for m in motores if m != "bare"],
            privilegiado=self.privilegiado,
            tamano_mb=validate.positive_int("TAMANO_MB", self.tamano_mb, maximum=1024),
        )


def config(**params) -> Config:
    """Build and validate a Config from the notebook's parameters (lower-case names)."""
    return Config(**params).validated()


# ---------------------------------------------------------------- images and the shared files
def write_inner_conf() -> Path:
    SHARE.mkdir(parents=True, exist_ok=True)
    if not INNER_CONF.exists() or INNER_CONF.read_text() != INNER_CONF_TEXT:
        INNER_CONF.write_text(INNER_CONF_TEXT)
    return INNER_CONF


def nested_image_info(engine_name: str) -> dict | None:
    engine = eng.get_engine(engine_name)
    spec = NESTED[engine_name]
    for name in images._names_for(engine, spec.tag):
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


NESTED_WHAT = (
    "anidar un motor dentro de un contenedor (niveles 2 y 3: el contenedor exterior monta sistemas "
    "de archivos y crea contenedores)"
)
NEEDS_ROOT = {"anidados": NESTED_WHAT, "chroot": ejecucion.CHROOT_WHAT}  # listed in notebook 00


def unavailable_reason() -> str | None:
    """Why nesting cannot be tried here at all (Spanish), or None."""
    return system.needs_root_reason(NESTED_WHAT)


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


# ---------------------------------------------------------------- chains of containers
@dataclass(frozen=True)
class NestArm:
    """One arm: engine (on the host), variant (level and mode), image (busybox's real name), label."""

    engine: str
    variant: str
    image: str = ""
    label: str = ""
    level: int = 0


@dataclass
class Chain:
    """The running containers of one arm. `outer[i]` runs in the engine inside `outer[i-1]` (outer[0] on the
    host); `worker` is the busybox `sleep` container at the arm's level, inside the last outer container
    (or on the host at level 1). Podman in Podman and Docker in Docker: one CLI at every level."""

    engine: str
    outer: list[str] = field(default_factory=list)
    outer_pid: int = 0
    worker: str = ""
    store_dir: Path | None = None

    @property
    def cli(self) -> eng.CliEngine:
        return eng.get_engine(self.engine)

    def wrap(self, argv: Sequence[str], depth: int | None = None) -> list[str]:
        """argv as run inside outer[depth-1] (default: the innermost outer container), from the host."""
        argv = list(argv)
        names = self.outer if depth is None else self.outer[:depth]
        for name in reversed(names):
            argv = self.cli.exec_argv(name, argv)
        return argv

    def call(
        self, argv: Sequence[str], *, depth: int | None = None, timeout: float = 180, what: str = ""
    ) -> str:
        result = self.cli.call(self.wrap(argv, depth), timeout=timeout)
        if result.returncode != 0:
            raise ComandoFallido(
                f"{self.cli.display} (nivel {len(self.outer if depth is None else self.outer[:depth]) + 1}) "
                f"no pudo {what or 'ejecutar ' + ' '.join(argv)[:80]}: "
                f"{short_error(result.stderr or result.stdout)}"
            )
        return result.stdout


def probe_path(depth: int) -> str:
    """Where cronometro is, seen from inside `depth` nested containers (0 = the host)."""
    return str(probes.path("cronometro")) if depth == 0 else PROBE_IN_CONTAINER


def nested_options(engine_name: str, *, mode: dict, store: str, inner: bool) -> eng.RunOptions:
    """The options of a container that runs an engine inside. `mode`: privileged / security_opt / devices /
    cap_add / extra; `store`: the host (or outer) directory holding the inner engine's image store."""
    spec = NESTED[engine_name]
    share = SHARE_IN_CONTAINER if inner else str(SHARE)
    probe = PROBE_IN_CONTAINER if inner else str(probes.path("cronometro"))
    return eng.RunOptions(
        network="none",
        privileged=bool(mode.get("privileged")),
        security_opt=tuple(mode.get("security_opt", ())),
        devices=tuple(mode.get("devices", ())),
        cap_add=tuple(mode.get("cap_add", ())),
        volumes=[
            (share, SHARE_IN_CONTAINER, "ro"),
            (probe, PROBE_IN_CONTAINER, "ro"),
            (store, spec.store, ""),
        ],
        env={"CONTAINERS_CONF": f"{SHARE_IN_CONTAINER}/{INNER_CONF.name}"} if engine_name == "podman" else {},
        stop_timeout=0,
        extra=tuple(mode.get("extra", ())),
    )


def worker_options(depth: int) -> eng.RunOptions:
    probe = probe_path(depth)
    # stop_timeout 0: `sleep` as PID 1 ignores SIGTERM, and `podman rm -f` would wait 10 s for it.
    return eng.RunOptions(network="none", volumes=[(probe, PROBE_IN_CONTAINER, "ro")], stop_timeout=0)


def startup_argv(engine_name: str, image: str, run_id: str) -> list[str]:
    """The `run --rm IMAGE echo ok` whose startup is measured (the same command at every level)."""
    return eng.get_engine(engine_name).run_argv(
        image, ["echo", "ok"], run_id=run_id, remove=True, opts=eng.RunOptions(network="none")
    )


def _entry(engine_name: str) -> list[str]:
    """PID 1 of a container that holds an engine (see REAPER)."""
    return ["sh", "-c", DIND_ENTRY if engine_name == "docker" else REAPER]


def _wait_inner_engine(chain: Chain, depth: int, timeout: float = 90) -> None:
    """Docker inside: wait until the inner daemon answers (Podman has no daemon to wait for)."""
    if chain.engine != "docker":
        return
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        result = chain.cli.call(
            chain.wrap(["docker", "version", "--format", "{{.Server.Version}}"], depth), timeout=30
        )
        if result.returncode == 0 and result.stdout.strip():
            return
        last = short_error(result.stderr)
        time.sleep(0.5)
    raise ComandoFallido(
        f"El daemon de Docker de dentro (nivel {depth + 1}) no respondió en {timeout:.0f} s: {last}"
    )


def build_chain(
    ctx,
    engine_name: str,
    level: int,
    mode: dict,
    busybox: str,
    nested_image: str,
    workdir: Path,
    tag: str,
    log: Log,
    adopt: tuple[str, Path] | None = None,
) -> Chain:
    """Start the containers of one arm: level-1 arms get a worker on the host; deeper arms get
    `level - 1` nesting containers, each one inside the previous, then the worker inside the last.
    `adopt`: (name, store) of a level-2 container already running with busybox loaded (the attempt
    without --privileged that worked), used as the outer container instead of starting another."""
    chain = Chain(engine_name)
    cli = chain.cli
    spec = NESTED[engine_name]
    for depth in range(level - 1):  # start the container at level depth+1
        name = ctx.container_name(tag, f"n{depth + 1}")
        if depth == 0 and adopt and level == 2:
            name, chain.store_dir = adopt
            chain.outer_pid = cli.container(name).pid
            ctx.run.meta.setdefault("pids_exteriores", []).append(chain.outer_pid)
            chain.outer.append(name)
            continue
        if depth == 0:
            chain.store_dir = workdir / f"almacen-{tag}"
            chain.store_dir.mkdir(parents=True, exist_ok=True)
            opts = nested_options(engine_name, mode=mode, store=str(chain.store_dir), inner=False)
            container = cli.launch(nested_image, _entry(engine_name), run_id=ctx.run_id, name=name, opts=opts)
            chain.outer_pid = container.pid
            ctx.run.meta.setdefault("pids_exteriores", []).append(container.pid)
        else:
            inner_store = f"{spec.store}/curso-nivel{depth + 2}"
            chain.call(["mkdir", "-p", inner_store], what="preparar el almacén del nivel siguiente")
            opts = nested_options(engine_name, mode=mode, store=inner_store, inner=True)
            chain.call(
                cli.run_argv(
                    nested_image,
                    _entry(engine_name),
                    run_id=ctx.run_id,
                    name=name,
                    remove=False,
                    detach=True,
                    opts=opts,
                ),
                what=f"arrancar el contenedor de nivel {depth + 1}",
            )
        chain.outer.append(name)
        _wait_inner_engine(chain, depth + 1)
        # What the engine inside needs: the nesting image (to go one level deeper) or busybox.
        load = spec.saved_tar if depth + 1 < level - 1 else busybox_tar(engine_name)
        chain.call(
            [engine_name, "load", "-q", "-i", f"{SHARE_IN_CONTAINER}/{load.name}"], what=f"cargar {load.name}"
        )
    chain.worker = ctx.container_name(tag, "trabajo")
    argv = cli.run_argv(
        busybox,
        SLEEP,
        run_id=ctx.run_id,
        name=chain.worker,
        remove=False,
        detach=True,
        opts=worker_options(level - 1),
    )
    chain.call(argv, what="arrancar el contenedor de trabajo")
    if chain.outer_pid:
        # Recorded so anyone can check afterwards that every nested process died with its outer container.
        ctx.run.meta.setdefault("procesos_anidados", []).extend(process_tree(chain.outer_pid))
        ctx.run.write_meta()
    return chain


def _outer_processes(pid: int) -> list:
    """The live processes of an outer container: its PID 1 and all its descendants (the inner engine and
    the inner containers' processes, all reparented inside its PID namespace). Zombies left out."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return []
    out = []
    for p in procs:
        with contextlib.suppress(psutil.Error):
            if p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
    return out


def process_tree(pid: int) -> list[list]:
    """[pid, name, create_time] of every live process of an outer container."""
    out = []
    for p in _outer_processes(pid):
        with contextlib.suppress(Exception):
            out.append([p.pid, p.name(), p.create_time()])
    return out


def try_unprivileged(
    ctx, busybox: str, nested_image: str, workdir: Path, log: Log
) -> tuple[list[dict], dict | None, tuple[str, Path] | None]:
    """Climb LADDER (Podman in Podman without --privileged) until an inner `run` works. Returns every
    attempt (opciones, ok, error, explicacion), the mode that worked (or None) and that attempt's
    container (name, store), left running for the measured arm."""
    cli = eng.get_engine("podman")
    attempts: list[dict] = []
    for step in LADDER:
        mode = {"security_opt": list(step.security_opt), "devices": list(step.devices)}
        name = ctx.container_name("intento", step.key)
        store = workdir / f"almacen-intento-{step.key}"
        store.mkdir(parents=True, exist_ok=True)
        record = {
            "clave": step.key,
            "opciones": step.label,
            "security_opt": list(step.security_opt),
            "devices": list(step.devices),
            "ok": False,
            "error": "",
            "explicacion": "",
        }
        try:
            cli.launch(
                nested_image,
                _entry("podman"),
                run_id=ctx.run_id,
                name=name,
                opts=nested_options("podman", mode=mode, store=str(store), inner=False),
            )
            chain = Chain("podman", outer=[name])
            chain.call(
                ["podman", "load", "-q", "-i", f"{SHARE_IN_CONTAINER}/{busybox_tar('podman').name}"],
                what="cargar busybox",
            )
            result = cli.call(chain.wrap(startup_argv("podman", busybox, ctx.run_id)), timeout=120)
            record["ok"] = result.returncode == 0 and "ok" in result.stdout
            if not record["ok"]:
                record["error"] = short_error(result.stderr or result.stdout)
            else:
                # Without CAP_SYS_ADMIN the inner Podman puts its containers in a user namespace: show it.
                uid_map = cli.call(
                    chain.wrap(
                        cli.run_argv(
                            busybox,
                            ["cat", "/proc/self/uid_map"],
                            run_id=ctx.run_id,
                            opts=eng.RunOptions(network="none"),
                        )
                    ),
                    timeout=120,
                )
                record["mapa_uid_interior"] = " | ".join(
                    " ".join(ln.split()) for ln in uid_map.stdout.splitlines()
                )
        except ComandoFallido as exc:
            record["error"] = short_error(str(exc))
        finally:
            if not record["ok"]:
                cli.remove([name])
        if not record["ok"]:
            record["explicacion"] = explain(record["error"])
        attempts.append(record)
        verdict = "funciona" if record["ok"] else f"falla: {record['error'][:160]}"
        log(f"  Podman dentro de Podman sin --privileged, con {step.label}: {verdict}")
        if record["ok"]:
            return attempts, mode, (name, store)
    return attempts, None, None


def privileged_mode(ctx, engine_name: str, nested_image: str, workdir: Path, log: Log) -> tuple[dict, dict]:
    """--privileged, if this host can grant it; else (Docker here) every capability the host has, with
    seccomp, /proc and /sys unconfined. Returns (mode, what to record in meta.json)."""
    cli = eng.get_engine(engine_name)
    name = ctx.container_name("prueba-privilegiado", engine_name)
    opts = eng.RunOptions(network="none", privileged=True)
    result = cli.call(
        cli.run_argv(nested_image, ["true"], run_id=ctx.run_id, name=name, remove=True, opts=opts),
        timeout=120,
    )
    cli.remove([name])
    if result.returncode == 0:
        return {"privileged": True}, {"modo": "--privileged"}
    error = short_error(result.stderr)
    missing = missing_capabilities()
    unconfined = "systempaths=unconfined" if engine_name == "docker" else "unmask=ALL"
    mode = {
        "cap_add": ["ALL"],
        "extra": [arg for cap in missing for arg in ("--cap-drop", cap)],
        "security_opt": ["seccomp=unconfined", unconfined],
    }
    note = {
        "modo": "casi --privileged",
        "error_de_privileged": error,
        "explicacion": explain(error),
        "capacidades_que_faltan_en_el_host": missing,
        "opciones": [
            "--cap-add ALL",
            *[f"--cap-drop {c}" for c in missing],
            "--security-opt seccomp=unconfined",
            f"--security-opt {unconfined}",
        ],
    }
    log(
        f"  {cli.display}: --privileged falla aquí ({error[:120]}). Uso todas las capacidades que el host "
        f"tiene (menos {', '.join(missing) or 'ninguna'}), sin seccomp y con /proc y /sys sin tapar."
    )
    return mode, note


# ---------------------------------------------------------------- memory and disk of an inner engine
IDLE = ("sleep", "sh")  # the outer container's PID 1 (REAPER) and the idle workers


def inner_engine_memory(outer_pid: int) -> dict:
    """PSS (and RSS) of every process in the outer container except the idle shell and `sleep`s: the
    inner engine's processes (dockerd, containerd, shims / conmon)."""
    procs = _outer_processes(outer_pid)
    if not procs:
        return {"pss": None, "procesos": []}
    readings = [system.process_memory(p) for p in procs]
    kept = [r for r in readings if r.get("name") not in IDLE]
    totals = system.memory_totals(kept)
    return {
        "pss": totals.get("pss"),
        "rss": totals.get("rss"),
        "procesos": [
            {
                "nombre": r.get("name"),
                "pss_kb": (r.get("pss") or 0) // 1024,
                "rss_kb": (r.get("rss") or 0) // 1024,
            }
            for r in kept
        ],
    }


def directory_size(path: Path) -> int:
    """Bytes used under path (files counted once, symlinks not followed)."""
    total, seen = 0, set()
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(dirpath, name))
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    total += st.st_blocks * 512
    return total


# ---------------------------------------------------------------- running
def plan(cfg: Config, engines_ok: Sequence[str], busybox: dict[str, str]) -> list[NestArm]:
    """The arms wanted by the parameters (before finding out which can run here)."""
    arms = [NestArm("bare", "nivel0", "", "bare metal", 0)]
    for e in engines_ok:
        display = eng.DISPLAY[e]
        arms.append(NestArm(e, "nivel1", busybox[e], f"{display} (nivel 1)", 1))
        if 2 in cfg.niveles:
            if cfg.privilegiado:
                arms.append(NestArm(e, PRIV, busybox[e], f"{display} en {display} (nivel 2)", 2))
            if e == "podman":
                arms.append(NestArm(e, UNPRIV, busybox[e], f"{display} en {display} sin --privileged", 2))
        if 3 in cfg.niveles and cfg.privilegiado:
            arms.append(NestArm(e, "nivel3", busybox[e], f"{display} (nivel 3)", 3))
    return arms


def run(cfg: Config, *, progress: Progress = no_progress, log: Log = print_log, root=None) -> Resultado:
    """Measure every arm round-robin; rows are written as they are measured. Returns the Resultado."""
    cfg = cfg.validated()
    probes.ensure("cronometro", log)
    with experiment_run(
        EXPERIMENT, asdict(cfg), cfg.motores, image_roles=["alpine"], root=root, log=log
    ) as ctx:
        workdir = Path(tempfile.mkdtemp(prefix=f"curso-anidamiento-{ctx.run_id}-"))
        # LIFO: containers are removed by label first, then this folder (their image stores) goes.
        ctx.defer(shutil.rmtree, workdir, ignore_errors=True)
        ctx.run.update_meta(host_scratch_dir=str(workdir))
        _run_in(cfg, ctx, workdir, progress, log)
    return Resultado.load(ctx.run.dir)


def _run_in(cfg: Config, ctx, workdir: Path, progress: Progress, log: Log) -> None:
    engines_ok = [e for e in ctx.engines if e != "bare"]
    busybox = {e: ctx.images[e]["alpine"]["name"] for e in engines_ok}
    wanted = plan(cfg, engines_ok, busybox)
    chains: dict[NestArm, Chain] = {}
    nesting_meta: dict = {
        "imagenes_anidadas": {},
        "modos": {},
        "intentos_sin_privilegios": [],
        "socket_del_motor": "nunca se monta (el cuaderno explica el patrón sin ejecutarlo)",
    }
    rootfs = None
    for arm in wanted:
        if arm.level == 0:
            why = None if engines_ok else "no hay motor del que exportar la imagen"
            if engines_ok and ctx.require_root("chroot", ejecucion.CHROOT_WHAT):
                source = engines_ok[0]
                rootfs = ejecucion.exported_rootfs(source, ctx.images[source]["alpine"], ctx.run_id, log)
                nesting_meta["linea_base_cpu"] = {
                    "tipo": "chroot a la imagen busybox exportada",
                    "motor": source,
                    "imagen": ctx.images[source]["alpine"]["name"],
                }
            else:
                nesting_meta["linea_base_cpu"] = {
                    "tipo": "binarios del host (sin chroot)",
                    "motivo": why or ctx.run.meta["skipped_arms"]["chroot"],
                }
            chains[arm] = Chain("bare")
            continue
        key = f"{arm.label} [{arm.engine}:{arm.variant}]"
        started = time.monotonic()
        if arm.level == 1:
            chains[arm] = build_chain(ctx, arm.engine, 1, {}, arm.image, "", workdir, f"{arm.engine}-1", log)
            continue
        if not ctx.require_root(key, NESTED_WHAT):
            continue
        try:
            info = prepare(arm.engine, arm.image, level3=3 in cfg.niveles and cfg.privilegiado, log=log)
            nesting_meta["imagenes_anidadas"][arm.engine] = info
            adopt = None
            if arm.variant == UNPRIV:
                attempts, mode, adopt = try_unprivileged(ctx, arm.image, info["name"], workdir, log)
                nesting_meta["intentos_sin_privilegios"] = attempts
                ctx.run.update_meta(anidamiento=nesting_meta)
                if mode is None:
                    ctx.skip_arm(
                        key,
                        f"ninguna combinación sin --privileged funcionó aquí: {attempts[-1]['explicacion']}",
                    )
                    continue
            else:
                if arm.engine not in nesting_meta["modos"]:
                    mode, note = privileged_mode(ctx, arm.engine, info["name"], workdir, log)
                    nesting_meta["modos"][arm.engine] = {"mode": mode, **note}
                mode = nesting_meta["modos"][arm.engine]["mode"]
            log(f"Preparando {arm.label}…")
            chain = build_chain(
                ctx,
                arm.engine,
                arm.level,
                mode,
                arm.image,
                info["name"],
                workdir,
                f"{arm.engine}-{arm.variant}",
                log,
                adopt=adopt,
            )
            chains[arm] = chain
            # Check the chain once before measuring, so a broken arm is skipped, not half-measured.
            chain.call(startup_argv(arm.engine, arm.image, ctx.run_id), what="arrancar `echo ok` dentro")
        except (ComandoFallido, ErrorDelCurso) as exc:
            chains.pop(arm, None)
            ctx.skip_arm(key, f"{exc} — {explain(str(exc))}")
        nesting_meta.setdefault("preparacion_s", {})[f"{arm.engine}:{arm.variant}"] = round(
            time.monotonic() - started, 1
        )
        ctx.run.update_meta(anidamiento=nesting_meta)
    if "docker" in engines_ok and 2 in cfg.niveles:
        ctx.skip_arm(
            "Docker en Docker sin --privileged",
            "no se intenta: el daemon de dentro necesita montar sistemas de archivos, crear redes y "
            "escribir en los cgroups (CAP_SYS_ADMIN, CAP_NET_ADMIN), y el Docker sin root que podría "
            "evitarlo necesita rootlesskit, que el curso no instala. El intento sin privilegios se hace "
            "con Podman.",
        )
    arms = [a for a in wanted if a in chains]
    bare_env = eng.get_engine("bare").env()
    envs = {e: eng.get_engine(e).env() for e in engines_ok}
    script = ejecucion.workload_script("hash", size_mb=cfg.tamano_mb)

    def measure_one(arm: NestArm):
        chain = chains[arm]
        env = bare_env if arm.level == 0 else envs[arm.engine]
        depth = max(arm.level - 1, 0)  # how many containers the `run` happens inside
        if arm.level == 0:
            start = [probe_path(0), "echo", "ok"]
            work = (
                [probe_path(0), "--root", str(rootfs), "sh", "-c", script]
                if rootfs
                else [probe_path(0), "sh", "-c", script]
            )
        else:
            start = chain.wrap([probe_path(depth), *startup_argv(arm.engine, arm.image, ctx.run_id)])
            work = chain.wrap(chain.cli.exec_argv(chain.worker, [PROBE_IN_CONTAINER, "sh", "-c", script]))
        out = []
        for argv, metric, inner_metric, scale in (
            (start, METRIC_START, METRIC_START_INNER, 1e6),
            (work, METRIC_WORK_E2E, METRIC_WORK, 1e9),
        ):
            elapsed, code, stderr = measure.spawn_and_wait(argv, env, keep_stderr=True)
            if code != 0:
                raise ComandoFallido(
                    f"{arm.label}: el comando terminó con código {code}: {short_error(stderr)}"
                )
            inner_ns, status = probes.parse_cronometro(stderr)
            if status != 0:
                raise ComandoFallido(
                    f"{arm.label}: dentro, el comando terminó con código {status}: {short_error(stderr)}"
                )
            out += [
                (metric, round(elapsed / scale, 6), UNITS[metric]),
                (inner_metric, round(inner_ns / scale, 6), UNITS[inner_metric]),
            ]
        return out

    measure_rounds(
        ctx,
        arms,
        repetitions=cfg.repeticiones,
        warmup=cfg.calentamiento,
        measure=measure_one,
        progress=progress,
        meta={
            "cronometros": "time.perf_counter_ns + posix_spawn desde el host (arranque, trabajo_extremo); "
            "probes/cronometro un nivel más arriba (arranque_interior) o dentro (trabajo)",
            "carga_cpu": script,
            "niveles": {a.variant: a.level for a in arms},
        },
    )
    # Memory and disk of each inner engine, once, with its worker container idle.
    for arm in arms:
        chain = chains[arm]
        if arm.level < 2 or not chain.outer_pid:
            continue
        memory = inner_engine_memory(chain.outer_pid)
        store = directory_size(chain.store_dir) if chain.store_dir else 0
        nesting_meta.setdefault("memoria_y_disco", {})[f"{arm.engine}:{arm.variant}"] = {
            "procesos": memory["procesos"],
            "almacen": str(chain.store_dir),
        }
        if memory["pss"] is not None:
            ctx.run.append(
                engine=arm.engine,
                image=arm.image,
                variant=arm.variant,
                rep=1,
                metric=METRIC_PSS,
                value=round(memory["pss"] / 1e6, 3),
                unit="MB",
            )
        ctx.run.append(
            engine=arm.engine,
            image=arm.image,
            variant=arm.variant,
            rep=1,
            metric=METRIC_STORE,
            value=round(store / 1e6, 3),
            unit="MB",
        )
    ctx.run.update_meta(anidamiento=nesting_meta)


# ---------------------------------------------------------------- analysis
def _values(df: pd.DataFrame, engine: str, variant: str, metric: str) -> np.ndarray:
    sel = df[(df["engine"] == engine) & (df["variant"] == variant) & (df["metric"] == metric)]
    return sel["value"].to_numpy(dtype=float)


def level_of(variant: str) -> int:
    found = re.match(r"nivel(\d)", variant or "")
    return int(found.group(1)) if found else -1


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Per engine, variant and metric: n, median, IQR, min, IC 95 % of the median; `inestable` flags a
    spread that dwarfs the median (kept out of ratios and verdicts)."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(
            columns=[
                "engine",
                "variant",
                "nivel",
                "metric",
                "unit",
                "n",
                "mediana",
                "q1",
                "q3",
                "minimo",
                "ic_bajo",
                "ic_alto",
                "inestable",
            ]
        )
    for (engine, variant, metric), group in df.groupby(["engine", "variant", "metric"], sort=False):
        values = group["value"].to_numpy(dtype=float)
        s = measure.summarize(values)
        rows.append(
            {
                "engine": engine,
                "variant": variant,
                "nivel": level_of(variant),
                "metric": metric,
                "unit": group["unit"].iloc[0],
                "n": s.n,
                "mediana": s.median,
                "q1": s.q1,
                "q3": s.q3,
                "minimo": s.minimum,
                "ic_bajo": s.ci_low,
                "ic_alto": s.ci_high,
                "inestable": measure.unstable(values),
            }
        )
    order = {v: i for i, v in enumerate(VARIANTS)}
    out = pd.DataFrame(rows)
    out["_o"] = out["variant"].map(lambda v: order.get(v, 99))
    return out.sort_values(["metric", "engine", "_o"]).drop(columns="_o").reset_index(drop=True)


def level_ratios(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Each nested arm against the level right above it (nivel2 / nivel1, nivel3 / nivel2, ...), and each
    level-1 arm against bare metal: ratio of medians with its bootstrap IC 95 %."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(columns=["engine", "variant", "base", "ratio", "ic_bajo", "ic_alto", "inestable"])
    present = set(zip(df["engine"], df["variant"]))
    for engine, variant in sorted(
        present, key=lambda p: (p[0], VARIANTS.index(p[1]) if p[1] in VARIANTS else 99)
    ):
        if engine == "bare":
            continue
        base = {
            "nivel1": ("bare", "nivel0"),
            PRIV: (engine, "nivel1"),
            UNPRIV: (engine, "nivel1"),
            "nivel3": (engine, PRIV),
        }.get(variant)
        if base is None or base not in present:
            continue
        num, den = _values(df, engine, variant, metric), _values(df, *base, metric)
        if num.size == 0 or den.size == 0:
            continue
        r, lo, hi = measure.bootstrap_ratio_ci(num, den)
        rows.append(
            {
                "engine": engine,
                "variant": variant,
                "base": f"{base[0]}:{base[1]}",
                "ratio": r,
                "ic_bajo": lo,
                "ic_alto": hi,
                "inestable": measure.unstable(num) or measure.unstable(den),
            }
        )
    return pd.DataFrame(
        rows, columns=["engine", "variant", "base", "ratio", "ic_bajo", "ic_alto", "inestable"]
    )


# The chapter's experiment-4 medians (data/reference/anidamiento.csv), for the claims' stated values.
CHAPTER_START_L2_OVER_L1 = {"docker": 340 / 315, "podman": 241 / 166}
CHAPTER_CPU_L2_OVER_L1 = {"docker": 0.581 / 0.536, "podman": 0.698 / 0.563}
MODERATE = (1.0, 1.5)  # "moderate": a nested start costs at most +50 % over level 1
ACCUMULATES = (1.02, np.inf)  # "accumulates": each level adds at least 2 % to the same CPU work


def _pick(table: pd.DataFrame, **where) -> pd.Series | None:
    sel = table
    for key, value in where.items():
        sel = sel[sel[key] == value]
    return None if sel.empty else sel.iloc[0]


def _llamadas_claim() -> Claim | None:
    """The system-call notebook's verdict on nested PID namespaces, if it exists and has run here."""
    from . import REGISTRY, get

    if "llamadas" not in REGISTRY:
        return None
    module = get("llamadas")
    resultado = Resultado.latest(module.EXPERIMENT)
    if resultado is None:
        return None
    found = module.claims(resultado.df, resultado.meta)
    for claim in found:  # its claim "each nesting level of PID namespaces adds cost"
        if claim.key == "anidamiento":
            return claim
    for claim in found:
        if any(word in f"{claim.key} {claim.statement}".lower() for word in ("anidamiento", "nivel")):
            return claim
    return None


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The chapter's four claims on nesting, each decided by the one verdict rule."""
    out: list[Claim] = []
    start = level_ratios(df, METRIC_START_INNER)
    work = level_ratios(df, METRIC_WORK)
    reps = int((meta or {}).get("parameters", {}).get("repeticiones", 0) or 0)
    for engine in ("docker", "podman"):
        display = eng.DISPLAY[engine]
        statement = (
            f"Anidar suma una sobrecarga de arranque moderada y aditiva ({display} dentro de {display}: "
            f"{'+8 %' if engine == 'docker' else '+45 %'} sobre el nivel 1)."
        )
        row = _pick(start, engine=engine, variant=PRIV)
        if row is None:
            out.append(no_data("arranque_aditivo", statement, SOURCE, {"engine": engine}))
        else:
            level3 = _pick(start, engine=engine, variant="nivel3")
            detail = {
                "engine": engine,
                "metric": METRIC_START_INNER,
                "nivel3_sobre_nivel2": None
                if level3 is None
                else (level3["ratio"], level3["ic_bajo"], level3["ic_alto"]),
            }
            out.append(
                judge(
                    "arranque_aditivo",
                    statement,
                    SOURCE,
                    row["ratio"],
                    row["ic_bajo"],
                    row["ic_alto"],
                    claimed=CHAPTER_START_L2_OVER_L1[engine],
                    region=MODERATE,
                    n=reps,
                    unit="x",
                    unstable=bool(row["inestable"]),
                    detail=detail,
                )
            )
    for engine in ("docker", "podman"):
        display = eng.DISPLAY[engine]
        statement = (
            f"La sobrecarga de CPU se acumula con cada nivel ({display}: "
            f"{'+15 % → +24 %' if engine == 'docker' else '+21 % → +49 %'} sobre bare metal)."
        )
        row = _pick(work, engine=engine, variant=PRIV)
        if row is None:
            out.append(no_data("cpu_acumula", statement, SOURCE, {"engine": engine}))
        else:
            e2e = _pick(level_ratios(df, METRIC_WORK_E2E), engine=engine, variant=PRIV)
            detail = {
                "engine": engine,
                "metric": METRIC_WORK,
                "extremo_a_extremo": None if e2e is None else (e2e["ratio"], e2e["ic_bajo"], e2e["ic_alto"]),
            }
            out.append(
                judge(
                    "cpu_acumula",
                    statement,
                    SOURCE,
                    row["ratio"],
                    row["ic_bajo"],
                    row["ic_alto"],
                    claimed=CHAPTER_CPU_L2_OVER_L1[engine],
                    region=ACCUMULATES,
                    n=reps,
                    unit="x",
                    unstable=bool(row["inestable"]),
                    detail=detail,
                )
            )
    out.append(_syscall_claim(work))
    out.append(_privileged_claim(meta))
    return out


def _syscall_claim(work: pd.DataFrame) -> Claim:
    statement = "La causa es que cada nivel añade un recorrido de namespaces a cada llamada al sistema."
    ours = {
        r["engine"]: (r["ratio"], r["ic_bajo"], r["ic_alto"])
        for _, r in work.iterrows()
        if r["variant"] == PRIV
    }
    try:
        theirs = _llamadas_claim()
    except Exception:  # noqa: BLE001 - another notebook's data must never break this one
        theirs = None
    if theirs is None or theirs.status == "sin_datos":
        return no_data(
            "causa_syscalls",
            statement,
            SOURCE,
            {
                "motivo": "falta la medición por llamada al sistema de namespaces de PID anidados: "
                "ejecuta el cuaderno 05_llamadas_sistema y vuelve a este.",
                "trabajo_nivel2_sobre_nivel1": ours,
            },
        )
    return judge(
        "causa_syscalls",
        statement,
        SOURCE,
        theirs.value,
        theirs.low,
        theirs.high,
        claimed=theirs.claimed,
        region=theirs.region,
        n=theirs.n,
        unit=theirs.unit,
        unstable=theirs.status == "inestable",
        detail={
            "de_llamadas": {"clave": theirs.key, "afirmacion": theirs.statement, "veredicto": theirs.status},
            "trabajo_nivel2_sobre_nivel1": ours,
        },
    )


def _privileged_claim(meta: dict | None) -> Claim:
    statement = "Podman dentro de Podman sin --privileged falla (mount proc: Operation not permitted)."
    attempts = ((meta or {}).get("anidamiento") or {}).get("intentos_sin_privilegios") or []
    if not attempts:
        return no_data("pip_necesita_privileged", statement, SOURCE)
    worked = [a for a in attempts if a.get("ok")]
    value = 1.0 if worked else 0.0  # 1 = an inner run worked without --privileged
    detail = {
        "intentos": attempts,
        "funciono_con": worked[0]["opciones"] if worked else None,
        "error_del_capitulo_visto": any("mount proc" in (a.get("error") or "") for a in attempts),
    }
    # The claim is "it fails": 0. It is confirmed only if every attempt failed (value 0, region [0, 0]);
    # one working attempt excludes the claimed 0.
    return judge(
        "pip_necesita_privileged",
        statement,
        SOURCE,
        value,
        value,
        value,
        claimed=0.0,
        region=(0.0, 0.0),
        n=len(attempts),
        detail=detail,
    )


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """The chapter's ratios (per level, against the level above) next to this run's, for startup and CPU.
    The chapter's figures are medians; here the ratio of this run's medians, with its IC."""
    rows = []
    # The chapter's method is not published: its startup and its CPU work "by exec" are set against both
    # of this run's readings (from the host with the `exec`s, and the inner part alone).
    pairs = (
        (METRIC_START_INNER, METRIC_START),
        (METRIC_START, METRIC_START),
        (METRIC_WORK, METRIC_WORK_E2E),
        (METRIC_WORK_E2E, METRIC_WORK_E2E),
    )
    for metric, ref_metric in pairs:
        live = level_ratios(df, metric)
        ref = (
            level_ratios(reference, ref_metric)
            if reference is not None and len(reference)
            else live.iloc[0:0]
        )
        for _, r in ref.iterrows():
            mine = _pick(live, engine=r["engine"], variant=r["variant"])
            rows.append(
                {
                    "medida": metric,
                    "engine": r["engine"],
                    "variant": r["variant"],
                    "base": r["base"],
                    "referencia": r["ratio"],
                    "tu_proporcion": np.nan if mine is None else mine["ratio"],
                    "tu_ic_bajo": np.nan if mine is None else mine["ic_bajo"],
                    "tu_ic_alto": np.nan if mine is None else mine["ic_alto"],
                    "coincide": None
                    if mine is None
                    else bool(mine["ic_bajo"] <= r["ratio"] <= mine["ic_alto"]),
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "medida",
            "engine",
            "variant",
            "base",
            "referencia",
            "tu_proporcion",
            "tu_ic_bajo",
            "tu_ic_alto",
            "coincide",
        ],
    )


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """For the closing LAUNCH vs RUNNING table: what one more level costs, as a ratio to the level above
    (startup: LAUNCH; CPU work: RUNNING)."""
    rows = []
    for metric, tipo, concepto in (
        (METRIC_START_INNER, "LAUNCH", "arranque anidado (nivel 2 / nivel 1)"),
        (METRIC_WORK, "RUNNING", "trabajo de CPU anidado (nivel 2 / nivel 1)"),
    ):
        for _, r in level_ratios(df, metric).iterrows():
            if r["variant"] == PRIV and not r["inestable"]:
                rows.append(
                    {
                        "concepto": concepto,
                        "tipo": tipo,
                        "entorno": r["engine"],
                        "valor": r["ratio"],
                        "ic_bajo": r["ic_bajo"],
                        "ic_alto": r["ic_alto"],
                        "unidad": "x",
                    }
                )
    return pd.DataFrame(
        rows, columns=["concepto", "tipo", "entorno", "valor", "ic_bajo", "ic_alto", "unidad"]
    )
