"""RUNNING facts: 03 (ejecucion: `exec true`, requests per second through exec, CPU overhead)."""

from __future__ import annotations

from ... import stats
from ...experiments import arranque, ejecucion
from ...experiments import ejecucion as x
from ...experiments import verdict as vd
from ...view import common, ejecucion_frases
from .words import ENGINE, Facts, about, em, missing_arms, run_tag


# ---------------------------------------------------------------- 03: ejecucion
def from_ejecucion(res) -> Facts:
    out: Facts = {}
    costs = x.exec_costs(res.df)
    for engine in ENGINE:
        rows = costs[(costs["medida"] == x.EXEC_TRUE) & (costs["entorno"] == engine)] if len(costs) else costs
        out[f"ejecucion.exec_{engine}"] = (
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
    out["ejecucion.exec_por_segundo"] = (
        f"En la {run_tag(res)}, " + "; ".join(per_s) + "."
        if per_s
        else missing_arms(x.NOTEBOOK, "`exec true` en un contenedor")
    )
    cpu = _fair(x.overheads(res.df), "hash", list(ENGINE))
    if cpu.empty:
        out["ejecucion.cpu"] = missing_arms(x.NOTEBOOK, "la carga hash dentro de un contenedor")
    else:
        out["ejecucion.cpu"] = "; ".join(
            f"{ENGINE[r.entorno]} {common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')}"
            f" frente a {x.BASE_NAMES[r.base]} ({ejecucion_frases.lectura(r.direccion, r.n)})"
            for r in cpu.itertuples()
        )
    out["ejecucion.copia"] = _copy_up(x, res)
    out["ejecucion.archivos"] = _places(x, res, "archivos")
    out["ejecucion.escritura"] = _places(x, res, "escritura")
    inside = costs[costs["medida"] == x.EXEC_INSIDE] if len(costs) else costs
    if len(inside) and per_s:
        out["ejecucion.exec_por_segundo"] += (
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
    """A workload's overhead in the layer and in the volume, per engine, against its fairest baseline,
    and whether the two intervals overlap (a description of the intervals, not a verdict)."""
    over = _fair(x.overheads(res.df), carga, list(ENGINE))
    if over.empty:
        return missing_arms(x.NOTEBOOK, f"«{x.WORKLOAD_NAMES[carga]}» dentro de un contenedor")
    parts = []
    for engine in ENGINE:
        mine = over[over["entorno"] == engine].set_index("lugar")
        if not {"capa", "volumen"} <= set(mine.index):
            continue
        layer, volume = mine.loc["capa"], mine.loc["volumen"]
        bounds = (layer.ic_bajo_pct, layer.ic_alto_pct, volume.ic_bajo_pct, volume.ic_alto_pct)
        if any(b != b for b in bounds):  # no IC below MIN_N rounds: nothing to say of their overlap
            overlap = common.too_few(int(min(layer.n, volume.n))) or "sin IC 95 %"
        else:
            together = stats.intervals_overlap(bounds[:2], bounds[2:])
            overlap = f"sus IC {'se solapan' if together else 'no se solapan'}"
        parts.append(
            f"en {ENGINE[engine]}, la capa "
            f"{common.fmt_value_interval(layer.sobrecarga_pct, layer.ic_bajo_pct, layer.ic_alto_pct, '%')} y el "
            f"volumen {common.fmt_value_interval(volume.sobrecarga_pct, volume.ic_bajo_pct, volume.ic_alto_pct, '%')}"
            f" ({overlap})"
        )
    if not parts:
        return missing_arms(x.NOTEBOOK, f"«{x.WORKLOAD_NAMES[carga]}» en la capa y en un volumen")
    base = x.BASE_NAMES[over["base"].iloc[0]]
    return f"En la {run_tag(res)}, frente a {base}: " + "; ".join(parts) + "."


def _fair(over, carga: str, engines: list):
    """The overheads of one workload in containers against its fairest baseline, as 03's table shows
    them (the same image under chroot when measured)."""
    if over.empty:
        return over
    return over[(over["carga"] == carga) & over["justa"].astype(bool) & over["entorno"].isin(engines)]


def _copy_up(x, res) -> str:
    """What the copy-up costs per engine (the work alone in the layer − on the host's disk, paired by
    round) and the MiB/s it implies, with the file's size from meta.json."""
    size = ((res.meta or {}).get("copia") or {}).get("bytes")
    data = x.tidy(res.df)
    host = x.samples(data, x.METRIC_WORK, "copia", "bare", "host")
    parts = []
    for engine in ENGINE:
        layer = x.samples(data, x.METRIC_WORK, "copia", engine, "capa")
        if not layer.size or not host.size:
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
    return head + "; ".join(parts) + " que en el disco del host."


# ---------------------------------------------------------------- 09: the bottom line
JOBS, WORK_S = 100, 600  # the exercise: 100 containers, 10 minutes of work


def bottom_line(launch_run, running_run) -> str:
    """100 launches (01, Docker, default network, ubuntu) against 10 minutes × the `hash` overhead (03,
    Docker, the work alone against its fairest baseline, as 09's table shows it): which weighs more."""
    if launch_run is None or running_run is None:
        missing = "01_arranque" if launch_run is None else "03_ejecucion"
        return em(f"falta una corrida de `{missing}` para hacer la cuenta en esta máquina")
    table = arranque.summarize(launch_run.df, launch_run.meta)
    rows = table[(table["engine"] == "docker") & (table["variant"] == arranque.CONTAINER_VARIANT)]
    if (rows["role"] == "ubuntu").any():  # the image the closing table and the chapter name
        rows = rows[rows["role"] == "ubuntu"]
    cpu = _fair(ejecucion.overheads(running_run.df), "hash", ["docker"])
    if rows.empty or cpu.empty:
        return missing_arms("01_arranque y 03_ejecucion", "el arranque y la carga hash de Docker")
    launch_s = JOBS * float(rows["mediana_ms"].iloc[0]) / 1000
    r = cpu.iloc[0]
    running_s, low_s, high_s = (
        WORK_S * float(v) / 100 for v in (r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct)
    )
    heavier = "LAUNCH" if launch_s > running_s else "RUNNING"
    text = (
        f"Con las corridas de esta máquina (Docker, imagen «{rows['role'].iloc[0]}»): {JOBS} arranques suman "
        f"{common.fmt_value(launch_s, 's', 1)}; {WORK_S // 60} minutos con una sobrecarga de "
        f"{common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')} (frente a "
        f"{ejecucion.BASE_NAMES[r.base]}) suman {common.fmt_value_interval(running_s, low_s, high_s, 's')}. "
        f"Con las medianas pesa más {heavier}"
    )
    for end_s, end in ((high_s, "alto"), (low_s, "bajo")):
        if end_s == end_s and (launch_s > running_s) != (launch_s > end_s):  # an end of the IC flips it
            text += f"; con el extremo {end} del IC de la sobrecarga la balanza cambia"
    return text + "."


def _docker_launches(launch_run):
    """01's `run --rm` with the default network, per engine (ubuntu if measured): {engine: row}."""
    table = arranque.summarize(launch_run.df, launch_run.meta)
    out = {}
    for engine in ENGINE:
        rows = table[(table["engine"] == engine) & (table["variant"] == arranque.CONTAINER_VARIANT)]
        if (rows["role"] == "ubuntu").any():
            rows = rows[rows["role"] == "ubuntu"]
        if len(rows):
            out[engine] = rows.iloc[0]
    return out


def exec_in_run(launch_run, running_run) -> str:
    """09, exercise 2: how many `exec … true` (03) fit in one `run --rm` (01), per engine (medians)."""
    if launch_run is None or running_run is None:
        missing = "01_arranque" if launch_run is None else "03_ejecucion"
        return em(f"falta una corrida de `{missing}` para hacer la cuenta en esta máquina")
    launches, costs = _docker_launches(launch_run), x.exec_costs(running_run.df)
    parts = []
    for engine, run in launches.items():
        rows = costs[(costs["medida"] == x.EXEC_TRUE) & (costs["entorno"] == engine)] if len(costs) else costs
        if len(rows) and rows["mediana_ms"].iloc[0] > 0:
            e = rows.iloc[0]
            parts.append(
                f"en {ENGINE[engine]}, un `run --rm` de "
                f"{common.fmt_value_interval(run['mediana_ms'], run['ic_bajo_ms'], run['ic_alto_ms'], 'ms')} y un "
                f"`exec … true` de {common.fmt_value_interval(e.mediana_ms, e.ic_bajo_ms, e.ic_alto_ms, 'ms')}: "
                f"caben unos {_two(run['mediana_ms'] / e.mediana_ms)}"
            )
    if not parts:
        return missing_arms("01_arranque y 03_ejecucion", "el arranque y el `exec true` de un mismo motor")
    return "Con las medianas de esta máquina: " + "; ".join(parts) + "."


def short_and_long(launch_run, running_run) -> str:
    """09, exercise 1: Docker's launch against a 50 ms program and against 10 minutes × the `hash`
    overhead (the work alone against its fairest baseline)."""
    if launch_run is None or running_run is None:
        missing = "01_arranque" if launch_run is None else "03_ejecucion"
        return em(f"falta una corrida de `{missing}` para hacer la cuenta en esta máquina")
    launch = _docker_launches(launch_run).get("docker")
    cpu = _fair(x.overheads(running_run.df), "hash", ["docker"])
    if launch is None or cpu.empty:
        return missing_arms("01_arranque y 03_ejecucion", "el arranque y la carga hash de Docker")
    r = cpu.iloc[0]
    ms = float(launch["mediana_ms"])
    seconds = [WORK_S * float(v) / 100 for v in (r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct)]
    return (
        f"Con las cifras de esta máquina (Docker): el arranque, "
        f"{common.fmt_value_interval(ms, launch['ic_bajo_ms'], launch['ic_alto_ms'], 'ms')}, es unas "
        f"{_two(ms / 50)} veces un programa de 50 ms; en 10 minutos, la sobrecarga de hash, "
        f"{common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')} frente a "
        f"{x.BASE_NAMES[r.base]}, son {common.fmt_value_interval(*seconds, 's')}, y el arranque, "
        f"{common.fmt_value(ms / 1000, 's')}."
    )


def _two(value: float) -> str:
    """A quotient to two significant digits: «4.0», «1.5», «57»."""
    return common.fmt_value(value, "", common.significant(value, 2))
