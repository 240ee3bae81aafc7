"""Reading a class folder: every student's folder or zip file (at any depth, zips inside folders too),
grouped into runs; foreign files, broken runs and runs without rows are skipped with a Spanish reason.
Per machine and experiment the latest complete run is used (else the latest partial one)."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pandas as pd

from .. import results
from .runs import MANIFEST, ClassRuns, MachineRun, Skipped

IGNORED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}
MAX_MEMBER_BYTES = 50 * 1024 * 1024
Loader = Callable[[], bytes]


def _is_results_root(folder: Path) -> bool:
    """True when folder itself is one student's results/ (experiment/run/raw.csv right below)."""
    return any(p.is_file() for p in folder.glob("*/*/raw.csv")) or any(
        p.is_file() for p in folder.glob("*/*/meta.json")
    )


def _dir_files(folder: Path) -> dict[str, Loader]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _zip_files(path: Path, skipped: list[Skipped], label: str) -> dict[str, Loader] | None:
    try:
        archive = zipfile.ZipFile(path)
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        skipped.append(Skipped(label, f"zip ilegible o dañado ({exc})."))
        return None
    files = {}
    for info in members:
        if info.is_dir():
            continue
        name = info.filename
        if name.startswith("/") or ".." in PurePosixPath(name).parts:
            skipped.append(Skipped(f"{label}:{name}", "ruta insegura dentro del zip; no se lee."))
            continue
        if info.file_size > MAX_MEMBER_BYTES:
            skipped.append(Skipped(f"{label}:{name}", "archivo demasiado grande dentro del zip."))
            continue
        files[name] = lambda a=archive, i=info: a.read(i)
    return files


def _strip_common_top(files: dict[str, Loader]) -> tuple[dict[str, Loader], str | None]:
    """Zip files usually hold one top folder (the student's name): drop it, and return it."""
    tops = {n.split("/", 1)[0] for n in files if "/" in n}
    if len(tops) == 1 and all("/" in n for n in files):
        top = tops.pop()
        return {n.split("/", 1)[1]: f for n, f in files.items()}, top
    return files, None


def _parse_run(
    machine: str, origin: str, group: dict[str, Loader], skipped: list[Skipped]
) -> MachineRun | None:
    if "meta.json" not in group:
        skipped.append(
            Skipped(origin, "falta meta.json: no se sabe qué corrida es ni en qué máquina se midió.")
        )
        return None
    if "raw.csv" not in group:
        skipped.append(Skipped(origin, "falta raw.csv: la corrida no tiene mediciones."))
        return None
    try:
        meta = json.loads(group["meta.json"]().decode("utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("no es un objeto JSON")
    except (ValueError, UnicodeDecodeError) as exc:
        skipped.append(Skipped(origin, f"meta.json ilegible ({exc})."))
        return None
    try:
        df = pd.read_csv(io.BytesIO(group["raw.csv"]()), dtype={"image": str, "variant": str})
    except Exception as exc:  # noqa: BLE001 - any broken CSV is skipped with its reason
        skipped.append(Skipped(origin, f"raw.csv ilegible ({type(exc).__name__}: {exc})."))
        return None
    missing = [c for c in results.COLUMNS if c not in df.columns]
    if missing:
        skipped.append(
            Skipped(
                origin, f"raw.csv no sigue el formato del curso: faltan las columnas {', '.join(missing)}."
            )
        )
        return None
    df = results.measurements(df[results.COLUMNS]).copy()  # the rounds' own rows (load, order) stay out
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    df["image"] = df["image"].fillna("")
    df["variant"] = df["variant"].fillna("")
    before = len(df)
    df = df.dropna(subset=["value", "engine", "metric"])
    status = str(meta.get("status") or "desconocido")
    if df.empty:
        skipped.append(
            Skipped(
                origin,
                f"la corrida no tiene mediciones válidas (estado: {status}"
                + (f", motivo: {meta['reason']}" if meta.get("reason") else "")
                + ").",
            )
        )
        return None
    experiment = str(meta.get("experiment") or df["experiment"].mode().iloc[0])
    df["experiment"] = experiment
    run_id = str(meta.get("run_id") or PurePosixPath(origin).name)
    return MachineRun(
        machine,
        origin,
        experiment,
        run_id,
        status,
        meta,
        df.reset_index(drop=True),
        dropped_rows=before - len(df),
    )


def _runs_in(machine: str, label: str, files: dict[str, Loader], skipped: list[Skipped]) -> list[MachineRun]:
    """Group files by folder; a folder with raw.csv or meta.json is a run, the rest is foreign."""
    groups: dict[str, dict[str, Loader]] = {}
    for name, loader in files.items():
        path = PurePosixPath(name)
        if path.name in IGNORED_NAMES or "__MACOSX" in path.parts or path.name.endswith(".json.tmp"):
            continue
        groups.setdefault(str(path.parent), {})[path.name] = loader
    found = []
    for folder, group in sorted(groups.items()):
        where = f"{label}/{folder}" if folder != "." else label
        if "raw.csv" in group or "meta.json" in group:
            run = _parse_run(machine, where, group, skipped)
            if run:
                found.append(run)
            extra = set(group) - {"raw.csv", "meta.json"}
        else:
            extra = set(group)
        for name in sorted(extra):
            if name == MANIFEST and folder == ".":
                continue
            if name.endswith(".zip"):
                continue  # nested zips are read by the caller
            skipped.append(Skipped(f"{where}/{name}", "no es parte de una corrida (archivo ajeno)."))
    return found


def recolectar(folder: Path | str) -> ClassRuns:
    """Read every student's runs under `carpeta` (folders and zip files); say what was skipped."""
    folder = Path(folder)
    class_runs = ClassRuns(str(folder))
    if not folder.exists():
        class_runs.skipped.append(Skipped(str(folder), "la carpeta no existe."))
        return class_runs
    if (folder / "DEMO.txt").is_file():
        class_runs.demo = True
    runs: list[MachineRun] = []
    if folder.is_dir() and _is_results_root(folder):
        entries = [(folder, _dir_files(folder), None)]
    else:
        entries = []
        items = [folder] if folder.is_file() else sorted(folder.iterdir())
        for item in items:
            if item.name in IGNORED_NAMES or item.name == "DEMO.txt":
                continue
            if item.is_dir():
                entries.append((item, _dir_files(item), item.name))
            elif item.suffix.lower() == ".zip":
                files = _zip_files(item, class_runs.skipped, item.name)
                if files is not None:
                    files, top = _strip_common_top(files)
                    entries.append((item, files, top or item.stem))
            else:
                class_runs.skipped.append(
                    Skipped(item.name, "no es una carpeta de resultados ni un zip (archivo ajeno).")
                )
    used_names: set[str] = set()
    for item, files, name in entries:
        label = item.name
        reported = len(class_runs.skipped)
        found = _runs_in("?", label, files, class_runs.skipped)
        for zname in [n for n in files if n.endswith(".zip")]:  # zips inside a student's folder
            inner = _zip_files(item / zname, class_runs.skipped, f"{label}/{zname}")
            if inner:
                found += _runs_in("?", f"{label}/{zname}", _strip_common_top(inner)[0], class_runs.skipped)
        if not found:
            if files and len(class_runs.skipped) == reported:
                class_runs.skipped.append(Skipped(label, "no contiene ninguna corrida válida."))
            continue
        if name is None:  # one student's results/ folder: name it after its host
            name = (found[-1].meta.get("host") or {}).get("hostname") or folder.name
        unique, n = name, 2
        while unique in used_names:
            unique, n = f"{name} ({n})", n + 1
        used_names.add(unique)
        for run in found:
            run.machine = unique
        runs += found
    class_runs.runs = _pick_latest(runs, class_runs.skipped)
    class_runs.demo = class_runs.demo or any(c.meta.get("demo") for c in class_runs.runs)
    return class_runs


def _pick_latest(runs: list[MachineRun], skipped: list[Skipped]) -> list[MachineRun]:
    """Per machine and experiment: the latest complete run, else the latest partial one."""
    chosen = []
    by_key: dict[tuple[str, str], list[MachineRun]] = {}
    for run in runs:
        by_key.setdefault((run.machine, run.experiment), []).append(run)
    for (machine, experiment), group in sorted(by_key.items()):
        group.sort(key=lambda r: (str(r.meta.get("started") or ""), r.run_id))
        complete = [r for r in group if not r.partial]
        pick = complete[-1] if complete else group[-1]
        for run in group:
            if run is not pick:
                why = (
                    "hay una corrida completa más reciente"
                    if not pick.partial
                    else "hay una corrida más reciente"
                )
                skipped.append(Skipped(run.origin, f"{why} de «{experiment}» en la máquina {machine}."))
        chosen.append(pick)
    return chosen
