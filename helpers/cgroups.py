"""Reading a container's memory straight from its cgroup (v1 and v2). Nothing here launches anything.

Where the cgroup is comes from the engine's inspect data, never from a guessed path:
- Podman's inspect has `State.CgroupPath` (e.g. "/libpod_parent/libpod-<id>" with cgroupfs);
- Docker's (API 1.41) has no such field, but it has `State.Pid`: /proc/<pid>/cgroup says where that
  process lives (with the cgroupfs driver on v1, "/docker/<id>").

What the files hold:
- v1: `memory.usage_in_bytes` (charged to the cgroup: anonymous memory plus page cache) and
  `memory.stat` (`total_rss`, `total_cache`, `total_inactive_file`, ...; the `total_` figures include
  child cgroups);
- v2: `memory.current` and `memory.stat` (`anon`, `file`, `inactive_file`, ...).

`docker stats` does not print the raw usage: it subtracts the inactive file cache
(`total_inactive_file` on v1, `inactive_file` on v2), pages the kernel may drop at any time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_ROOT = Path("/proc")


def layout(root: Path | str = CGROUP_ROOT) -> str:
    """ "v2" when the memory controller lives in a unified tree, else "v1" (including hybrid hosts,
    whose cgroup2 tree has no controllers)."""
    root = Path(root)
    controllers = root / "cgroup.controllers"
    if controllers.is_file() and "memory" in controllers.read_text().split():
        return "v2"
    return "v1"


def parse_memory_stat(text: str) -> dict[str, int]:
    """`memory.stat` as {key: int}. Lines are "key value"; anything else is skipped."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def parse_proc_cgroup(text: str, controller: str = "memory") -> str | None:
    """The cgroup path of `controller` in a /proc/<pid>/cgroup text.

    v1 lines look like "4:memory:/docker/<id>"; the v2 line is "0::/path". A v1 line naming the
    controller wins; otherwise the v2 line (on a v2 host every controller lives there)."""
    unified = None
    for line in text.splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) != 3:
            continue
        _, names, path = parts
        if controller in names.split(","):
            return path
        if names == "" and parts[0] == "0":
            unified = path
    return unified


def cgroup_of_pid(pid: int, *, proc_root: Path | str = PROC_ROOT, controller: str = "memory") -> str | None:
    try:
        text = (Path(proc_root) / str(pid) / "cgroup").read_text()
    except OSError:
        return None
    return parse_proc_cgroup(text, controller)


def contains_process(cgroup_path: str, pid: int | None = None, *, proc_root: Path | str = PROC_ROOT) -> bool:
    """True if `pid` (default: this process) lives in `cgroup_path` or below it. A container "cgroup"
    that also holds the process measuring it is not the container's own (rootless Podman on cgroup v1
    creates none: its containers stay in the user's cgroup), so its memory is not the container's."""
    own = cgroup_of_pid(os.getpid() if pid is None else pid, proc_root=proc_root)
    if own is None:
        return False
    path = "/" + cgroup_path.strip("/")
    own = "/" + own.strip("/")
    return own == path or path == "/" or own.startswith(path + "/")


def per_container_reason(engine, container_cgroups: Iterable[str | None]) -> str | None:
    """Why these containers have no cgroup of their own to read (Spanish), or None if they have."""
    if getattr(engine, "rootless", False) and layout() != "v2":
        return (
            f"{engine.display} en cgroups {layout()} no crea un cgroup por contenedor (sin root, solo "
            "cgroups v2 con delegación lo permite): sus procesos quedan en el cgroup de tu sesión, así "
            "que no hay memoria por contenedor que leer, ni «stats»."
        )
    paths = list(container_cgroups)
    if any(not p for p in paths):
        return f"{engine.display} no dice el cgroup de algún contenedor en sus datos de inspect."
    if any(contains_process(p) for p in paths):
        return (
            f"el cgroup que {engine.display} da para sus contenedores también contiene a este proceso: "
            "no es de cada contenedor, y su memoria no se le puede atribuir."
        )
    return None


def cgroup_from_inspect(data: dict, *, proc_root: Path | str = PROC_ROOT) -> str | None:
    """The cgroup path (relative to the hierarchy root) of an inspected container, or None.

    Order: an explicit `State.CgroupPath` (Podman); else where the container's PID 1 lives
    (`State.Pid`, via /proc/<pid>/cgroup). On cgroup v2 crun runs the container's processes in a
    `container` sub-cgroup of the scope Podman reports; the scope adds what was charged there before
    the processes moved (in the Debian 13 guest, 12 KB over 200 KB). Where PID 1 lives below the
    reported path, that sub-cgroup is read: every engine's container is read where its processes are,
    as Docker's always were."""
    state = data.get("State") or {}
    explicit = state.get("CgroupPath")
    pid = state.get("Pid") or 0
    own = cgroup_of_pid(pid, proc_root=proc_root) if pid > 0 else None
    if explicit:
        if own and own.rstrip("/").startswith(explicit.rstrip("/") + "/"):
            return own
        return explicit
    return own


def version_label(value) -> str | None:
    """ "v1"/"v2" from what an engine reports (Docker says "2", Podman "v2"), None if it says nothing."""
    text = str(value or "").strip().lower().removeprefix("v")
    return f"v{text}" if text.isdigit() else (str(value) if value else None)


def memory_dir(cgroup_path: str, root: Path | str = CGROUP_ROOT, version: str | None = None) -> Path:
    """The directory holding the memory files of `cgroup_path`."""
    root = Path(root)
    version = version or layout(root)
    rel = cgroup_path.lstrip("/")
    return root / rel if version == "v2" else root / "memory" / rel


@dataclass(frozen=True)
class MemoryReading:
    """One reading of a cgroup's memory files, in bytes."""

    path: str
    version: str
    usage: int  # memory.usage_in_bytes (v1) / memory.current (v2)
    anon: int  # total_rss (v1) / anon (v2)
    file: int  # total_cache (v1) / file (v2)
    inactive_file: int  # total_inactive_file (v1) / inactive_file (v2)

    @property
    def stats_view(self) -> int:
        """What `docker stats` prints: usage minus the inactive file cache."""
        return self.usage - self.inactive_file if self.inactive_file < self.usage else self.usage


def read_memory(
    cgroup_path: str, *, root: Path | str = CGROUP_ROOT, version: str | None = None
) -> MemoryReading:
    """Read one cgroup's memory. Raises FileNotFoundError when the cgroup does not exist."""
    version = version or layout(root)
    directory = memory_dir(cgroup_path, root, version)
    stat = parse_memory_stat((directory / "memory.stat").read_text())
    if version == "v2":
        usage = int((directory / "memory.current").read_text().strip())
        return MemoryReading(
            cgroup_path,
            version,
            usage,
            stat.get("anon", 0),
            stat.get("file", 0),
            stat.get("inactive_file", 0),
        )
    usage = int((directory / "memory.usage_in_bytes").read_text().strip())

    def pick(key: str) -> int:
        return stat.get(f"total_{key}", stat.get(key, 0))

    return MemoryReading(cgroup_path, version, usage, pick("rss"), pick("cache"), pick("inactive_file"))


def read_many(
    cgroup_paths: Iterable[str], *, root: Path | str = CGROUP_ROOT, version: str | None = None
) -> tuple[list[MemoryReading], float]:
    """Read several cgroups; returns (readings, seconds it took)."""
    version = version or layout(root)
    start = time.perf_counter_ns()
    readings = [read_memory(p, root=root, version=version) for p in cgroup_paths]
    return readings, (time.perf_counter_ns() - start) / 1e9


# ---------------------------------------------------------------- limits (CPU quota, memory limit)
UNLIMITED_FROM = 2**60  # v1 writes «no limit» as a huge byte count (PAGE_COUNTER_MAX pages)


@dataclass(frozen=True)
class Limits:
    """The CPU quota (in CPUs, quota ÷ period; None: no quota) and memory limit (bytes; None: none) of the
    cgroups a process lives in, and the files they were read from."""

    cpus: float | None
    memory: int | None
    files: str


def parse_cpu_max(text: str) -> float | None:
    """v2's cpu.max, «QUOTA PERIOD» («max 100000»: no quota), in CPUs."""
    quota, _, period = text.strip().partition(" ")
    if quota == "max" or not period:
        return None
    return int(quota) / int(period)


def parse_cfs(quota: str, period: str) -> float | None:
    """v1's cpu.cfs_quota_us and cpu.cfs_period_us (quota −1: no quota), in CPUs."""
    q = int(quota.strip())
    return None if q < 0 else q / int(period.strip())


def parse_memory_limit(text: str) -> int | None:
    """memory.max (v2, «max») or memory.limit_in_bytes (v1, a huge number) in bytes; None: no limit."""
    text = text.strip()
    if text == "max" or int(text) >= UNLIMITED_FROM:
        return None
    return int(text)


def read_limits(cgroup_path: str, *, root: Path | str = CGROUP_ROOT) -> Limits:
    """The limits set on one cgroup (the same path in the cpu and memory hierarchies, as engines and LXD
    make them), read back from the kernel's files. OSError when the cgroup is gone."""
    root = Path(root)
    version = layout(root)
    rel = cgroup_path.lstrip("/")
    if version == "v2":
        cpus = parse_cpu_max((root / rel / "cpu.max").read_text())
        memory = parse_memory_limit((root / rel / "memory.max").read_text())
        return Limits(cpus, memory, "cpu.max, memory.max")
    cpu_dir, mem_dir = root / "cpu" / rel, memory_dir(cgroup_path, root, version)
    cpus = parse_cfs((cpu_dir / "cpu.cfs_quota_us").read_text(), (cpu_dir / "cpu.cfs_period_us").read_text())
    memory = parse_memory_limit((mem_dir / "memory.limit_in_bytes").read_text())
    return Limits(cpus, memory, "cpu.cfs_quota_us ÷ cpu.cfs_period_us, memory.limit_in_bytes")
