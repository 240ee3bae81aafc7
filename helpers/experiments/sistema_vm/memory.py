"""Memory probes: the PSS of an instance's processes, and touch-and-free (memtoca) seen from the host."""

from __future__ import annotations

import time

import psutil

from ... import measure, system
from .kinds import ANTES, DESPUES, DESPUES_HUESPED, DESPUES_QEMU, DURANTE, MB, RETENIDA

# memtoca's pause after touching and after freeing: the host reads «durante» as soon as memtoca says
# «tocado», and «después» SETTLE_S after «liberado», so one second holds the block, and then the process,
# past each reading (2 s cost 1 s more per instance, 2 s more in a VM, whose console waits for the end).
PAUSE_S = 1
SETTLE_S = 0.5  # after «liberado», before reading «después»: the host's accounting settles


def pss(pids) -> tuple[int, int]:
    """(PSS, RSS) in bytes summed over pids (processes that vanished count 0)."""
    total = rss = 0
    for pid in pids:
        try:
            reading = system.process_memory(psutil.Process(pid))
        except psutil.Error:
            continue
        rss += reading.get("rss") or 0
        total += reading.get("pss") or reading.get("rss") or 0
    return total, rss


def memory_given_back(instance, megabytes: int) -> dict[str, float]:
    """Touch and free `megabytes` inside the instance; the host's view before, while touched, after, and
    for a VM the «after» split into the guest's RAM and QEMU's own memory (`resident_split`)."""
    before = instance.host_memory()
    command = instance.start_command(["/sonda/memtoca", str(megabytes), str(PAUSE_S)])
    try:
        command.wait_for("memtoca tocado", 300)
        during = instance.host_memory()
        command.wait_for("memtoca liberado", 300)
        time.sleep(SETTLE_S)
        after = instance.host_memory()
        split = instance.resident_split()
    finally:
        if isinstance(command, measure.Child):
            command.stop()
        else:
            command.finish()
    touched = during - before
    kept = 100.0 * (after - before) / touched if touched > 0 else float("nan")
    out = {ANTES: before / MB, DURANTE: during / MB, DESPUES: after / MB, RETENIDA: kept}
    if split is not None:
        out.update({DESPUES_HUESPED: split[0] / MB, DESPUES_QEMU: split[1] / MB})
    return out
