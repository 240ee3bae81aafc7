"""05's facts for the instructor's kit: getpid per layer, the vDSO, what a call rate costs, nested PID
namespaces."""

from __future__ import annotations

from ... import experiments, stats
from ...experiments import llamadas, verdict
from ...experiments import verdict as vd
from ...experiments.llamadas.analysis import CPU, WALL, arm_ratio, cost_at_rate, nesting_slope, summarize
from ...experiments.llamadas.arms import arm_label
from ...experiments.llamadas.measure import cpu_label
from ...view import common
from ...view.llamadas_vdso import vdso_sentence
from .words import ENGINE, Facts, missing_arms, run_tag

FACTS = ("contenedor", "seccomp", "vdso", "cuanto_importa", "anidamiento", "relojes")


RATE = 1_000_000  # 05, exercise 4: 50 000 requests per second × 20 calls each


UNSTABLE = " (brazo inestable en esta corrida: es solo una lectura, repite antes de concluir)"


def _engines(df) -> list[str]:
    present = set(df["engine"]) if len(df) else set()
    return [e for e in ENGINE if e in present]


def facts(res) -> Facts:
    nb, df, meta = llamadas.NOTEBOOK, res.df, res.meta
    out: Facts = {}
    params = meta.get("parameters") or {}
    engines = _engines(df)

    # The container (default seccomp) against the host, and what the seccomp profile multiplies.
    container, profile = [], []
    for engine in engines:
        r = arm_ratio(df, (engine, "seccomp"), llamadas.BASELINE)
        if not stats.any_nan(r[0]):
            container.append(f"{ENGINE[engine]} {common.fmt_ratio(*r)}")
        p = arm_ratio(df, (engine, "seccomp"), (engine, "sin_seccomp"))
        if not stats.any_nan(p[0]):
            profile.append(
                f"en {ENGINE[engine]}, {common.fmt_ratio(*p)} ({common.direction_words(vd.side(p[1], p[2], None))})"
            )
    out["contenedor"] = (
        "getpid en el contenedor / en el host: " + "; ".join(container)
        if container
        else missing_arms(nb, "getpid en el host y en un contenedor con seccomp")
    )

    # Exercise 2: the two overhead claims as the run judged them, and the seccomp profile's factor.
    judged = experiments.judged(res)
    verdicts = []
    for engine in engines:
        mine = {c.key: c for c in judged if c.detail.get("engine") == engine}
        run, table = mine.get("contenedor_11"), mine.get("contenedor_tabla")
        if run is None or table is None or stats.any_nan(run.value):
            continue
        verdicts.append(
            f"en {ENGINE[engine]}, la sobrecarga medida ({common.fmt_value_interval(run.value, run.low, run.high, '%')}) "
            f"frente al 11 % de su corrida: «{common.verdict_words(run)}»; frente al 24-30 % de su tabla: "
            f"«{common.verdict_words(table)}»"
        )
    calls = params.get("llamadas")
    rounds = int(df["rep"].max()) if len(df) else 0
    head = (
        f"En la {run_tag(res)} ({common.num(calls) if calls else '?'} llamadas por medición, {rounds} rondas)"
    )
    out["seccomp"] = (
        f"{head}, getpid con el perfil seccomp costó, frente al mismo contenedor sin seccomp: "
        + "; ".join(profile)
        + "."
        if profile
        else f"{head} no midió los brazos `seccomp` y `sin_seccomp` en el mismo motor."
    ) + (" Veredictos: " + "; ".join(verdicts) + "." if verdicts else "")

    # Exercise 3: where the vDSO call moved, the notebook's own sentence.
    out["vdso"] = vdso_sentence(df)

    # Exercise 4: a million calls per second, from the «¿Cuándo importa?» table.
    cost = cost_at_rate(df, RATE).set_index("brazo") if len(df) else None
    cores = (meta.get("host") or {}).get("cpu_cores")
    parts = []
    for engine in engines:
        labels = {v: arm_label(engine, v) for v in ("seccomp", "sin_seccomp", "gvisor")}
        if cost is not None and {labels["seccomp"], labels["sin_seccomp"]} <= set(cost.index):
            extra = cost.loc[labels["seccomp"], "ns_extra"] - cost.loc[labels["sin_seccomp"], "ns_extra"]
            per_s = extra * RATE / 1e9
            words = common.cpu_share(per_s, cores)
            shaky = cost.loc[labels["seccomp"], "inestable"] or cost.loc[labels["sin_seccomp"], "inestable"]
            parts.append(
                f"el perfil seccomp de {ENGINE[engine]} añade {common.fmt(extra, common.significant(extra))} ns "
                f"por llamada ({labels['seccomp']} menos {labels['sin_seccomp']}): {words}"
                + (UNSTABLE if shaky else "")
            )
        if cost is not None and labels["gvisor"] in cost.index:
            g = cost.loc[labels["gvisor"]]
            parts.append(
                f"{labels['gvisor']} añade {common.fmt(g['ns_extra'], common.significant(g['ns_extra']))} ns "
                f"por llamada frente al host: {common.cpu_share(g['cpu_por_segundo'], cores)}"
                + (UNSTABLE if g["inestable"] else "")
            )
    out["cuanto_importa"] = (
        f"Con las medianas de la {run_tag(res)}, a {common.num(RATE)} getpid por segundo: "
        + "; ".join(parts)
        + "."
        if parts
        else missing_arms(nb, "los brazos `seccomp`, `sin_seccomp` o `gvisor` junto al host")
    )

    # Exercise 6: the nesting slope and what it says of the course's correction.
    nesting = next((c for c in judged if c.key == "anidamiento"), None)
    slope, low, high, n = nesting_slope(df)
    if nesting is None or not n:
        out["anidamiento"] = missing_arms(nb, "los namespaces PID anidados (brazos `pid` y `anidado`)")
    else:
        reading = {
            verdict.NO_SE_SOSTIENE: "su intervalo queda por debajo del piso de «añade costo»: la recta es plana, "
            "como predice el código",
            verdict.SE_CONFIRMA: "su intervalo queda por encima del piso de «añade costo»: la recta sube, y eso "
            "contradice el código (repite con la máquina más tranquila antes de concluir)",
            verdict.NO_CONCLUYENTE: "su intervalo cruza el piso de «añade costo»: esta corrida no decide",
        }.get(nesting.status, common.verdict_words(nesting))
        out["anidamiento"] = (
            f"En la {run_tag(res)}, cada nivel de namespace PID añadió "
            f"{common.fmt_value_interval(slope, low, high, 'ns')} a getpid "
            f"({common.fmt_value_interval(nesting.value, nesting.low, nesting.high, '%')} de la llamada del "
            f"host; pendiente ronda a ronda, {n} rondas); {reading}."
        )

    # Exercise 1: the two clocks of the host's getpid, with the CPU the probe was pinned to.
    cpu = summarize(df, meta, clock=CPU)
    wall = summarize(df, meta, clock=WALL)
    pick = [
        s[(s["engine"] == "bare") & (s["variant"] == "host") & (s["operacion"] == "getpid")]
        for s in (cpu, wall)
    ]
    if all(len(p) for p in pick):
        (c,), (w,) = (p.itertuples() for p in pick)
        out["relojes"] = (
            f"En la {run_tag(res)} ({cpu_label(params.get('cpu'))}), getpid en el host: tiempo de CPU "
            f"{common.fmt(c.mediana_ns, common.significant(c.mediana_ns), 'ns')} (IQR "
            f"{common.fmt_interval(c.q1_ns, c.q3_ns, common.significant(c.q1_ns))}), reloj de pared "
            f"{common.fmt(w.mediana_ns, common.significant(w.mediana_ns), 'ns')} (IQR "
            f"{common.fmt_interval(w.q1_ns, w.q3_ns, common.significant(w.q1_ns))})."
        )
    else:
        out["relojes"] = missing_arms(nb, "getpid en el host con los dos relojes")
    return out
