"""The instructor's kit, generated from a run: every figure of the guide's «what you will see» and every
fact a worked answer states, as a Spanish sentence computed from the latest run of each experiment
(through the experiments' public analysis functions and view.common's number format).

docs/guia_docente.md and docs/soluciones/*.md hold placeholders `{{clave}}`; `fill` replaces each with
its sentence. When an experiment has no run yet, its facts say so instead of inventing a figure; when
the run lacks the arms a fact needs (a quick profile, a student without root), the fact says which.
"""

from __future__ import annotations

import re
import sys
from types import ModuleType

from ... import experiments, results
from ...experiments import verdict as vd
from ...experiments.runner import Resultado
from ...view.numbers import fmt_duration, fmt_margin
from . import anatomia, anidamiento, arranque, ejecucion, escala, llamadas, red, sistema_vm
from .closing import bottom_line, exec_in_run, pod_capacity, pod_launch, short_and_long
from .words import Facts, em, missing_arms, no_run

# 09's facts read these experiments' runs through experiments.read_run, like any experiment does; each
# experiment's own facts come from its module here (FACTS, facts), found by its name in KITS.
READS = ("arranque", "ejecucion", "anatomia", "escala")
KITS: dict[str, ModuleType] = {
    kit.__name__.rsplit(".", 1)[1]: kit
    for kit in (arranque, escala, ejecucion, anatomia, llamadas, red, anidamiento, sistema_vm)
}
PLACEHOLDER = re.compile(r"\{\{\s*([a-z0-9_.]+)\s*\}\}")


def kit_facts(root=None) -> Facts:
    """{placeholder key: Spanish text} from the latest run of each experiment under `root` (by default
    the course's results folder): each registered experiment's own facts (its module in KITS: FACTS,
    through `facts`), then the course's (09's sums, what needs root, how long each notebook took)."""
    me = sys.modules[__name__]
    out: Facts = {}
    for module in experiments.all_experiments():
        kit = KITS.get(module.EXPERIMENT)
        if kit is None:
            continue
        res = Resultado.latest(module.EXPERIMENT, root)
        measured = res is not None and not res.df.empty
        got = getattr(kit, "static_facts", dict)()
        try:
            got.update(kit.facts(res) if measured else {})
        except Exception as exc:  # noqa: BLE001 - one experiment's data must not stop the kit
            reason = em(
                f"no se pudo leer la última corrida de `{module.NOTEBOOK}`: {type(exc).__name__}: {exc}"
            )
            got.update(dict.fromkeys(kit.FACTS, reason))
        for name in kit.FACTS:
            got[name] = got.get(name) or (
                no_run(module.NOTEBOOK) if not measured else missing_arms(module.NOTEBOOK, "esto")
            )
        out.update({f"{module.EXPERIMENT}.{name}": text for name, text in got.items()})
    out.update(_without_root())
    out.update(_timings(root))
    out["regla.ejemplo"] = _rule_example()
    out.update(_rule_numbers())
    runs = (experiments.read_run(me, "arranque", root), experiments.read_run(me, "ejecucion", root))
    out["cierre.cuenta"] = bottom_line(*runs)
    out["cierre.exec_en_run"] = exec_in_run(*runs)
    out["cierre.corto_y_largo"] = short_and_long(*runs)
    pods, scale = (experiments.read_run(me, name, root) for name in ("anatomia", "escala"))
    out["cierre.pod_lanzamiento"] = pod_launch(pods)
    out["cierre.pod_capacidad"] = pod_capacity(pods, scale)
    return out


def _rule_numbers() -> Facts:
    """The numbers the guide's list of statuses quotes, from the rule itself (experiments.verdict)."""
    return {
        "regla.min_n": str(vd.MIN_N),
        "regla.max_rondas": str(vd.PRACTICAL_REPS),
        "regla.min_observado": str(vd.MIN_OBSERVED),
    }


def _without_root() -> Facts:
    """What a student without root loses per notebook, from each experiment's NEEDS_ROOT."""
    out: Facts = {}
    for module in experiments.all_experiments():
        # Each what is a phrase read mid-sentence: «un contenedor con gVisor», never «Un contenedor…».
        needs = [w[:1].lower() + w[1:] for w in getattr(module, "NEEDS_ROOT", {}).values()]
        out[f"sinroot.{module.EXPERIMENT}"] = (
            "se omiten: " + "; ".join(needs)
            if needs
            else "los mismos brazos (ninguno declara que necesite root)"
        )
    return out


def _rule_example() -> str:
    """The margin of «Podman ~2× faster» as the verdicts print it (margins.py, numbers.fmt_margin)."""
    return f"por ejemplo, Podman/Docker = 0.5× se acepta {fmt_margin(vd.margin('about', 0.5, 'x'), 'x')}"


def _timings(root=None) -> Facts:
    """How long the latest complete run of each experiment measured (meta.json's start and end), as the
    plan of the class quotes it: «unos 25 s», «unos 3 min»; a notice where there is no run."""
    out: Facts = {}
    for module in experiments.all_experiments():
        key = f"tiempo.{module.EXPERIMENT}"
        run = results.latest(module.EXPERIMENT, root)
        meta = results.read_meta(run) if run else {}
        seconds = results.run_seconds(meta) if meta.get("status") == results.STATUS_COMPLETE else None
        if seconds is None:
            out[key] = em(
                f"sin una corrida completa de `{module.NOTEBOOK}` en esta máquina no hay tiempo que dar"
            )
            continue
        reps = (meta.get("parameters") or {}).get("repeticiones")
        with_reps = f" con {reps} {'repetición' if reps == 1 else 'repeticiones'}" if reps else ""
        out[key] = (
            f"unos {round(seconds / 60, 1) if seconds < 600 else round(seconds / 60)} min".replace(
                ".0 min", " min"
            )
            if seconds >= 120
            else f"unos {max(5, round(seconds / 5) * 5)} s"
        ) + f" en la última corrida{with_reps}"
    out["tiempo.plan"] = plan_table(root)
    return out


# The plan's slots for the notebooks the first class runs (docs/guia_docente.md, «Plan de 90 minutos»):
# minutes of class, measuring and explaining; what the measuring took comes from the runs.
PLAN_SLOTS = {"arranque": 15, "escala": 13, "ejecucion": 15, "anatomia": 15}


def is_quick(module: ModuleType, meta: dict) -> bool:
    """Whether a run used the quick profile (`make course --rapido`): its parameters are the module's QUICK."""
    quick = getattr(module, "QUICK", None)
    params = meta.get("parameters") or {}
    return bool(quick) and all(params.get(k.lower()) == v for k, v in quick.items())


def plan_table(root=None) -> str:
    """The 90-minute plan timed against the runs: per notebook of the first class, its slot and how long
    the latest complete run of each profile (quick, and any other: the default or the student's) took on
    this machine, from meta.json (results.run_seconds); «sin corrida» where there is none."""
    rows = [
        "| cuaderno | franja del plan | perfil rápido | perfil por defecto (o el que usaste) |",
        "|---|---|---|---|",
    ]
    for module in experiments.all_experiments():
        slot = PLAN_SLOTS.get(module.EXPERIMENT)
        if slot is None:
            continue
        latest = {True: None, False: None}
        for run in results.list_runs(module.EXPERIMENT, root):
            meta = results.read_meta(run)
            if meta.get("status") == results.STATUS_COMPLETE and results.run_seconds(meta) is not None:
                latest[is_quick(module, meta)] = meta
        cells = []
        for meta in (latest[True], latest[False]):
            if meta is None:
                cells.append("sin corrida")
                continue
            reps = (meta.get("parameters") or {}).get("repeticiones")
            with_reps = f", {reps} {'repetición' if reps == 1 else 'repeticiones'}" if reps else ""
            cells.append(
                f"{fmt_duration(results.run_seconds(meta))} (`{meta.get('run_id', '?')}`{with_reps})"
            )
        rows.append(f"| `{module.NOTEBOOK}` | {slot} min | {cells[0]} | {cells[1]} |")
    return "\n".join(rows)


def fill(text: str, facts: Facts) -> str:
    """The text with every `{{clave}}` replaced by its fact; an unknown key says so (in Spanish)."""
    return PLACEHOLDER.sub(lambda m: facts.get(m.group(1), em(f"dato desconocido: {m.group(1)}")), text)
