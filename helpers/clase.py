"""Class-wide comparison: many students' result folders (or zip files of them), side by side.

    class_runs = recolectar("entregas/")      # what was read, what was skipped and why
    ratios_vs_bare(class_runs.data)           # x bare metal, per machine, with IC 95 %
    podman_over_docker(class_runs.data)       # Podman/Docker per machine
    spread(frame)                             # spread of a ratio across machines
    against_reference(class_runs)             # each machine against the bundled reference

Names are English except the functions notebooks and `make pack` call (recolectar, carpeta_de_clase,
empaquetar, demo).

A student's folder holds run folders (`<experiment>/<run>/raw.csv + meta.json`) at any depth; a zip
holds the same. Everything else (foreign files, broken runs, runs without rows) is skipped with a
Spanish reason. Per machine and experiment the latest complete run is used; a machine with only an
interrupted run is used with what it measured, marked «parcial».

`empaquetar()` (and `make pack`) zips the student's own latest runs with their metadata.
`demo()` writes a demonstration class generated from the reference data, clearly labelled as such.
This module never imports matplotlib or ipywidgets (see helpers.view.clase).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import getpass
import io
import json
import os
import platform
import re
import shutil
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

from . import PROJECT_ROOT, measure, reference, results, system

REFERENCE_MACHINE = "referencia"
KEY = ["experiment", "metric", "engine", "role", "variant"]
PAIR_KEY = ["experiment", "metric", "role", "variant"]
IGNORED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}
MANIFEST = "entrega.json"
MAX_MEMBER_BYTES = 50 * 1024 * 1024
DEMO_LABEL = (
    "DEMOSTRACIÓN: clase ficticia generada a partir de los datos de referencia del curso "
    "(no son mediciones reales de ninguna máquina)."
)


@dataclass
class Skipped:
    what: str
    reason: str


@dataclass
class MachineRun:
    machine: str
    origin: str
    experiment: str
    run_id: str
    status: str
    meta: dict
    df: pd.DataFrame
    dropped_rows: int = 0

    @property
    def partial(self) -> bool:
        return self.status != results.STATUS_COMPLETE


@dataclass
class ClassRuns:
    folder: str
    runs: list[MachineRun] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    demo: bool = False

    @property
    def data(self) -> pd.DataFrame:
        """Every used row, with machine, role, run id and whether the run was partial."""
        frames = []
        for c in self.runs:
            df = results.add_roles(c.df, c.meta)
            frames.append(df.assign(machine=c.machine, run_id=c.run_id, parcial=c.partial))
        if not frames:
            return pd.DataFrame(columns=results.COLUMNS + ["role", "machine", "run_id", "parcial"])
        return pd.concat(frames, ignore_index=True)

    @property
    def experiments(self) -> list[str]:
        return sorted({c.experiment for c in self.runs})

    def machines(self) -> pd.DataFrame:
        """One row per machine: host facts, engine versions, experiments and their status."""
        rows = {}
        for c in self.runs:
            host = c.meta.get("host") or {}
            row = rows.setdefault(
                c.machine,
                {
                    "máquina": c.machine,
                    "host": host.get("hostname", "?"),
                    "CPU": host.get("cpu_model", "?"),
                    "núcleos": host.get("cpu_cores", "?"),
                    "kernel": host.get("kernel", "?"),
                    "cgroup": host.get("cgroup_version", "?"),
                    "VM": _vm(host),
                    "motores": "",
                    "experimentos": "",
                },
            )
            versions = [
                f"{name} {info.get('version') or info.get('server_version') or info.get('client_version') or '?'}"
                for name, info in (c.meta.get("engines") or {}).items()
                if isinstance(info, dict) and name != "bare"
            ]
            if versions and not row["motores"]:
                row["motores"] = ", ".join(versions)
            mark = "" if not c.partial else f" (parcial: {c.status})"
            row["experimentos"] = ", ".join(filter(None, [row["experimentos"], c.experiment + mark]))
        return pd.DataFrame(list(rows.values()))

    def skipped_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [{"qué": o.what, "motivo": o.reason} for o in self.skipped], columns=["qué", "motivo"]
        )


# ---------------------------------------------------------------- reading a class folder
Loader = Callable[[], bytes]


def _vm(host: dict) -> str:
    """«sí (Firecracker)» / «no» / «?» (a run from before the course detected virtualisation)."""
    virt = host.get("virtualization")
    if not isinstance(virt, dict):
        return "?"
    return (
        f"sí ({virt.get('tecnologia')})"
        if virt.get("es_vm") and virt.get("tecnologia")
        else ("sí" if virt.get("es_vm") else "no")
    )


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
            Skipped(origin, f"raw.csv no sigue el formato del curso: faltan las columnas {missing}.")
        )
        return None
    df = df[results.COLUMNS].copy()
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


def with_reference(class_runs: ClassRuns) -> pd.DataFrame:
    """The class's rows plus the bundled reference of every experiment present, as machine
    «referencia»."""
    frames = [class_runs.data]
    for experiment in class_runs.experiments:
        if experiment in reference.available():
            ref = reference.load(experiment).drop(columns=["source"])
            frames.append(
                results.add_roles(ref, None).assign(
                    machine=REFERENCE_MACHINE, run_id="referencia", parcial=False
                )
            )
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------- ratios
def _baseline_preference(experiment: str) -> list[str]:
    """Bare-metal variants to use as baseline, best first: the experiment module's BASELINE."""
    from . import experiments

    prefs = []
    try:
        base = experiments.get(experiment).BASELINE
    except KeyError:  # an experiment this version of the course does not know
        base = None
    if base and base[0] == "bare":
        prefs.append(base[1])
    return prefs


def _pick_baseline(bare: pd.DataFrame, variant: str, prefs: list[str]) -> str | None:
    variants = list(dict.fromkeys(bare["variant"]))
    if variant in variants:
        return variant  # same work on bare metal (e.g. the same workload)
    for pref in prefs:
        if pref in variants:
            return pref
    return variants[0] if len(variants) == 1 else None


def ratios_vs_bare(data: pd.DataFrame, *, base: dict[str, str] | None = None) -> pd.DataFrame:
    """x bare metal per machine and combination: ratio of medians with its IC 95 % (bootstrap).

    Baseline: bare metal doing the same variant (e.g. the same workload); else `base[experiment]`
    (to compare with the reference on its own baseline); else the experiment's BASELINE."""
    rows = []
    for (machine, experiment, metric), group in data.groupby(["machine", "experiment", "metric"], sort=True):
        bare = group[group["engine"] == "bare"]
        if bare.empty:
            continue
        prefs = _baseline_preference(experiment)
        for (engine, role, variant), arm in group[group["engine"] != "bare"].groupby(
            ["engine", "role", "variant"], sort=True
        ):
            forced = [(base or {})[experiment]] if experiment in (base or {}) else []
            chosen = _pick_baseline(bare, variant, forced + prefs)
            baseline = bare[bare["variant"] == chosen]["value"].to_numpy() if chosen else np.array([])
            if baseline.size == 0:
                continue
            found = _ratio_ci(arm["value"].to_numpy(dtype=float), baseline.astype(float))
            if found is None:
                continue
            ratio, lo, hi = found
            rows.append(
                {
                    "machine": machine,
                    "experiment": experiment,
                    "metric": metric,
                    "engine": engine,
                    "role": role,
                    "variant": variant,
                    "base": chosen,
                    "n": len(arm),
                    "proporcion": ratio,
                    "ic_bajo": lo,
                    "ic_alto": hi,
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "machine",
            "experiment",
            "metric",
            "engine",
            "role",
            "variant",
            "base",
            "n",
            "proporcion",
            "ic_bajo",
            "ic_alto",
        ],
    )


def _ratio_ci(numerator: np.ndarray, denominator: np.ndarray) -> tuple[float, float, float] | None:
    """Ratio of medians with its IC 95 %, or None when it is undefined (no data, or a zero or
    non-finite denominator median, e.g. a memory metric that read 0)."""
    numerator, denominator = numerator[np.isfinite(numerator)], denominator[np.isfinite(denominator)]
    if numerator.size == 0 or denominator.size == 0 or np.median(denominator) == 0:
        return None
    if np.any(denominator == 0):  # some resamples would divide by zero: take the plain ratio, no IC
        ratio = float(np.median(numerator) / np.median(denominator))
        return ratio, float("nan"), float("nan")
    return measure.bootstrap_ratio_ci(numerator, denominator)


def podman_over_docker(data: pd.DataFrame) -> pd.DataFrame:
    """Podman/Docker per machine and combination (same image role, variant and metric)."""
    rows = []
    for (machine, *key), group in data.groupby(["machine"] + PAIR_KEY, sort=True):
        docker = group[group["engine"] == "docker"]["value"].to_numpy()
        podman = group[group["engine"] == "podman"]["value"].to_numpy()
        found = _ratio_ci(podman.astype(float), docker.astype(float))
        if found is not None:
            ratio, lo, hi = found
            rows.append(
                {
                    "machine": machine,
                    **dict(zip(PAIR_KEY, key)),
                    "n": min(docker.size, podman.size),
                    "proporcion": ratio,
                    "ic_bajo": lo,
                    "ic_alto": hi,
                }
            )
    return pd.DataFrame(rows, columns=["machine", *PAIR_KEY, "n", "proporcion", "ic_bajo", "ic_alto"])


def medianas(data: pd.DataFrame) -> pd.DataFrame:
    """Median of every combination per machine (absolute values, in their unit)."""
    return (
        data.groupby(["machine"] + KEY + ["unit"], sort=True)["value"]
        .median()
        .rename("mediana")
        .reset_index()
    )


def spread(frame: pd.DataFrame, value: str = "proporcion") -> pd.DataFrame:
    """Spread across machines (the reference left out) of a per-machine table: how many machines,
    median, IQR, min, max and max/min."""
    data = frame[frame["machine"] != REFERENCE_MACHINE]
    key = [c for c in frame.columns if c in KEY + ["unit", "base"]]
    rows = []
    for k, group in data.groupby(key, sort=True):
        v = group[value].to_numpy(dtype=float)
        v = v[np.isfinite(v)]
        if v.size == 0:
            continue
        q1, q3 = measure.iqr(v)
        rows.append(
            {
                **dict(zip(key, k if isinstance(k, tuple) else (k,))),
                "maquinas": int(v.size),
                "mediana": float(np.median(v)),
                "q1": q1,
                "q3": q3,
                "min": float(v.min()),
                "max": float(v.max()),
                "max_sobre_min": float(v.max() / v.min()) if v.min() > 0 else np.nan,
            }
        )
    return pd.DataFrame(rows)


TIME_UNITS = ("ns", "us", "µs", "ms", "s")
EMULATED_VERDICT = "emulada (TCG): sin veredicto de velocidad"


def _verdict(lo: float, hi: float, ref: float, ref_lo: float, ref_hi: float, n: int) -> str:
    """The shared rule (experiments.base.agreement): the machine's IC 95 % and the reference's (from its
    own raw repetitions) overlap → «coincide»; else «más alta» / «más baja»."""
    from .experiments.base import COINCIDE, agreement

    if not np.isfinite(ref):
        return "sin referencia"
    if n < 2:
        return "una sola medición (sin IC)"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "sin IC"
    if agreement((np.nan, lo, hi), (ref, ref_lo, ref_hi)) == COINCIDE:
        return "coincide"
    return "más alta" if lo > ref else "más baja"


def comparable(experiment: str) -> list[str] | None:
    """The metrics an experiment declares comparable across machines (COMPARABLE), None for all."""
    from . import experiments

    try:
        return list(getattr(experiments.get(experiment), "COMPARABLE", None) or []) or None
    except KeyError:
        return None


def only_comparable(data: pd.DataFrame) -> pd.DataFrame:
    """The rows of metrics their experiment declares comparable across machines."""
    keep = pd.Series(True, index=data.index)
    for experiment in data["experiment"].unique():
        metrics = comparable(experiment)
        if metrics is not None:
            at = data["experiment"] == experiment
            keep &= ~at | data["metric"].isin(metrics)
    return data[keep]


def against_reference(class_runs: ClassRuns) -> pd.DataFrame:
    """Each machine's ratios next to the reference's: «coincide» when the two IC 95 % overlap (the
    reference's bootstrapped from its own raw repetitions), else «más alta» / «más baja». Only the
    metrics each experiment declares COMPARABLE. x bare metal uses the reference's baseline variant, so
    both sides time the same kind of work."""
    combined = only_comparable(with_reference(class_runs))
    ref = combined[combined["machine"] == REFERENCE_MACHINE]
    if ref.empty:
        return pd.DataFrame()
    ref_base = {
        exp: list(dict.fromkeys(g[g["engine"] == "bare"]["variant"]))[0]
        for exp, g in ref.groupby("experiment")
        if (g["engine"] == "bare").any()
    }
    frames = []
    for label, table in (
        ("× bare metal", ratios_vs_bare(combined, base=ref_base)),
        ("Podman/Docker", podman_over_docker(combined)),
    ):
        if table.empty:
            continue
        key = [c for c in table.columns if c in KEY]
        refs = table[table["machine"] == REFERENCE_MACHINE].set_index(key)[
            ["proporcion", "ic_bajo", "ic_alto"]
        ]
        mine = table[table["machine"] != REFERENCE_MACHINE].copy()
        for col, src in (
            ("referencia", "proporcion"),
            ("referencia_ic_bajo", "ic_bajo"),
            ("referencia_ic_alto", "ic_alto"),
        ):
            mine[col] = [refs[src].get(tuple(r[k] for k in key), np.nan) for _, r in mine.iterrows()]
        mine = mine.dropna(subset=["referencia"])
        mine["veredicto"] = [
            _verdict(lo, hi, r, rlo, rhi, n)
            for lo, hi, r, rlo, rhi, n in zip(
                mine["ic_bajo"],
                mine["ic_alto"],
                mine["referencia"],
                mine["referencia_ic_bajo"],
                mine["referencia_ic_alto"],
                mine["n"],
            )
        ]
        mine.insert(1, "proporcion_de", label)
        frames.append(mine)
    if not frames:
        return pd.DataFrame()
    out = pd.concat(frames, ignore_index=True)
    emulated = {c.machine for c in class_runs.runs if c.meta.get("emulada")}
    if emulated:  # an emulated machine's timings decide no speed verdict (its memory still does)
        data = class_runs.data
        timed = set(map(tuple, data[data["unit"].isin(TIME_UNITS)][["experiment", "metric"]].values))
        pairs = zip(out["experiment"], out["metric"])
        at = out["machine"].isin(emulated) & np.array([pair in timed for pair in pairs], dtype=bool)
        out.loc[at, "veredicto"] = EMULATED_VERDICT
    for col in ("engine", "base"):
        if col in out:
            out[col] = out[col].fillna("")
    return out


# ---------------------------------------------------------------- the student's hand-in
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
    """Zip this machine's latest run of every experiment (the latest complete one, or else the
    latest one), with raw.csv, meta.json and an entrega.json manifest. Returns the zip's path."""
    root = Path(root) if root is not None else results.results_root()
    alumno = re.sub(r"[^A-Za-z0-9@._-]+", "_", alumno) if alumno else _student_name()
    from . import experiments

    picked = {}
    for experiment in experiments.names():
        run = results.latest_run(experiment, root, complete_only=True) or results.latest_run(experiment, root)
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


# ---------------------------------------------------------------- demonstration class
def demo(
    folder: Path | str | None = None, *, machines: int = 6, seed: int = 7, with_guest: bool = False
) -> Path:
    """Write a demonstration class built from the reference data: several fictitious machines with
    different speeds, one zipped, one interrupted run, one missing an experiment, one broken run
    and a foreign file. Every meta.json says demo=true; DEMO.txt says so in Spanish. With
    `with_guest`, the latest runs of the Debian 13 guest (make test-huesped), real and labelled as
    such, join them as a second kind of machine."""
    folder = Path(folder) if folder else PROJECT_ROOT / "build" / "clase_demo"
    rng = np.random.default_rng(seed)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "DEMO.txt").write_text(DEMO_LABEL + "\n", encoding="utf-8")
    for i in range(1, machines + 1):
        machine = folder / f"demo-maquina-{i:02d}"
        speed = {
            "bare": rng.uniform(0.6, 1.6),
            "docker": rng.uniform(0.6, 1.8),
            "podman": rng.uniform(0.6, 1.8),
        }
        available = reference.available()
        for number, experiment in enumerate(available):
            if i == machines and number == 1:
                continue  # a machine that never ran the second experiment
            ref = reference.load(experiment)
            noise = rng.lognormal(0, 0.08, len(ref))
            df = ref.drop(columns=["source"]).copy()
            df["value"] = (df["value"] * df["engine"].map(speed).fillna(1.0) * noise).round(
                4
            )  # qemu: unscaled
            status, reason = results.STATUS_COMPLETE, None
            if i == 3 and number == 0:
                df = df.iloc[: len(df) // 2]
                status, reason = results.STATUS_INTERRUPTED, "interrumpido por el usuario (Ctrl-C)"
            run_id = f"2026010{number + 1}T10{i:02d}00Z-demo{i:02d}"
            run = machine / experiment / run_id
            run.mkdir(parents=True)
            df.to_csv(run / "raw.csv", index=False)
            meta = {
                "experiment": experiment,
                "run_id": run_id,
                "demo": True,
                "status": status,
                "reason": reason,
                "started": f"2026-01-0{number + 1}T10:{i:02d}:00Z",
                "rows": len(df),
                "host": {
                    "hostname": f"demo-maquina-{i:02d}",
                    "cpu_model": "CPU ficticia (demostración)",
                    "cpu_cores": int(rng.choice([2, 4, 8])),
                    "kernel": "6.1-demo",
                    "cgroup_version": "v2",
                },
                "engines": {"docker": {"version": "28.4.0-demo"}, "podman": {"version": "4.6.2-demo"}},
            }
            (run / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    # One student handed in a zip instead of a folder.
    zipped = folder / "demo-maquina-02"
    with zipfile.ZipFile(folder / "demo-maquina-02.zip", "w") as archive:
        for path in sorted(zipped.rglob("*")):
            if path.is_file():
                archive.write(path, f"demo-maquina-02/{path.relative_to(zipped).as_posix()}")
    shutil.rmtree(zipped)
    first = reference.available()[0]
    broken = folder / "demo-rota" / first / "20260101T000000Z-rota00"
    broken.mkdir(parents=True)
    (broken / "raw.csv").write_text("motor,tiempo\ndocker,1\n", encoding="utf-8")
    (broken / "meta.json").write_text(
        json.dumps({"experiment": first, "status": "complete"}), encoding="utf-8"
    )
    (folder / "notas_del_profesor.txt").write_text(
        "Entregas de la clase de demostración.\n", encoding="utf-8"
    )
    if with_guest:
        from .guest import comparar

        comparar.add_to_class(folder)
    return folder


def carpeta_de_clase(folder: str) -> Path:
    """Resolve the notebook's CARPETA: "demo" builds the demonstration class; a relative path is
    taken from the project root."""
    if folder.strip().lower() == "demo":
        return demo(with_guest=True)
    path = Path(folder).expanduser()
    return path if path.is_absolute() else PROJECT_ROOT / path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.clase", description="Entregas y comparación de la clase."
    )
    sub = parser.add_subparsers(dest="orden", required=True)
    pack = sub.add_parser("empaquetar", help="empaqueta en un zip tus últimas corridas con sus metadatos")
    pack.add_argument("--destino", default=None, help="carpeta del zip (por defecto build/entregas/)")
    pack.add_argument(
        "--alumno", default=None, help="tu nombre (por defecto usuario@máquina o $CURSO_ALUMNO)"
    )
    sub.add_parser("demo", help="genera la clase de demostración en build/clase_demo/")
    args = parser.parse_args(argv)
    if args.orden == "empaquetar":
        try:
            target = empaquetar(args.destino, alumno=args.alumno)
        except FileNotFoundError as exc:
            print(exc, file=sys.stderr)
            return 1
        with zipfile.ZipFile(target) as archive:
            names = [n for n in archive.namelist() if n.endswith("meta.json")]
        print(f"Entrega lista: {target}")
        noun = "corrida" if len(names) == 1 else "corridas"
        print(f"Contiene {len(names)} {noun}: " + ", ".join(n.split("/")[1] for n in names))
        print("Entrégale este archivo a tu profesor; él lo abre con notebooks/90_comparar_clase.ipynb.")
        return 0
    print(f"Clase de demostración en {demo()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
