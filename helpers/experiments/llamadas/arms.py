"""Experiment 5's arms: what each one is and how the probe gets into it.

- bare metal: the host (`host`), and the probe under `unshare --pid --fork` repeated 1, 2, 4 and 8 times
  (`pid:1` ... `pid:8`: a PID namespace alone, then nested ones). Without root the first level also makes
  a user namespace (`unshare --user --map-root-user`), in which the next levels work;
- Docker and Podman: the engine's default seccomp profile (`seccomp`), the same container with
  `--security-opt seccomp=unconfined` (`sin_seccomp`), and gVisor's `runsc` (`gvisor`). Containers are
  started once (`sleep`) with the probe mounted read-only; the probe runs in them by `exec`;
- the repository's «Test C» (`nsenter`, its first `run.sh`, commit 27364cb): `nsenter --target PID --pid --
  /bin/true` against the process of a running container of each engine, timed per exec from the host
  (root only). Not a call of the probe: its figure is µs per entry, never a ratio over the host's getpid.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

from ... import engines as eng
from ...engines import RunOptions
from ..runner import Arm as BaseArm
from .probe import PROBE_IN_CONTAINER

ARM_KINDS = ("host", "pid", "anidado", "seccomp", "sin_seccomp", "gvisor", "nsenter")
ARM_KIND_LABEL = {
    "host": "el host, sin aislamiento",
    "pid": "un namespace PID solo (unshare)",
    "anidado": "namespaces PID anidados 2, 4 y 8 niveles",
    "seccomp": "contenedor con el perfil seccomp por defecto",
    "sin_seccomp": "el mismo contenedor sin seccomp",
    "gvisor": "contenedor con gVisor (runsc)",
    "nsenter": "el «Test C» del repositorio: nsenter en el namespace PID de un contenedor",
}
NESTED_DEPTHS = (2, 4, 8)
ENGINE_VARIANTS = ("seccomp", "sin_seccomp", "gvisor")  # the probe runs in them
NSENTER = "nsenter"  # the engine arm of Test C: no probe, `nsenter` into its container's PID namespace
NSENTER_METRIC, NSENTER_UNIT = "nsenter", "µs"  # mean µs per entry over one measurement's entries
PID_ARMS = ["unshare", "--pid", "--fork"]
USER_PID_ARMS = ["unshare", "--user", "--map-root-user", "--pid", "--fork"]


@dataclass(frozen=True)
class Arm(BaseArm):
    """engine bare: variant host or pid:<depth>; docker/podman: seccomp, sin_seccomp or gvisor."""

    depth: int = 0  # PID namespaces added by unshare (bare metal only)

    @property
    def kind(self) -> str:
        if self.engine == "bare":
            return "host" if self.depth == 0 else "pid" if self.depth == 1 else "anidado"
        return self.variant


def depth_of(variant: str) -> int:
    """PID namespaces a bare-metal variant adds: host → 0, pid:<d> → d."""
    return int(variant.split(":")[1]) if variant.startswith("pid:") else 0


def arm_label(engine: str, variant: str) -> str:
    if engine == "bare":
        if variant == "host":
            return "host"
        depth = depth_of(variant)
        return "namespace PID" if depth == 1 else f"{depth} namespaces PID anidados"
    name = eng.DISPLAY.get(engine, engine)
    return {
        "seccomp": f"{name} (seccomp por defecto)",
        "sin_seccomp": f"{name} sin seccomp",
        "gvisor": f"{name} + gVisor",
        NSENTER: f"nsenter en {name} («Test C»)",
    }.get(variant, f"{name} {variant}")


def bare_arms(kinds) -> list[Arm]:
    depths = (
        ([0] if "host" in kinds else [])
        + ([1] if "pid" in kinds else [])
        + (list(NESTED_DEPTHS) if "anidado" in kinds else [])
    )
    variants = ["host" if d == 0 else f"pid:{d}" for d in depths]
    return [Arm("bare", v, label=arm_label("bare", v), depth=d) for v, d in zip(variants, depths)]


def engine_arms(kinds, engines_ok, image_names: dict[str, str]) -> list[Arm]:
    return [
        Arm(e, v, image_names.get(e, ""), arm_label(e, v))
        for e in engines_ok
        for v in (*ENGINE_VARIANTS, NSENTER)
        if v in kinds
    ]


def nsenter_argv(pid: int) -> list[str]:
    """Test C as the repository's first `run.sh` ran it: enter the PID namespace of process `pid` (a
    running container's) and run the host's /bin/true there."""
    return ["nsenter", "--target", str(pid), "--pid", "--", "/bin/true"]


def unshare_prefix(depth: int, *, as_root: bool) -> list[str]:
    """`unshare --pid --fork` `depth` times; without root the first level also makes a user namespace
    (in which the process is root, so the next levels work)."""
    if depth <= 0:
        return []
    first = PID_ARMS if as_root else USER_PID_ARMS
    return first + PID_ARMS * (depth - 1)


def namespaces_unavailable() -> str | None:
    """None if `unshare` can make PID namespaces here (as root, or through a user namespace); else the
    Spanish reason to skip those arms."""
    if not shutil.which("unshare"):
        return "no está el programa «unshare» (paquete util-linux)."
    as_root = os.geteuid() == 0
    argv = unshare_prefix(2, as_root=as_root) + ["true"]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"«unshare» no funcionó: {exc}"
    if result.returncode == 0:
        return None
    if as_root:
        return f"«unshare --pid --fork» falló: {result.stderr.strip()[-200:] or 'sin mensaje'}"
    return (
        "crear namespaces PID necesita root, y este sistema no deja crear namespaces de usuario sin "
        f"privilegios ({result.stderr.strip()[-160:] or 'sin mensaje'})."
    )


def container_options(variant: str, probe_path: str) -> RunOptions:
    """The long-lived container of an engine arm: no network, the probe mounted read-only, seccomp off
    for `sin_seccomp`, runsc for `gvisor`, killed at once on removal."""
    return RunOptions(
        network="none",
        volumes=[(str(probe_path), PROBE_IN_CONTAINER, "ro")],
        security_opt=["seccomp=unconfined"] if variant == "sin_seccomp" else [],
        runtime="runsc" if variant == "gvisor" else None,
        stop_timeout=0,
    )


def argv_for(arm: Arm, args: list[str], *, probe_path: str, container: str | None = None) -> list[str]:
    """The command line that runs the probe with `args` in `arm`: the host's probe on bare metal (behind
    `unshare` for PID namespaces), or the engine's `exec` of the mounted probe in the arm's `container`."""
    if arm.engine == "bare":
        return unshare_prefix(arm.depth, as_root=os.geteuid() == 0) + [probe_path, *args]
    return eng.get_engine(arm.engine).exec_argv(container, [PROBE_IN_CONTAINER, *args])


def primary_clock(variant: str) -> str:
    """The clock that stands for an arm's cost: «cpu» (the thread's CPU time) or «pared» (the wall clock).
    With a Linux kernel the call's work runs on the calling thread, so its CPU time counts all of it and
    leaves out the waits for a busy CPU. Under gVisor the call is served by another thread (the Sentry)
    and the thread's CPU clock is gVisor's own coarse accounting: there the wall clock is the cost of the
    call. A ratio reads both of its arms through one clock (`analysis.shared_clock`)."""
    return "pared" if variant == "gvisor" else "cpu"
