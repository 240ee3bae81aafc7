"""How the instructor kit's facts are written, for every experiment's facts module beside this one: the
notices when a run or an arm is missing, and the few number formats the sentences share (all through
view.common).

An experiment's facts module (`helpers/course/facts/<experiment>.py`, listed in facts.KITS) holds `FACTS`,
the names of the facts it fills, and `facts(res)`: each fact a Spanish sentence computed from the latest run
(one with rows: without it the kit writes its notice), through the experiment's own analysis and verdicts,
in view.common's number format. It may add `static_facts()`, the facts no run changes. Names are written
without the experiment: docs/*.md write `{{<experiment>.<name>}}`. The experiment's package never imports
it: the sentences are for a page, so they live above the views they use."""

from __future__ import annotations

import numpy as np

from ...view import common

ENGINE = {"docker": "Docker", "podman": "Podman"}

Facts = dict[str, str]


def em(text: str) -> str:
    return f"*({text})*"


def no_run(notebook: str) -> str:
    return em(
        f"todavía no hay ninguna corrida de `{notebook}` en esta máquina: ejecuta el cuaderno o "
        "`make course` y vuelve a generar esta página; aquí no se inventa ninguna cifra"
    )


def missing_arms(notebook: str, what: str) -> str:
    return em(f"la última corrida de `{notebook}` no midió {what}, así que no hay cifra que dar")


def ms(values: np.ndarray) -> str:
    return common.fmt_value(float(np.median(values)), "ms", common.significant(float(np.median(values))))


def share(value: float, lo: float, hi: float) -> str:
    return common.fmt_value_interval(value * 100, lo * 100, hi * 100, "%").replace("+", "")


def about(count: float) -> str:
    """A count nobody should read to the unit: two significant figures («1 600», «29 000»)."""
    digits = max(len(str(int(count))) - 2, 0)
    return common.num(round(count, -digits))


def run_tag(res) -> str:
    return f"corrida `{res.meta.get('run_id', res.run_dir.name)}`"


def run_sentence(res, lead: str, parts, missing: str = "") -> str:
    """«En la corrida `…`<lead>part; part.» from the latest run's parts, or `missing` when there are none."""
    return f"En la {run_tag(res)}{lead}" + "; ".join(parts) + "." if parts else missing
