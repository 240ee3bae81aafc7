"""Run inside the guest (python -m helpers.guest.sonda): for every engine this user has, one idle
container started through the course's engine interface, its cgroup as the course finds it, and its
memory read by helpers.cgroups. Prints JSON; the container is removed whatever happens.

It shows where each engine puts a container on cgroup v2 (the path from inspect and the one in
/proc/<pid>/cgroup, which with crun ends in its `container` sub-cgroup) and that the readers find
memory there. Nothing here is timed.
"""

from __future__ import annotations

import json
import os
import sys
import time

from .. import cgroups, images
from .. import engines as eng


def probe(name: str) -> dict:
    engine = eng.get_engine(name)
    ok, why = engine.availability()
    if not ok:
        return {"disponible": False, "motivo": why}
    image = images.resolve("alpine", engine)
    if image is None:
        return {"disponible": True, "error": "no está la imagen «alpine»"}
    run_id = f"sonda-huesped-{os.getpid()}"
    name_ = f"curso-sonda-{name}-{os.getpid()}"
    out: dict = {"disponible": True, "motor": engine.display, "rootless": bool(engine.rootless)}
    try:
        container = engine.launch(
            image["name"], ["sleep", "600"], run_id=run_id, name=name_, opts=eng.RunOptions(network="none")
        )
        time.sleep(0.5)
        data = engine.inspect_many([name_])[0]
        out["cgroup_inspect"] = (data.get("State") or {}).get("CgroupPath")
        out["cgroup_pid"] = cgroups.cgroup_of_pid(container.pid)
        out["cgroup"] = container.cgroup
        out["motivo_sin_cgroup"] = cgroups.per_container_reason(engine, [container.cgroup])
        reading = cgroups.read_memory(container.cgroup)
        out["memoria"] = {
            "version": reading.version,
            "usage": reading.usage,
            "anon": reading.anon,
            "file": reading.file,
            "directorio": str(cgroups.memory_dir(container.cgroup)),
        }
        scope = out["cgroup_inspect"]
        if scope and scope != container.cgroup:  # what the scope Podman reports holds, for comparison
            around = cgroups.read_memory(scope)
            out["memoria_scope"] = {"usage": around.usage, "anon": around.anon, "file": around.file}
        stats = engine.stats([name_])[1]
        out["stats_cli"] = stats[0] if stats else None
        helper = engine.helper_process(container)
        out["auxiliar"] = helper.name() if helper else None
    except Exception as exc:  # noqa: BLE001 - reported in the JSON, the host's tests judge it
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        engine.cleanup(run_id)
    return out


def main() -> int:
    report = {
        "uid": os.getuid(),
        "cgroups": cgroups.layout(),
        "motores": {n: probe(n) for n in eng.CONTAINER_ENGINES},
    }
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
