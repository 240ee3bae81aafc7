"""The toy's arms and how they run."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from helpers import measure
from helpers.experiments.params import Params, param
from helpers.experiments.runner import Arm, Resultado, experiment_run, measure_rounds, no_progress, print_log

COMMANDS = {"true": ["true"], "sh": ["sh", "-c", "true"]}


@dataclass
class Config(Params):
    repeticiones: int = param(3, "Repeticiones", minimum=1, maximum=50)
    calentamiento: int = param(0, minimum=0, maximum=5)
    motores: list = param([], kind="multi", options=(), allow_empty=True)


def run(cfg: Config, *, progress=no_progress, log=print_log, root=None) -> Resultado:
    cfg = cfg.validated()
    with experiment_run("juguete", asdict(cfg), [], root=root, log=log) as ctx:
        measure_rounds(
            ctx,
            [Arm("bare", v) for v in COMMANDS],
            progress=progress,
            measure=lambda arm: [("tiempo", measure.time_command(COMMANDS[arm.variant]), "ms")],
        )
    return Resultado.load(ctx.run.dir)
