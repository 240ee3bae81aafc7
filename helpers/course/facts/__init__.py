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
from collections.abc import Callable
from datetime import datetime

from ... import experiments, results
from ...experiments import verdict as vd
from ...view.numbers import fmt_margin
from .calls_http import from_llamadas, from_red, static_facts
from .capacity import from_escala, from_sistema_vm
from .launch import from_anatomia, from_arranque
from .nesting import from_anidamiento
from .running import bottom_line, exec_in_run, from_ejecucion, short_and_long
from .words import ENGINE, Facts, about, em, missing_arms, ms, no_run, run_tag, share  # noqa: F401

# This package reads other experiments' runs through experiments.read_run, like any experiment does.
READS = ("arranque", "escala", "ejecucion", "anatomia", "llamadas", "red", "anidamiento", "sistema_vm")
PLACEHOLDER = re.compile(r"\{\{\s*([a-z0-9_.]+)\s*\}\}")

# ---------------------------------------------------------------- all of them
BUILDERS: dict[str, Callable] = {
    "arranque": from_arranque,
    "escala": from_escala,
    "ejecucion": from_ejecucion,
    "anatomia": from_anatomia,
    "llamadas": from_llamadas,
    "red": from_red,
    "anidamiento": from_anidamiento,
    "sistema_vm": from_sistema_vm,
}
# Every key each experiment gives (so a missing run fills all of them with its notice).
KEYS: dict[str, tuple[str, ...]] = {
    "arranque": (
        "arranque.bare",
        "arranque.docker",
        "arranque.podman",
        "arranque.podman_docker",
        "arranque.red_podman",
    ),
    "escala": (
        "escala.memoria_docker",
        "escala.memoria_podman",
        "escala.caben",
        "escala.pss_ayudantes",
        "escala.cruce",
    ),
    "ejecucion": (
        "ejecucion.exec_docker",
        "ejecucion.exec_podman",
        "ejecucion.exec_por_segundo",
        "ejecucion.cpu",
        "ejecucion.copia",
        "ejecucion.archivos",
        "ejecucion.escritura",
    ),
    "anatomia": (
        "anatomia.cascada",
        "anatomia.espacios",
        "anatomia.runc_red",
        "anatomia.pool",
        "anatomia.sin_red_docker",
        "anatomia.sin_red_podman",
        "anatomia.red",
    ),
    "llamadas": (
        "llamadas.contenedor",
        "llamadas.seccomp",
        "llamadas.vdso",
        "llamadas.cuanto_importa",
        "llamadas.anidamiento",
        "llamadas.relojes",
    ),
    "red": ("red.docker_puerto", "red.caminos", "red.seguridad", "red.proxy"),
    "anidamiento": (
        "anidamiento.ci",
        "anidamiento.sin_privilegios",
        "anidamiento.mapa_uid",
        "anidamiento.niveles",
    ),
    "sistema_vm": (
        "sistema_vm.disco",
        "sistema_vm.memoria",
        "sistema_vm.disponible",
        "sistema_vm.arranque",
        "sistema_vm.gzip",
        "sistema_vm.lxd",
    ),
}


def kit_facts(root=None) -> Facts:
    """{placeholder key: Spanish text} from the latest run of each experiment under `root` (by default
    the course's results folder)."""
    me = sys.modules[__name__]
    out: Facts = {}
    for name, build in BUILDERS.items():
        notebook = experiments.get(name).NOTEBOOK
        res = experiments.read_run(me, name, root)
        got: Facts = {}
        if res is not None and not res.df.empty:
            try:
                got = build(res)
            except Exception as exc:  # noqa: BLE001 - one experiment's data must not stop the kit
                reason = em(f"no se pudo leer la última corrida de `{notebook}`: {type(exc).__name__}: {exc}")
                got = dict.fromkeys(KEYS[name], reason)
        for key in KEYS[name]:
            out[key] = got.get(key) or (
                no_run(notebook) if res is None or res.df.empty else missing_arms(notebook, "esto")
            )
    out.update(_without_root())
    out.update(_timings(root))
    out["regla.ejemplo"] = _rule_example()
    out.update(static_facts())
    runs = (experiments.read_run(me, "arranque", root), experiments.read_run(me, "ejecucion", root))
    out["cierre.cuenta"] = bottom_line(*runs)
    out["cierre.exec_en_run"] = exec_in_run(*runs)
    out["cierre.corto_y_largo"] = short_and_long(*runs)
    return out


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
        run = results.latest_run(module.EXPERIMENT, root, complete_only=True)
        meta = results.read_meta(run) if run else {}
        try:
            start, end = (
                datetime.fromisoformat(meta[k].replace("Z", "+00:00")) for k in ("started", "ended")
            )
        except (KeyError, TypeError, ValueError):
            out[key] = em(
                f"sin una corrida completa de `{module.NOTEBOOK}` en esta máquina no hay tiempo que dar"
            )
            continue
        seconds = (end - start).total_seconds()
        reps = (meta.get("parameters") or {}).get("repeticiones")
        with_reps = f" con {reps} {'repetición' if reps == 1 else 'repeticiones'}" if reps else ""
        out[key] = (
            f"unos {round(seconds / 60, 1) if seconds < 600 else round(seconds / 60)} min".replace(
                ".0 min", " min"
            )
            if seconds >= 120
            else f"unos {max(5, round(seconds / 5) * 5)} s"
        ) + f" en la última corrida{with_reps}"
    return out


def fill(text: str, facts: Facts) -> str:
    """The text with every `{{clave}}` replaced by its fact; an unknown key says so (in Spanish)."""
    return PLACEHOLDER.sub(lambda m: facts.get(m.group(1), em(f"dato desconocido: {m.group(1)}")), text)
