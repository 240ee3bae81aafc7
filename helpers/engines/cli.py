"""CliEngine: what Docker and Podman share, both driven by a docker-compatible CLI named like the engine.

The `*_argv` verbs build what a student would type (what experiments time); the other verbs (launch,
create, inspect, stats, export...) run the CLI outside the timed path.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import psutil

from .. import cgroups
from ..errors import ComandoFallido, ErrorDelCurso
from .base import CLI_TIMEOUT, LOOPBACK, Container, Engine, RunOptions
from .labels import label_args


class CliEngine(Engine):
    """An engine driven by a docker-compatible CLI named like the engine (docker, podman)."""

    _avail: tuple[bool, str | None] | None = None  # availability, asked once until `forget`

    def availability(self) -> tuple[bool, str | None]:
        if self._avail is None:
            self._avail = self.check_availability()
        return self._avail

    def check_availability(self) -> tuple[bool, str | None]:
        """Ask the engine now: (True, None) or (False, one Spanish sentence saying why)."""
        raise NotImplementedError

    def forget(self) -> None:
        self._avail = None

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
        if opts.cpus is not None:
            args += ["--cpus", f"{opts.cpus:g}"]
        if opts.memory_mb is not None:
            args += ["--memory", f"{int(opts.memory_mb)}m"]
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
        argv += label_args(run_id) + self.option_args(opts) + list(extra) + [image] + list(command)
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
        return argv + label_args(run_id) + self.option_args(opts) + [image] + list(command)

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
