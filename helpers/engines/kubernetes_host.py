"""What a course Kubernetes cluster changes on the host, and undoing it: the record of the run that owns
it (who, which processes, the host settings before), the bridge, the cgroup tree, the settings the kubelet
and kube-proxy change; the teardown that removes processes, mounts, KUBE-* chains (iptables and
ip6tables), the bridge, the `cni-` network namespaces, the cgroup tree and the kubelet's stray folders;
what is left over (for tests), and reaping the cluster of a run that is gone (a killed kernel).

Docker's and Podman's chains, namespaces and shims are never touched: only what carries the cluster's
folder in its command line, its own cgroup tree, its own bridge, and KUBE-* chains."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

import psutil

from ..system import CGROUP_ROOT, is_root
from .kubernetes_config import BRIDGE, CGROUP_NAME, NODE_IP, STATE_ROOT, SYSCTLS, Layout
from .labels import LABEL_RUN, orphan_reason

NETNS_DIR = Path("/run/netns")
SHIM_SOCKETS = Path("/run/containerd/s")
KUBELET_STRAYS = (Path("/var/lib/kubelet"), Path("/var/log/containers"), Path("/var/log/pods"))
IPTABLES = ("iptables", "ip6tables")
TABLES = ("filter", "nat", "mangle", "raw")


# ------------------------------------------------------------------ the run's record
def read_owner(layout: Layout) -> dict:
    try:
        return json.loads(layout.owner.read_text())
    except (OSError, ValueError):
        return {}


def write_owner(layout: Layout, record: dict) -> None:
    partial = layout.owner.with_suffix(".part")
    partial.write_text(json.dumps(record, indent=1, ensure_ascii=False))
    partial.replace(layout.owner)


def read_sysctls() -> dict[str, str]:
    values = {}
    for name in SYSCTLS:
        try:
            values[name] = (Path("/proc/sys") / name).read_text().strip()
        except OSError:
            continue
    return values


def restore_sysctls(saved: dict[str, str]) -> None:
    for name, value in saved.items():
        path = Path("/proc/sys") / name
        try:
            if path.read_text().strip() != value:
                path.write_text(value)
        except OSError:
            continue


def netns_names() -> set[str]:
    try:
        return {p.name for p in NETNS_DIR.iterdir() if p.name.startswith("cni-")}
    except OSError:
        return set()


def host_before() -> dict:
    """What the cluster may change, read before it starts: settings, namespaces, the kubelet's folders."""
    return {
        "sysctls": read_sysctls(),
        "netns": sorted(netns_names()),
        "existian": [str(p) for p in KUBELET_STRAYS if p.exists()],
    }


# ------------------------------------------------------------------ bridge and cgroups
def _ip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)


def bridge_exists() -> bool:
    return Path("/sys/class/net", BRIDGE).exists()


def create_bridge() -> None:
    """The Pods' bridge with the node's address (the kubelet's node IP cannot be loopback)."""
    if bridge_exists():
        _ip("link", "del", BRIDGE)
    for args in (
        ("link", "add", BRIDGE, "type", "bridge"),
        ("addr", "add", f"{NODE_IP}/24", "dev", BRIDGE),
        ("link", "set", BRIDGE, "up"),
    ):
        result = _ip(*args)
        if result.returncode != 0:
            raise RuntimeError(f"ip {' '.join(args)}: {result.stderr.strip()}")


def cgroup_dirs() -> list[Path]:
    """The cluster's cgroup tree in every hierarchy (v1: one per controller; v2: one)."""
    if (CGROUP_ROOT / "cgroup.controllers").is_file():
        return [CGROUP_ROOT / CGROUP_NAME]
    out = []
    for hierarchy in sorted(CGROUP_ROOT.iterdir()):
        if hierarchy.is_dir() and not hierarchy.is_symlink():
            out.append(hierarchy / CGROUP_NAME)
    return out


def create_cgroups() -> None:
    """The kubelet's cgroupRoot, made beforehand in every hierarchy (cpuset copied from its parent)."""
    for path in cgroup_dirs():
        path.mkdir(exist_ok=True)
        for name in ("cpuset.cpus", "cpuset.mems"):
            own = path / name
            if own.exists() and not own.read_text().strip():
                own.write_text((path.parent / name).read_text())


def cgroup_pids() -> set[int]:
    pids: set[int] = set()
    for top in cgroup_dirs():
        if not top.is_dir():
            continue
        for dirpath, _, filenames in os.walk(top):
            if "cgroup.procs" in filenames:
                try:
                    pids.update(int(x) for x in (Path(dirpath) / "cgroup.procs").read_text().split())
                except (OSError, ValueError):
                    continue
    return pids


def remove_cgroups() -> list[str]:
    """rmdir the tree bottom-up in every hierarchy; returns what could not be removed."""
    stuck = []
    for top in cgroup_dirs():
        if not top.is_dir():
            continue
        for dirpath, _, _ in sorted(os.walk(top), key=lambda entry: -len(entry[0])):
            try:
                os.rmdir(dirpath)
            except OSError:
                stuck.append(dirpath)
    return stuck


# ------------------------------------------------------------------ processes
def cluster_processes(root: Path = STATE_ROOT) -> list[psutil.Process]:
    """Every process whose command line names the cluster's folder (the components, containerd and its
    shims, whose -address is the cluster's own socket)."""
    mark = str(root)
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if proc.pid != os.getpid() and any(mark in arg for arg in proc.info["cmdline"] or ()):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def shim_sockets(procs: list[psutil.Process]) -> list[Path]:
    """The sockets our shims listen on in /run/containerd/s (shared with Docker's: only ours go)."""
    inodes: set[str] = set()
    for proc in procs:
        try:
            for fd in Path(f"/proc/{proc.pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    paths = []
    try:
        for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
            fields = line.split()
            if len(fields) >= 8 and fields[6] in inodes and fields[7].startswith(str(SHIM_SOCKETS)):
                paths.append(Path(fields[7].lstrip("@")))
    except OSError:
        pass
    return paths


def kill_everything(timeout: float = 15) -> list[int]:
    """SIGKILL the cluster's processes and every process in its cgroup tree, until none is left;
    returns the pids still alive after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        pids = {p.pid for p in cluster_processes()} | cgroup_pids()
        pids.discard(os.getpid())
        if not pids or time.monotonic() > deadline:
            return sorted(pids)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                continue
        time.sleep(0.2)


# ------------------------------------------------------------------ mounts and namespaces
def cluster_mounts(own_netns: set[str]) -> list[str]:
    """Mount points under the cluster's folder and its network namespaces, deepest first."""
    points = []
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            point = line.split()[4].replace("\\040", " ")
            if point.startswith(str(STATE_ROOT) + "/") or (
                point.startswith(str(NETNS_DIR) + "/") and Path(point).name in own_netns
            ):
                points.append(point)
    except OSError:
        pass
    return sorted(set(points), key=lambda p: -p.count("/"))


def unmount(points: list[str]) -> None:
    for point in points:
        subprocess.run(["umount", "-l", point], capture_output=True, timeout=30)


# ------------------------------------------------------------------ iptables
def _save(tool: str, table: str) -> list[str]:
    try:
        result = subprocess.run([f"{tool}-save", "-t", table], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return result.stdout.splitlines() if result.returncode == 0 else []


def kube_chains() -> list[str]:
    """Every KUBE-* chain left, as «tool/table/chain»."""
    return [
        f"{tool}/{table}/{line[1:].split()[0]}"
        for tool in IPTABLES
        for table in TABLES
        for line in _save(tool, table)
        if line.startswith(":KUBE-")
    ]


def remove_kube_chains() -> None:
    """Delete the jumps into KUBE-* chains from the other chains, then flush and delete every KUBE-*
    chain; Docker's and Podman's rules stay."""
    for tool in IPTABLES:
        for table in TABLES:
            lines = _save(tool, table)
            chains = [line[1:].split()[0] for line in lines if line.startswith(":KUBE-")]
            for line in lines:
                if line.startswith("-A ") and "KUBE-" in line:
                    words = shlex.split(line)
                    if not words[1].startswith("KUBE-"):
                        subprocess.run([tool, "-w", "-t", table, "-D", *words[1:]], capture_output=True)
            for verb in ("-F", "-X"):
                for chain in chains:
                    subprocess.run([tool, "-w", "-t", table, verb, chain], capture_output=True)
    for family in ("ip", "ip6"):
        subprocess.run(["nft", "delete", "table", family, "kube-proxy"], capture_output=True)


# ------------------------------------------------------------------ teardown, leftovers, reaping
def teardown(layout: Layout = Layout(STATE_ROOT)) -> list[str]:
    """Remove everything the cluster left on the host, from its record (or without one: a run killed
    before writing it). Returns what could not be removed (Spanish), empty when clean. Never raises."""
    record = read_owner(layout)
    before = record.get("antes", {})
    problems = []
    own_netns = netns_names() - set(before.get("netns", []))
    sockets = shim_sockets(cluster_processes())
    alive = kill_everything()
    if alive:
        problems.append(f"procesos que no terminan: {alive}")
    for path in sockets:
        path.unlink(missing_ok=True)
    unmount(cluster_mounts(own_netns))
    for name in own_netns:
        (NETNS_DIR / name).unlink(missing_ok=True)
    remove_kube_chains()
    if bridge_exists():
        _ip("link", "del", BRIDGE)
    stuck = remove_cgroups()
    if stuck:
        time.sleep(1)
        stuck = remove_cgroups()
    if stuck:
        problems.append(f"cgroups que no se pueden borrar: {stuck[:3]}")
    restore_sysctls(before.get("sysctls", {}))
    remove_kubelet_strays(set(before.get("existian", [str(p) for p in KUBELET_STRAYS])))
    remaining = cluster_mounts(own_netns)
    if remaining:
        problems.append(f"montajes que quedan: {remaining[:3]}")
    else:
        subprocess.run(["rm", "-rf", "--one-file-system", str(layout.root)], capture_output=True)
    return problems


def remove_kubelet_strays(existed: set[str]) -> None:
    """The kubelet makes /var/lib/kubelet/device-plugins (and log folders) even with its own root-dir:
    remove what the cluster created, keep what was there before."""
    device_plugins = KUBELET_STRAYS[0] / "device-plugins"
    if str(KUBELET_STRAYS[0]) not in existed:
        subprocess.run(["rm", "-rf", str(KUBELET_STRAYS[0])], capture_output=True)
    elif device_plugins.exists():
        subprocess.run(["rm", "-rf", str(device_plugins)], capture_output=True)
    for path in KUBELET_STRAYS[1:]:
        if str(path) not in existed:
            subprocess.run(["rm", "-rf", str(path)], capture_output=True)


def leftovers() -> list[str]:
    """What a course cluster left on the host (Spanish, one item each); empty when nothing."""
    out = []
    procs = cluster_processes()
    if procs:
        out.append(f"procesos: {[p.pid for p in procs]}")
    mounts = cluster_mounts(netns_names())
    if mounts:
        out.append(f"montajes: {mounts[:3]}")
    if netns_names():
        out.append(f"espacios de red cni-: {sorted(netns_names())}")
    chains = kube_chains()
    if chains:
        out.append(f"cadenas KUBE-*: {chains[:4]}")
    if bridge_exists():
        out.append(f"el puente {BRIDGE}")
    cgroups = [str(p) for p in cgroup_dirs() if p.exists()]
    if cgroups:
        out.append(f"cgroups: {cgroups[:3]}")
    if STATE_ROOT.exists():
        out.append(f"la carpeta {STATE_ROOT}")
    if (KUBELET_STRAYS[0] / "device-plugins").exists():
        out.append("/var/lib/kubelet/device-plugins")
    return out


def orphan(layout: Layout = Layout(STATE_ROOT)) -> str | None:
    """Why the cluster on this host belongs to no live run (Spanish), or None (no cluster, or its owner
    still runs)."""
    if not layout.root.exists() and not bridge_exists() and not cluster_processes():
        return None
    labels = read_owner(layout).get("etiquetas")
    if not labels:
        return "no tiene registro de quién lo arrancó"
    return orphan_reason(labels)


def reap_orphans(log=None) -> dict[str, dict]:
    """Tear down the course cluster whose run is gone (a killed kernel); never raises. Returns
    {"kubernetes:<run>": {"engine", "run", "removed", "reason"}} as the other engines' reaping."""
    if not is_root():
        return {}
    try:
        layout = Layout(STATE_ROOT)
        why = orphan(layout)
        if why is None:
            return {}
        run = read_owner(layout).get("etiquetas", {}).get(LABEL_RUN) or "(sin corrida)"
        problems = teardown(layout)
        if log:
            tail = f" Quedó: {'; '.join(problems)}." if problems else ""
            log(f"Desmonté el clúster de Kubernetes huérfano de la corrida {run}: {why}.{tail}")
        return {f"kubernetes:{run}": {"engine": "kubernetes", "run": run, "removed": 1, "reason": why}}
    except Exception:  # noqa: BLE001 - reaping must never stop a run or the set-up
        return {}
