"""What a person sees of experiment 2 (escala): tables, seaborn plots and Spanish verdicts."""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .. import reference
from ..experiments import escala
from ..experiments.base import Resultado
from .common import VERDICT, engine_label, fmt, markdown, needs_result, num, table

MB = 1024  # KB per MB (sizes are KB of 1024 bytes)
def _engine(name: str, meta: dict | None = None) -> str:
    return engine_label(name, meta)


# ---------------------------------------------------------------- tables
@needs_result
def tabla(resultado: Resultado):
    """Main results: per engine and N, medians over repetitions."""
    s = escala.summarize(resultado.df, resultado.meta)
    if s.empty:
        return table(pd.DataFrame({"aviso": ["La corrida no tiene filas."]}))
    out = pd.DataFrame({
        "motor": [_engine(e, resultado.meta) for e in s["engine"]],
        "N": s["n"],
        "repeticiones": s["repeticiones"],
        "lanzamiento total (s)": s["lanzamiento_total"].round(2),
        "ms por contenedor": s["lanzamiento_por_contenedor"].round(0),
        "KB de cgroup por contenedor": escala._col(s, "memoria_cgroup_por_contenedor").round(0),
        "RSS dockerd + containerd (MB)": ((escala._col(s, "rss_daemon") + escala._col(s, "rss_containerd")) / MB).round(1),
        "RSS ayudantes (MB)": (escala._col(s, "rss_shims_total").fillna(escala._col(s, "rss_conmon_total")) / MB).round(1),
        "PSS ayudantes (MB)": (escala._col(s, "pss_shims_total").fillna(escala._col(s, "pss_conmon_total")) / MB).round(1),
        "borrado (s)": escala._col(s, "eliminacion_total").round(2),
    })
    return table(out, "Escala: medianas por motor y N (ayudantes: un shim por contenedor en Docker, "
                      "un conmon por contenedor en Podman)")


@needs_result
def tabla_factura(resultado: Resultado, base: str = "rss"):
    bill = escala.memory_bill(resultado.df, base)
    out = pd.DataFrame({
        "motor": bill["engine"].map(_engine), "N": bill["n"],
        "procesos fijos (MB)": (bill["fijo_kb"] / MB).round(1),
        "ayudantes por contenedor (MB)": (bill["ayudantes_kb"] / MB).round(1),
        "cgroups (MB)": (bill["cgroup_kb"] / MB).round(1),
        "total (MB)": (bill["total_kb"] / MB).round(1),
    })
    return table(out, f"La factura completa de memoria, contando procesos con {base.upper()}")


@needs_result
def tabla_stats(resultado: Resultado):
    s = escala.stats_vs_cgroup(resultado.df)
    if s.empty:
        return table(pd.DataFrame({"aviso": ["Esta corrida no cronometró «stats» (comparar_stats=False)."]}))
    out = pd.DataFrame({
        "motor": s["engine"].map(_engine), "N": s["n"],
        "«stats --no-stream» (s)": s["tiempo_stats_cli"].round(3),
        "lectura directa del cgroup (s)": s["tiempo_lectura_cgroup"].round(4),
        "veces más lento": s["veces_mas_lento"].round(0),
        "KB/contenedor según «stats»": s["memoria_stats_cli_por_contenedor"].round(0),
        "KB/contenedor uso bruto del cgroup": s["memoria_cgroup_por_contenedor"].round(0),
        "KB/contenedor uso − caché inactiva": s["memoria_stats_por_contenedor"].round(0),
    })
    return table(out, "«stats» del motor frente a leer el cgroup directamente (mismos contenedores)")


@needs_result
def tabla_ruido(resultado: Resultado):
    r = escala.noise(resultado.df)
    out = pd.DataFrame({
        "motor": r["engine"].map(_engine), "N": r["n"],
        "suma de cgroups (MB)": (r["cgroup_total_kb"] / MB).round(2),
        "delta de «usada» del sistema (MB)": (r["delta_sistema_kb"] / MB).round(1),
        "rango del delta (MB)": [f"{num(a / MB, 1)} … {num(b / MB, 1)}" for a, b in
                                 zip(r["delta_sistema_min_kb"], r["delta_sistema_max_kb"])],
        "delta tras borrar todo (MB, debería ser 0)": (r["ruido_sistema_kb"] / MB).round(1),
    })
    return table(out, "Báscula de baño frente a báscula postal: memoria del sistema contra la suma de cgroups")


@needs_result
def tabla_referencia(resultado: Resultado):
    c = escala.compare(resultado.df, resultado.meta, reference.load("escala"))
    names = {"ms_por_contenedor": "arranque por contenedor (ms)",
             "kb_por_contenedor": "memoria por contenedor, vista de «stats» (KB)",
             "memoria_proceso_kb": "dockerd (Docker) / todos los conmon (Podman) al N mayor (KB)"}
    out = pd.DataFrame({
        "medida": c["medida"].map(names),
        "semilla Docker": c["ref_docker"].round(0), "semilla Podman": c["ref_podman"].round(0),
        "semilla Podman/Docker": c["ref_podman_sobre_docker"].round(2),
        "tu Docker": c["tu_docker"].round(0), "tu Podman": c["tu_podman"].round(0),
        "tu Podman/Docker": c["tu_podman_sobre_docker"].round(2),
    })
    return table(out, "Tu máquina frente a la semilla 000 (los cocientes Podman/Docker no dependen de la máquina)")


# ---------------------------------------------------------------- plots
def _style():
    sns.set_theme(style="whitegrid", context="notebook")


@needs_result
def grafico_lanzamiento(resultado: Resultado):
    """Total launch time and ms per container against N, per engine (each repetition a point)."""
    _style()
    w = escala.wide(resultado.df)
    w["motor"] = w["engine"].map(_engine)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    sns.lineplot(data=w, x="n", y="lanzamiento_total", hue="motor", marker="o", errorbar=None,
                 estimator="median", ax=axes[0])
    sns.scatterplot(data=w, x="n", y="lanzamiento_total", hue="motor", legend=False, alpha=0.4, ax=axes[0])
    axes[0].set(xlabel="contenedores lanzados (N)", ylabel="tiempo total de lanzamiento (s)",
                title="Arranque de N contenedores")
    sns.lineplot(data=w, x="n", y="lanzamiento_por_contenedor", hue="motor", marker="o", errorbar=None,
                 estimator="median", ax=axes[1])
    sns.scatterplot(data=w, x="n", y="lanzamiento_por_contenedor", hue="motor", legend=False, alpha=0.4,
                    ax=axes[1])
    axes[1].set(xlabel="contenedores lanzados (N)", ylabel="ms por contenedor", title="Costo de LAUNCH por contenedor")
    axes[1].set_ylim(bottom=0)
    for ax in axes:
        ax.legend(title="motor")
    fig.tight_layout()
    return fig


@needs_result
def grafico_memoria(resultado: Resultado):
    """Stacked memory bill (fixed, helpers, cgroups) against N, per engine, with RSS and with PSS;
    plus the fitted totals extended until they cross (or clearly do not)."""
    _style()
    df = resultado.df
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    colors = {"fijo_kb": "#4c72b0", "ayudantes_kb": "#dd8452", "cgroup_kb": "#55a868"}
    labels = {"fijo_kb": "procesos fijos (dockerd + containerd)", "ayudantes_kb": "ayudantes (shim / conmon)",
              "cgroup_kb": "memoria de los cgroups"}
    for row, base in enumerate(("rss", "pss")):
        bill = escala.memory_bill(df, base)
        ax = axes[row, 0]
        engines_here = [e for e in ("docker", "podman") if e in set(bill["engine"])]
        ns = sorted(bill["n"].unique())
        width = 0.38
        x = np.arange(len(ns))
        for i, engine_name in enumerate(engines_here):
            g = bill[bill["engine"] == engine_name].set_index("n").reindex(ns)
            bottom = np.zeros(len(ns))
            for part in ("fijo_kb", "ayudantes_kb", "cgroup_kb"):
                values = g[part].fillna(0).to_numpy() / MB
                ax.bar(x + (i - 0.5) * width, values, width, bottom=bottom, color=colors[part],
                       edgecolor="white", hatch="" if engine_name == "docker" else "//",
                       label=labels[part] if i == 0 else None)
                bottom += values
            for xi, total in zip(x, bottom):
                ax.text(xi + (i - 0.5) * width, total, _engine(engine_name)[0], ha="center", va="bottom",
                        fontsize=8)
        ax.set_xticks(x, [str(n) for n in ns])
        ax.set(xlabel="contenedores (N)  —  D = Docker, P = Podman (rayado)", ylabel="memoria (MB)",
               title=f"Factura de memoria medida ({base.upper()})")
        ax.legend(fontsize=8)
        # fitted lines and the crossover
        ax2 = axes[row, 1]
        c = escala.crossover(df, base)
        fit = c["fit"]
        n_max = max(ns) if ns else 20
        n_cross = c["n_cruce"]
        horizon = max(escala.SEED_CROSSOVER * 1.5, n_max * 2, (n_cross or 0) * 1.3)
        grid = np.linspace(0, horizon, 200)
        for engine_name, params in fit.items():
            ax2.plot(grid, (params["fijo_kb"] + params["por_contenedor_kb"] * grid) / MB,
                     label=f"{_engine(engine_name)}: {num(params['fijo_kb'] / MB, 0)} MB + "
                           f"{num(params['por_contenedor_kb'] / MB, 1)} MB × N")
            g = bill[bill["engine"] == engine_name]
            ax2.scatter(g["n"], g["total_kb"] / MB, s=20)
        ax2.axvline(escala.SEED_CROSSOVER, color="grey", ls=":", label=f"cruce según la semilla (≈{escala.SEED_CROSSOVER})")
        if n_cross is not None:
            ax2.axvline(n_cross, color="red", ls="--", label=f"cruce medido: N ≈ {num(n_cross, 0)}")
        else:
            ax2.text(0.98, 0.04, "las rectas no se cruzan: Podman gasta menos para todo N",
                     transform=ax2.transAxes, ha="right", va="bottom", fontsize=9, color="red")
        ax2.set(xlabel="contenedores (N)", ylabel="memoria total estimada (MB)",
                title=f"Total ajustado y punto de cruce ({base.upper()})")
        ax2.set_xlim(0, horizon)
        ax2.set_ylim(bottom=0)
        ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- sentences
def _mb(kb: float, digits: int = 0) -> str:
    return fmt(kb / MB, digits, "MB")


@needs_result
def veredicto(resultado: Resultado) -> str:
    """The verdict on the seed's crossover claim, with RSS and with PSS, in Spanish (Markdown)."""
    df = resultado.df
    lines = []
    seed_n = escala.reference_crossover(reference.load("escala"))
    lines.append(f"**Afirmación de la semilla:** Docker paga un impuesto fijo de memoria (el daemon, unos 184 MB) "
                 f"y Podman un conmon por contenedor, así que Podman pasaría a gastar más a partir de unos "
                 f"{escala.SEED_CROSSOVER} contenedores (con su propia tabla, la cuenta da {num(seed_n, 0)}).")
    for claim in escala.claims(df, resultado.meta):
        if not claim.key.startswith("cruce_"):
            continue
        base = claim.key.split("_")[1].upper()
        if claim.status == "sin_datos":
            lines.append(f"- Con {base}: {VERDICT['sin_datos']}; hacen falta Docker y Podman en la misma corrida.")
            continue
        fit = claim.detail["fit"]
        d, p = fit["docker"], fit["podman"]
        seed_model = claim.detail.get("n_cruce_modelo_semilla")
        text = (f"- Con {base}: Docker cuesta {_mb(d['fijo_kb'])} fijos más {_mb(d['por_contenedor_kb'], 1)} por "
                f"contenedor (shim + cgroup); Podman, {_mb(p['fijo_kb'])} fijos más "
                f"{_mb(p['por_contenedor_kb'], 1)} por contenedor (conmon + cgroup). ")
        if claim.detail["n_cruce"] is None:
            text += ("Como cada contenedor de Docker cuesta más que uno de Podman, las rectas **no se cruzan**: "
                     "Podman gasta menos memoria para cualquier N. ")
        else:
            text += f"Las rectas se cruzan en N ≈ {num(claim.detail['n_cruce'], 0)}. "
        if seed_model:
            text += (f"Con la cuenta de la semilla (solo dockerd frente a conmon) tus datos darían N ≈ "
                     f"{num(seed_model, 0)}. ")
        text += f"Veredicto: la afirmación **{VERDICT[claim.status]}**."
        lines.append(text)
    lines.append("La semilla olvidó los shims de containerd: uno por contenedor de Docker, y cada uno pesa "
                 "varias veces lo que un conmon. Con PSS (memoria compartida repartida entre quienes la "
                 "comparten) el shim pesa menos que con RSS, pero sigue pesando más que un conmon.")
    return "\n\n".join(lines)


@needs_result
def frase_stats(resultado: Resultado) -> str:
    s = escala.stats_vs_cgroup(resultado.df)
    if s.empty:
        return "Esta corrida no cronometró «stats»."
    parts = []
    for _, r in s.iterrows():
        parts.append(f"con {int(r['n'])} contenedores, «{r['engine']} stats --no-stream» tardó "
                     f"{fmt(r['tiempo_stats_cli'], 2, 's')} y leer los cgroups directamente "
                     f"{fmt(r['tiempo_lectura_cgroup'] * 1e3, 1, 'ms')} ({num(r['veces_mas_lento'], 0)} veces menos)")
    return ("En esta corrida, " + "; ".join(parts) + ". Docker calcula las estadísticas tomando muestras "
            "a través del daemon (espera un intervalo para la CPU); Podman, sin daemon, lee el cgroup como los helpers.")


@needs_result
def frase_ruido(resultado: Resultado) -> str:
    r = escala.noise(resultado.df)
    if r.empty:
        return "Sin datos de memoria del sistema."
    noise_mb = np.nanmax(np.abs(r[["ruido_sistema_kb", "ruido_sistema_min_kb", "ruido_sistema_max_kb"]]
                                .to_numpy(dtype=float))) / MB
    small = r.sort_values("cgroup_total_kb").iloc[0]
    return (f"Tras borrar todos los contenedores, la memoria «usada» del sistema llegó a moverse "
            f"{num(noise_mb, 1)} MB, cuando debería haber vuelto a su valor inicial; mientras tanto, "
            f"{int(small['n'])} contenedor(es) de {_engine(small['engine'])} sumaban apenas "
            f"{num(small['cgroup_total_kb'], 0)} KB en sus cgroups. Con ese ruido, `free -m` no sirve para "
            "medir contenedores; la suma de cgroups sí.")


@needs_result
def frase_referencia(resultado: Resultado) -> str:
    c = escala.compare(resultado.df, resultado.meta, reference.load("escala")).set_index("medida")
    out = []
    labels = {"ms_por_contenedor": "el arranque por contenedor", "kb_por_contenedor": "la memoria de cgroup por contenedor",
              "memoria_proceso_kb": "la memoria del daemon frente a la de los conmon"}
    agree, disagree = [], []
    for key, label in labels.items():
        ref, live = c.loc[key, "ref_podman_sobre_docker"], c.loc[key, "tu_podman_sobre_docker"]
        if any(isinstance(v, float) and math.isnan(v) for v in (ref, live)):
            continue
        text = f"{label} (Podman/Docker: semilla {ref:.2f}, tú {live:.2f})"
        (agree if 0.5 <= live / ref <= 2 and (ref < 1) == (live < 1) else disagree).append(text)
    if agree:
        out.append("Coincide con la semilla, dentro de un factor 2: " + "; ".join(agree) + ".")
    if disagree:
        out.append("No coincide: " + "; ".join(disagree) + ".")
    return " ".join(out) or "Faltan datos de Docker o de Podman para comparar con la semilla."


@needs_result
def mostrar_veredicto(resultado: Resultado) -> None:
    markdown(veredicto(resultado))
