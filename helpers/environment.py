"""Checks for notebook 00: is everything the course needs here? Each check says how to fix it."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from . import PROJECT_ROOT, engines, images, system

PACKAGES = {  # import name -> distribution name
    "jupyterlab": "jupyterlab", "ipywidgets": "ipywidgets", "pandas": "pandas", "seaborn": "seaborn",
    "docker": "docker", "papermill": "papermill", "nbconvert": "nbconvert", "psutil": "psutil",
}
PROBES_DIR = PROJECT_ROOT / "probes"


@dataclass
class Check:
    ok: bool
    item: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "[ OK ]" if self.ok else "[FALTA]"
        text = f"{mark} {self.item}: {self.detail}"
        if not self.ok and self.fix:
            text += f" → {self.fix}"
        return text


def check_packages() -> list[Check]:
    out = []
    for module, dist in PACKAGES.items():
        try:
            importlib.import_module(module)
            out.append(Check(True, f"paquete {dist}", metadata.version(dist)))
        except Exception as exc:  # noqa: BLE001 - any import failure is "missing"
            out.append(Check(False, f"paquete {dist}", f"no se puede importar ({type(exc).__name__})",
                             "ejecuta «make setup» (instala el entorno en .venv)"))
    return out


def check_engines() -> list[Check]:
    out = []
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        ok, why = engine.availability()
        if not ok:
            out.append(Check(False, f"motor {engine.display}", why or "no disponible",
                             "como root en Debian/Ubuntu, «make setup» lo instala y lo arranca; "
                             "si no, el curso sigue con bare metal y los datos de referencia"))
            continue
        info = engine.info()
        detail = (f"versión {info.get('server_version')}, runtime {info.get('runtime')}, "
                  f"almacenamiento {info.get('storage_driver')}, cgroups {info.get('cgroup_version')}")
        if engine.workarounds():
            detail += " (con el arreglo de containers.conf para este kernel)"
        out.append(Check(True, f"motor {engine.display}", detail))
    return out


def check_images() -> list[Check]:
    out = []
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        if not engine.available:
            continue
        for role in images.ROLE_NAMES:
            info = images.resolve(role, engine)
            if info:
                kind = "oficial" if info["origin"] == "oficial" else "sustituto local"
                out.append(Check(True, f"imagen «{role}» en {engine.display}",
                                 f"{info['name']} ({kind}, {(info['size_bytes'] or 0) / 1e6:.1f} MB, "
                                 f"{(info['id'] or '')[:19]})"))
            else:
                out.append(Check(False, f"imagen «{role}» en {engine.display}", "no está",
                                 "ejecuta «make setup»: la construye sin registro"))
    return out


def check_cgroups() -> list[Check]:
    version = system.cgroup_version()
    ok = version != "desconocido"
    return [Check(ok, "versión de cgroups", version,
                  "el experimento 2 lee la memoria de los cgroups; sin ellos no hay medida por contenedor")]


def check_probes(directory: Path = PROBES_DIR) -> list[Check]:
    sources = sorted(Path(directory).glob("*.c"))
    out = []
    for src in sources:
        binary = Path(directory) / "bin" / src.stem
        if binary.is_file():
            out.append(Check(True, f"sonda {src.stem}", f"compilada en {binary.relative_to(PROJECT_ROOT)}"
                             if binary.is_relative_to(PROJECT_ROOT) else str(binary)))
        else:
            out.append(Check(False, f"sonda {src.stem}", "sin compilar", "ejecuta «make probes»"))
    return out


def check_leftovers() -> list[Check]:
    """Containers left by runs that died (a killed kernel, a lost engine): removed now, and said."""
    present = [n for n in engines.CONTAINER_ENGINES if engines.get_engine(n).available]
    if not present:
        return []
    reaped = engines.reap_orphans(present)
    if not reaped:
        return [Check(True, "contenedores abandonados", "ninguno")]
    total = sum(r["removed"] for r in reaped.values())
    runs = ", ".join(f"{r['run']} ({engines.DISPLAY[r['engine']]}: {r['reason']})" for r in reaped.values())
    noun = "contenedor abandonado" if total == 1 else "contenedores abandonados"
    return [Check(True, "contenedores abandonados", f"eliminé {total} {noun} de corridas que ya no viven: {runs}")]


def all_checks() -> list[Check]:
    return (check_packages() + check_engines() + check_images() + check_leftovers() + check_cgroups()
            + check_probes())
