"""The course's stand-in images, imported once into a cached layer of the guest's disk.

Importing them (Docker, Podman, rootless Podman) took ~3.5 min of every guest run under TCG. One boot
of the guest, the first time (and again whenever the guest, helpers/images.py, this file or the part of
guest.sh that prepares the layer change: not its course run, which notebooks and with what parameters), runs the course's own `images.ensure` as root and as «alumno» and powers off; what it wrote
stays in imagenes.qcow2, a qcow2 layer on the cached base.raw, and every run boots on a throwaway
overlay of that layer. The runs still call images.ensure, which then finds the images (the lookup on
Docker 26 and Podman 5); the import itself is what this boot did, and its logs go with every run
(hechos/imagenes-preparadas/), where tests/guest checks them.

In the guest: `python -m helpers.guest.capa` (guest.sh, when the run's disk carries FLAG) imports the
images for the user running it and exits 1 if an engine of that user lacks one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .. import images
from ..errors import ComandoFallido
from . import GUEST_DIR, GUEST_SCRIPT, HERE, boot

Log = Callable[[str], None]
LAYER = GUEST_DIR / "imagenes.qcow2"
LAYER_INFO = GUEST_DIR / "imagenes.json"
LAYER_LOGS = GUEST_DIR / "imagenes"  # what the preparing boot returned (its salida/)
PARTIAL = GUEST_DIR / "imagenes.qcow2.parcial"
FLAG = "preparar-imagenes"  # a file on the run's disk: guest.sh prepares the layer instead of the course


# The line of guest.sh after which it only runs the course: the preparing boot never gets there.
SCRIPT_COURSE_PART = "# ---- course run:"


def preparing_part(script: str) -> str:
    """What of guest.sh the preparing boot runs: the script up to SCRIPT_COURSE_PART (which notebooks
    a run takes, and with what parameters, is after it and does not re-import the images)."""
    head, found, _ = script.partition(SCRIPT_COURSE_PART)
    if not found:
        raise ValueError(f"guest.sh no tiene la línea «{SCRIPT_COURSE_PART}» que separa la capa del curso")
    return head


def layer_key(guest) -> str:
    h = hashlib.sha256(str(guest.manifest.get("key")).encode())
    for path in (Path(images.__file__), HERE / "capa.py"):
        h.update(path.read_bytes())
    h.update(preparing_part(GUEST_SCRIPT.read_text()).encode())
    return h.hexdigest()[:16]


def cached(guest) -> dict | None:
    """The layer's record if it matches this guest and this code, else None."""
    try:
        info = json.loads(LAYER_INFO.read_text())
    except (OSError, ValueError):
        return None
    return info if info.get("key") == layer_key(guest) and LAYER.is_file() else None


def ensure(guest, accel: str, log: Log, timeout: float) -> dict:
    """The layer's record, preparing it first (one boot) if needed. ComandoFallido (Spanish) if the
    preparing boot does not import every image or does not power off by itself."""
    found = cached(guest)
    if found is not None:
        log(f"Imágenes del huésped: ya importadas en su disco ({found['built']}).")
        return found
    log("Importando las imágenes del curso en el disco del huésped (un arranque, una sola vez)…")
    start = time.monotonic()
    LAYER.unlink(missing_ok=True)
    LAYER_INFO.unlink(missing_ok=True)
    PARTIAL.unlink(missing_ok=True)
    result = boot.GuestRun("", accel, "", "", None)
    with tempfile.TemporaryDirectory(dir=GUEST_DIR, prefix="instancia-") as tmp:
        work = Path(tmp)
        boot.boot_and_run(guest, work, accel, result, log, timeout, overlay=PARTIAL, flags=(FLAG,))
        boot.copy_out(work / "io.raw", work / "copia")
        shutil.rmtree(LAYER_LOGS, ignore_errors=True)
        shutil.move(work / "copia" / "salida", LAYER_LOGS)
        shutil.copy2(work / "consola.log", LAYER_LOGS / "consola.log")
    if result.exit_code != 0 or not result.powered_off:
        PARTIAL.unlink(missing_ok=True)
        raise ComandoFallido(
            f"No pude importar las imágenes en el disco del huésped (código {result.exit_code}, "
            f"{'se apagó solo' if result.powered_off else 'no se apagó solo'}). Registros en {LAYER_LOGS}."
        )
    PARTIAL.replace(LAYER)
    info = {
        "key": layer_key(guest),
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.monotonic() - start, 1),
        "phases": result.phases,
    }
    LAYER_INFO.write_text(json.dumps(info, indent=2))
    log(f"    imágenes importadas en {info['seconds']:.0f} s.")
    return info


# ---------------------------------------------------------------- in the guest
def expected_engines(is_root: bool) -> tuple[str, ...]:
    """Root has Docker and Podman; the student, rootless Podman."""
    return ("docker", "podman") if is_root else ("podman",)


def missing(got: dict[str, dict], engines: tuple[str, ...], roles) -> list[str]:
    return [f"{engine}:{role}" for engine in engines for role in roles if role not in got.get(engine, {})]


def main() -> int:
    got = images.ensure(try_pull=False)
    lacking = missing(got, expected_engines(os.geteuid() == 0), images.ROLE_NAMES)
    if lacking:
        print(f"[FALTA] imágenes sin importar: {', '.join(lacking)}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
