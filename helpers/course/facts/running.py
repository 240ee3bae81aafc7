"""RUNNING facts: 03 (ejecucion: `exec true`, requests per second through exec, CPU overhead)."""

from __future__ import annotations

from ...view import common
from .words import ENGINE, Facts, em, missing_arms, run_tag


# ---------------------------------------------------------------- 03: ejecucion
def from_ejecucion(res) -> Facts:
    from ...experiments import ejecucion as x

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
            ms = float(rows["mediana_ms"].iloc[0])
            per_s.append(
                f"`{engine} exec … true` tardó una mediana de {common.fmt_value(ms, 'ms', common.significant(ms))}, "
                f"así que un núcleo atendería como mucho unas {1000 / ms:.0f} peticiones por segundo"
            )
    out["ejecucion.exec_por_segundo"] = (
        f"En la {run_tag(res)}, " + "; ".join(per_s) + "."
        if per_s
        else missing_arms(x.NOTEBOOK, "`exec true` en un contenedor")
    )
    over = x.overheads(res.df)
    cpu = over[(over["carga"] == "hash") & (over["base"] == "bare") & over["entorno"].isin(list(ENGINE))]
    if cpu.empty:
        out["ejecucion.cpu"] = missing_arms(x.NOTEBOOK, "la carga hash dentro de un contenedor")
    else:
        out["ejecucion.cpu"] = "; ".join(
            f"{ENGINE[r.entorno]} {common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')}"
            f" ({r.lectura})"
            for r in cpu.itertuples()
        )
    return out


# ---------------------------------------------------------------- 09: the bottom line
JOBS, WORK_S = 100, 600  # the exercise: 100 containers, 10 minutes of work


def bottom_line(launch_run, running_run) -> str:
    """100 launches (01, Docker, default network) against 10 minutes × the `hash` overhead (03, Docker):
    which weighs more, from the two runs."""
    from ...experiments import arranque, ejecucion

    if launch_run is None or running_run is None:
        missing = "01_arranque" if launch_run is None else "03_ejecucion"
        return em(f"falta una corrida de `{missing}` para hacer la cuenta en esta máquina")
    table = arranque.summarize(launch_run.df, launch_run.meta)
    rows = table[(table["engine"] == "docker") & (table["variant"] == arranque.CONTAINER_VARIANT)]
    over = ejecucion.overheads(running_run.df)
    cpu = over[(over["carga"] == "hash") & (over["base"] == "bare") & (over["entorno"] == "docker")]
    if rows.empty or cpu.empty:
        return missing_arms("01_arranque y 03_ejecucion", "el arranque y la carga hash de Docker")
    launch_s = JOBS * float(rows["mediana_ms"].min()) / 1000
    r = cpu.iloc[0]
    running_s = WORK_S * float(r.sobrecarga_pct) / 100
    high_s = WORK_S * float(r.ic_alto_pct) / 100
    heavier = "LAUNCH" if launch_s > running_s else "RUNNING"
    text = (
        f"Con las corridas de esta máquina (Docker): {JOBS} arranques suman "
        f"{common.fmt_value(launch_s, 's', 1)}; {WORK_S // 60} minutos con una sobrecarga de "
        f"{common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')} suman "
        f"{common.fmt_value(running_s, 's', 1)}. Pesa más {heavier}"
    )
    if high_s == high_s and (launch_s > running_s) != (launch_s > high_s):  # the IC's top flips it
        text += f", aunque con el extremo alto del IC de la sobrecarga ({common.fmt_value(high_s, 's', 1)}) la balanza cambia"
    return text + "."
