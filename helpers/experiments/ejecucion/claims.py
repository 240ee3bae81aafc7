"""The claims about RUNNING that notebook 03 judges, declared once and judged on its figure by the one rule
(figures.judge_all), each with its source and where in it.

- `exec`, in its two readings of «< 1 ms (solo la syscall exec)»: what a user waits for (`exec
  CONTENEDOR true` timed from the host: `exec_1ms`) and one new process timed inside the container
  (`exec_1ms_dentro`, the parenthesis). `exec` launches a process into a running container: both are
  LAUNCH figures; the work that process then does is RUNNING.
- hash ~0 % and sort +6-8 % as the chapter measured them: `exec` end to end in the container against
  the host's binaries on bare metal. The work alone against the same image (chroot) is the
  explanation (analysis.explanation), not a second verdict.
- Writes: the overlay layer ~20 % slower than bare metal, and a volume back to native speed.
- Small files (`archivos_pequenos`): where notebook 03 decides, for the course, whether creating,
  listing and deleting many small files costs more in the container's layer than on bare metal (09
  cites this key); and the volume for the same work.

- Copy-up (`copia_capa`): modifying a file that comes from the image costs more in the layer.
- The chapter's bottom line (`dos_horas_10_min`, «2 h de trabajo → < 10 min»): 2 h × the overhead of
  the work alone against its fairest baseline, for hash and sort (the work the chapter drew it from),
  per engine; 09 reads it by key to recompute the chapter's closing line.

Overheads are % of the baseline's median (paired by round: the median of the per-round figures).
Every I/O claim is judged against bare metal writing on the same filesystem as the arm (analysis.io_base:
the layer against bare metal in the engine's storage, the volume against bare metal beside it); a run
without that baseline gives «no comparable», with the reason. No claim is decided against a baseline
that is unstable on its own (analysis.shaky_against): the one rule says «inestable», and the page
«repite», without the figure.
"""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from ... import stats
from ..figures import MEDIAN, Custom, Median, Sel, judge_all
from ..verdict import Claim, Said, judge, missing, not_comparable, ref
from .analysis import fair_base, io_base, samples, shaky_against, tidy
from .arms import (
    BASE_NAMES,
    CPU_WORKLOADS,
    EXEC_INSIDE,
    EXEC_TRUE,
    METRIC_E2E,
    METRIC_WORK,
    PLACE_NAMES,
)

SOURCE = "el capítulo original"
COURSE = "este curso"
WHERE_HASH = "experimento 3, «Análisis», «Hash: ¿los contenedores son más rápidos…?», y «Tabla resumen»"
WHERE_SORT = "experimento 3, «Análisis», «Sort: overhead real pero pequeño», y tabla «Medianas y overhead»"
WHERE_EXEC = "experimento 3, tabla «LAUNCH vs RUNNING — la prueba final», columna «Docker exec (Exp 3)»"
WHERE_BOTTOM = "experimento 3, bajo la tabla «LAUNCH vs RUNNING — la prueba final»"
WHERE_IO = "«Nota sobre I/O y contenedores anidados», «Disk I/O»"
WHERE_COURSE = (
    "cuaderno 03: el capítulo no midió archivos pequeños; su ejercicio 4 del experimento 3 pide una carga "
    "con muchas llamadas al sistema de archivos"
)

# «Latencia típica: ~428 ms | < 1 ms (solo la syscall exec)»
EXEC_1MS = Said(
    "exec_1ms",
    "`docker exec` tarda menos de 1 ms (solo la syscall exec)",
    SOURCE,
    where=WHERE_EXEC,
    claimed=1.0,
    kind="at_most",
    unit="ms",
    note="Lo que espera quien lo escribe: `exec CONTENEDOR true` cronometrado desde el host (cliente, "
    "motor y runtime crean un proceso dentro del contenedor). Es un costo de LAUNCH.",
)
PODMAN_EXEC = " El capítulo lo dijo de `docker exec`; Podman es la variante del curso."
EXEC_1MS_INSIDE = EXEC_1MS.but(
    key="exec_1ms_dentro",
    note="El paréntesis: un proceso nuevo (fork + exec + espera de `true`) cronometrado dentro del "
    "contenedor por `cronometro`, sin el cliente ni el motor. También es LAUNCH: lanza un proceso. El "
    "mismo proceso nuevo en bare metal está en la tabla de `exec`, para comparar.",
)
_HASH_NOTE = (
    "En el capítulo los contenedores salieron más rápidos (Docker −24.6 %, Podman −17.9 %); el capítulo "
    "lo atribuyó al camino de lectura de `/dev/urandom` y lo llamó ruido."
)
# «para hash, el overhead del contenedor es ~0% — las diferencias son ruido del sistema»
HASH_0 = Said(
    "hash_0",
    "Para hash, la sobrecarga del contenedor es ~0 %",
    SOURCE,
    claimed=0.0,
    kind="no_difference",
    unit="%",
    where=WHERE_HASH,
    note=_HASH_NOTE,
)
# «Sort: overhead real pero pequeño (+6-8%)»: Docker +7.6 %, Podman +6.2 % in its table
SORT_6_8 = {
    engine: Said(
        "sort_6_8",
        "Para sort, la sobrecarga es real pero pequeña (+6-8 %)",
        SOURCE,
        where=WHERE_SORT,
        claimed=claimed,
        kind="range",
        bounds=(6.0, 8.0),
        unit="%",
        ref=ref(
            source="seed000",
            engine=engine,
            variant="sort",
            metric=METRIC_E2E,
            over={"engine": "bare"},
            percent=True,
            experiment="ejecucion",
            rtol=0.02,
        ),
    )
    for engine, claimed in (("docker", 7.6), ("podman", 6.2))
}
# «El overlay filesystem tiene overhead real (~20% más lento que bare metal para escrituras)»
OVERLAY_20 = Said(
    "overlay_20",
    "Escribir en la capa overlay es ~20 % más lento que en bare metal",
    SOURCE,
    where=WHERE_IO,
    claimed=20.0,
    kind="percent_about",
    unit="%",
)
# «Los volúmenes bypasean el overlay [...] recuperando rendimiento nativo»
VOLUME_NATIVE = Said(
    "volumen_nativo",
    "Un volumen recupera el rendimiento nativo de escritura",
    SOURCE,
    where=WHERE_IO,
    claimed=0.0,
    kind="no_difference",
    unit="%",
)
VOLUME_NATIVE_FILES = VOLUME_NATIVE.but(
    key="volumen_nativo_archivos",
    statement="Un volumen recupera el rendimiento nativo con muchos archivos pequeños",
    note="El capítulo recomienda volúmenes para «operaciones intensivas de I/O»; aquí, con la carga de "
    "archivos pequeños.",
)
SMALL_FILES = Said(
    "archivos_pequenos",
    "Crear, listar y borrar muchos archivos pequeños en la capa del contenedor cuesta más que en bare "
    "metal sobre el mismo sistema de archivos",
    COURSE,
    where=WHERE_COURSE,
    kind="adds",
    unit="%",
)
COPY_UP = Said(
    "copia_capa",
    "Modificar un archivo que viene de la imagen cuesta más en la capa del contenedor: overlay lo copia "
    "entero antes de cambiarlo, el copy-up",
    COURSE,
    where="cuaderno 03: la razón de los volúmenes que recomienda el capítulo, medida",
    kind="adds",
    unit="%",
)
# «Si tu tarea tarda 2 horas en ejecutar, el overhead del contenedor es menos de 10 minutos»
WORK_MINUTES, LIMIT_MINUTES = 120, 10
TWO_HOURS = Said(
    "dos_horas_10_min",
    "Si tu tarea tarda 2 horas, la sobrecarga del contenedor es de menos de 10 minutos",
    SOURCE,
    where=WHERE_BOTTOM,
    claimed=float(LIMIT_MINUTES),
    kind="at_most",
    unit="min",
    note="El capítulo lo deduce de su +0-8 % en hash y sort (el 8 % de 2 h son 9.6 min). Aquí: 2 h × la "
    "sobrecarga del trabajo solo frente a su línea base más justa; el `exec` se paga una vez y no cuenta.",
)
SAID = (EXEC_1MS, EXEC_1MS_INSIDE, HASH_0, *SORT_6_8.values(), OVERLAY_20, VOLUME_NATIVE)
SAID += (VOLUME_NATIVE_FILES, SMALL_FILES, COPY_UP, TWO_HOURS)
CHAPTER_FORM = "`exec` extremo a extremo en {engine} frente a los binarios del host (como el capítulo)"


def _for(said: Said, engine: str, quantity: str, reading: str = "") -> Said:
    how = f"; {reading}" if reading else ""
    return said.but(statement=f"{said.statement} ({eng.DISPLAY[engine]}{how})", quantity=quantity)


def _arm(metric: str, carga: str, entorno, lugar="", scale: float = 1.0) -> Sel:
    return Sel(metric=metric, carga=carga, entorno=entorno, lugar=lugar, scale=scale)


def _pick(df: pd.DataFrame, meta: dict | None, sel: Sel) -> pd.Series:
    where = dict(sel.where)
    scale = where.pop("scale")
    values = samples(df, **where)
    return values * scale if scale != 1 else values


def _exec(engine: str) -> tuple[Said, ...]:
    name, variant, detail = eng.DISPLAY[engine], PODMAN_EXEC if engine != "docker" else "", {"engine": engine}
    host = f"`{engine} exec CONTENEDOR true` cronometrado desde el host"
    inside = f"un proceso nuevo dentro del contenedor de {name}"
    return (
        _for(EXEC_1MS.but(note=EXEC_1MS.note + variant), engine, host, "lo que se espera").but(
            figure=Median(_arm(METRIC_E2E, EXEC_TRUE, engine, scale=1e3), detail=detail)
        ),
        _for(EXEC_1MS_INSIDE.but(note=EXEC_1MS_INSIDE.note + variant), engine, inside, "el exec, dentro").but(
            figure=Median(
                _arm(METRIC_WORK, EXEC_INSIDE, engine, scale=1e3), detail={**detail, "dentro": True}
            )
        ),
    )


def overhead_claim(said: Said, values: pd.Series, base_values: pd.Series, detail: dict) -> Claim:
    """(values / baseline − 1) × 100, paired by round, judged by the one rule; «inestable» (no figure:
    `sin_cifra` in detail, the page says «repite») when the baseline is unstable on its own or the
    per-round ratio is (analysis.shaky_against)."""
    if not values.size or not base_values.size:
        return missing(said, detail)
    est = stats.difference_ci(values, base_values, percent=True)
    detail = dict(detail)
    if est.paired:
        detail["rondas"] = True
    detail["statistic"] = MEDIAN
    if stats.unstable(base_values):
        detail["sin_cifra"] = True  # the baseline is not one: no figure against it
    return judge(said, est, unstable=shaky_against(values, base_values), detail=detail)


def _chapter_form(engine: str) -> tuple[Said, ...]:
    """Hash and sort as the chapter measured them: `exec` end to end against the host's binaries."""

    def judged(said, df, meta, carga):
        detail = {"engine": engine, "base": "bare", "carga": carga}
        return overhead_claim(
            said, samples(df, METRIC_E2E, carga, engine), samples(df, METRIC_E2E, carga, "bare"), detail
        )

    return tuple(
        _for(said, engine, "sobrecarga de " + CHAPTER_FORM.format(engine=eng.DISPLAY[engine])).but(
            figure=Custom(lambda said, df, meta, c=carga: judged(said, df, meta, c))
        )
        for carga, said in (("hash", HASH_0), ("sort", SORT_6_8[engine]))
    )


NO_LAYER_BASE = (
    "Esta corrida no midió bare metal en el sistema de archivos de la capa (ni dejó escrito en meta.json "
    "dónde escribió cada brazo): sin una línea base en el mismo sistema de archivos, la capa no se compara."
)


def place_claim(
    said: Said, df: pd.DataFrame, meta: dict | None, engine: str, carga: str, place: str
) -> Claim:
    """An I/O workload in one place of a container against bare metal on the same filesystem
    (analysis.io_base), paired by round; «no comparable» with the reason when the run has no such
    baseline (meta.json `lineas_base` says why; a run from before it was measured, NO_LAYER_BASE)."""
    base, base_env, base_place = io_base(carga, engine, place)
    detail = {"engine": engine, "base": base, "carga": carga, "lugar": place}
    values = samples(df, METRIC_WORK, carga, engine, place)
    base_values = samples(df, METRIC_WORK, carga, base_env, base_place)
    if values.size and not base_values.size:
        why = ((meta or {}).get("lineas_base") or {}).get(f"{engine}:{place}") or {}
        reason = (
            f"Sin línea base en el mismo sistema de archivos: {why['motivo']}"
            if why.get("motivo")
            else NO_LAYER_BASE
        )
        return not_comparable(said, reason, detail)
    return overhead_claim(said, values, base_values, detail)


def _overhead(said: Said, engine: str, carga: str, place: str) -> Said:
    """A workload's overhead in one place of a container against bare metal on its filesystem."""
    base = BASE_NAMES[io_base(carga, engine, place)[0]]
    quantity = f"sobrecarga del trabajo solo en {PLACE_NAMES[place]} de {eng.DISPLAY[engine]} frente a {base}"
    return _for(said, engine, quantity).but(
        figure=Custom(lambda s, df, meta: place_claim(s, df, meta, engine, carga, place))
    )


PLACES_JUDGED = (
    (OVERLAY_20, "escritura", "capa"),
    (VOLUME_NATIVE, "escritura", "volumen"),
    (SMALL_FILES, "archivos", "capa"),
    (VOLUME_NATIVE_FILES, "archivos", "volumen"),
    (COPY_UP, "copia", "capa"),
)
ENGINES = eng.CONTAINER_ENGINES
JUDGED = (
    *(said for engine in ENGINES for said in _exec(engine)),
    *(said for engine in ENGINES for said in _chapter_form(engine)),
    *(_overhead(said, engine, carga, place) for engine in ENGINES for said, carga, place in PLACES_JUDGED),
    *(
        TWO_HOURS.but(figure=Custom(lambda said, df, meta, e=engine, c=carga: two_hours(df, e, c)))
        for engine in ENGINES
        for carga in CPU_WORKLOADS
    ),
)


def two_hours(data: pd.DataFrame, engine: str, carga: str) -> Claim:
    """The chapter's bottom line for one workload: WORK_MINUTES × the overhead of the work alone against
    its fairest baseline (paired by round), in minutes, judged against «menos de 10 minutos»."""
    base, base_env, base_place = fair_base(data, carga)
    said = _for(
        TWO_HOURS,
        engine,
        f"minutos de más en 2 h de {carga} en {eng.DISPLAY[engine]}: el trabajo solo, frente a "
        f"{BASE_NAMES[base]}",
        carga,
    )
    values = samples(data, METRIC_WORK, carga, engine)
    base_values = samples(data, METRIC_WORK, carga, base_env, base_place)
    detail = {"engine": engine, "carga": carga, "base": base}
    if not values.size or not base_values.size:
        return missing(said, detail)
    minutes = stats.difference_ci(values, base_values, percent=True).scaled(WORK_MINUTES / 100)
    if minutes.paired:
        detail["rondas"] = True
    if stats.unstable(base_values):
        detail["sin_cifra"] = True
    return judge(said, minutes, unstable=shaky_against(values, base_values), detail=detail)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The claims about RUNNING, per engine: exec (both readings), hash and sort as the chapter
    measured them, writes, small files, copy-up, and the chapter's bottom line (2 h → < 10 min) for
    hash and sort, the work it drew it from."""
    return judge_all(JUDGED, tidy(df), meta, pick=_pick)
