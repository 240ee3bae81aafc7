"""Notebook 08's density phase (helpers/experiments/sistema_vm/density.py) as the view shows it
(helpers/view/sistema_vm.py, `densidad(resultado)`): the limits read back from each instance, gzip per
instance and in total against N per kind, and the memory the host keeps per instance with N at once,
against the post's 16 instances. An emulated VM says «no comparable» wherever its figure appears."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import experiments, reference
from ..experiments import sistema_vm as exp
from ..experiments.runner import Resultado
from ..experiments.sistema_vm import kinds, workload
from ..experiments.sistema_vm.analysis import arm_values, density_levels, overcommit_of, summarize
from .common import fmt, fmt_ratio, markdown, show, table
from .figuras import show_figure

NOT_COMPARABLE = "emulada (TCG): no comparable"


def label(variant: str) -> str:
    """The kind's Spanish name; an emulated VM's says its figures are not comparable."""
    name = kinds.kind_label(variant)
    return f"{name} · no comparable" if kinds.is_emulated(variant) else name


def limit(value: float, form: str) -> str:
    """A limit read back, or «sin límite» (the kernel's «max», stored as NaN)."""
    return "sin límite" if np.isnan(value) else form.format(value)


def variants(df: pd.DataFrame) -> list[str]:
    """The kinds of the density rounds, in the course's order."""
    have = set(df.loc[df["metric"].astype(str).str.startswith(kinds.DENSIDAD_INSTANCIA), "variant"])
    return [v for v in kinds.VARIANT_ORDER if v in have]


def curves(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per kind and N: the median MB/s of `metric` over the rounds and its IC 95 % (columns tipo, n,
    mediana, ic_bajo, ic_alto)."""
    s = summarize(df)
    rows = []
    for n in density_levels(df):
        level = s[s["metrica"] == kinds.level_metric(metric, n)]
        rows += [{**r, "n_instancias": n} for r in level.to_dict("records")]
    return pd.DataFrame(rows)


def limites(resultado: Resultado) -> None:
    """The limits read back from each instance (its cgroup; a VM's vCPUs from inside the guest)."""
    df, meta = resultado.df, resultado.meta or {}
    read_from = (meta.get("densidad") or {}).get("limites_leidos_de", {})
    rows = []
    for variant in variants(df):
        cpus, memory = (
            arm_values(df, kinds.DENSIDAD_CPUS, variant),
            arm_values(df, kinds.DENSIDAD_MEMORIA, variant),
        )
        rows.append(
            {
                "Instancia": label(variant),
                "instancias": len(cpus),
                "CPU (límite leído)": ", ".join(sorted({limit(v, "{:g}") for v in cpus})),
                "memoria (límite leído)": ", ".join(sorted({limit(v, "{:.0f} MiB") for v in memory})),
                "leído de": read_from.get(variant, ""),
            }
        )
    show(table(pd.DataFrame(rows), "Los límites de cada instancia, leídos de vuelta (no los pedidos)"))


def no_arrancaron(meta: dict | None) -> str:
    """The phase's instances that did not come up in time (density.start_all), one Spanish sentence; ""
    when every one did."""
    density = (meta or {}).get("densidad") or {}
    failed = density.get("no_arrancaron") or []
    if not failed:
        return ""
    top = max(density.get("niveles") or [0])
    parts, short = [], {}
    for entry in failed:
        name = kinds.kind_label(entry.get("tipo", ""))
        parts.append(f"la {entry.get('instancia')} de {entry.get('de')} ({name}) {entry.get('motivo')}")
        short[name] = short.get(name, entry.get("de", top)) - 1
    left = "; ".join(f"{name}, hasta N = {n}" if n > 0 else f"{name}, ninguna" for name, n in short.items())
    wait = density.get("espera_vm_s")
    waited = (
        f" (la espera de cada VM, {wait} s, ya cuenta con cuántas arrancan a la vez en estos núcleos)"
        if wait
        else ""
    )
    return (
        f"**No todas las instancias arrancaron**{waited}: {'; '.join(parts)}. Se quitaron y la fase siguió "
        f"con las demás ({left}): las cifras de ese tipo con N = {top} faltan, y las afirmaciones que las "
        "piden quedan «sin datos». Vuelve a correr el cuaderno para tenerlas."
    )


def entrada(meta: dict | None) -> str:
    """What each gzip of the phase compressed, from the run's meta.json."""
    meta = meta or {}
    mib = (meta.get("densidad") or {}).get("entrada_mb")
    if not mib:
        return ""
    workloads = meta.get("gzip") or {}
    same = workloads.get("input_mb") == mib
    what = workload.part({**workloads, "input_mb": mib})
    how = ", como las cargas de arriba" if same else f" (las cargas de arriba, {workloads['input_mb']} MiB)"
    return f"Cada gzip de esta fase comprime {what}{how if workloads.get('input_mb') else ''}."


def grafico(resultado: Resultado, colors: dict[str, str]) -> None:
    """gzip MB/s per instance (left) and of the N together (right) against N, one line per kind."""
    df, meta = resultado.df, resultado.meta or {}
    ns = density_levels(df)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, metric, title in (
        (axes[0], kinds.DENSIDAD_INSTANCIA, "gzip por instancia"),
        (axes[1], kinds.DENSIDAD_TOTAL, "gzip de las N juntas"),
    ):
        c = curves(df, metric)
        for variant in variants(df):
            k = c[c["tipo"] == variant].sort_values("n_instancias")
            err = np.array([k["mediana"] - k["ic_bajo"], k["ic_alto"] - k["mediana"]])
            style = "--" if kinds.is_emulated(variant) else "-"
            ax.errorbar(
                k["n_instancias"],
                k["mediana"],
                yerr=np.nan_to_num(err),
                marker="o",
                ls=style,
                capsize=4,
                color=colors.get(variant, "gray"),
                label=label(variant),
            )
        fits = [n for n in ns if overcommit_of(meta, n) <= 1]
        if fits and max(fits) < max(ns):
            ax.axvspan(max(fits) + 0.05, max(ns) + 0.3, color="0.92", zorder=0)
        ax.set_xticks(ns, [f"{n}\n({overcommit_of(meta, n):g}× CPU)" for n in ns], fontsize=11)
        ax.set_xlabel("instancias a la vez (CPU asignadas ÷ núcleos)", fontsize=11)
        ax.set_ylabel("MB/s (barra: IC 95 %)", fontsize=11)
        ax.set_ylim(bottom=0)
        ax.set_title(f"{title}; en gris, CPU sobrecomprometidas", fontsize=12)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, fontsize=10, loc="lower center", ncol=len(names))
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    show_figure(fig)


def memoria(resultado: Resultado) -> None:
    """The host's memory per instance after touch-and-free with N at once, against the post's."""
    df = resultado.df
    claim = next((c for c in experiments.judged(resultado) if c.key == "densidad_memoria_16x"), None)
    ref = reference.load(exp.EXPERIMENT)
    ref = ref[ref["metric"] == "memoria_por_instancia"].set_index("variant")["value"]  # the post's ÷ 16
    rows = []
    for variant in variants(df):
        held = arm_values(df, kinds.DENSIDAD_DESPUES, variant)
        kept = arm_values(df, kinds.DENSIDAD_RETENIDA, variant)
        if not held.size:
            continue
        post = ref.get("vm_kvm" if variant.startswith("vm") else "sistema", np.nan)
        rows.append(
            {
                "Instancia": kinds.kind_label(variant),
                "instancias a la vez": len(held),
                "el host retiene por instancia (mediana)": fmt(np.median(held), 1, "MiB"),
                "del bloque liberado (mediana)": fmt(np.median(kept), 0, "%") if kept.size else "—",
                "artículo, por instancia (16 a la vez)": (
                    "" if variant == "aplicacion" else fmt(post, 0, "MB")
                ),
            }
        )
    if not rows:
        return
    show(table(pd.DataFrame(rows), "Memoria con N instancias a la vez, tras tocar y liberar el bloque"))
    if claim is not None and "vm_x_sistema" in claim.detail:
        d = claim.detail
        markdown(
            f"Por instancia, la VM retiene **{fmt_ratio(d['vm_x_sistema'], digits=0)}** lo del contenedor de sistema "
            f"con {d['n']} a la vez; el artículo, con su carga y 16 instancias, **16×** (la proporción de aquí "
            f"÷ la del artículo: {fmt_ratio(d['frente_al_articulo'], digits=1)}). El factor depende de la carga, como "
            "dice el propio artículo: no comparable, lectura propia."
            + (
                " La VM es emulada, pero retener lo liberado es cosa del hipervisor, no de la CPU."
                if d["emulada"]
                else ""
            )
        )


PHASE_WORDS = {"reposo": "en reposo", "densidad": "a la vez en la fase de densidad"}


def observed_instances(claim) -> str:
    """How many instances a touch-and-free claim observed, and in which phase: «5 instancias: 1 en reposo
    y 4 a la vez en la fase de densidad»."""
    detail = claim.detail or {}
    n = len(detail.get("retenida_pct") or [])
    said = f"{n} {'instancia' if n == 1 else 'instancias'}"
    phases = detail.get("por_fase") or {}
    if len(phases) < 2:
        return said + (f" {PHASE_WORDS[next(iter(phases))]}" if phases else "")
    return said + ": " + " y ".join(f"{count} {PHASE_WORDS[phase]}" for phase, count in phases.items())
