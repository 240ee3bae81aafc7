"""The census of verdicts: how many of each experiment's claims every status got, from the run each page
reads (`results.latest`: its latest complete run; without one, its latest run with measurements, flagged).

    python -m helpers.census            # a Markdown table, in Spanish
    python -m helpers.census --json     # the same counts as JSON
    make census

Each experiment of the registry is judged once, through its own `claims(df, meta)` (the contract), on
that run; the statuses are worded as every notebook words them (`view.verdicts.VERDICT`). An experiment
without a run is listed as «sin corrida». Exits 1 when an experiment's claims could not be judged.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import experiments, results
from .experiments import verdict as vd
from .experiments.runner import Resultado
from .view.verdicts import VERDICT

DECIDED = (vd.SE_CONFIRMA, vd.NO_SE_SOSTIENE)
# Every status in the table's order: the decided ones first, then the ones that withhold a verdict.
ORDER = (
    *DECIDED,
    vd.BAJO_CARGA,
    vd.NO_COMPARABLE,
    vd.INDECIDIBLE,
    vd.NO_CONCLUYENTE,
    vd.INESTABLE,
    vd.SIN_DATOS,
)

NO_RUN = "sin corrida"
RUN_WORDS = {
    results.STATUS_COMPLETE: "completa",
    results.STATUS_PARTIAL: "parcial: perdió un motor",
    results.STATUS_INTERRUPTED: "interrumpida",
    results.STATUS_FAILED: "fallida",
    results.STATUS_RUNNING: "sin terminar",
}


@dataclass
class Row:
    """One experiment's count: its run (None: «sin corrida»), the run's status, how many claims got each
    status, and the error that kept them from being judged (Spanish), if any."""

    experiment: str
    notebook: str
    run_id: str | None = None
    run_status: str | None = None
    counts: Counter = field(default_factory=Counter)
    error: str | None = None

    @property
    def label(self) -> str:
        """«02 escala»: the notebook's number and the experiment's name."""
        number = self.notebook.split("_", 1)[0]
        return f"{number} {self.experiment}" if number.isdigit() else self.experiment

    @property
    def claims(self) -> int:
        return sum(self.counts.values())

    @property
    def decided(self) -> int:
        return sum(self.counts[s] for s in DECIDED)


def count(module, root: Path | str | None = None) -> Row:
    """One experiment's census: every claim of its run judged once, by its own `claims(df, meta)`."""
    row = Row(module.EXPERIMENT, module.NOTEBOOK)
    res = Resultado.latest(module.EXPERIMENT, root)
    if res is None:
        return row
    row.run_id, row.run_status = res.meta.get("run_id", res.run_dir.name), res.status
    try:
        judged = experiments.judged(res)
    except Exception as exc:  # noqa: BLE001 - one experiment that cannot be judged must not hide the rest
        row.error = f"no se pudieron juzgar sus afirmaciones ({type(exc).__name__}: {exc})"
        return row
    row.counts = Counter(claim.status for claim in judged)
    return row


def census(root: Path | str | None = None) -> list[Row]:
    """Every registered experiment's count, in notebook order."""
    return [count(module, root) for module in experiments.all_experiments()]


def total(rows: list[Row]) -> Row:
    """The sum of the rows with a judged run."""
    out = Row("total", "total")
    for row in rows:
        out.counts.update(row.counts)
    return out


def statuses(rows: list[Row]) -> list[str]:
    """The table's status columns: every status of the verdict rule, then any other a run gave."""
    extra = sorted({s for row in rows for s in row.counts} - set(ORDER))
    return [*ORDER, *extra]


def words(status: str) -> str:
    return VERDICT.get(status, status)


def _run_words(row: Row) -> str:
    return RUN_WORDS.get(row.run_status or "", row.run_status or "?")


def table(rows: list[Row]) -> str:
    """The census as a Markdown table (Spanish), with the runs it read below it."""
    columns = statuses(rows)
    head = ["experimento", "afirmaciones", "decididas", *(words(s) for s in columns)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        if row.run_id is None:
            cells = [row.label, NO_RUN, *[""] * (len(head) - 2)]
        elif row.error:
            cells = [f"{row.label} (corrida {_run_words(row)})", "error", *[""] * (len(head) - 2)]
        else:
            name = (
                row.label if row.run_status == results.STATUS_COMPLETE else f"{row.label} ({_run_words(row)})"
            )
            cells = [name, str(row.claims), str(row.decided), *(str(row.counts[s]) for s in columns)]
        lines.append("| " + " | ".join(cells) + " |")
    tot = total(rows)
    cells = ["**total**", str(tot.claims), str(tot.decided), *(str(tot.counts[s]) for s in columns)]
    lines.append("| " + " | ".join(cells) + " |")
    judged = [r for r in rows if r.run_id is not None]
    lines.append("")
    lines.append(
        f"Decididas: «{words(vd.SE_CONFIRMA)}» más «{words(vd.NO_SE_SOSTIENE)}». "
        f"{len(judged)} de {len(rows)} experimentos con corrida."
    )
    for row in judged:
        lines.append(f"- {row.label}: corrida {row.run_id} ({_run_words(row)})")
        if row.error:
            lines.append(f"  {row.error}")
    return "\n".join(lines)


def _as_dict(row: Row) -> dict:
    return {
        "experimento": row.experiment,
        "cuaderno": row.notebook,
        "corrida": row.run_id,
        "estado_corrida": row.run_status,
        "afirmaciones": row.claims,
        "decididas": row.decided,
        "por_estado": {s: row.counts[s] for s in statuses([row])},
        "error": row.error,
    }


def as_json(rows: list[Row], root: Path | str | None = None) -> dict:
    """The census as plain data: per experiment and in total, the count of each status (by its code;
    `estados` gives the words the notebooks print)."""
    tot = total(rows)
    return {
        "resultados": str(root if root is not None else results.results_root()),
        "estados": {s: words(s) for s in statuses(rows)},
        "experimentos": [_as_dict(r) for r in rows],
        "total": {
            "afirmaciones": tot.claims,
            "decididas": tot.decided,
            "por_estado": {s: tot.counts[s] for s in statuses(rows)},
            "experimentos_con_corrida": sum(r.run_id is not None for r in rows),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.census",
        description="Cuenta las afirmaciones de cada experimento por veredicto, en la última corrida de cada uno.",
    )
    parser.add_argument("--json", action="store_true", help="el mismo censo en JSON")
    parser.add_argument(
        "--resultados",
        metavar="CARPETA",
        help="la carpeta de resultados que leer (por omisión, CURSO_RESULTADOS o results/)",
    )
    args = parser.parse_args(argv)
    rows = census(args.resultados)
    if args.json:
        print(json.dumps(as_json(rows, args.resultados), indent=2, ensure_ascii=False))
    else:
        print(table(rows))
    return 1 if any(r.error for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
