"""Reading a class folder: every student's folder or zip file (at any depth, zips inside folders too),
grouped into runs; foreign files, broken runs and runs without rows are skipped with a Spanish reason.
Per machine and experiment the latest complete run is used (else the latest partial one).

A hand-in is untrusted input, and this module only reads: links (in a folder or inside a zip) are never
followed, a zip member whose path is absolute or climbs out (`..`) is never read, a zip inside a zip is
not opened, a zip with too many members or too many bytes is not read, and what a hand-in says is
neutralised (helpers/clase/untrusted.py) before the comparison sees it. Each refusal has its reason.
"""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pandas as pd

from .. import results
from . import untrusted
from .runs import MANIFEST, ClassRuns, MachineRun, Skipped

IGNORED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}
MAX_MEMBER_BYTES = 50 * 1024 * 1024
MAX_ZIP_BYTES = 500 * 1024 * 1024
MAX_MEMBERS = 5000
DEMO_MARK = "DEMO.txt"  # written by demo_class.demo(): the only thing that makes a class a demonstration
Loader = Callable[[], bytes]
LINK = "es un enlace simbólico: no se sigue (podría llevar fuera de la carpeta de la clase)."
NESTED_ZIP = "es un zip dentro de un zip: no se abre (entrega las corridas directamente en el zip)."


def _is_results_root(folder: Path) -> bool:
    """True when folder itself is one student's results/ (experiment/run/raw.csv right below)."""
    return any(p.is_file() and not p.is_symlink() for p in folder.glob("*/*/raw.csv")) or any(
        p.is_file() and not p.is_symlink() for p in folder.glob("*/*/meta.json")
    )


def _dir_files(folder: Path, skipped: list[Skipped], label: str) -> dict[str, Loader]:
    """Every regular file under `folder`, by its path inside it; links (to files or folders) are
    listed in `skipped` and never followed."""
    files = {}
    for top, dirs, names in os.walk(folder, followlinks=False):
        here = Path(top)
        for name in sorted(dirs):
            if (here / name).is_symlink():
                where = (here / name).relative_to(folder).as_posix()
                skipped.append(Skipped(f"{label}/{where}", LINK))
        dirs[:] = sorted(d for d in dirs if not (here / d).is_symlink())
        for name in sorted(names):
            path = here / name
            where = path.relative_to(folder).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                skipped.append(Skipped(f"{label}/{where}", LINK))
            elif stat.S_ISREG(mode):
                files[where] = path.read_bytes
    return dict(sorted(files.items()))


def _unsafe_member(info: zipfile.ZipInfo) -> str | None:
    """Why a zip member is never read (a Spanish reason), None when it may be."""
    name = info.filename.replace("\\", "/")
    parts = PurePosixPath(name).parts
    if name.startswith("/") or ".." in parts or (parts and parts[0].endswith(":")):
        return "ruta insegura dentro del zip (absoluta o con «..»); no se lee."
    if any(ord(c) < 32 for c in name):
        return "nombre con caracteres de control dentro del zip; no se lee."
    if stat.S_ISLNK(info.external_attr >> 16):
        return "enlace simbólico dentro del zip: no se sigue."
    if info.flag_bits & 0x1:
        return "archivo cifrado dentro del zip; no se lee."
    if info.file_size > MAX_MEMBER_BYTES:
        return "archivo demasiado grande dentro del zip."
    return None


def _zip_files(
    path: Path, skipped: list[Skipped], label: str, *, nested: bool = False
) -> dict[str, Loader] | None:
    """The members of a zip that may be read, by name; the others in `skipped` with their reason.
    `nested`: this zip came from a student's folder, so the zips inside it are not opened."""
    try:
        archive = zipfile.ZipFile(path)
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        skipped.append(Skipped(label, f"zip ilegible o dañado ({untrusted.text(exc)})."))
        return None
    if len(members) > MAX_MEMBERS or sum(i.file_size for i in members) > MAX_ZIP_BYTES:
        skipped.append(
            Skipped(
                label, f"zip con demasiados archivos o bytes (más de {MAX_MEMBERS} o 500 MiB); no se lee."
            )
        )
        return None
    files = {}
    for info in members:
        if info.is_dir():
            continue
        name = untrusted.text(info.filename) if _unsafe_member(info) else info.filename
        why = _unsafe_member(info)
        if why is None and info.filename.lower().endswith(".zip") and nested:
            why = NESTED_ZIP
        if why is not None:
            skipped.append(Skipped(f"{label}:{name}", why))
            continue
        files[info.filename] = lambda a=archive, i=info: a.read(i)
    return files


def _strip_common_top(files: dict[str, Loader]) -> tuple[dict[str, Loader], str | None]:
    """Zip files usually hold one top folder (the student's name): drop it, and return it."""
    tops = {n.split("/", 1)[0] for n in files if "/" in n}
    if len(tops) == 1 and all("/" in n for n in files):
        top = tops.pop()
        return {n.split("/", 1)[1]: f for n, f in files.items()}, top
    return files, None


def _parse_run(
    machine: str, origin: str, group: dict[str, Loader], skipped: list[Skipped], demo: bool
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
    except (ValueError, UnicodeDecodeError, zipfile.BadZipFile, OSError, RuntimeError) as exc:
        skipped.append(Skipped(origin, f"meta.json ilegible ({untrusted.text(exc)})."))
        return None
    if meta.get("demo") and not demo:
        skipped.append(
            Skipped(
                origin,
                "es una corrida de la clase de demostración (inventada): no se mezcla con las de una "
                "clase real.",
            )
        )
        return None
    meta = untrusted.meta(meta)
    try:
        df = pd.read_csv(io.BytesIO(group["raw.csv"]()), dtype=str, keep_default_na=False)
    except Exception as exc:  # noqa: BLE001 - any broken CSV is skipped with its reason
        skipped.append(Skipped(origin, f"raw.csv ilegible ({type(exc).__name__}: {untrusted.text(exc)})."))
        return None
    missing = [c for c in results.COLUMNS if c not in df.columns]
    if missing:
        skipped.append(
            Skipped(
                origin,
                "raw.csv no sigue el formato del curso: faltan las columnas "
                f"{', '.join(untrusted.text(c) for c in missing)}.",
            )
        )
        return None
    df, dropped = untrusted.rows(df[results.COLUMNS])
    # the rounds' own rows (load, order) stay out; their load reaches the experiment's claims in meta
    df, meta = results.split_run(df, meta)
    status = meta.get("status") or "desconocido"
    if df.empty:
        skipped.append(
            Skipped(
                origin,
                f"la corrida no tiene mediciones válidas (estado: {status}"
                + (f", motivo: {meta['reason']}" if meta.get("reason") else "")
                + ")."
                + (f" {untrusted.dropped_sentence(dropped).capitalize()}" if dropped else ""),
            )
        )
        return None
    if dropped:
        skipped.append(Skipped(origin, untrusted.dropped_sentence(dropped).capitalize()))
    experiment = meta.get("experiment") or df["experiment"].mode().iloc[0]
    if not untrusted.FIELD.fullmatch(experiment):
        skipped.append(Skipped(origin, "el nombre de su experimento lleva caracteres no permitidos."))
        return None
    df["experiment"] = experiment
    run_id = meta.get("run_id") or untrusted.text(PurePosixPath(origin).name)
    return MachineRun(
        machine,
        untrusted.text(origin),
        experiment,
        run_id,
        status,
        meta,
        df.reset_index(drop=True),
        dropped_rows=sum(dropped.values()),
    )


def _runs_in(
    label: str, files: dict[str, Loader], skipped: list[Skipped], demo: bool
) -> tuple[list[MachineRun], list[str]]:
    """Group files by folder; a folder with raw.csv or meta.json is a run, the rest is foreign. Returns
    the runs and the zips found (read by the caller, one level only)."""
    groups: dict[str, dict[str, Loader]] = {}
    for name, loader in files.items():
        path = PurePosixPath(name)
        if path.name in IGNORED_NAMES or "__MACOSX" in path.parts or path.name.endswith(".json.tmp"):
            continue
        groups.setdefault(str(path.parent), {})[path.name] = loader
    found, zips = [], []
    for folder, group in sorted(groups.items()):
        where = f"{label}/{folder}" if folder != "." else label
        if "raw.csv" in group or "meta.json" in group:
            run = _parse_run("?", where, group, skipped, demo)
            if run:
                found.append(run)
            extra = set(group) - {"raw.csv", "meta.json"}
        else:
            extra = set(group)
        for name in sorted(extra):
            if name == MANIFEST and folder == ".":
                continue
            if name.lower().endswith(".zip"):
                zips.append(name if folder == "." else f"{folder}/{name}")
                continue
            skipped.append(
                Skipped(untrusted.text(f"{where}/{name}"), "no es parte de una corrida (archivo ajeno).")
            )
    return found, zips


def _entries(folder: Path, class_runs: ClassRuns) -> list[tuple[Path, dict[str, Loader], str | None, bool]]:
    """What the class folder holds: (item, its files, the student's name or None, read from a zip)."""
    skipped = class_runs.skipped
    if folder.is_dir() and _is_results_root(folder):
        return [(folder, _dir_files(folder, skipped, folder.name), None, False)]
    entries = []
    items = [folder] if folder.is_file() else sorted(folder.iterdir())
    for item in items:
        if item.name in IGNORED_NAMES or (item.name == DEMO_MARK and item.parent == folder):
            continue
        if item.is_symlink():
            skipped.append(Skipped(untrusted.text(item.name), LINK))
        elif item.is_dir():
            entries.append((item, _dir_files(item, skipped, untrusted.text(item.name)), item.name, False))
        elif item.suffix.lower() == ".zip":
            files = _zip_files(item, skipped, untrusted.text(item.name))
            if files is not None:
                files, top = _strip_common_top(files)
                entries.append((item, files, top or item.stem, True))
        else:
            skipped.append(
                Skipped(
                    untrusted.text(item.name), "no es una carpeta de resultados ni un zip (archivo ajeno)."
                )
            )
    return entries


def recolectar(folder: Path | str) -> ClassRuns:
    """Read every student's runs under `carpeta` (folders and zip files); say what was skipped."""
    folder = Path(folder)
    class_runs = ClassRuns(str(folder))
    if not folder.exists():
        class_runs.skipped.append(Skipped(untrusted.text(folder), "la carpeta no existe."))
        return class_runs
    class_runs.demo = folder.is_dir() and (folder / DEMO_MARK).is_file()
    skipped = class_runs.skipped
    runs: list[MachineRun] = []
    used_names: set[str] = set()
    for item, files, name, zipped in _entries(folder, class_runs):
        label = untrusted.text(item.name)
        reported = len(skipped)
        found, zips = _runs_in(label, files, skipped, class_runs.demo)
        for zname in zips:  # a zip in a student's folder is read; one inside a zip is not opened
            where = f"{label}/{untrusted.text(zname)}"
            if zipped:
                skipped.append(Skipped(where, NESTED_ZIP))
                continue
            inner = _zip_files(item / zname, skipped, where, nested=True)
            if inner:
                more, _ = _runs_in(where, _strip_common_top(inner)[0], skipped, class_runs.demo)
                found += more
        if not found:
            if len(skipped) == reported:
                skipped.append(Skipped(label, "no contiene ninguna corrida válida."))
            continue
        if name is None:  # one student's results/ folder: name it after its host
            name = found[-1].meta["host"].get("hostname") or folder.name
        safe = untrusted.machine_name(name)
        if safe != name:
            skipped.append(
                Skipped(
                    untrusted.text(name),
                    f"el nombre de la máquina lleva caracteres no permitidos: se muestra como «{safe}».",
                )
            )
        unique, n = safe, 2
        while unique in used_names:
            unique, n = f"{safe} ({n})", n + 1
        used_names.add(unique)
        for run in found:
            run.machine = unique
        runs += found
    class_runs.runs = _pick_latest(runs, skipped)
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
