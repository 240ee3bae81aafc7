"""03's facts for the instructor's kit: `exec true`, requests per second through exec, the CPU
overhead, small files and writes, the copy-up."""

from __future__ import annotations

from ... import stats
from ...experiments import ejecucion as x
from ...experiments import verdict as vd
from ...experiments.ejecucion.analysis import (
    exec_costs,
    io_base,
    layer_vs_volume,
    overheads,
    samples,
    shaky_against,
    tidy,
)
from ...experiments.ejecucion.arms import BASE_NAMES, EXEC_INSIDE, LAYER_BASE, METRIC_WORK, WORKLOAD_NAMES
from ...view import common
from .words import ENGINE, Facts, about, missing_arms, run_sentence, run_tag

FACTS = (
    "exec_docker",
    "exec_podman",
    "exec_por_segundo",
    "cpu",
    "copia",
    "archivos",
    "escritura",
    "sistemas",
)


def facts(res) -> Facts:
    out: Facts = {}
    costs = exec_costs(res.df)
    for engine in ENGINE:
        rows = costs[(costs["medida"] == x.EXEC_TRUE) & (costs["entorno"] == engine)] if len(costs) else costs
        out[f"exec_{engine}"] = (
            common.fmt_value_interval(
                float(rows["mediana_ms"].iloc[0]),
                float(rows["ic_bajo_ms"].iloc[0]),
                float(rows["ic_alto_ms"].iloc[0]),
                "ms",
            )
            if len(rows)
            else missing_arms(x.NOTEBOOK, f"`exec true` en {ENGINE[engine]}")
        )
    per_s = []
    for engine in ENGINE:
        rows = costs[(costs["medida"] == x.EXEC_TRUE) & (costs["entorno"] == engine)] if len(costs) else costs
        if len(rows):
            r = rows.iloc[0]
            ms = float(r["mediana_ms"])
            figure = common.fmt_value_interval(ms, float(r["ic_bajo_ms"]), float(r["ic_alto_ms"]), "ms")
            per_s.append(
                f"`{engine} exec … true` tardó {figure} (mediana e IC 95 %), así que, una tras otra, se "
                f"atenderían como mucho unas {common.num(1000 / ms)} peticiones por segundo"
            )
    out["exec_por_segundo"] = run_sentence(
        res, ", ", per_s, missing_arms(x.NOTEBOOK, "`exec true` en un contenedor")
    )
    cpu = fair_overheads(overheads(res.df), "hash", list(ENGINE))
    if cpu.empty:
        out["cpu"] = missing_arms(x.NOTEBOOK, "la carga hash dentro de un contenedor")
    else:
        out["cpu"] = "; ".join(
            f"{ENGINE[r.entorno]} {common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')}"
            f" frente a {BASE_NAMES[r.base]} ({common.overhead_words(r.direccion, r.n)})"
            for r in cpu.itertuples()
        )
    out["copia"] = _copy_up(x, res)
    out["archivos"] = _places(x, res, "archivos")
    out["escritura"] = _places(x, res, "escritura")
    out["sistemas"] = _filesystems(res)
    inside = costs[costs["medida"] == EXEC_INSIDE] if len(costs) else costs
    if len(inside) and per_s:
        out["exec_por_segundo"] += (
            " "
            + ". ".join(
                f"Dentro del contenedor de {ENGINE[r.entorno]}, un proceso nuevo costó "
                f"{common.fmt_value_interval(r.mediana_ms, r.ic_bajo_ms, r.ic_alto_ms, 'ms')}"
                + _times_less(costs, r)
                for r in inside.itertuples()
                if r.entorno in ENGINE
            )
            + "."
        )
    return out


def _times_less(costs, inside_row) -> str:
    """«, unas 52 veces menos que su `exec true`» (medians), or nothing without the `exec true` row."""
    true = costs[(costs["medida"] == x.EXEC_TRUE) & (costs["entorno"] == inside_row.entorno)]
    if true.empty or not inside_row.mediana_ms > 0:
        return ""
    return f", unas {about(float(true['mediana_ms'].iloc[0]) / inside_row.mediana_ms)} veces menos que su `exec true`"


def _places(x, res, carga: str) -> str:
    """A workload's overhead in the layer and in the volume, per engine, each against bare metal on its
    own filesystem with the reading of its interval («inestable: repite» against an unstable baseline),
    then the layer against the same container's volume, paired by round: the figure that says whether the
    layer itself costs (never two intervals compared by their ends)."""
    over = fair_overheads(overheads(res.df), carga, list(ENGINE))
    if over.empty:
        return missing_arms(x.NOTEBOOK, f"«{WORKLOAD_NAMES[carga]}» dentro de un contenedor")
    lv = layer_vs_volume(res.df)
    parts = []
    for engine in ENGINE:
        mine = over[over["entorno"] == engine].set_index("lugar")
        if not {"capa", "volumen"} <= set(mine.index):
            continue
        places = [
            f"{name}: {_overhead(mine.loc[place])}"
            for place, name in (("capa", "la capa"), ("volumen", "el volumen"))
        ]
        pair = lv[(lv["carga"] == carga) & (lv["entorno"] == engine)]
        if len(pair):
            places.append(f"la capa frente al volumen, ronda a ronda: {_overhead(pair.iloc[0])}")
        parts.append(f"en {ENGINE[engine]}, " + ", ".join(places[:-1]) + " y " + places[-1])
    if not parts:
        return missing_arms(x.NOTEBOOK, f"«{WORKLOAD_NAMES[carga]}» en la capa y en un volumen")
    return (
        f"En la {run_tag(res)}, frente a bare metal en su mismo sistema de archivos (trabajo solo): "
        + "; ".join(parts)
        + "."
    )


def _overhead(r) -> str:
    """«+3.5 % [−3.7, +17] (no se distingue hacia qué lado …)», or «sin cifra (medición inestable: repite)»."""
    if bool(r.get("inestable", False)) or r["direccion"] == vd.INESTABLE:
        return f"sin cifra ({common.overhead_words(vd.INESTABLE, 0)})"
    figure = common.fmt_value_interval(r["sobrecarga_pct"], r["ic_bajo_pct"], r["ic_alto_pct"], "%")
    return f"{figure} ({common.overhead_words(r['direccion'], int(r['n']))})"


def _where(place: dict) -> str:
    return f"{place.get('tipo', '?')} en {place.get('origen', '?')} (montaje {place.get('montaje', '?')}, dispositivo {place.get('dispositivo', '?')})"


def _filesystems(res) -> str:
    """Where the layer of each engine and its bare-metal baseline wrote (meta.json), or why not."""
    meta = res.meta or {}
    places, bases = meta.get("sistemas_de_archivos") or {}, meta.get("lineas_base") or {}
    if not places:
        return (
            f"La {run_tag(res)} no anotó en `meta.json` en qué sistema de archivos escribió cada brazo (es "
            "anterior a ese registro): su capa queda «no comparable»."
        )
    parts = []
    for engine in ENGINE:
        layer, base = places.get(f"{engine}:capa"), bases.get(f"{engine}:capa") or {}
        if not layer:
            continue
        if base.get("comparable") and f"bare:{LAYER_BASE}-{engine}" in places:
            written = places[f"bare:{LAYER_BASE}-{engine}"]
            parts.append(
                f"la capa de {ENGINE[engine]} está en {_where(layer)} y su línea base escribió en {_where(written)}"
            )
        else:
            parts.append(
                f"la capa de {ENGINE[engine]} quedó sin línea base: {base.get('motivo', 'sin motivo anotado')}"
            )
    if "host" in places:
        parts.append(f"los volúmenes y su línea base, en {_where(places['host'])}")
    return run_sentence(res, ", ", parts)


def fair_overheads(over, carga: str, engines: list):
    """The overheads of one workload in containers against its fairest baseline, as 03's table shows
    them (CPU: the same image under chroot when measured; I/O: bare metal on the arm's filesystem)."""
    if over.empty:
        return over
    return over[(over["carga"] == carga) & over["justa"].astype(bool) & over["entorno"].isin(engines)]


def _copy_up(x, res) -> str:
    """What the copy-up costs per engine (the work alone in the layer − bare metal on the layer's
    filesystem, paired by round) and the MiB/s it implies, with the file's size from meta.json; nothing
    against an unstable baseline («inestable: repite»)."""
    size = ((res.meta or {}).get("copia") or {}).get("bytes")
    data = tidy(res.df)
    parts = []
    for engine in ENGINE:
        layer = samples(data, METRIC_WORK, "copia", engine, "capa")
        _, base_env, base_place = io_base("copia", engine, "capa")
        host = samples(data, METRIC_WORK, "copia", base_env, base_place)
        if not layer.size or not host.size:
            continue
        if shaky_against(layer, host):
            parts.append(f"en {ENGINE[engine]}, {common.overhead_words(vd.INESTABLE, 0)}")
            continue
        extra, low, high = stats.difference_ci(layer * 1e3, host * 1e3).triple
        text = f"en {ENGINE[engine]} modificarlo en la capa costó {common.fmt_value_interval(extra, low, high, 'ms')} más"
        above_zero = vd.reading(low, high, stats.n_of(layer, host), region=(0.0, vd.INF)) == vd.SE_CONFIRMA
        if size and above_zero:  # the copy's speed, from both ends of the interval
            fast, slow = (size / 2**20 / (ms / 1e3) for ms in (low, high))
            text += f" (copiar el archivo: entre unos {about(slow)} y {about(fast)} MiB/s)"
        parts.append(text)
    if not parts:
        return missing_arms(x.NOTEBOOK, "`copia` en la capa de un contenedor")
    head = (
        f"En la {run_tag(res)}, el archivo de la imagen que se modifica pesa "
        f"{common.fmt_value(size / 2**20, 'MiB')}; "
        if size
        else f"En la {run_tag(res)}, "
    )
    return head + "; ".join(parts) + " que en bare metal sobre el mismo sistema de archivos que la capa."
