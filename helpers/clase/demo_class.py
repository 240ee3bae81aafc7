"""A demonstration class built from the reference data (notebook 90 with CARPETA = "demo"), clearly
labelled as such."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from .. import PROJECT_ROOT, reference, results
from ..experiments.verdict import MIN_N
from ..guest import comparar

DEMO_LABEL = (
    "DEMOSTRACIÓN: clase ficticia generada a partir de los datos de referencia del curso "
    "(no son mediciones reales de ninguna máquina)."
)


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
            df = _as_one_machine(reference.load(experiment), i)
            noise = rng.lognormal(0, 0.08, len(df))
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
        comparar.add_to_class(folder)
    return folder


ARM = ["engine", "image", "variant", "metric", "unit"]


def _as_one_machine(ref, index: int):
    """The reference rows one demo machine starts from: where several sources publish the same arm (the
    getpid tables of three CPUs), the machine plays one of them; every arm gets at least MIN_N + 2
    repetitions (cycling through its published values), so the demo reaches verdicts."""
    sources = ref.groupby(ARM)["source"].transform("nunique")
    shared = sorted(ref.loc[sources > 1, "source"].unique())
    if shared:
        ref = ref[(sources == 1) | (ref["source"] == shared[index % len(shared)])]
    reps = max(MIN_N + 2, int(ref["rep"].max()))
    frames = []
    for _, arm in ref.groupby(ARM, sort=False):
        values = arm["value"].to_numpy()
        rows = arm.iloc[[k % len(arm) for k in range(reps)]].copy()
        rows["value"] = [values[k % len(values)] for k in range(reps)]
        rows["rep"] = range(1, reps + 1)
        frames.append(rows)
    return pd.concat(frames, ignore_index=True).drop(columns=["source"])


def carpeta_de_clase(folder: str) -> Path:
    """Resolve the notebook's CARPETA: "demo" builds the demonstration class; a relative path is
    taken from the project root."""
    if folder.strip().lower() == "demo":
        return demo(with_guest=True)
    path = Path(folder).expanduser()
    return path if path.is_absolute() else PROJECT_ROOT / path
