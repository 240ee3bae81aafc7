"""08's facts for the instructor's kit: the disk and memory each instance adds, how it is provisioned,
gzip inside, LXD."""

from __future__ import annotations

import numpy as np

from ... import experiments, stats
from ...experiments import sistema_vm as s
from ...experiments import verdict as vd
from ...experiments.sistema_vm.analysis import by_round, summarize, vm_variant
from ...experiments.sistema_vm.kinds import (
    ARRANQUE,
    DISCO,
    DISPONIBLE,
    GZIP,
    LXD_COW,
    is_emulated,
    kind_label,
)
from ...view import common
from ...view.sistema_vm_densidad import observed_instances
from .words import Facts, run_tag

FACTS = ("disco", "memoria", "disponible", "arranque", "gzip", "lxd")


def facts(res) -> Facts:
    table = summarize(res.df, res.meta)
    claims = {c.key: c for c in experiments.judged(res)}
    tag = run_tag(res)
    out: Facts = {
        "disco": _per_instance(table, DISCO, tag, "el disco que añade cada instancia"),
        "memoria": _memory(claims, res, tag),
        "disponible": _per_instance(
            table, DISPONIBLE, tag, "la caída de la memoria disponible del host por instancia"
        ),
        "arranque": _provisioning(claims, tag, res.df),
        "gzip": _gzip(table, tag),
        "lxd": _lxd(table, tag),
    }
    return {k: v for k, v in out.items() if v}


def _per_instance(table, metric: str, tag: str, what: str) -> str:
    """One metric's median per kind of instance, from summarize, in one sentence."""
    rows = table[table["metrica"] == metric] if "metrica" in table else table.iloc[0:0]
    listing = "; ".join(f"{kind_label(r.tipo)} {_median(r)}" for r in rows.itertuples())
    return f"En la {tag}, {what}: {listing}." if listing else ""


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
            parts.append(
                f"{kind_label(claim.detail['tipo'])}, el "
                f"{common.fmt_pct(float(np.median(kept)), 1, sign=False)} "
                f"(mediana de {observed_instances(claim)})"
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


def _vm_over_dir(df) -> str:
    """VM ÷ LXD on its `dir` pool to «listo», paired by round, when the run measured both pools: the
    verdict compares the VM with the copy-on-write pool, and on `dir` (LXD copies the whole image) the
    order may turn round. Its way by the one rule (verdict.direction), its words by view.common."""
    vm_of, dir_pool = vm_variant(df), "sistema_lxd"
    measured = set(df["variant"]) if not df.empty else set()
    if vm_of is None or not {dir_pool, LXD_COW} <= measured:
        return ""
    est = stats.ratio_ci(by_round(df, ARRANQUE, vm_of), by_round(df, ARRANQUE, dir_pool))
    if est.value != est.value:
        return ""
    way = common.direction_words(
        vd.side(est.low, est.high, est.n),
        "la VM tardó más también",
        "la VM llegó antes: al revés que el «10 veces», porque en «dir» LXD copia la imagen entera",
        n=est.n,
    )
    return (
        f"frente al contenedor de sistema de LXD en el pool «dir», la {kind_label(vm_of)} tardó "
        f"{common.fmt_value_interval(est.value, est.low, est.high, 'x')} ({way})"
    )


def _provisioning(claims: dict, tag: str, df=None) -> str:
    """VM ÷ system container to ready, from the provisioning claims' detail (the emulated VM says so)."""
    parts = []
    for key, field, other in (
        ("arranque_10x", "vm_x_sistema", "el contenedor de sistema con busybox init"),
        ("arranque_10x_lxd", "vm_x_lxd", "el contenedor de sistema de LXD del pool con copia en escritura"),
    ):
        claim = claims.get(key)
        figure = (claim.detail or {}).get(field) if claim else None
        if figure and figure[0] == figure[0]:
            vm_kind = kind_label(claim.detail.get("variante_vm", ""))
            parts.append(f"la {vm_kind} tardó {common.fmt_value_interval(*figure, 'x')} lo que {other}")
    dir_pool = _vm_over_dir(df) if df is not None else ""
    if dir_pool:
        parts.append(dir_pool)
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
    rows = table[(table["metrica"] == GZIP) & table["x_bare"].notna()]
    parts = [
        f"{kind_label(r.tipo)} {common.fmt_value_interval(r.x_bare, r.x_bare_bajo, r.x_bare_alto, 'x')}"
        + (" (el costo de emular la CPU, no el de una VM)" if is_emulated(r.tipo) else "")
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
    for metric, what in (("lxd_crear", "crear"), (DISCO, "disco por instancia")):
        cells = []
        for variant, pool in pools:
            row = table[(table["metrica"] == metric) & (table["tipo"] == variant)]
            if len(row):
                cells.append(f"{_median(next(row.itertuples()))} en {pool}")
        if cells:
            parts.append(f"{what}: " + ", ".join(cells))
    return f"En la {tag}, LXD: " + "; ".join(parts) + "." if parts else ""
