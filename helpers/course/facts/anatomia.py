"""04's facts for the instructor's kit: the waterfall, the namespaces, runc with and without a network
namespace, the warm pool, the network's share."""

from __future__ import annotations

import numpy as np

from ... import stats
from ...experiments import anatomia as an
from ...experiments import verdict as vd
from ...experiments.anatomia.analysis import (
    network_costs,
    part_shares,
    series,
    share_gap,
    values,
    waterfall,
    waterfall_parts,
)
from ...experiments.anatomia.rungs import NAMESPACES
from ...view import common
from .words import ENGINE, Facts, missing_arms, ms, run_sentence, run_tag, share

FACTS = ("cascada", "espacios", "runc_red", "pool", "sin_red_docker", "sin_red_podman", "red")


def facts(res) -> Facts:
    nb, df = an.NOTEBOOK, res.df
    out: Facts = {}

    # Exercise 1: the waterfall, the largest part and the network's share.
    sentences = []
    for engine in ENGINE:
        if not values(df, engine, "run_red").size:
            continue
        parts = waterfall(df, engine).dropna(subset=["fraccion"])
        if parts.empty:
            continue
        top = parts.loc[parts["fraccion"].idxmax()]
        net = parts[parts["parte"] == "red"]
        text = (
            f"en {ENGINE[engine]} la parte mayor es «{top['etiqueta']}», "
            f"{share(top['fraccion'], top['fraccion_ic_bajo'], top['fraccion_ic_alto'])} del `run`"
        )
        if top["parte"] == "red":
            text += ": la red es lo que más pesa"
        elif len(net):
            n = net.iloc[0]
            shares = part_shares(df, engine)
            gap = share_gap(shares[top["parte"]], shares["red"])
            if not gap.has_interval:
                which = "sin IC 95 % no se puede decir cuál pesa más"
            elif vd.exceeds(gap.low, gap.high, gap.n):
                which = "no es la red lo que más pesa"
            else:
                which = (
                    f"por la mediana la red pesa menos, pero ronda a ronda la diferencia es "
                    f"{common.fmt_value_interval(gap, unit='pp')}: con estas repeticiones no se puede decir "
                    "cuál pesa más"
                )
            text += (
                f"; la red es {share(n['fraccion'], n['fraccion_ic_bajo'], n['fraccion_ic_alto'])}: {which}"
            )
        if len(parts) < len(waterfall_parts(engine)) - 1:
            text += " (a esta corrida le faltan peldaños, así que una parte del arranque queda sin repartir)"
        sentences.append(text)
    out["cascada"] = run_sentence(res, ", ", sentences, missing_arms(nb, "`run` con y sin red"))

    # Exercise 2: what each namespace adds to the one before it.
    steps = [("proceso", "proceso")] + [(key, name) for key, _, name in NAMESPACES]
    added = []
    for (lower, _), (upper, name) in zip(steps, steps[1:]):
        a, b = series(df, "bare", upper), series(df, "bare", lower)  # paired by round
        if a.size and b.size:
            value, lo, hi = stats.difference_ci(a, b).triple
            added.append((name, value, lo, hi))
    net = next((s for s in added if s[0] == "red"), None)
    if net is None:
        out["espacios"] = missing_arms(nb, "los peldaños de espacios de nombres")
    else:
        dearest = max(added, key=lambda s: s[1])
        listing = ", ".join(f"{s[0]} {common.fmt_value_interval(s[1], s[2], s[3], 'ms')}" for s in added)
        # The rungs are cumulative: mount, UTS, IPC and PID together are «+ PID» − «proceso», and the
        # network's is «+ red» − «+ PID»; their difference, round by round, with its IC.
        rung = {name: key for key, _, name in NAMESPACES}
        pid, red = rung["PID"], rung["red"]
        base, upto_pid, upto_red = (series(df, "bare", v) for v in ("proceso", pid, red))
        value, lo, hi = stats.figure_ci(lambda p, q, r: (r - q) - (q - p), base, upto_pid, upto_red).triple
        together = stats.difference_ci(upto_pid, base).value
        figures = (
            f"({common.fmt_value(net[1], 'ms', 2)} frente a {common.fmt_value(together, 'ms', 2)}, medianas "
            f"ronda a ronda; la diferencia, {common.fmt_value_interval(value, lo, hi, 'ms')})"
        )
        together_names = "mount, UTS, IPC y PID juntos"
        # The difference as a share of what the other four cost together: «no difference» is ±5 % of it.
        n = stats.n_of(base, upto_pid, upto_red)
        side = (
            vd.side(100 * lo / together, 100 * hi / together, n, around=0) if together > 0 else vd.SIN_DATOS
        )
        if side == vd.ABOVE:
            verdict = f"El de red cuesta más que {together_names} {figures}"
        elif side == vd.BELOW:
            verdict = f"El de red no cuesta más que {together_names}: cuesta menos {figures}"
        elif side == vd.LEVEL:
            verdict = (
                f"El de red cuesta casi lo mismo que {together_names}: la diferencia cae dentro de ±5 % de lo "
                f"que cuestan ellos {figures}"
            )
        elif side in (vd.ABOVE_NULL, vd.BELOW_NULL):
            way = "más" if side == vd.ABOVE_NULL else "menos"
            verdict = (
                f"El de red cuesta {way} que {together_names}, sin saber si fuera de ±5 % de lo que cuestan "
                f"ellos {figures}"
            )
        elif side == vd.NO_CONCLUYENTE:
            verdict = (
                f"Con estos IC no se distingue si el de red cuesta más o menos que {together_names} {figures}"
            )
        else:
            verdict = (
                f"Sin IC 95 % ({common.too_few(n) or 'sin intervalo'}) no se dice si el de red cuesta más o "
                f"menos que {together_names} {figures}"
            )
        out["espacios"] = (
            f"En la {run_tag(res)}, lo que añade cada espacio sobre el peldaño anterior: {listing}. "
            f"{verdict}; el que más añade, por la mediana, es el de {dearest[0]}."
        )
        if side == vd.SIN_DATOS:
            out["espacios"] += (
                " Las diferencias entre peldaños pueden salir incluso negativas: repite con "
                "`REPETICIONES = 50` antes de concluir."
            )

    # Exercise 3: runc with and without a network namespace.
    with_net, without = series(df, "bare", "runc_con_netns"), series(df, "bare", "runc_sin_netns")
    if with_net.size and without.size:
        value, lo, hi = stats.ratio_ci(with_net, without).triple
        out["runc_red"] = (
            f"En la {run_tag(res)}, `runc run` con espacio de red / sin él = {common.fmt_ratio(value, lo, hi)} "
            f"({ms(with_net)} frente a {ms(without)})."
        )
    else:
        out["runc_red"] = missing_arms(nb, "`runc run` con y sin espacio de red")

    # Exercise 4: run against start -a of the warm pool.
    sentences = []
    for engine in ENGINE:
        run, pool = series(df, engine, "run_red"), series(df, engine, "pool")
        if not (run.size and pool.size):
            continue
        saving, lo, hi = stats.difference_ci(pool, run, percent=True).triple
        per_s = (1000 / np.median(run), 1000 / np.median(pool))
        side = vd.side(lo, hi, stats.n_of(pool, run), around=0)
        if side == vd.ABOVE_NULL:
            word = "arranca menos con `start -a`, no más, sin saber si fuera de «casi igual»"
        elif side == vd.BELOW_NULL:
            word = "arranca algunos más con `start -a`, sin saber si fuera de «casi igual»"
        elif side == vd.ABOVE:
            word = "arranca menos con `start -a`, no más: aquí el pool no ahorra nada"
        elif side == vd.LEVEL:
            word = "no arranca más con `start -a` que con `run`: " + common.direction_words(side, around=0)
        elif side == vd.NO_CONCLUYENTE:  # undecided: neither «more» nor «not more»
            word = "quizá arranca más con `start -a`, quizá menos: " + common.direction_words(side, around=0)
        elif side == vd.SIN_DATOS:
            word = (
                f"arranca quizá más, quizá menos ({common.too_few(stats.n_of(pool, run)) or 'sin IC 95 %'})"
            )
        elif -saving < 15:
            word = "arranca apenas unos pocos más"
        elif -saving < 50:
            word = "arranca algunos más"
        else:
            word = "arranca muchos más"
        text = (
            f"en {ENGINE[engine]}, `run` {ms(run)} (≈ {common.num(per_s[0], 1)} por segundo) y `start -a` "
            f"{ms(pool)} (≈ {common.num(per_s[1], 1)} por segundo): `start -a` cambia el tiempo un "
            f"{common.fmt_value_interval(saving, lo, hi, '%')}, así que un núcleo {word}"
        )
        running = series(df, engine, "pool_exec")
        if running.size:
            change = stats.difference_ci(running, run, percent=True).triple
            text += (
                f"; un `exec` en un contenedor ya en marcha tardó {ms(running)} "
                f"(≈ {common.num(1000 / np.median(running), 1)} por segundo, "
                f"{common.fmt_value_interval(*change, '%')} frente al `run`)"
            )
        sentences.append(text)
    out["pool"] = run_sentence(res, ", ", sentences, missing_arms(nb, "`run` y `start -a` del pool caliente"))

    # The network's share of each engine's run (exercise 2 of 01 and the guide's table).
    costs = network_costs(df, res.meta.get("run_id", ""))
    for engine in ENGINE:
        c = costs.get(engine)
        out[f"sin_red_{engine}"] = (
            common.fmt_value(c["sin_red_ms"], "ms", 0)
            if c
            else missing_arms(nb, f"{ENGINE[engine]} con `--network none`")
        )
    out["red"] = (
        f"En la {run_tag(res)} de `{nb}`: "
        + "; ".join(
            f"{ENGINE[e]} {common.fmt_value(c['con_red_ms'], 'ms', 0)} con la red por defecto y "
            f"{common.fmt_value(c['sin_red_ms'], 'ms', 0)} con `--network none`: la red es "
            f"{share(c['fraccion'], *c['fraccion_ic'])} de su arranque"
            for e, c in costs.items()
        )
        + "."
        if costs
        else missing_arms(nb, "`run` con y sin red")
    )
    return out
