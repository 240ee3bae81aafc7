"""The CPU time the rest of the machine used while a run measured: everything but the run's own work.

CPU pressure (PSI) counts every task that waited for a CPU, ours included: launching containers on two
cores makes it vary round to round by itself, so a gate on it reads the measurement as background load.
This module tells the two apart by process, from /proc:

- the run's own work: the measuring process, its parent (the Jupyter server or papermill talking to it)
  and every descendant of the measuring process (wrk, the servers, a VM it boots, the commands it
  spawns), and the engines' processes it drives, which are not its children (`OWN_COMMANDS`: dockerd,
  containerd and its shims, conmon, LXD, a cluster's components, QEMU, and everything under them: the
  containers themselves);
- kernel threads (children of kthreadd) are nobody's in particular and are left out of both;
- everything else is other work: its user and system CPU time over the window (`/proc/<pid>/stat`
  fields utime, stime, cutime and cstime, so a background job's short-lived children count once it
  reaps them; PID 1 counts without its children, since it reaps our orphans too).

A process that starts and ends inside one window without a parent outside our work to reap it is not
seen: a background load short-lived enough to hide there is also too brief to move a round. The figure
is a share of the machine's whole CPU time over the window (all cores), in % (`share`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

PROC = "/proc"
KTHREADD = 2
# The processes of the engines the course drives (comm, at most 15 characters), and QEMU (08's VMs,
# LXD's, the students' guest of `make test`): a QEMU, a dockerd or a conmon on a course machine is the
# course's. Everything under them is theirs too (the containers).
OWN_COMMANDS = frozenset(
    {
        "dockerd",
        "containerd",
        "containerd-shim",
        "docker-proxy",
        "docker-init",
        "runc",
        "crun",
        "runsc",
        "runsc-gofer",
        "runsc-sandbox",
        "conmon",
        "podman",
        "catatonit",
        "netavark",
        "aardvark-dns",
        "slirp4netns",
        "pasta",
        "pasta.avx2",
        "fuse-overlayfs",
        "lxd",
        "lxc",
        "dnsmasq",
        "qemu-system-x86",
        "kube-apiserver",
        "kube-controller",
        "kube-scheduler",
        "kubelet",
        "kube-proxy",
        "kubectl",
        "etcd",
    }
)


@dataclass(frozen=True)
class Process:
    """One process at one instant: when it started (clock ticks since boot, so a reused PID is told
    apart), its parent, its name, and its CPU time in ticks (its own, and its reaped children's)."""

    start: int
    ppid: int
    comm: str
    own_ticks: int
    children_ticks: int


def snapshot(proc: str = PROC) -> dict[int, Process] | None:
    """Every process now (one read of each /proc/<pid>/stat: a few ms for a few hundred processes);
    None where /proc cannot be listed."""
    try:
        names = os.listdir(proc)
    except OSError:
        return None
    out: dict[int, Process] = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/stat", "rb") as fh:
                data = fh.read()
        except OSError:  # it ended meanwhile
            continue
        close = data.rfind(b")")
        fields = data[close + 2 :].split()
        try:
            # after «(comm)»: state ppid ... utime(11) stime(12) cutime(13) cstime(14) ... starttime(19)
            out[int(name)] = Process(
                start=int(fields[19]),
                ppid=int(fields[1]),
                comm=data[data.find(b"(") + 1 : close].decode(errors="replace"),
                own_ticks=int(fields[11]) + int(fields[12]),
                children_ticks=int(fields[13]) + int(fields[14]),
            )
        except (IndexError, ValueError):
            continue
    return out


def own_pids(processes: dict[int, Process], me: int | None = None) -> set[int]:
    """The PIDs of the run's own work (see the module docstring) in one snapshot, kernel threads
    included so that nobody counts them."""
    me = os.getpid() if me is None else me
    parent = processes[me].ppid if me in processes else None
    mine: dict[int, bool] = {}

    def is_mine(pid: int) -> bool:
        chain = []
        verdict = False
        while pid in processes and pid not in mine:
            chain.append(pid)
            process = processes[pid]
            if pid in (me, KTHREADD) or process.comm in OWN_COMMANDS or process.ppid == KTHREADD:
                verdict = True
                break
            pid = process.ppid
        else:
            verdict = mine.get(pid, False)
        for seen in chain:
            mine[seen] = verdict
        return verdict

    own = {pid for pid in processes if is_mine(pid)}
    if parent is not None:
        own.add(parent)
    return own


def other_ticks(start: dict[int, Process], end: dict[int, Process], me: int | None = None) -> int:
    """The CPU ticks the other work used between two snapshots (see the module docstring)."""
    own = own_pids(end, me) | own_pids(start, me)
    total = 0
    for pid, now in end.items():
        if pid in own:
            continue
        before = start.get(pid)
        children = 0 if pid == 1 else 1
        if before is not None and before.start == now.start:
            total += now.own_ticks - before.own_ticks
            total += children * (now.children_ticks - before.children_ticks)
        else:  # born inside the window
            total += now.own_ticks + children * now.children_ticks
    return max(total, 0)


def share(ticks: int, machine_ticks: int) -> float | None:
    """`ticks` as a % of the machine's CPU time over the window (/proc/stat, all cores); None when no
    tick elapsed."""
    if machine_ticks <= 0:
        return None
    return min(100.0, 100.0 * ticks / machine_ticks)
