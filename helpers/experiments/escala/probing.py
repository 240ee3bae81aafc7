"""Experiment 2, the engines' side: launch N idle containers, inspect them, read their memory and
their helpers' (containerd shims, conmon), time `stats --no-stream`, remove them."""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import psutil

from ... import engines as eng
from ... import measure, system

SLEEP_SECONDS = 3600
SETTLE_SECONDS = 0.25
KB = 1024
HELPER = {"docker": "shims", "podman": "conmon", "kubernetes": "shims"}
# The processes that stay whatever N is. Kubernetes (notebook 04 bills its single-node cluster with the
# same rows): the control plane, the node's agents and the cluster's own containerd.
FIXED = {
    "docker": ("daemon", "containerd"),
    "podman": (),
    "kubernetes": (
        "apiserver", "etcd", "controller_manager", "scheduler", "kubelet", "kube_proxy", "containerd",
    ),
}  # fmt: skip

NETWORKS = ("por_defecto", "sin_red")  # the chapter's script used the default network; sin_red: ours
# `sleep` as PID 1 ignores SIGTERM: stop at once
LAUNCH_OPTIONS = {
    "por_defecto": eng.RunOptions(stop_timeout=0),
    "sin_red": eng.RunOptions(network="none", stop_timeout=0),
}


def launch_argv(
    engine: eng.Engine, image: str, *, run_id: str, name: str, network: str = NETWORKS[0]
) -> list[str]:
    return engine.run_argv(
        image,
        ["sleep", str(SLEEP_SECONDS)],
        run_id=run_id,
        name=name,
        remove=False,
        detach=True,
        opts=LAUNCH_OPTIONS[network],
    )


def inspect_all(engine: eng.Engine, names: list[str]) -> list[eng.Container]:
    """Every container inspected, with its cgroup and its helper process (shim / conmon)."""
    return [engine.describe(d) for d in engine.inspect_many(names)]


def helper_memory(containers: list[eng.Container]) -> tuple[dict, list[str]]:
    """Summed RSS/PSS (bytes) of the distinct helper processes, and their names."""
    readings = []
    for pid in dict.fromkeys(c.helper_pid for c in containers if c.helper_pid):
        try:
            readings.append(system.process_memory(psutil.Process(pid)))
        except psutil.Error:
            continue
    return system.memory_totals(readings), sorted({r["name"] for r in readings})


def groups_memory(groups: dict[str, list[psutil.Process]]) -> dict[str, dict]:
    """Summed RSS/PSS (bytes) of each named group of processes (system.memory_totals)."""
    return {
        key: system.memory_totals([system.process_memory(p) for p in procs]) for key, procs in groups.items()
    }


def fixed_memory(engine_name: str) -> dict[str, dict]:
    """{"daemon": totals, "containerd": totals} for Docker; {} for Podman (no daemon)."""
    procs = eng.get_engine(engine_name).daemon_processes()
    return groups_memory({key: procs.get(key, []) for key in FIXED[engine_name]})


def memory_rows(totals: dict[str, dict]) -> list[tuple[str, float, str]]:
    """The bill's raw rows of groups_memory() totals: rss_<key> and, where readable, pss_<key> (KB)."""
    rows = []
    for key, total in totals.items():
        rows.append((f"rss_{key}", round(float(total["rss"] / KB), 4), "KB"))
        if total["pss"] is not None:
            rows.append((f"pss_{key}", round(float(total["pss"] / KB), 4), "KB"))
    return rows


def used_memory_bytes() -> int:
    """System-wide used memory as `free` sees it (total - available)."""
    mem = psutil.virtual_memory()
    return mem.total - mem.available


_SIZE = re.compile(r"^\s*([\d.]+)\s*([A-Za-z]*)")
_UNITS = {"": 1, "b": 1, "kb": 1e3, "kib": 2**10, "mb": 1e6, "mib": 2**20, "gb": 1e9, "gib": 2**30}


def parse_size(text: str) -> float | None:
    """Bytes in a stats size such as "848KiB" (Docker, binary) or "749.6kB" (Podman, decimal)."""
    match = _SIZE.match(text or "")
    if not match or match.group(2).lower() not in _UNITS:
        return None
    return float(match.group(1)) * _UNITS[match.group(2).lower()]


def stats_cli(engine: eng.Engine, names: list[str]) -> tuple[float, list[float]]:
    """Time `docker/podman stats --no-stream` for these containers; (seconds, bytes per container)."""
    elapsed, usage = engine.stats(names)
    sizes = [parse_size(u.split("/")[0]) for u in usage]
    return elapsed, [v for v in sizes if v is not None]


# ---------------------------------------------------------------- launching
def launch(
    engine: eng.Engine, argvs: list[list[str]], concurrency: int, env: dict
) -> tuple[float, list[float]]:
    """Run every `run -d` command; returns (wall seconds, ms of each command). Nothing but the
    launches runs inside the timed window (no progress bar, no logging).

    With concurrency > 1 the commands run in threads. On any exception (Ctrl-C included) no new command
    starts and the running ones are waited for, so clean-up afterwards sees every container."""
    per: list[float] = []
    start = time.perf_counter_ns()
    if concurrency <= 1:
        for argv in argvs:
            per.append(measure.time_command(argv, env=env))
        return (time.perf_counter_ns() - start) / 1e9, per
    stop = threading.Event()

    def one(argv):
        if stop.is_set():
            return None
        return measure.time_command(argv, env=env)

    pool = ThreadPoolExecutor(max_workers=concurrency)
    try:
        futures = [pool.submit(one, argv) for argv in argvs]
        for future in as_completed(futures):
            value = future.result()
            if value is not None:
                per.append(value)
    except BaseException:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return (time.perf_counter_ns() - start) / 1e9, per


def remove_until_gone(engine_names, run_id: str, attempts: int = 4) -> None:
    """Clean-up after an interruption: a `run -d` cut short may register its container a moment later."""
    for name in engine_names:
        engine = eng.get_engine(name)
        for _ in range(attempts):
            try:
                engine.cleanup(run_id)
                if not engine.list_labelled(run_id):
                    break
            except Exception:  # noqa: BLE001 - keep trying, the base context cleans up again
                pass
            time.sleep(0.5)
