"""06's facts for the instructor's kit: each network path against native, the security claim,
docker-proxy's ceiling, the document's placement against the course's, each Kubernetes path and the CPU
its processes spent, and the document's preset (no run needed)."""

from __future__ import annotations

from ... import experiments, reference, stats
from ...experiments import red, verdict
from ...experiments.red import servers
from ...experiments.red.analysis import (
    main_server,
    path_ratios,
    placement_effect,
    reference_ratios,
    summarize,
)
from ...experiments.red.measure import DOCUMENT_PRESET
from ...view import common
from .words import Facts, missing_arms, run_sentence, run_tag

FACTS = ("docker_puerto", "caminos", "seguridad", "proxy", "reparto", "kubernetes")
K8S_PATHS = {
    "k8s_port_forward_frente_nativo": "`k8s-port-forward`",
    "k8s_nodeport_frente_nativo": "`k8s-nodeport`",
    "k8s_host_frente_nativo": "`k8s-host`",
}
K8S_CPU = ("us_cpu_kubectl", "us_cpu_apiserver", "us_cpu_kubelet", "us_cpu_containerd")


def facts(res) -> Facts:
    nb, df, meta = red.NOTEBOOK, res.df, res.meta
    out: Facts = {}
    server = main_server(df)
    label = servers.SERVERS[server].label if server else "?"
    ratios = path_ratios(df, server) if server else {}
    ref = reference_ratios(reference.load(red.EXPERIMENT))
    ref_docker = ref[(ref["servidor"] == "nethttp") & (ref["engine"] == "docker")]["frente_nativo"]
    doc = (
        f"; el documento, con net/http: {common.fmt_ratio(float(ref_docker.iloc[0]))}"
        if len(ref_docker)
        else ""
    )

    if "puerto_frente_nativo" in ratios:
        value, low, high, n = ratios["puerto_frente_nativo"]
        out["docker_puerto"] = (
            f"Docker -p / nativo con {label}: {common.fmt_ratio(value, low, high)} en {n} rondas{doc}"
        )
    else:
        out["docker_puerto"] = missing_arms(nb, "los brazos `nativo` y `docker-puerto` con el mismo servidor")

    # Exercise 5: the network paths against each other, and the security claim's verdict.
    words = {
        "host_frente_nativo": "Docker con `--network host` frente a nativo",
        "puerto_frente_nativo": "Docker -p frente a nativo",
        "nat_frente_proxy": "Podman -p (NAT) frente a Docker -p (proxy)",
    }
    paths = [f"{words[k]}, {common.fmt_ratio(*ratios[k][:3])}" for k in words if k in ratios]
    out["caminos"] = run_sentence(
        res, f", con {label}: ", paths, missing_arms(nb, "dos caminos de red con el mismo servidor")
    )
    security = next((c for c in experiments.judged(res) if c.key == "causa_seguridad"), None)
    if security is None or stats.any_nan(security.value):
        out["seguridad"] = missing_arms(nb, "el brazo `docker-seguridad` junto a `docker-puerto`")
    else:
        out["seguridad"] = (
            f"Docker -p sin seccomp / Docker -p = "
            f"{common.fmt_value_interval(security.value, security.low, security.high, 'x')} "
            f"({security.n} rondas): el veredicto sobre «procesamiento de seguridad» es "
            f"«{common.verdict_words(security)}»"
        )

    # Exercise 4: docker-proxy's CPU per request, the ceiling it gives one core, and what was measured.
    s = summarize(df, meta)
    proxy = (
        s[(s["engine"] == "docker") & (s["variant"] == "puerto") & (s["servidor"] == server)] if len(s) else s
    )
    if len(proxy) and not stats.any_nan(proxy["us_cpu_proxy"].iloc[0]) and proxy["us_cpu_proxy"].iloc[0] > 0:
        us, measured = float(proxy["us_cpu_proxy"].iloc[0]), float(proxy["req_s"].iloc[0])
        ceiling = 1e6 / us
        out["proxy"] = (
            f"En la {run_tag(res)}, con {label}, docker-proxy gastó {common.fmt(us, 1, 'µs')} de CPU por "
            f"petición: con un núcleo entero para él movería como mucho unas {common.num(ceiling)} peticiones "
            f"por segundo, y `docker-puerto` atendió {common.num(measured)} (el {common.num(100 * measured / ceiling)} % "
            "de ese techo)."
        )
    else:
        out["proxy"] = missing_arms(nb, "la CPU de docker-proxy en el brazo `docker-puerto`")

    # Exercise 2: the document's placement (nothing pinned) against the course's (server and wrk apart).
    if {"puerto_frente_nativo", "puerto_fijo_frente_nativo_fijo"} <= set(ratios):
        effect = placement_effect(df, server)
        code = verdict.side(effect.low, effect.high, effect.n)
        side = common.direction_words(code, "pierde menos sin fijar", "pierde más sin fijar", n=effect.n)
        out["reparto"] = (
            f"Docker -p / nativo con {label}: sin fijar nada (como el documento) "
            f"{common.fmt_ratio(*ratios['puerto_frente_nativo'][:3])}; con el servidor y wrk cada uno en su CPU "
            f"{common.fmt_ratio(*ratios['puerto_fijo_frente_nativo_fijo'][:3])}; una sobre otra, ronda a ronda, "
            f"{common.fmt_ratio(effect.value, effect.low, effect.high)} ({effect.n} rondas): {side}"
        )
    else:
        out["reparto"] = missing_arms(
            nb, "los brazos `nativo-fijo` y `docker-puerto-fijo` junto a los sin fijar"
        )

    # Exercise 7: each Kubernetes path against native, and the CPU port-forward's processes spent.
    paths = [f"{K8S_PATHS[k]}, {common.fmt_ratio(*ratios[k][:3])}" for k in K8S_PATHS if k in ratios]
    forward = (
        s[(s["engine"] == "kubernetes") & (s["variant"] == "port_forward") & (s["servidor"] == server)]
        if len(s)
        else s
    )
    if paths and len(forward) and not stats.any_nan(*(forward[c].iloc[0] for c in K8S_CPU)):
        us = sum(float(forward[c].iloc[0]) for c in K8S_CPU)
        paths.append(
            f"en `k8s-port-forward`, kubectl, el servidor de la API, el kubelet y containerd sumaron "
            f"{common.fmt(us, 1, 'µs')} de CPU por petición: con los dos núcleos solo para ellos, unas "
            f"{common.num(2e6 / us)} peticiones por segundo como mucho"
        )
    out["kubernetes"] = run_sentence(
        res,
        f", con {label}, frente a nativo: ",
        paths,
        missing_arms(nb, "los brazos de Kubernetes (sin clúster construido, o fuera de `BRAZOS`)"),
    )

    return out


def static_facts() -> Facts:
    """Facts that no run changes: how long the document's one-click configurations take (06 exercise 1),
    from the same estimate the panel shows before launching."""
    preset = red.Config(**DOCUMENT_PRESET)
    return {
        "preset": (
            f"{len(preset.servidores) * len(preset.brazos)} combinaciones × {preset.repeticiones} rondas × "
            f"{preset.duracion_s} s: unos {common.num(red.estimated_seconds(preset) / 60)} minutos"
        )
    }
