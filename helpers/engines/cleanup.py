"""Clean-up across engines: one run's containers, and the orphans of runs that are gone."""

from __future__ import annotations

import datetime
import time
from collections.abc import Sequence

from . import kubernetes_host
from .base import CONTAINER_ENGINES
from .labels import LABEL_RUN, orphan_reason
from .registry import get_engine


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
    """Remove the course containers whose run is gone (see orphan_reason), on every available engine.

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
    reaped.update(kubernetes_host.reap_orphans(log))  # the course's Kubernetes cluster of a dead run
    return reaped


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
