"""The kernel's process events (fork, exec, exit) through the proc connector.

The proc connector is a netlink socket (NETLINK_CONNECTOR, group CN_IDX_PROC) on which the kernel
announces every fork, exec and exit on the machine, with a CLOCK_MONOTONIC timestamp in nanoseconds.
Listening needs CAP_NET_ADMIN (root); `availability()` says so in Spanish when it is missing.

`capture(argv, env)` listens while one command runs and returns every event of the window; `chain()`
keeps the processes that belong to that command: its descendants, plus (for an engine with a daemon)
the processes whose command line names the container, and their descendants. Threads are left out:
only new processes (pid == tgid) count.
"""

from __future__ import annotations

import os
import select
import socket
import struct
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .measure import stop_child

NETLINK_CONNECTOR = 11
CN_IDX_PROC = 1
CN_VAL_PROC = 1
PROC_CN_MCAST_LISTEN = 1
PROC_CN_MCAST_IGNORE = 2
NLMSG_DONE = 3

PROC_EVENT_FORK = 0x00000001
PROC_EVENT_EXEC = 0x00000002
PROC_EVENT_EXIT = 0x80000000

_NLMSGHDR = struct.Struct("=IHHII")  # len, type, flags, seq, pid
_CN_MSG = struct.Struct("=IIIIHH")  # idx, val, seq, ack, len, flags
_EVENT_HEAD = struct.Struct("=IIQ")  # what, cpu, timestamp_ns
_HEAD = _NLMSGHDR.size + _CN_MSG.size  # where struct proc_event starts
_RCVBUF = 8 * 1024 * 1024


@dataclass
class Event:
    kind: str  # "fork", "exec" or "exit"
    ts_ns: int  # CLOCK_MONOTONIC (time.monotonic_ns), from the kernel
    pid: int  # the process (tgid); for fork, the child
    ppid: int = 0  # fork: the parent process
    cmdline: str = ""  # exec: read from /proc right after the event ("" if it was already gone)
    comm: str = ""


@dataclass
class Process:
    """One process of a captured chain; times in ms from the moment the command was spawned."""

    pid: int
    ppid: int
    name: str
    cmdline: str
    start_ms: float
    end_ms: float | None
    execs: list = field(default_factory=list)  # [(ms, name)] every exec, in order


def _message(op: int) -> bytes:
    payload = struct.pack("=I", op)
    cn = _CN_MSG.pack(CN_IDX_PROC, CN_VAL_PROC, 0, 0, len(payload), 0) + payload
    return _NLMSGHDR.pack(_NLMSGHDR.size + len(cn), NLMSG_DONE, 0, 0, os.getpid()) + cn


def _open() -> socket.socket:
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_CONNECTOR)
    try:
        try:
            sock.setsockopt(socket.SOL_SOCKET, 33, _RCVBUF)  # SO_RCVBUFFORCE (root)
        except OSError:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _RCVBUF)
        sock.bind((0, CN_IDX_PROC))
        sock.send(_message(PROC_CN_MCAST_LISTEN))
    except BaseException:
        sock.close()
        raise
    return sock


def availability() -> tuple[bool, str | None]:
    """(True, None) if this process may listen to the proc connector; else a Spanish reason."""
    if not hasattr(socket, "AF_NETLINK"):
        return False, "este sistema no tiene sockets netlink (el conector de procesos es de Linux)."
    try:
        sock = _open()
    except PermissionError:
        return False, (
            "escuchar los eventos de procesos del kernel (conector de procesos, netlink) "
            "necesita privilegios de root (CAP_NET_ADMIN)."
        )
    except OSError as exc:
        return False, f"el kernel no ofrece el conector de procesos (CONFIG_PROC_EVENTS): {exc.strerror}."
    try:
        sock.send(_message(PROC_CN_MCAST_IGNORE))
    finally:
        sock.close()
    return True, None


def _read(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def parse(data: bytes) -> Iterable[Event]:
    """Events in one netlink datagram (normally one)."""
    offset = 0
    while offset + _HEAD + _EVENT_HEAD.size <= len(data):
        length = _NLMSGHDR.unpack_from(data, offset)[0]
        if length < _HEAD:
            return
        what, _cpu, ts = _EVENT_HEAD.unpack_from(data, offset + _HEAD)
        body = offset + _HEAD + _EVENT_HEAD.size
        if what == PROC_EVENT_FORK:
            _ppid, parent_tgid, child_pid, child_tgid = struct.unpack_from("=IIII", data, body)
            if child_pid == child_tgid:  # a new process, not a thread
                yield Event("fork", ts, child_tgid, ppid=parent_tgid)
        elif what == PROC_EVENT_EXEC:
            pid, tgid = struct.unpack_from("=II", data, body)
            yield Event("exec", ts, tgid)
        elif what == PROC_EVENT_EXIT:
            pid, tgid = struct.unpack_from("=II", data, body)
            if pid == tgid:
                yield Event("exit", ts, tgid)
        offset += (length + 3) & ~3


class Listener:
    """Listens in a background thread; `events` fills while the block runs.

    roots: if given, only processes descending from these pids (followed live through fork events)
    have their command line read at exec; on a busy machine reading /proc for every other process's
    exec makes the thread fall behind, and a short-lived process is gone before it is read."""

    def __init__(self, roots: Iterable[int] | None = None):
        self.events: list[Event] = []
        self.lost = False
        self._tracked: set[int] | None = set(roots) if roots is not None else None
        self._stop = threading.Event()
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Listener:
        self._sock = _open()
        self._thread = threading.Thread(target=self._loop, name="proc-events", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        sock = self._sock
        while not self._stop.is_set():
            ready, _, _ = select.select([sock], [], [], 0.05)
            if not ready:
                continue
            try:
                data = sock.recv(65536)
            except OSError:  # ENOBUFS: the kernel dropped events; say so, keep going
                self.lost = True
                continue
            tracked = self._tracked
            for event in parse(data):
                if tracked is not None and event.kind == "fork" and event.ppid in tracked:
                    tracked.add(event.pid)
                if event.kind == "exec" and (tracked is None or event.pid in tracked):
                    # Read at once: a short-lived process (echo) may be gone a moment later.
                    event.cmdline = _read(f"/proc/{event.pid}/cmdline")
                    event.comm = _read(f"/proc/{event.pid}/comm")
                self.events.append(event)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=2)
        if self._sock:
            try:
                self._sock.send(_message(PROC_CN_MCAST_IGNORE))
            except OSError:
                pass
            self._sock.close()


def snapshot_names() -> dict[int, str]:
    """{pid: command line} of every process now running (to name those that existed before)."""
    names = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            names[int(entry)] = _read(f"/proc/{entry}/cmdline") or _read(f"/proc/{entry}/comm")
    return names


def cpu_ms(pid: int) -> float | None:
    """CPU time (user + system, all threads) a process has used so far, in ms; None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")


@dataclass
class Capture:
    root_pid: int
    t0_ns: int  # monotonic time right before the spawn
    t_end_ns: int  # monotonic time right after the reap
    exit_code: int
    events: list
    before: dict  # {pid: cmdline} of the processes alive before the spawn
    lost: bool  # the kernel dropped events (socket buffer full)
    roots_cpu_ms: dict = field(default_factory=dict)  # {root pid: CPU ms it used during the window}


def capture(
    argv: Sequence[str], env: dict | None = None, *, settle: float = 0.3, roots: Iterable[int] = ()
) -> Capture:
    """Spawn argv (stdout to /dev/null), wait for it, and keep listening `settle` s more for the
    processes it left behind (a shim, a clean-up) to exit. Command lines are read for this process's
    descendants and for those of `roots` (an engine's daemons, whose children run a container)."""
    roots = list(roots)
    before = snapshot_names()
    cpu_before = {pid: cpu_ms(pid) for pid in roots}
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        with Listener(roots={os.getpid(), *roots}) as listener:
            actions = [
                (os.POSIX_SPAWN_DUP2, devnull, 0),
                (os.POSIX_SPAWN_DUP2, devnull, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2),
            ]
            t0 = time.monotonic_ns()
            pid = os.posix_spawnp(
                argv[0], list(argv), dict(os.environ if env is None else env), file_actions=actions
            )
            try:
                _, status = os.waitpid(pid, 0)
            except BaseException:
                stop_child(pid)
                raise
            t_end = time.monotonic_ns()
            time.sleep(settle)
    finally:
        os.close(devnull)
    used = {}
    for root, start in cpu_before.items():
        end = cpu_ms(root)
        if start is not None and end is not None:
            used[root] = end - start
    return Capture(
        pid, t0, t_end, os.waitstatus_to_exitcode(status), list(listener.events), before, listener.lost, used
    )


RUNTIMES = ("runc", "runsc", "crun")
CONTAINER_PROCESS = "proceso del contenedor"


def _short(cmdline: str) -> str:
    first = cmdline.split(" ", 1)[0]
    return os.path.basename(first) or first


def chain(cap: Capture, *, markers: Sequence[str] = ()) -> list[Process]:
    """The processes of the capture that belong to the command: descendants of the spawned process,
    plus processes whose command line contains one of `markers` (a container id) and their
    descendants. Ordered by start time; times in ms since the spawn."""
    parent: dict[int, int] = {}
    start: dict[int, int] = {}
    end: dict[int, int] = {}
    execs: dict[int, list] = {}
    for ev in sorted(cap.events, key=lambda e: e.ts_ns):
        if ev.kind == "fork":
            parent[ev.pid] = ev.ppid
            start[ev.pid] = ev.ts_ns
            end.pop(ev.pid, None)
            execs.pop(ev.pid, None)
        elif ev.kind == "exec":
            execs.setdefault(ev.pid, []).append(ev)
        elif ev.kind == "exit" and ev.pid in start:
            end[ev.pid] = ev.ts_ns
    if cap.root_pid not in start:  # posix_spawn's fork happened before the listener saw it: add it
        start[cap.root_pid] = cap.t0_ns
        parent.setdefault(cap.root_pid, os.getpid())

    def cmd_of(pid: int) -> str:
        for ev in reversed(execs.get(pid, [])):
            if ev.cmdline:
                return ev.cmdline
        return ""

    keep: set[int] = {cap.root_pid}
    for pid in start:
        if any(m and m in cmd_of(pid) for m in markers):
            keep.add(pid)
    changed = True
    while changed:  # close under "child of a kept process"
        changed = False
        for pid, ppid in parent.items():
            if pid not in keep and ppid in keep and pid in start:
                keep.add(pid)
                changed = True

    out = []
    for pid in sorted(keep, key=lambda p: start[p]):
        cmd = cmd_of(pid)
        names = [
            (round((e.ts_ns - cap.t0_ns) / 1e6, 3), _short(e.cmdline) or e.comm or "?")
            for e in execs.get(pid, [])
        ]
        if names and names[-1][1] == "?" and _short(cmd_of(parent.get(pid, 0))) in RUNTIMES:
            # Forked by the OCI runtime and exec'd too fast to read: the container's own process.
            name = CONTAINER_PROCESS
            names[-1] = (names[-1][0], name)
        elif names:
            name = names[-1][1]
        else:  # a fork that never exec'd: named after its parent (e.g. a Go runtime helper)
            ppid = parent.get(pid, 0)
            name = _short(cmd_of(ppid) or cap.before.get(ppid, "")) or "?"
            cmd = cmd or cap.before.get(pid, "")
        out.append(
            Process(
                pid,
                parent.get(pid, 0),
                name,
                cmd,
                round((start[pid] - cap.t0_ns) / 1e6, 3),
                round((end[pid] - cap.t0_ns) / 1e6, 3) if pid in end else None,
                names,
            )
        )
    return out
