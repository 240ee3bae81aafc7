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

import numpy as np

from .. import stats
from ..view import common

# This module reads other experiments' runs through experiments.read_run, like any experiment does.
READS = ("arranque", "escala", "ejecucion", "anatomia", "anidamiento", "sistema_vm")
PLACEHOLDER = re.compile(r"\{\{\s*([a-z0-9_.]+)\s*\}\}")
ENGINE = {"docker": "Docker", "podman": "Podman"}

Facts = dict[str, str]


def _em(text: str) -> str:
    return f"*({text})*"


def no_run(notebook: str) -> str:
    return _em(
        f"todavía no hay ninguna corrida de `{notebook}` en esta máquina: ejecuta el cuaderno o "
        "`make course` y vuelve a generar esta página; aquí no se inventa ninguna cifra"
    )


def missing_arms(notebook: str, what: str) -> str:
    return _em(f"la última corrida de `{notebook}` no midió {what}, así que no hay cifra que dar")


def _ms(values: np.ndarray) -> str:
    return common.fmt_value(float(np.median(values)), "ms", common.significant(float(np.median(values))))


def _share(value: float, lo: float, hi: float) -> str:
    return common.fmt_value_interval(value * 100, lo * 100, hi * 100, "%").replace("+", "")


def _about(count: float) -> str:
    """A count nobody should read to the unit: two significant figures («1 600», «29 000»)."""
    digits = max(len(str(int(count))) - 2, 0)
    return common.num(round(count, -digits))


def _run_tag(res) -> str:
    return f"corrida `{res.meta.get('run_id', res.run_dir.name)}`"


# ---------------------------------------------------------------- 01: arranque
def _arranque(res) -> Facts:
    from ..experiments import arranque as a

    nb = a.NOTEBOOK
    out: Facts = {}
    df, meta = res.df, res.meta
    table = a.summarize(df, meta)
    if table.empty:
        return {}
    bare = table[(table["engine"] == "bare") & (table["variant"] == "proceso")]
    out["arranque.bare"] = (
        common.fmt_value(float(bare["mediana_ms"].iloc[0]), "ms", 2)
        if len(bare)
        else missing_arms(nb, "bare metal")
    )
    for engine in ENGINE:
        rows = table[(table["engine"] == engine) & (table["variant"] == a.CONTAINER_VARIANT)]
        if rows.empty:
            out[f"arranque.{engine}"] = missing_arms(nb, f"{ENGINE[engine]} con la red por defecto")
            continue
        parts = [f"{common.fmt_value(r.mediana_ms, 'ms', 0)} ({r.role})" for r in rows.itertuples()]
        out[f"arranque.{engine}"] = ", ".join(parts)
    sentences = []
    for claim in a.claims(df, meta):
        if claim.key != "podman_mas_rapido" or np.isnan(claim.value):
            continue
        if not np.isnan(claim.low) and claim.low > 1:
            who = "arranca antes Docker"
        elif not np.isnan(claim.high) and claim.high < 1:
            who = "arranca antes Podman"
        elif np.isnan(claim.low):
            who = "sin IC (pocas rondas), la mediana favorece a " + (
                "Docker" if claim.value > 1 else "Podman"
            )
        else:
            who = "el IC cruza 1×: no se distingue cuál arranca antes"
        sentences.append(
            f"Con {claim.detail.get('role', '?')}, Podman/Docker = "
            f"{common.fmt_ratio(claim.value, claim.low, claim.high)}: {who}; el veredicto de 01 sobre "
            f"«Podman arranca más rápido» es «{common.verdict_words(claim)}»."
        )
    out["arranque.podman_docker"] = (
        f"En la {_run_tag(res)}, con la red por defecto (las condiciones del capítulo): "
        + " ".join(sentences)
        if sentences
        else missing_arms(nb, "Docker y Podman en las mismas rondas")
    )
    podman = (meta.get("engines") or {}).get("podman") or {}
    backend = podman.get("network_backend")
    out["arranque.red_podman"] = (
        f"En la {_run_tag(res)}, Podman {podman.get('server_version') or ''} "
        f"configuró la red con `{backend}`".replace("  ", " ")
        + (" (sin root)" if podman.get("rootless") else "")
        + "."
        if backend
        else missing_arms(nb, "Podman (no hay datos de su red)")
    )
    return out


# ---------------------------------------------------------------- 02: escala
def _escala(res) -> Facts:
    from ..experiments import escala as e

    table = e.summarize(res.df, res.meta)
    out: Facts = {}
    metric = "memoria_cgroup_por_contenedor"
    unit = next(iter(res.df.loc[res.df["metric"] == metric, "unit"]), "MB")
    for engine in ENGINE:
        rows = table[(table["engine"] == engine) & (table["n"] > 0)] if not table.empty else table
        if rows.empty or metric not in rows or rows[metric].dropna().empty:
            out[f"escala.memoria_{engine}"] = missing_arms(
                e.NOTEBOOK, f"la memoria de cgroup de cada contenedor de {ENGINE[engine]}"
            )
            continue
        row = rows.dropna(subset=[metric]).iloc[-1]
        mib = float(row[metric]) / (1024 if unit == "KB" else 1)
        out[f"escala.memoria_{engine}"] = (
            f"{ENGINE[engine]} {common.fmt_value(mib, 'MiB', 2)} (N = {int(row['n'])})"
        )
    free = (res.meta.get("host") or {}).get("memory_available_bytes")
    sentences = []
    for basis in ("rss", "pss"):
        bill = e.memory_bill(res.df, basis)
        fit = e.crossover(res.df, basis)["fit"]
        if not fit:
            continue
        parts = []
        for engine, line in fit.items():
            fixed, per = line["fijo_kb"] / 1024, line["por_contenedor_kb"] / 1024
            text = (
                f"{ENGINE.get(engine, engine)} {common.fmt_value(fixed, 'MiB', 0)} fijos y "
                f"{common.fmt_value(per, 'MiB', 1)} por contenedor"
            )
            if free and per > 0:
                text += f" (cabrían unos {_about(max(free / 2**20 - fixed, 0) / per)})"
            last = bill[bill["engine"] == engine].dropna(subset=["ayudantes_kb", "cgroup_kb"]).tail(1)
            if len(last):
                helper = float(last["ayudantes_kb"].iloc[0]) > float(last["cgroup_kb"].iloc[0])
                text += ", y por contenedor pesa más " + (
                    "su ayudante que su cgroup" if helper else "su cgroup que su ayudante"
                )
            parts.append(text)
        sentences.append(f"con {basis.upper()}, " + "; ".join(parts))
    memory = f" en los {common.fmt_value(free / 2**30, 'GiB', 1)} libres que tenía al medir" if free else ""
    out["escala.caben"] = (
        f"En la {_run_tag(res)}{memory}: " + ". Y ".join(sentences) + "."
        if sentences
        else missing_arms(e.NOTEBOOK, "la factura de memoria de los dos motores")
    )
    return out


# ---------------------------------------------------------------- 03: ejecucion
def _ejecucion(res) -> Facts:
    from ..experiments import ejecucion as x

    out: Facts = {}
    costs = x.exec_costs(res.df)
    for engine in ENGINE:
        rows = costs[(costs["medida"] == x.EXEC_TRUE) & (costs["entorno"] == engine)] if len(costs) else costs
        out[f"ejecucion.exec_{engine}"] = (
            common.fmt_value_interval(
                float(rows["mediana_ms"].iloc[0]),
                float(rows["ic_bajo_ms"].iloc[0]),
                float(rows["ic_alto_ms"].iloc[0]),
                "ms",
            )
            if len(rows)
            else missing_arms(x.NOTEBOOK, f"`exec true` en {ENGINE[engine]}")
        )
    per_s = []
    for engine in ENGINE:
        rows = costs[(costs["medida"] == x.EXEC_TRUE) & (costs["entorno"] == engine)] if len(costs) else costs
        if len(rows):
            ms = float(rows["mediana_ms"].iloc[0])
            per_s.append(
                f"`{engine} exec … true` tardó una mediana de {common.fmt_value(ms, 'ms', common.significant(ms))}, "
                f"así que un núcleo atendería como mucho unas {1000 / ms:.0f} peticiones por segundo"
            )
    out["ejecucion.exec_por_segundo"] = (
        f"En la {_run_tag(res)}, " + "; ".join(per_s) + "."
        if per_s
        else missing_arms(x.NOTEBOOK, "`exec true` en un contenedor")
    )
    over = x.overheads(res.df)
    cpu = over[(over["carga"] == "hash") & (over["base"] == "bare") & over["entorno"].isin(list(ENGINE))]
    if cpu.empty:
        out["ejecucion.cpu"] = missing_arms(x.NOTEBOOK, "la carga hash dentro de un contenedor")
    else:
        out["ejecucion.cpu"] = "; ".join(
            f"{ENGINE[r.entorno]} {common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')}"
            f" ({r.lectura})"
            for r in cpu.itertuples()
        )
    return out


# ---------------------------------------------------------------- 04: anatomia
def _anatomia(res) -> Facts:
    from ..experiments import anatomia as an

    nb, df = an.NOTEBOOK, res.df
    out: Facts = {}

    # Exercise 1: the waterfall, the largest part and the network's share.
    sentences = []
    for engine in ENGINE:
        if not an.values(df, engine, "run_red").size:
            continue
        parts = an.waterfall(df, engine).dropna(subset=["fraccion"])
        if parts.empty:
            continue
        top = parts.loc[parts["fraccion"].idxmax()]
        net = parts[parts["parte"] == "red"]
        text = (
            f"en {ENGINE[engine]} la parte mayor es «{top['etiqueta']}», "
            f"{_share(top['fraccion'], top['fraccion_ic_bajo'], top['fraccion_ic_alto'])} del `run`"
        )
        if top["parte"] == "red":
            text += ": la red es lo que más pesa"
        elif len(net):
            n = net.iloc[0]
            overlap = top["fraccion_ic_bajo"] <= n["fraccion_ic_alto"]  # NaN bounds compare False
            text += f"; la red es {_share(n['fraccion'], n['fraccion_ic_bajo'], n['fraccion_ic_alto'])}: " + (
                "por la mediana la red pesa menos, pero sus IC se solapan y con estas repeticiones no se "
                "puede decir cuál pesa más"
                if overlap
                else "no es la red lo que más pesa"
            )
        if len(parts) < len(an.waterfall_parts(engine)) - 1:
            text += " (a esta corrida le faltan peldaños, así que una parte del arranque queda sin repartir)"
        sentences.append(text)
    out["anatomia.cascada"] = (
        f"En la {_run_tag(res)}, " + "; ".join(sentences) + "."
        if sentences
        else missing_arms(nb, "`run` con y sin red")
    )

    # Exercise 2: what each namespace adds to the one before it.
    steps = [("proceso", "proceso")] + [(key, name) for key, _, name in an.NAMESPACES]
    added = []
    for (lower, _), (upper, name) in zip(steps, steps[1:]):
        a, b = an.series(df, "bare", upper), an.series(df, "bare", lower)  # paired by round
        if a.size and b.size:
            value, lo, hi = stats.difference_ci(a, b)
            added.append((name, value, lo, hi))
    net = next((s for s in added if s[0] == "red"), None)
    if net is None:
        out["anatomia.espacios"] = missing_arms(nb, "los peldaños de espacios de nombres")
    else:
        others = [s for s in added if s[0] in ("mount", "UTS", "IPC", "PID")]
        together = sum(s[1] for s in others)
        dearest = max(added, key=lambda s: s[1])
        listing = ", ".join(f"{s[0]} {common.fmt_value_interval(s[1], s[2], s[3], 'ms')}" for s in added)
        verdict = "cuesta más" if net[1] > together else "no cuesta más"
        no_ci = any(np.isnan(step[2]) for step in added)
        lead = "Sin IC (pocas repeticiones), las medianas dicen que el de red" if no_ci else "El de red"
        out["anatomia.espacios"] = (
            f"En la {_run_tag(res)}, lo que añade cada espacio sobre el peldaño anterior: {listing}. "
            f"{lead} {verdict} que mount, UTS, IPC y PID juntos "
            f"({common.fmt_value(net[1], 'ms', 2)} frente a {common.fmt_value(together, 'ms', 2)}, "
            f"diferencias de medianas), y el que más añade es el de {dearest[0]}."
        )
        if no_ci:
            out["anatomia.espacios"] += (
                " Con tan pocas repeticiones las diferencias pueden salir incluso negativas: repite con "
                "`REPETICIONES = 50` antes de concluir."
            )

    # Exercise 3: runc with and without a network namespace.
    with_net, without = an.series(df, "bare", "runc_con_netns"), an.series(df, "bare", "runc_sin_netns")
    if with_net.size and without.size:
        value, lo, hi = stats.ratio_ci(with_net, without)
        out["anatomia.runc_red"] = (
            f"En la {_run_tag(res)}, `runc run` con espacio de red / sin él = {common.fmt_ratio(value, lo, hi)} "
            f"({_ms(with_net)} frente a {_ms(without)})."
        )
    else:
        out["anatomia.runc_red"] = missing_arms(nb, "`runc run` con y sin espacio de red")

    # Exercise 4: run against start -a of the warm pool.
    sentences = []
    for engine in ENGINE:
        run, pool = an.series(df, engine, "run_red"), an.series(df, engine, "pool")
        if not (run.size and pool.size):
            continue
        saving, lo, hi = stats.difference_ci(pool, run, percent=True)
        per_s = (1000 / np.median(run), 1000 / np.median(pool))
        no_ci = np.isnan(lo)
        if (no_ci and saving > 0) or (not no_ci and lo > 0):
            word = "arranca menos con `start -a`, no más: aquí el pool no ahorra nada"
        elif not no_ci and hi >= 0:
            word = "no arranca más con `start -a` que con `run`: con estas repeticiones no se distinguen"
        elif -saving < 15:
            word = "arranca apenas unos pocos más"
        elif -saving < 50:
            word = "arranca algunos más"
        else:
            word = "arranca muchos más"
        if no_ci:
            word += " (sin IC: pocas repeticiones)"
        sentences.append(
            f"en {ENGINE[engine]}, `run` {_ms(run)} (≈ {per_s[0]:.1f} por segundo) y `start -a` {_ms(pool)} "
            f"(≈ {per_s[1]:.1f} por segundo): `start -a` cambia el tiempo un "
            f"{common.fmt_value_interval(saving, lo, hi, '%')}, así que un núcleo {word}"
        )
    out["anatomia.pool"] = (
        f"En la {_run_tag(res)}, " + "; ".join(sentences) + "."
        if sentences
        else missing_arms(nb, "`run` y `start -a` del pool caliente")
    )

    # The network's share of each engine's run (exercise 2 of 01 and the guide's table).
    costs = an.network_costs(df, res.meta.get("run_id", ""))
    for engine in ENGINE:
        c = costs.get(engine)
        out[f"anatomia.sin_red_{engine}"] = (
            common.fmt_value(c["sin_red_ms"], "ms", 0)
            if c
            else missing_arms(nb, f"{ENGINE[engine]} con `--network none`")
        )
    out["anatomia.red"] = (
        f"En la {_run_tag(res)} de `{nb}`: "
        + "; ".join(
            f"{ENGINE[e]} {common.fmt_value(c['con_red_ms'], 'ms', 0)} con la red por defecto y "
            f"{common.fmt_value(c['sin_red_ms'], 'ms', 0)} con `--network none`: la red es "
            f"{_share(c['fraccion'], *c['fraccion_ic'])} de su arranque"
            for e, c in costs.items()
        )
        + "."
        if costs
        else missing_arms(nb, "`run` con y sin red")
    )
    return out


# ---------------------------------------------------------------- 07: anidamiento
CI_JOBS = 50  # the exercise's number of CI jobs at once


def _anidamiento(res) -> Facts:
    from ..experiments import anidamiento as n
    from ..view.anidamiento import BRAZO

    pss = res.df[res.df["metric"] == n.METRIC_PSS]
    if pss.empty:
        return {
            "anidamiento.ci": missing_arms(
                n.NOTEBOOK, "la memoria de un motor interior (no hubo brazos anidados)"
            )
        }
    parts = []
    for (engine, variant), group in pss.groupby(["engine", "variant"], sort=False):
        mib = float(group["value"].astype(float).median())
        parts.append(
            f"{ENGINE.get(engine, engine)}, {BRAZO.get(variant, variant)}: "
            f"{common.fmt_value(mib, 'MiB', common.significant(mib))} de PSS, "
            f"así que {CI_JOBS} trabajos a la vez sumarían unos "
            f"{common.fmt_value(mib * CI_JOBS / 1024, 'GiB', 1) if mib * CI_JOBS >= 1024 else common.fmt_value(mib * CI_JOBS, 'MiB', 0)}"
        )
    return {
        "anidamiento.ci": f"En la {_run_tag(res)}, lo que añade el motor interior: " + "; ".join(parts) + "."
    }


# ---------------------------------------------------------------- 08: sistema_vm
def _sistema_vm(res) -> Facts:
    from ..experiments import sistema_vm as s

    table = s.summarize(res.df, res.meta)
    out: Facts = {}
    rows = table[table["metrica"] == s.DISCO] if "metrica" in table else table.iloc[0:0]
    if rows.empty:
        out["sistema_vm.disco"] = missing_arms(s.NOTEBOOK, "el disco que añade cada instancia")
        return out
    out["sistema_vm.disco"] = (
        f"En la {_run_tag(res)}, el disco que añade cada instancia: "
        + "; ".join(
            f"{s.kind_label(r.tipo)} {common.fmt_value(float(r.mediana), r.unidad)}"
            for r in rows.itertuples()
        )
        + "."
    )
    return out


# ---------------------------------------------------------------- all of them
BUILDERS: dict[str, Callable] = {
    "arranque": _arranque,
    "escala": _escala,
    "ejecucion": _ejecucion,
    "anatomia": _anatomia,
    "anidamiento": _anidamiento,
    "sistema_vm": _sistema_vm,
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
    "escala": ("escala.memoria_docker", "escala.memoria_podman", "escala.caben"),
    "ejecucion": (
        "ejecucion.exec_docker",
        "ejecucion.exec_podman",
        "ejecucion.exec_por_segundo",
        "ejecucion.cpu",
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
    "anidamiento": ("anidamiento.ci",),
    "sistema_vm": ("sistema_vm.disco",),
}


def kit_facts(root=None) -> Facts:
    """{placeholder key: Spanish text} from the latest run of each experiment under `root` (by default
    the course's results folder)."""
    from .. import experiments

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
                reason = _em(
                    f"no se pudo leer la última corrida de `{notebook}`: {type(exc).__name__}: {exc}"
                )
                got = dict.fromkeys(KEYS[name], reason)
        for key in KEYS[name]:
            out[key] = got.get(key) or (
                no_run(notebook) if res is None or res.df.empty else missing_arms(notebook, "esto")
            )
    out.update(_without_root())
    return out


def _without_root() -> Facts:
    """What a student without root loses per notebook, from each experiment's NEEDS_ROOT."""
    from .. import experiments

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


def fill(text: str, facts: Facts) -> str:
    """The text with every `{{clave}}` replaced by its fact; an unknown key says so (in Spanish)."""
    return PLACEHOLDER.sub(lambda m: facts.get(m.group(1), _em(f"dato desconocido: {m.group(1)}")), text)
