"""The ladder of LAUNCH: which rungs there are, the plan of a run, and how each bare rung runs.

- a process (`echo ok`);
- `unshare`, adding one namespace per rung (mount, UTS, IPC, PID, network, user, cgroup);
- `chroot` into the image's exported root filesystem;
- the OCI runtime alone: `runc run` on a bundle the course writes (no engine, no daemon), with and
  without a network namespace, and on a freshly mounted overlay layer (what an engine does for
  storage); gVisor's `runsc` on the same bundle where it is installed.
The engine rungs (`run`, phases, warm pool) are in phases.py; the bundles themselves in engines.oci.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import engines as eng
from ... import measure
from ...engines import oci, rootfs, runtimes
from ...errors import ErrorDelCurso
from ..runner import Arm, Log
from . import pod

METRIC = "arranque"
COMMAND = ["echo", "ok"]

# The groups of rungs a student can pick (PELDAÑOS), in ladder order.
GROUPS = ("proceso", "espacios", "chroot", "runc", "runsc", "motor", "fases", "pool", "kubernetes", "cadena")
GROUP_LABEL = {
    "proceso": "un proceso (echo ok)",
    "espacios": "unshare, un espacio de nombres más en cada peldaño",
    "chroot": "chroot al sistema de archivos de la imagen",
    "runc": "runc run sobre un bundle OCI (sin motor)",
    "runsc": "runsc (gVisor) sobre el mismo bundle",
    "motor": "docker/podman run, con y sin red",
    "fases": "las fases del motor: crear, iniciar, esperar, borrar",
    "pool": "pool caliente: start -a de un contenedor ya creado, y exec en uno ya en marcha",
    "kubernetes": "un Pod de Kubernetes (kubectl apply → Ready) y la factura de memoria del clúster",
    "cadena": "la cadena de procesos de un run (eventos del kernel)",
}

# unshare rungs: each adds one namespace to the previous one (flags are cumulative).
NAMESPACES = (
    ("ns_mount", ["-m"], "mount"),
    ("ns_uts", ["-u"], "UTS"),
    ("ns_ipc", ["-i"], "IPC"),
    ("ns_pid", ["-p", "-f"], "PID"),
    ("ns_red", ["-n"], "red"),
    ("ns_usuario", ["-U"], "usuario"),
    ("ns_cgroup", ["-C"], "cgroup"),
)
USUAL_NAMESPACES = "ns_red"  # mount + UTS + IPC + PID + network: what runc's default bundle unshares

RUNG_LABEL = {
    "proceso": "proceso (echo ok)",
    **{key: f"+ espacio {name}" for key, _, name in NAMESPACES},
    "chroot": "chroot a la imagen",
    "runc_sin_netns": "runc run, sin espacio de red",
    "runc_con_netns": "runc run, con espacio de red",
    "runc_overlay": "runc run sobre una capa overlay (mount(2) + runc + umount2(2))",
    "runsc": "runsc run (gVisor)",
    "run_sin_red": "run --network none",
    "run_red": "run, red por defecto",
    pod.BESIDE: "run, red por defecto, con el clúster de Kubernetes en marcha",
    "fases": "crear + iniciar + esperar + borrar",
    "pool": "start -a de un contenedor ya creado (pool caliente)",
    "pool_exec": "exec en un contenedor ya en marcha (pool caliente)",
    **pod.RUNG_LABEL,
}
# Every rung, in ladder order (tables and plots follow it).
LADDER = (
    "proceso",
    *[key for key, _, _ in NAMESPACES],
    "chroot",
    "runc_sin_netns",
    "runc_con_netns",
    "runc_overlay",
    "runsc",
    "run_sin_red",
    "run_red",
    pod.BESIDE,
    "pool",
    "pool_exec",
    "fases",
)
RUNC_VARIANTS = ("runc_sin_netns", "runc_con_netns", "runc_overlay")
ON_ROOTFS = ("chroot", *RUNC_VARIANTS, "runsc")  # the rungs that run on the exported image

# Arms only root can run (notebook 00 lists them for a student without root). Without root, the
# namespace rungs and chroot run inside a user namespace of their own (`unshare -r`: the user is root
# there), which adds one namespace to each of them (ROOTLESS_NOTE).
NEEDS_ROOT = {
    "cadena": "escuchar los eventos de procesos del kernel (la cadena de procesos)",
    "overlay": "montar una capa overlay (el peldaño runc sobre overlay)",
    "kubernetes": pod.ROOT_WHAT,
}

USERNS = ["-r"]  # unshare --map-root-user: a new user namespace where this user is root
ROOTLESS_NOTE = (
    "Sin root, los peldaños de espacios de nombres y chroot corren dentro de un espacio de nombres de "
    "usuario propio (`unshare -r`, donde tu usuario es root): cada uno lleva un espacio más (el de usuario), "
    "así que el primero de ellos incluye su costo; las diferencias entre peldaños siguen midiendo un espacio "
    "cada una. Quedan fuera, porque solo root puede: {skipped}."
)


def rootless() -> bool:
    return os.geteuid() != 0


Skips = dict[tuple[str, str], str]  # (engine, variant) -> Spanish reason it cannot run here


def rung_label(engine: str, variant: str) -> str:
    """A rung as the progress line and the skipped-arms list name it («Docker: run --network none»)."""
    label = RUNG_LABEL.get(variant, variant)
    return label if engine == "bare" else f"{eng.DISPLAY[engine]}: {label}"


def namespace_argv(key: str, without_root: bool | None = None) -> list[str]:
    """`unshare` with every namespace up to and including `key`, then echo ok; without root, inside a
    user namespace of its own (`unshare -r`)."""
    flags: list[str] = list(USERNS) if (rootless() if without_root is None else without_root) else []
    for name, args, _ in NAMESPACES:
        flags += args
        if name == key:
            return ["unshare", *flags, *COMMAND]
    raise KeyError(key)


def plan(groups, engines_ok: list[str], image_names: dict[str, str]) -> list[Arm]:
    """Every arm of the ladder for the chosen groups (PELDAÑOS), in ladder order (the chain is
    captured apart, after the rounds)."""
    wanted = set(groups)
    arms: list[Arm] = []

    def add(engine: str, variant: str, image: str = ""):
        arms.append(Arm(engine, variant, image, rung_label(engine, variant)))

    if "proceso" in wanted:
        add("bare", "proceso")
    if "espacios" in wanted:
        for key, _, _ in NAMESPACES:
            add("bare", key)
    rootfs_image = next(iter(image_names.values()), "")
    if "chroot" in wanted:
        add("bare", "chroot", rootfs_image)
    if "runc" in wanted:
        for variant in RUNC_VARIANTS:
            add("bare", variant, rootfs_image)
    if "runsc" in wanted:
        add("bare", "runsc", rootfs_image)
    for engine in engines_ok:
        image = image_names[engine]
        if "motor" in wanted:
            add(engine, "run_sin_red", image)
            add(engine, "run_red", image)
        if "fases" in wanted:
            add(engine, "fases", image)
        if "pool" in wanted:
            add(engine, "pool", image)
            add(engine, "pool_exec", image)
    return arms


@dataclass
class Setup:
    """What the rounds need, prepared once before them."""

    run_id: str
    rootfs: Path | None = None
    bundles: dict = field(default_factory=dict)  # variant -> oci.Bundle
    runsc: Path | None = None
    envs: dict = field(default_factory=dict)
    running: dict = field(default_factory=dict)  # engine -> name of a container kept running (pool_exec)
    overlay: Path | None = None  # where runc_overlay mounts a fresh overlay each time
    counter: itertools.count = field(default_factory=lambda: itertools.count(1))
    names: Callable | None = None  # ctx.container_name
    pods: Any = None  # pod.PodSetup: the Kubernetes cluster of the Pod rungs, started once


# ---------------------------------------------------------------- running a bare rung
def bare_argv(arm: Arm, setup: Setup, n: int) -> list[str]:
    if arm.variant == "proceso":
        return list(COMMAND)
    if arm.variant.startswith("ns_"):
        return namespace_argv(arm.variant)
    if arm.variant == "chroot":
        prefix = ["unshare", *USERNS] if rootless() else []
        return [*prefix, "chroot", str(setup.rootfs), *COMMAND]
    container_id = f"curso-anatomia-{setup.run_id.lower()}-{n}"
    if arm.variant in RUNC_VARIANTS:
        return oci.runc_argv(setup.bundles[arm.variant], container_id)
    if arm.variant == "runsc":
        return oci.runsc_argv(setup.runsc, setup.bundles["runsc"], container_id)
    raise KeyError(arm.variant)


def measure_overlay_run(setup: Setup, argv: list[str]) -> float:
    """What an engine does for storage, by hand: mount(2) an overlay (a fresh writable layer over the
    image), run the runtime on it, umount2(2) it; those three are timed. Preparing the empty layer
    before and deleting it after (rmtree) stay outside the window."""
    oci.fresh_layer(setup.overlay)
    try:
        start = time.perf_counter_ns()
        oci.mount_layer(setup.rootfs, setup.overlay)
        try:
            measure.time_command(argv)
        finally:
            oci.umount_layer(setup.overlay)
        return (time.perf_counter_ns() - start) / 1e6
    finally:
        oci.clear_layer(setup.overlay)


def measure_bare(arm: Arm, setup: Setup, n: int) -> float:
    """One bare rung, timed (ms)."""
    if arm.variant == "runc_overlay":
        return measure_overlay_run(setup, bare_argv(arm, setup, n))
    return measure.time_command(bare_argv(arm, setup, n))


# ---------------------------------------------------------------- preparing the bare rungs
def prepare_rootfs(ctx, setup: Setup, arms: list[Arm], image_role: str, skip: Skips, log: Log) -> None:
    """The image's root filesystem, exported once from the first engine that has it, for the rungs
    that run on it (chroot, runc, runsc); without it those rungs are skipped with the reason."""
    needs_rootfs = [a for a in arms if a.variant in ON_ROOTFS]
    if not needs_rootfs:
        return
    source = next((e for e in ctx.engines if e in ctx.images), None)
    if source is None:
        for arm in needs_rootfs:
            skip[("bare", arm.variant)] = "no hay motor del que exportar el sistema de archivos de la imagen."
        return
    try:
        setup.rootfs = rootfs.exported_rootfs(source, ctx.images[source][image_role], ctx.run_id, log)
    except ErrorDelCurso as exc:
        for arm in needs_rootfs:
            skip[("bare", arm.variant)] = f"no pude exportar la imagen: {exc}"


def note_rootless(ctx, arms: list[Arm], log: Log) -> None:
    """Without root: say (log and meta["sin_root"]) that the namespace and chroot rungs run inside a user
    namespace, and what only root can run. A kernel that refuses user namespaces to users makes those
    rungs fail their untimed try: they are then skipped with that reason."""
    if not rootless():
        return
    userns = [a for a in arms if a.variant == "chroot" or a.variant.startswith("ns_")]
    root_only = "; ".join(NEEDS_ROOT.values())
    note = ROOTLESS_NOTE.format(skipped=root_only)
    if userns:
        log(note)
    ctx.run.update_meta(sin_root=note)


def prepare_bundles(ctx, setup: Setup, wanted: set, skip: Skips, dropped: set) -> None:
    """One OCI bundle per runtime rung on the exported root filesystem (read-only; the overlay rung's
    on a writable layer it mounts each time), and the runsc binary; every bundle, its runtime state and
    the working folder are removed when the run ends (ctx.defer)."""
    if setup.rootfs is None or not ({"runc", "runsc"} & wanted):
        return
    ok, why = oci.runc_availability()
    if not ok:
        for variant in (*RUNC_VARIANTS, "runsc"):
            skip[("bare", variant)] = why
        return
    workdir = Path(tempfile.mkdtemp(prefix=f"curso-anatomia-{ctx.run_id.lower()}-"))
    ctx.defer(shutil.rmtree, workdir, True)
    ctx.defer(oci.unmount_under, workdir)  # runs first (LIFO): an overlay left mounted
    setup.overlay = workdir / "overlay"
    variants = [(v, "runc", v != "runc_sin_netns") for v in RUNC_VARIANTS] + [("runsc", "runsc", True)]
    for variant, group, netns in variants:
        if group not in wanted:
            continue
        overlay = variant == "runc_overlay"
        if overlay and not ctx.require_root(RUNG_LABEL[variant], NEEDS_ROOT["overlay"]):
            dropped.add(("bare", variant))
            continue
        bundle = oci.make_bundle(
            oci.overlay_paths(setup.overlay)["merged"] if overlay else setup.rootfs,
            COMMAND,
            network_namespace=netns,
            parent=workdir,
            prefix=f"{variant}-",
            readonly=not overlay,
        )
        ctx.defer(bundle.remove)
        ctx.defer(oci.delete_leftovers, bundle)
        setup.bundles[variant] = bundle
    if "runsc" in wanted and ("bare", "runsc") not in skip:
        ok, why = runtimes.runsc_availability()
        if ok:
            setup.runsc = runtimes.runsc_path()
            ctx.defer(oci.delete_leftovers, setup.bundles["runsc"], str(setup.runsc))
        else:
            skip[("bare", "runsc")] = why
