"""Small display helpers shared by every experiment's view.

Number format (one decision for prose, tables and plots; every view formats through `num`/`fmt`):
- Decimal point, as the course's tables and the original chapter write it: «1.8 ms».
- Thousands grouped with a narrow no-break space (U+202F), never a comma or a point, so no reader
  takes it for a decimal: «183 540 KiB».
- A multiplier or ratio is written with «×» right after the number: «1.26×», «238×»
  (`fmt_ratio`). On one screen a ratio keeps one direction (Podman/Docker, container/bare metal):
  the verdict under a table uses the table's direction.
- Memory in binary units, named as such: KiB (1024 bytes, what `ps -o rss=` and the cgroup files give
  once divided by 1024) and MiB (1024 KiB). raw.csv keeps its historical unit label "KB" for KiB.
- Times in the unit of the quantity's table; the prose under a table uses the same unit (`fmt_time`
  picks ms or µs once for a whole column).
- Percentages with a space before «%»: «+7.6 %».
"""

from __future__ import annotations

import functools
import math

import pandas as pd

from ..engines import DISPLAY

ENGINE_LABEL = DISPLAY  # engine display names live in one place: helpers.engines.DISPLAY
# How every notebook words a verdict (experiments.base.judge, the one rule), one term per idea.
VERDICT = {
    "se_confirma": "se confirma",
    "no_se_sostiene": "no se sostiene",
    "no_concluyente": "no concluyente con estas repeticiones",
    "inestable": "medición inestable: repite",
    "sin_datos": "no se puede juzgar",
}
STATUS_LABEL = {
    "complete": "completa",
    "interrupted": "interrumpida",
    "failed": "fallida",
    "partial": "parcial (se perdió un motor)",
    "running": "en curso (o cortada sin aviso)",
}


def verdict_words(claim) -> str:
    """The verdict's words; an inconclusive one says about how many repetitions would decide it."""
    words = VERDICT.get(claim.status, claim.status)
    more = getattr(claim, "more_reps", None)
    if claim.status == "no_concluyente" and more:
        words += f" (harían falta unas {num(more)})"
    return words


def show(obj) -> None:
    """display() in a notebook, print() elsewhere."""
    try:
        from IPython.display import display

        display(obj)
    except ImportError:  # pragma: no cover
        print(obj)


def markdown(text: str | None) -> None:
    if not text:
        return
    try:
        from IPython.display import Markdown, display

        display(Markdown(text))
    except ImportError:  # pragma: no cover
        print(text)


TIMES = "×"
THOUSANDS = "\u202f"  # narrow no-break space: "1 715", never "1,715" (a decimal to a Spanish reader)


def num(value: float, digits: int = 0) -> str:
    """A number the Spanish way: decimal point as in the course's tables, thousands with a thin space."""
    return f"{value:,.{digits}f}".replace(",", THOUSANDS)


def fmt(value: float, digits: int = 1, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{num(value, digits)} {unit}".strip()


def fmt_interval(low: float, high: float, digits: int = 1, unit: str = "") -> str:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return "—"
    return f"[{num(low, digits)}, {num(high, digits)}] {unit}".strip()


def _missing(*values) -> bool:
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


def fmt_pct(value: float, digits: int = 1, sign: bool = True) -> str:
    """A percentage: «+7.6 %»."""
    if _missing(value):
        return "—"
    text = num(value, digits)
    if sign and value > 0 and text.strip("0.") != "":
        text = "+" + text
    return f"{text} %"


def fmt_ratio(value: float, low: float | None = None, high: float | None = None, digits: int = 2) -> str:
    """A ratio or multiplier: «1.26× [1.10, 1.45]»."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    text = f"{num(value, digits)}{TIMES}"
    if low is not None and high is not None and not (math.isnan(low) or math.isnan(high)):
        text += f" [{num(low, digits)}, {num(high, digits)}]"
    return text


def run_caption(resultado) -> str:
    """One Spanish line saying which run is shown."""
    meta = resultado.meta
    status = STATUS_LABEL.get(meta.get("status"), meta.get("status"))
    host = meta.get("host", {})
    line = (
        f"Corrida `{meta.get('run_id')}` ({status}, {meta.get('rows', len(resultado.df))} filas) en "
        f"{host.get('cpu_model', '?')}, {host.get('cpu_cores', '?')} núcleos, kernel {host.get('kernel', '?')}."
    )
    if meta.get("reason"):
        line += f" Motivo: {meta['reason']}."
    for name, info in (meta.get("engines") or {}).items():
        if isinstance(info, dict) and info.get("rootless"):
            line += (
                f" {engine_label(name, meta)}: red {info.get('network_backend', '?')}, "
                f"almacenamiento {info.get('storage') or info.get('storage_driver', '?')}."
            )
    skipped = meta.get("skipped_engines") or {}
    for name, why in skipped.items():
        line += f" Se omitió {ENGINE_LABEL.get(name, name)}: {why}"
    for arm, why in (meta.get("skipped_arms") or {}).items():
        line += f" Se omitió {arm}: {why}"
    return line


def engine_label(name: str, meta: dict | None = None) -> str:
    """The engine's name for tables; «Podman sin root» when the run's metadata says it ran rootless
    (another network and storage than rootful Podman: not the same engine for the comparison)."""
    label = ENGINE_LABEL.get(name, name)
    info = ((meta or {}).get("engines") or {}).get(name)
    if isinstance(info, dict) and info.get("rootless"):
        label += " sin root"
    return label


def table(df: pd.DataFrame, caption: str | None = None):
    """A styled, index-free table for notebooks and HTML."""
    styler = df.style.hide(axis="index")
    if caption:
        styler = styler.set_caption(caption)
    return styler.set_table_styles(
        [
            {"selector": "caption", "props": "caption-side: top; font-weight: bold; text-align: left;"},
            {"selector": "th", "props": "text-align: left;"},
        ]
    )


NO_RESULT = (
    "**Aún no hay resultados de este experimento en esta máquina.** Pulsa «Ejecutar» en el panel "
    "de arriba y, cuando termine, vuelve a ejecutar estas celdas."
)


def needs_result(func):
    """For view functions whose first argument is a Resultado: given None (nobody pressed «Ejecutar»
    yet and this machine has no earlier run), say so in Spanish and draw nothing, instead of failing."""

    @functools.wraps(func)
    def wrapper(resultado, *args, **kwargs):
        if resultado is None:
            markdown(NO_RESULT)
            return None
        return func(resultado, *args, **kwargs)

    return wrapper


# What can make a ratio differ between two machines, and why (shown under every comparison).
CONTEXT_WHY = {
    "Docker": "el camino cliente → dockerd → containerd → runc cambia entre versiones",
    "Podman": "Podman 4 y 5 cambiaron la red (netavark/pasta) y el arranque de conmon",
    "runtime": "runc y crun arrancan el contenedor con costos distintos",
    "cgroups": "v1 y v2 cambian cómo se crea el cgroup y qué memoria se le cuenta",
    "red": "la red por defecto (puente, veth, iptables) es una parte grande del arranque",
    "kernel": "overlayfs, namespaces y cgroups dependen del kernel",
    "virtualización": "dentro de una VM, bare metal y contenedores pagan la virtualización",
}


def tabla_contexto(resultado, red: str, reference_versions: dict | None = None):
    """A table: what the reference machine and this one run, factor by factor, and why each factor can
    move a ratio. Ratios (x bare metal, Podman/Docker) travel across machines better than milliseconds,
    but only between machines that agree on these factors."""
    meta = resultado.meta if resultado is not None else {}
    ref = reference_versions or {}
    engines = meta.get("engines", {})
    host = meta.get("host", {})
    unknown = "no lo dice"

    def engine_version(name):
        info = engines.get(name) or {}
        return info.get("server_version") or "—"

    runtimes = (
        ", ".join(
            f"{ENGINE_LABEL.get(n, n)}: {i.get('runtime') or '?'}"
            for n, i in engines.items()
            if n != "bare" and isinstance(i, dict)
        )
        or "—"
    )
    virt = host.get("virtualization") or {}
    rows = [
        ("Docker", ref.get("docker", unknown), engine_version("docker")),
        ("Podman", ref.get("podman", unknown), engine_version("podman")),
        ("runtime", unknown, runtimes),
        ("cgroups", unknown, host.get("cgroup_version", "—")),
        ("red", ref.get("red", unknown), red),
        ("kernel", ref.get("kernel", unknown), host.get("kernel", "—")),
        (
            "virtualización",
            unknown,
            ("VM " + (virt.get("tecnologia") or "")).strip()
            if virt.get("es_vm")
            else ("ninguna detectada" if virt else "—"),
        ),
    ]
    out = pd.DataFrame(
        [
            {
                "Factor": f,
                "Referencia": r,
                "Tu máquina": t,
                "Por qué puede cambiar la proporción": CONTEXT_WHY[f],
            }
            for f, r, t in rows
        ]
    )
    return table(
        out, "Lo que una proporción arrastra de su máquina: compara solo donde estos factores coinciden"
    )


# ---------------------------------------------------------------- claims: one renderer for every notebook
VERDICT["no_comparable"] = "no comparable"
WHY = {
    "se_confirma": "Todo el intervalo cae dentro del margen de la afirmación.",
    "no_se_sostiene": "El intervalo deja fuera el valor que afirma la fuente.",
    "no_concluyente": "El intervalo contiene el valor de la fuente pero se sale del margen: con más "
    "repeticiones se estrecharía.",
    "inestable": "La dispersión de la medición aplasta a su mediana, así que la mediana no la resume: "
    "vuelve a ejecutar.",
    "sin_datos": "No hay datos suficientes en esta corrida para juzgarla.",
    "no_comparable": "",
}


def fmt_value(value: float, unit: str, digits: int | None = None) -> str:
    """A claim's figure in its declared unit: «0.88×», «+7.6 %», «12.3 ms», «3»."""
    if _missing(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if unit == "x":
        return fmt_ratio(value, digits=2 if digits is None else digits)
    if unit == "%":
        return fmt_pct(value, 1 if digits is None else digits)
    if unit == "":
        return num(value, 0 if digits is None else digits)
    return fmt(value, 1 if digits is None else digits, unit)


def _bare(value: float, unit: str) -> str:
    """The number alone, as fmt_value writes it, without the unit (for the ends of an interval)."""
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if unit == "x":
        return num(value, 2)
    if unit == "%":
        return fmt_pct(value, 1)[:-2]
    return num(value, 0 if unit == "" else 1)


def fmt_value_interval(value: float, low: float, high: float, unit: str) -> str:
    """«0.88× [0.82, 0.92]», «+7.6 % [+1.0, +12.0]», «12.3 ms [11.9, 12.8]»."""
    text = fmt_value(value, unit)
    if _missing(low, high) or (low == high == value):
        return text
    return f"{text} [{_bare(low, unit)}, {_bare(high, unit)}]"


def fmt_margin(region: tuple[float, float], unit: str) -> str:
    low, high = region
    if math.isinf(low) and math.isinf(high):
        return "cualquier valor"
    if math.isinf(high):
        return f"al menos {fmt_value(low, unit)}"
    if math.isinf(low):
        return f"como mucho {fmt_value(high, unit)}"
    return f"de {fmt_value(low, unit)} a {fmt_value(high, unit)}"


def claim_sentence(claim) -> str:
    """The one Spanish sentence of a judged claim, from its declared fields (verdict.Said) and its
    data: the claim as its source said it, the source (and where in it), the verdict, the figure
    measured with its IC 95 % and n, the margin, why, and the declared note."""
    where = f", {claim.where}" if getattr(claim, "where", "") else ""
    head = f"**«{claim.statement}» ({claim.source}{where}) — {verdict_words(claim)}.**"
    parts = [head]
    detail = getattr(claim, "detail", {}) or {}
    quantity = getattr(claim, "quantity", "") or "la medición"
    if detail.get("observado"):
        parts.append(f"Observado: {quantity}, {detail.get('exitos', 0)} de {detail.get('veces', 0)} veces.")
    elif claim.status not in ("sin_datos", "no_comparable"):
        parts.append(
            f"{quantity[:1].upper() + quantity[1:]} = "
            f"{fmt_value_interval(claim.value, claim.low, claim.high, claim.unit)} "
            f"(mediana e IC 95 %, n = {claim.n}); la fuente dice {fmt_value(claim.claimed, claim.unit)} "
            f"y aceptamos {fmt_margin(claim.region, claim.unit)}."
        )
    why = WHY.get(claim.status, "")
    if why and not detail.get("observado"):
        parts.append(why)
    note = getattr(claim, "note", "")
    if note:
        parts.append(note)
    return " ".join(parts)


def claims_list(claims) -> None:
    """Show judged claims as a list of sentences (claim_sentence), or say there is nothing to judge."""
    sentences = [claim_sentence(c) for c in claims]
    markdown("\n\n".join(f"- {s}" for s in sentences) if sentences else "_Sin datos para un veredicto._")


def missing_run(experiment_title: str, notebook: str) -> None:
    """Say that a result this page uses comes from another notebook that has not run yet."""
    markdown(
        f"_Esta parte usa la última corrida de «{experiment_title}» (`{notebook}.ipynb`), y en esta "
        "máquina todavía no hay ninguna: ejecuta ese cuaderno y vuelve aquí._"
    )
