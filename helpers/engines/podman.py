"""Podman: daemonless, driven by its CLI; the containers.conf workaround applied only where needed."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from .. import system
from ..paths import CACHE_DIR, PROJECT_STATE_DIR
from . import runtimes
from .base import capture, image_summary
from .cli import CliEngine
from .labels import LABEL, LABEL_RUN, label_args

PODMAN_WORKAROUND_CONF = """\
# Written by the course helpers (helpers/engines/podman.py). See ../shared/notes/machine.md:
# on this kernel runc refuses to raise NOFILE/NPROC, and crun refuses hybrid cgroups.
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
"""
_WORKAROUND_ERRORS = ("error setting rlimit", "cgroups in hybrid mode", "rlimit type")


class Podman(CliEngine):
    name = "podman"

    @property
    def display(self) -> str:
        """«Podman sin root» when it runs rootless: a different engine in network and storage."""
        return "Podman sin root" if self.rootless else "Podman"

    @property
    def rootless(self) -> bool:
        # Podman run by a user other than root is rootless (there is no daemon to reach instead).
        return not system.is_root()

    def __init__(self):
        self._workaround: bool | None = None

    def healthy(self, timeout=10.0):
        try:
            return (
                capture(
                    ["podman", "version", "--format", "{{.Client.Version}}"],
                    env=self._base_env(),
                    timeout=timeout,
                ).returncode
                == 0
            )
        except subprocess.TimeoutExpired:
            return False

    def check_availability(self):
        if not shutil.which("podman"):
            return False, "Podman no está instalado (no se encuentra el comando «podman»)."
        try:
            result = capture(["podman", "info", "--format", "json"], env=self._base_env(), timeout=60)
        except subprocess.TimeoutExpired:
            return False, "Podman no respondió a «podman info» en 60 s."
        if result.returncode != 0:
            return False, f"«podman info» falló: {result.stderr.strip()[-300:]}"
        return True, None

    # -- the containers.conf workaround, applied only where this host needs it
    def _base_env(self) -> dict:
        env = dict(os.environ)
        if env.get("CONTAINERS_CONF") == str(self.conf_path()):
            env.pop("CONTAINERS_CONF")
        return env

    @staticmethod
    def conf_path() -> Path:
        """Inside the project (git-ignored .curso/), never in the user's home: the file is the course's."""
        return PROJECT_STATE_DIR / "podman" / "containers.conf"

    def _state_path(self) -> Path:
        return CACHE_DIR / "podman" / "state.json"

    def _state_key(self) -> str:
        version = capture(["podman", "--version"]).stdout.strip()
        return f"{platform.release()}|{version}"

    def needs_workaround(self) -> bool:
        """Decided once per host (kernel + podman version) by a real probe, then cached on disk."""
        if self._workaround is None:
            state = self._state_path()
            key = self._state_key()
            try:
                cached = json.loads(state.read_text())
                if cached.get("key") == key:
                    self._workaround = bool(cached["workaround"])
            except (OSError, ValueError, KeyError):
                pass
        if self._workaround is None:
            decided = self.probe_workaround()
            if decided is None:
                return False  # nothing to probe with yet; decide later
            self._workaround = decided
        return self._workaround

    def probe_workaround(self, image: str | None = None) -> bool | None:
        """Run a trivial container with the default configuration. If it fails with the known rlimit
        or hybrid-cgroup error and succeeds with the workaround, the workaround is needed."""
        image = image or self._any_local_image()
        if image is None:
            return None
        argv = ["podman", "run", "--rm", "--network", "none"] + label_args(None) + [image, "true"]
        plain = capture(argv, env=self._base_env(), timeout=120)
        if plain.returncode == 0:
            decided = False
        elif any(marker in plain.stderr for marker in _WORKAROUND_ERRORS):
            self._write_conf()
            fixed = capture(argv, env=self._workaround_env(), timeout=120)
            decided = fixed.returncode == 0
        else:
            decided = False
        self._workaround = decided
        state = self._state_path()
        state.parent.mkdir(parents=True, exist_ok=True)
        state.write_text(json.dumps({"key": self._state_key(), "workaround": decided}))
        return decided

    def _any_local_image(self) -> str | None:
        result = capture(["podman", "images", "--format", "{{.ID}}"], env=self._base_env())
        ids = result.stdout.split()
        return ids[0] if result.returncode == 0 and ids else None

    def _write_conf(self) -> Path:
        path = self.conf_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != PODMAN_WORKAROUND_CONF:
            path.write_text(PODMAN_WORKAROUND_CONF)
        return path

    def _workaround_env(self) -> dict:
        env = self._base_env()
        env["CONTAINERS_CONF"] = str(self._write_conf())
        return env

    def env(self):
        return self._workaround_env() if self.needs_workaround() else self._base_env()

    def workarounds(self):
        if self.available and self.needs_workaround():
            return [f"CONTAINERS_CONF={self.conf_path()} (default_ulimits nofile/nproc=1024, runtime=runc)"]
        return []

    # -- commands
    def _json(self, argv: Sequence[str]):
        result = capture(argv, env=self.env(), timeout=120)
        if result.returncode != 0:
            return None
        return json.loads(result.stdout or "null")

    def info(self):
        data = self._json(["podman", "info", "--format", "json"]) or {}
        host, store = data.get("host", {}), data.get("store", {})
        runtime = host.get("ociRuntime", {})
        return {
            "engine": "podman",
            "server_version": (data.get("version") or {}).get("Version"),
            "client_version": (data.get("version") or {}).get("Version"),
            "api_version": (data.get("version") or {}).get("APIVersion"),
            "runtime": runtime.get("name"),
            "runtime_version": (runtime.get("version") or "").splitlines()[0]
            if runtime.get("version")
            else None,
            "storage_driver": store.get("graphDriverName"),
            "cgroup_driver": host.get("cgroupManager"),
            "cgroup_version": host.get("cgroupVersion"),
            "workarounds": self.workarounds(),
            **podman_mode(data),
        }

    def image_info(self, ref):
        data = self._json(["podman", "image", "inspect", ref])
        if not data:
            return None
        return image_summary(ref, data[0])

    def inspect_container(self, container: str) -> dict:
        data = self._json(["podman", "inspect", container])
        return data[0] if data else {}

    def runtime_availability(self, runtime):
        if runtime == "runsc":
            return runtimes.runsc_availability()
        return (True, None) if shutil.which(runtime) else (False, f"no se encuentra «{runtime}».")

    def runtime_args(self, runtime):
        """Podman takes the runtime's path (no daemon to register it in)."""
        super().runtime_args(runtime)  # raises if unavailable
        path = runtimes.runsc_path() if runtime == "runsc" else shutil.which(runtime)
        return ["--runtime", str(path)]

    def list_labelled(self, run_id=None):
        label = f"{LABEL_RUN}={run_id}" if run_id else LABEL
        result = capture(["podman", "ps", "-aq", "--filter", f"label={label}"], env=self.env())
        return result.stdout.split() if result.returncode == 0 else []

    def course_containers(self):
        result = capture(
            ["podman", "ps", "-a", "--filter", f"label={LABEL}", "--format", "json"], env=self.env()
        )
        if result.returncode != 0:
            return []
        return [
            (c.get("Id", ""), c.get("Labels") or {}, c.get("Created"))
            for c in json.loads(result.stdout or "[]")
        ]

    def remove_ids(self, ids):
        if ids:
            capture(["podman", "rm", "-f", "-t", "0", *ids], env=self.env(), timeout=300)
        return len(ids)

    def cleanup(self, run_id):
        if not self.available:
            return 0
        ids = self.list_labelled(run_id)
        if ids:
            # -t 0: a PID 1 that ignores SIGTERM (sleep) would otherwise cost the full 10 s timeout.
            capture(["podman", "rm", "-f", "-t", "0"] + ids, env=self.env(), timeout=300)
        return len(ids)


def podman_mode(data: dict) -> dict:
    """Rootful or rootless, and what that changes, from `podman info --format json`.

    Without root Podman runs in a user namespace: its network goes through a user-space TCP/IP stack
    (slirp4netns, or pasta from Podman 5 on) instead of a bridge, and its storage is the user's own
    (vfs, fuse-overlayfs, or the kernel's overlay inside a user namespace)."""
    host, store = data.get("host") or {}, data.get("store") or {}
    rootless = bool((host.get("security") or {}).get("rootless"))
    major = str((data.get("version") or {}).get("Version") or "0").split(".")[0]
    if not rootless:
        network = host.get("networkBackend") or "cni"
    elif (host.get("pasta") or {}).get("executable") and major.isdigit() and int(major) >= 5:
        network = "pasta"
    elif (host.get("slirp4netns") or {}).get("executable"):
        network = "slirp4netns"
    else:
        network = "desconocida"
    driver = store.get("graphDriverName") or "?"
    options = store.get("graphOptions") or {}
    status = store.get("graphStatus") or {}
    if driver == "overlay":
        mount_program = next(
            (
                str(v.get("Executable", v) if isinstance(v, dict) else v)
                for k, v in options.items()
                if "mount_program" in k
            ),
            "",
        )
        if "fuse-overlayfs" in mount_program:
            storage = "overlay con fuse-overlayfs"
        elif rootless:
            storage = "overlay nativo del kernel (en un espacio de usuarios)"
        else:
            storage = "overlay nativo del kernel"
    elif driver == "vfs":
        storage = "vfs (copia completa de la imagen por contenedor)"
    else:
        storage = driver
    return {
        "rootless": rootless,
        "network_backend": network,
        "network_stack": host.get("networkBackend"),
        "storage": storage,
        "storage_backing": status.get("Backing Filesystem"),
    }
