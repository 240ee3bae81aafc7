"""The closing LAUNCH vs RUNNING table: every registered experiment's latest run, through its own
`closing_rows(df, meta)`.

Nothing here names an experiment: an experiment adds rows to the closing table by declaring
`closing_rows` (columns `base.CLOSING_COLUMNS`). For each one this module takes this machine's latest
complete run (or, if none finished, the latest one) and concatenates their rows, saying which
experiments have no run yet and which runs could not be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from . import experiments, results
from .experiments.contract import CLOSING_COLUMNS
from .experiments.runner import Resultado

COLUMNS = ["experimento", "titulo", "corrida", "estado", *CLOSING_COLUMNS]


@dataclass
class Cierre:
    """rows: one row per figure (COLUMNS); runs: {experiment: the run used}; missing: experiments that
    declare closing rows and have no run here yet; unreadable: {experiment: Spanish reason}."""

    rows: pd.DataFrame
    runs: dict[str, Resultado] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)


def contributors() -> list:
    """The registered experiment modules that declare rows for the closing table, in notebook order."""
    return [m for m in experiments.all_experiments() if callable(getattr(m, "closing_rows", None))]


def latest(experiment: str, root=None) -> Resultado | None:
    """This machine's latest complete run of an experiment, or else its latest run, or None."""
    run_dir = results.latest_run(experiment, root, complete_only=True) or results.latest_run(experiment, root)
    return Resultado.load(run_dir) if run_dir else None


def gather(*given: Resultado | None, root=None) -> Cierre:
    """The closing table from the latest run of every contributing experiment. A Resultado given here
    (the run a notebook just made) replaces its experiment's latest run."""
    chosen = {r.experiment: r for r in given if r is not None}
    frames, out = [], Cierre(pd.DataFrame(columns=COLUMNS))
    for module in contributors():
        name = module.EXPERIMENT
        try:
            run = chosen.get(name) or latest(name, root)
        except (OSError, ValueError) as exc:
            out.unreadable[name] = f"no se pudo leer su última corrida ({type(exc).__name__}: {exc})."
            continue
        if run is None:
            out.missing.append(name)
            continue
        out.runs[name] = run
        try:
            rows = module.closing_rows(run.df, run.meta)
        except Exception as exc:  # noqa: BLE001 - one broken run must not hide the others' rows
            out.unreadable[name] = (
                f"su corrida {run.meta.get('run_id', run.run_dir.name)} no da filas para "
                f"esta tabla ({type(exc).__name__}: {exc})."
            )
            continue
        if rows is None or rows.empty:
            continue
        rows = rows.reindex(columns=CLOSING_COLUMNS).assign(
            experimento=name,
            titulo=module.TITLE,
            corrida=run.meta.get("run_id", run.run_dir.name),
            estado=run.status,
        )
        frames.append(rows[COLUMNS])
    if frames:
        out.rows = pd.concat(frames, ignore_index=True)
    return out
