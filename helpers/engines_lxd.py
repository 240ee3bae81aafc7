"""System containers with LXD or Incus: provisioning, an instance API, labels and orphan reaping.

Whichever the machine has: Debian's `lxd` (5.0), Ubuntu's snap, or Incus (`incus`/`incusd`, the same
REST API and a CLI that matches `lxc` closely). Everything goes through the CLI (`lxc query` for JSON),
which is what a student types and what the course times.

Rules this module keeps:
- no network at all: the daemon is initialised with `networks: []` and a default profile holding only a
  root disk on a `dir` pool, so an instance has no NIC, and no bridge, interface or firewall rule appears
  on the host;
- the daemon never contacts a remote image server: it is started by this module with the proxy variables
  pointing at a closed loopback port from its very first start, and `core.proxy_http(s)` say the same;
  images are built offline with mmdebstrap and imported;
- every instance carries the course's labels as `user.*` config keys (engines.labels_for) and is removed
  by the run's clean-up; orphans of dead runs are reaped like containers (engines.orphan_reason).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from . import engines as eng
from . import system

PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens there, so every proxied request fails
POOL = "curso"
IMAGE_SYSTEM = "curso-sistema"  # Debian minbase + systemd
IMAGE_NESTED = "curso-anidado"  # the same plus docker.io and podman (scenario 3)
LOG_DIR = Path("/var/log/curso-lxd")
IMAGE_CACHE = eng.CACHE_DIR / "lxd"
READY_STATES = ("running", "degraded")
READY_TIMEOUT = 60
CLI_TIMEOUT = 120


@dataclass(frozen=True)
class Flavor:
    name: str  # "lxd" or "incus"
    cli: str
    daemon: str
    state_dir: Path
    group: str

    @property
    def display(self) -> str:
        return "LXD" if self.name == "lxd" else "Incus"

    @property
    def socket(self) -> Path:
        return self.state_dir / "unix.socket"


FLAVORS = (
    Flavor("lxd", "lxc", "lxd", Path("/var/lib/lxd"), "lxd"),
    Flavor("lxd", "lxc", "lxd", Path("/var/snap/lxd/common/lxd"), "lxd"),
    Flavor("incus", "incus", "incusd", Path("/var/lib/incus"), "incus-admin"),
)


def flavor() -> Flavor | None:
    """The installed LXD or Incus (the first whose CLI exists; a running daemon's socket wins)."""
    found = [f for f in FLAVORS if shutil.which(f.cli)]
    for f in found:
        if f.socket.exists():
            return f
    return found[0] if found else None


def _daemon_path(f: Flavor) -> str | None:
    return shutil.which(f.daemon) or next(
        (p for p in (f"/usr/libexec/incus/{f.daemon}", f"/usr/lib/incus/{f.daemon}") if Path(p).exists()),
        None,
    )


def proxy_env() -> dict:
    env = dict(os.environ)
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env[key] = PROXY
    for key in ("NO_PROXY", "no_proxy"):
        env.pop(key, None)
    return env


def _cli(argv, *, f: Flavor | None = None, timeout: float = CLI_TIMEOUT, input: str | None = None):
    f = f or flavor()
    return subprocess.run(
        [f.cli, *argv], capture_output=True, text=True, timeout=timeout, input=input, env=proxy_env()
    )


class LxdError(RuntimeError):
    pass


def _check(result: subprocess.CompletedProcess, what: str) -> str:
    if result.returncode != 0:
        raise LxdError(f"{what}: {(result.stderr or result.stdout).strip()[-400:]}")
    return result.stdout


def query(path: str, f: Flavor | None = None):
    """GET on the daemon's REST API through the CLI (`lxc query`)."""
    return json.loads(_check(_cli(["query", path], f=f), f"query {path}") or "null")


# ---------------------------------------------------------------- availability
def daemon_answers(f: Flavor | None = None, timeout: float = 10) -> bool:
    f = f or flavor()
    if f is None or not f.socket.exists():
        return False
    try:
        return _cli(["query", "/1.0"], f=f, timeout=timeout).returncode == 0
    except (subprocess.TimeoutExpired, OSError):
        return False


def in_admin_group(f: Flavor) -> bool:
    try:
        import grp

        return f.group in {grp.getgrgid(g).gr_name for g in os.getgroups()}
    except (KeyError, ImportError):
        return False


def admin_command(f: Flavor | None) -> str:
    user = system.user_name()
    if f is None:
        return "sudo apt-get install lxd (o incus) y luego «sudo make setup»"
    return f"sudo usermod -aG {f.group} {user} (y vuelves a iniciar sesión)"


@functools.cache
def availability() -> tuple[bool, str | None]:
    """(usable, Spanish reason if not): installed, allowed (root or the admin group), daemon up,
    initialised without network, with the course's image."""
    f = flavor()
    if f is None:
        return False, (
            "no hay LXD ni Incus en esta máquina. Un administrador puede instalarlo con "
            "«sudo apt-get install lxd» (o incus) y prepararlo con «sudo make setup»."
        )
    if not system.is_root() and not in_admin_group(f):
        return False, (
            f"{f.display} está instalado, pero solo root y el grupo «{f.group}» pueden usarlo (ese grupo "
            f"equivale a ser root en la máquina). Un administrador puede añadirte con «{admin_command(f)}»."
        )
    if not daemon_answers(f):
        return False, (
            f"el daemon de {f.display} no responde. Un administrador puede arrancarlo sin red con "
            "«sudo make setup»."
        )
    if not image_present(IMAGE_SYSTEM, f):
        return False, f"falta la imagen «{IMAGE_SYSTEM}» de {f.display}: ejecuta «sudo make setup»."
    return True, None


def reset_cache() -> None:
    availability.cache_clear()


# ---------------------------------------------------------------- daemon
def daemon_process(f: Flavor | None = None) -> psutil.Process | None:
    f = f or flavor()
    if f is None:
        return None
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if cmd and Path(cmd[0]).name == f.daemon and "waitready" not in cmd and "init" not in cmd:
            return proc
    return None


def image_present(alias: str, f: Flavor | None = None) -> bool:
    try:
        return _cli(["image", "info", alias], f=f).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def provision(log) -> None:
    """`make setup` (helpers.engines_lxd_setup.provision)."""
    from . import engines_lxd_setup

    engines_lxd_setup.provision(log)


# ---------------------------------------------------------------- instances
def user_keys(run_id: str | None) -> dict[str, str]:
    """The course's labels as LXD `user.*` config keys."""
    return {f"user.{key}": value for key, value in eng.labels_for(run_id).items()}


def labels_of(config: dict) -> dict[str, str]:
    return {k[len("user.") :]: v for k, v in (config or {}).items() if k.startswith("user.")}


def create_argv(
    name: str, image: str = IMAGE_SYSTEM, *, run_id: str | None, nesting: bool = False
) -> list[str]:
    f = flavor()
    argv = [f.cli, "init", image, name]
    config = dict(user_keys(run_id))
    if nesting:
        config["security.nesting"] = "true"
    for key, value in config.items():
        argv += ["-c", f"{key}={value}"]
    return argv


def start_argv(name: str) -> list[str]:
    return [flavor().cli, "start", name]


def exec_argv(name: str, command) -> list[str]:
    return [flavor().cli, "exec", name, "--", *command]


def create(name: str, image: str = IMAGE_SYSTEM, *, run_id: str | None, nesting: bool = False) -> None:
    argv = create_argv(name, image, run_id=run_id, nesting=nesting)
    _check(subprocess.run(argv, capture_output=True, text=True, env=proxy_env(), timeout=CLI_TIMEOUT), "init")


def start(name: str) -> None:
    _check(_cli(["start", name]), f"start {name}")


def add_disk(name: str, device: str, source: Path | str, path: str) -> None:
    """A read-only bind mount of a host path (probes, data) into the instance."""
    _check(
        _cli(
            [
                "config",
                "device",
                "add",
                name,
                device,
                "disk",
                f"source={source}",
                f"path={path}",
                "readonly=true",
            ]
        ),
        f"device {device}",
    )


def system_state(name: str) -> str:
    result = _cli(["exec", name, "--", "systemctl", "is-system-running"], timeout=30)
    return result.stdout.strip() or "desconocido"


def wait_ready(name: str, timeout: float = READY_TIMEOUT) -> str:
    """Poll until the instance's systemd says «running» (or «degraded»); its final state."""
    deadline = time.monotonic() + timeout
    state = "desconocido"
    while time.monotonic() < deadline:
        state = system_state(name)
        if state in READY_STATES:
            return state
        time.sleep(0.05)
    raise LxdError(f"{name}: systemd no llegó a «running» en {timeout:.0f} s (estado «{state}»)")


def execute(name: str, command, timeout: float = CLI_TIMEOUT) -> subprocess.CompletedProcess:
    return _cli(["exec", name, "--", *command], timeout=timeout)


def push_file(name: str, source: Path | str, dest: str) -> None:
    _check(_cli(["file", "push", str(source), f"{name}{dest}"], timeout=600), f"file push {dest}")


def delete(names) -> None:
    for name in names:
        _cli(["delete", "--force", name], timeout=CLI_TIMEOUT)


def state(name: str) -> dict:
    return query(f"/1.0/instances/{name}/state") or {}


def init_pid(name: str) -> int | None:
    return (state(name) or {}).get("pid") or None


def uid_map(name: str) -> str:
    pid = init_pid(name)
    return Path(f"/proc/{pid}/uid_map").read_text() if pid else ""


def payload_pids(name: str) -> list[int]:
    """The instance's own processes: every cgroup.procs under its memory cgroup (its systemd makes
    sub-cgroups of its own)."""
    top = memory_cgroup(name)
    pids: list[int] = []
    if top is None:
        return pids
    for procs in top.rglob("cgroup.procs"):
        try:
            pids += [int(x) for x in procs.read_text().split()]
        except OSError:
            continue
    return sorted(set(pids))


def memory_cgroup(name: str) -> Path | None:
    for base in (Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup")):
        if (base / f"lxc.payload.{name}").is_dir():
            return base / f"lxc.payload.{name}"
    return None


def monitor_pid(name: str) -> int | None:
    """The instance's `[lxc monitor]` process: the parent of its init (its command line, rewritten by
    the daemon, is cut to the length of the daemon's own and cannot be matched by a long name)."""
    pid = init_pid(name)
    if not pid:
        return None
    try:
        parent = psutil.Process(pid).parent()
        if parent is not None and " ".join(parent.cmdline()).startswith("[lxc monitor]"):
            return parent.pid
    except psutil.Error:
        pass
    return None


def rootfs_dir(name: str) -> Path:
    f = flavor()
    return f.state_dir / "storage-pools" / POOL / "containers" / name


def disk_bytes(name: str) -> int:
    result = subprocess.run(["du", "-sxB1", str(rootfs_dir(name))], capture_output=True, text=True)
    return int(result.stdout.split()[0]) if result.returncode == 0 and result.stdout else 0


def course_instances() -> list[tuple[str, dict]]:
    """(name, labels) of every instance carrying the course's mark."""
    f = flavor()
    if f is None or not daemon_answers(f):
        return []
    out = []
    for inst in query("/1.0/instances?recursion=1", f) or []:
        labels = labels_of(inst.get("config") or {})
        if labels.get(eng.LABEL):
            out.append((inst["name"], labels))
    return out


def cleanup(run_id: str | None) -> int:
    """Remove one run's instances (every course instance if run_id is None); never raises."""
    try:
        names = [
            n for n, labels in course_instances() if run_id is None or labels.get(eng.LABEL_RUN) == run_id
        ]
        delete(names)
        return len(names)
    except Exception:  # noqa: BLE001 - clean-up must not mask the original error
        return -1


def reap_orphans(log=None) -> dict[str, dict]:
    """Remove the course instances whose run is gone (engines.orphan_reason); never raises."""
    reaped: dict[str, dict] = {}
    try:
        by_run: dict[str, tuple[list[str], str]] = {}
        for name, labels in course_instances():
            why = eng.orphan_reason(labels)
            if why:
                run = labels.get(eng.LABEL_RUN) or "(sin corrida)"
                names, _ = by_run.get(run, ([], why))
                by_run[run] = (names + [name], why)
        for run, (names, why) in by_run.items():
            delete(names)
            reaped[f"lxd:{run}"] = {"engine": "lxd", "run": run, "removed": len(names), "reason": why}
            if log:
                noun = (
                    "contenedor de sistema huérfano"
                    if len(names) == 1
                    else "contenedores de sistema huérfanos"
                )
                log(f"Eliminé {len(names)} {noun} de {flavor().display} de la corrida {run}: {why}.")
    except Exception:  # noqa: BLE001 - reaping must never stop a run or the set-up
        pass
    return reaped


def host_links() -> set[str]:
    """The host's network interfaces (names), to check that no instance added one."""
    return {name for _, name in socket.if_nameindex()}


def version() -> str | None:
    f = flavor()
    if f is None:
        return None
    result = _cli(["version"], f=f, timeout=10)
    return " ".join(result.stdout.split()) if result.returncode == 0 else None


# ---------------------------------------------------------------- an engine nested inside (scenario 3)
INNER_ENGINES = ("docker", "podman")


def inner_ready(name: str, engine: str, timeout: float = 60) -> None:
    """Wait until the engine inside the instance answers (Docker's daemon starts with the instance's
    systemd; Podman has no daemon)."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        result = execute(name, [engine, "info"], timeout=30)
        if result.returncode == 0:
            return
        last = (result.stderr or result.stdout).strip()[-300:]
        time.sleep(0.3)
    raise LxdError(f"{engine} no responde dentro de {name}: {last}")


def hand_in_image(name: str, engine: str, image: str, workdir: Path) -> str:
    """Give the inner engine an image offline: `save` on the host, push the file, `load` inside.
    Returns the reference the inner engine knows it by."""
    host = eng.get_engine(engine)
    tarball = host.save_image(image, Path(workdir) / f"{engine}-imagen.tar")
    push_file(name, tarball, "/root/imagen.tar")
    result = execute(name, [engine, "load", "-i", "/root/imagen.tar"], timeout=300)
    _check(result, f"{engine} load")
    execute(name, ["rm", "-f", "/root/imagen.tar"])
    return image.removeprefix("localhost/")


def inner_run_command(engine: str, image: str) -> list[str]:
    """What a student types inside the system container (no network, like on the host arm)."""
    return [engine, "run", "--rm", "--network", "none", image, "echo", "ok"]
