"""Experiment 5 as a person sees it: what each isolation layer costs per system call, in Spanish.

Five views, the course's names (CONTRIBUTING, «Las vistas»); each displays itself and returns None:
`tabla(resultado, que)`, `grafico(resultado, que)`, `veredictos(resultado)`, `referencia()` and
`comparacion(resultado)`. `que` picks which table or plot (TABLAS, GRAFICOS). Every sentence that
concludes is generated from the run's figures or verdicts. `PRESETS`: the panel's one-click configurations.
"""

from __future__ import annotations

import pandas as pd

from .. import experiments, reference
from ..engines import CONTAINER_ENGINES, DISPLAY
from ..experiments import llamadas as exp
from ..experiments import verdict
from ..experiments.llamadas.analysis import (
    CPU,
    WALL,
    arm_ratio,
    compare,
    cost_at_rate,
    document_span,
    nesting,
    nesting_slope,
    summarize,
    test_c,
)
from ..experiments.llamadas.arms import arm_label
from ..experiments.llamadas.claims import SEED_TEST_C_US, SOURCE, TEST_C_DEFINED
from ..experiments.llamadas.measure import DOCUMENT_CALLS, DOCUMENT_ENTRIES, DOCUMENT_PRESET
from ..experiments.llamadas.probe import OPERATION_LABEL
from ..experiments.runner import Resultado
from . import llamadas_graficos as graficos
from .common import (
    ENGINE_LABEL,
    behind_the_claims,
    claims_list,
    cpu_share,
    decimals_for,
    direction_words,
    fmt,
    fmt_interval,
    fmt_margin,
    fmt_ratio,
    fmt_value_interval,
    markdown,
    missing_run,
    needs_result,
    num,
    show,
    significant,
    table,
    verdict_words,
)
from .llamadas_vdso import vdso_sentence
from .panel import Preset

REF_LABEL = {
    "seed001": "el documento: su corrida (kernel 6.14 en Azure)",
    "seed001-corrida2": "el documento: su «25 %» («Key Takeaways»), la corrida 2 de su repositorio",
    "seed001-esperado": "el documento: lo que espera («Expected» de sus pruebas A y B)",
    "seed001-tabla-xeon-8370c": "su tabla de valores esperados (no medidos): Intel Xeon Platinum 8370C (Azure)",
    "seed001-tabla-epyc-7763": "su tabla de valores esperados (no medidos): AMD EPYC 7763 (Azure)",
    "seed001-tabla-i7-12700k": "su tabla de valores esperados (no medidos): Intel i7-12700K",
}


CLOCK_LABEL = {CPU: "CPU del hilo", WALL: "pared"}
# Its per-CPU table's «Test C (µs)» column: the document does not describe it, its repository does.
TEST_C_NOTE = (
    "El documento solo describe las pruebas A y B, pero su repositorio define el «Test C» de su tabla: "
    f"{TEST_C_DEFINED}. Esa es la cifra de su «1.9 ms per exec». Este cuaderno lo corre igual, en el brazo "
    "«nsenter» (como root), y lo pone al lado de sus 1 872 µs y del `exec true` del experimento 3."
)
# Which clock the document read and which the course judges on (its repository's getpid_bench.c).
CLOCK_NOTE = (
    "**Relojes.** El documento cronometró con `clock_gettime(CLOCK_MONOTONIC)`, el reloj de pared, después de "
    "1 000 llamadas de calentamiento (`getpid_bench.c` de su repositorio). La sonda del curso lee ese mismo "
    "reloj y también el tiempo de CPU del hilo (`CLOCK_THREAD_CPUTIME_ID`), y los veredictos usan el de CPU: "
    "en una máquina compartida el reloj de pared también cuenta los ratos en que el hilo esperaba una CPU "
    "libre, que no son costo de la llamada. El reloj de pared queda al lado, en la tabla «relojes»."
)
PRESETS = [
    Preset(
        f"Configuración del documento ({num(DOCUMENT_CALLS)} de getpid, {num(DOCUMENT_ENTRIES)} nsenter)",
        DOCUMENT_PRESET,
        "Sus pruebas A, B y C como las corrió el primer `run.sh` de su repositorio: diez millones de getpid "
        "por medición en el host y en un contenedor de Docker con el seccomp por defecto, sin fijar ninguna "
        "CPU (su guion no fijaba ninguna, aunque su README diga que sí) y sin cortar el bucle, y mil "
        "`nsenter --target PID --pid -- /bin/true` por medición (como root). Su reloj fue el de pared "
        "(`CLOCK_MONOTONIC`, tras 1 000 llamadas de calentamiento); los veredictos usan el tiempo de CPU del "
        "hilo, con el de pared al lado. Cada medición tarda segundos, más en una máquina ocupada.",
    )
]


def _digits(value: float) -> int:
    """Three significant digits (a figure without its own interval)."""
    return significant(value)


def _median_digits(value: float, low: float, high: float) -> int:
    """The decimals a median shows with its IC (view.common): its IQR and minimum show as many."""
    found = decimals_for(low, high)
    return significant(value) if found is None else found


def _spread_digits(q1: float, q3: float, digits: int) -> int:
    """Decimals of an IQR: those of its own half-width when it is narrower than the median's IC (so a
    narrow IQR never prints as «[88, 88]»), else the median's."""
    own = decimals_for(q1, q3)
    return digits if own is None else max(own, digits)


def _ratio(r: float, lo: float | None = None, hi: float | None = None) -> str:
    return fmt_ratio(r, lo, hi)


def _choose(kind: str, que: str, options: dict) -> None:
    if que not in options:
        raise ValueError(f"{kind}: no hay «{que}». Elige una de: {', '.join(options)}.")


# ---------------------------------------------------------------- tables
def _tabla_corrida(resultado: Resultado, **_) -> None:
    """Which arms were skipped and why (the panel already said which run this is)."""
    skipped = resultado.meta.get("skipped_arms") or {}
    if skipped:
        rows = pd.DataFrame({"Brazo omitido": list(skipped), "Motivo": list(skipped.values())})
        show(table(rows, "Brazos que no se midieron en esta corrida"))
    else:
        markdown("_En esta corrida se midieron todos los brazos elegidos._")


def _tabla_brazos(resultado: Resultado, operacion: str = "getpid", **_) -> None:
    """One operation, every arm: median ns per call with its IC, IQR, min, and × host with its IC."""
    s = summarize(resultado.df, resultado.meta)
    s = s[s["operacion"] == operacion]
    if s.empty:
        markdown(f"_Esta corrida no midió {operacion}._")
        return
    digits = [
        _median_digits(m, lo, hi) for m, lo, hi in zip(s["mediana_ns"], s["ic_bajo_ns"], s["ic_alto_ns"])
    ]
    out = pd.DataFrame(
        {
            "Brazo": s["brazo"],
            "Reloj": [CLOCK_LABEL[c] for c in s["reloj"]],
            "n": s["n"],
            "Mediana [IC 95 %] (ns)": [
                fmt_value_interval(m, lo, hi, "")
                for m, lo, hi in zip(s["mediana_ns"], s["ic_bajo_ns"], s["ic_alto_ns"])
            ],
            "IQR (ns)": [
                fmt_interval(a, b, _spread_digits(a, b, d)) for a, b, d in zip(s["q1_ns"], s["q3_ns"], digits)
            ],
            "Mín (ns)": [fmt(v, d) for v, d in zip(s["min_ns"], digits)],
            "× host [IC 95 %]": [
                _ratio(r, lo, hi) for r, lo, hi in zip(s["x_host"], s["x_host_ic_bajo"], s["x_host_ic_alto"])
            ],
            "Estable": ["no: repite" if u else "sí" for u in s["inestable"]],
        }
    )
    caption = (
        f"{OPERATION_LABEL.get(operacion, operacion)}: ns por llamada (IQR con cuantiles lineales). "
        "× host: ronda a ronda, con el mismo reloj en los dos brazos (el de pared si uno es gVisor)"
    )
    show(table(out, caption))


def _tabla_operaciones(resultado: Resultado, **_) -> None:
    """Every operation (columns) in every arm (rows): median ns per call and × host."""
    s = summarize(resultado.df, resultado.meta)
    if s.empty:
        markdown("_Esta corrida no tiene filas todavía._")
        return
    rows = []
    for brazo, group in s.groupby("brazo", sort=False):
        row = {"Brazo": brazo}
        for _, r in group.iterrows():
            cell = graficos.ns(r["mediana_ns"])
            if (r["engine"], r["variant"]) != exp.BASELINE and r["x_host"] == r["x_host"]:
                cell += f" ({_ratio(r['x_host'])})"
            row[graficos.OPERACION_CORTA.get(r["operacion"], r["operacion"])] = cell
        rows.append(row)
    caption = "Mediana de ns por llamada en cada brazo (entre paréntesis, × host)"
    show(table(pd.DataFrame(rows).fillna("—"), caption))
    markdown(vdso_sentence(resultado.df))


def _tabla_relojes(resultado: Resultado, operacion: str = "getpid", **_) -> None:
    """The same calls through two clocks: the thread's CPU time (what this notebook uses) and the wall
    clock (what the document used). On a busy machine the wall clock also counts the waits for a CPU."""
    cpu = summarize(resultado.df, resultado.meta, clock=CPU)
    wall = summarize(resultado.df, resultado.meta, clock=WALL)
    cpu, wall = cpu[cpu["operacion"] == operacion], wall[wall["operacion"] == operacion]
    if cpu.empty or wall.empty:
        markdown("_Esta corrida no tiene las dos medidas de reloj._")
        return
    m = cpu.merge(wall, on=["engine", "variant", "brazo"], suffixes=("_cpu", "_pared"))
    out = pd.DataFrame({"Brazo": m["brazo"]})
    for clock, name in (("cpu", "CPU"), ("pared", "Pared")):
        out[f"{name}: mediana (ns)"] = [fmt(v, _digits(v)) for v in m[f"mediana_ns_{clock}"]]
        out[f"{name}: IQR (ns)"] = [
            fmt_interval(a, b, _digits(a)) for a, b in zip(m[f"q1_ns_{clock}"], m[f"q3_ns_{clock}"])
        ]
    show(table(out, f"{operacion}: tiempo de CPU del hilo frente a reloj de pared, en todos los brazos"))


def _tabla_anidamiento(resultado: Resultado, operacion: str = "getpid", **_) -> None:
    n = nesting(resultado.df, operacion)
    if n.empty:
        markdown("_Esta corrida no midió namespaces PID._")
        return
    out = pd.DataFrame(
        {
            "Niveles añadidos": n["profundidad"],
            "Niveles que vio la sonda (NSpid)": [("—" if v != v else int(v)) for v in n["niveles_vistos"]],
            "Mediana [IC 95 %] (ns)": [
                fmt_value_interval(m, lo, hi, "")
                for m, lo, hi in zip(n["mediana_ns"], n["ic_bajo_ns"], n["ic_alto_ns"])
            ],
        }
    )
    caption = (
        f"{operacion} dentro de namespaces PID anidados (la sonda cuenta los niveles en /proc/self/status)"
    )
    show(table(out, caption))


def _tabla_cuanto_importa(
    resultado: Resultado, operacion: str = "getpid", llamadas_por_segundo: int = 1_000_000, **_
) -> None:
    """A workload making `llamadas_por_segundo` calls per second: the CPU each arm adds per second."""
    c = cost_at_rate(resultado.df, llamadas_por_segundo, operacion)
    cores = ((resultado.meta or {}).get("host") or {}).get("cpu_cores")
    if c.empty:
        markdown("_Hace falta el brazo «host» para calcularlo._")
        return
    c = c[c["brazo"] != arm_label(*exp.BASELINE)]  # the host is what every arm is subtracted from
    out = pd.DataFrame(
        {
            "Brazo": [f"{b} ⚠ inestable: repite" if u else b for b, u in zip(c["brazo"], c["inestable"])],
            "ns extra por llamada": [fmt(v, significant(v, 2)) for v in c["ns_extra"]],
            "CPU extra por segundo": [cpu_share(v, cores) for v in c["cpu_por_segundo"]],
        }
    )
    caption = (
        f"Una carga que hace {num(llamadas_por_segundo)} llamadas a {operacion} por segundo: lo que añade "
        "cada brazo (diferencia de medianas con el host; un brazo inestable es solo una lectura)"
    )
    show(table(out, caption))


def _tabla_gvisor(resultado: Resultado, **_) -> None:
    """Which runsc ran (path, version, module version, platform), or why the gVisor arms were skipped."""
    meta = resultado.meta
    rows = [
        {
            "Motor": ENGINE_LABEL.get(engine, engine),
            "runsc": info.get("path") or "?",
            "Módulo": info.get("module_version") or "?",
            "Versión": info.get("version") or "sin versión",
            "Plataforma": info.get("platform") or "?",
        }
        for engine, info in (meta.get("gvisor") or {}).items()
    ]
    if rows:
        show(table(pd.DataFrame(rows), "El gVisor de esta corrida"))
    skipped = [
        f"- Se omitió {k}: {why}" for k, why in (meta.get("skipped_arms") or {}).items() if "gVisor" in k
    ]
    if skipped or not rows:
        markdown("\n".join(skipped) or "_Esta corrida no incluyó brazos con gVisor._")


def _tabla_test_c(resultado: Resultado, **_) -> None:
    """The repository's Test C on this machine, per engine: µs per `nsenter … /bin/true` (median of the
    rounds, IC 95 %) beside the document's 1 872 µs, and experiment 3's `exec true` in the same engine."""
    exec_run = experiments.read_run(exp, "ejecucion")
    t = test_c(resultado.df, exec_run.df if exec_run is not None else None)
    if t.empty:
        skipped = [
            f"- Se omitió {k}: {why}"
            for k, why in (resultado.meta.get("skipped_arms") or {}).items()
            if "nsenter" in k
        ]
        markdown("\n".join(skipped) or "_Esta corrida no incluyó el brazo «nsenter» (el «Test C»)._")
        return

    def cell(v, lo, hi):
        return "—" if v != v else fmt_value_interval(v, lo, hi, "")

    out = pd.DataFrame(
        {
            "Motor": [ENGINE_LABEL.get(e, e) for e in t["engine"]],
            "nsenter aquí, µs [IC 95 %]": [
                cell(*r) for r in zip(t["nsenter_us"], t["nsenter_bajo"], t["nsenter_alto"])
            ],
            "El documento, µs": fmt(SEED_TEST_C_US, 0),
            "exec true (experimento 3), µs [IC 95 %]": [
                cell(*r) for r in zip(t["exec_us"], t["exec_bajo"], t["exec_alto"])
            ],
            "exec true / nsenter": [fmt_ratio(r) if r == r else "—" for r in t["exec_sobre_nsenter"]],
        }
    )
    show(
        table(
            out,
            "El «Test C» del repositorio (nsenter en el namespace PID de un contenedor) en tu máquina, al "
            "lado del suyo y del `exec true` del experimento 3 (proporción de medianas de dos corridas)",
        )
    )
    markdown(_frase_test_c(t))


def _frase_test_c(t: pd.DataFrame) -> str:
    """What this machine's Test C says beside the document's and beside `exec true`, from the figures."""
    parts = []
    for _, r in t.iterrows():
        name = ENGINE_LABEL.get(r["engine"], r["engine"])
        figure = fmt_value_interval(r["nsenter_us"], r["nsenter_bajo"], r["nsenter_alto"], "µs")
        text = f"con {name}, una entrada con nsenter costó {figure}"
        if r["exec_sobre_nsenter"] == r["exec_sobre_nsenter"]:
            text += (
                f" y el `exec true` del motor, {fmt_ratio(r['exec_sobre_nsenter'])} eso (el motor añade su "
                "cliente, su demonio y el runtime a la misma entrada en los namespaces)"
            )
        parts.append(text)
    return (
        "En esta máquina, "
        + "; ".join(parts)
        + f". Los {fmt(SEED_TEST_C_US, 0)} µs del documento son de su VM "
        "de Azure: no se comparan con los tuyos (el veredicto dice «no comparable»). Su «1.9 ms per exec» "
        "llamó «exec» a esta entrada con nsenter, que no pasa por el motor."
    )


TABLAS = {
    "brazos": _tabla_brazos,
    "corrida": _tabla_corrida,
    "operaciones": _tabla_operaciones,
    "relojes": _tabla_relojes,
    "anidamiento": _tabla_anidamiento,
    "cuanto_importa": _tabla_cuanto_importa,
    "gvisor": _tabla_gvisor,
    "test_c": _tabla_test_c,
}


@needs_result
def tabla(
    resultado: Resultado,
    que: str = "brazos",
    operacion: str = "getpid",
    llamadas_por_segundo: int = 1_000_000,
) -> None:
    """A table of the run: «brazos» (one operation in every arm), «corrida» (which run, skipped arms),
    «operaciones», «relojes» (CPU time against wall clock), «anidamiento», «cuanto_importa» (CPU per
    second at `llamadas_por_segundo`), «gvisor» (which runsc ran) or «test_c» (the repository's Test C,
    nsenter, beside its 1 872 µs and experiment 3's `exec true`)."""
    _choose("tabla", que, TABLAS)
    TABLAS[que](resultado, operacion=operacion, llamadas_por_segundo=llamadas_por_segundo)


# ---------------------------------------------------------------- plots
GRAFICOS = {"capas": graficos.capas, "operaciones": graficos.operaciones, "anidamiento": graficos.anidamiento}


@needs_result
def grafico(resultado: Resultado, que: str = "capas", operacion: str = "getpid") -> None:
    """A plot of the run: «capas» (one layer of isolation added per row), «operaciones» (× host of every
    operation) or «anidamiento» (ns per call against nested PID namespaces)."""
    _choose("grafico", que, GRAFICOS)
    GRAFICOS[que](resultado, operacion)


# ---------------------------------------------------------------- verdicts and the document
@needs_result
def veredictos(resultado: Resultado) -> None:
    """The document's claims, each with its verdict, the figures of this run behind them, and the
    course's correction to the document's kernel code, with the measurement that puts it to the test."""
    judged = experiments.judged(resultado)
    claims_list(judged)
    if experiments.read_run(exp, "ejecucion") is None:
        missing_run("ejecucion")
    behind_the_claims(_behind_the_claims(resultado))
    markdown(_correccion_pid(next(c for c in judged if c.key == NESTING_KEY)))


NESTING_KEY = "anidamiento"
KERNEL_CORRECTION = (
    "**Corrección del curso** a «Understanding the Kernel Code»: en el kernel, `pid_nr_ns` no recorre la "
    "cadena de namespaces; lee directamente el número del nivel que busca, `pid->numbers[ns->level]` "
    "(kernel/pid.c), así que el costo de getpid no debería crecer con los niveles."
)
CORRECTION_SUPPORT = {
    verdict.NO_SE_SOSTIENE: "todo el intervalo queda por debajo del piso de «añade costo» ({margen}): esta "
    "corrida respalda la corrección",
    verdict.SE_CONFIRMA: "todo el intervalo queda por encima del piso de «añade costo» ({margen}): esta "
    "corrida contradice la corrección; mira la tabla de anidamiento y repite con la máquina más tranquila",
    verdict.NO_CONCLUYENTE: "el intervalo cruza el piso de «añade costo» ({margen}): esta corrida no basta "
    "para respaldarla ni para contradecirla",
    verdict.INESTABLE: "la medición salió inestable: repite antes de leerla",
    verdict.BAJO_CARGA: "la carga de la máquina cambió entre rondas, o las rondas no son independientes: "
    "repite con la máquina tranquila antes de leerla",
}


def _correccion_pid(claim) -> str:
    """The course's correction (pid_nr_ns indexes by level) and what this run's nesting slope says of
    it: supports it, contradicts it, or cannot tell; generated from the claim «anidamiento»."""
    if claim.n == 0:
        return (
            f"{KERNEL_CORRECTION} Esta corrida no midió namespaces PID anidados (brazos «pid» y «anidado»): "
            "la corrección queda sin su medida."
        )
    figure = fmt_value_interval(claim.value, claim.low, claim.high, claim.unit)
    if claim.status == verdict.SIN_DATOS:
        support = verdict_words(claim)
    else:
        support = CORRECTION_SUPPORT[claim.status].format(margen=fmt_margin(claim.region, claim.unit))
    return (
        f"{KERNEL_CORRECTION} La medida que la pone a prueba: en esta corrida cada nivel añadió {figure} "
        f"de la llamada del host (pendiente ronda a ronda, IC 95 %, {claim.n} rondas); {support}."
    )


def _behind_the_claims(resultado: Resultado) -> list[str]:
    """Sentences from this run's numbers: the same container without seccomp, what the seccomp profile
    multiplies, and the ns each nested level adds."""
    df, lines = resultado.df, []
    for engine in CONTAINER_ENGINES:
        name = ENGINE_LABEL[engine]
        without = arm_ratio(df, (engine, "sin_seccomp"), exp.BASELINE)
        if without[0] == without[0]:
            lines.append(
                f"En {name}, el mismo contenedor **sin seccomp** cuesta {_ratio(*without)} lo del host."
            )
        profile = arm_ratio(df, (engine, "seccomp"), (engine, "sin_seccomp"))
        if profile[0] == profile[0]:
            lines.append(
                f"En {name}, con el perfil seccomp getpid cuesta {_ratio(*profile)} lo del mismo "
                f"contenedor sin seccomp: {direction_words(verdict.side(profile[1], profile[2], None))}."
            )
    slope, low, high, n = nesting_slope(df)
    if n:
        lines.append(
            f"Cada nivel de namespace PID añade {fmt_value_interval(slope, low, high, 'ns')} a getpid "
            f"(pendiente ronda a ronda, IC 95 %, {n} rondas)."
        )
    return lines


def referencia() -> None:
    """The document's figures as it published them: its run, and each CPU of its per-CPU table (ranges)."""
    ref = reference.load(exp.EXPERIMENT)

    def span(group: pd.DataFrame, engine: str, metric: str, digits: int = 0) -> str:
        v = group[(group["engine"] == engine) & (group["metric"] == metric)]["value"]
        if v.empty:
            return "—"
        low, high = v.min(), v.max()
        return fmt(low, digits) if low == high else f"{num(low, digits)}-{num(high, digits)}"

    rows = []
    for source, g in ref.groupby("source", sort=False):
        overhead = span(g, "docker", "sobrecarga")
        if overhead == "—":  # its own run publishes the two calls only: the overhead is theirs, recomputed
            h, c = g[g["engine"] == "bare"]["value"].median(), g[g["engine"] == "docker"]["value"].median()
            overhead = fmt(100 * (c / h - 1), 1) if h == h and c == c else "—"
        rows.append(
            {
                "Fuente": REF_LABEL.get(source, source),
                "Host (ns)": span(g, "bare", "getpid", 2 if source == "seed001" else 0),
                "Contenedor Docker (ns)": span(g, "docker", "getpid", 2 if source == "seed001" else 0),
                "Sobrecarga (%)": overhead,
                "«Test C»: nsenter (µs)": span(g, "docker", "exec"),
            }
        )
    show(table(pd.DataFrame(rows), f"Lo que publicó {SOURCE}: getpid en el host y en un contenedor"))
    markdown(TEST_C_NOTE)
    markdown(CLOCK_NOTE)


@needs_result
def comparacion(resultado: Resultado) -> None:
    """The document's run and its per-CPU table next to this machine, as container/host ratios, and one
    generated sentence on where this machine falls."""
    c = compare(resultado.df, resultado.meta, reference.load(exp.EXPERIMENT))
    out = pd.DataFrame(
        {
            "Fuente": [REF_LABEL.get(f, f) for f in c["fuente"]],
            "Host (ns)": [fmt(v, _digits(v)) for v in c["host_ns"]],
            "Contenedor (ns)": [fmt(v, _digits(v)) for v in c["contenedor_ns"]],
            "Contenedor / host [IC 95 %]": [
                fmt_margin((a, b), "x") if a == a else fmt_ratio(r, lo, hi)  # a published range, as a range
                for r, lo, hi, a, b in zip(
                    c["x_host"], c["ic_bajo"], c["ic_alto"], c["rango_bajo"], c["rango_alto"]
                )
            ],
        }
    )
    show(
        table(
            out,
            "getpid: el documento (los ns de cada rango que publica, por su punto medio; la proporción, "
            "el rango de sobrecarga que publica) y tu máquina",
        )
    )
    markdown(_frase_comparacion(c, experiments.judged(resultado)))


# The document's two overhead figures, each judged once as its own claim (the verdicts above).
PUBLISHED_CLAIMS = (
    ("contenedor_11", "el 11 % de su corrida"),
    ("contenedor_tabla", "el 24-30 % de su tabla"),
)


def _frase_comparacion(c: pd.DataFrame, claims) -> str:
    """This machine's ratios beside the span the document publishes and, for each published figure, the
    verdict its claim got on this page: no second judgement against a span no source stated."""
    live = c[c["fuente"].str.startswith("tu máquina")]
    if live.empty:
        return (
            "Esta corrida no midió el host y un contenedor con seccomp por defecto: no hay nada que comparar."
        )
    low, high = document_span(c)
    by_key = {(k.key, k.detail.get("engine")): k for k in claims}
    engine_of = {DISPLAY[e]: e for e in CONTAINER_ENGINES}
    parts, judged = [], []
    for _, r in live.iterrows():
        name = r["fuente"].removeprefix("tu máquina (").removesuffix(")")
        engine = engine_of.get(name.removesuffix(" sin root"))
        parts.append(f"con {name}, {fmt_ratio(r['x_host'], r['ic_bajo'], r['ic_alto'])}")
        said = [
            f"{what}, «{verdict_words(by_key[(key, engine)])}»"
            for key, what in PUBLISHED_CLAIMS
            if (key, engine) in by_key
        ]
        if said:
            judged.append(f"con {name}, " + "; ".join(said))
    text = (
        f"Lo que publica el documento (su corrida, lo que espera y su tabla de valores esperados por CPU) va de {fmt_ratio(low)} a "
        f"{fmt_ratio(high)} contenedor/host. En tu máquina (IC 95 %): " + "; ".join(parts) + "."
    )
    if judged:
        text += (
            " Cada cifra publicada se juzga una sola vez, en los veredictos de arriba: "
            + "; ".join(judged)
            + "."
        )
    return text + " Los nanosegundos no se comparan: cambian con la CPU."
