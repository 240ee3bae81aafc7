"""CAPACITY facts: 02 (escala: memory per idle container, how many fit), 07 (anidamiento: an inner
engine's memory) and 08 (sistema_vm: the disk each instance adds)."""

from __future__ import annotations

from ...view import common
from .words import ENGINE, Facts, about, missing_arms, run_tag


# ---------------------------------------------------------------- 02: escala
def from_escala(res) -> Facts:
    from ...experiments import escala as e

    table = e.summarize(res.df, res.meta)
    out: Facts = {}
    metric = "memoria_cgroup_por_contenedor"
    unit = next(iter(res.df.loc[res.df["metric"] == metric, "unit"]), "MB")
    for engine in ENGINE:
        rows = table[(table["engine"] == engine) & (table["n"] > 0)] if not table.empty else table
        if rows.empty or metric not in rows or rows[metric].dropna().empty:
            out[f"escala.memoria_{engine}"] = missing_arms(
                e.NOTEBOOK, f"la memoria de cgroup de cada contenedor de {ENGINE[engine]}"
            )
            continue
        row = rows.dropna(subset=[metric]).iloc[-1]
        mib = float(row[metric]) / (1024 if unit == "KB" else 1)
        out[f"escala.memoria_{engine}"] = (
            f"{ENGINE[engine]} {common.fmt_value(mib, 'MiB', 2)} (N = {int(row['n'])})"
        )
    free = (res.meta.get("host") or {}).get("memory_available_bytes")
    sentences = []
    for basis in ("rss", "pss"):
        bill = e.memory_bill(res.df, basis)
        fit = e.crossover(res.df, basis)["fit"]
        if not fit:
            continue
        parts = []
        for engine, line in fit.items():
            fixed, per = line["fijo_kb"] / 1024, line["por_contenedor_kb"] / 1024
            text = (
                f"{ENGINE.get(engine, engine)} {common.fmt_value(fixed, 'MiB', 0)} fijos y "
                f"{common.fmt_value(per, 'MiB', 1)} por contenedor"
            )
            if free and per > 0:
                text += f" (cabrían unos {about(max(free / 2**20 - fixed, 0) / per)})"
            last = bill[bill["engine"] == engine].dropna(subset=["ayudantes_kb", "cgroup_kb"]).tail(1)
            if len(last):
                helper = float(last["ayudantes_kb"].iloc[0]) > float(last["cgroup_kb"].iloc[0])
                text += ", y por contenedor pesa más " + (
                    "su ayudante que su cgroup" if helper else "su cgroup que su ayudante"
                )
            parts.append(text)
        sentences.append(f"con {basis.upper()}, " + "; ".join(parts))
    memory = f" en los {common.fmt_value(free / 2**30, 'GiB', 1)} libres que tenía al medir" if free else ""
    out["escala.caben"] = (
        f"En la {run_tag(res)}{memory}: " + ". Y ".join(sentences) + "."
        if sentences
        else missing_arms(e.NOTEBOOK, "la factura de memoria de los dos motores")
    )
    return out


# ---------------------------------------------------------------- 07: anidamiento
CI_JOBS = 50  # the exercise's number of CI jobs at once


def from_anidamiento(res) -> Facts:
    from ...experiments import anidamiento as n
    from ...view.anidamiento import BRAZO

    pss = res.df[res.df["metric"] == n.METRIC_PSS]
    if pss.empty:
        return {
            "anidamiento.ci": missing_arms(
                n.NOTEBOOK, "la memoria de un motor interior (no hubo brazos anidados)"
            )
        }
    parts = []
    for (engine, variant), group in pss.groupby(["engine", "variant"], sort=False):
        mib = float(group["value"].astype(float).median())
        parts.append(
            f"{ENGINE.get(engine, engine)}, {BRAZO.get(variant, variant)}: "
            f"{common.fmt_value(mib, 'MiB', common.significant(mib))} de PSS, "
            f"así que {CI_JOBS} trabajos a la vez sumarían unos "
            f"{common.fmt_value(mib * CI_JOBS / 1024, 'GiB', 1) if mib * CI_JOBS >= 1024 else common.fmt_value(mib * CI_JOBS, 'MiB', 0)}"
        )
    return {
        "anidamiento.ci": f"En la {run_tag(res)}, lo que añade el motor interior: " + "; ".join(parts) + "."
    }


# ---------------------------------------------------------------- 08: sistema_vm
def from_sistema_vm(res) -> Facts:
    from ...experiments import sistema_vm as s

    table = s.summarize(res.df, res.meta)
    out: Facts = {}
    rows = table[table["metrica"] == s.DISCO] if "metrica" in table else table.iloc[0:0]
    if rows.empty:
        out["sistema_vm.disco"] = missing_arms(s.NOTEBOOK, "el disco que añade cada instancia")
        return out
    out["sistema_vm.disco"] = (
        f"En la {run_tag(res)}, el disco que añade cada instancia: "
        + "; ".join(
            f"{s.kind_label(r.tipo)} {common.fmt_value(float(r.mediana), r.unidad)}"
            for r in rows.itertuples()
        )
        + "."
    )
    return out
