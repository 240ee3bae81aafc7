"""Engines behind one small interface: bare metal, Docker and Podman.

Each engine answers "are you available, and if not, why?" in one Spanish sentence, builds the command
line a student would type (the CLI is what experiments time), and does every other thing experiments
need from an engine: create, start, exec, inspect, export a rootfs, stats, remove, find its helper
processes (shim / conmon) and its daemon, publish a port (always on 127.0.0.1) and pick an OCI runtime.
Experiments never build `docker`/`podman` command lines themselves: they call these verbs.
Docker inspection and clean-up go through the docker SDK; Podman through its CLI.

Every container created by the course carries the labels built by `labels_for` (one place).
"""

from __future__ import annotations

import functools
import json
import os
import platform
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from .errors import ComandoFallido, ErrorDelCurso, summarize_engine_error

LABEL = "curso-contenedores"
LABEL_RUN = "curso-contenedores.run"
ENGINE_NAMES = ("bare", "docker", "podman")
CONTAINER_ENGINES = ("docker", "podman")
# How every table and sentence names an engine (view.common.ENGINE_LABEL is this same dict). "qemu" is
# the VM arm of 08_sistema_vs_vm: not an engine of this module, but named in the same tables.
DISPLAY = {"bare": "bare metal", "docker": "Docker", "podman": "Podman", "qemu": "QEMU"}

CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "curso-contenedores"
# Files the course writes for itself (the Podman containers.conf): inside the project, git-ignored.
PROJECT_STATE_DIR = Path(__file__).resolve().parent.parent / ".curso"

PODMAN_WORKAROUND_CONF = """\
# Written by the course helpers (helpers/engines.py). See ../shared/notes/machine.md:
# on this kernel runc refuses to raise NOFILE/NPROC, and crun refuses hybrid cgroups.
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
"""
_WORKAROUND_ERRORS = ("error setting rlimit", "cgroups in hybrid mode", "rlimit type")


LOOPBACK = "127.0.0.1"
CLI_TIMEOUT = 120  # seconds; no engine call may wait forever


@dataclass
class RunOptions:
    """What a container needs beyond image and command; each engine turns it into its own flags.

    publish: (host_port, container_port) pairs, always bound to 127.0.0.1.
    runtime: None (the engine's default) or an OCI runtime name such as "runsc".
    volumes: (host_path, container_path, mode) triples, mode "ro" or "rw".
    privileged: only the nested arms of the nesting experiment may set it.
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


LABEL_PID = "curso-contenedores.pid"  # the process that owns the run (a kernel, a terminal)
LABEL_PID_START = "curso-contenedores.inicio"  # its start time: a reused pid is not the owner
LABEL_BOOT = "curso-contenedores.arranque"  # this boot: after a reboot no owner is alive
LABEL_DIR = "curso-contenedores.dir"  # the run folder: its meta.json says if the run still runs
_RUN_DIRS: dict[str, str] = {}


def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "desconocido"


def _start_time(pid: int) -> str | None:
    try:
        return f"{psutil.Process(pid).create_time():.2f}"
    except psutil.Error:
        return None


def register_run(run_id: str, run_dir: Path | str) -> None:
    """Remember where a run lives, so its containers carry the folder in a label."""
    _RUN_DIRS[run_id] = str(run_dir)


def _changed_fields(opts: RunOptions) -> list[str]:
    """The RunOptions fields that differ from their defaults."""
    default = RunOptions()
    return [name for name in RunOptions.__dataclass_fields__ if getattr(opts, name) != getattr(default, name)]


def labels_for(run_id: str | None) -> dict[str, str]:
    """Every label a course container carries (built here and nowhere else): the course mark, the run,
    and who owns it (process, its start time, this boot, the run folder), so that a later run can tell
    a live run's container from an orphan."""
    labels = {LABEL: "1"}
    if run_id:
        labels[LABEL_RUN] = run_id
    labels[LABEL_PID] = str(os.getpid())
    labels[LABEL_PID_START] = _start_time(os.getpid()) or ""
    labels[LABEL_BOOT] = boot_id()
    if run_id and run_id in _RUN_DIRS:
        labels[LABEL_DIR] = _RUN_DIRS[run_id]
    return labels


def orphan_reason(
    labels: dict, *, created: float | None = None, now: float | None = None, legacy_age: float = 6 * 3600
) -> str | None:
    """Why a course container is an orphan (Spanish), or None if its run may still be alive.

    Orphan: made in another boot; its owner process is gone (or the pid now belongs to another
    process); or its run has ended (meta.json no longer says "running") while the owner lives on, as
    when the engine died mid-run and came back. A container from before owner labels existed counts
    as an orphan only when it is older than `legacy_age`."""
    if LABEL_PID not in labels:
        if created is not None and (now or time.time()) - created > legacy_age:
            return "es de una versión anterior del curso y tiene más de 6 horas"
        return None
    if labels.get(LABEL_BOOT) and labels[LABEL_BOOT] != boot_id():
        return "se creó antes del último arranque de la máquina"
    pid = int(labels.get(LABEL_PID) or 0)
    started = _start_time(pid) if pid > 0 else None
    if started is None or (labels.get(LABEL_PID_START) and started != labels[LABEL_PID_START]):
        return f"su proceso dueño (pid {pid}) ya no existe"
    run_dir = labels.get(LABEL_DIR)
    if run_dir:
        try:
            status = json.loads((Path(run_dir) / "meta.json").read_text()).get("status")
        except (OSError, ValueError):
            status = None
        if status not in (None, "running"):
            return f"su corrida ya terminó (estado «{status}»)"
    return None


def _label_args(run_id: str | None) -> list[str]:
    args: list[str] = []
    for key, value in labels_for(run_id).items():
        args += ["--label", f"{key}={value}"]
    return args


def _run(argv: Sequence[str], env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), capture_output=True, text=True, env=env, timeout=timeout)


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


class BareMetal(Engine):
    name = "bare"
    is_container = False

    def availability(self):
        return True, None

    def run_argv(self, image, command, *, run_id=None, name=None, remove=True, detach=False, extra=()):
        return list(command)

    def exec_argv(self, container, command):
        return list(command)

    def info(self):
        return {"engine": "bare", "note": "proceso normal del host, sin contenedor"}


class CliEngine(Engine):
    """An engine driven by a docker-compatible CLI named like the engine (docker, podman)."""

    def runtime_args(self, runtime: str) -> list[str]:
        """Flags that select an OCI runtime; raises ErrorDelCurso (Spanish) if it is not available."""
        ok, why = self.runtime_availability(runtime)
        if not ok:
            raise ErrorDelCurso(f"{self.display} no puede usar el runtime «{runtime}»: {why}")
        return ["--runtime", runtime]

    def runtime_availability(self, runtime: str) -> tuple[bool, str | None]:
        return False, "este motor no admite elegir el runtime."

    def option_args(self, opts: RunOptions | None) -> list[str]:
        """Flags for RunOptions; the same spelling for docker and podman."""
        if opts is None:
            return []
        args: list[str] = []
        if opts.network:
            args += ["--network", opts.network]
        for host_port, container_port in opts.publish:
            args += ["-p", f"{LOOPBACK}:{int(host_port)}:{int(container_port)}"]
        if opts.runtime:
            args += self.runtime_args(opts.runtime)
        for item in opts.security_opt:
            args += ["--security-opt", item]
        if opts.privileged:
            args.append("--privileged")
        for cap in opts.cap_add:
            args += ["--cap-add", cap]
        for device in opts.devices:
            args += ["--device", device]
        for host, inside, mode in opts.volumes:
            args += ["-v", f"{host}:{inside}:{mode}" if mode else f"{host}:{inside}"]
        if opts.cpuset is not None:
            args += ["--cpuset-cpus", str(opts.cpuset)]
        for key, value in opts.env.items():
            args += ["-e", f"{key}={value}"]
        if opts.init:
            args.append("--init")
        if opts.stop_timeout is not None:
            args += ["--stop-timeout", str(opts.stop_timeout)]
        for path in opts.tmpfs:
            args += ["--tmpfs", path]
        return args + list(opts.extra)

    def run_argv(self, image, command, *, run_id, name=None, remove=True, detach=False, opts=None, extra=()):
        argv = [self.name, "run"]
        if remove:
            argv.append("--rm")
        if detach:
            argv.append("-d")
        if name:
            argv += ["--name", name]
        argv += _label_args(run_id) + self.option_args(opts) + list(extra) + [image] + list(command)
        return argv

    def create_argv(
        self,
        image: str,
        command: Sequence[str],
        *,
        run_id: str | None,
        name: str | None = None,
        opts: RunOptions | None = None,
    ) -> list[str]:
        argv = [self.name, "create"] + (["--name", name] if name else [])
        return argv + _label_args(run_id) + self.option_args(opts) + [image] + list(command)

    def start_argv(self, container: str, *, attach: bool = False) -> list[str]:
        return [self.name, "start"] + (["-a"] if attach else []) + [container]

    def exec_argv(self, container, command):
        return [self.name, "exec", container] + list(command)

    def rm_argv(self, containers: Sequence[str]) -> list[str]:
        return [self.name, "rm", "-f", *containers]

    def wait_argv(self, container: str) -> list[str]:
        """`wait`: block until the container stops (prints its exit code)."""
        return [self.name, "wait", container]

    # -- verbs built on the CLI
    def launch(
        self, image: str, command: Sequence[str], *, run_id: str, name: str, opts: RunOptions | None = None
    ) -> Container:
        """Start a detached container and return it inspected (pid, cgroup, labels, helper)."""
        self.call(
            self.run_argv(image, command, run_id=run_id, name=name, remove=False, detach=True, opts=opts),
            check=True,
            what=f"arrancar el contenedor {name}",
        )
        return self.container(name)

    def create(
        self, image: str, command: Sequence[str], *, run_id: str, name: str, opts: RunOptions | None = None
    ) -> str:
        """Create (not start) a container; returns its id."""
        result = self.call(
            self.create_argv(image, command, run_id=run_id, name=name, opts=opts),
            check=True,
            what=f"crear el contenedor {name}",
        )
        return result.stdout.strip().splitlines()[-1]

    def start(self, container: str) -> None:
        self.call(self.start_argv(container), check=True, what=f"arrancar el contenedor {container}")

    def remove(self, containers: Sequence[str]) -> None:
        if containers:
            self.call(self.rm_argv(containers), timeout=300)

    def inspect_many(self, containers: Sequence[str]) -> list[dict]:
        result = self.call([self.name, "inspect", *containers], check=True, what="inspeccionar contenedores")
        return json.loads(result.stdout or "[]")

    def container(self, name: str) -> Container:
        return self.describe(self.inspect_many([name])[0])

    def writable_layer_bytes(self, container: str) -> int:
        """Bytes the container has written to its own writable layer (`container inspect --size`, SizeRw)."""
        result = self.call(
            [self.name, "container", "inspect", "--size", "--format", "{{.SizeRw}}", container],
            check=True,
            what=f"medir la capa escribible de {container}",
        )
        text = result.stdout.strip()
        return int(text) if text.lstrip("-").isdigit() else 0

    def describe(self, data: dict) -> Container:
        """A Container from inspect data. Podman names its conmon in State.ConmonPid; Docker's shim is
        the parent of the container's PID 1."""
        from . import cgroups

        state = data.get("State") or {}
        pid = int(state.get("Pid") or 0)
        helper = state.get("ConmonPid") or None
        if not helper and pid > 0:
            try:
                helper = psutil.Process(pid).ppid()
            except psutil.Error:
                helper = None
        labels = (data.get("Config") or {}).get("Labels") or {}
        return Container(
            self.name,
            data.get("Id", ""),
            (data.get("Name") or "").lstrip("/"),
            pid,
            cgroups.cgroup_from_inspect(data),
            dict(labels),
            helper or None,
        )

    def is_running(self, container: str) -> bool:
        result = self.call([self.name, "inspect", "--format", "{{.State.Running}}", container], timeout=60)
        return result.returncode == 0 and result.stdout.strip() == "true"

    def helper_process(self, container: Container) -> psutil.Process | None:
        """The per-container helper: Docker's containerd shim, Podman's conmon."""
        try:
            return psutil.Process(container.helper_pid) if container.helper_pid else None
        except psutil.Error:
            return None

    def daemon_processes(self) -> dict[str, list[psutil.Process]]:
        """The engine's long-lived processes, by role ({} for a daemonless engine)."""
        return {}

    def stats(self, containers: Sequence[str]) -> tuple[float, list[str]]:
        """Time `stats --no-stream` for these containers: (seconds, the memory column of each line)."""
        argv = [self.name, "stats", "--no-stream", "--format", "{{.Name}}\t{{.MemUsage}}", *containers]
        start = time.perf_counter_ns()
        result = self.call(argv, timeout=300, check=True, what="leer «stats»")
        elapsed = (time.perf_counter_ns() - start) / 1e9
        usage = [line.split("\t", 1)[1] for line in result.stdout.splitlines() if "\t" in line]
        return elapsed, usage

    def export_rootfs(self, image: str, dest: Path, *, run_id: str) -> Path:
        """The image's root filesystem, unpacked into dest (`create` + `export` + tar)."""
        cid = self.create(
            image, ["true"], run_id=run_id, name=f"curso-exportar-{run_id.lower()}-{os.getpid()}"
        )
        try:
            dest.mkdir(parents=True, exist_ok=True)
            exporter = subprocess.Popen([self.name, "export", cid], stdout=subprocess.PIPE, env=self.env())
            untar = subprocess.run(
                ["tar", "-x", "-C", str(dest), "--numeric-owner"],
                stdin=exporter.stdout,
                capture_output=True,
                text=True,
            )
            exporter.stdout.close()
            if exporter.wait(timeout=CLI_TIMEOUT) != 0 or untar.returncode != 0:
                raise ComandoFallido(
                    f"No pude exportar {image} desde {self.display}: {untar.stderr.strip()[-300:]}"
                )
        finally:
            self.remove([cid])
        return dest

    def save_image(self, image: str, dest: Path | str) -> Path:
        """`save` an image into a tarball another engine of the same kind can `load` (written under a
        temporary name, then renamed, so a half-written tarball is never taken for a good one)."""
        dest = Path(dest)
        partial = dest.with_name(dest.name + ".parcial")
        try:
            self.call(
                [self.name, "save", "-o", str(partial), image],
                timeout=600,
                check=True,
                what=f"guardar {image} en {dest.name}",
            )
            partial.replace(dest)
        finally:
            partial.unlink(missing_ok=True)
        return dest


class Docker(CliEngine):
    name = "docker"

    def __init__(self):
        self._client = None
        self._avail: tuple[bool, str | None] | None = None

    def client(self):
        if self._client is None:
            import docker  # the docker SDK

            self._client = docker.from_env(version="auto", timeout=60)
        return self._client

    def availability(self):
        if self._avail is None:
            self._avail = self._check()
        return self._avail

    def healthy(self, timeout=10.0):
        import docker

        try:
            client = docker.APIClient(version="auto", timeout=timeout, **docker.utils.kwargs_from_env())
            client.ping()
            client.close()
            return True
        except Exception:  # noqa: BLE001 - any failure means "not answering"
            return False

    def forget(self):
        self._avail, self._client = None, None

    def _check(self):
        if not shutil.which("docker"):
            return False, "Docker no está instalado (no se encuentra el comando «docker»)."
        try:
            self.client().ping()
        except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
            if _permission_denied(exc):
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
        cli = _run(["docker", "version", "--format", "{{.Client.Version}}"])
        return {
            "engine": "docker",
            "server_version": version.get("Version"),
            "client_version": cli.stdout.strip() or None,
            "api_version": version.get("ApiVersion"),
            "runtime": info.get("DefaultRuntime"),
            "runtime_version": _runtime_version(info.get("DefaultRuntime")),
            "storage_driver": info.get("Driver"),
            "cgroup_driver": info.get("CgroupDriver"),
            "cgroup_version": info.get("CgroupVersion"),
            # Rootless Docker says so in its security options; a user in the docker group talks to a
            # daemon that runs as root (that is what makes the group equivalent to root).
            "rootless": any("rootless" in str(opt) for opt in info.get("SecurityOptions") or []),
            "network_backend": "bridge (docker0)",
        }

    def image_info(self, ref):
        import docker

        try:
            attrs = self.client().images.get(ref).attrs
        except docker.errors.ImageNotFound:
            return None
        return {
            "name": ref,
            "id": attrs.get("Id"),
            "size_bytes": attrs.get("Size"),
            "tags": attrs.get("RepoTags") or [],
        }

    def inspect_container(self, container: str) -> dict:
        return self.client().api.inspect_container(container)

    # -- the lifecycle through the SDK's low-level API (what the docker CLI itself calls), one call each,
    # so an experiment can time the phases of a `docker run` apart.
    def api_create(
        self,
        image: str,
        command: Sequence[str],
        *,
        run_id: str | None,
        name: str | None = None,
        opts: RunOptions | None = None,
    ) -> str:
        """POST /containers/create with the course's labels; returns the id. Of RunOptions, only
        `network` is supported here (a Spanish error for any other)."""
        if opts is not None and set(_changed_fields(opts)) - {"network"}:
            raise ErrorDelCurso(
                "La creación por la API de Docker solo admite la opción de red de RunOptions."
            )
        api = self.client().api
        host_config = api.create_host_config(network_mode=opts.network) if opts and opts.network else None
        created = api.create_container(
            image, list(command), name=name, labels=labels_for(run_id), host_config=host_config
        )
        return created["Id"]

    def api_start(self, container: str) -> None:
        self.client().api.start(container)

    def api_wait(self, container: str, timeout: float = CLI_TIMEOUT) -> int:
        """Block until the container stops; returns its exit code."""
        return int(self.client().api.wait(container, timeout=timeout).get("StatusCode", -1))

    def api_remove(self, container: str) -> None:
        self.client().api.remove_container(container, force=True)

    def inspect_many(self, containers):
        return [self.client().api.inspect_container(c) for c in containers]

    def daemon_processes(self):
        """The dockerd that serves this client's socket and its containerd. Other dockerd processes on
        the machine (a nested engine inside a container, a test daemon) are left out when the serving one
        can be told apart by its socket; if it cannot (no permission to look), every dockerd is listed."""
        from . import system

        daemons, containerds = system.processes_named("dockerd"), system.processes_named("containerd")
        serving = [p for p in daemons if self._socket_path() in _unix_sockets(p)]
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
        from . import runtimes

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
        import docker

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
        import docker

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


class Podman(CliEngine):
    name = "podman"

    @property
    def display(self) -> str:
        """«Podman sin root» when it runs rootless: a different engine in network and storage."""
        return "Podman sin root" if self.rootless else "Podman"

    @property
    def rootless(self) -> bool:
        # Podman run by a user other than root is rootless (there is no daemon to reach instead).
        from . import system

        return not system.is_root()

    def __init__(self):
        self._avail: tuple[bool, str | None] | None = None
        self._workaround: bool | None = None

    def availability(self):
        if self._avail is None:
            self._avail = self._check()
        return self._avail

    def healthy(self, timeout=10.0):
        try:
            return (
                _run(
                    ["podman", "version", "--format", "{{.Client.Version}}"],
                    env=self._base_env(),
                    timeout=timeout,
                ).returncode
                == 0
            )
        except subprocess.TimeoutExpired:
            return False

    def forget(self):
        self._avail = None

    def _check(self):
        if not shutil.which("podman"):
            return False, "Podman no está instalado (no se encuentra el comando «podman»)."
        try:
            result = _run(["podman", "info", "--format", "json"], env=self._base_env(), timeout=60)
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
        version = _run(["podman", "--version"]).stdout.strip()
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
        argv = ["podman", "run", "--rm", "--network", "none"] + _label_args(None) + [image, "true"]
        plain = _run(argv, env=self._base_env(), timeout=120)
        if plain.returncode == 0:
            decided = False
        elif any(marker in plain.stderr for marker in _WORKAROUND_ERRORS):
            self._write_conf()
            fixed = _run(argv, env=self._workaround_env(), timeout=120)
            decided = fixed.returncode == 0
        else:
            decided = False
        self._workaround = decided
        state = self._state_path()
        state.parent.mkdir(parents=True, exist_ok=True)
        state.write_text(json.dumps({"key": self._state_key(), "workaround": decided}))
        return decided

    def _any_local_image(self) -> str | None:
        result = _run(["podman", "images", "--format", "{{.ID}}"], env=self._base_env())
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
        result = _run(argv, env=self.env(), timeout=120)
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
        attrs = data[0]
        return {
            "name": ref,
            "id": attrs.get("Id"),
            "size_bytes": attrs.get("Size"),
            "tags": attrs.get("RepoTags") or [],
        }

    def inspect_container(self, container: str) -> dict:
        data = self._json(["podman", "inspect", container])
        return data[0] if data else {}

    def runtime_availability(self, runtime):
        from . import runtimes

        if runtime == "runsc":
            return runtimes.runsc_availability()
        return (True, None) if shutil.which(runtime) else (False, f"no se encuentra «{runtime}».")

    def runtime_args(self, runtime):
        """Podman takes the runtime's path (no daemon to register it in)."""
        from . import runtimes

        super().runtime_args(runtime)  # raises if unavailable
        path = runtimes.runsc_path() if runtime == "runsc" else shutil.which(runtime)
        return ["--runtime", str(path)]

    def list_labelled(self, run_id=None):
        label = f"{LABEL_RUN}={run_id}" if run_id else LABEL
        result = _run(["podman", "ps", "-aq", "--filter", f"label={label}"], env=self.env())
        return result.stdout.split() if result.returncode == 0 else []

    def course_containers(self):
        result = _run(
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
            _run(["podman", "rm", "-f", "-t", "0", *ids], env=self.env(), timeout=300)
        return len(ids)

    def cleanup(self, run_id):
        if not self.available:
            return 0
        ids = self.list_labelled(run_id)
        if ids:
            # -t 0: a PID 1 that ignores SIGTERM (sleep) would otherwise cost the full 10 s timeout.
            _run(["podman", "rm", "-f", "-t", "0"] + ids, env=self.env(), timeout=300)
        return len(ids)


def _permission_denied(exc: BaseException) -> bool:
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
    import getpass

    user = getpass.getuser()
    return (
        f"el daemon de Docker está, pero «{user}» no tiene permiso para usar su socket ({socket}): "
        "solo root y el grupo «docker» pueden. Un administrador puede añadirte con "
        f"«sudo usermod -aG docker {user}» (y vuelves a iniciar sesión); ojo, ese grupo equivale a "
        "ser root en la máquina."
    )


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


def _unix_sockets(proc: psutil.Process) -> set[str]:
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
    result = _run([runtime, "--version"])
    return result.stdout.splitlines()[0] if result.returncode == 0 and result.stdout else None


_FACTORIES = {"bare": BareMetal, "docker": Docker, "podman": Podman}


@functools.cache
def get_engine(name: str) -> Engine:
    """One shared adapter per engine name ("bare", "docker", "podman")."""
    return _FACTORIES[name]()


def reset_cache() -> None:
    get_engine.cache_clear()


def cleanup_all(run_id: str | None, engines: Sequence[str] = CONTAINER_ENGINES) -> dict[str, int]:
    """Remove one run's containers (every course container if run_id is None, explicitly) on every
    available engine; never raises."""
    removed = {}
    for name in engines:
        try:
            removed[name] = get_engine(name).cleanup(run_id)
        except Exception:  # noqa: BLE001 - clean-up must not mask the original error
            removed[name] = -1
    return removed


def reap_orphans(engines: Sequence[str] = CONTAINER_ENGINES, log=None) -> dict[str, dict]:
    """Remove the course containers whose run is gone (see orphan_reason), on every available engine.

    Returns {run_id: {"engine": name, "removed": n, "reason": Spanish}} and logs one Spanish line per
    run. A container of a run that is still alive (in another kernel or terminal) is never touched.
    Never raises: an engine that does not answer is skipped."""
    reaped: dict[str, dict] = {}
    for name in engines:
        engine = get_engine(name)
        try:
            if not engine.available:
                continue
            by_run: dict[str, tuple[list[str], str]] = {}
            now = time.time()
            for cid, labels, created in engine.course_containers():
                why = orphan_reason(labels, created=_unix_time(created), now=now)
                if why:
                    run = labels.get(LABEL_RUN) or "(sin corrida)"
                    ids, _ = by_run.get(run, ([], why))
                    by_run[run] = (ids + [cid], why)
            for run, (ids, why) in by_run.items():
                removed = engine.remove_ids(ids)
                reaped[f"{name}:{run}"] = {"engine": name, "run": run, "removed": removed, "reason": why}
                if log:
                    noun = "contenedor huérfano" if removed == 1 else "contenedores huérfanos"
                    log(f"Eliminé {removed} {noun} de {engine.display} de la corrida {run}: {why}.")
        except Exception:  # noqa: BLE001 - reaping must never stop a run or the set-up
            continue
    return reaped


def _unix_time(created) -> float | None:
    """Docker gives seconds since the epoch; Podman's JSON a number or an ISO date."""
    if isinstance(created, (int, float)):
        return float(created)
    if isinstance(created, str):
        import datetime as _dt

        try:
            return _dt.datetime.fromisoformat(created.replace("Z", "+00:00")[:26]).timestamp()
        except ValueError:
            return None
    return None
