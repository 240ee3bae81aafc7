"""Experiment 1, the conditions around the main figures: the timing loop a student reads, the course's
network variant beside the chapter's conditions, the images' sizes, the first launch of each
combination and a second round. Notebook 01 reaches these through helpers.view.arranque."""

from __future__ import annotations

import inspect
import math

import pandas as pd

from .. import experiments, results
from ..experiments import arranque, verdict
from ..experiments.anatomia.analysis import network_share
from ..experiments.arranque import stopwatch
from ..experiments.arranque.analysis import first_launches, image_sizes, network_table, pair_ratio, summarize
from ..experiments.arranque.measure import CONTAINER_VARIANT, NO_NETWORK_VARIANT
from ..experiments.runner import Resultado
from .common import (
    direction_words,
    engine_label,
    fmt,
    fmt_ratio,
    fmt_value_interval,
    markdown,
    needs_result,
    show,
    significant,
    table,
)


@needs_result
def red(resultado: Resultado) -> None:
    """The course's variant beside the chapter's conditions: each engine with the default network and
    with `--network none`, what the network adds (paired by round), and Podman/Docker under each."""
    t = network_table(resultado.df, resultado.meta)
    if t.empty or t["sin_red_ms"].isna().all():
        markdown("_Esta corrida no midió la variante sin red (`REDES` sin «sin_red»)._")
        return
    out = pd.DataFrame(
        {
            "Combinación": [
                f"{engine_label(e, resultado.meta)} / {r}" for e, r in zip(t["engine"], t["role"])
            ],
            "Red por defecto (ms)": [fmt(v, significant(v)) for v in t["con_red_ms"]],
            "Sin red, --network none (ms)": [fmt(v, significant(v)) for v in t["sin_red_ms"]],
            "Lo que añade la red (ms) [IC 95 %]": [
                fmt_value_interval(v, lo, hi, "")
                for v, lo, hi in zip(t["red_ms"], t["red_ic_bajo"], t["red_ic_alto"])
            ],
        }
    )
    show(
        table(
            out,
            "Variante del curso: el mismo run --rm … echo ok con y sin red (medianas; la diferencia, por rondas)",
        )
    )
    lines = []
    for role in t["role"].unique():
        cells = []
        for variant, words in (
            (CONTAINER_VARIANT, "con la red por defecto"),
            (NO_NETWORK_VARIANT, "sin red"),
        ):
            v = pair_ratio(resultado.df, resultado.meta, ("podman", role), ("docker", role), variant)
            if not math.isnan(v[0]):
                cells.append(f"{words} {fmt_ratio(*v)}")
        if len(cells) == 2:
            lines.append(f"con «{role}», Podman/Docker es " + " y ".join(cells))
    if lines:
        markdown(
            "Las dos condiciones, en tu máquina: " + "; ".join(lines) + ". El veredicto de abajo juzga al "
            "capítulo en sus condiciones (red por defecto); la variante sin red es solo una cifra más."
        )
    markdown(red_en_04())


def red_en_04(root=None) -> str:
    """What notebook 04 (the anatomy of a launch) measured of the network's share, if it has run here."""
    share = network_share(experiments.read_run(arranque, "anatomia", root))
    if not share:
        return (  # in course order 04 runs after this notebook: say what it will measure, not «run it»
            "Cuánto de este arranque es la red lo mide el cuaderno 04 (anatomía del arranque), más adelante "
            "en el curso: desarma el arranque paso a paso y resta, ronda a ronda, `run` sin red de `run` con "
            "la red por defecto, en cada motor. Si vuelves a este cuaderno después de ejecutar el 04, esta "
            "celda citará esa cifra."
        )
    parts = [
        f"en {engine_label(e)}, la red por defecto añade {fmt_value_interval(v['red_ms'], *v['red_ic'], 'ms')} "
        f"a un arranque de {fmt(v['con_red_ms'], 0)} ms"
        for e, v in share.items()
    ]
    return "El cuaderno 04 lo midió con su propia escalera: " + "; ".join(parts) + "."


CHAPTER_PULL_MB = {"alpine": 3, "ubuntu": 29}  # the chapter: «Alpine: ~3 MB vs Ubuntu: ~29 MB» (docker pull)


@needs_result
def tamanos(resultado: Resultado) -> None:
    """The chapter's download sizes next to the images this run used (the engine's own size)."""
    sizes = image_sizes(resultado.meta)
    if sizes.empty:
        markdown("_Esta corrida no usó imágenes de contenedor._")
        return
    out = pd.DataFrame(
        {
            "Imagen": [
                f"{engine_label(e, resultado.meta)} / {r}" for e, r in zip(sizes["engine"], sizes["role"])
            ],
            "Nombre real": sizes["image"],
            "Tu imagen: tamaño local (MiB, sin comprimir)": [fmt(v, 1) for v in sizes["mib"]],
            "Capítulo: descarga con docker pull (MB, comprimida)": [
                f"~{CHAPTER_PULL_MB[r]}" if r in CHAPTER_PULL_MB else "—" for r in sizes["role"]
            ],
        }
    )
    show(
        table(
            out,
            "Tamaño de las imágenes: lo que ocupa la tuya en el motor frente a lo que descargó el capítulo",
        )
    )
    by_role = sizes.groupby("role")["mib"].median()
    if {"alpine", "ubuntu"} <= set(by_role.index):
        markdown(
            f"Tu «ubuntu» ocupa {fmt_ratio(by_role['ubuntu'] / by_role['alpine'], digits=0)} lo que tu «alpine» "
            f"(en el capítulo, la descarga de Ubuntu era unas {fmt_ratio(29 / 3, digits=0)} la de Alpine). "
            "El arranque no descomprime nada: si el tamaño pesa, lo dirá el veredicto «Alpine frente a Ubuntu»."
        )


@needs_result
def primer_arranque(resultado: Resultado) -> None:
    """The first launch of each combination in this run (the warm-up, left out of the medians) next to
    the median of the rest."""
    t = first_launches(resultado.df, resultado.meta)
    if t.empty:
        markdown("_Esta corrida no guardó el primer arranque de cada combinación._")
        return
    names = {CONTAINER_VARIANT: "", NO_NETWORK_VARIANT: " · sin red"}
    out = pd.DataFrame(
        {
            "Combinación": [
                f"{engine_label(e, resultado.meta)} / {r}{names.get(v, v)}"
                for e, r, v in zip(t["engine"], t["role"], t["variant"])
            ],
            "Primer arranque (ms)": [fmt(v, significant(v)) for v in t["primero_ms"]],
            "Mediana del resto (ms)": [fmt(v, significant(v)) for v in t["mediana_ms"]],
            "Primero / mediana": [fmt_ratio(v, digits=2) for v in t["proporcion"]],
            "Más lento que": [f"{k} de {n}" for k, n in zip(t["mas_rapidos"], t["n"])],
        }
    )
    show(
        table(
            out,
            "El primer arranque de cada combinación en esta corrida (el calentamiento) frente a los demás",
        )
    )
    slowest = int((t["mas_rapidos"] == t["n"]).sum())
    chance = float((1 / (t["n"] + 1)).sum())  # if the first were one more launch like the others
    markdown(
        f"En {slowest} de {len(t)} combinaciones el primer arranque fue más lento que todos los demás "
        f"(hasta {fmt_ratio(t['proporcion'].max())} su mediana). Si el primero fuera un arranque más, como "
        f"los otros, eso pasaría por azar en una de cada n + 1: unas {fmt(chance, 1)} de {len(t)}. "
        "El curso deja el primero fuera de las medianas en cualquier máquina; la tabla te dice si en la tuya "
        "hacía falta."
    )


def previous_run(resultado: Resultado, root=None) -> Resultado | None:
    """The complete run of this experiment just before `resultado` on this machine, if any."""
    runs = [r for r in results.list_runs(arranque.EXPERIMENT, root) if r.name < resultado.run_dir.name]
    for run_dir in reversed(runs):
        earlier = Resultado.load(run_dir)
        if earlier.status == "complete" and not earlier.df.empty:
            return earlier
    return None


@needs_result
def segunda_ronda(resultado: Resultado, *, root=None) -> None:
    """This run's medians next to the previous run's on this machine (the chapter's «segunda ronda»)."""
    earlier = previous_run(resultado, root)
    if earlier is None:
        markdown(
            "_No hay otra corrida completa de este cuaderno en esta máquina: ejecuta el panel otra vez y "
            "vuelve a esta celda para comparar las dos rondas._"
        )
        return
    now, before = (summarize(r.df, r.meta) for r in (resultado, earlier))
    key = ["engine", "role", "variant"]
    both = now.merge(before, on=key, suffixes=("", "_antes"))
    # the containers, and the real process on bare metal: did the machine itself move between rounds?
    both = both[(both["engine"] != "bare") | (both["variant"] == arranque.BASELINE[1])]
    if both.empty:
        markdown("_Las dos corridas no tienen combinaciones en común._")
        return
    ratio = both["mediana_ms"] / both["mediana_ms_antes"]
    names = {CONTAINER_VARIANT: "", NO_NETWORK_VARIANT: " · sin red"}
    out = pd.DataFrame(
        {
            "Combinación": [
                "bare metal (proceso real)"
                if e == "bare"
                else f"{engine_label(e, resultado.meta)} / {r}{names.get(v, v)}"
                for e, r, v in zip(both["engine"], both["role"], both["variant"])
            ],
            f"Corrida anterior {earlier.meta.get('run_id')} (ms)": [
                fmt(v, significant(v)) for v in both["mediana_ms_antes"]
            ],
            "Esta corrida (ms)": [fmt(v, significant(v)) for v in both["mediana_ms"]],
            "Ahora / antes": [fmt_ratio(v, digits=2) for v in ratio],
        }
    )
    show(table(out, "Segunda ronda: las medianas de esta corrida frente a las de la anterior"))
    markdown(
        f"Entre las dos rondas, las medianas se movieron entre {fmt_ratio(ratio.min(), digits=2)} y "
        f"{fmt_ratio(ratio.max(), digits=2)}. ¿Se movieron todas en la misma dirección (la máquina) o cada "
        "una por su lado (el ruido)? La fila de bare metal dice si la máquina misma iba más rápida o más lenta."
        + _changed_parameters(resultado, earlier)
    )


PARAMETER_WORDS = {"repeticiones": "repeticiones", "calentamiento": "calentamiento", "redes": "redes"}


def _changed_parameters(now: Resultado, before: Resultado) -> str:
    """« La corrida anterior usó otros parámetros: repeticiones 6 (ahora 10).» or ""."""
    p_now, p_before = (r.meta.get("parameters") or {} for r in (now, before))
    changed = [
        f"{words} {_plain(p_before.get(k))} (ahora {_plain(p_now.get(k))})"
        for k, words in PARAMETER_WORDS.items()
        if p_before.get(k) != p_now.get(k)
    ]
    return f" La corrida anterior usó otros parámetros: {'; '.join(changed)}." if changed else ""


def _plain(value) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def bucle(medida: dict) -> None:
    """The timing loop a student reads (stopwatch.time_launches), and what it gave next to the course's
    own timer on the same command, interleaved in one run (stopwatch.side_by_side)."""
    source = inspect.getsource(stopwatch.time_launches)
    markdown(f"```python\n{source}```")
    code = verdict.side(
        medida.get("ic_bajo", float("nan")), medida.get("ic_alto", float("nan")), medida["repeticiones"]
    )
    markdown(
        f"Con {medida['repeticiones']} lanzamientos de cada uno, intercalados: este bucle midió "
        f"**{fmt(medida['bucle_ms'], 3)} ms** (mediana) y el cronómetro que usa el panel "
        f"**{fmt(medida['curso_ms'], 3)} ms**; proporción lanzamiento a lanzamiento "
        f"{fmt_ratio(medida['proporcion'], medida.get('ic_bajo'), medida.get('ic_alto'))}: "
        + STOPWATCH_WORDS.get(code, direction_words(code, n=medida["repeticiones"]))
        + "."
    )


# What the stopwatch's reading means for the lesson («the two clocks give the same figure»)
STOPWATCH_WORDS = {
    verdict.LEVEL: "la misma cifra (el IC 95 % cae dentro de «casi igual»), con el ruido de una máquina compartida",
    verdict.ABOVE: "este bucle mide más que el cronómetro del curso; vuelve a ejecutar la celda y mira si se repite",
    verdict.BELOW: "este bucle mide menos que el cronómetro del curso; vuelve a ejecutar la celda y mira si se repite",
}
