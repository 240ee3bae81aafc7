"""Small display helpers shared by every experiment's view: the one number format (view/numbers.py,
re-exported here), the words of verdicts (view/verdicts.py, re-exported here), tables, captions and the
«Cómo medimos» of every notebook. Views format numbers and verdicts only through this module.
"""

from __future__ import annotations

import functools
import re

import pandas as pd

from .. import experiments, results
from ..engines import DISPLAY
from ..experiments import verdict as _verdict
from ..experiments.runner import Resultado
from .numbers import (  # noqa: F401 - the one number format, called as common.fmt_*
    MINUS,
    THOUSANDS,
    TIMES,
    UNIT_LABEL,
    approx,
    cpu_share,
    decimals_for,
    fmt,
    fmt_duration,
    fmt_interval,
    fmt_margin,
    fmt_pct,
    fmt_ratio,
    fmt_value,
    fmt_value_interval,
    num,
    significant,
    unit_label,
)
from .verdicts import (  # noqa: F401 - the words of verdicts, called as common.*
    AGREEMENT,
    AGREEMENT_MARGIN,
    VERDICT,
    WHY,
    claim_sentence,
    list_note,
    load_sentence,
    margins_frame,
    method_sentence,
    resolution_sentence,
    too_few,
    too_few_banner,
    verdict_words,
)

ENGINE_LABEL = DISPLAY  # engine display names live in one place: helpers.engines.DISPLAY
STATUS_LABEL = {
    "complete": "completa",
    "interrupted": "interrumpida",
    "failed": "fallida",
    "partial": "parcial (se perdió un motor)",
    "running": "en curso (o cortada sin aviso)",
}


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


def run_caption(resultado) -> str:
    """One Spanish line saying which run is shown."""
    meta = resultado.meta
    status = STATUS_LABEL.get(meta.get("status"), meta.get("status"))
    host = meta.get("host", {})
    took = results.run_seconds(meta)
    took = f", {fmt_duration(took)}" if took is not None else ""
    line = (
        f"Corrida `{meta.get('run_id')}` ({status}, {meta.get('rows', len(resultado.df))} filas{took}) en "
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
def claims_list(claims) -> None:
    """Show judged claims as a list of sentences (claim_sentence), or say there is nothing to judge."""
    sentences = [claim_sentence(c) for c in claims]
    if not sentences:
        markdown("_Sin datos para un veredicto._")
        return
    markdown("\n\n".join(f"- {s}" for s in sentences) + list_note(claims))


SUMMARY_LINES = 5  # «En resumen» never takes more lines than this
SHORT = 90  # characters of a statement in the summary
# Pairs of marks a cut must never leave open: a code span, a quotation, a parenthesis, a bracket.
_MARKS = (("`", "`"), ("«", "»"), ("(", ")"), ("[", "]"), ("**", "**"))
_QUALIFIER = re.compile(r"^(?P<body>.*\S) (?P<tail>\([^()]*\))$")
# Words a cut never ends on: a number without its unit («menos de 10…»), a word that only leads the next.
_DANGLING = re.compile(
    r"(\s+(?:[~≈<>≤≥+−-]?[\d.,]+\S{0,2}|a|al|con|de|del|el|en|es|la|las|lo|los|o|para|por|que|sin|su|un|una|y))+$",
    re.IGNORECASE,
)


def _open_mark(text: str) -> int:
    """Where the last mark `text` leaves open begins (its opening character), or -1 if all are closed."""
    worst = -1
    for start, end in _MARKS:
        if start == end:
            if text.count(start) % 2:
                worst = max(worst, text.rindex(start))
        elif text.count(start) > text.count(end):
            worst = max(worst, text.rindex(start))
    return worst


def shorten(text: str, width: int) -> str:
    """`text` in at most about `width` characters, cut on a word and never inside markup (a code span,
    «…», a parenthesis, **bold**), ending in «…». A closing qualifier in parentheses («(Docker; hash)»,
    what tells one judgement of a statement from the next) is kept whole: the body before it is cut."""
    text = text.strip()
    if len(text) <= width:
        return text
    tail = ""
    m = _QUALIFIER.match(text)
    if m and len(m["tail"]) <= width // 2:
        text, tail = m["body"], " " + m["tail"]
    room = max(width - len(tail) - 1, 1)
    if len(text) > room:
        cut = text[: room + 1].rsplit(" ", 1)[0] if " " in text[: room + 1] else text[:room]
        while (at := _open_mark(cut)) >= 0:
            cut = cut[:at]
        cut = _DANGLING.sub("", cut).rstrip(",;:—– ")
        text = (cut or text[:room].rsplit(" ", 1)[0]) + "…"
    return text + tail


def _short(claim, width: int = SHORT) -> str:
    """A claim's statement cut for the summary at `width` characters (`shorten`), with its engine when
    the statement does not name it (one statement is often judged once per engine)."""
    text = shorten(claim.statement.rstrip(". "), width)
    engine = DISPLAY.get(claim.detail.get("engine", ""), "")
    return f"{text} ({engine})" if engine and engine not in text else text


def _short_names(claims) -> dict[int, str]:
    """Each claim's name in the summary (`_short`), longer where two different statements would read
    the same: the cut never drops the part that tells two claims apart."""
    names = {id(c): _short(c) for c in claims}
    full = {id(c): (c.statement, c.detail.get("engine", "")) for c in claims}
    for _ in range(8):
        seen: dict[str, set] = {}
        for c in claims:
            seen.setdefault(names[id(c)], set()).add(full[id(c)])
        clash = {name for name, who in seen.items() if len(who) > 1}
        if not clash:
            break
        for c in claims:
            if names[id(c)] in clash:
                names[id(c)] = _short(c, 2 * len(names[id(c)]) + 20)
    return names


def verdict_summary(claims) -> list[str]:
    """The page's verdicts in at most SUMMARY_LINES lines of markdown: a head line with the count, then
    one line per status that decided something (naming the claims, each once) and one with the counts
    of the rest (every claim counted, also two that read the same). Every word comes from the one rule's
    statuses (VERDICT)."""
    claims = list(claims)
    if not claims:
        return ["**En resumen:** esta corrida no tiene afirmaciones que juzgar."]
    by_status: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    short = _short_names(claims)
    for c in claims:
        names = by_status.setdefault(c.status, [])
        counts[c.status] = counts.get(c.status, 0) + 1
        if short[id(c)] not in names:
            names.append(short[id(c)])
    total = f"{len(claims)} {'afirmación' if len(claims) == 1 else 'afirmaciones'} de las fuentes"
    decided = [
        s for s in (_verdict.SE_CONFIRMA, _verdict.NO_SE_SOSTIENE, _verdict.INDECIDIBLE) if s in by_status
    ]
    head = "juzgadas con esta corrida" if decided else "ninguna decidida con esta corrida"
    lines = [f"**En resumen:** {total}, {head}."]
    for status in decided:
        names = by_status.pop(status)
        lines.append(f"- **{VERDICT[status]}:** " + "; ".join(f"«{n}»" for n in names) + ".")
    if by_status:
        rest = [f"{counts[k]} «{VERDICT.get(k, k)}»" for k in by_status]
        lead = "Las demás" if decided else "Sin veredicto"
        lines.append(f"- {lead}: " + ", ".join(rest) + "; cada una, con su cifra, más abajo.")
    return lines[:SUMMARY_LINES]


def resumen(resultado) -> None:
    """Show, right under a run's heading, its verdicts in five lines (`verdict_summary`); the details
    (every claim's sentence, interval and margin) stay in the page's verdict section."""
    if resultado is None:
        markdown("_Aún no hay ninguna corrida que resumir: pulsa «Ejecutar» arriba._")
        return
    markdown("\n".join(verdict_summary(experiments.judged(resultado))))


def missing_run(experiment: str) -> None:
    """Say that a result this page uses comes from another experiment's notebook that has not run yet."""
    module = experiments.get(experiment)
    markdown(
        f"_Esta parte usa la última corrida de «{module.TITLE}» (`{module.NOTEBOOK}.ipynb`), y en esta "
        "máquina todavía no hay ninguna: ejecuta ese cuaderno y vuelve aquí._"
    )


def behind_the_claims(lines: list[str]) -> None:
    """This run's figures behind the verdicts, one bullet each (nothing when there are none)."""
    if lines:
        markdown("Detrás de estos veredictos, en esta corrida:\n\n" + "\n".join(f"- {ln}" for ln in lines))


def como_medimos(module=None, *, completo: bool = False) -> None:
    """A notebook's «Cómo medimos»: the load the machine was under during `module`'s latest run (if it
    has one) and the table of margins, only the kinds of claim `module` declares (its SAID) if given.
    The method of every interval and verdict (with its tested coverage) is printed once, where the
    course first meets it (`completo=True`, notebook 01); the other notebooks link there."""
    kinds = None
    if module is not None:
        kinds = {s.kind for s in getattr(module, "SAID", ()) if s.kind} or None
    if completo or module is None:
        markdown(method_sentence())
    run = Resultado.latest(module.EXPERIMENT) if module is not None else None
    if run is not None:
        markdown(load_sentence(run.meta))
        resolution = resolution_sentence(experiments.judged(run))
        if resolution:
            markdown(resolution)
    show(
        table(margins_frame(kinds), "Márgenes: qué cuenta como «la afirmación», según cómo la dijo la fuente")
    )


# ---------------------------------------------------------------- which way a figure points
ABOVE_WORDS = "más, con todo el IC 95 % por encima del margen de «casi igual»"
BELOW_WORDS = "menos, con todo el IC 95 % por debajo del margen de «casi igual»"


def direction_words(
    code: str,
    above: str = ABOVE_WORDS,
    below: str = BELOW_WORDS,
    *,
    n: int | None = None,
    around: float = 1.0,
) -> str:
    """The one wording of a direction read by verdict.direction or verdict.side (`code`): `above` /
    `below` as the caller words them («más lento» / «más rápido», «arranca antes Docker» / «… Podman»),
    «casi igual» inside the margin of «no difference» around `around`, the side alone («más lento, sin
    saber si fuera de «casi igual»») for an IC on one side of `around` that overlaps that margin
    (verdict.side), «no se distingue hacia qué lado» when the IC holds `around`, and the one «too few
    repetitions» (`too_few`) below MIN_N."""
    if code == _verdict.ABOVE:
        return above
    if code == _verdict.BELOW:
        return below
    if code == _verdict.LEVEL:
        unit = "x" if around == 1 else "%" if around == 0 else ""
        return f"casi igual: el IC 95 % cae {fmt_margin(_verdict.level_region(around), unit)}"
    if code in (_verdict.ABOVE_NULL, _verdict.BELOW_NULL):  # verdict.side: one side, not how far
        way = above if code == _verdict.ABOVE_NULL else below
        way = {ABOVE_WORDS: "más", BELOW_WORDS: "menos"}.get(way, way)
        return f"{way}, sin saber si fuera de «casi igual»"
    if code == _verdict.NO_CONCLUYENTE:
        return "no se distingue hacia qué lado con estas repeticiones"
    if n is not None and 0 < n < _verdict.MIN_N:
        return too_few(n)
    return "sin IC 95 %: no se dice hacia qué lado"


def overhead_words(code: str, n: int) -> str:
    """Which way an overhead points (its `direccion`: verdict.direction around 0 %, or INESTABLE), in
    words, as 03's table, its sentences and the instructor's kit say it."""
    if code == _verdict.INESTABLE:
        return VERDICT[_verdict.INESTABLE]
    return direction_words(code, "más lento", "más rápido", n=n, around=0)
