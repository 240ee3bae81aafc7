"""helpers.proc_events: the kernel's proc connector (parser, the chain of a launch, CPU time of a
process) on synthetic datagrams, and once on a real process tree (root)."""

from __future__ import annotations

import os
import struct

import pytest

from helpers import proc_events


def _datagram(what: int, ts: int, body: bytes) -> bytes:
    event = struct.pack("=IIQ", what, 0, ts) + body
    cn = struct.pack("=IIIIHH", 1, 1, 0, 0, len(event), 0) + event
    return struct.pack("=IHHII", 16 + len(cn), 3, 0, 0, 0) + cn


def test_parser_reads_fork_exec_exit_and_ignores_threads():
    fork = _datagram(proc_events.PROC_EVENT_FORK, 10, struct.pack("=IIII", 100, 100, 200, 200))
    thread = _datagram(proc_events.PROC_EVENT_FORK, 11, struct.pack("=IIII", 100, 100, 201, 100))
    exec_ = _datagram(proc_events.PROC_EVENT_EXEC, 12, struct.pack("=II", 200, 200))
    exit_ = _datagram(proc_events.PROC_EVENT_EXIT, 13, struct.pack("=IIII", 200, 200, 0, 17))
    events = [e for d in (fork, thread, exec_, exit_) for e in proc_events.parse(d)]
    assert [(e.kind, e.pid, e.ppid, e.ts_ns) for e in events] == [
        ("fork", 200, 100, 10),
        ("exec", 200, 0, 12),
        ("exit", 200, 0, 13),
    ]


def test_chain_keeps_descendants_and_processes_naming_the_container():
    E = proc_events.Event
    ms = 1_000_000
    events = [
        E("fork", 1 * ms, 50, ppid=1),
        E("exec", 1 * ms, 50, cmdline="docker run img"),
        E("fork", 2 * ms, 60, ppid=900),
        E("exec", 2 * ms, 60, cmdline="containerd-shim -id abc123 start"),
        E("fork", 3 * ms, 61, ppid=60),
        E("exec", 3 * ms, 61, cmdline="runc create abc123"),
        E("fork", 4 * ms, 62, ppid=61),
        E("exec", 5 * ms, 62, cmdline="echo ok"),
        E("exit", 6 * ms, 62),
        E("fork", 4 * ms, 70, ppid=900),
        E("exec", 4 * ms, 70, cmdline="containerd-shim -id other start"),
        E("exit", 9 * ms, 50),
    ]
    events += [E("fork", 7 * ms, 63, ppid=61), E("exec", 8 * ms, 63, cmdline=""), E("exit", 8 * ms, 63)]
    cap = proc_events.Capture(50, 0, 9 * ms, 0, events, {900: "containerd"}, False)
    chain = proc_events.chain(cap, markers=["abc123"])
    assert [p.pid for p in chain] == [50, 60, 61, 62, 63]
    assert chain[-1].name == proc_events.CONTAINER_PROCESS  # exec'd by runc, gone before it was read
    echo = chain[-2]
    assert (echo.name, echo.start_ms, echo.end_ms, echo.execs) == ("echo", 4.0, 6.0, [(5.0, "echo")])
    assert chain[0].end_ms == 9.0 and chain[1].name == "containerd-shim"


def test_cpu_time_of_a_process():
    before = proc_events.cpu_ms(os.getpid())
    sum(i * i for i in range(2_000_000))  # burn some CPU
    assert proc_events.cpu_ms(os.getpid()) > before
    assert proc_events.cpu_ms(2**22 + 12345) is None  # no such process


@pytest.mark.skipif(os.geteuid() != 0, reason="el conector de procesos necesita root")
def test_proc_connector_sees_a_real_process_tree():
    ok, why = proc_events.availability()
    if not ok:
        pytest.skip(why)
    cap = proc_events.capture(["sh", "-c", "sleep 0.05; true"], settle=0.1)
    assert cap.exit_code == 0 and not cap.lost
    chain = proc_events.chain(cap)
    names = [p.name for p in chain]
    assert names[0] == "sh" and "sleep" in names
    sleep = chain[names.index("sleep")]
    assert sleep.ppid == cap.root_pid
    assert sleep.start_ms <= sleep.end_ms and sleep.end_ms - sleep.start_ms >= 40  # it slept 50 ms
    assert chain[0].end_ms >= sleep.end_ms
