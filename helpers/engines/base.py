"""The engine interface: what every engine (bare metal, Docker, Podman) answers and does.

Each engine answers "are you available, and if not, why?" in one Spanish sentence, builds the command
line a student would type (the CLI is what experiments time), and does every other thing experiments
need from an engine. The options of a container (RunOptions) and the container as experiments see it
(Container) are defined here too.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import system
from ..errors import ComandoFallido, summarize_engine_error

ENGINE_NAMES = ("bare", "docker", "podman")
CONTAINER_ENGINES = ("docker", "podman")
# How every table and sentence names an engine (view.common.ENGINE_LABEL is this same dict). "qemu" is
# the VM arm of 08_sistema_vs_vm: not an engine of this module, but named in the same tables.
DISPLAY = {
    "bare": "bare metal",
    "docker": "Docker",
    "podman": "Podman",
    "qemu": "QEMU",
    "kubernetes": "Kubernetes",
    "lxd": "LXD",
}

LOOPBACK = "127.0.0.1"
CLI_TIMEOUT = 120  # seconds; no engine call may wait forever


@dataclass
class RunOptions:
    """What a container needs beyond image and command; each engine turns it into its own flags.

    publish: (host_port, container_port) pairs, always bound to 127.0.0.1.
    runtime: None (the engine's default) or an OCI runtime name such as "runsc".
    volumes: (host_path, container_path, mode) triples, mode "ro" or "rw".
    privileged: only the nested arms of the nesting experiment may set it.
    cpus, memory_mb: the container's CPU quota (`--cpus`, in CPUs) and memory limit (`--memory`, MiB).
    """

    network: str | None = None
    publish: Sequence[tuple[int, int]] = ()
    runtime: str | None = None
    security_opt: Sequence[str] = ()
    privileged: bool = False
    cap_add: Sequence[str] = ()
    devices: Sequence[str] = ()
    volumes: Sequence[tuple[str, str, str]] = ()
    cpuset: str | int | None = None
    cpus: float | None = None
    memory_mb: int | None = None
    env: dict = field(default_factory=dict)
    init: bool = False
    stop_timeout: int | None = None
    tmpfs: Sequence[str] = ()
    extra: Sequence[str] = ()


@dataclass(frozen=True)
class Container:
    """A container as experiments see it."""

    engine: str
    id: str
    name: str
    pid: int
    cgroup: str | None
    labels: dict
    helper_pid: int | None = None  # Docker: the containerd shim; Podman: conmon


def image_summary(ref: str, attrs: dict) -> dict:
    """What the course keeps of an image's inspection (Docker's and Podman's name its fields alike):
    the reference asked for, its id, its size in bytes and its tags."""
    return {
        "name": ref,
        "id": attrs.get("Id"),
        "size_bytes": attrs.get("Size"),
        "tags": attrs.get("RepoTags") or [],
    }


def capture(argv: Sequence[str], env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """An engine's CLI, its output captured as text (a minute at most unless told)."""
    return system.capture(argv, env=env, timeout=timeout)


class Engine:
    """Base class. Subclasses: BareMetal, Docker, Podman."""

    name = "?"
    is_container = True
    rootless = False  # True where the engine runs without root (Podman as a user, rootless Docker)

    @property
    def display(self) -> str:
        return DISPLAY.get(self.name, self.name)

    # -- availability
    def availability(self) -> tuple[bool, str | None]:
        """(True, None) or (False, one Spanish sentence saying why)."""
        raise NotImplementedError

    @property
    def available(self) -> bool:
        return self.availability()[0]

    def healthy(self, timeout: float = 10.0) -> bool:
        """Does the engine answer right now (a quick, uncached check)? Used when a command fails
        mid-run, to tell "the engine died" from "this command failed"."""
        return True

    def forget(self) -> None:
        """Drop cached answers (availability, clients): the engine changed state."""

    @property
    def reason(self) -> str | None:
        return self.availability()[1]

    # -- commands
    def env(self) -> dict:
        return dict(os.environ)

    def workarounds(self) -> list[str]:
        return []

    def run_argv(
        self,
        image: str,
        command: Sequence[str],
        *,
        run_id: str | None,
        name: str | None = None,
        remove: bool = True,
        detach: bool = False,
        opts: RunOptions | None = None,
        extra: Sequence[str] = (),
    ) -> list[str]:
        raise NotImplementedError

    def exec_argv(self, container: str, command: Sequence[str]) -> list[str]:
        raise NotImplementedError

    def call(
        self,
        argv: Sequence[str],
        *,
        timeout: float = CLI_TIMEOUT,
        check: bool = False,
        what: str | None = None,
        **kw,
    ) -> subprocess.CompletedProcess:
        """Run a command of this engine outside the timed path (with this engine's environment and a
        timeout). check=True raises ComandoFallido, in Spanish, naming `what` failed."""
        try:
            result = subprocess.run(
                list(argv), capture_output=True, text=True, env=self.env(), timeout=timeout, **kw
            )
        except subprocess.TimeoutExpired as exc:
            raise ComandoFallido(
                f"{self.display} no respondió en {timeout:.0f} s a «{' '.join(argv)[:120]}».", detail=str(exc)
            ) from exc
        if check and result.returncode != 0:
            raise ComandoFallido(
                f"{self.display} no pudo {what or 'ejecutar ' + ' '.join(argv)[:120]}: "
                f"{summarize_engine_error(result.stderr)}.",
                detail=(result.stderr or "").strip()[-2000:],
            )
        return result

    # -- inspection and clean-up
    def info(self) -> dict:
        return {}

    def image_info(self, ref: str) -> dict | None:
        return None

    def list_labelled(self, run_id: str | None = None) -> list[str]:
        return []

    def course_containers(self) -> list[tuple[str, dict, float | None]]:
        """Every course container: (id, labels, created as a Unix time or None)."""
        return []

    def remove_ids(self, ids: Sequence[str]) -> int:
        return 0

    def cleanup(self, run_id: str | None) -> int:
        """Remove the course containers of one run; run_id=None (explicitly) means every course
        container of every run. Returns how many."""
        return 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"
