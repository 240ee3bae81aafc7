"""The sentences of notebook 04 that conclude, each generated from the run's figures (never written
before the data): where the ladder jumps, which phase of the engine holds the time, which part of the
waterfall weighs most, what a captured `run`
does after the container's own command ended, the engines' own parts, and 01's answer cited."""

from __future__ import annotations

import math

import pandas as pd

from .. import stats
from ..experiments import anatomia, verdict
from ..experiments.anatomia.analysis import (
    engine_own_parts,
    has_storage,
    largest_part,
    lead_of,
    phase_gap,
    runtime_top,
    series,
)
from ..experiments.anatomia.phases import PHASE_TOTAL, PHASES
from ..experiments.anatomia.rungs import METRIC, NAMESPACES, RUNG_LABEL
from ..experiments.runner import Resultado
from .citas import cited_answer
from .common import (
    direction_words,
    engine_label,
    fmt,
    fmt_interval,
    fmt_pct,
    fmt_ratio,
    fmt_value_interval,
    too_few,
)

LINEAR = (
    "proceso",
    *[key for key, _, _ in NAMESPACES],
    "chroot",
    "runc_sin_netns",
    "runc_con_netns",
    "runc_overlay",
)


def _finite(*values) -> bool:
    return all(isinstance(v, (int, float)) and math.isfinite(v) for v in values)


def ladder_sentence(summary: pd.DataFrame, meta: dict | None) -> str:
    """From the process to each engine's `run`: how many times a process, and the largest step of the
    bare ladder (between two consecutive rungs that were measured)."""
    s = summary[summary["metric"] == METRIC]
    base = s[(s["engine"] == "bare") & (s["variant"] == "proceso")]
    parts = []
    if not base.empty:
        b = base.iloc[0]
        parts.append(f"Un proceso suelto (`echo ok`) tardó {fmt(b['mediana_ms'], 2, 'ms')} de mediana.")
        for _, r in s[s["variant"] == "run_red"].iterrows():
            parts.append(
                f"El `run` de {engine_label(r['engine'], meta)} con la red por defecto, "
                f"{fmt(r['mediana_ms'], 0, 'ms')}: {fmt_ratio(r['x_proceso'], r['x_proceso_ic_bajo'], r['x_proceso_ic_alto'])} "
                "lo de un proceso."
            )
    # the linear ladder only: runsc is another runtime beside runc, not a rung above the overlay
    bare = s[(s["engine"] == "bare") & s["variant"].isin(LINEAR)].reset_index(drop=True)
    if len(bare) >= 2:
        steps = bare["mediana_ms"].diff().iloc[1:]
        i = int(steps.idxmax())
        parts.append(
            f"Sin motor, el escalón más alto está entre «{bare.loc[i - 1, 'peldano']}» y «{bare.loc[i, 'peldano']}»: "
            f"{fmt(steps.loc[i], 1, 'ms')} más (diferencia de medianas)."
        )
    return " ".join(parts)


def phases_sentence(df: pd.DataFrame, phases: pd.DataFrame, meta: dict | None) -> str:
    """Per engine, the phase that holds the most time (the summary's rows of the «fases» rung, from the
    run's rows `df`), said only as far as the data allow: an unstable phase, or a lead over the next phase
    that the rounds do not show (phase_gap, by the one rule), do not name a winner."""
    names = dict(PHASES)
    lines = []
    totals = phases[phases["metric"] == PHASE_TOTAL].set_index("engine")["mediana_ms"]
    for engine, group in phases[phases["metric"] != PHASE_TOTAL].groupby("engine", sort=False):
        group = group.sort_values("mediana_ms", ascending=False)
        top = group.iloc[0]
        who, name = engine_label(engine, meta), names[top["metric"]]
        # The table's own «total (suma)» row (the median of each round's sum), never a second total.
        if engine in totals.index:
            total, of_what = totals[engine], "de la mediana del total por ronda"
        else:
            total, of_what = group["mediana_ms"].sum(), "de la suma de medianas"
        share = fmt_pct(100 * top["mediana_ms"] / total, 0, sign=False)
        figures = f"{fmt(top['mediana_ms'], 1, 'ms')} de {fmt(total, 1, 'ms')}, {share} {of_what}"
        rival = group.iloc[1] if len(group) > 1 else None
        gap = phase_gap(df, engine, top["metric"], rival["metric"]) if rival is not None else None
        if top["inestable"]:
            lines.append(
                f"- {who}: la mediana más alta es la de «{name}» ({figures}), pero esa medición es inestable "
                f"(IQR {fmt_interval(top['q1_ms'], top['q3_ms'], 0, 'ms')}): repite antes de decir qué "
                "fase pesa más."
            )
        elif gap is not None and not verdict.exceeds(gap.low, gap.high, gap.n):
            lines.append(
                f"- {who}: por la mediana, la fase más larga es «{name}» ({figures}), pero ronda a ronda "
                f"dura {_lead(gap, 'ms')} más que «{names[rival['metric']]}»: con estas repeticiones no se "
                "distingue cuál pesa más."
            )
        else:
            lines.append(f"- {who}: la fase más larga es «{name}» ({figures}).")
    return "\n".join(lines)


def _lead(gap: stats.Estimate, unit: str) -> str:
    """A lead that decides nothing, as the sentences give it: «+3 puntos [−2, +9]», or «sin IC 95 %»."""
    if not gap.has_interval:
        return f"{fmt_value_interval(gap, unit=unit)} (sin IC 95 %)"
    return fmt_value_interval(gap, unit=unit)


def waterfall_sentence(frames: list[pd.DataFrame], meta: dict | None) -> str:
    """Per engine, the part of its `run` that weighs most, with its share and interval, and the network's
    share (the figure network_costs decides); a part whose interval overlaps the next one's is not named
    the largest."""
    lines = []
    for w in frames:
        top, rival, separated = largest_part(w)
        if top is None:
            continue
        figure = (
            f"{fmt_value_interval(top['ms'], top['ic_bajo_ms'], top['ic_alto_ms'], 'ms')}, "
            f"{fmt_pct(100 * top['fraccion'], 0, sign=False)} del `run` "
            f"{fmt_interval(100 * top['fraccion_ic_bajo'], 100 * top['fraccion_ic_alto'], 0)}"
        )
        who = engine_label(top["engine"], meta)
        if separated:
            text = f"- En {who}, la parte que más pesa es «{top['etiqueta']}»: {figure}."
        else:
            text = (
                f"- En {who}, por la mediana, la parte que más pesa es «{top['etiqueta']}» ({figure}), pero "
                f"ronda a ronda pesa {_lead(lead_of(top), 'pp')} más que «{rival['etiqueta']}»: con estas "
                "repeticiones no se distingue cuál pesa más."
            )
        net = w[w["parte"] == "red"]
        if len(net) and net.iloc[0]["parte"] != top["parte"]:
            n = net.iloc[0]
            text += (
                f" La red por defecto: {fmt_value_interval(n['ms'], n['ic_bajo_ms'], n['ic_alto_ms'], 'ms')}, "
                f"{fmt_pct(100 * n['fraccion'], 0, sign=False)} del `run` "
                f"{fmt_interval(100 * n['fraccion_ic_bajo'], 100 * n['fraccion_ic_alto'], 0)}."
            )
        lines.append(text)
    return "\n".join(lines)


def chain_sentence(split: dict, engine: str, meta: dict | None, network: dict | None = None) -> str:
    """When the container's `echo` ended and when the CLI returned, and what started in between; with
    `network` (network_costs of this engine), the network's cost the waterfall decides, cited: one
    captured launch is another quantity."""
    if not split:
        return ""
    names = {
        name if name != "?" else "sin nombre (terminaron antes de leerlo)": n
        for name, n in split["despues"].items()
    }
    after = ", ".join(f"{name} ×{count}" if count > 1 else name for name, count in names.items())
    share = split["despues_ms"] / split["total_ms"] if split["total_ms"] > 0 else float("nan")
    text = (
        f"En {engine_label(engine, meta)}, el `echo` del contenedor terminó a los {fmt(split['echo_ms'], 0, 'ms')} "
        f"y el CLI volvió a los {fmt(split['total_ms'], 0, 'ms')}: {fmt(split['despues_ms'], 0, 'ms')} "
        f"({fmt_pct(100 * share, 0, sign=False)} de esta captura) pasaron después de que el trabajo del "
        "contenedor había terminado"
    )
    if split["procesos_despues"]:
        count = split["procesos_despues"]
        started = "arrancó 1 proceso" if count == 1 else f"arrancaron {count} procesos"
        text += f", y en ellos {started} ({after}): deshacer el contenedor."
    else:
        text += ", sin que arrancara ningún proceso nuevo (trabajo dentro de procesos que ya existían)."
    steps = split.get("red") or {}
    if "setup" in steps and "teardown" in steps:
        text += (
            f" En esta captura, el proceso netavark duró {fmt(steps['setup'], 0, 'ms')} al crear la red "
            f"(`setup`) y {fmt(steps['teardown'], 0, 'ms')} al deshacerla (`teardown`)."
        )
    if network and _finite(network.get("red_ms")):
        text += (
            f" Es un solo arranque visto por dentro; lo que la red por defecto cuesta en el `run` lo decide la "
            f"cascada, con todas las rondas: {fmt(network['red_ms'], 0, 'ms')} "
            f"{fmt_interval(*network['red_ic'], 0)}, {fmt_pct(100 * network['fraccion'], 0, sign=False)} "
            f"{fmt_interval(*(100 * v for v in network['fraccion_ic']), 0)} del `run`."
        )
    return text


def own_parts_sentence(df: pd.DataFrame, meta: dict | None) -> str:
    """The engines' own parts (run --network none − runc run), paired by round, and their ratio: a
    figure of this notebook's conditions, no verdict."""
    own = engine_own_parts(df)
    engines = [e for e in ("docker", "podman") if e in own]
    if not engines:
        return ""
    parts = [f"{engine_label(e, meta)} {fmt_value_interval(*own[e][:3], 'ms')}" for e in engines]
    base = RUNG_LABEL[runtime_top(has_storage(df))[1]]
    text = (
        f"La parte propia de cada motor en este cuaderno (su `run --network none` menos «{base}», por ronda, "
        f"IC 95 %; la de la cascada): {' y '.join(parts)}."
    )
    if "podman/docker" in own:
        value, low, high, n = own["podman/docker"]
        text += (
            f" La de Podman es {fmt_ratio(value, low, high)} la de Docker (n = {n} rondas): una cifra de estas "
            "condiciones (sin red, restando el runtime), no otra respuesta a la pregunta que decide el cuaderno 01."
        )
    return text


def answer_of_01(resultado: Resultado | None, root=None) -> str:
    """01's answer to «is Podman faster to start?», cited (citas.cited_answer), with this
    notebook's own `run` beside it; "" when 01 has no run (the view then says so with missing_run)."""
    claim, text = cited_answer(anatomia, resultado, "alpine", root)
    if claim is not None and resultado is not None:
        text += " " + _same_question_here(resultado, claim)
    return text


def _same_question_here(resultado: Resultado, claim) -> str:
    """This notebook's own `run` with the default network, Podman over Docker by round, beside 01's
    answer: its conditions, and whether it points the same way (a figure, not a second verdict)."""
    podman, docker = (series(resultado.df, e, "run_red") for e in ("podman", "docker"))
    if not (podman.size and docker.size):
        return ""
    value, low, high = stats.ratio_ci(podman, docker).triple
    image = ((resultado.meta or {}).get("parameters") or {}).get("imagen", "")
    n = stats.n_of(podman, docker)
    here = verdict.side(low, high, n)
    there = verdict.side(claim.low, claim.high, claim.n)
    sides = (verdict.ABOVE, verdict.BELOW)
    if here == verdict.SIN_DATOS:
        agrees = f"sin IC 95 % ({too_few(n) or 'sin intervalo'}), así que no se puede comparar con 01"
    elif here in sides and here == there:
        agrees = "la misma dirección que en el cuaderno 01"
    elif here in sides and there in sides:
        agrees = "la dirección contraria a la del cuaderno 01: mira qué cambia entre las dos corridas"
    elif here in sides:
        agrees = (
            f"aquí {direction_words(here, 'arranca antes Docker', 'arranca antes Podman')}, y en el cuaderno "
            f"01 {direction_words(there, 'arranca antes Docker', 'arranca antes Podman', n=claim.n)}"
        )
    else:
        agrees = f"aquí {direction_words(here, 'arranca antes Docker', 'arranca antes Podman', n=n)}"
    return (
        f"En este cuaderno, el mismo `run` con la red por defecto{f' e imagen «{image}»' if image else ''}, "
        f"intercalado con los demás peldaños, da Podman/Docker = {fmt_ratio(value, low, high)} "
        f"(n = {n} rondas): {agrees}."
    )
