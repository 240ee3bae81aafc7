"""A test-only experiment: the smallest package that follows the contract (CONTRIBUTING.md).

It times two real commands on bare metal (`true`, and `sh -c true`) through the shared pieces only
(runner.experiment_run, runner.measure_rounds, measure.time_command, figures.ratio). tests/course/test_contrato.py
registers it with experiments.register and checks that the panel, the course runner, the class
comparison, the closing table, the instructor's kit, make pack and the views' «no run yet» notice
handle it without editing any other file. Its files show the layout of every experiment: __init__ (the contract's names),
measure.py (the arms and how they run), analysis.py (summaries, closing rows), claims.py (the claims),
kit.py (its facts for the instructor's kit, as helpers/course/facts/<experiment>.py holds each
experiment's, listed in facts.KITS: the test adds it there, never imported here); CLASS_LABELS names its metric in the class comparison.
"""

from __future__ import annotations

from .analysis import closing_rows, summarize  # noqa: F401
from .claims import claims  # noqa: F401
from .measure import Config, run  # noqa: F401

EXPERIMENT = "juguete"
TITLE = "Experimento de juguete: `true` frente a `sh -c true`"
NOTEBOOK = "95_juguete"
BASELINE = ("bare", "true")
QUICK = {"REPETICIONES": 2}
COMPARABLE = ["tiempo"]
CLASS_LABELS = {"tiempo": "tiempo de arranque"}
