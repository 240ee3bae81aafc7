"""RUNNING facts: 03 (ejecucion: `exec true`, requests per second through exec, CPU overhead)."""

from __future__ import annotations

from ...view import common
from .words import ENGINE, Facts, missing_arms, run_tag


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
