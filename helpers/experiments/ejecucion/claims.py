"""The chapter's claims about RUNNING, declared once and judged by the one rule (verdict builders).

Overheads are in % of the bare-metal median (container / bare metal − 1), the direction of the tables,
measured on the work alone (`cronometro`, inside the environment): `exec` is outside it. CPU workloads
are judged against the image's own binaries (chroot) when the run measured them, else against the
host's; writes against bare metal writing to the host's disk. The `hash` claim is judged a second time
the way the chapter measured it (exec end to end against the host's binaries), so the student sees
what that method mixes in.
"""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from ..verdict import Claim, Said, difference, median
from .analysis import samples, tidy
from .arms import BASE_NAMES, EXEC_TRUE, METRIC_E2E, METRIC_WORK, PLACE_NAMES

SOURCE = "el capítulo original"
WHERE = "experimento 3"

# «Latencia típica [de exec]: < 1 ms (solo la syscall exec)»
EXEC_1MS = Said(
    "exec_1ms",
    "Entrar con exec cuesta menos de 1 ms (solo la syscall exec)",
    SOURCE,
    where=WHERE,
    claimed=1.0,
    region=(0.0, 1.0),
    unit="ms",
    note="Aquí se cronometra desde el host `exec CONTENEDOR true` de principio a fin: el cliente, el "
    "motor y el runtime crean un proceso dentro del contenedor, como cuando lo escribes tú.",
)
# «para hash, el overhead del contenedor es ~0% — las diferencias son ruido del sistema»
HASH_0 = Said(
    "hash_0",
    "Para hash, la sobrecarga del contenedor es ~0 %",
    SOURCE,
    where=WHERE,
    claimed=0.0,
    region=(-5.0, 5.0),
    unit="%",
)
# The same claim measured as the chapter did: exec end to end, against the host's binaries.
HASH_0_AS_CHAPTER = HASH_0.but(
    key="hash_0_como_capitulo",
    note="Medida como la midió el capítulo: el tiempo incluye entrar con `exec`, y compara los binarios "
    "de la imagen con los del host. La afirmación de arriba usa el trabajo solo frente a la misma imagen.",
)
# «Sort: overhead real pero pequeño (+6-8%)»
SORT_6_8 = Said(
    "sort_6_8",
    "Para sort, la sobrecarga es real pero pequeña (+6-8 %)",
    SOURCE,
    where=WHERE,
    claimed=7.0,
    region=(2.0, 12.0),
    unit="%",
)
# «El overlay filesystem tiene overhead real (~20% más lento que bare metal para escrituras)»
OVERLAY_20 = Said(
    "overlay_20",
    "Escribir en la capa overlay es ~20 % más lento que en el host",
    SOURCE,
    where=WHERE,
    claimed=20.0,
    region=(10.0, 30.0),
    unit="%",
)
# «Los volúmenes bypasean el overlay [...] recuperando rendimiento nativo»
VOLUME_NATIVE = Said(
    "volumen_nativo",
    "Un volumen recupera el rendimiento nativo de escritura",
    SOURCE,
    where=WHERE,
    claimed=0.0,
    region=(-5.0, 5.0),
    unit="%",
)
CPU_CLAIMS = {"hash": HASH_0, "sort": SORT_6_8}
WRITE_CLAIMS = {"capa": OVERLAY_20, "volumen": VOLUME_NATIVE}


def _for(said: Said, engine: str, quantity: str, how: str = "") -> Said:
    return said.but(statement=f"{said.statement} ({eng.DISPLAY[engine]}{how})", quantity=quantity)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The chapter's claims about RUNNING, per engine: the cost of exec, hash and sort, then writes."""
    data = tidy(df)
    out: list[Claim] = []
    for engine in eng.CONTAINER_ENGINES:
        said = _for(EXEC_1MS, engine, f"`{engine} exec CONTENEDOR true`")
        ms = samples(data, METRIC_E2E, EXEC_TRUE, engine) * 1e3
        out.append(median(said, ms, detail={"engine": engine}))
    for engine in eng.CONTAINER_ENGINES:
        for carga, declared in CPU_CLAIMS.items():
            base = "chroot" if samples(data, METRIC_WORK, carga, "chroot").size else "bare"
            said = _for(
                declared,
                engine,
                f"sobrecarga del trabajo solo en {eng.DISPLAY[engine]} frente a {BASE_NAMES[base]}",
            )
            work = samples(data, METRIC_WORK, carga, engine)
            detail = {"engine": engine, "base": base}
            out.append(
                difference(said, work, samples(data, METRIC_WORK, carga, base), percent=True, detail=detail)
            )
            if carga == "hash":
                said = _for(
                    HASH_0_AS_CHAPTER,
                    engine,
                    f"sobrecarga de `exec` + trabajo en {eng.DISPLAY[engine]} frente a {BASE_NAMES['bare']}",
                    "; medida como el capítulo",
                )
                e2e, host = samples(data, METRIC_E2E, carga, engine), samples(data, METRIC_E2E, carga, "bare")
                detail = {"engine": engine, "base": "bare"}
                out.append(difference(said, e2e, host, percent=True, detail=detail))
    for engine in eng.CONTAINER_ENGINES:
        host = samples(data, METRIC_WORK, "escritura", "bare", "host")
        for place, declared in WRITE_CLAIMS.items():
            said = _for(
                declared,
                engine,
                f"sobrecarga de la escritura en {PLACE_NAMES[place]} de {eng.DISPLAY[engine]} frente a "
                f"{BASE_NAMES['host']}",
            )
            written = samples(data, METRIC_WORK, "escritura", engine, place)
            detail = {"engine": engine, "base": "host"}
            out.append(difference(said, written, host, percent=True, detail=detail))
    return out
