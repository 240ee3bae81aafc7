"""Experiment 4's Kubernetes section as a person sees it: a Pod's LAUNCH beside `docker run` and where
it goes (lanzamiento), and the cluster's memory bill beside Docker's and Podman's (factura), in Spanish."""

from __future__ import annotations

import math

import pandas as pd

from ..experiments.anatomia import pod_analysis
from ..experiments.anatomia.pod import ENGINE, GROUP
from ..experiments.escala import EXPERIMENT as ESCALA
from ..experiments.escala.probing import KB
from ..experiments.runner import Resultado
from .common import engine_label, fmt, fmt_interval, fmt_pct, fmt_ratio, markdown, needs_result, show, table

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


def _why_absent(resultado: Resultado) -> str:
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


@needs_result
def lanzamiento(resultado: Resultado) -> None:
    """apply → Ready beside `docker run` of the same rounds, and the launch's phases."""
    df = resultado.df
    phases = pod_analysis.phase_table(df)
    if phases.empty:
        markdown(_why_absent(resultado))
        return
    s = pod_analysis.launch_summary(df)
    pod, docker, times = s["pod"], s["docker"], s["veces"]
    rows = [
        ("Pod: `kubectl apply` → Ready", pod),
        (f"{engine_label('docker', resultado.meta)}: `run --rm` con la red por defecto (echo ok)", docker),
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
    show(table(out, "LAUNCH de un Pod al lado de `docker run`, en las mismas rondas barajadas"))
    start = pod_analysis.cluster_start_s(resultado.meta)
    markdown(
        f"Por ronda, el Pod tarda {fmt_ratio(*times.triple)} lo que `docker run` (IC 95 % por bootstrap, "
        "ronda a ronda). No es el mismo trabajo: `docker run` crea, arranca, espera y borra un contenedor "
        "que hace `echo ok`; el Pod corre `sleep` (un Pod que termina nunca queda Ready) y se borra fuera "
        "del tiempo medido. La misma imagen, importada de Docker sin registro (`imagePullPolicy: Never`)."
        + (
            f" El clúster arrancó una vez, antes de las rondas ({fmt(start, 1)} s, fuera de toda ventana), y "
            "los demás peldaños se midieron con él en reposo de fondo."
            if start is not None
            else ""
        )
    )
    detail = pd.DataFrame(
        {
            "Fase": phases["fase"],
            "Mediana (ms)": [fmt(v, 0) for v in phases["mediana_ms"]],
            "IQR (ms)": [fmt_interval(a, b, 0) for a, b in zip(phases["q1_ms"], phases["q3_ms"])],
            "Parte del total (mediana por ronda)": [fmt_pct(100 * v, 0, sign=False) for v in phases["parte"]],
            "Qué incluye": phases["incluye"],
        }
    )
    show(table(detail, "¿En qué se va el `kubectl apply` → Ready? Fases consecutivas"))
    gap = pod_analysis.unaccounted_ms(df)
    largest = phases.loc[phases["mediana_ms"].idxmax()]
    markdown(
        f"La fase más larga es «{largest['fase']}» ({fmt(largest['mediana_ms'], 0)} ms de mediana). "
        "Las fases van una tras otra desde el `apply` hasta Ready, así que en cada ronda suman el total"
        + (f" (lo que queda sin repartir: {fmt(gap, 3)} ms como mucho). " if math.isfinite(gap) else ". ")
        + "Un instante que el otro reloj ya había pasado cuenta como ese, y su fase queda en 0. "
        + RESOLUTION
    )


@needs_result
def factura(resultado: Resultado, escala: Resultado | None = None) -> None:
    """The cluster's memory bill (PSS) with N Pods, by component, beside Docker's and Podman's bill from
    notebook 02's latest run (`escala`, by default the latest one on this machine)."""
    bill = pod_analysis.cluster_bill(resultado.df)
    if bill.empty:
        markdown(_why_absent(resultado))
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
    per_pod = pod_analysis.per_pod_kb(bill)
    markdown(
        "Procesos fijos: en Kubernetes, el plano de control (kube-apiserver, etcd, controller-manager, "
        "scheduler), el kubelet, kube-proxy y el containerd del clúster; en Docker, dockerd y containerd; "
        "Podman no tiene demonio. Ayudantes: un shim de containerd por Pod (Docker, uno por contenedor; "
        "Podman, un conmon). cgroups: la memoria de los cgroups de los Pods, con su contenedor pause. "
        f"Cada Pod más añade unos {fmt(per_pod / KB, 1)} MiB a la factura del clúster. "
        "Las cifras del cuaderno 02 son de otra corrida y otra imagen: se leen una al lado de la otra, "
        "sin veredicto."
    )
