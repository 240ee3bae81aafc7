"""Experiment 8 as a person sees it: system containers vs VMs. Every figure of an emulated VM (TCG)
says «emulada» in its label."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import experiments, reference, stats
from ..engines import DISPLAY
from ..experiments import sistema_vm as exp
from ..experiments import verdict as vd
from ..experiments.runner import Resultado
from ..experiments.sistema_vm import kinds, network, workload
from ..experiments.sistema_vm.analysis import compare, summarize
from . import sistema_vm_densidad as densidad_vista
from .common import (
    claims_list,
    fmt,
    fmt_interval,
    fmt_pct,
    fmt_ratio,
    fmt_value,
    fmt_value_interval,
    markdown,
    needs_result,
    show,
    table,
    too_few_banner,
)
from .figuras import show_figure
from .numbers import decimals_for, significant

METRIC_LABEL = {
    kinds.ARRANQUE: "arranque hasta «listo»",
    kinds.DISCO: "disco que añade una instancia",
    kinds.PSS: "memoria en reposo por instancia (PSS)",
    "memoria_rss_instancia": "memoria en reposo por instancia (RSS)",
    exp.DISPONIBLE: "caída de la memoria disponible del host por instancia",
    exp.ANTES: "memoria antes de tocar",
    exp.DURANTE: "memoria con el bloque tocado",
    exp.DESPUES: "memoria después de liberarlo",
    kinds.DESPUES_HUESPED: "de ella, RAM del huésped que QEMU sigue teniendo (VM)",
    kinds.DESPUES_QEMU: "de ella, memoria de QEMU mismo: emulador, caché de TCG, kernel e initramfs (VM)",
    exp.RETENIDA: "memoria liberada que el host no recupera",
    exp.GZIP: "gzip (solo el trabajo)",
    exp.FIO: "fio: lecturas y escrituras de 4 KiB al azar, E/S directa (IOPS)",
    exp.RED: "red: iperf3 del host a la instancia por 127.0.0.1 (Gbit/s)",
    exp.DISCO_ESCRITO: "disco que escribió el contenedor de sistema con motor (imágenes, capas, registros)",
    "lxd_crear": "LXD: crear (en «dir», copia y cambio de dueños; en btrfs, una instantánea)",
    "lxd_iniciar": "LXD: iniciar",
    "lxd_systemd": "LXD: de `lxc start` a su propia señal de «listo» (systemd terminó de arrancar)",
    "memoria_pss_monitor": "PSS del [lxc monitor] de cada instancia",
    "memoria_pss_daemon": "PSS del daemon de LXD (una vez, para todas)",
    "run_motor": "run --rm … echo ok (host o anidado)",
}
COLOR = {
    "proceso": "#555555",
    "aplicacion": "#4C72B0",
    "sistema": "#55A868",
    "vm_kvm": "#C44E52",
    "vm_emulada": "#DD8452",
    "sistema_systemd": "#8172B3",
    "sistema_lxd": "#2E8B57",
    "sistema_lxd_cow": "#3CB371",
    "anfitrion": "#4C72B0",
    "anidado_lxd": "#8C564B",
    "vm_systemd_kvm": "#937860",
    "vm_systemd_emulada": "#DA8BC3",
}
# The reference stores the post's decimal MB in MiB, like every figure here; the page adds the post's MB back
MB_IN_MIB = 1e6 / 2**20


def _etiqueta(variant: str) -> str:
    """The Spanish name of a kind of instance; an emulated VM always says so."""
    return kinds.kind_label(variant)


def _present(df: pd.DataFrame, metric: str) -> list[str]:
    have = set(df.loc[df["metric"] == metric, "variant"])
    return [v for v in kinds.VARIANT_ORDER if v in have]


@needs_result
def aceleracion(resultado: Resultado) -> None:
    """One line: KVM or emulation, and why."""
    info = resultado.meta.get("vm") or {}
    skipped = (resultado.meta.get("skipped_arms") or {}).get("VM")
    if skipped:
        text = f"**Sin VM en esta corrida:** {skipped}"
    elif info.get("acceleration") == "kvm":
        text = f"**VM acelerada (KVM).** {info.get('reason', '')}"
    elif info:
        text = (
            f"**VM emulada (TCG).** {info.get('reason', '')} Sus cifras llevan la marca «emulada»: "
            "sirven para ver los mecanismos (memoria retenida, disco), no para juzgar la velocidad de una VM."
        )
    else:
        text = "Esta corrida no midió ninguna VM."
    markdown(text)


def ventanas() -> None:
    """What each timed window of the boot holds, per kind (kinds.WINDOWS, the data the measuring code
    follows): no run changes it."""
    names = {"vm": "VM (QEMU, con KVM o emulada)", "vm_systemd": "VM con systemd (QEMU, con KVM o emulada)"}
    rows = [
        {"Instancia": names.get(kind) or kinds.kind_label(kind), "Dentro de la ventana": what}
        for kind, what in kinds.WINDOWS.items()
    ]
    rows += [
        {"Instancia": f"LXD, fase «{phase}»", "Dentro de la ventana": what}
        for phase, what in kinds.LXD_WINDOWS.items()
    ]
    show(table(pd.DataFrame(rows), "Arranque hasta «listo»: qué cae dentro de cada ventana"))


@needs_result
def tabla(resultado: Resultado) -> None:
    """Median, IQR, IC 95 % per metric and kind of instance; gzip also × bare metal."""
    s = summarize(resultado.df, resultado.meta)
    if s.empty:
        markdown("_Esta corrida no tiene filas todavía._")
        return
    s = s[s["metrica"] != "memoria_rss_instancia"]
    s = s[~s["metrica"].astype(str).str.startswith("densidad_")]  # the density phase: `densidad`
    rows = []
    for _, r in s.iterrows():
        digits = _digits(r["mediana"], r["ic_bajo"], r["ic_alto"])
        ratio = (
            fmt_ratio(r.get("x_bare", math.nan), *_ci_from_min_n(r, "x_bare_bajo", "x_bare_alto"))
            if r["metrica"] == kinds.GZIP and r["tipo"] != exp.BASELINE[1]
            else ""
        )
        rows.append(
            {
                "Medida": METRIC_LABEL.get(r["metrica"], r["metrica"]),
                "Instancia": _etiqueta(r["tipo"])
                + (f" ({DISPLAY.get(r['motor'], r['motor'])})" if r["metrica"] == "run_motor" else ""),
                "n": int(r["n"]),
                "Mediana [IC 95 %]": _median_cell(r) + (" (inestable)" if r["inestable"] else ""),
                "IQR": fmt_interval(r["q1"], r["q3"], digits) if r["n"] > 1 else "",
                "× bare metal [IC 95 %]": ratio,
            }
        )
    out = pd.DataFrame(rows)
    show(
        table(
            out,
            "Contenedores y VM: medianas con su IC 95 % (sin distribución supuesta, desde "
            f"{vd.MIN_N} repeticiones) e IQR",
        )
    )


def _ci_from_min_n(r, low: str, high: str) -> tuple[float, float]:
    return (r.get(low), r.get(high)) if r["n"] >= vd.MIN_N else (math.nan, math.nan)


def _median_cell(r) -> str:
    """A median with its IC 95 % from MIN_N repetitions on (below, no interval reaches 95 %: the median
    alone, with 3 significant digits); a share of the block (retained memory) without a sign."""
    n_ok = r["n"] >= vd.MIN_N
    low, high = (r["ic_bajo"], r["ic_alto"]) if n_ok else (math.nan, math.nan)
    if r["unidad"] == "%":
        return _share(r["mediana"], low, high)
    if not n_ok:
        return fmt_value(r["mediana"], r["unidad"], significant(r["mediana"]))
    return fmt_value_interval(r["mediana"], low, high, r["unidad"])


def _digits(value: float, low: float, high: float) -> int:
    """Decimals that match the interval (or 3 significant digits without one): no false precision."""
    digits = decimals_for(low, high)
    return significant(value) if digits is None else digits


def _strip(ax, df: pd.DataFrame, metric: str, xlabel: str, log: bool = False) -> None:
    variants = _present(df, metric)
    for i, variant in enumerate(variants):
        values = df[(df["metric"] == metric) & (df["variant"] == variant)]["value"].astype(float).to_numpy()
        jitter = np.linspace(-0.15, 0.15, len(values)) if len(values) > 1 else np.zeros(1)
        ax.scatter(values, i + jitter, color=COLOR.get(variant, "gray"), alpha=0.7, s=40)
        ax.plot([np.median(values)] * 2, [i - 0.3, i + 0.3], color="black", lw=2)
    ax.set_yticks(range(len(variants)), [_etiqueta(v) for v in variants], fontsize=12)
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel, fontsize=12)
    ax.grid(axis="x", which="both", alpha=0.3)


@needs_result
def grafico(resultado: Resultado) -> None:
    """Provisioning time to ready, every repetition a dot, the median a bar (log scale)."""
    df = resultado.df
    if not _present(df, kinds.ARRANQUE):
        markdown("_No hay arranques que dibujar._")
        return
    fig, ax = plt.subplots(figsize=(10, 3.5))
    _strip(ax, df, kinds.ARRANQUE, "tiempo hasta «listo» (ms, escala logarítmica)", log=True)
    ax.set_title("Arranque: cada punto es una instancia nueva; la barra negra, la mediana", fontsize=13)
    fig.tight_layout()
    show_figure(fig)


@needs_result
def grafico_memoria(resultado: Resultado) -> None:
    """Left: memory of one idle instance (PSS). Right: the host's view before touching, while touched
    and after freeing the block inside the instance."""
    df = resultado.df
    variants = [v for v in _present(df, kinds.ANTES)]
    if not variants:
        markdown("_No hay mediciones de memoria que dibujar._")
        return
    # One row per kind, shared by both panels: the labels are written once, on the left, never crowded
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 1.8 + 0.7 * len(variants)), sharey=True)
    idle = [float(df[(df["metric"] == kinds.PSS) & (df["variant"] == v)]["value"].median()) for v in variants]
    left.barh(range(len(variants)), idle, color=[COLOR.get(v, "gray") for v in variants])
    left.set_yticks(range(len(variants)), [_etiqueta(v) for v in variants], fontsize=12)
    left.set_xlabel("MiB por instancia en reposo\n(PSS de todos sus procesos)", fontsize=12)
    left.set_title("En reposo", fontsize=13)
    if idle and max(idle) > 0:
        left.set_xlim(0, max(idle) * 1.3)  # room for the value labels
    for i, value in enumerate(idle):
        left.text(value, i, " " + fmt_value(value, "MB", significant(value)), va="center", fontsize=11)
    phases = [(kinds.ANTES, "antes"), (kinds.DURANTE, "tocado"), (kinds.DESPUES, "liberado")]
    height = 0.25
    for j, (metric, label) in enumerate(phases):
        values = [
            float(df[(df["metric"] == metric) & (df["variant"] == v)]["value"].median()) for v in variants
        ]
        right.barh(
            np.arange(len(variants)) + (1 - j) * height,
            values,
            height,
            label=label,
            color=["#BBBBBB", "#4C4C4C", "#8C8C8C"][j],
        )
    right.set_xlabel("MiB que el host tiene asignados\n(cgroup: anónima; VM: RSS de QEMU)", fontsize=12)
    right.set_title("Tocar y liberar un bloque dentro de la instancia", fontsize=13)
    right.legend(fontsize=10, loc="lower right")
    fig.tight_layout()
    show_figure(fig)


@needs_result
def grafico_gzip(resultado: Resultado) -> None:
    """gzip time per kind as × bare metal, with its IC 95 %."""
    s = summarize(resultado.df, resultado.meta)
    s = s[(s["metrica"] == kinds.GZIP) & (s["tipo"] != exp.BASELINE[1])] if not s.empty else s
    if s.empty or "x_bare" not in s:
        markdown("_No hay gzip que dibujar._")
        return
    s = s.set_index("tipo").loc[[v for v in kinds.VARIANT_ORDER if v in set(s["tipo"])]]
    fig, ax = plt.subplots(figsize=(10, 3.2))
    y = np.arange(len(s))
    err = np.array([s["x_bare"] - s["x_bare_bajo"], s["x_bare_alto"] - s["x_bare"]])
    ax.barh(y, s["x_bare"], xerr=err, color=[COLOR.get(v, "gray") for v in s.index], capsize=5)
    ax.axvline(1, color="black", lw=1, ls="--")
    ax.set_yticks(
        y,
        [_etiqueta(v) + ("\n(costo de emular la CPU)" if kinds.is_emulated(v) else "") for v in s.index],
        fontsize=12,
    )
    ax.set_xlabel("tiempo de gzip × bare metal (barra: IC 95 %)", fontsize=12)
    ax.set_title("Trabajo de CPU: 1 = igual que sin contenedor", fontsize=13)
    fig.tight_layout()
    show_figure(fig)
    markdown(workload.sentence(resultado.meta.get("gzip")))


def _per_instance(
    resultado: Resultado, metric: str, skipped: str, what: str, xlabel: str, title: str
) -> bool:
    """One workload per kind, every repetition a dot, the median a bar; or why the run did not measure it.
    True when there was something to draw."""
    df = resultado.df
    if not _present(df, metric):
        reason = (resultado.meta.get("skipped_arms") or {}).get(skipped)
        markdown(f"_Esta corrida no midió {what}{': ' + reason if reason else '.'}_")
        return False
    fig, ax = plt.subplots(figsize=(10, 3.5))
    _strip(ax, df, metric, xlabel)
    ax.set_xlim(left=0)
    ax.set_title(f"{title}; la barra negra, la mediana", fontsize=13)
    fig.tight_layout()
    show_figure(fig)
    return True


@needs_result
def grafico_disco(resultado: Resultado) -> None:
    """Disk I/O (fio IOPS) per kind."""
    title = "Disco: fio dentro de cada instancia"
    _per_instance(resultado, exp.FIO, "fio", "el disco", "IOPS de lectura + escritura (más es mejor)", title)


@needs_result
def grafico_red(resultado: Resultado) -> None:
    """Network (iperf3 Gbit/s) per scenario; then the sentence naming the hops of each path."""
    xlabel = "Gbit/s que recibe el cliente iperf3 (más es mejor)"
    title = "Red: iperf3 dentro de cada instancia, cliente en el host"
    if _per_instance(resultado, exp.RED, "red (iperf3)", "la red", xlabel, title):
        markdown(network.paths_sentence(_present(resultado.df, exp.RED)))


def _why_no_nested(meta: dict | None) -> str:
    """Why a run has no nested engine: not asked for (TIPOS, as the quick profile leaves it out), or
    no LXD."""
    kinds_asked = ((meta or {}).get("parameters") or {}).get("tipos")
    if kinds_asked is not None and kinds.NESTED not in kinds_asked:
        return f"_Esta corrida no midió el motor anidado (TIPOS sin «{kinds.NESTED}»)._"
    return "_Esta corrida no midió el motor anidado (hace falta LXD o Incus: mira 00_entorno)._"


@needs_result
def anidado(resultado: Resultado) -> None:
    """Scenario 3: the same `run --rm … echo ok` on the host and nested in an unprivileged LXD system
    container, per engine, with the ratio and its IC; and the user namespace that made it possible."""
    df = resultado.df
    sel = df[df["metric"] == "run_motor"]
    if sel.empty:
        markdown(_why_no_nested(resultado.meta))
        return
    rows = []
    for engine in sorted(set(sel["engine"])):
        host = sel[(sel["engine"] == engine) & (sel["variant"] == "anfitrion")]["value"].astype(float)
        nested = sel[(sel["engine"] == engine) & (sel["variant"] == "anidado_lxd")]["value"].astype(float)
        if host.empty or nested.empty:
            continue
        value, low, high = stats.ratio_ci(nested.to_numpy(), host.to_numpy()).triple
        rows.append(
            {
                "Motor": DISPLAY.get(engine, engine),
                "En el host (mediana)": _ms(host),
                "Anidado en LXD (mediana)": _ms(nested),
                "Anidado / host [IC 95 %]": fmt_ratio(value, low, high),
                "n": int(min(len(host), len(nested))),
            }
        )
    show(table(pd.DataFrame(rows), "Un contenedor dentro de un contenedor de sistema, sin --privileged"))
    nested_meta = resultado.meta.get("nested") or {}
    uid = nested_meta.get("uid_map") or []
    if len(uid) >= 3:
        privileged = "con" if nested_meta.get("privileged") else "sin"
        markdown(
            f"El root del contenedor de sistema es, para el host, el UID {uid[1]} (mapa `{' '.join(uid)}`): "
            "el motor de dentro crea sus contenedores con privilegios que solo valen en ese espacio de "
            f"usuarios. El contenedor de sistema corrió {privileged} `security.privileged`, en el pool "
            f"«{nested_meta.get('pool', '?')}»; los contenedores de dentro, con `--network none`."
        )


def _ms(values) -> str:
    """A median in ms with 3 significant digits, as the rest of the page writes a figure without IC."""
    median = float(np.median(values))
    return fmt_value(median, "ms", significant(median))


@needs_result
def comparacion(resultado: Resultado) -> None:
    """Your figures next to the post's (which it gives in its prose; see SOURCES.md), each with what the
    post measured and what this run did."""
    c = compare(resultado.df, resultado.meta, reference.load(exp.EXPERIMENT))
    if c.empty:
        markdown("_Esta corrida no tiene con qué compararse._")
        return
    rows = []
    for _, r in c.iterrows():
        unit = r["unidad"]
        theirs = r["referencia"]
        source = (
            f"≈ {fmt_value(theirs, unit, 0)} ({fmt(theirs / MB_IN_MIB, 0)} MB en el artículo)"
            if unit == "MB"
            else fmt_value(theirs, unit)
        )
        rows.append(
            {
                "Qué": r["concepto"],
                "Aquí [IC 95 %]": _share(r["aquí"], r["ic_bajo"], r["ic_alto"])
                if unit == "%"
                else fmt_value_interval(r["aquí"], r["ic_bajo"], r["ic_alto"], unit),
                "Artículo (de su texto)": fmt_pct(theirs, 0, sign=False) if unit == "%" else source,
                "Qué midió cada uno": r["condicion"],
            }
        )
    show(table(pd.DataFrame(rows), "Frente al artículo: la misma palabra, a veces otra medida"))


def _share(value: float, low: float, high: float) -> str:
    """A share of something (a percentage that is not a change): no sign, decimals from its IC."""
    digits = _digits(value, low, high)
    text = fmt_pct(value, digits, sign=False)
    return (
        text
        if low != low or high != high
        else f"{text} [{fmt_pct(low, digits, sign=False)[:-2]}, {fmt_pct(high, digits, sign=False)[:-2]}]"
    )


@needs_result
def memoria_y_disco(resultado: Resultado) -> None:
    """What this run says of freed memory and of the disk each instance adds, generated from its data."""
    claims = {c.key: c for c in experiments.judged(resultado)}
    lines = [
        _frase_memoria(resultado.df, claims),
        _frase_qemu(resultado.df, resultado.meta),
        _frase_disco(resultado.df),
    ]
    lines = [line for line in lines if line]
    markdown("\n\n".join(lines) if lines else "_Esta corrida no midió la memoria ni el disco por instancia._")


def _frase_memoria(df: pd.DataFrame, claims: dict) -> str:
    """Where the freed block went, per kind, from the touch-and-free rows (each instance observed)."""
    parts = []
    for key in ("vm_retiene_memoria", "contenedor_devuelve_memoria"):
        claim = claims.get(key)
        kept = (claim.detail or {}).get("retenida_pct") if claim else None
        if not kept:
            continue
        variant = claim.detail["tipo"]
        held = float(np.median(kept))
        n = len(kept)
        if claim.status == vd.SE_CONFIRMA:
            what = (
                "lo retuvo en cada instancia"
                if key == "vm_retiene_memoria"
                else "lo recuperó en cada instancia"
            )
        elif claim.status == vd.NO_SE_SOSTIENE:
            what = (
                "lo recuperó en cada instancia: esta VM devolvió lo liberado"
                if key == "vm_retiene_memoria"
                else "no lo recuperó en ninguna instancia"
            )
        elif vd.too_few_observed(claim):  # what was seen, without a verdict
            seen, times = claim.detail.get("exitos", 0), claim.detail.get("veces", n)
            verb = "lo retuvo" if key == "vm_retiene_memoria" else "lo recuperó"
            what = (
                f"{verb} {seen} de {times} {'vez' if times == 1 else 'veces'}; con menos de "
                f"{vd.MIN_OBSERVED} observaciones, sin veredicto"
            )
        else:
            what = "lo retuvo en unas instancias y en otras no"
        parts.append(
            f"{_etiqueta(variant)[:1].upper()}{_etiqueta(variant)[1:]}: tras liberar el bloque, el host seguía "
            f"con el {fmt_pct(held, 1, sign=False)} (mediana de {densidad_vista.observed_instances(claim)}): {what}."
        )
    return " ".join(parts)


def _frase_qemu(df: pd.DataFrame, meta: dict | None) -> str:
    """What the host still held for each VM kind after the free, split into the guest's RAM and QEMU's
    own (VMInstance.resident_split), medians over its instances; empty without those rows."""
    limit = ((meta or {}).get("vm") or {}).get("memory_mb")
    ram = f"reserva {limit} MiB con `-m {limit}` y " if limit else ""
    out = []
    for variant in sorted(set(df[df["metric"] == kinds.DESPUES_HUESPED]["variant"])):
        rows = df[df["variant"] == variant]
        held, guest, own = (
            float(rows[rows["metric"] == m]["value"].median())
            for m in (exp.DESPUES, kinds.DESPUES_HUESPED, kinds.DESPUES_QEMU)
        )
        if any(math.isnan(v) for v in (held, guest, own)):
            continue
        cache = "su caché de código TCG, " if kinds.is_emulated(variant) else ""
        out.append(
            f"**Lo que retiene la {_etiqueta(variant)}, separado.** Tras liberar el bloque, el host seguía "
            f"teniendo {fmt_value(held, 'MB')} para ella (RSS de QEMU, mediana): "
            f"{fmt_value(guest, 'MB')} son la RAM del huésped (QEMU {ram}solo ocupa lo que el "
            f"huésped llegó a tocar) y {fmt_value(own, 'MB')} son de QEMU mismo (el emulador, {cache}"
            "el kernel y el initramfs que cargó): solo la primera parte es memoria del huésped, y en ella "
            "está lo que la VM retuvo del bloque liberado."
        )
    return "\n\n".join(out)


def _frase_disco(df: pd.DataFrame) -> str:
    """The disk each new instance added, per kind, with its IC when there are enough rounds."""
    parts = []
    for variant in _present(df, kinds.DISCO):
        values = df[(df["metric"] == kinds.DISCO) & (df["variant"] == variant)]["value"].astype(float)
        if values.empty:
            continue
        s = stats.summarize(values.to_numpy())
        figure = (
            fmt_value_interval(s.median, s.ci_low, s.ci_high, "MB")
            if s.n >= vd.MIN_N
            else fmt_value(s.median, "MB", significant(s.median))
        )
        parts.append(f"{_etiqueta(variant)}: {figure}")
    if not parts:
        return ""
    return "Disco que añadió cada instancia nueva (mediana): " + "; ".join(parts) + "."


@needs_result
def veredictos(resultado: Resultado) -> None:
    """The post's claims, judged on this run (one sentence each, from the declared claims); a run below
    the minimum of repetitions says plainly that it shows figures without verdicts."""
    claims = experiments.judged(resultado)
    few = _pocas(claims)
    if few:
        markdown(few)
    claims_list(claims)


def _pocas(claims) -> str:
    """The one «too few repetitions» banner (common.too_few_banner) when every claim measured (not
    observed, not «no comparable») is below MIN_N; observed results are still said."""
    measured = [c.n for c in claims if c.n > 0 and not (c.detail or {}).get("observado")]
    banner = too_few_banner(max(measured, default=0))
    return banner + " Los resultados observados (como la memoria devuelta) sí se dicen." if banner else ""


@needs_result
def densidad(resultado: Resultado) -> None:
    """The density phase: the limits read back, gzip against N per kind, the memory with N at once."""
    failed = densidad_vista.no_arrancaron(resultado.meta)
    if failed:
        markdown(failed)
    if not densidad_vista.variants(resultado.df):
        if not failed:
            markdown(
                "_Esta corrida no tiene la fase de densidad (DENSIDAD = 0, o una corrida anterior a ella)._"
            )
        return
    densidad_vista.limites(resultado)
    if said := densidad_vista.entrada(resultado.meta):
        markdown(said)
    densidad_vista.grafico(resultado, COLOR)
    densidad_vista.memoria(resultado)
