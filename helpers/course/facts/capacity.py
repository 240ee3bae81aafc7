"""CAPACITY facts: 02 (escala: memory per idle container, how many fit) and 08 (sistema_vm: the disk each
instance adds); 07's (an inner engine's memory) live with its other facts in nesting.py."""

from __future__ import annotations

import numpy as np

from ...experiments import escala as e
from ...experiments import sistema_vm as s
from ...view import common
from ...view.escala_frases import crossing
from .words import ENGINE, Facts, about, missing_arms, run_tag


# ---------------------------------------------------------------- 02: escala
def from_escala(res) -> Facts:
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
    out["escala.pss_ayudantes"] = _helpers_pss(res)
    out["escala.cruce"] = _crossings(res)
    memory = f" en los {common.fmt_value(free / 2**30, 'GiB', 1)} libres que tenía al medir" if free else ""
    out["escala.caben"] = (
        f"En la {run_tag(res)}{memory}: " + ". Y ".join(sentences) + "."
        if sentences
        else missing_arms(e.NOTEBOOK, "la factura de memoria de los dos motores")
    )
    return out


def _helpers_pss(res) -> str:
    """02, exercise 6: with PSS, what one shim and one conmon weigh at the largest N, and which is more."""
    bill = e.memory_bill(res.df, "pss")
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
    chapter = next((c for c in e.claims(res.df, res.meta) if c.key == "cruce_102"), None)
    parts = []
    if chapter is not None and chapter.n:
        parts.append(
            f"la cuenta del capítulo (dockerd ÷ un conmon) da "
            f"{common.fmt_value_interval(chapter.value, chapter.low, chapter.high, '')} contenedores "
            f"(n = {chapter.n}; veredicto «{common.verdict_words(chapter)}»)"
        )
    for basis in ("rss", "pss"):
        if {"docker", "podman"} <= set(e.crossover(res.df, basis)["fit"]):
            value, low, high = e.crossover_interval(res.df, basis)
            parts.append(
                f"con la factura completa y {basis.upper()}, las dos rectas {crossing(value, low, high)}"
            )
    if not parts:
        return missing_arms(e.NOTEBOOK, "Docker y Podman con más de una N")
    return f"En la {run_tag(res)}: " + "; ".join(parts) + "."


# ---------------------------------------------------------------- 08: sistema_vm
def from_sistema_vm(res) -> Facts:
    table = s.summarize(res.df, res.meta)
    claims = {c.key: c for c in s.claims(res.df, res.meta)}
    tag = run_tag(res)
    out: Facts = {}
    rows = table[table["metrica"] == s.DISCO] if "metrica" in table else table.iloc[0:0]
    if not rows.empty:
        out["sistema_vm.disco"] = (
            f"En la {tag}, el disco que añade cada instancia: "
            + "; ".join(f"{s.kind_label(r.tipo)} {_median(r)}" for r in rows.itertuples())
            + "."
        )
    out["sistema_vm.memoria"] = _memory(claims, res, tag)
    rows = table[table["metrica"] == s.DISPONIBLE] if "metrica" in table else table.iloc[0:0]
    if not rows.empty:
        out["sistema_vm.disponible"] = (
            f"En la {tag}, la caída de la memoria disponible del host por instancia: "
            + "; ".join(f"{s.kind_label(r.tipo)} {_median(r)}" for r in rows.itertuples())
            + "."
        )
    out["sistema_vm.arranque"] = _provisioning(claims, tag)
    out["sistema_vm.gzip"] = _gzip(table, tag)
    out["sistema_vm.lxd"] = _lxd(table, tag)
    return {k: v for k, v in out.items() if v}


def _median(row) -> str:
    """A median from summarize, with its IC when there is one (as view.common writes it)."""
    if row.ic_bajo == row.ic_bajo and row.ic_alto == row.ic_alto:
        return common.fmt_value_interval(
            float(row.mediana), float(row.ic_bajo), float(row.ic_alto), row.unidad
        )
    return common.fmt_value(float(row.mediana), row.unidad, common.significant(float(row.mediana)))


def _memory(claims: dict, res, tag: str) -> str:
    """How much of the freed block the host still held, per kind, from the touch-and-free claims."""
    parts = []
    for key in ("vm_retiene_memoria", "contenedor_devuelve_memoria"):
        claim = claims.get(key)
        kept = (claim.detail or {}).get("retenida_pct") if claim else None
        if kept:
            n = len(kept)
            parts.append(
                f"{s.kind_label(claim.detail['tipo'])}, el "
                f"{common.fmt_pct(float(np.median(kept)), 1, sign=False)} "
                f"(mediana de {n} {'instancia' if n == 1 else 'instancias'})"
            )
    if not parts:
        return ""
    block = (res.meta.get("parameters") or {}).get("memoria_mb")
    block = f" de {block} MiB" if block else ""
    return (
        f"En la {tag}, lo que el host seguía teniendo del bloque{block} después de liberarlo: "
        + "; ".join(parts)
        + "."
    )


def _provisioning(claims: dict, tag: str) -> str:
    """VM ÷ system container to ready, from the provisioning claims' detail (the emulated VM says so)."""
    parts = []
    for key, field, other in (
        ("arranque_10x", "vm_x_sistema", "el contenedor de sistema con busybox init"),
        ("arranque_10x_lxd", "vm_x_lxd", "el contenedor de sistema de LXD"),
    ):
        claim = claims.get(key)
        figure = (claim.detail or {}).get(field) if claim else None
        if figure and figure[0] == figure[0]:
            vm_kind = s.kind_label(claim.detail.get("variante_vm", ""))
            parts.append(f"la {vm_kind} tardó {common.fmt_value_interval(*figure, 'x')} lo que {other}")
    claim = claims.get("arranque_10x_systemd")
    if claim is not None and claim.value == claim.value:
        parts.append(
            f"con systemd en los dos lados, {common.fmt_value_interval(claim.value, claim.low, claim.high, 'x')}"
        )
    return f"En la {tag}, hasta «listo»: " + "; ".join(parts) + "." if parts else ""


def _gzip(table, tag: str) -> str:
    """gzip × bare metal per kind (an emulated VM's figure is the cost of emulating the CPU)."""
    if "metrica" not in table or "x_bare" not in table:
        return ""
    rows = table[(table["metrica"] == s.GZIP) & table["x_bare"].notna()]
    parts = [
        f"{s.kind_label(r.tipo)} {common.fmt_value_interval(r.x_bare, r.x_bare_bajo, r.x_bare_alto, 'x')}"
        + (" (el costo de emular la CPU, no el de una VM)" if s.is_emulated(r.tipo) else "")
        for r in rows.itertuples()
    ]
    return f"En la {tag}, el tiempo de gzip × bare metal: " + "; ".join(parts) + "." if parts else ""


def _lxd(table, tag: str) -> str:
    """Creating an LXD system container on the `dir` pool and on the copy-on-write pool, and the disk each
    one adds."""
    if "metrica" not in table:
        return ""
    pools = (("sistema_lxd", "«dir»"), (s.kinds.LXD_COW, "btrfs"))
    parts = []
    for metric, what in (("lxd_crear", "crear"), (s.DISCO, "disco por instancia")):
        cells = []
        for variant, pool in pools:
            row = table[(table["metrica"] == metric) & (table["tipo"] == variant)]
            if len(row):
                cells.append(f"{_median(next(row.itertuples()))} en {pool}")
        if cells:
            parts.append(f"{what}: " + ", ".join(cells))
    return f"En la {tag}, LXD: " + "; ".join(parts) + "." if parts else ""
