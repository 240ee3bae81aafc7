"""The student's hand-in: `make pack` (python -m helpers.clase empaquetar) zips this machine's latest runs
with their metadata and a manifest."""

from __future__ import annotations

import datetime as _dt
import getpass
import json
import os
import platform
import re
import zipfile
from pathlib import Path

from .. import PROJECT_ROOT, experiments, results, system
from .runs import MANIFEST


def _student_name() -> str:
    name = os.environ.get("CURSO_ALUMNO")
    if not name:
        try:
            user = getpass.getuser()
        except Exception:  # noqa: BLE001
            user = "alumno"
        name = f"{user}@{platform.node() or 'maquina'}"
    return re.sub(r"[^A-Za-z0-9@._-]+", "_", name)


def empaquetar(
    destino: Path | str | None = None, *, root: Path | str | None = None, alumno: str | None = None
) -> Path:
    """Zip this machine's latest run of every experiment (results.latest: the latest complete one, or
    else the latest with rows), with raw.csv, meta.json and an entrega.json manifest. Returns the zip's
    path."""
    root = Path(root) if root is not None else results.results_root()
    alumno = re.sub(r"[^A-Za-z0-9@._-]+", "_", alumno) if alumno else _student_name()
    picked = {}
    for experiment in experiments.names():
        run = results.latest(experiment, root)
        if run:
            picked[experiment] = run
    if not picked:
        raise FileNotFoundError(f"No hay corridas en {root}: ejecuta primero algún cuaderno del curso.")
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    destino = Path(destino) if destino else PROJECT_ROOT / "build" / "entregas"
    destino.mkdir(parents=True, exist_ok=True)
    target = destino / f"entrega-{alumno}-{stamp}.zip"
    manifest = {"alumno": alumno, "empaquetado": stamp, "host": system.host_metadata(), "corridas": {}}
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for experiment, run in picked.items():
            for name in ("raw.csv", "meta.json"):
                archive.write(run / name, f"{alumno}/{experiment}/{run.name}/{name}")
            manifest["corridas"][experiment] = {
                "run_id": run.name,
                "estado": results.read_meta(run).get("status"),
            }
        archive.writestr(
            f"{alumno}/{MANIFEST}", json.dumps(manifest, indent=2, ensure_ascii=False, default=str)
        )
    return target
