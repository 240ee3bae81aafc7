"""Experiment 5 as a person sees it: what each isolation layer costs per system call, in Spanish.

Five views, the course's names (CONTRIBUTING, «Las vistas»); each displays itself and returns None:
`tabla(resultado, que)`, `grafico(resultado, que)`, `veredictos(resultado)`, `referencia()` and
`comparacion(resultado)`. `que` picks which table or plot (TABLAS, GRAFICOS).
"""

from __future__ import annotations

import pandas as pd

from .. import experiments, reference
from ..engines import CONTAINER_ENGINES
from ..experiments import llamadas as exp
from ..experiments.runner import Resultado
from . import llamadas_graficos as graficos
from .common import (
    ENGINE_LABEL,
    claims_list,
    fmt,
    fmt_interval,
    fmt_ratio,
    markdown,
    missing_run,
    needs_result,
    num,
    run_caption,
    show,
    table,
)

REF_LABEL = {
    "seed001": "el documento: su corrida (kernel 6.14 en Azure)",
    "seed001-tabla-xeon-8370c": "su tabla: Intel Xeon Platinum 8370C (Azure)",
    "seed001-tabla-epyc-7763": "su tabla: AMD EPYC 7763 (Azure)",
    "seed001-tabla-i7-12700k": "su tabla: Intel i7-12700K",
}


def _digits(value: float) -> int:
    return 0 if value >= 100 else 1 if value >= 10 else 2


def _ratio(r: float, lo: float | None = None, hi: float | None = None) -> str:
    return fmt_ratio(r, lo, hi, 2 if not r == r or r < 10 else 0)


def _choose(kind: str, que: str, options: dict) -> None:
    if que not in options:
        raise ValueError(f"{kind}: no hay «{que}». Elige una de: {', '.join(options)}.")


# ---------------------------------------------------------------- tables
def _tabla_corrida(resultado: Resultado, **_) -> None:
    """Which run is shown, and which arms were skipped and why."""
    markdown(run_caption(resultado))
    skipped = resultado.meta.get("skipped_arms") or {}
    if skipped:
        rows = pd.DataFrame({"Brazo omitido": list(skipped), "Motivo": list(skipped.values())})
        show(table(rows, "Brazos que no se midieron en esta corrida"))


def _tabla_brazos(resultado: Resultado, operacion: str = "getpid", **_) -> None:
    """One operation, every arm: median ns per call, IQR, min, IC 95 % and × host with its IC."""
    s = exp.summarize(resultado.df, resultado.meta)
    s = s[s["operacion"] == operacion]
    if s.empty:
        markdown(f"_Esta corrida no midió {operacion}._")
        return
    out = pd.DataFrame(
        {
            "Brazo": s["brazo"],
            "n": s["n"],
            "Mediana (ns/llamada)": [fmt(v, _digits(v)) for v in s["mediana_ns"]],
            "IQR (ns)": [fmt_interval(a, b, _digits(a)) for a, b in zip(s["q1_ns"], s["q3_ns"])],
            "Mín (ns)": [fmt(v, _digits(v)) for v in s["min_ns"]],
            "IC 95 % mediana (ns)": [
                fmt_interval(a, b, _digits(a)) for a, b in zip(s["ic_bajo_ns"], s["ic_alto_ns"])
            ],
            "× host [IC 95 %]": [
                _ratio(r, lo, hi) for r, lo, hi in zip(s["x_host"], s["x_host_ic_bajo"], s["x_host_ic_alto"])
            ],
            "Estable": ["no: repite" if u else "sí" for u in s["inestable"]],
        }
    )
    caption = (
        f"{exp.OPERATION_LABEL.get(operacion, operacion)}: ns por llamada (IQR con cuantiles lineales; "
        "IC 95 % por bootstrap)"
    )
    show(table(out, caption))


def _tabla_operaciones(resultado: Resultado, **_) -> None:
    """Every operation (columns) in every arm (rows): median ns per call and × host."""
    s = exp.summarize(resultado.df, resultado.meta)
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


def _tabla_relojes(resultado: Resultado, operacion: str = "getpid", **_) -> None:
    """The same calls through two clocks: the thread's CPU time (what this notebook uses) and the wall
    clock (what the document used). On a busy machine the wall clock also counts the waits for a CPU."""
    cpu = exp.summarize(resultado.df, resultado.meta)
    wall = exp.summarize(exp.wall_clock(resultado.df), resultado.meta)
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
    show(table(out, f"{operacion}: tiempo de CPU del hilo frente a reloj de pared"))


def _tabla_anidamiento(resultado: Resultado, operacion: str = "getpid", **_) -> None:
    n = exp.nesting(resultado.df, operacion)
    if n.empty:
        markdown("_Esta corrida no midió namespaces PID._")
        return
    out = pd.DataFrame(
        {
            "Niveles añadidos": n["profundidad"],
            "Niveles que vio la sonda (NSpid)": [("—" if v != v else int(v)) for v in n["niveles_vistos"]],
            "Mediana (ns)": [fmt(v, 1) for v in n["mediana_ns"]],
            "IC 95 % (ns)": [fmt_interval(a, b, 1) for a, b in zip(n["ic_bajo_ns"], n["ic_alto_ns"])],
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
    c = exp.cost_at_rate(resultado.df, llamadas_por_segundo, operacion)
    if c.empty:
        markdown("_Hace falta el brazo «host» para calcularlo._")
        return
    out = pd.DataFrame(
        {
            "Brazo": c["brazo"],
            "ns extra por llamada": [fmt(v, 0 if abs(v) >= 100 else 1) for v in c["ns_extra"]],
            "CPU extra por segundo": [
                f"{fmt(v * 100, 1)} % de un núcleo" if v < 1 else f"{fmt(v, 1)} núcleos enteros"
                for v in c["cpu_por_segundo"]
            ],
        }
    )
    caption = (
        f"Una carga que hace {num(llamadas_por_segundo)} llamadas a {operacion} por segundo: lo que añade "
        "cada brazo (diferencia de medianas con el host)"
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


TABLAS = {
    "brazos": _tabla_brazos,
    "corrida": _tabla_corrida,
    "operaciones": _tabla_operaciones,
    "relojes": _tabla_relojes,
    "anidamiento": _tabla_anidamiento,
    "cuanto_importa": _tabla_cuanto_importa,
    "gvisor": _tabla_gvisor,
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
    second at `llamadas_por_segundo`) or «gvisor» (which runsc ran)."""
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
    """The document's claims, each with its verdict, then the figures of this run behind them."""
    claims_list(exp.claims(resultado.df, resultado.meta))
    if experiments.read_run(exp, "ejecucion") is None:
        ejecucion = experiments.get("ejecucion")
        missing_run(ejecucion.TITLE, ejecucion.NOTEBOOK)
    lines = _behind_the_claims(resultado)
    if lines:
        markdown("Detrás de estos veredictos, en esta corrida:\n\n" + "\n".join(f"- {ln}" for ln in lines))


def _behind_the_claims(resultado: Resultado) -> list[str]:
    """Sentences from this run's numbers: the same container without seccomp, what the seccomp profile
    multiplies, and the ns each nested level adds."""
    df, lines = resultado.df, []
    for engine in CONTAINER_ENGINES:
        name = ENGINE_LABEL[engine]
        without = exp.arm_ratio(df, (engine, "sin_seccomp"), exp.BASELINE)
        if without[0] == without[0]:
            lines.append(
                f"En {name}, el mismo contenedor **sin seccomp** cuesta {_ratio(*without)} lo del host: ahí se "
                "ve qué parte de la sobrecarga es el filtro."
            )
        profile = exp.arm_ratio(df, (engine, "seccomp"), (engine, "sin_seccomp"))
        if profile[0] == profile[0]:
            lines.append(
                f"En {name}, activar el perfil seccomp multiplica el costo de getpid por {_ratio(*profile)}."
            )
    slope, low, high, n = exp.nesting_slope(df)
    if n:
        lines.append(
            f"Cada nivel de namespace PID añade {fmt(slope, 1)} ns {fmt_interval(low, high, 1)} a getpid "
            "(pendiente de la recta mediana–profundidad, IC 95 %)."
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
                "«Test C»: exec (µs)": span(g, "docker", "exec"),
            }
        )
    show(table(pd.DataFrame(rows), f"Lo que publicó {exp.SOURCE}: getpid en el host y en un contenedor"))


@needs_result
def comparacion(resultado: Resultado) -> None:
    """The document's run and its per-CPU table next to this machine, as container/host ratios, and one
    generated sentence on where this machine falls."""
    c = exp.compare(resultado.df, resultado.meta, reference.load(exp.EXPERIMENT))
    out = pd.DataFrame(
        {
            "Fuente": [REF_LABEL.get(f, f) for f in c["fuente"]],
            "Host (ns)": [fmt(v, 1) for v in c["host_ns"]],
            "Contenedor (ns)": [fmt(v, 1) for v in c["contenedor_ns"]],
            "Contenedor / host [IC 95 %]": [
                fmt_ratio(r, lo, hi) for r, lo, hi in zip(c["x_host"], c["ic_bajo"], c["ic_alto"])
            ],
        }
    )
    show(table(out, "getpid: el documento (los rangos de su tabla, por su punto medio) y tu máquina"))
    markdown(_frase_comparacion(exp.agreement_with_document(c)))


def _frase_comparacion(a: pd.DataFrame) -> str:
    if a.empty:
        return (
            "Esta corrida no midió el host y un contenedor con seccomp por defecto: no hay nada que comparar."
        )
    where = {
        "coincide": "se solapa con lo que publica el documento",
        "debajo": "queda por debajo de todo lo que publica el documento",
        "encima": "queda por encima de todo lo que publica el documento",
        "sin_datos": "no se puede situar (falta su intervalo)",
    }
    parts = [
        f"con {r['fuente'].removeprefix('tu máquina (').removesuffix(')')}, "
        f"{fmt_ratio(r['x_host'], r['ic_bajo'], r['ic_alto'])}, que {where[r['lado'] or r['acuerdo']]}"
        for _, r in a.iterrows()
    ]
    first = a.iloc[0]
    return (
        f"El documento publica proporciones contenedor/host entre {fmt_ratio(first['doc_bajo'])} y "
        f"{fmt_ratio(first['doc_alto'])}. En tu máquina (IC 95 %): "
        + "; ".join(parts)
        + ". Los nanosegundos no se comparan: cambian con la CPU."
    )
