"""The guest as a second machine in the class comparison (notebook 90's demo).

`add_to_class(folder)` copies the latest returned run's folders (as root: Docker and Podman; as the
student: rootless Podman) into a class folder, one machine each, named by the guest's label
(«VM emulada (TCG), Debian 13, cgroup v2»). Their meta.json gain `emulada` (True under TCG) and
`maquina`; the class comparison gives no speed verdict to an emulated machine's timings.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from . import STUDENT
from . import run as guest_run

USERS = {"root": "", STUDENT: " — Podman sin root"}


def add_to_class(folder: Path | str, found: guest_run.GuestRun | None = None) -> list[str]:
    """Copy the guest's latest runs into `folder`; returns the machine names added ([] if none)."""
    found = found or guest_run.latest()
    if found is None:
        return []
    added = []
    for user, suffix in USERS.items():
        source = found.dir / user / "results"
        if not source.is_dir():
            continue
        name = found.label + suffix
        dest = Path(folder) / name
        if dest.exists():
            shutil.rmtree(dest)
        copied = 0
        for meta_path in sorted(source.glob("*/*/meta.json")):
            raw = meta_path.with_name("raw.csv")
            if not raw.is_file():
                continue
            run_dir = dest / meta_path.parent.relative_to(source)
            run_dir.mkdir(parents=True)
            shutil.copy2(raw, run_dir / "raw.csv")
            meta = json.loads(meta_path.read_text())
            meta.update(emulada=found.accel != "kvm", maquina=name)
            (run_dir / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False))
            copied += 1
        if copied:
            added.append(name)
    return added
