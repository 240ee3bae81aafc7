"""Engines behind one small interface: bare metal, Docker and Podman.

Each engine answers "are you available, and if not, why?" in one Spanish sentence, builds the command
line a student would type (the CLI is what experiments time), and does every other thing experiments
need from an engine: create, start, exec, inspect, export a rootfs, stats, remove, find its helper
processes (shim / conmon) and its daemon, publish a port (always on 127.0.0.1) and pick an OCI runtime.
Experiments never build `docker`/`podman` command lines themselves: they call these verbs.
Docker inspection and clean-up go through the docker SDK; Podman through its CLI.

One job per module: base (the interface, RunOptions, Container), bare, cli (what Docker and Podman
share), docker, podman, labels (the labels of every course container, built in one place, and who owns
one), registry (get_engine; install/substituted for tests), cleanup (a run's containers, orphans),
runtimes (gVisor's runsc), oci (bundles run by an OCI runtime without an engine), rootfs (an image's
root filesystem exported once, to chroot into or to build a bundle on) and nested (engines inside
containers: a chain of `exec`s, one per level).
"""

from __future__ import annotations

from ..paths import CACHE_DIR, PROJECT_STATE_DIR
from .bare import BareMetal
from .base import (
    CLI_TIMEOUT,
    CONTAINER_ENGINES,
    DISPLAY,
    ENGINE_NAMES,
    LOOPBACK,
    Container,
    Engine,
    RunOptions,
)
from .cleanup import cleanup_all, reap_orphans
from .cli import CliEngine
from .docker import Docker, _permission_denied, _unix_sockets, docker_permission_reason
from .labels import (
    LABEL,
    LABEL_BOOT,
    LABEL_DIR,
    LABEL_PID,
    LABEL_PID_START,
    LABEL_RUN,
    _start_time,
    boot_id,
    labels_for,
    orphan_reason,
    register_run,
)
from .podman import PODMAN_WORKAROUND_CONF, Podman, podman_mode
from .registry import get_engine, install, reset_cache, substituted

__all__ = [
    "CACHE_DIR",
    "CLI_TIMEOUT",
    "CONTAINER_ENGINES",
    "DISPLAY",
    "ENGINE_NAMES",
    "LABEL",
    "LABEL_BOOT",
    "LABEL_DIR",
    "LABEL_PID",
    "LABEL_PID_START",
    "LABEL_RUN",
    "LOOPBACK",
    "PODMAN_WORKAROUND_CONF",
    "PROJECT_STATE_DIR",
    "BareMetal",
    "CliEngine",
    "Container",
    "Docker",
    "Engine",
    "Podman",
    "RunOptions",
    "_permission_denied",
    "_start_time",
    "_unix_sockets",
    "boot_id",
    "cleanup_all",
    "docker_permission_reason",
    "get_engine",
    "install",
    "labels_for",
    "orphan_reason",
    "podman_mode",
    "reap_orphans",
    "register_run",
    "reset_cache",
    "substituted",
]
