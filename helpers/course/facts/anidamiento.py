"""07's facts for the instructor's kit: how the ladder without --privileged ended, the inner
container's UID map, what grows with each level (the inner `run` or the `exec` path from the host), and
an inner engine's memory (CAPACITY). Notebook 05's per-level cost of nested PID namespaces, which
exercise 4 cites, is 05's own fact `llamadas.anidamiento`."""

from __future__ import annotations

import numpy as np

from ... import stats
from ...experiments import anidamiento as n
from ...experiments.anidamiento.analysis import arm_values
from ...experiments.anidamiento.levels import METRIC_PSS, METRIC_START, METRIC_START_INNER, PRIV
from ...view import common
from ...view.anidamiento import BRAZO, PRIV_REPLACED
from .words import ENGINE, Facts, missing_arms, run_sentence, run_tag

FACTS = ("ci", "sin_privilegios", "mapa_uid", "niveles")


CI_JOBS = 50  # the exercise's number of CI jobs at once


LEVEL_OF = {"nivel1": 1, "nivel2": 2, "nivel3": 3}


def facts(res) -> Facts:
    return {**_ladder(res), **_levels(res), **_memory(res)}


def _ladder(res) -> Facts:
    """Exercises 1 and 2: each step without --privileged, and the UID map of the step that worked."""
    attempts = (res.meta.get("anidamiento") or {}).get("intentos_sin_privilegios") or []
    if not attempts:
        lost = missing_arms(n.NOTEBOOK, "la escalera sin `--privileged` (hace falta Podman y el nivel 2)")
        return {"sin_privilegios": lost, "mapa_uid": lost}
    steps = [
        f"paso {i} ({a.get('opciones', '?')}): {'funciona' if a.get('ok') else 'falla'}"
        for i, a in enumerate(attempts, 1)
    ]
    worked = next((a for a in attempts if a.get("ok")), None)
    end = (
        f"Lo primero que funcionó fue soltar: {worked.get('opciones')}."
        if worked
        else "Ningún paso funcionó: en esta máquina, sin `--privileged` no hubo anidamiento."
    )
    out = {"sin_privilegios": f"En la {run_tag(res)}: " + "; ".join(steps) + ". " + end}
    uid_map = (worked or {}).get("mapa_uid_interior")
    out["mapa_uid"] = (
        f"En la {run_tag(res)}, el contenedor de dentro tenía el mapa de UID `{uid_map}` "
        "(`/proc/self/uid_map`: dentro, fuera, cuántos; los tramos separados por «|»)."
        if uid_map
        else missing_arms(n.NOTEBOOK, "el mapa de UID de un contenedor interior (ningún paso funcionó)")
    )
    return out


def _levels(res) -> Facts:
    """Exercise 3: per engine and level, the inner `run` alone and the `exec` path from the host (the
    host's timing minus the inner one, round by round), and which of the two grows more per level."""
    sentences = []
    for engine, name in ENGINE.items():
        levels = []
        for variant, level in LEVEL_OF.items():
            inner = arm_values(res.df, engine, variant, METRIC_START_INNER)
            host = arm_values(res.df, engine, variant, METRIC_START)
            if inner.size and host.size:
                path = stats.difference_ci(host, inner).triple
                levels.append((level, float(np.median(inner)), path))
        if len(levels) < 2:
            continue
        listing = "; ".join(
            f"nivel {lv}: el `run` de dentro {common.fmt_value(run, 'ms', 0)}, el camino de `exec` "
            f"{common.fmt_value_interval(*path, 'ms')}"
            for lv, run, path in levels
        )
        span = levels[-1][0] - levels[0][0]
        run_step = (levels[-1][1] - levels[0][1]) / span
        path_step = (levels[-1][2][0] - levels[0][2][0]) / span
        grows = "el camino de `exec`" if path_step > run_step else "el `run` de dentro"
        five = levels[0][2][0] + (5 - levels[0][0]) * path_step
        sentences.append(
            f"en {name}, {listing}. Por nivel, el `run` de dentro cambia {common.fmt_value(run_step, 'ms', 0)} "
            f"y el camino de `exec` {common.fmt_value(path_step, 'ms', 0)} (medianas): crece más {grows}. "
            f"Si el camino siguiera creciendo igual, a través de cinco niveles sería de unos "
            f"{common.fmt_value(five, 'ms', 0)} (una extrapolación en línea recta, no una medida)"
        )
    return {
        "niveles": f"En la {run_tag(res)}, " + ". Y ".join(sentences) + "."
        if sentences
        else missing_arms(n.NOTEBOOK, "dos niveles del mismo motor con el arranque de dentro y desde el host")
    }


def _memory(res) -> Facts:
    """Exercise 5 (CAPACITY): the PSS of an inner engine, times the exercise's CI jobs."""
    pss = res.df[res.df["metric"] == METRIC_PSS]
    if pss.empty:
        return {"ci": missing_arms(n.NOTEBOOK, "la memoria de un motor interior (no hubo brazos anidados)")}
    parts = []
    modes = ((res.meta or {}).get("anidamiento") or {}).get("modos") or {}
    for (engine, variant), group in pss.groupby(["engine", "variant"], sort=False):
        mib = float(group["value"].astype(float).median())
        total = mib * CI_JOBS
        replaced = variant == PRIV and (modes.get(engine) or {}).get("modo", "--privileged") != "--privileged"
        parts.append(
            f"{ENGINE.get(engine, engine)}, {PRIV_REPLACED if replaced else BRAZO.get(variant, variant)}: "
            f"{common.fmt_value(mib, 'MiB', common.significant(mib))} de PSS, "
            f"así que {CI_JOBS} trabajos a la vez sumarían unos "
            + (
                common.fmt_value(total / 1024, "GiB", 1)
                if total >= 1024
                else common.fmt_value(total, "MiB", 0)
            )
        )
    return {"ci": run_sentence(res, ", lo que añade el motor interior: ", parts)}
