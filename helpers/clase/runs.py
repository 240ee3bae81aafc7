"""What a class comparison reads: one machine's run (MachineRun), what was skipped and why (Skipped), and
the whole class (ClassRuns) with its rows, machines and skipped items."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .. import experiments, results

REFERENCE_MACHINE = "referencia"
KEY = ["experiment", "metric", "engine", "role", "variant"]
PAIR_KEY = ["experiment", "metric", "role", "variant"]
MANIFEST = "entrega.json"  # the hand-in's manifest, at the top of a student's zip


STATUS_WORDS = {  # a run's status as the instructor reads it
    results.STATUS_INTERRUPTED: "interrumpida",
    results.STATUS_FAILED: "fallida",
    results.STATUS_PARTIAL: "le faltó un motor",
    results.STATUS_RUNNING: "sin terminar",
}


def notebook_of(experiment: str) -> str:
    """An experiment as the instructor knows it: its notebook («01_arranque»), or its name if this
    version of the course does not know it."""
    try:
        return experiments.get(experiment).NOTEBOOK
    except KeyError:
        return experiment


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


def course_order(experiment: str) -> tuple[int, str]:
    """Sort key: the registry's order (notebook 01, 02, …), unknown experiments last by name."""
    known = experiments.names()
    return (known.index(experiment) if experiment in known else len(known), experiment)


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
        """The experiments of the class, in the course's order (the registry's: notebook 01 first)."""
        return sorted({c.experiment for c in self.runs}, key=course_order)

    def machines(self) -> pd.DataFrame:
        """One row per machine: host facts, engine versions, experiments (in the course's order) and
        their status; "" where the hand-in does not say."""
        rows = {}
        for c in sorted(self.runs, key=lambda run: course_order(run.experiment)):
            host = c.meta.get("host") or {}
            row = rows.setdefault(
                c.machine,
                {
                    "máquina": c.machine,
                    "host": _fact(host.get("hostname")),
                    "CPU": _fact(host.get("cpu_model")),
                    "núcleos": _fact(host.get("cpu_cores")),
                    "kernel": _fact(host.get("kernel")),
                    "cgroup": _fact(host.get("cgroup_version")),
                    "VM": _vm(host, c.meta),
                    "motores": "",
                    "experimentos": "",
                },
            )
            if not row["VM"]:  # an older run of the same machine may not say what a newer one does
                row["VM"] = _vm(host, c.meta)
            versions = [
                f"{name} {info.get('version') or info.get('server_version') or info.get('client_version') or '?'}"
                for name, info in (c.meta.get("engines") or {}).items()
                if isinstance(info, dict) and name != "bare"
            ]
            if versions and not row["motores"]:
                row["motores"] = ", ".join(versions)
            mark = "" if not c.partial else f" (parcial: {STATUS_WORDS.get(c.status, c.status)})"
            row["experimentos"] = ", ".join(
                filter(None, [row["experimentos"], notebook_of(c.experiment) + mark])
            )
        return pd.DataFrame(list(rows.values()))

    def skipped_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [{"qué": o.what, "motivo": o.reason} for o in self.skipped], columns=["qué", "motivo"]
        )


def _fact(value) -> str:
    return "" if value is None else str(value)


def _vm(host: dict, meta: dict) -> str:
    """«sí (KVM)» / «sí (QEMU, emulada)» / «no», or "" when the run does not say (a run from before the
    course detected virtualisation)."""
    virt = host.get("virtualization")
    if meta.get("emulada"):
        return "sí (emulada por software)"
    if not isinstance(virt, dict):
        return ""
    return (
        f"sí ({virt.get('tecnologia')})"
        if virt.get("es_vm") and virt.get("tecnologia")
        else ("sí" if virt.get("es_vm") else "no")
    )
