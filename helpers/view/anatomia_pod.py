"""Experiment 4's Kubernetes section as a person sees it: a Pod's LAUNCH beside `docker run` and where
it goes (lanzamiento), and the cluster's memory bill beside Docker's and Podman's (factura), in Spanish.
Its sentences (launch_sentence, phase_sentence, launch_and_phase, bill_sentence, why_absent) are also 09's answer about
Kubernetes: the page and the closing page print them alike."""

from __future__ import annotations

import math

import pandas as pd

from ..experiments.anatomia import pod_analysis
from ..experiments.anatomia.analysis import lead_of
from ..experiments.anatomia.pod import BESIDE, ENGINE, GROUP
from ..experiments.escala import EXPERIMENT as ESCALA
from ..experiments.escala.analysis import fixed_memory, per_container
from ..experiments.escala.probing import KB
from ..experiments.runner import Resultado
from .common import direction_words, engine_label, markdown, needs_result, show, table
from .numbers import fmt, fmt_interval, fmt_pct, fmt_ratio, fmt_value_interval

COMPONENT_LABEL = {
    "apiserver": "kube-apiserver",
    "etcd": "etcd",
    "controller_manager": "kube-controller-manager",
    "scheduler": "kube-scheduler",
    "kubelet": "kubelet",
    "kube_proxy": "kube-proxy",
    "containerd": "containerd (el del clúster)",
    "shims_total": "shims de containerd (uno por Pod)",
    "pause_total": "contenedores pause (uno por Pod; ya dentro del cgroup del Pod)",
}
RESOLUTION = (
    "Las marcas de tiempo de la API (el `lastTransitionTime` de las condiciones del Pod y los eventos) "
    "tienen resolución de un segundo: no sirven para repartir un arranque de uno o dos segundos. Las fases "
    "salen de dos relojes más finos: la llegada de cada cambio del Pod por un *watch* de la API, abierto "
    "antes del `kubectl apply` (reloj de esta máquina), y el registro de containerd, que fecha en "
    "nanosegundos el sandbox y el arranque del contenedor."
)


NO_BILL = (
    "_Sin Kubernetes en esta corrida, tampoco hay factura de memoria del clúster (el porqué, en la sección "
    "del Pod, arriba)._"
)


def why_absent(resultado: Resultado) -> str:
    """One Spanish line: why a run of 04 has no Kubernetes rows (skipped, and why; not asked for, as the
    quick profile does)."""
    skipped = resultado.meta.get("skipped_arms") or {}
    reason = next((why for key, why in skipped.items() if key.startswith("Kubernetes")), None)
    if reason:
        return f"_Se omitió Kubernetes en esta corrida: {reason}_"
    if GROUP not in (resultado.meta.get("parameters") or {}).get("peldaños", []):
        return (
            "_Esta corrida no incluyó Kubernetes (PELDAÑOS sin «kubernetes»). El perfil rápido lo deja "
            "fuera: arrancar y desmontar el clúster lleva más de medio minuto por sí solo._"
        )
    return "_Esta corrida no tiene medidas de Kubernetes._"


def _share(row) -> str:
    """A phase's share of apply → Ready with its IC: «46 % [41, 52]»."""
    return (
        f"{fmt_pct(100 * row['fraccion'], 0, sign=False)} "
        f"{fmt_interval(100 * row['fraccion_ic_bajo'], 100 * row['fraccion_ic_alto'], 0)}"
    )


def launch_sentence(df: pd.DataFrame, meta: dict | None) -> str:
    """A Pod's LAUNCH: `kubectl apply` → Ready with its IC 95 %, and over each engine's `run --rm` with
    the default network of the same rounds, which way it points by the one rule (pod_analysis); "" without
    the Pod's rung."""
    s = pod_analysis.launch_summary(df)["pod"]
    if not s.n:
        return ""
    text = (
        f"Un Pod, de `kubectl apply` a Ready: {fmt_value_interval(s.median, s.ci_low, s.ci_high, 'ms')} "
        f"(mediana e IC 95 %, n = {s.n} rondas)."
    )
    beside = [
        f"{fmt_ratio(*ratio.triple)} lo que `{engine} run --rm` ({engine_label(engine, meta)}, red por "
        f"defecto): {direction_words(code, 'tarda más el Pod', 'tarda menos el Pod', n=ratio.n)}"
        for engine, (ratio, code) in pod_analysis.pod_over_engines(df).items()
    ]
    if beside:
        text += (
            " Ronda a ronda, en las mismas rondas barajadas y con el mismo clúster en marcha, tarda "
            + "; ".join(beside)
            + "."
        )
    if (df["variant"] == BESIDE).any():
        text += (
            " La escalera de arriba se midió antes de arrancar el clúster, para que nada ajeno a cada "
            "peldaño corriera a su lado; el `run` de esta comparación se repitió con el clúster en marcha."
        )
    return text


def phase_sentence(df: pd.DataFrame) -> str:
    """The phase that dominates a Pod's LAUNCH, with its share and IC, named only when it weighs more
    than the next phase round by round (pod_analysis.dominant_phase, 04's rule for the waterfall); ""
    without phases."""
    top, rival, separated = pod_analysis.dominant_phase(df)
    if top is None:
        return ""
    figure = f"{fmt(top['mediana_ms'], 0, 'ms')} de mediana, {_share(top)} del total por ronda"
    if separated:
        text = f"La fase que domina es «{top['fase']}»: {figure}"
        return text + (f"; la siguiente, «{rival['fase']}», {_share(rival)}." if rival is not None else ".")
    lead = fmt_value_interval(lead_of(top), unit="pp")
    return (
        f"Por la mediana, la fase más larga es «{top['fase']}» ({figure}), pero ronda a ronda pesa {lead} "
        f"más que «{rival['fase']}» ({_share(rival)}): con estas rondas no se distingue cuál domina."
    )


def launch_and_phase(df: pd.DataFrame, meta: dict | None) -> str:
    """launch_sentence and phase_sentence together, as 09 and the instructor's kit quote them; ""
    without the Pod's rung."""
    return " ".join(t for t in (launch_sentence(df, meta), phase_sentence(df)) if t)


def bill_sentence(df: pd.DataFrame, escala: Resultado | None) -> str:
    """The cluster's CAPACITY: its fixed processes and one more idle Pod (pod_analysis.cluster_memory), with
    their IC, beside Docker's and Podman's from notebook 02's run `escala` computed the same way (escala.
    analysis: fixed_memory, per_container): figures side by side, no verdict; "" without the bill."""
    memory = pod_analysis.cluster_memory(df)
    if not memory:
        return ""

    def mib(e) -> str:
        return fmt_value_interval(e.value / KB, e.low / KB, e.high / KB, "MiB")

    text = (
        f"El clúster de un nodo retiene {mib(memory['fijo'])} en sus procesos fijos (el plano de control: "
        "kube-apiserver, etcd, controller-manager y scheduler; el kubelet, kube-proxy y su containerd; PSS, "
        f"mediana por ronda e IC 95 %), y cada Pod más en reposo, {mib(memory['por_pod'])} (su shim y su "
        f"cgroup, con el contenedor pause; con N = {memory['n']} Pods)."
    )
    if escala is None or escala.df is None or escala.df.empty:
        return (
            text
            + " Sin corrida del cuaderno 02 en esta máquina no hay factura de Docker ni de Podman al lado."
        )
    fixed, each = fixed_memory(escala.df), per_container(escala.df)
    beside = []
    for engine in each:
        who = engine_label(engine, escala.meta)
        own = (
            f"{mib(fixed[engine])} fijos (dockerd y containerd)"
            if engine in fixed
            else "nada fijo (sin demonio)"
        )
        beside.append(
            f"{who}, {own} y {mib(each[engine]['memoria_kb'])} por contenedor (N = {each[engine]['n']})"
        )
    if beside:
        text += (
            f" Al lado, medido igual en la corrida `{escala.meta.get('run_id', '?')}` del cuaderno 02: "
            + "; ".join(beside)
            + ". Son otra corrida y otra imagen: se leen una al lado de la otra, sin veredicto."
        )
    return text


@needs_result
def lanzamiento(resultado: Resultado) -> None:
    """apply → Ready beside `docker run` of the same rounds, and the launch's phases."""
    df = resultado.df
    phases = pod_analysis.phase_table(df)
    if phases.empty:
        markdown(why_absent(resultado))
        return
    s = pod_analysis.launch_summary(df)
    rows = [("Pod: `kubectl apply` → Ready", s.pop("pod"))]
    rows += [
        (f"{engine_label(e, resultado.meta)}: `run --rm` con la red por defecto (echo ok)", x)
        for e, x in s.items()
    ]
    out = pd.DataFrame(
        {
            "Arranque": [name for name, _ in rows],
            "n": [x.n for _, x in rows],
            "Mediana (ms)": [fmt(x.median, 0) for _, x in rows],
            "IQR (ms)": [fmt_interval(x.q1, x.q3, 0) for _, x in rows],
            "IC 95 % mediana (ms)": [fmt_interval(x.ci_low, x.ci_high, 0) for _, x in rows],
        }
    )
    show(
        table(out, "LAUNCH de un Pod al lado de `docker run` y `podman run`, en las mismas rondas barajadas")
    )
    start = pod_analysis.cluster_start_s(resultado.meta)
    markdown(
        launch_sentence(df, resultado.meta)
        + " No es el mismo trabajo: `docker run` crea, arranca, espera y borra un contenedor "
        "que hace `echo ok`; el Pod corre `sleep` (un Pod que termina nunca queda Ready) y se borra fuera "
        "del tiempo medido. La misma imagen, importada de Docker sin registro (`imagePullPolicy: Never`)."
        + (
            f" El clúster arrancó una vez, después de la escalera ({fmt(start, 1)} s, fuera de toda ventana)."
            if start is not None and (df["variant"] == BESIDE).any()
            else f" El clúster arrancó una vez, antes de las rondas ({fmt(start, 1)} s, fuera de toda ventana), "
            "y los demás peldaños se midieron con él en reposo de fondo."
            if start is not None
            else ""
        )
    )
    detail = pd.DataFrame(
        {
            "Fase": phases["fase"],
            "Mediana (ms)": [fmt(v, 0) for v in phases["mediana_ms"]],
            "IQR (ms)": [fmt_interval(a, b, 0) for a, b in zip(phases["q1_ms"], phases["q3_ms"])],
            "Parte del total (mediana por ronda e IC 95 %)": [_share(r) for _, r in phases.iterrows()],
            "Qué incluye": phases["incluye"],
        }
    )
    show(table(detail, "¿En qué se va el `kubectl apply` → Ready? Fases consecutivas"))
    gap = pod_analysis.unaccounted_ms(df)
    markdown(
        phase_sentence(df)
        + " Las fases van una tras otra desde el `apply` hasta Ready, así que en cada ronda suman el total"
        + (f" (lo que queda sin repartir: {fmt(gap, 3)} ms como mucho). " if math.isfinite(gap) else ". ")
        + "Un instante que el otro reloj ya había pasado cuenta como ese, y su fase queda en 0. "
        + RESOLUTION
    )


@needs_result
def factura(resultado: Resultado, escala: Resultado | None = None) -> None:
    """The cluster's memory bill (PSS) with N Pods, by component, beside Docker's and Podman's bill from
    notebook 02's latest run (`escala`, by default the latest one on this machine)."""
    bill = pod_analysis.cluster_bill(resultado.df)
    if bill.empty:  # `lanzamiento`, the section above, already says why: once per page
        markdown(NO_BILL if pod_analysis.phase_table(resultado.df).empty else why_absent(resultado))
        return
    parts = pod_analysis.components(resultado.df).set_index("n")
    out = pd.DataFrame(
        {
            "Proceso": [COMPONENT_LABEL.get(k, k) for k in parts.columns],
            **{f"N = {n} Pods (MiB)": [fmt(v, 1) for v in parts.loc[n]] for n in parts.index},
        }
    )
    show(table(out, "La factura del clúster, proceso a proceso (PSS, mediana por ronda)"))
    escala = escala if escala is not None else Resultado.latest(ESCALA)
    others = pod_analysis.engines_bill(escala)
    both = pd.concat([bill, others], ignore_index=True)
    totals = pd.DataFrame(
        {
            "Motor": [
                "Kubernetes (un nodo)" if e == ENGINE else engine_label(e, escala.meta if escala else None)
                for e in both["engine"]
            ],
            "N": both["n"].astype(int),
            "Procesos fijos (MiB)": [fmt(v / KB, 1) for v in both["fijo_kb"]],
            "Ayudantes, uno por contenedor (MiB)": [fmt(v / KB, 1) for v in both["ayudantes_kb"]],
            "cgroups (MiB)": [fmt(v / KB, 1) for v in both["cgroup_kb"]],
            "Total (MiB)": [fmt(v / KB, 1) for v in both["total_kb"]],
        }
    )
    source = (
        f"Docker y Podman, de la corrida `{escala.meta.get('run_id')}` del cuaderno 02"
        if not others.empty
        else "sin corrida del cuaderno 02 en esta máquina para Docker y Podman"
    )
    show(table(totals, f"CAPACITY: la factura completa (PSS), como en el cuaderno 02 ({source})"))
    markdown(
        "Procesos fijos: en Kubernetes, el plano de control (kube-apiserver, etcd, controller-manager, "
        "scheduler), el kubelet, kube-proxy y el containerd del clúster; en Docker, dockerd y containerd; "
        "Podman no tiene demonio. Ayudantes: un shim de containerd por Pod (Docker, uno por contenedor; "
        "Podman, un conmon). cgroups: la memoria de los cgroups de los Pods, con su contenedor pause.\n\n"
        + bill_sentence(resultado.df, escala)
    )
