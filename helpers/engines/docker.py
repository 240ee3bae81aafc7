"""Docker: the CLI for what is timed, the docker SDK for lifecycle, inspection and clean-up."""

from __future__ import annotations

import getpass
import os
import shutil
from pathlib import Path

import docker
import psutil

from .. import cgroups, system
from . import runtimes
from .base import capture, image_summary
from .cli import CliEngine
from .labels import LABEL, LABEL_RUN


class Docker(CliEngine):
    name = "docker"

    def __init__(self):
        self._client = None

    def client(self):
        if self._client is None:
            self._client = docker.from_env(version="auto", timeout=60)
        return self._client

    def healthy(self, timeout=10.0):
        try:
            client = docker.APIClient(version="auto", timeout=timeout, **docker.utils.kwargs_from_env())
            client.ping()
            client.close()
            return True
        except Exception:  # noqa: BLE001 - any failure means "not answering"
            return False

    def forget(self):
        super().forget()
        self._client = None

    def check_availability(self):
        if not shutil.which("docker"):
            return False, "Docker no está instalado (no se encuentra el comando «docker»)."
        try:
            self.client().ping()
        except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
            if permission_denied(exc):
                return False, docker_permission_reason()
            return False, (
                "el cliente de Docker está, pero ningún daemon responde "
                f"(¿dockerd está corriendo?): {type(exc).__name__}."
            )
        return True, None

    def info(self):
        client = self.client()
        version = client.version()
        info = client.info()
        cli = capture(["docker", "version", "--format", "{{.Client.Version}}"])
        return {
            "engine": "docker",
            "server_version": version.get("Version"),
            "client_version": cli.stdout.strip() or None,
            "api_version": version.get("ApiVersion"),
            "runtime": info.get("DefaultRuntime"),
            "runtime_version": _runtime_version(info.get("DefaultRuntime")),
            "storage_driver": info.get("Driver"),
            "cgroup_driver": info.get("CgroupDriver"),
            "cgroup_version": cgroups.version_label(info.get("CgroupVersion")),  # "2" -> "v2", as Podman
            # Rootless Docker says so in its security options; a user in the docker group talks to a
            # daemon that runs as root (that is what makes the group equivalent to root).
            "rootless": any("rootless" in str(opt) for opt in info.get("SecurityOptions") or []),
            # seccomp, apparmor, selinux, userns... as the daemon reports them ("name=seccomp,profile=default")
            "security_options": [str(opt) for opt in info.get("SecurityOptions") or []],
            "network_backend": "bridge (docker0)",
        }

    def image_info(self, ref):
        try:
            attrs = self.client().images.get(ref).attrs
        except docker.errors.ImageNotFound:
            return None
        return image_summary(ref, attrs)

    def inspect_container(self, container: str) -> dict:
        return self.client().api.inspect_container(container)

    def inspect_many(self, containers):
        return [self.client().api.inspect_container(c) for c in containers]

    def daemon_processes(self):
        """The dockerd that serves this client's socket and its containerd. Other dockerd processes on
        the machine (a nested engine inside a container, a test daemon) are left out when the serving one
        can be told apart by its socket; if it cannot (no permission to look), every dockerd is listed."""
        daemons, containerds = system.processes_named("dockerd"), system.processes_named("containerd")
        serving = [p for p in daemons if self._socket_path() in unix_sockets(p)]
        if len(serving) == 1:
            others = {p.pid for p in daemons} - {serving[0].pid}
            daemons = serving
            containerds = [p for p in containerds if _ppid(p) not in others]
        return {"daemon": daemons, "containerd": containerds}

    @staticmethod
    def _socket_path() -> str:
        host = os.environ.get("DOCKER_HOST", "")
        path = host[len("unix://") :] if host.startswith("unix://") else "/var/run/docker.sock"
        return os.path.realpath(path)

    def runtime_availability(self, runtime):
        """A runtime is usable if the daemon lists it (a daemon the course started registers runsc; a
        system daemon's configuration is never edited) and, for runsc, the binary exists."""
        try:
            listed = self.client().info().get("Runtimes") or {}
        except Exception as exc:  # noqa: BLE001 - any failure means "cannot tell"
            return False, f"no pude preguntar a Docker por sus runtimes ({type(exc).__name__})."
        if runtime not in listed:
            return False, (
                f"el daemon de Docker no tiene registrado el runtime «{runtime}» (solo un daemon que "
                "arranca el curso lo registra; nunca se toca la configuración del sistema)."
            )
        if runtime == "runsc":
            path = (listed[runtime] or {}).get("path") or ""
            ok, why = runtimes.runsc_availability()
            if not ok:
                return False, why
            if path and not Path(path).exists():
                return False, f"Docker apunta a {path}, que no existe (ejecuta «make setup»)."
        return True, None

    def list_labelled(self, run_id=None):
        # The low-level call lists without inspecting each container, so one that vanishes
        # meanwhile (--rm, another clean-up) cannot make the listing fail.
        label = f"{LABEL_RUN}={run_id}" if run_id else LABEL
        return [c["Id"] for c in self.client().api.containers(all=True, filters={"label": label})]

    def course_containers(self):
        found = self.client().api.containers(all=True, filters={"label": LABEL})
        return [(c["Id"], c.get("Labels") or {}, c.get("Created")) for c in found]

    def remove_ids(self, ids):
        removed = 0
        for container_id in ids:
            try:
                self.client().api.remove_container(container_id, force=True)
                removed += 1
            except docker.errors.NotFound:
                pass
        return removed

    def cleanup(self, run_id):
        if not self.available:
            return 0
        removed = 0
        for container_id in self.list_labelled(run_id):
            try:
                self.client().api.remove_container(container_id, force=True)
                removed += 1
            except docker.errors.NotFound:
                pass  # --rm got there first
            except docker.errors.APIError as exc:
                if "already in progress" not in str(exc):
                    raise
        return removed


def permission_denied(exc: BaseException) -> bool:
    """True if this error (or one it wraps) is a refused connection to the socket for lack of permission."""
    seen = 0
    while exc is not None and seen < 6:
        if isinstance(exc, PermissionError) or "Permission denied" in str(exc):
            return True
        exc = (
            exc.__cause__
            or exc.__context__
            or (exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None)
        )
        seen += 1
    return False


def docker_permission_reason(socket: str = "/var/run/docker.sock") -> str:
    """Spanish: Docker answers only root and the docker group, and what an administrator can do."""
    user = getpass.getuser()
    return (
        f"el daemon de Docker está, pero «{user}» no tiene permiso para usar su socket ({socket}): "
        "solo root y el grupo «docker» pueden. Un administrador puede añadirte con "
        f"«sudo usermod -aG docker {user}» (y vuelves a iniciar sesión); ojo, ese grupo equivale a "
        "ser root en la máquina."
    )


def unix_sockets(proc: psutil.Process) -> set[str]:
    """Paths of the unix sockets a process has bound (real paths); empty if it cannot be read."""
    try:
        listing = getattr(proc, "net_connections", None) or proc.connections  # psutil < 6 has only the latter
        return {os.path.realpath(c.laddr) for c in listing(kind="unix") if c.laddr}
    except (psutil.Error, OSError):
        return set()


def _ppid(proc: psutil.Process) -> int | None:
    try:
        return proc.ppid()
    except psutil.Error:
        return None


def _runtime_version(runtime: str | None) -> str | None:
    if not runtime or not shutil.which(runtime):
        return None
    result = capture([runtime, "--version"])
    return result.stdout.splitlines()[0] if result.returncode == 0 and result.stdout else None
