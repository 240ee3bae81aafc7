"""What an inner engine adds on the host: the processes of an outer container, their memory (PSS) and
the size of the inner image store."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import psutil

from ... import system

IDLE = ("sleep", "sh")  # the outer container's PID 1 (the reaper shell) and the idle workers


def outer_processes(pid: int) -> list[psutil.Process]:
    """The live processes of an outer container: its PID 1 and all its descendants (the inner engine and
    the inner containers' processes, all reparented inside its PID namespace). Zombies left out."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return []
    out = []
    for p in procs:
        with contextlib.suppress(psutil.Error):
            if p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
    return out


def process_tree(pid: int) -> list[list]:
    """[pid, name, create_time] of every live process of an outer container."""
    out = []
    for p in outer_processes(pid):
        with contextlib.suppress(Exception):
            out.append([p.pid, p.name(), p.create_time()])
    return out


def inner_engine_memory(outer_pid: int) -> dict:
    """PSS (and RSS) of every process in the outer container except the idle shell and `sleep`s: the
    inner engine's processes (dockerd, containerd, shims / conmon)."""
    procs = outer_processes(outer_pid)
    if not procs:
        return {"pss": None, "procesos": []}
    readings = [system.process_memory(p) for p in procs]
    kept = [r for r in readings if r.get("name") not in IDLE]
    totals = system.memory_totals(kept)
    return {
        "pss": totals.get("pss"),
        "rss": totals.get("rss"),
        "procesos": [
            {
                "nombre": r.get("name"),
                "pss_kb": (r.get("pss") or 0) // 1024,
                "rss_kb": (r.get("rss") or 0) // 1024,
            }
            for r in kept
        ],
    }


def directory_size(path: Path) -> int:
    """Bytes used under path (files counted once, symlinks not followed)."""
    total, seen = 0, set()
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(dirpath, name))
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    total += st.st_blocks * 512
    return total
