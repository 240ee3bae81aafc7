"""System containers with LXD or Incus: the daemon's flavour, availability, instances, labels and reaping.

Whichever the machine has: Debian's `lxd` (5.0), Ubuntu's snap, or Incus (`incus`/`incusd`, the same
REST API and a CLI that matches `lxc` closely). Everything goes through the CLI (`lxc query` for JSON),
which is what a student types and what the course times.

Rules this module keeps:
- no network at all: the daemon is initialised with `networks: []` and a default profile holding only a
  root disk, so an instance has no NIC, and no bridge, interface or firewall rule appears on the host;
- the daemon never contacts a remote image server: it is started (lxd_setup) with the proxy variables
  pointing at a closed loopback port from its very first start, and `core.proxy_http(s)` say the same;
  images are built offline with mmdebstrap and imported;
- every instance carries the course's labels as `user.*` config keys (labels.labels_for) and is removed
  by the run's clean-up; orphans of dead runs are reaped like containers (labels.orphan_reason).

Two storage pools: `curso` (`dir`: each instance is a full copy of its image, owners shifted file by file)
and, where the kernel and btrfs-progs allow, `curso-cow` (btrfs on a loop file: each instance is a
copy-on-write snapshot of the image's volume, as a container's layer is). An instance goes to the
copy-on-write pool when it exists. Modules: lxd (this), lxd_nested (an engine inside a system
container), lxd_setup (`make setup`).
"""

from __future__ import annotations

import functools
import grp
import json
import os
import re
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from .. import system
from ..paths import CACHE_DIR
from . import bridges
from .labels import LABEL, LABEL_RUN, labels_for, orphan_reason

PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens there, so every proxied request fails
POOL = "curso"  # `dir`: a full copy per instance
POOL_COW = "curso-cow"  # btrfs on a loop file: a copy-on-write snapshot per instance
POOL_DRIVERS = {POOL: "dir", POOL_COW: "btrfs"}
IMAGE_SYSTEM = "curso-sistema"  # Debian minbase + systemd
IMAGE_NESTED = "curso-anidado"  # the same plus docker.io and podman (scenario 3)
LOG_DIR = Path("/var/log/curso-lxd")
IMAGE_CACHE = CACHE_DIR / "lxd"
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


def daemon_path(f: Flavor) -> str | None:
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


def cli(argv, *, f: Flavor | None = None, timeout: float = CLI_TIMEOUT, input: str | None = None):
    f = f or flavor()
    return subprocess.run(
        [f.cli, *argv], capture_output=True, text=True, timeout=timeout, input=input, env=proxy_env()
    )


class LxdError(RuntimeError):
    pass


def check(result: subprocess.CompletedProcess, what: str) -> str:
    if result.returncode != 0:
        raise LxdError(f"{what}: {(result.stderr or result.stdout).strip()[-400:]}")
    return result.stdout


def query(path: str, f: Flavor | None = None):
    """GET on the daemon's REST API through the CLI (`lxc query`)."""
    return json.loads(check(cli(["query", path], f=f), f"query {path}") or "null")


# ---------------------------------------------------------------- availability
def daemon_answers(f: Flavor | None = None, timeout: float = 10) -> bool:
    f = f or flavor()
    if f is None or not f.socket.exists():
        return False
    try:
        return cli(["query", "/1.0"], f=f, timeout=timeout).returncode == 0
    except (subprocess.TimeoutExpired, OSError):
        return False


def in_admin_group(f: Flavor) -> bool:
    try:
        return f.group in {grp.getgrgid(g).gr_name for g in os.getgroups()}
    except KeyError:
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
    pools.cache_clear()


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
        return cli(["image", "info", alias], f=f).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def version() -> str | None:
    f = flavor()
    if f is None:
        return None
    result = cli(["version"], f=f, timeout=10)
    if result.returncode != 0:
        return None
    return parse_version(result.stdout)


def parse_version(text: str) -> str:
    """«5.0.2» from `lxc version` («Client version: 5.0.2 / Server version: 5.0.2»): the server's,
    and the client's beside it only when they differ."""
    found = dict(
        (key.strip().split()[0].lower(), value.strip())
        for key, _, value in (line.partition(":") for line in text.splitlines())
        if value.strip()
    )
    server, client = found.get("server"), found.get("client")
    if server and client and server != client:
        return f"{server} (cliente {client})"
    return server or client or " ".join(text.split())


# ---------------------------------------------------------------- storage pools
@functools.cache
def pools() -> dict[str, str]:
    """{name: driver} of the daemon's storage pools (empty if it does not answer)."""
    try:
        return {p["name"]: p.get("driver", "") for p in query("/1.0/storage-pools?recursion=1") or []}
    except (LxdError, OSError, subprocess.TimeoutExpired, ValueError, TypeError):
        return {}


def instance_pool() -> str:
    """Where instances go: the copy-on-write pool if the daemon has it, else the `dir` pool."""
    return POOL_COW if POOL_COW in pools() else POOL


def pool_of(name: str) -> str:
    root = (query(f"/1.0/instances/{name}").get("expanded_devices") or {}).get("root") or {}
    return root.get("pool") or POOL


def rootfs_dir(name: str, pool: str = POOL) -> Path:
    return flavor().state_dir / "storage-pools" / pool / "containers" / name


def disk_bytes(name: str) -> int:
    """Bytes this instance adds to the host's disk: on `dir`, everything under its directory (a full
    copy); on btrfs, the bytes only its snapshot holds (`btrfs filesystem du`: «exclusive»), since the
    rest is shared with the image's volume."""
    pool = pool_of(name)
    path = rootfs_dir(name, pool)
    if pools().get(pool) == "btrfs":
        result = subprocess.run(
            ["btrfs", "filesystem", "du", "-s", "--raw", str(path)], capture_output=True, text=True
        )
        match = re.search(r"^\s*(\d+)\s+(\d+)\s+", result.stdout.splitlines()[-1]) if result.stdout else None
        return int(match.group(2)) if result.returncode == 0 and match else 0
    result = subprocess.run(["du", "-sxB1", str(path)], capture_output=True, text=True)
    return int(result.stdout.split()[0]) if result.returncode == 0 and result.stdout else 0


# ---------------------------------------------------------------- instances
def user_keys(run_id: str | None) -> dict[str, str]:
    """The course's labels as LXD `user.*` config keys."""
    return {f"user.{key}": value for key, value in labels_for(run_id).items()}


def labels_of(config: dict) -> dict[str, str]:
    return {k[len("user.") :]: v for k, v in (config or {}).items() if k.startswith("user.")}


def create_argv(
    name: str,
    image: str = IMAGE_SYSTEM,
    *,
    run_id: str | None,
    nesting: bool = False,
    pool: str | None = None,
    limits: dict[str, str] | None = None,
) -> list[str]:
    """limits: LXD config keys set at creation (`limits_config`)."""
    f = flavor()
    argv = [f.cli, "init", image, name, "--storage", pool or instance_pool()]
    config = dict(user_keys(run_id))
    if nesting:
        config["security.nesting"] = "true"
    config.update(limits or {})
    for key, value in config.items():
        argv += ["-c", f"{key}={value}"]
    return argv


def limits_config(cpus: int, memory_mb: int) -> dict[str, str]:
    """An instance limited like `docker run --cpus=CPUS -m MEMORY`: a CFS quota of `cpus` CPUs per
    100 ms period (limits.cpu.allowance), `cpus` CPUs visible inside (limits.cpu) and a memory limit."""
    return {
        "limits.cpu": str(int(cpus)),
        "limits.cpu.allowance": f"{int(cpus) * 100}ms/100ms",
        "limits.memory": f"{int(memory_mb)}MiB",
    }


def exec_argv(name: str, command) -> list[str]:
    return [flavor().cli, "exec", name, "--", *command]


def create(
    name: str,
    image: str = IMAGE_SYSTEM,
    *,
    run_id: str | None,
    nesting: bool = False,
    pool: str | None = None,
    limits: dict[str, str] | None = None,
) -> None:
    argv = create_argv(name, image, run_id=run_id, nesting=nesting, pool=pool, limits=limits)
    check(subprocess.run(argv, capture_output=True, text=True, env=proxy_env(), timeout=CLI_TIMEOUT), "init")


def start(name: str) -> None:
    check(cli(["start", name]), f"start {name}")


def add_disk(name: str, device: str, source: Path | str, path: str, *, readonly: bool = True) -> None:
    """A bind mount of a host path into the instance: read-only (probes, data) unless told otherwise."""
    argv = ["config", "device", "add", name, device, "disk", f"source={source}", f"path={path}"]
    check(cli([*argv, *(["readonly=true"] if readonly else [])]), f"device {device}")


def add_proxy(name: str, device: str, host_port: int, port: int) -> None:
    """An LXD proxy device: the daemon listens on 127.0.0.1:`host_port` on the host and relays each
    connection to 127.0.0.1:`port` inside the instance (no network card needed: it enters the instance's
    network namespace). It goes with the instance."""
    listen, connect = f"listen=tcp:127.0.0.1:{host_port}", f"connect=tcp:127.0.0.1:{port}"
    check(cli(["config", "device", "add", name, device, "proxy", listen, connect]), f"device {device}")


def remove_device(name: str, device: str) -> None:
    """Remove one device of an instance (never raises: clean-up)."""
    cli(["config", "device", "remove", name, device])


def system_state(name: str) -> str:
    result = cli(["exec", name, "--", "systemctl", "is-system-running"], timeout=30)
    return result.stdout.strip() or "desconocido"


def wait_ready(name: str, timeout: float = READY_TIMEOUT) -> str:
    """Poll until the instance's systemd says «running» (or «degraded»); its final state. For set-up and
    tests only: a timed window waits for the instance's own signal instead (no `exec` competing with the
    boot for the CPU), as experiment 8 does."""
    deadline = time.monotonic() + timeout
    state = "desconocido"
    while time.monotonic() < deadline:
        state = system_state(name)
        if state in READY_STATES:
            return state
        time.sleep(0.05)
    raise LxdError(f"{name}: systemd no llegó a «running» en {timeout:.0f} s (estado «{state}»)")


def execute(name: str, command, timeout: float = CLI_TIMEOUT) -> subprocess.CompletedProcess:
    return cli(["exec", name, "--", *command], timeout=timeout)


def push_file(name: str, source: Path | str, dest: str) -> None:
    """Copy a host file into the instance (running or not), creating the folders it needs."""
    check(cli(["file", "push", "-p", str(source), f"{name}{dest}"], timeout=600), f"file push {dest}")


def delete(names) -> None:
    for name in names:
        cli(["delete", "--force", name], timeout=CLI_TIMEOUT)


def init_pid(name: str) -> int | None:
    return (query(f"/1.0/instances/{name}/state") or {}).get("pid") or None


def uid_map(name: str) -> str:
    pid = init_pid(name)
    return Path(f"/proc/{pid}/uid_map").read_text() if pid else ""


def memory_cgroup(name: str) -> Path | None:
    for base in (Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup")):
        if (base / f"lxc.payload.{name}").is_dir():
            return base / f"lxc.payload.{name}"
    return None


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


# ---------------------------------------------------------------- the course's instances
def course_instances() -> list[tuple[str, dict]]:
    """(name, labels) of every instance carrying the course's mark."""
    f = flavor()
    if f is None or not daemon_answers(f):
        return []
    out = []
    for inst in query("/1.0/instances?recursion=1", f) or []:
        labels = labels_of(inst.get("config") or {})
        if labels.get(LABEL):
            out.append((inst["name"], labels))
    return out


def settle_operations(timeout: float = 60) -> None:
    """Wait until the daemon has no operation running (at most `timeout` s). Ctrl-C kills the `lxc init`
    client, not the daemon's creation it asked for: the instance appears after the run has listed its
    own, and must be waited for to be removed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not (query("/1.0/operations") or {}).get("running"):
            return
        time.sleep(0.2)


def cleanup(run_id: str | None) -> int:
    """Remove one run's instances (every course instance if run_id is None), including one the daemon
    was still creating; never raises."""

    def mine() -> list[str]:
        return [n for n, labels in course_instances() if run_id is None or labels.get(LABEL_RUN) == run_id]

    try:
        removed = mine()
        delete(removed)
        settle_operations()
        late = mine()
        delete(late)
        return len(removed) + len(late)
    except Exception:  # noqa: BLE001 - clean-up must not mask the original error
        return -1


def reap_orphans(log=None) -> dict[str, dict]:
    """Remove the course instances whose run is gone (labels.orphan_reason); never raises."""
    reaped: dict[str, dict] = {}
    try:
        by_run: dict[str, tuple[list[str], str]] = {}
        for name, labels in course_instances():
            why = orphan_reason(labels)
            if why:
                run = labels.get(LABEL_RUN) or "(sin corrida)"
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


# bridges Docker and Podman make, and those bridges.py makes (a run of 06 or 08 in another process)
ENGINE_BRIDGES = ("docker", "br-", "podman", "cni-podman", bridges.INTERFACE_PREFIX)


def links_added_since(before: set[str]) -> set[str]:
    """Host interfaces that appeared since `before`, except Docker's and Podman's bridges and the veths
    enslaved to them (containers other runs start meanwhile): an LXD instance with a NIC would add a
    bridge of its own (lxdbr0) or a link on no engine's bridge."""

    def engines_own(name: str) -> bool:
        master = Path(f"/sys/class/net/{name}/master")
        bridge = master.resolve().name if master.exists() else name
        return bridge.startswith(ENGINE_BRIDGES)

    return {name for name in host_links() - before if not engines_own(name)}
