"""02's facts for the instructor's kit: memory per idle container, how many fit, the helpers' PSS,
where the engines cross."""

from __future__ import annotations

from ... import experiments
from ...cierre import capacity_of
from ...experiments import escala as e
from ...experiments.escala.analysis import crossover, crossover_interval, memory_bill, summarize
from ...view import common
from ...view.cierre import capacity_sentence, unread_limits
from ...view.escala_frases import crossing
from .words import ENGINE, Facts, missing_arms, run_sentence, run_tag

FACTS = ("memoria_docker", "memoria_podman", "caben", "pss_ayudantes", "cruce")


def facts(res) -> Facts:
    table = summarize(res.df, res.meta)
    out: Facts = {}
    metric = "memoria_cgroup_por_contenedor"
    unit = next(iter(res.df.loc[res.df["metric"] == metric, "unit"]), "MB")
    for engine in ENGINE:
        rows = table[(table["engine"] == engine) & (table["n"] > 0)] if not table.empty else table
        if rows.empty or metric not in rows or rows[metric].dropna().empty:
            out[f"memoria_{engine}"] = missing_arms(
                e.NOTEBOOK, f"la memoria de cgroup de cada contenedor de {ENGINE[engine]}"
            )
            continue
        row = rows.dropna(subset=[metric]).iloc[-1]
        mib = float(row[metric]) / (1024 if unit == "KB" else 1)
        out[f"memoria_{engine}"] = f"{ENGINE[engine]} {common.fmt_value(mib, 'MiB', 2)} (N = {int(row['n'])})"
    free = (res.meta.get("host") or {}).get("memory_available_bytes")
    sentences, heavier = [], {}
    for basis in ("rss", "pss"):
        bill = memory_bill(res.df, basis)
        fit = crossover(res.df, basis)["fit"]
        if not fit:
            continue
        parts = []
        for engine, line in fit.items():
            fixed, per = line["fijo_kb"] / 1024, line["por_contenedor_kb"] / 1024
            text = (
                f"{ENGINE.get(engine, engine)} {common.fmt_value(fixed, 'MiB', 0)} fijos y "
                f"{common.fmt_value(per, 'MiB', 1)} por contenedor"
            )
            last = bill[bill["engine"] == engine].dropna(subset=["ayudantes_kb", "cgroup_kb"]).tail(1)
            if len(last):
                helper = float(last["ayudantes_kb"].iloc[0]) > float(last["cgroup_kb"].iloc[0])
                heavier[(basis, engine)] = (
                    "su ayudante que su cgroup" if helper else "su cgroup que su ayudante"
                )
            parts.append(text)
        sentences.append(f"con {basis.upper()}, " + "; ".join(parts))
    out["pss_ayudantes"] = _helpers_pss(res)
    out["cruce"] = _crossings(res)
    memory = f", en los {common.fmt_value(free / 2**30, 'GiB', 1)} libres que tenía al medir" if free else ""
    bill = (
        f"En la {run_tag(res)}{memory}, la recta de la factura: " + ". Y ".join(sentences) + "."
        if sentences
        else ""
    )
    if bill and heavier:  # what weighs more per container, once when every engine and count agree
        said = sorted(set(heavier.values()))
        bill += (
            f" Por contenedor pesa más {said[0]}, en los dos motores y con las dos cuentas."
            if len(said) == 1 and len(heavier) == 4
            else " Por contenedor pesa más "
            + "; ".join(f"{what} en {ENGINE.get(e, e)} con {b.upper()}" for (b, e), what in heavier.items())
            + "."
        )
    out["caben"] = (
        _fit(res, bill) if bill else missing_arms(e.NOTEBOOK, "la factura de memoria de los dos motores")
    )
    return out


def _fit(res, bill: str) -> str:
    """02, exercise 4: the bill's line per engine, then CAPACITY as 09 gives it (cierre.capacity_of, the
    same sentence): how many fit, and the limit that binds first."""
    found = capacity_of(res)
    if not found:
        return bill
    text = " ".join(capacity_sentence(cap) for cap in found)
    unread = unread_limits(found)
    return f"{bill} Como lo cuenta el cuaderno 09, con lo que retiene cada contenedor más: {text}" + (
        f" {unread}" if unread else ""
    )


def _helpers_pss(res) -> str:
    """02, exercise 6: with PSS, what one shim and one conmon weigh at the largest N, and which is more."""
    bill = memory_bill(res.df, "pss")
    bill = bill[bill["n"] > 0].dropna(subset=["ayudantes_kb"])
    each = {}
    for engine, g in bill.groupby("engine"):
        top = g[g["n"] == g["n"].max()].iloc[0]
        each[engine] = (float(top["ayudantes_kb"]) / float(top["n"]) / 1024, int(top["n"]))
    if not {"docker", "podman"} <= set(each):
        return missing_arms(e.NOTEBOOK, "el PSS de los shims y de los conmon")
    (shim, n_docker), (conmon, n_podman) = each["docker"], each["podman"]
    heavier = "el shim pesa más que el conmon" if shim > conmon else "el conmon pesa tanto o más que el shim"
    return (
        f"En la {run_tag(res)}, con PSS, cada shim de Docker pesa {common.fmt_value(shim, 'MiB', 2)} "
        f"(N = {n_docker}) y cada conmon de Podman {common.fmt_value(conmon, 'MiB', 2)} (N = {n_podman}): "
        f"{heavier}."
    )


def _crossings(res) -> str:
    """02, exercise 7: the chapter's arithmetic with its verdict, and the whole bill's crossing with its IC."""
    chapter = next((c for c in experiments.judged(res) if c.key == "cruce_102"), None)
    parts = []
    if chapter is not None and chapter.n:
        parts.append(
            f"la cuenta del capítulo (dockerd ÷ un conmon) da "
            f"{common.fmt_value_interval(chapter.value, chapter.low, chapter.high, '')} contenedores "
            f"(n = {chapter.n}; veredicto «{common.verdict_words(chapter)}»)"
        )
    for basis in ("rss", "pss"):
        if {"docker", "podman"} <= set(crossover(res.df, basis)["fit"]):
            value, low, high = crossover_interval(res.df, basis)
            parts.append(
                f"con la factura completa y {basis.upper()}, las dos rectas {crossing(value, low, high)}"
            )
    if not parts:
        return missing_arms(e.NOTEBOOK, "Docker y Podman con más de una N")
    return run_sentence(res, ": ", parts)
