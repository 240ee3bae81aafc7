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
root filesystem exported once, to chroot into or to build a bundle on), nested (engines inside
containers: a chain of `exec`s, one per level) and a single-node Kubernetes cluster: kubernetes (its
lifecycle), kubernetes_config (the files it reads), kubernetes_host (what it changes on the host, the
teardown and the reaping of a dead run's cluster) and kubernetes_build (built once by `make setup`).
The package exports what experiments and the course use; tests and the rest import the defining module.
"""

from __future__ import annotations

from .base import CONTAINER_ENGINES, DISPLAY, Container, Engine, RunOptions
from .cleanup import cleanup_all, reap_orphans
from .labels import labels_for, register_run
from .registry import get_engine, reset_cache

__all__ = [
    "CONTAINER_ENGINES",
    "DISPLAY",
    "Container",
    "Engine",
    "RunOptions",
    "cleanup_all",
    "get_engine",
    "labels_for",
    "reap_orphans",
    "register_run",
    "reset_cache",
]
