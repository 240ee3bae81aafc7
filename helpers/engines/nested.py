"""Engines inside containers: a chain of containers, each one running inside the engine of the previous.

    chain = Chain("podman", outer=["fuera", "medio"])
    chain.wrap(["echo", "ok"])    # ['podman', 'exec', 'fuera', 'podman', 'exec', 'medio', 'echo', 'ok']
    chain.call(argv, what="cargar busybox")   # runs it from the host; a Spanish ComandoFallido if it fails

Podman in Podman and Docker in Docker: the same CLI at every level. A container that holds an engine
runs `entry(engine)` as its PID 1 (it reaps the inner engine's orphans; for Docker it also starts the
inner daemon, which `wait_inner_engine` waits for). Notebook 07 (anidamiento) uses this; LXD's nested
engines (engines.lxd_nested) go through LXD's own exec instead.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ComandoFallido
from .cli import CliEngine
from .registry import get_engine

# PID 1 of a container with an engine inside must reap: each inner `run --rm` leaves its conmon (or shim)
# reparented to PID 1, and a bare `sleep` would keep them as zombies. The shell's `wait` reaps any child.
REAPER = 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait; done'
# The inner Docker daemon: cgroup v1 hierarchies are bind-mounted read-only into a container that is not
# fully privileged, so they are remounted read-write first (harmless where they already are), then the
# daemon runs without touching the network (the containers of a nested chain run with --network none).
DIND_ENTRY = (
    'for d in /sys/fs/cgroup/*; do mount -o remount,bind,rw "$d" 2>/dev/null; done; '
    "dockerd --iptables=false --bridge=none --log-level=error & "
    'trap "exit 0" TERM INT; while :; do wait; sleep 1; done'
)

# containers.conf of a Podman that runs inside a container: the host's rlimit/runtime workaround (this
# kind of kernel refuses to raise NOFILE/NPROC; crun refuses hybrid cgroups), and, with no systemd
# inside, cgroups managed directly and events written to a file.
INNER_PODMAN_CONF = """\
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""


def entry(engine_name: str) -> list[str]:
    """PID 1 of a container that holds an engine (see REAPER and DIND_ENTRY)."""
    return ["sh", "-c", DIND_ENTRY if engine_name == "docker" else REAPER]


def short_error(stderr: str, limit: int = 400) -> str:
    """The meaningful tail of an engine's error output (the last line that says «error»): its last
    `limit` characters at most, starting on a word («…» where the start was cut)."""
    lines = [ln.strip() for ln in (stderr or "").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()] or lines
    line = errors[-1] if errors else "(sin mensaje)"
    if len(line) <= limit:
        return line
    tail = line[-limit:]
    return "…" + (tail.split(" ", 1)[1] if " " in tail[:-1] else tail)


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cut on a word, ending in «…» where it was cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[:limit]  # a space at its end keeps the word before it whole
    return (head.rsplit(" ", 1)[0] if " " in head else head[: limit - 1]).rstrip(",;: ") + "…"


@dataclass
class Chain:
    """The running containers of one nested arm. `outer[i]` runs in the engine inside `outer[i-1]`
    (outer[0] on the host); `worker` is a container at the arm's own level, inside the last outer
    container (or on the host when there is none). `outer_pid` is outer[0]'s PID 1 on the host and
    `store_dir` the host directory holding outer[0]'s inner image store."""

    engine: str
    outer: list[str] = field(default_factory=list)
    outer_pid: int = 0
    worker: str = ""
    store_dir: Path | None = None

    @property
    def cli(self) -> CliEngine:
        return get_engine(self.engine)

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
        """Run argv inside the chain (see wrap); its stdout, or a Spanish ComandoFallido naming the level."""
        result = self.cli.call(self.wrap(argv, depth), timeout=timeout)
        if result.returncode != 0:
            level = len(self.outer if depth is None else self.outer[:depth]) + 1
            raise ComandoFallido(
                f"{self.cli.display} (nivel {level}) no pudo "
                f"{what or 'ejecutar ' + clip(' '.join(argv), 80)}: {short_error(result.stderr or result.stdout)}"
            )
        return result.stdout


def wait_inner_engine(chain: Chain, depth: int, timeout: float = 90) -> None:
    """Docker inside outer[depth-1]: wait until the inner daemon answers (Podman has no daemon)."""
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
