"""Timing, the order of rounds and the machine's load.

Timing: `time.perf_counter_ns()` around exactly the thing measured. A command is started with
`os.posix_spawnp` (no shell, no Python subprocess machinery) so the bare-metal baseline costs what a
real process costs, and waited for through a pidfd: the window holds the spawn and the exit, no thread.

Scheduling: rounds that visit every arm once, in a seeded random order per round (`round_robin`).
The machine's load over a window (a round): CPU pressure from /proc/pressure/cpu (else the load
average), steal time from /proc/stat, and the CPU time the rest of the machine used apart from the run's
own work (helpers/other_work.py) (`load_counters`, `load_between`).

Statistics live in `helpers/stats.py` (medians, intervals with tested coverage, published ranges).
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import other_work
from .errors import ComandoFallido, summarize_engine_error

COMMAND_TIMEOUT = 600.0  # seconds: no measured command may wait forever (a hung engine)


# ---------------------------------------------------------------- timing
def spawn_and_wait(
    argv: Sequence[str],
    env: dict | None = None,
    *,
    keep_stderr: bool = False,
    timeout: float | None = COMMAND_TIMEOUT,
) -> tuple[int, int, str]:
    """Run argv, return (elapsed_ns, exit_code, stderr_text). stdout goes to /dev/null.

    The clock starts right before the spawn and stops as soon as the kernel reports the child's exit;
    everything else (the environment, the file actions, the stderr file) is prepared before it starts. stderr is
    returned on failure, or always with keep_stderr=True (for probes that report on stderr). A child
    still running after `timeout` seconds is stopped (SIGTERM, then SIGKILL) and ComandoFallido is
    raised: a hung engine never blocks a notebook forever. The deadline costs the timed window no
    thread: the kernel keeps it (see `_wait`).
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    err = tempfile.TemporaryFile()
    try:
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, devnull, 1),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
        ]
        environment = dict(os.environ if env is None else env)
        start = time.perf_counter_ns()
        pid = os.posix_spawnp(argv[0], list(argv), environment, file_actions=actions)
        try:
            status, end = _wait(pid, timeout)
        except BaseException:
            # Interrupted (Ctrl-C): do not leave the child behind.
            stop_child(pid)
            raise
        elapsed = end - start
        if status is None:
            raise ComandoFallido(
                f"«{' '.join(argv)[:120]}» no terminó en {timeout:.0f} s y lo detuve: "
                "el motor parece colgado.",
                detail=f"timeout after {timeout} s",
            )
        code = os.waitstatus_to_exitcode(status)
        stderr = ""
        if code != 0 or keep_stderr:
            err.seek(0)
            stderr = err.read().decode("utf-8", "replace").strip()
        return elapsed, code, stderr
    finally:
        os.close(devnull)
        err.close()


def _wait(pid: int, timeout: float | None) -> tuple[int | None, int]:
    """Reap the child `pid`: (its wait status, the clock when its exit was known); the status is None if
    the child was still running after `timeout` seconds (it has then been stopped and reaped by
    `stop_child`).

    The deadline is a pidfd polled with a timeout: the kernel wakes this thread when the child exits,
    exactly as `waitpid` would, and nothing else runs meanwhile (a timer thread started per spawn
    added 0.1-0.2 ms to a 0.8 ms `true` here). The clock is read when poll returns; the reap and the
    pidfd's close come after it. On a kernel without pidfd (Linux < 5.3) a timer thread stands in, at
    that cost."""
    if not timeout:
        status = os.waitpid(pid, 0)[1]
        return status, time.perf_counter_ns()
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return _wait_with_timer(pid, timeout)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        exited = poller.poll(timeout * 1000)
        end = time.perf_counter_ns()
        if not exited:
            stop_child(pid)
            return None, end
        return os.waitpid(pid, 0)[1], end
    finally:
        os.close(pidfd)


def _wait_with_timer(pid: int, timeout: float) -> tuple[int | None, int]:
    """`_wait` for kernels without pidfd: a timer thread stops the child when the deadline passes
    (SIGTERM, then SIGKILL 2 s later) and this thread reaps it as usual."""
    fired = threading.Event()

    def fire() -> None:
        fired.set()
        for sig, pause in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            time.sleep(pause)

    timer = threading.Timer(timeout, fire)
    timer.daemon = True
    timer.start()
    try:
        status = os.waitpid(pid, 0)[1]
        end = time.perf_counter_ns()
    finally:
        timer.cancel()
    return (None if fired.is_set() else status), end


def stop_child(pid: int, grace: float = 2.0) -> None:
    """SIGTERM, a short grace, then SIGKILL, and reap. `docker run` forwards SIGTERM to the
    container, whose PID 1 (e.g. `sleep`) may ignore it: waiting for it could take minutes."""
    try:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                return
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def command_failed(argv: Sequence[str], code: int, stderr: str) -> ComandoFallido:
    """The Spanish error for a command that exited non-zero; the engine's own words go to `detail`."""
    return ComandoFallido(
        f"«{' '.join(argv)[:120]}» terminó con código {code}: {summarize_engine_error(stderr)}.",
        detail=(stderr or "")[-2000:],
    )


def time_command(argv: Sequence[str], env: dict | None = None) -> float:
    """Elapsed milliseconds of one run of argv; raises ComandoFallido on a non-zero exit."""
    elapsed, code, stderr = spawn_and_wait(argv, env)
    if code != 0:
        raise command_failed(argv, code, stderr)
    return elapsed / 1e6


class Child:
    """A child process read line by line as it writes: an attached `docker run`, a VM's serial console.

    The clock starts right before the spawn; `wait_for(marker)` returns when a line holding the marker
    has arrived, and `elapsed_ms` is then the time from spawn to that line. The child runs in its own
    process group (so Ctrl-C reaches only this program, which then stops it) and receives SIGKILL if
    this program dies first. `stop()` kills the whole group and reaps it.
    """

    def __init__(
        self, argv: Sequence[str], env: dict | None = None, *, stdin: bool = False, cwd: str | None = None
    ):
        self.argv = list(argv)
        self._pending = b""
        self.lines: list[str] = []
        self.marked_ns: int | None = None
        self.start_ns = time.perf_counter_ns()
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def read(self, timeout: float) -> bool:
        """Read what is available within `timeout` s; False at end of output."""
        ready, _, _ = select.select([self.proc.stdout], [], [], max(timeout, 0))
        if not ready:
            return True
        chunk = os.read(self.proc.stdout.fileno(), 65536)
        if not chunk:
            return False
        self._pending += chunk.replace(b"\r", b"")
        *complete, self._pending = self._pending.split(b"\n")
        self.lines += [line.decode("utf-8", "replace") for line in complete]
        return True

    def wait_for(self, marker: str, timeout: float, *, start: int | None = None) -> str:
        """The first line (from index `start`, default: lines not yet consumed) that holds `marker`.
        Raises TimeoutError, or ComandoFallido if the child ends first."""
        index = self._consumed if start is None else start
        deadline = time.monotonic() + timeout
        while True:
            for i in range(index, len(self.lines)):
                if marker in self.lines[i]:
                    if self.marked_ns is None:
                        self.marked_ns = time.perf_counter_ns()
                    self._consumed = i + 1
                    return self.lines[i]
            index = len(self.lines)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"«{marker}» no apareció en {timeout:.0f} s; salida: {self.tail()}")
            if not self.read(min(left, 0.5)):
                self.proc.wait()
                raise ComandoFallido(
                    f"El proceso «{' '.join(self.argv[:3])} …» terminó (código "
                    f"{self.proc.returncode}) antes de «{marker}»: {self.tail()}"
                )

    _consumed = 0

    @property
    def elapsed_ms(self) -> float:
        """Spawn to the first marker found, in ms."""
        return float("nan") if self.marked_ns is None else (self.marked_ns - self.start_ns) / 1e6

    def send(self, text: str) -> None:
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def tail(self, n: int = 8) -> str:
        return " | ".join(
            self.lines[-n:] + ([self._pending.decode("utf-8", "replace")] if self._pending else [])
        )

    def detach(self) -> None:
        """Kill this process alone (SIGKILL, not its group) and reap it: an attached `docker run` /
        `podman run` client dies and its container keeps running (SIGKILL is never forwarded)."""
        if self.proc.returncode is None:
            try:
                os.kill(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream:
                stream.close()

    def stop(self, grace: float = 1.0) -> None:
        """SIGTERM to the whole process group, a short grace, SIGKILL, reap. Safe to call twice."""
        if self.proc.returncode is not None:
            return
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream:
                stream.close()


class Fifo:
    """A named pipe the host blocks on until an instance writes its marker into it, from inside: a
    readiness signal the instance emits itself, with nothing polling it from the host.

    Created in `folder` with mode 0666 (an unprivileged instance's root is a high host uid) and opened
    at once for reading, without blocking, so the writer never waits for a reader. `wait_for` sleeps in
    select(2) until the writer's line arrives: on Linux, a pipe nobody has opened for writing yet is
    neither readable nor hung up."""

    NAME = "listo"

    def __init__(self, folder: str | os.PathLike):
        self.path = os.path.join(folder, self.NAME)
        os.mkfifo(self.path)
        os.chmod(self.path, 0o666)  # not subject to the umask, as mkfifo's mode is
        self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        self.text = ""

    def wait_for(self, marker: str, timeout: float) -> str:
        """Everything written until the marker. Raises TimeoutError, or ComandoFallido if the writer
        closed the pipe without writing it."""
        deadline = time.monotonic() + timeout
        while marker not in self.text:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"«{marker}» no llegó a {self.path} en {timeout:.0f} s: «{self.text}»")
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.fd, 4096)
            if not chunk:
                raise ComandoFallido(f"Quien escribía en {self.path} lo cerró sin «{marker}»: «{self.text}»")
            self.text += chunk.decode("utf-8", "replace")
        return self.text

    def close(self) -> None:
        """Close the pipe and remove it (safe to call twice)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: the child gets SIGKILL if the process that started it dies (prctl PR_SET_PDEATHSIG)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except Exception:  # noqa: BLE001 - best effort: not on Linux, no libc
        pass


# ---------------------------------------------------------------- scheduling
@dataclass(frozen=True)
class Step:
    """One scheduled measurement: arm `arm`, repetition `rep` (1-based), or a warm-up; `position` is its
    place in its round (1 = first)."""

    arm: object
    rep: int
    warmup: bool
    position: int = 1


def round_robin(arms: Sequence, repetitions: int, warmup: int = 0, *, seed: int) -> list[Step]:
    """Rounds that visit every arm once, each round in its own random order drawn from `seed`
    (B A C, C B A, ...): warm-up rounds first, then measured rounds. A fixed order (A B C every round)
    would put the after-effects of one arm (a heavy launch's clean-up in the kernel, a daemon's
    bookkeeping) on the same next arm in every round, and pairing by round cannot take that out."""
    rng = np.random.default_rng(seed)

    def one_round(rep: int, warm: bool) -> list[Step]:
        return [Step(arms[i], rep, warm, k) for k, i in enumerate(rng.permutation(len(arms)), 1)]

    steps = [s for i in range(warmup) for s in one_round(i + 1, True)]
    steps += [s for i in range(repetitions) for s in one_round(i + 1, False)]
    return steps


# ---------------------------------------------------------------- the machine's load
PRESSURE_FILE = "/proc/pressure/cpu"  # PSI (Linux >= 4.20 with psi enabled)
STAT_FILE = "/proc/stat"
LOADAVG_FILE = "/proc/loadavg"


@dataclass(frozen=True)
class LoadCounters:
    """The machine's load counters at one instant: the clock (ns), PSI's «some» total (µs during which
    at least one runnable task waited for a CPU; None where the kernel has no PSI) and the CPU time of
    /proc/stat (ticks: stolen by the hypervisor, and all of it; None if unreadable)."""

    ns: int
    pressure_us: int | None
    steal_ticks: int | None
    all_ticks: int | None
    processes: dict | None = None  # other_work.snapshot(): every process and its CPU time


@dataclass(frozen=True)
class WindowLoad:
    """The machine's load over one window (a round): the share of the window in which some task waited
    for a CPU (%, PSI), or where there is no PSI the 1-minute load average at its end; and the share of
    CPU time the hypervisor stole (%; None when no tick elapsed in the window); and the share of the
    machine's CPU time that work other than the run's own used (%, other_work; None when the window is
    shorter than OTHER_MIN_TICKS of the machine's CPU time, too short for a tick count to mean a share).
    """

    pressure_pct: float | None
    loadavg: float | None
    steal_pct: float | None
    other_pct: float | None = None


OTHER_MIN_TICKS = 20  # the machine's CPU ticks a window needs for its other work's share (one tick: 5 %)


def load_counters(
    pressure_file: str = PRESSURE_FILE, stat_file: str = STAT_FILE, proc: str | None = other_work.PROC
) -> LoadCounters:
    """Read the counters now: two small reads from /proc (some tens of µs) and, unless `proc` is None,
    every process's CPU time (other_work.snapshot: a few ms, outside the timed arms)."""
    pressure = None
    try:
        with open(pressure_file, encoding="ascii") as fh:
            for line in fh:
                if line.startswith("some "):
                    fields = dict(f.split("=", 1) for f in line.split()[1:])
                    pressure = int(fields["total"])
    except (OSError, ValueError, KeyError):  # no PSI (older kernel, psi=0, some containers)
        pressure = None
    steal = total = None
    try:
        with open(stat_file, encoding="ascii") as fh:
            first = fh.readline().split()
        # cpu user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already
        # inside user, so the machine's time is the first eight fields.
        ticks = [int(x) for x in first[1:9]]
        if first[0] == "cpu" and len(ticks) == 8:
            steal, total = ticks[7], sum(ticks)
    except (OSError, ValueError, IndexError):
        steal = total = None
    processes = other_work.snapshot(proc) if proc else None
    return LoadCounters(time.monotonic_ns(), pressure, steal, total, processes)


def load_between(start: LoadCounters, end: LoadCounters, loadavg_file: str = LOADAVG_FILE) -> WindowLoad:
    """The load over the window from `start` to `end` (two `load_counters` readings)."""
    window_us = (end.ns - start.ns) / 1e3
    pressure = loadavg = None
    if start.pressure_us is not None and end.pressure_us is not None and window_us > 0:
        pressure = min(100.0, max(0.0, 100.0 * (end.pressure_us - start.pressure_us) / window_us))
    else:
        try:
            with open(loadavg_file, encoding="ascii") as fh:
                loadavg = float(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            loadavg = None
    steal = None
    if None not in (start.all_ticks, end.all_ticks, start.steal_ticks, end.steal_ticks):
        elapsed = end.all_ticks - start.all_ticks
        if elapsed > 0:
            steal = 100.0 * (end.steal_ticks - start.steal_ticks) / elapsed
    other = None
    if start.processes and end.processes and None not in (start.all_ticks, end.all_ticks):
        elapsed = end.all_ticks - start.all_ticks
        if elapsed >= OTHER_MIN_TICKS:
            other = other_work.share(other_work.other_ticks(start.processes, end.processes), elapsed)
    return WindowLoad(pressure, loadavg, steal, other)
