"""Experiment 2's words: how a run launched, and every sentence generated from a verdict or a figure of
the run (the bill, `stats` against the cgroups, `free`'s noise, the chapter's table, the whole bill's
crossing, whether 02's batches and 01 point the same way). helpers.view.escala shows them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..experiments import verdict
from ..experiments.escala.analysis import crossover, crossover_interval
from .common import AGREEMENT_MARGIN, engine_label, fmt, fmt_ratio, num, significant, too_few

MB = 1024  # KiB per MiB
NETWORK_WORDS = {
    "por_defecto": "con la red por defecto, como el script del capítulo",
    "sin_red": "sin red (`--network none`, variante del curso)",
}


def launch_options(meta: dict | None) -> str:
    """How this run launched, said in its tables (01 launches in the foreground: other conditions)."""
    meta = meta or {}
    network = meta.get("launch_network", "sin_red")  # runs from before the option launched without
    concurrency = int((meta.get("parameters") or {}).get("concurrencia", 1) or 1)
    order = "uno tras otro" if concurrency <= 1 else f"{concurrency} a la vez"
    return (
        f"`run -d IMAGEN sleep 3600` en segundo plano (el cliente vuelve en cuanto el contenedor arranca), "
        f"{order}, {NETWORK_WORDS.get(network, network)}"
    )


def _mb(kb: float, digits: int = 1) -> str:
    return fmt(kb / MB, digits, "MiB")


def _mb2(kb: float) -> str:
    """MiB of a figure without an interval: 2 significant digits («13 MiB», «0.57 MiB»)."""
    return fmt(kb / MB, significant(kb / MB, 2), "MiB")


def _s2(seconds: float) -> str:
    """Seconds of one timing, without an interval: 2 significant digits («2.5 s», «0.007 s»)."""
    return fmt(seconds, significant(seconds, 2), "s")


def crossing(value: float, low: float, high: float) -> str:
    """Where the two fitted bills cross, with its IC 95 %, in words: «se cruzan en N ≈ 76, IC 95 % [60,
    98]», «no se cruzan, ni en ninguno de los remuestreos del IC 95 %»."""
    if math.isinf(value) and math.isinf(low):
        return "no se cruzan, ni en ninguno de los remuestreos del IC 95 %"
    if math.isnan(low) or math.isnan(high):
        where = "no se cruzan" if math.isinf(value) else f"se cruzan en N ≈ {num(value, 0)}"
        return where + " (sin IC 95 %)"
    interval = f"[{num(low, 0)}, {'nunca' if math.isinf(high) else num(high, 0)}]"
    if math.isinf(value):
        return f"no se cruzan (IC 95 % {interval})"
    return f"se cruzan en N ≈ {num(value, 0)}, IC 95 % {interval}"


def crossover_lines(df: pd.DataFrame) -> list[str]:
    """The course's correction to the chapter's crossover: the whole bill (dockerd, containerd, a shim
    per Docker container, the cgroups) with RSS and with PSS, each crossing with its IC 95 %."""
    lines = [
        "**La corrección del curso: la factura completa.** La cuenta del capítulo (abajo, con su veredicto) "
        "pone dockerd frente a los conmon. A Docker le faltan containerd y un shim por contenedor, y a los "
        "dos motores la memoria de los cgroups:"
    ]
    for basis in ("rss", "pss"):
        c = crossover(df, basis)
        fit = c["fit"]
        if not {"docker", "podman"} <= set(fit):
            continue
        value, low, high = crossover_interval(df, basis)
        d, p = fit["docker"], fit["podman"]
        lines.append(
            f"- Con {basis.upper()}: Docker cuesta {_mb(d['fijo_kb'], 0)} fijos más {_mb(d['por_contenedor_kb'], 2)} "
            f"por contenedor (shim + cgroup); Podman, {_mb(p['fijo_kb'], 0)} fijos más "
            f"{_mb(p['por_contenedor_kb'], 2)} por contenedor (conmon + cgroup): {crossing(value, low, high)}."
        )
    return lines if len(lines) > 1 else []


# A Podman/Docker ratio below / above 1 (verdict.side: also an IC on one side of 1 that touches «casi igual»)
FASTER = {
    verdict.BELOW: "podman",
    verdict.ABOVE: "docker",
    verdict.BELOW_NULL: "podman",
    verdict.ABOVE_NULL: "docker",
}


def same_way(claim, value: float, low: float, high: float, n: int) -> str:
    """Do 01's answer and this notebook's batches (Podman/Docker, n rounds) point the same way? Each
    side read by the one rule (verdict.side)."""
    here = verdict.side(low, high, n)
    there = verdict.side(claim.low, claim.high, claim.n) if claim is not None else verdict.SIN_DATOS
    if here == verdict.SIN_DATOS:
        return (
            f"Estas tandas no tienen IC 95 % ({too_few(n) or 'sin intervalo'}): no se puede decir si apuntan "
            "al mismo lado que 01."
        )
    if here not in FASTER or there not in FASTER:
        return "Con estos intervalos no se puede decir si las dos condiciones apuntan al mismo lado."
    if here == there:
        return f"Las dos condiciones apuntan al mismo lado: arranca antes {engine_label(FASTER[here])}."
    return (
        f"Las condiciones cambian el resultado: en 01 arranca antes {engine_label(FASTER[there])} y en estas "
        f"tandas {engine_label(FASTER[here])}. La respuesta del curso sigue siendo la de 01; la diferencia está en "
        "cómo se lanza (en segundo plano o esperando a que termine, y la red)."
    )


def frase_factura(bill: pd.DataFrame, basis: str) -> str:
    """What each per-container helper costs at the largest N, from the bill."""
    bill = bill[bill["n"] > 0]
    parts = []
    for engine_name, g in bill.groupby("engine"):
        top = g[g["n"] == g["n"].max()].iloc[0]
        if not np.isnan(top["ayudantes_kb"]):
            helper = "shim" if engine_name == "docker" else "conmon"
            parts.append(
                f"en {engine_label(engine_name)}, cada {helper} {_mb2(top['ayudantes_kb'] / top['n'])} y cada "
                f"cgroup {_mb2(top['cgroup_kb'] / top['n'])}"
            )
    if not parts:
        return ""
    return f"Con {basis.upper()}, a la N más grande: " + "; ".join(parts) + "."


def frase_stats(s: pd.DataFrame) -> str:
    """How long `stats` took against finding and reading the same cgroups, from the table's medians: one
    timing each, no interval, so the ratio is given and no direction is read from it."""
    parts = []
    for _, r in s.iterrows():
        ratio = r["veces_mas_lento"]
        if np.isnan(ratio):
            continue
        parts.append(
            f"con {int(r['n'])} contenedores, «{r['engine']} stats --no-stream» tardó "
            f"{_s2(r['tiempo_stats_cli'])}, {fmt_ratio(ratio)} lo que buscar y leer sus "
            f"cgroups ({_s2(r['tiempo_inspect_y_lectura'])})"
        )
    if not parts:
        return "Esta corrida no cronometró inspect junto a la lectura de los cgroups."
    return "En esta corrida, " + "; ".join(parts) + "."


def frase_ruido(r: pd.DataFrame) -> str:
    """`free`'s view against the cgroup sum: which is bigger, the noise or what is measured."""
    if r.empty or r["ruido_sistema_kb"].isna().all():
        return "Sin datos de memoria del sistema."
    noise_kb = float(
        np.nanmax(
            np.abs(r[["ruido_sistema_kb", "ruido_sistema_min_kb", "ruido_sistema_max_kb"]].to_numpy(float))
        )
    )
    small = r.sort_values("cgroup_total_kb").iloc[0]
    many = small["n"] > 1
    what = (
        f"{f'{int(small.n)} contenedores' if many else '1 contenedor'} de {engine_label(small['engine'])} "
        f"{'sumaban' if many else 'ocupaba'} {_mb(small['cgroup_total_kb'], 2)} en "
        f"{'sus cgroups' if many else 'su cgroup'}"
    )
    text = (
        f"Tras borrar todos los contenedores, la memoria «usada» del sistema llegó a moverse {_mb(noise_kb)} "
        f"en alguna repetición (columna «rango tras borrar todo»), cuando debería haber vuelto a su valor "
        f"inicial; {what}."
    )
    if noise_kb > small["cgroup_total_kb"]:
        text += (
            f" Ese ruido es {fmt_ratio(noise_kb / small['cgroup_total_kb'], digits=0)} lo que se quería pesar: "
            "`free -m` no lo distinguiría; la suma de cgroups sí."
        )
    else:
        text += (
            " En esta corrida el ruido fue menor que lo pesado: con la máquina así de tranquila, `free -m` "
            "habría visto la diferencia. Repite con la máquina ocupada y compara."
        )
    return text + " " + CHAPTER_NOISE


# The chapter (experiment 2, «Memoria cgroup»): «±50-150 MB» of `free -m` against «437 KB», which it
# calls «100,000x»; its own figures (`free -m` gives MiB; its 437 KB are decimal kB, see reference.load)
# give 50 MiB / 437 kB ≈ 120× to 150 MiB / 437 kB ≈ 360×.
CHAPTER_NOISE = (
    "El capítulo original da para `free -m` fluctuaciones de ±50-150 MB frente a los 437 KB de un contenedor "
    "de Docker, y llama a eso un ruido «100,000x mayor» que la señal; con esas mismas cifras sale entre "
    f"{fmt_ratio(50 * 1024**2 / 437e3, digits=0)} y {fmt_ratio(150 * 1024**2 / 437e3, digits=0)}: el ruido sigue "
    "aplastando a la señal, pero cientos de veces menos de lo que dice."
)


def frase_referencia(c: pd.DataFrame) -> str:
    """What agrees with the chapter (the live interval against its published figure) and what not."""
    labels = {
        "s_lanzamiento_total": "el tiempo total de lanzar la tanda",
        "kb_por_contenedor": "la memoria de cgroup por contenedor",
        "memoria_proceso_kb": "la memoria del daemon frente a la de los conmon",
    }
    c = c.set_index("medida")
    agree, disagree, unsure = [], [], []
    for key, label in labels.items():
        if key not in c.index or c.loc[key, "acuerdo"] == "sin_datos":
            continue
        tu = fmt_ratio(
            c.loc[key, "tu_podman_sobre_docker"],
            c.loc[key, "tu_podman_sobre_docker_ic_bajo"],
            c.loc[key, "tu_podman_sobre_docker_ic_alto"],
        )
        text = (
            f"{label} (Podman/Docker: capítulo {fmt_ratio(c.loc[key, 'ref_podman_sobre_docker'])}, tú {tu})"
        )
        status = c.loc[key, "acuerdo"]
        {"coincide": agree, "no_coincide": disagree}.get(status, unsure).append(text)
    out = []
    if agree:
        out.append(
            f"Coincide con el capítulo original (tu cifra ÷ la suya, con su intervalo, cae entera "
            f"{AGREEMENT_MARGIN}): " + "; ".join(agree) + "."
        )
    if disagree:
        out.append(
            f"No coincide (tu cifra ÷ la suya queda entera fuera del margen {AGREEMENT_MARGIN}): "
            + "; ".join(disagree)
            + "."
        )
    if unsure:
        out.append(
            "No concluyente (tu intervalo, dividido por la cifra del capítulo, cae en parte dentro del margen "
            "y en parte fuera): " + "; ".join(unsure) + "."
        )
    return " ".join(out) or _nothing_compared(c)


def _nothing_compared(c: pd.DataFrame) -> str:
    """Why no row of the comparison with the chapter reads «coincide» or not: the chapter has no figure at
    this N, this run has no Podman/Docker figure, or its figures have no interval to decide with."""
    n = c["n"].dropna()
    at = f" con N = {int(n.iloc[0])}" if len(n) else ""
    if c["ref_podman_sobre_docker"].isna().all():
        return (
            f"El capítulo original no publicó cifras{at} (midió N = 1, 5, 10 y 20): aquí no hay con qué "
            "comparar."
        )
    if c["tu_podman_sobre_docker"].isna().all():
        return "Faltan datos de Docker o de Podman para comparar con el capítulo original."
    return (
        "Tus proporciones no tienen IC 95 % (muy pocas repeticiones): no se puede decir si coinciden con el "
        "capítulo original."
    )
