"""Experiment 3's words: the Spanish names of workloads, places and baselines, the one format of its
figures, and every sentence the notebook generates from a run (what the run says, where hash and sort
come from, what agrees with the chapter). helpers.view.ejecucion shows them."""

from __future__ import annotations

import math

import pandas as pd

from ..engines import CONTAINER_ENGINES
from ..experiments import ejecucion as exp
from ..experiments import figures as fg
from ..experiments import verdict as vd
from ..experiments.ejecucion.analysis import exec_costs, layer_vs_volume, overheads
from ..experiments.ejecucion.arms import LAYER_BASE, METRIC_WORK, PLACE_NAMES, WORKLOAD_NAMES
from ..experiments.runner import Resultado
from .common import (
    ENGINE_LABEL,
    fmt_margin,
    fmt_pct,
    fmt_value_interval,
    overhead_words,
)

ENTORNO = {
    "bare": "bare metal (binarios del host)",
    "chroot": "bare metal (chroot, binarios de la imagen)",
    "docker": "Docker",
    "podman": "Podman",
}
ENTORNO_CORTO = {"bare": "bare metal", "chroot": "chroot", "docker": "Docker", "podman": "Podman"}
CARGA = WORKLOAD_NAMES
LUGAR = PLACE_NAMES
LUGAR_CORTO = {
    "capa": "capa overlay",
    "volumen": "volumen",
    "host": "junto a los volúmenes",
    **{f"{LAYER_BASE}-{e}": f"junto a la capa de {ENGINE_LABEL[e]}" for e in CONTAINER_ENGINES},
}
METRICA = {exp.METRIC_E2E: "extremo a extremo", METRIC_WORK: "trabajo solo"}
BASE = {
    "bare": "binarios del host",
    "chroot": "chroot (misma imagen)",
    "host": "bare metal, mismo sistema de archivos que el volumen",
    LAYER_BASE: "bare metal, mismo sistema de archivos que la capa",
}


def nombre_carga(carga: str, lugar: str = "") -> str:
    return CARGA.get(carga, carga) + (f" — {LUGAR.get(lugar, lugar)}" if lugar else "")


def nombre_entorno(entorno: str, lugar: str = "") -> str:
    return ENTORNO_CORTO.get(entorno, entorno) + (f" ({LUGAR_CORTO[lugar]})" if lugar else "")


def pct(value: float, low: float, high: float) -> str:
    """An overhead with its interval: «+7.6 % [+1.0, +12.0]» (view.common's number format)."""
    return fmt_value_interval(value, low, high, "%")


def ms(value: float, low: float, high: float) -> str:
    return fmt_value_interval(value, low, high, "ms")


def shown(o: pd.DataFrame) -> pd.DataFrame:
    """The overheads worth reading: each workload in a container against its fairest baseline (the same
    image under chroot when it was measured; I/O against bare metal on the arm's own filesystem), and
    the chroot against the host's binaries (the userland alone)."""
    return o[o["justa"].astype(bool) | (o["entorno"] == "chroot")]


def stability(r) -> str:
    """Which arm is unstable on its own, in words («—» when neither)."""
    shaky = [
        w for w, flag in (("el entorno", r["inestable_entorno"]), ("la base", r["inestable_base"])) if flag
    ]
    return "inestable: " + " y ".join(shaky) if shaky else "—"


# ---------------------------------------------------------------- sentences
def frase_explicacion(ex: pd.DataFrame) -> str:
    """Why hash and sort come out as they do, from the data: the chapter's figure next to the work alone
    against the host's binaries and against the same image, and what exec added."""
    parts = []
    for _, r in ex.iterrows():
        figures = [
            f"como el capítulo {pct(*r['capitulo'])}" if not math.isnan(r["capitulo"][0]) else "",
            f"el trabajo solo frente a los binarios del host {pct(*r['trabajo_host'])}"
            if not math.isnan(r["trabajo_host"][0])
            else "",
            f"frente a la misma imagen (chroot) {pct(*r['trabajo_chroot'])}"
            if not math.isnan(r["trabajo_chroot"][0])
            else "",
            f"y `exec` añadió {ms(*r['exec_ms'])}" if not math.isnan(r["exec_ms"][0]) else "",
        ]
        parts.append(
            f"{CARGA[r['carga']]} en {ENGINE_LABEL[r['entorno']]}: " + ", ".join(f for f in figures if f)
        )
    if not parts:
        return ""
    return (
        "**De dónde sale cada cifra de hash y sort** (explicación, no veredicto): " + "; ".join(parts) + "."
    )


def frase_corrida(resultado: Resultado) -> str:
    """LAUNCH (what exec cost) and RUNNING (where the container shows, among stable overheads against
    the fairest baseline that point one way, verdict.direction; what was unstable, and which arm), from the data."""
    parts = []
    costs = exec_costs(resultado.df)
    execs = (
        costs[(costs["medida"] == exp.EXEC_TRUE) & costs["entorno"].isin(CONTAINER_ENGINES)]
        if len(costs)
        else costs
    )
    if not execs.empty:
        parts.append(
            "LAUNCH: lanzar un proceso con `exec` costó "
            + " y ".join(
                f"{ms(r['mediana_ms'], r['ic_bajo_ms'], r['ic_alto_ms'])} en {ENGINE_LABEL[r['entorno']]}"
                for _, r in execs.iterrows()
            )
            + " desde el host: se paga cada vez que se entra, no mientras se trabaja."
        )
    fair = shown(overheads(resultado.df, METRIC_WORK))
    fair = fair[fair["justa"].astype(bool) & fair["entorno"].isin(CONTAINER_ENGINES)]
    real = fair[fair["direccion"].isin([vd.ABOVE, vd.BELOW])]
    if fair.empty:
        pass
    elif real.empty:
        parts.append(
            "RUNNING: con estas repeticiones, ninguna carga se distingue dentro de un contenedor de su "
            "línea base: ningún IC 95 % de la sobrecarga cae entero fuera del margen de «casi igual» "
            f"({fmt_margin(vd.level_region(0), '%')}), o no hay IC."
        )
    else:
        top = real.loc[real["sobrecarga_pct"].abs().idxmax()]
        parts.append(
            f"RUNNING: donde más se nota el contenedor en esta corrida es en {nombre_carga(top['carga'], top['lugar'])} "
            f"con {ENGINE_LABEL[top['entorno']]}: "
            f"{pct(top['sobrecarga_pct'], top['ic_bajo_pct'], top['ic_alto_pct'])} frente a {BASE[top['base']]}."
        )
        rest = sorted(
            {
                f"{nombre_carga(c, lugar)} ({ENGINE_LABEL[e]}, {pct(v, lo, hi)})"
                for c, lugar, e, v, lo, hi in zip(
                    real["carga"],
                    real["lugar"],
                    real["entorno"],
                    real["sobrecarga_pct"],
                    real["ic_bajo_pct"],
                    real["ic_alto_pct"],
                )
            }
            - {
                f"{nombre_carga(top['carga'], top['lugar'])} ({ENGINE_LABEL[top['entorno']]}, {pct(top['sobrecarga_pct'], top['ic_bajo_pct'], top['ic_alto_pct'])})"
            }
        )
        if rest:
            parts.append(f"También se distingue en: {'; '.join(rest)}.")
    shaky = fair[fair["inestable"].astype(bool)]
    if not shaky.empty:
        names = sorted(
            {
                f"{nombre_carga(c, lugar)} ({ENGINE_LABEL[e]})"
                for c, lugar, e in zip(shaky["carga"], shaky["lugar"], shaky["entorno"])
            }
        )
        parts.append(
            "Quedan fuera por inestables (su línea base o la cifra ronda a ronda varió demasiado; repite): "
            f"{', '.join(names)}."
        )
    arms = fair[fair["inestable_entorno"] & ~fair["inestable"].astype(bool)]
    if not arms.empty:
        names = sorted(
            {
                f"{nombre_carga(c, lugar)} ({ENGINE_LABEL[e]}: {stability(r).removeprefix('inestable: ')})"
                for (_, r), c, lugar, e in zip(arms.iterrows(), arms["carga"], arms["lugar"], arms["entorno"])
            }
        )
        parts.append(
            "Un brazo varió mucho por sí solo, pero la cifra ronda a ronda es estable (la variación la "
            f"compartían los dos brazos de cada ronda): {', '.join(names)}."
        )
    parts.append(frase_capa_volumen(layer_vs_volume(resultado.df)))
    return " ".join(p for p in parts if p) or "_Esta corrida no tiene cifras con las que decir algo._"


def frase_capa_volumen(lv: pd.DataFrame) -> str:
    """What the layer itself costs: each I/O workload in the layer against the same container's volume,
    round by round, with the reading of its interval (a description, not a verdict)."""
    if lv.empty:
        return ""
    items = [
        f"{CARGA[r['carga']]} en {ENGINE_LABEL[r['entorno']]}, "
        f"{pct(r['sobrecarga_pct'], r['ic_bajo_pct'], r['ic_alto_pct'])} ({overhead_words(r['direccion'], r['n'])})"
        for _, r in lv.iterrows()
    ]
    return (
        "¿Cuesta la capa, o el contenedor? La capa frente al volumen del mismo contenedor, ronda a ronda "
        "(trabajo solo): " + "; ".join(items) + "."
    )


def frase_comparacion(cmp: pd.DataFrame) -> str:
    """One Spanish sentence: where this run's overhead (measured the chapter's way) agrees with the
    chapter's, where it does not, and where the interval cannot tell."""
    groups: dict[str, list[str]] = {}
    for _, r in cmp[cmp["entorno"] != "bare"].iterrows():
        if r["acuerdo"] == vd.SIN_DATOS:
            continue
        name = (
            f"{CARGA[r['carga']]} en {ENTORNO_CORTO[r['entorno']]} "
            f"({pct(r['tu_sobrecarga_e2e_pct'], *r['tu_sobrecarga_e2e_ic'])} "
            f"frente a {fmt_pct(r['ref_sobrecarga_pct'], 1)})"
        )
        groups.setdefault(r["acuerdo"], []).append(name)
    words = {
        fg.COINCIDE: "coincide con el capítulo en",
        fg.NO_COINCIDE: "no coincide en",
        vd.NO_CONCLUYENTE: "no se puede decir todavía (IC demasiado ancho) en",
    }
    parts = [f"{words[k]} {'; '.join(v)}" for k, v in groups.items() if k in words]
    if not parts:
        return "No hay filas comparables con el capítulo original en esta corrida."
    return (
        "Medida como la midió el capítulo (exec extremo a extremo frente a los binarios del host), la "
        "sobrecarga de esta máquina " + "; ".join(parts) + ". Los tiempos absolutos no se comparan: son de "
        "otra máquina."
    )
