"""Clean-up across engines: one run's containers, and the orphans of runs that are gone (containers, the
run's own bridges with their firewall rules, the Kubernetes cluster)."""

from __future__ import annotations

import datetime
import time
from collections.abc import Sequence

from . import bridges, kubernetes_host
from .base import CONTAINER_ENGINES, DISPLAY
from .labels import LABEL_RUN, orphan_reason
from .registry import get_engine

NETWORK_GONE = "su red ya no existe"  # why a course rule without its network is removed


def cleanup_all(run_id: str | None, engines: Sequence[str] = CONTAINER_ENGINES) -> dict[str, int]:
    """Remove one run's containers (every course container if run_id is None, explicitly) on every
    available engine; never raises."""
    removed = {}
    for name in engines:
        try:
            removed[name] = get_engine(name).cleanup(run_id)
        except Exception:  # noqa: BLE001 - clean-up must not mask the original error
            removed[name] = -1
    return removed


def reap_orphans(engines: Sequence[str] = CONTAINER_ENGINES, log=None) -> dict[str, dict]:
    """Remove the course containers whose run is gone (see orphan_reason), on every available engine,
    then those runs' own bridges (reap_bridges) and the course's Kubernetes cluster of a dead run.

    Returns {run_id: {"engine": name, "removed": n, "reason": Spanish}} and logs one Spanish line per
    run. A container of a run that is still alive (in another kernel or terminal) is never touched.
    Never raises: an engine that does not answer is skipped."""
    reaped: dict[str, dict] = {}
    for name in engines:
        engine = get_engine(name)
        try:
            if not engine.available:
                continue
            by_run: dict[str, tuple[list[str], str]] = {}
            now = time.time()
            for cid, labels, created in engine.course_containers():
                why = orphan_reason(labels, created=_unix_time(created), now=now)
                if why:
                    run = labels.get(LABEL_RUN) or "(sin corrida)"
                    ids, _ = by_run.get(run, ([], why))
                    by_run[run] = (ids + [cid], why)
            for run, (ids, why) in by_run.items():
                removed = engine.remove_ids(ids)
                reaped[f"{name}:{run}"] = {"engine": name, "run": run, "removed": removed, "reason": why}
                if log:
                    noun = "contenedor huérfano" if removed == 1 else "contenedores huérfanos"
                    log(f"Eliminé {removed} {noun} de {engine.display} de la corrida {run}: {why}.")
        except Exception:  # noqa: BLE001 - reaping must never stop a run or the set-up
            continue
    reaped.update(reap_bridges(engines, log))  # after the containers: a network in use cannot go
    reaped.update(kubernetes_host.reap_orphans(log))  # the course's Kubernetes cluster of a dead run
    return reaped


def reap_bridges(engines: Sequence[str] = CONTAINER_ENGINES, log=None) -> dict[str, dict]:
    """Remove the bridges of runs that are gone (bridges.py: a network with the course's labels, and its
    firewall rule), and the course's rules whose network no longer exists. Only where this process can
    make such a bridge (root, iptables); never raises. Returns entries like reap_orphans', with
    "what": "puente"."""
    reaped: dict[str, dict] = {}
    for name in engines:
        try:
            if not bridges.availability(name)[0] or not get_engine(name).available:
                continue
            env = get_engine(name).env()
            # The rules first: a run makes its network before its rule, so a rule listed now whose network
            # is not listed next belongs to no live run.
            rules = bridges.course_rules(name)
            networks = bridges.course_networks(name, env)
            for bridge, run, why in orphan_bridges(name, networks, rules, time.time()):
                bridges.remove(bridge, env)
                reaped[f"{name}:{run}:puente {bridge.name}"] = {
                    "engine": name,
                    "run": run,
                    "removed": 1,
                    "reason": why,
                    "what": "puente",
                }
                if log and why == NETWORK_GONE:
                    log(f"Eliminé la regla de cortafuegos huérfana del puente «{bridge.name}»: {why}.")
                elif log:
                    log(
                        f"Eliminé el puente huérfano «{bridge.name}» de {DISPLAY.get(name, name)} (su red y su "
                        f"regla de cortafuegos) de la corrida {run}: {why}."
                    )
        except Exception:  # noqa: BLE001 - reaping must never stop a run or the set-up
            continue
    return reaped


def orphan_bridges(
    engine: str, networks: Sequence[tuple[bridges.Bridge, dict, object]], rules: dict[str, list], now: float
) -> list[tuple[bridges.Bridge, str, str]]:
    """Which of `engine`'s course bridges to remove: (bridge, run, Spanish reason) for each network whose run
    is gone (orphan_reason, as for containers) and for each course rule whose network is not in `networks`.
    A network whose labels cannot be read is kept: nothing is removed without knowing it is an orphan."""
    chosen = []
    for bridge, labels, created in networks:
        try:
            why = orphan_reason(labels, created=_unix_time(created), now=now)
        except (ValueError, TypeError, AttributeError):
            continue
        if why:
            chosen.append((bridge, labels.get(LABEL_RUN) or "(sin corrida)", why))
    listed = {bridge.name for bridge, _, _ in networks}
    for network in rules:
        if network not in listed:
            chosen.append((bridges.Bridge(engine, network, ""), "(sin corrida)", NETWORK_GONE))
    return chosen


def _unix_time(created) -> float | None:
    """Docker gives seconds since the epoch; Podman's JSON a number or an ISO date."""
    if isinstance(created, (int, float)):
        return float(created)
    if isinstance(created, str):
        try:
            return datetime.datetime.fromisoformat(created.replace("Z", "+00:00")[:26]).timestamp()
        except ValueError:
            return None
    return None
