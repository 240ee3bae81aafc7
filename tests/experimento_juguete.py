"""A test-only experiment: the smallest module that follows the contract (CONTRIBUTING.md).

It times two real commands on bare metal (`true`, and `sh -c true`), through the shared pieces only:
experiment_run, measure_rounds, measure.time_command, base.ratio_claim. tests/test_contrato.py registers
it with experiments.register and checks that the panel, the course runner, the class comparison, the
closing table, make pack and the views' «no run yet» notice handle it without editing any other file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pandas as pd

from helpers import measure, validate
from helpers.experiments.base import (
    CLOSING_COLUMNS,
    Arm,
    Resultado,
    experiment_run,
    measure_rounds,
    no_progress,
    print_log,
    ratio_claim,
)
from helpers.view.common import needs_result, show, table

EXPERIMENT = "juguete"
TITLE = "Experimento de juguete: `true` frente a `sh -c true`"
NOTEBOOK = "95_juguete"
CONTROLS = [{"name": "repeticiones", "kind": "int", "label": "Repeticiones", "min": 1, "max": 50}]
BASELINE = ("bare", "true")
QUICK = {"REPETICIONES": 2}
COMPARABLE = ["tiempo"]
COMMANDS = {"true": ["true"], "sh": ["sh", "-c", "true"]}


@dataclass
class Config:
    repeticiones: int = 3
    calentamiento: int = 0
    motores: list = field(default_factory=list)

    def validated(self) -> Config:
        return Config(
            repeticiones=validate.positive_int("REPETICIONES", self.repeticiones, maximum=50),
            calentamiento=validate.non_negative_int("CALENTAMIENTO", self.calentamiento, maximum=5),
            motores=[],
        )


def config(**params) -> Config:
    return Config(**params).validated()


def run(cfg: Config, *, progress=no_progress, log=print_log, root=None) -> Resultado:
    cfg = cfg.validated()
    with experiment_run(EXPERIMENT, asdict(cfg), [], root=root, log=log) as ctx:
        measure_rounds(
            ctx,
            [Arm("bare", v) for v in COMMANDS],
            repetitions=cfg.repeticiones,
            warmup=cfg.calentamiento,
            progress=progress,
            measure=lambda arm: [("tiempo", measure.time_command(COMMANDS[arm.variant]), "ms")],
        )
    return Resultado.load(ctx.run.dir)


def summarize(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    return df.groupby(["engine", "variant"], as_index=False)["value"].median()


def claims(df: pd.DataFrame, meta: dict | None = None) -> list:
    values = {v: df.loc[df["variant"] == v, "value"].to_numpy() for v in COMMANDS}
    return [
        ratio_claim(
            "sh_mas_lento",
            "`sh -c true` tarda más que `true`",
            "esta prueba",
            values["sh"],
            values["true"],
            claimed=1.0,
            region=(1.0, float("inf")),
        )
    ]


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame()


def closing_rows(df: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    s = summarize(df, meta)
    return pd.DataFrame(
        [
            {
                "concepto": f"arrancar `{v}`",
                "tipo": "LAUNCH",
                "entorno": "bare",
                "valor": m,
                "ic_bajo": m,
                "ic_alto": m,
                "unidad": "ms",
            }
            for v, m in zip(s["variant"], s["value"])
        ],
        columns=CLOSING_COLUMNS,
    )


@needs_result
def tabla(resultado: Resultado) -> None:
    """The toy's only view, following the convention: a Resultado or None, displays itself."""
    show(table(summarize(resultado.df, resultado.meta), "Juguete"))
