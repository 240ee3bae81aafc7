"""The closing LAUNCH vs RUNNING table as a person sees it (helpers.cierre gathers the rows)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pandas as pd

from .. import cierre, experiments, stats
from ..experiments import verdict as vd
from ..experiments.anatomia import pod_analysis
from ..experiments.anatomia.analysis import largest_part
from ..experiments.ejecucion.arms import PLACE_NAMES, WORKLOAD_NAMES
from ..experiments.red.arms import kubernetes_absent
from ..experiments.runner import Resultado
from .anatomia_frases import waterfall_sentence
from .anatomia_pod import bill_sentence, launch_and_phase, why_absent
from .common import (
    ENGINE_LABEL,
    STATUS_LABEL,
    VERDICT,
    approx,
    claim_sentence,
    direction_words,
    fmt,
    fmt_margin,
    fmt_pct,
    fmt_ratio,
    fmt_value,
    fmt_value_interval,
    list_note,
    markdown,
    shorten,
    show,
    table,
    too_few,
    verdict_words,
)
from .numbers import value_and_interval

TIPO = {
    "LAUNCH": "LAUNCH (arrancar, o lanzar un proceso con exec)",
    "RUNNING": "RUNNING (trabajar dentro)",
    "CAPACITY": "CAPACITY (cuántos caben)",
}
ENTORNO = {**ENGINE_LABEL, "chroot": "bare metal (chroot a la imagen)"}


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _split(value: float, unit: str, low: float, high: float) -> tuple[str, str]:
    """(figure, interval) of a closing-table figure, through value_and_interval, the helper of the pages
    that decided it, so both read alike: («287 ms», «[274, 297]»); a ratio's suffix («x bare metal»)
    follows its «×»."""
    ratio = unit.startswith(("x", "×"))
    figure, interval = value_and_interval(value, low, high, "x" if ratio else unit)
    if ratio:
        figure += unit[1:]
    return figure, interval or "—"


def valor(value: float, unit: str, low: float = float("nan"), high: float = float("nan")) -> str:
    """A closing-table figure in its own unit, as the page that decided it prints it: «287 ms»,
    «+0.4 %», «1.05× bare metal»."""
    if _missing(value):
        return "—"
    return _split(value, unit, low, high)[0]


def intervalo(low: float, high: float, value: float, unit: str) -> str:
    """The interval of a closing-table figure, as its page prints it: «[274, 297]»."""
    if _missing(low) or _missing(high) or _missing(value):
        return "—"
    return _split(value, unit, low, high)[1]


def _notebook(name: str) -> str:
    return f"`{experiments.get(name).NOTEBOOK}.ipynb`"


def tabla(resultado: Resultado | None = None, *, root=None) -> pd.DataFrame | None:
    """The closing table from this machine's latest run of every experiment that declares closing rows
    (`resultado`, the run a notebook just made, replaces its experiment's latest run). Shows the table,
    says which experiments have no run yet, and returns the rows (helpers.cierre.COLUMNS)."""
    data = cierre.gather(resultado, root=root)
    if data.rows.empty:
        pending = ", ".join(_notebook(n) for n in data.missing) or "ninguno"
        markdown(
            "**Aún no hay resultados para la tabla de cierre (LAUNCH, RUNNING y CAPACITY) en esta máquina.** Ejecuta "
            f"los cuadernos de los experimentos ({pending}) y vuelve a esta celda."
        )
        _notes(data, only_problems=True)
        return None
    rows = data.rows.copy()
    rows["tipo"] = rows.apply(cierre.cost_of, axis=1)  # exactly one of LAUNCH, RUNNING, CAPACITY
    rows["_orden"] = rows["tipo"].map({c: i for i, c in enumerate(cierre.COSTS)})
    rows = rows.sort_values("_orden", kind="stable")
    shown = pd.DataFrame(
        {
            "Costo": rows["tipo"].map(lambda t: TIPO.get(t, t)),
            "Experimento": [  # a figure from a run that did not finish says so in its own row
                t if e == "complete" else f"{t} (corrida {STATUS_LABEL.get(e, e)})"
                for t, e in zip(rows["titulo"], rows["estado"])
            ],
            "Qué se mide": rows["concepto"].str.replace("`", "", regex=False),
            "Entorno": rows["entorno"].map(lambda e: ENTORNO.get(e, e)),
            "Mediana": [
                valor(v, u, lo, hi)
                for v, u, lo, hi in zip(rows["valor"], rows["unidad"], rows["ic_bajo"], rows["ic_alto"])
            ],
            "IC 95 %": [
                intervalo(lo, hi, v, u)
                for lo, hi, v, u in zip(rows["ic_bajo"], rows["ic_alto"], rows["valor"], rows["unidad"])
            ],
        }
    )
    show(table(shown, "LAUNCH, RUNNING y CAPACITY en esta máquina (la última corrida de cada experimento)"))
    _notes(data)
    return data.rows


def _notes(data: cierre.Cierre, only_problems: bool = False) -> None:
    lines = []
    if not only_problems:
        used = [
            f"{experiments.get(n).TITLE}: corrida `{r.meta.get('run_id', r.run_dir.name)}`"
            + ("" if r.status == "complete" else f" ({STATUS_LABEL.get(r.status, r.status)})")
            for n, r in data.runs.items()
        ]
        if used:
            lines.append("Corridas usadas: " + "; ".join(used) + ".")
    if data.missing and not only_problems:
        lines.append(
            "Aún sin corrida en esta máquina (sus filas faltan): "
            + ", ".join(f"{experiments.get(n).TITLE} ({_notebook(n)})" for n in data.missing)
            + "."
        )
    for name, why in data.unreadable.items():
        lines.append(f"{experiments.get(name).TITLE}: {why}")
    markdown("\n\n".join(f"_{line}_" for line in lines))


# ---------------------------------------------------------------- one answer per question
QUESTION_TEXT = {
    "podman_mas_rapido": "¿Arranca Podman más rápido que Docker?",
    "donde_va_launch": "¿A dónde se va el tiempo de LAUNCH?",
    "costo_running": "¿Cuánto cuesta un contenedor mientras trabaja (RUNNING)?",
    "capacidad": "¿Cuántos caben, y qué retiene cada uno (CAPACITY)?",
}


def preguntas(root=None) -> dict:
    """One short paragraph per question, generated from the claims of the notebook that decides it (its
    latest run): its main claim, with its verdict, then the other claims it cites; «is Podman faster?»
    split into «~2×» and where the difference lives (`_podman_vs_docker`), CAPACITY with its number
    (`_capacidad`). Returns {question: [claims]}."""
    found = cierre.answers(root)
    for q in cierre.QUESTIONS:
        where = _notebook(q.experiment)
        claims = [c for c in found[q.key] if c is not None]
        head = f"#### {QUESTION_TEXT[q.key]}\n\nLo decide {where}"
        if q.key == "podman_mas_rapido":
            markdown(f"#### {QUESTION_TEXT[q.key]}\n\n{_podman_vs_docker(root)}")
            continue
        if not found[q.key]:
            markdown(f"{head}, que aún no tiene corrida en esta máquina: ejecútalo y vuelve a esta celda.")
            continue
        if not claims:
            markdown(f"{head}, pero su última corrida no juzga ninguna de sus afirmaciones sobre esto.")
            continue
        main = claims[0]
        parts = _by_parts(root) if q.by_parts else ""
        if parts:
            text = (
                f"{head}, desarmando el `run` de cada motor en partes. **En tu máquina** (sus cifras, como "
                f"las da el cuaderno):\n\n{parts}\n\nSus afirmaciones sobre esto, con su veredicto:\n\n"
            )
        elif q.cost == "CAPACITY":
            text = f"{head}. {_capacidad(root)}\n\nLo que juzgó sobre la memoria, con su veredicto:\n\n"
        else:
            text = (
                f"{head}. **En tu máquina, su afirmación principal, «{main.statement}», "
                f"{verdict_words(main)}.** Lo que juzgó, empezando por ella:\n\n"
            )
        text += "\n".join(f"- {claim_sentence(c)}" for c in claims) + list_note(claims)
        markdown(text)
    markdown(f"#### {POD_QUESTION}\n\n{_kubernetes(root)}")
    return found


# ---------------------------------------------------------------- a Pod of Kubernetes: LAUNCH and CAPACITY
POD_QUESTION = (
    "¿Y un Pod de Kubernetes: cuánto cuesta lanzarlo (LAUNCH) y cuánto retiene el clúster (CAPACITY)?"
)


def _kubernetes(root=None) -> str:
    """A Pod's LAUNCH and the cluster's CAPACITY in 04's own sentences (view.anatomia_pod, the page prints
    them alike), from 04's latest run, with Docker's and Podman's bill from 02's beside it; 06's Pods
    serving HTTP (RUNNING) cited; where Kubernetes did not run, one line that says why."""
    runs = cierre.pod_runs(root)
    run = runs.pods
    if run is None:
        lines = [
            f"Lo decide {_notebook('anatomia')}, que aún no tiene corrida en esta máquina: ejecútalo con el "
            "perfil por defecto (el rápido omite Kubernetes) y vuelve a esta celda."
        ]
    else:
        lines = [f"Lo decide {_notebook('anatomia')} (corrida `{run.meta.get('run_id', run.run_dir.name)}`)"]
        launch = launch_and_phase(run.df, run.meta)
        bill = bill_sentence(run.df, runs.beside)
        if launch:
            start = pod_analysis.cluster_start_s(run.meta)
            once = (
                f" El clúster mismo arrancó en {fmt(start, 1, 's')}, una vez, antes de medir: se paga una vez "
                "por clúster, no por Pod."
                if start is not None
                else ""
            )
            lines.append(f"- **LAUNCH:** {launch}{once}")
        if bill:
            lines.append(f"- **CAPACITY:** {bill}")
        if not (launch or bill):
            lines.append(f"- {why_absent(run)}")
        lines[0] += ", con un clúster de un nodo." if launch or bill else "."
    lines.append(_kubernetes_http(runs.http))
    return "\n".join(lines[:1]) + "\n\n" + "\n".join(lines[1:])


def _kubernetes_http(run: Resultado | None) -> str:
    """06's Pods serving HTTP: cited (RUNNING, in the table above), or why its run has none."""
    if run is None:
        return (
            f"- {_notebook('red')} aún no tiene corrida en esta máquina: sin Pods sirviendo HTTP (RUNNING)."
        )
    absent = kubernetes_absent(run.df, run.meta)
    if absent:
        return f"- _En {_notebook('red')}: {absent[:1].lower()}{absent[1:]}_"
    return (
        f"- **RUNNING:** en {_notebook('red')}, Pods sirvieron HTTP por tres caminos (sus filas «Kubernetes» "
        "están en el bloque RUNNING de la tabla completa, más abajo; qué pierde cada camino, en su página)."
    )


# ---------------------------------------------------------------- «¿Arranca Podman más rápido?», in two
SLOWER, FASTER = "tarda menos Docker", "tarda menos Podman"  # Podman/Docker above 1×, below 1×


def _ratio(reading: cierre.Reading) -> str:
    e = reading.estimate
    return f"{fmt_ratio(e.value, e.low, e.high)} (n = {e.n} rondas)"


def _side(reading: cierre.Reading) -> str:
    e = reading.estimate
    return direction_words(reading.direction, SLOWER, FASTER, n=e.n)


def _said_line(claims: list, words: str) -> str:
    """01's verdict on one claim per image, with its figure and its margin."""
    cells = [
        f"con «{c.detail.get('role', '')}», **{verdict_words(c)}**: Podman/Docker = "
        f"{fmt_ratio(c.value, c.low, c.high)} (n = {c.n}{' rondas' if c.detail.get('rondas') else ''}), y se acepta {fmt_margin(c.region, c.unit)}"
        for c in claims
    ]
    return f"- {words} " + "; ".join(cells) + "."


def _podman_vs_docker(root=None) -> str:
    """«Is Podman faster to start?» as the pages that decide it split it: 01's verdicts on «~2×» and on
    «faster» (default network, the chapter's conditions; cited, not re-judged), then where the difference
    lives, each read by the one rule (verdict.direction): the engine itself without network (04's own
    parts; 01's `--network none`) and the default network's set-up and teardown (04)."""
    split = cierre.faster_split(root)
    if not split.measured:
        return (
            f"Lo deciden {_notebook('arranque')} (el arranque entero) y {_notebook('anatomia')} (sus partes), "
            "que aún no tienen corrida en esta máquina: ejecútalos y vuelve a esta celda."
        )
    lines = [
        f"Lo deciden {_notebook('arranque')} (el arranque entero, con la red por defecto como el capítulo) y "
        f"{_notebook('anatomia')} (sus partes). La respuesta tiene dos mitades."
    ]
    said = []
    if split.twice:
        said.append(_said_line(split.twice, "**«Podman arranca ~2× más rápido»** (cuaderno 01):"))
    if split.faster:
        said.append(_said_line(split.faster, "**«Podman arranca con menos sobrecarga»** (cuaderno 01):"))
    if not said:
        said.append(
            f"- {_notebook('arranque')} aún no tiene corrida en esta máquina: sin veredicto sobre «~2×»."
        )
    lines.append("\n".join(said))
    where = ["**Dónde vive la diferencia** (Podman/Docker; por encima de 1× tarda más Podman):"]
    if split.own is not None:
        where.append(
            "- **El motor mismo, sin red:** en el cuaderno 04, la parte propia de Podman (su `run --network "
            f"none` menos `runc run`, ronda a ronda) es {_ratio(split.own)} la de Docker: {_side(split.own)}."
        )
    if split.without_network:
        cells = [f"con «{r.role}», {_ratio(r)}: {_side(r)}" for r in split.without_network]
        where.append(
            "- En el cuaderno 01, el arranque entero sin red (`--network none`): " + "; ".join(cells) + "."
        )
    if split.network:
        backend = f"la arma {split.backend}" if split.backend else "la arma su backend de red"
        costs = ", ".join(
            f"{ENGINE_LABEL.get(e, e)} {fmt_value_interval(v['red_ms'], *v['red_ic'], 'ms')}"
            for e, v in split.network.items()
        )
        text = (
            f"- **La red por defecto, crearla y deshacerla** (en Podman {backend}; en Docker, dockerd "
            f"con su bridge), en el cuaderno 04, ronda a ronda: {costs}"
        )
        if split.network_ratio is not None:
            text += (
                f"; la de Podman es {_ratio(split.network_ratio)} la de Docker: {_side(split.network_ratio)}"
            )
        where.append(text + ".")
    if len(where) == 1:
        where.append(
            f"- {_notebook('anatomia')} aún no tiene corrida en esta máquina: sin partes que comparar."
        )
    lines.append("\n".join(where))
    return "\n\n".join(lines)


# ---------------------------------------------------------------- CAPACITY as a number
LIMIT_NAME = {  # what runs out first
    cierre.MEMORY: "la memoria",
    cierre.BRIDGE: f"los puertos del bridge de la red por defecto (un bridge de Linux admite "
    f"{fmt(cierre.BRIDGE_PORTS, 0)})",
    cierre.PIDS: "los PID del kernel",
}
LIMIT_WHY = {  # the other limits, with how they count
    cierre.BRIDGE: f"un bridge de Linux admite {fmt(cierre.BRIDGE_PORTS, 0)} contenedores en la red por defecto",
    cierre.PIDS: "kernel.pid_max ÷ los procesos de cada contenedor (sin contar hilos, que también gastan PID) "
    "da para",
}
UNREAD_WHY = {
    (cierre.MEMORY, cierre.NOT_RECORDED): "la memoria (meta.json no la registró)",
    (
        cierre.BRIDGE,
        cierre.NOT_APPLICABLE,
    ): "los puertos de un bridge (esta corrida lanzó sin red, o sin root: no hay bridge)",
    (
        cierre.PIDS,
        cierre.NOT_RECORDED,
    ): "kernel.pid_max (esta corrida no lo registró en meta.json; las nuevas sí)",
    (cierre.FILES, cierre.NOT_MEASURED): "los descriptores de archivo (02 no cuenta cuántos abre cada "
    "contenedor)",
}
MEMORY_FIELD = {
    "memory_available_bytes": "la memoria disponible (MemAvailable)",
    "memory_total_bytes": "la memoria total",
}


def _cuantos(value_low_high) -> str:
    """How many containers a limit lets in: an exact limit as it is («1 023»), a figure with an interval
    as an extrapolated count («unos 6 900 [6 800, 7 100]»), without its interval when the run gave it
    none («unos 6 900»)."""
    value, low, high = value_low_high
    if low == high == value:
        return fmt(value, 0)
    if stats.any_nan(low, high):
        return f"unos {approx(value)}"
    return f"unos {approx(value)} [{approx(low)}, {approx(high)}]"


def _capacidad(root=None) -> str:
    """CAPACITY as a number per engine, from 02's latest run (cierre.capacity): the limit that binds first
    and how many containers it lets in, how many the memory holds, the other limits the run lets us read,
    and the limits it cannot read."""
    found = cierre.capacity(root)
    if not found:
        return "Su última corrida no midió la memoria de cada contenedor: sin cifra de CAPACITY."
    lines = [f"- {capacity_sentence(cap)}" for cap in found]
    text = "**En tu máquina**, de su última corrida:\n\n" + "\n".join(lines)
    unread = unread_limits(found)
    return text + f"\n\n{unread}" if unread else text


def capacity_sentence(cap: cierre.Capacity) -> str:
    """One engine's CAPACITY (cierre.Capacity) in Spanish: how many fit and the limit that binds first (in
    bold), what one more container holds, how many the memory holds, and the other limits read."""
    kb, binding = cap.memory_kb, cap.binding
    who = ENGINE_LABEL.get(cap.engine, cap.engine)
    if binding is None:
        text = f"**{who}: esta corrida no deja leer ningún límite, así que no dice cuántos caben.**"
    else:
        text = (
            f"**{who}: caben {_cuantos(cap.limits[binding])} contenedores; lo primero que se acaba: "
            f"{LIMIT_NAME[binding]}.**"
        )
    memory = fmt_value_interval(kb.value / 1024, kb.low / 1024, kb.high / 1024, "MiB")
    text += f" Cada contenedor más retiene {memory} (su cgroup y su proceso ayudante, PSS, con N = {cap.n})"
    if cierre.MEMORY in cap.limits:
        text += (
            f"; en {MEMORY_FIELD[cap.memory_field]} al empezar la corrida, "
            f"{fmt(cap.memory_bytes / 2**30, 1, 'GiB')}, caben {_cuantos(cap.limits[cierre.MEMORY])}"
        )
    others = [
        f"{LIMIT_WHY[k]}" + ("" if k == cierre.BRIDGE else f" {_cuantos(v)}")
        for k, v in cap.limits.items()
        if k not in (cierre.MEMORY, binding)
    ]
    return text + "".join(f"; {o}" for o in others) + "."


def unread_limits(found) -> str:
    """«No se pudo leer, y podría acabarse antes: …» for the limits a run of 02 does not let us read, or ""."""
    unread = sorted({UNREAD_WHY[(k, why)] for cap in found for k, why in cap.unread.items()})
    return "No se pudo leer, y podría acabarse antes: " + "; ".join(unread) + "." if unread else ""


def _by_parts(root=None) -> str:
    """Per engine, the largest part of its `run` in 04's waterfall, in 04's own sentence (named only when
    its interval separates it from the next part), or "" without a run of 04."""
    frames, meta = cierre.launch_parts(root)
    return waterfall_sentence(frames, meta) if frames else ""


# ---------------------------------------------------------------- the chapter's table beside the student's
def _verdict(claim) -> str:
    if isinstance(claim, str) and claim == cierre.NOT_JUDGED:
        return "— (la afirmación es sobre el otro motor)"
    return verdict_words(claim) if hasattr(claim, "status") else "sin corrida"  # None, or NaN in a frame


def _aside(figure) -> str:
    """The note of a row judged on another figure than its own (exec ÷ run): its own figure, unjudged."""
    if not isinstance(figure, tuple):
        return ""
    name, value, low, high, _n, unit = figure
    return f"{name}: {fmt_value_interval(value, low, high, unit)} (al lado, no se juzga)"


def _on_page(claim, experiment: str, here=None) -> str:
    """The note of a row judged here on another figure than its page's: that page's own verdict on the
    same declaration, with the figure it was judged on, so the two never read as one; nothing when the
    page judged it on the same figure with the same verdict (`here`, the row's claim)."""
    if not hasattr(claim, "status"):
        return ""
    if hasattr(here, "status") and _same_judgement(claim, here):
        return ""
    figure = _figure(claim)
    return (
        f"su cuaderno ({experiments.get(experiment).NOTEBOOK[:2]}) la juzga sobre otra cifra, "
        f"{claim.quantity}{f' = {figure}' if figure else ''}: {verdict_words(claim)}"
    )


def _same_judgement(a, b) -> bool:
    """Two judgements of one declaration that read alike: the same status on the same figure."""
    return a.status == b.status and _figure(a) == _figure(b)


NOT_MEASURED = "no medido en tu última corrida"  # the notebook ran, without this row's conditions (N = 20)


def resumen(root=None) -> pd.DataFrame:
    """The chapter's «Tabla resumen» (its figures and what it concluded) beside the student's (median and
    IC 95 % of the latest run, and the verdict of the claim that decides each row), each row in its
    cost; the notebook that decides each row is named."""
    data = cierre.summary(root)
    ran = {e: Resultado.latest(e, root) is not None for e in data["experimento"].unique()}
    absent = [NOT_MEASURED if ran[e] else "sin corrida" for e in data["experimento"]]
    shown = pd.DataFrame(
        {
            "Costo": data["costo"],
            "Qué": data["aspecto"].str.replace("`", "", regex=False),
            "Motor": data["motor"].map(lambda e: ENGINE_LABEL.get(e, e)),
            "Capítulo": [  # as the chapter wrote them: percentages with one decimal
                fmt_value(v, u, 1 if u == "%" else None) for v, u in zip(data["capitulo"], data["unidad"])
            ],
            "Lo que concluyó el capítulo": data["dice_el_capitulo"].str.replace("`", "", regex=False),
            "Tu máquina (mediana e IC 95 %)": [
                fmt_value_interval(v, lo, hi, u) if n else missing
                for v, lo, hi, u, n, missing in zip(
                    data["tuyo"], data["tuyo_bajo"], data["tuyo_alto"], data["unidad"], data["n"], absent
                )
            ],
            "Tu veredicto": [_verdict(c) for c in data["veredicto"]],
            "Lo decide": data["experimento"].map(lambda e: _notebook(e).strip("`")),
            "Nota": [
                "; ".join(t for t in (_aside(a), _on_page(c, e, v)) if t).replace("`", "")
                for a, c, e, v in zip(
                    data["aparte"], data["en_su_pagina"], data["experimento"], data["veredicto"]
                )
            ],
        }
    )
    show(
        table(
            shown,
            "Docker frente a Podman: la «Tabla resumen» del capítulo y la tuya (el veredicto es el de la "
            "afirmación que decide cada fila, en su cuaderno)",
        )
    )
    if stand_ins := substitutes(data["experimento"].unique(), root):
        markdown(
            "Las imágenes no son las del capítulo: en esta máquina, sin registro, "
            + " y ".join(f"«{role}» fue `{name}`" for role, name in stand_ins.items())
            + ": sustitutos locales que hacen el mismo papel."
        )
    return data


def substitutes(experiments_used, root=None) -> dict[str, str]:
    """Image role → the local stand-in a latest run of these experiments used instead of the official
    image (meta.json «images», origin «sustituto»), Docker's name first."""
    found: dict[str, str] = {}
    for experiment in experiments_used:
        run = Resultado.latest(experiment, root)
        for engine in ("docker", "podman"):
            for role, image in (
                (((run.meta or {}).get("images") or {}).get(engine) or {}).items() if run else ()
            ):
                if image.get("origin") == "sustituto":
                    found.setdefault(role, str(image.get("name", "?")).removeprefix("localhost/"))
    return dict(sorted(found.items(), key=lambda kv: kv[0] != "ubuntu"))


def _load_name(carga: str, lugar: str) -> str:
    name = WORKLOAD_NAMES.get(carga, carga)
    return f"{name} en {PLACE_NAMES.get(lugar, lugar)}" if lugar else name


def balance(root=None) -> cierre.BottomLine:
    """The chapter's bottom line («2 h de trabajo → menos de 10 min de sobrecarga») recomputed from the
    student's runs: 03's verdicts on it for hash and sort (per engine), the small-file and write
    workloads as figures («if the 2 h were only this work»), and the launch paid once (01)."""
    line = cierre.bottom_line(root)
    hours, limit = cierre.WORK_MINUTES // 60, cierre.CHAPTER_LIMIT_MINUTES
    said = f"«{hours} h de trabajo → menos de {limit} min de sobrecarga»"
    if not line.measured:
        markdown(
            f"_Para rehacer la cuenta del capítulo ({said}) hace falta una corrida del cuaderno 03 con "
            "cargas medidas en un contenedor: ejecútalo y vuelve aquí._"
        )
        return line
    parts = [
        f"El capítulo cerraba con {said}, sacado de hash y sort. **Con tus datos** ({hours} h × la "
        "sobrecarga del trabajo solo frente a su línea base más justa; lo juzga el cuaderno 03):"
    ]
    items = []
    for c in sorted(line.claims, key=lambda c: (c.detail.get("carga", ""), c.detail.get("engine", ""))):
        name = _load_name(c.detail.get("carga", ""), "")
        engine = ENGINE_LABEL.get(c.detail.get("engine"), c.detail.get("engine"))
        figure = fmt_value_interval(c.value, c.low, c.high, "min")
        items.append(f"- {name}, {engine}: {figure} de más en {hours} h — **{verdict_words(c)}**")
    parts.append("\n".join(items))
    if not line.others.empty:
        others = [
            f"- {_load_name(r['carga'], r['lugar'])}, {ENGINE_LABEL.get(r['entorno'], r['entorno'])}: "
            f"{fmt_value_interval(r['sobrecarga_pct'], r['ic_bajo_pct'], r['ic_alto_pct'], '%')} → "
            f"{fmt_value_interval(r['minutos'], r['minutos_bajo'], r['minutos_alto'], 'min')}"
            for _, r in line.others.iterrows()
        ]
        parts.append(
            f"El capítulo habló de tareas de cómputo. Si esas {hours} h fueran solo archivos pequeños o solo "
            "escritura (cargas que el capítulo no midió; cifras, sin veredicto; modificar un archivo de la "
            "imagen no entra: el copy-up se paga una vez por archivo, no por hora):\n\n" + "\n".join(others)
        )
    launch = line.launch
    if launch:
        seconds = launch["mediana_ms"] / 1000
        parts.append(
            f"Y el arranque, que se paga una vez: `docker run --rm` con la imagen «{launch['role']}» y la red "
            f"por defecto (cuaderno 01) costó "
            f"{fmt_value_interval(launch['mediana_ms'], launch['ic_bajo_ms'], launch['ic_alto_ms'], 'ms')}, "
            f"es decir, {fmt_value(seconds, 's')} de los {fmt(hours * 3600, 0, 's')} de {hours} h."
        )
    else:
        parts.append("_El arranque (cuaderno 01) aún no tiene corrida en esta máquina._")
    markdown("\n\n".join(parts))
    return line


# ---------------------------------------------------------------- the answers first, in short
ANSWERS_HEAD = (
    "**Las respuestas, en corto** (cada una con su cifra y el veredicto del cuaderno que la decide, en su "
    "última corrida en esta máquina; el detalle, plegado más abajo):"
)
VARIANT_WORDS = {"pool": "con `start -a`", "pool_exec": "con `exec`"}  # 04's warm-pool arms
LIMIT_SHORT = {
    cierre.MEMORY: "la memoria",
    cierre.BRIDGE: "los puertos del bridge de la red por defecto",
    cierre.PIDS: "los PID del kernel",
}
NAME_WIDTH = 130  # characters of a statement in a one-line answer


def _name(claim) -> str:
    """A claim's statement, short enough for a one-line answer: without a closing parenthesis, without
    what follows a colon when what precedes it says enough, else cut at NAME_WIDTH characters."""
    text = re.sub(r" \([^()]*\)$", "", claim.statement.rstrip(". ")).rstrip(". ")
    head = text.split(": ")[0]
    if len(text) > NAME_WIDTH and len(head) >= 40:
        text = head
    return shorten(text, NAME_WIDTH)


def _who(claim, varying: set) -> str:
    """Which judgement of a claim this is: its engine, and the image, workload or variant when the
    page judged the claim on more than one."""
    d = claim.detail
    parts = [ENGINE_LABEL.get(d["engine"], d["engine"])] if d.get("engine") else []
    if "role" in varying and d.get("role"):
        parts.append(f"«{d['role']}»")
    if "carga" in varying and d.get("carga"):
        parts.append(WORKLOAD_NAMES.get(d["carga"], d["carga"]))
    if "variante" in varying and d.get("variante"):
        parts.append(VARIANT_WORDS.get(d["variante"], d["variante"]))
    return " ".join(parts)


def _figure(claim) -> str:
    """A judged claim's figure with its IC, in its unit; nothing when the rule found none to read (too
    few repetitions, or a spread that dwarfs the median)."""
    if not claim.n or claim.status in (vd.INESTABLE, vd.SIN_DATOS) or stats.any_nan(claim.value):
        return ""
    return fmt_value_interval(claim.value, claim.low, claim.high, claim.unit or "")


def judged_line(claims: list, name: str | None = None, *, figures: bool = True) -> str:
    """Every judgement of one claim on its page, grouped by the one rule's words: «name»: **se
    confirma** (Podman +54 % [+53, +59]), **no concluyente** (Docker +20 % [+18, +30])."""
    varying = {k for k in ("role", "carga", "variante") if len({c.detail.get(k) for c in claims}) > 1}
    groups: dict[str, list[str]] = {}
    for c in claims:
        cell = " ".join(t for t in (_who(c, varying), _figure(c) if figures else "") if t)
        groups.setdefault(verdict_words(c).split(" (")[0], []).append(cell)
    cells = [
        f"**{words}**" + (f" ({'; '.join(w for w in who if w)})" if any(who) else "")
        for words, who in groups.items()
    ]
    return f"«{name or _name(claims[0])}»: " + ", ".join(cells)


def _by_key(claims: list) -> list[list]:
    """Claims grouped by key, in their order."""
    out: dict[str, list] = {}
    for c in claims:
        out.setdefault(c.key, []).append(c)
    return list(out.values())


def _ratio_short(reading: cierre.Reading) -> str:
    e = reading.estimate
    return fmt_ratio(e.value, e.low, e.high)


def _short_faster(root) -> str:
    split = cierre.faster_split(root)
    if not split.measured:
        return f"sin corrida de {_notebook('arranque')} ni de {_notebook('anatomia')}."
    parts = []
    if split.faster:
        parts.append(
            "con la red por defecto (01, Podman/Docker), "
            + judged_line(split.faster, "Podman arranca con menos sobrecarga")
        )
    if split.twice:
        parts.append(judged_line(split.twice, "~2× más rápido", figures=not split.faster))
    if split.own is not None:
        parts.append(
            f"sin red, la parte propia de Podman es {_ratio_short(split.own)} la de Docker (04): "
            f"{_side(split.own)}"
        )
    if split.network_ratio is not None:
        parts.append(
            f"su red por defecto cuesta {_ratio_short(split.network_ratio)} la de Docker: "
            f"{_side(split.network_ratio)}"
        )
    return "; ".join(parts) + "."


def _short_parts(root, claims: list) -> str:
    frames, _meta = cierre.launch_parts(root)
    if not frames and not claims:
        return f"sin corrida de {_notebook('anatomia')}."
    parts = []
    for w in frames:
        top, rival, separated = largest_part(w)
        if top is None:
            continue
        who = ENGINE_LABEL.get(top["engine"], top["engine"])
        share = f"{fmt_pct(100 * top['fraccion'], 0, sign=False)} del `run`"
        if separated:
            parts.append(f"en {who} pesa más «{top['etiqueta']}» ({share})")
        else:
            parts.append(
                f"en {who} no se distingue si pesa más «{top['etiqueta']}» ({share}) o «{rival['etiqueta']}»"
            )
    judged = [judged_line(group) for group in _by_key(claims)]
    return "; ".join([*parts, *judged]) + " (04)."


def _short_claims(claims: list, notebook: str) -> str:
    if not claims:
        return f"sin veredicto: {notebook} aún no tiene corrida en esta máquina, o no juzga esto."
    return "; ".join(judged_line(group) for group in _by_key(claims)) + f" ({notebook})."


def _short_capacity(root, claims: list) -> str:
    cells = []
    for cap in cierre.capacity(root):
        who = ENGINE_LABEL.get(cap.engine, cap.engine)
        kb = cap.memory_kb
        each = fmt_value_interval(kb.value / 1024, kb.low / 1024, kb.high / 1024, "MiB")
        if cap.binding is None:
            cells.append(f"{who}: cada contenedor más retiene {each}; ningún límite legible")
        else:
            cells.append(
                f"{who}: caben {_cuantos(cap.limits[cap.binding])} (lo primero que se acaba: "
                f"{LIMIT_SHORT[cap.binding]}); cada contenedor más retiene {each}"
            )
    judged = [judged_line(group) for group in _by_key(claims)]
    if not (cells or judged):
        return f"sin corrida de {_notebook('escala')}."
    return "; ".join([*cells, *judged]) + " (02)."


def _short_pod(root) -> str:
    run = cierre.pod_runs(root).pods
    if run is None:
        return f"sin corrida de {_notebook('anatomia')}."
    cells = [
        f"lanzarlo tarda {fmt_ratio(*ratio.triple)} lo que `{engine} run --rm` "
        f"({direction_words(code, 'tarda más el Pod', 'tarda menos el Pod', n=ratio.n)})"
        for engine, (ratio, code) in pod_analysis.pod_over_engines(run.df).items()
    ]
    memory = pod_analysis.cluster_memory(run.df)
    if memory:
        fixed, each = memory["fijo"], memory["por_pod"]
        cells.append(
            "el clúster retiene "
            f"{fmt_value_interval(fixed.value / 1024, fixed.low / 1024, fixed.high / 1024, 'MiB')} fijos y cada "
            f"Pod más, {fmt_value_interval(each.value / 1024, each.low / 1024, each.high / 1024, 'MiB')}"
        )
    if not cells:
        return why_absent(run).strip("_")
    return "; ".join(cells) + " (04; cifras, sin veredicto: ninguna fuente afirma nada sobre esto)."


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def respuestas(root=None) -> None:
    """The page's answers first: one short line per question with its figure and the verdicts of the
    notebook that decides it, every judgement that page made (per engine, image, workload), grouped by
    the one rule's words; `preguntas` holds the details."""
    found = cierre.answers(root)
    lines = [
        (QUESTION_TEXT["podman_mas_rapido"], _short_faster(root)),
        (QUESTION_TEXT["donde_va_launch"], _short_parts(root, found["donde_va_launch"])),
        (QUESTION_TEXT["costo_running"], _short_claims(found["costo_running"], "03")),
        (QUESTION_TEXT["capacidad"], _short_capacity(root, found["capacidad"])),
        (POD_QUESTION, _short_pod(root)),
    ]
    markdown(ANSWERS_HEAD + "\n\n" + "\n".join(f"- **{q}** {_capital(a)}" for q, a in lines))


# ---------------------------------------------------------------- «Lo que te llevas»: the page's first screen
@dataclass(frozen=True)
class Words:
    """How one take-home finding reads: `label` (the cost it is about), `lead` (the finding, with
    {figure} where its one figure goes), `said` (the source's claim, quoted short), `ratio_lead` (the
    finding on the page's own ratio, when no claim judged a figure), `above`/`below` (that ratio's
    direction in words: verdict.direction), `what` (what the figure is about, named when it is missing)."""

    label: str
    lead: str
    said: str = ""
    ratio_lead: str = ""
    above: str = ""
    below: str = ""
    what: str = ""


TAKEAWAY_WORDS = {
    "arranque_frente_proceso": Words(
        "Arrancar (LAUNCH)",
        "`docker run --rm` con «{role}» tarda {figure} lo que el mismo `echo ok` como proceso nuevo",
        above="más lento que un proceso",
        below="más rápido que un proceso",
        what="`docker run --rm` frente a un proceso nuevo",
    ),
    "hash_0": Words(
        "Trabajar dentro (RUNNING, CPU)",
        "el tiempo de `hash` dentro de Docker, sin el `exec`, cambia {figure} frente a los binarios del host",
        said="la sobrecarga de hash es ~0 %",
        what="`hash` medido en Docker y en el host",
    ),
    "contenedor_11": Words(
        "Llamadas al sistema (RUNNING)",
        "cada `getpid` dentro de Docker, con su filtro seccomp por defecto, cambia {figure} frente al host",
        said="un 11 % más lenta",
        what="`getpid` medido en Docker y en el host",
    ),
    "docker_pierde_66": Words(
        "Un puerto publicado (RUNNING, red)",
        "un servidor HTTP detrás de docker-proxy (`-p`) cambia {figure} sus peticiones por segundo frente a "
        "nativo",
        said="pierde un 65.83 %",
        ratio_lead="un servidor HTTP detrás de docker-proxy (`-p`) atiende {figure} las peticiones por "
        "segundo de nativo",
        above="más peticiones que nativo",
        below="menos peticiones que nativo",
        what="`docker -p` frente a nativo",
    ),
    "kubernetes_pierde_84": Words(
        "Kubernetes por `kubectl port-forward` (RUNNING, red)",
        "el mismo servidor en un Pod, alcanzado con `kubectl port-forward`, cambia {figure} sus peticiones "
        "por segundo frente a nativo",
        said="pierde un 83.59 %",
        ratio_lead="el mismo servidor en un Pod, alcanzado con `kubectl port-forward`, atiende {figure} "
        "las peticiones por segundo de nativo",
        above="más peticiones que nativo",
        below="menos peticiones que nativo",
        what="Kubernetes (el perfil rápido no lo arranca)",
    ),
    "cgroup_4x": Words(
        "Cuántos caben (CAPACITY)",
        "lo que cuesta tener muchos es memoria: cada contenedor en reposo retiene {figure} (su cgroup y su "
        "proceso ayudante)",
        said="Podman usa 4.5x menos memoria por contenedor",
        what="la memoria por contenedor de Docker y de Podman",
    ),
}
TAKEAWAYS_HEAD = (
    "Seis respuestas de tus corridas, cada una con **una** cifra (mediana e IC 95 %), su palabra según la "
    "regla del curso y el cuaderno que la decidió. Lo que aún no corriste queda dicho, no inventado."
)


def _page(experiment: str) -> str:
    return f"cuaderno {experiments.get(experiment).NOTEBOOK[:2]}"


def _quoted(item: cierre.Takeaway, words: Words) -> str:
    """«said»: **verdict**, the source's claim as this run judged it."""
    return f"«{words.said}»: **{verdict_words(item.claim)}**"


def _capacity_figure(item: cierre.Takeaway) -> str:
    """02's memory per idle container, per engine: «3.3 MiB [3.2, 3.4] con Docker y 0.75 MiB […] con Podman»."""
    cells = []
    for cap in item.capacity:
        kb = cap.memory_kb
        each = fmt_value_interval(kb.value / 1024, kb.low / 1024, kb.high / 1024, "MiB")
        if not kb.has_interval:
            each += f" (sin IC 95 %: {kb.n} {'repetición' if kb.n == 1 else 'repeticiones'})"
        cells.append(f"{each} con {ENGINE_LABEL.get(cap.engine, cap.engine)}")
    return " y ".join(cells)


def _bridge_ceiling(item: cierre.Takeaway) -> str:
    if not any(cap.bridged for cap in item.capacity):
        return ""
    return (
        f" Los {fmt(cierre.BRIDGE_PORTS, 0)} puertos del bridge de la red por defecto son un techo de "
        "configuración (otra red lo levanta), no un costo de cada contenedor."
    )


def takeaway_sentence(item: cierre.Takeaway) -> str:
    """One take-home sentence: its figure, its concluding word (the claim's verdict, or verdict.direction
    of the page's own figure) and the page that decided it; what the run lacks, named as missing."""
    words = TAKEAWAY_WORDS[item.key]
    page = _page(item.experiment)
    head = f"**{words.label}.**"
    number = experiments.get(item.experiment).NOTEBOOK[:2]
    absent = f"{head} Tu última corrida de {number} no da esta cifra: sin {words.what} ({page})."
    if not item.ran:
        return f"{head} Aún no corriste {number}: sin {words.what} ({page})."
    if item.key == "cgroup_4x":
        if not item.capacity:
            return absent
        lead = words.lead.format(figure=_capacity_figure(item))
        said = f"; con `stats`, {_quoted(item, words)}" if item.claim is not None else ""
        if item.claim is not None and item.claim.detail.get("falta_n"):
            said += f" sin N = {item.claim.detail['falta_n']} en tu corrida"
        return f"{head} {_capital(lead)}{said} ({page}).{_bridge_ceiling(item)}"
    if item.judged:
        c = item.claim
        lead = words.lead.format(figure=fmt_value_interval(c.value, c.low, c.high, c.unit), role="")
        return f"{head} {_capital(lead)}; {_quoted(item, words)} ({page})."
    if item.reading is not None:
        e = item.reading.estimate
        if item.reading.direction in (vd.SIN_DATOS, vd.INESTABLE):  # measured, nothing to read
            shaky = item.reading.direction == vd.INESTABLE
            why = VERDICT[vd.INESTABLE] if shaky else too_few(e.n) or "sin IC 95 %"
            return f"{head} En tu última corrida de {number}, {words.what}: **{why}** ({page})."
        word = direction_words(item.reading.direction, words.above, words.below, n=e.n)
        lead = (words.ratio_lead or words.lead).format(
            figure=fmt_ratio(e.value, e.low, e.high), role=item.reading.role
        )
        said = f"; {_quoted(item, words)}" if item.claim is not None else ""
        return f"{head} {_capital(lead)}: **{word}**{said} ({page})."
    c = item.claim
    if c is not None and (c.n > 0 or c.status == vd.NO_COMPARABLE):  # measured, no figure to read
        return f"{head} En tu última corrida de {number}, {_quoted(item, words)} ({page})."
    return absent


def lo_que_te_llevas(root=None) -> None:
    """09's first screen: six take-home sentences, one figure each, from the page that decided it
    (cierre.takeaways), each concluded by the one rule and credited to its page."""
    lines = [f"- {takeaway_sentence(item)}" for item in cierre.takeaways(root)]
    markdown(TAKEAWAYS_HEAD + "\n\n" + "\n".join(lines))
