"""What a person sees of experiment 3 (RUNNING): tables, seaborn plots and Spanish verdicts.

Every function takes a Resultado or None (nothing measured yet: the Spanish notice), displays itself and
never launches a container.
"""
from __future__ import annotations

import math

import pandas as pd

from .. import reference
from ..experiments import ejecucion as exp
from ..experiments.base import Resultado
from .common import ENGINE_LABEL, VERDICT, fmt, fmt_interval, markdown, needs_result, show, table

ENTORNO = {"bare": "bare metal (binarios del host)", "chroot": "bare metal (chroot, binarios de la imagen)",
           "docker": "Docker", "podman": "Podman"}
ENTORNO_CORTO = {"bare": "bare metal", "chroot": "chroot", "docker": "Docker", "podman": "Podman"}
CARGA = exp.WORKLOAD_NAMES
LUGAR = exp.PLACE_NAMES
LUGAR_CORTO = {"capa": "capa overlay", "volumen": "volumen", "host": "disco host"}
METRICA = {exp.METRIC_E2E: "extremo a extremo", exp.METRIC_WORK: "trabajo solo"}
BASE = {"bare": "binarios del host", "chroot": "chroot (misma imagen)", "host": "disco del host"}
def _nombre(carga: str, lugar: str = "") -> str:
    return CARGA.get(carga, carga) + (f" — {LUGAR.get(lugar, lugar)}" if lugar else "")


def _pct(value: float, low: float, high: float) -> str:
    if value is None or math.isnan(value):
        return "—"
    return f"{value:+.1f} % [{low:+.1f}, {high:+.1f}]"


# ---------------------------------------------------------------- tables
@needs_result
def tabla(resultado: Resultado):
    """Medians per workload and environment: end to end and the work alone."""
    s = exp.summarize(resultado.df, resultado.meta)
    s = s[s["carga"] != exp.EXEC_TRUE]
    rows = []
    for (carga, lugar, entorno), g in s.groupby(["carga", "lugar", "entorno"], sort=False):
        e2e = g[g["metric"] == exp.METRIC_E2E]
        work = g[g["metric"] == exp.METRIC_WORK]
        row = {"carga": _nombre(carga, lugar), "entorno": ENTORNO.get(entorno, entorno)}
        for label, part in (("extremo a extremo", e2e), ("trabajo solo", work)):
            if len(part):
                r = part.iloc[0]
                row[f"{label}: mediana (s)"] = fmt(r["mediana_s"], 3)
                row[f"{label}: IQR (s)"] = fmt_interval(r["q1_s"], r["q3_s"], 3)
            else:
                row[f"{label}: mediana (s)"] = row[f"{label}: IQR (s)"] = "—"
        mbs = work["mb_por_s"].iloc[0] if len(work) else float("nan")
        row["MB/s (trabajo)"] = fmt(mbs, 0)
        row["n"] = int(work["n"].iloc[0]) if len(work) else int(e2e["n"].iloc[0])
        rows.append(row)
    show(table(pd.DataFrame(rows), "Tiempos por carga y entorno (mediana, IQR con cuantiles tipo 7)"))


@needs_result
def tabla_exec(resultado: Resultado):
    """What `exec` costs per engine: `exec true`, and end to end minus the work, per workload."""
    costs = exp.exec_costs(resultado.df)
    rows = [{"entorno": ENTORNO_CORTO.get(r["entorno"], r["entorno"]),
             "medida": "exec true (extremo a extremo)" if r["medida"] == exp.EXEC_TRUE
             else f"{_nombre(*(r['medida'].split(':') + [''])[:2])}: extremo a extremo − trabajo",
             "mediana (ms)": fmt(r["mediana_ms"], 2), "IC 95 % (ms)": fmt_interval(r["ic_bajo_ms"], r["ic_alto_ms"], 2),
             "n": r["n"]} for _, r in costs.iterrows()]
    show(table(pd.DataFrame(rows), "Costo de entrar al contenedor con exec (en bare metal: crear un proceso)"))


@needs_result
def tabla_sobrecarga(resultado: Resultado, metrica: str = exp.METRIC_WORK) -> None:
    """Overhead % against bare metal, with IC 95 % and a verdict per row."""
    o = exp.overheads(resultado.df, metrica)
    rows = [{"carga": _nombre(r["carga"], r["lugar"]), "entorno": ENTORNO_CORTO.get(r["entorno"], r["entorno"]),
             "frente a": BASE.get(r["base"], r["base"]),
             "sobrecarga [IC 95 %]": _pct(r["sobrecarga_pct"], r["ic_bajo_pct"], r["ic_alto_pct"]),
             "veredicto": r["veredicto"]} for _, r in o.iterrows()]
    show(table(pd.DataFrame(rows), f"Sobrecarga ({METRICA[metrica]}) frente a bare metal; IC 95 % por bootstrap"))


# ---------------------------------------------------------------- plots
def _plot_frame(df: pd.DataFrame) -> pd.DataFrame:
    data = exp.tidy(df)
    data = data[data["carga"] != exp.EXEC_TRUE].copy()
    data["medida"] = data["metric"].map(METRICA)
    data["entorno_es"] = [ENTORNO_CORTO.get(e, e) + (f"\n{LUGAR_CORTO[lugar]}" if lugar else "")
                          for e, lugar in zip(data["entorno"], data["lugar"])]
    return data


@needs_result
def grafico(resultado: Resultado):
    """One panel per workload: every repetition, end to end next to the work alone."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    data = _plot_frame(resultado.df)
    cargas = [c for c in exp.WORKLOADS if c in set(data["carga"])]
    fig, axes = plt.subplots(1, len(cargas), figsize=(4.2 * len(cargas), 4.2), squeeze=False)
    for ax, carga in zip(axes[0], cargas):
        part = data[data["carga"] == carga]
        sns.stripplot(data=part, x="entorno_es", y="value", hue="medida", dodge=True, ax=ax, size=5,
                      hue_order=list(METRICA.values()))
        ax.set_title(CARGA[carga])
        ax.set_xlabel("")
        ax.set_ylabel("tiempo (s)")
        ax.set_ylim(bottom=0)
        ax.tick_params(axis="x", labelsize=8, labelrotation=30 if carga == "escritura" else 0)
        if ax is not axes[0][0] and ax.get_legend():
            ax.get_legend().remove()
    if axes[0][0].get_legend():
        axes[0][0].legend(title="medida", fontsize=8)
    fig.suptitle("Cada repetición: el comando completo frente al trabajo medido dentro del entorno")
    fig.tight_layout()
    plt.show()


@needs_result
def grafico_sobrecarga(resultado: Resultado):
    """Overhead % of the work alone, with its IC 95 %, against the fairest baseline of each workload."""
    import matplotlib.pyplot as plt

    o = exp.overheads(resultado.df, exp.METRIC_WORK)
    with_chroot = set(o.loc[o["base"] == "chroot", "carga"])
    keep = o[[(b == "host") or (b == "chroot") or (b == "bare" and c not in with_chroot) or
              (b == "bare" and e == "chroot") for c, b, e in zip(o["carga"], o["base"], o["entorno"])]]
    if keep.empty:
        return
    labels = [f"{_nombre(c, lugar)}\n{ENTORNO_CORTO[e]} frente a {BASE[b]}"
              for c, lugar, e, b in zip(keep["carga"], keep["lugar"], keep["entorno"], keep["base"])]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(keep) + 1.5))
    y = list(range(len(keep)))[::-1]
    colors = ["tab:gray" if v == "indistinguible del ruido" else "tab:red" if v == "más lento" else "tab:green"
              for v in keep["veredicto"]]
    for yi, color, (_, r) in zip(y, colors, keep.iterrows()):
        ax.errorbar([r["sobrecarga_pct"]], [yi], xerr=[[r["sobrecarga_pct"] - r["ic_bajo_pct"]],
                                                       [r["ic_alto_pct"] - r["sobrecarga_pct"]]],
                    fmt="o", color=color, capsize=3)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("sobrecarga del trabajo solo (%) con IC 95 %\n(gris: indistinguible del ruido)")
    ax.set_title("Sobrecarga de ejecución (RUNNING) frente a bare metal")
    fig.tight_layout()
    plt.show()


# ---------------------------------------------------------------- verdicts
def _claim_sentence(c) -> str:
    d = c.detail
    engine = ENGINE_LABEL.get(d.get("engine"), d.get("engine", ""))
    if c.status == "sin_datos":
        return f"- **{c.statement}**: sin datos en esta corrida."
    if c.key == "exec_1ms":
        return (f"- **{c.statement}**: {VERDICT[c.status]}. `{d['engine']} exec CONTENEDOR true` tardó una mediana "
                f"de {c.value:.1f} ms (IC 95 % {c.low:.1f}–{c.high:.1f} ms): entrar al contenedor cuesta "
                f"{c.value:.0f} veces más que el milisegundo que se suponía.")
    if c.key == "hash_24":
        def part(key, text):
            v = d.get(key)
            return f"{text} {_pct(*v)} ({exp.noise_verdict(v[1], v[2])})" if v else f"{text}: sin datos"
        why = {"userland": "la diferencia viene de los binarios: la imagen trae otra versión de las herramientas "
                           "que el host, y con el mismo userland (chroot) el contenedor no se distingue",
               "contenedor": "incluso con los mismos binarios (chroot) el contenedor se distingue: ahí sí hay "
                             "un efecto del propio contenedor (o del ruido de la máquina compartida)",
               "ninguna": "ni el userland ni el contenedor cambian el tiempo del hash de forma medible: aquí "
                          "las dos líneas base coinciden",
               "sin_datos": "falta la línea base chroot para separar userland de contenedor"}[d.get("explicacion", "sin_datos")]
        return (f"- **{c.statement}**: {VERDICT[c.status]}. Medido como la semilla (exec extremo a extremo, "
                f"binarios del host) la sobrecarga es {_pct(c.value, c.low, c.high)}. "
                f"{part('trabajo_vs_host', 'El trabajo solo frente a los binarios del host:')}; "
                f"{part('trabajo_vs_chroot', 'frente al chroot de la misma imagen:')}; "
                f"{part('chroot_vs_host', 'y el chroot frente al host:')}. Conclusión: {why}.")
    if c.key == "overlay_20":
        return (f"- **{c.statement}**: {VERDICT[c.status]}. En {engine}, escribir con fsync en la capa del "
                f"contenedor costó {_pct(c.value, c.low, c.high)} frente al disco del host (la semilla decía +20 %).")
    if c.key == "volumen_nativo":
        return (f"- **{c.statement}**: {VERDICT[c.status]}. En {engine}, el volumen quedó a "
                f"{_pct(c.value, c.low, c.high)} del disco del host.")
    return f"- **{c.statement}**: {VERDICT.get(c.status, c.status)}."


@needs_result
def veredictos(resultado: Resultado) -> None:
    """The seed's claims, each with its verdict and the data behind it."""
    lines = [_claim_sentence(c) for c in exp.claims(resultado.df, resultado.meta)]
    markdown("**Veredictos sobre las afirmaciones de la semilla** (IC 95 % por bootstrap; si el intervalo "
             "contiene 0 %, la diferencia es indistinguible del ruido):\n\n" + "\n".join(lines))


@needs_result
def comparacion(resultado: Resultado):
    """Seed 000's hash and sort next to this run, plus one sentence on what agrees."""
    cmp = exp.compare(resultado.df, resultado.meta, reference.load(exp.EXPERIMENT))
    rows = []
    for _, r in cmp.iterrows():
        rows.append({"carga": CARGA[r["carga"]], "entorno": ENTORNO_CORTO[r["entorno"]],
                     "semilla: mediana (s)": fmt(r["ref_mediana_s"], 3),
                     "tú: extremo a extremo (s)": fmt(r["tu_mediana_e2e_s"], 3),
                     "tú: trabajo solo (s)": fmt(r["tu_mediana_trabajo_s"], 3),
                     "semilla: sobrecarga": "—" if r["entorno"] == "bare" else f"{r['ref_sobrecarga_pct']:+.1f} %",
                     "tú: sobrecarga como la semilla": "—" if r["entorno"] == "bare" else
                     _pct(r["tu_sobrecarga_e2e_pct"], *r["tu_sobrecarga_e2e_ic"]),
                     "tú: trabajo solo frente a chroot": "—" if r["entorno"] == "bare" else
                     _pct(r["tu_sobrecarga_trabajo_chroot_pct"], *r["tu_sobrecarga_trabajo_chroot_ic"])})
    show(table(pd.DataFrame(rows), "Semilla 000 (Docker 28.4, Podman 4.6.2, Linux 6.12) frente a esta máquina"))
    markdown(frase_comparacion(cmp))
    return cmp


def frase_comparacion(cmp: pd.DataFrame) -> str:
    """One Spanish sentence: where the sign of the seed's overhead agrees with this run, and where not."""
    agree, noise, opposite = [], [], []
    for _, r in cmp[cmp["entorno"] != "bare"].iterrows():
        lo, hi = r["tu_sobrecarga_e2e_ic"]
        if any(math.isnan(v) for v in (lo, hi, r["ref_sobrecarga_pct"])):
            continue
        name = f"{r['carga']} en {ENTORNO_CORTO[r['entorno']]}"
        if lo <= 0 <= hi:
            noise.append(name)
        elif (lo > 0) == (r["ref_sobrecarga_pct"] > 0):
            agree.append(name)
        else:
            opposite.append(name)
    parts = []
    if agree:
        parts.append(f"coincide con la semilla en el signo de la sobrecarga para {', '.join(agree)}")
    if opposite:
        parts.append(f"da el signo contrario en {', '.join(opposite)}")
    if noise:
        parts.append(f"no distingue contenedor de bare metal (el IC 95 % contiene 0 %) en {', '.join(noise)}, "
                     "donde la semilla sí veía una diferencia")
    if not parts:
        return "No hay filas comparables con la semilla en esta corrida."
    return ("Medido como la semilla (exec extremo a extremo frente a los binarios del host), esta máquina "
            + "; ".join(parts) + ". Los tiempos absolutos no se comparan: son de otra máquina.")
