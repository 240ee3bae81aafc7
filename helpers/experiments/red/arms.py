"""The arms of the network experiment: which network path each one is, how it is labelled, where its
server and wrk run, and which of them this machine can run (`plan`).

    nativo            the binary on the host, listening on 127.0.0.1:PORT
    docker-puerto     Docker with `-p 127.0.0.1:PORT:8080`: for a client on the host's loopback (wrk here,
                      and the original's `localhost`), through docker-proxy, a user-space copy loop, then
                      the bridge and the veth pair into the container's network namespace
    docker-seguridad  the same as docker-puerto with Docker's seccomp filter switched off
                      (`--security-opt seccomp=unconfined`): the original's «security processing», off
    docker-host       Docker with `--network host`: no network namespace of its own, so no veth, bridge,
                      NAT or proxy; the other namespaces, seccomp and cgroups stay
    podman-puerto     Podman with `-p 127.0.0.1:PORT:8080` (rootful netavark: NAT rules, no proxy process)
    podman-host       Podman with `--network host`
    gvisor            Docker (or Podman) with runtime runsc and `-p`: gVisor's own network stack (netstack)
    docker-sin-proxy  Docker's `-p` with the user-land proxy disabled (NAT rules); needs a daemon started
                      that way: the shared daemon is never restarted, so here it is usually skipped.
    k8s-port-forward  the document's Deployment (memory limit 32M, no CPU request or limit, no Service) on
                      the run's single-node Kubernetes, reached through `kubectl port-forward` on 127.0.0.1,
                      as the document's `wrk` at localhost:8080 was: kubectl, the API server, the kubelet
                      and containerd's streaming server copy every byte in user space, then the Pod's veth
    k8s-nodeport      the same Deployment behind a NodePort Service answering on 127.0.0.1: kube-proxy's
                      NAT rules (no process in the path), the bridge and the Pod's veth
    k8s-host          the same Deployment with `hostNetwork: true`, listening on 127.0.0.1: the node's own
                      network stack
    nativo-fijo       the course's own placement of `nativo`: the server pinned to one CPU (one Go P, one
    docker-puerto-fijo  Rust worker), wrk to the other; and of `docker-puerto` (`--cpuset-cpus`)

Every other arm runs as the document ran it: nothing pinned, Go's default GOMAXPROCS (every CPU), the Rust
servers' default workers (one per CPU), wrk free to run anywhere. The first server of SERVIDORES runs every
arm of BRAZOS; the others only the arms the document ran them on (`DOCUMENT_ARMS`). The Kubernetes arms run
where `kubernetes.availability()` says so (built, root, …), in a loop of their own with the cluster up,
each server's native arm measured again in that loop (`nativo-k8s`, their baseline); the cluster starts
once, after the other arms' rounds (red/kube.py), so it idles during none of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import psutil

from ... import engines as eng
from ... import system
from ...engines import kubernetes, runtimes
from ..runner import Arm
from . import servers

DAEMON_JSON = Path("/etc/docker/daemon.json")
NEEDS_ROOT = {"gvisor": "el brazo gVisor (runsc) de la red HTTP"}  # listed in notebook 00


@dataclass(frozen=True)
class ArmSpec:
    key: str  # what BRAZOS names
    engine: str  # bare / docker / podman
    variant: str  # the `variant` column
    label: str  # what the reader sees
    network: str | None = None
    publish: bool = False
    runtime: str | None = None
    security_opt: tuple[str, ...] = ()
    # the course's placement: the server on one CPU (one Go P, one worker), wrk on the other
    pinned: bool = False


ARM_SPECS = {
    "nativo": ArmSpec("nativo", "bare", "nativo", "nativo (sin contenedor)"),
    "docker-puerto": ArmSpec("docker-puerto", "docker", "puerto", "Docker -p (docker-proxy)", publish=True),
    "docker-seguridad": ArmSpec(
        "docker-seguridad",
        "docker",
        "sin_seccomp",
        "Docker -p sin seccomp",
        publish=True,
        security_opt=("seccomp=unconfined",),
    ),
    "docker-host": ArmSpec("docker-host", "docker", "host", "Docker --network host", network="host"),
    "podman-puerto": ArmSpec("podman-puerto", "podman", "puerto", "Podman -p (reglas NAT)", publish=True),
    "podman-host": ArmSpec("podman-host", "podman", "host", "Podman --network host", network="host"),
    "gvisor": ArmSpec(
        "gvisor", "docker", "gvisor", "gVisor -p (su propia pila de red)", publish=True, runtime="runsc"
    ),
    "docker-sin-proxy": ArmSpec(
        "docker-sin-proxy", "docker", "sin_proxy", "Docker -p sin docker-proxy (NAT)", publish=True
    ),
    "k8s-port-forward": ArmSpec(
        "k8s-port-forward", "kubernetes", "port_forward", "Kubernetes kubectl port-forward (API y kubelet)"
    ),
    "k8s-nodeport": ArmSpec(
        "k8s-nodeport",
        "kubernetes",
        "nodeport",
        "Kubernetes NodePort (reglas NAT de kube-proxy)",
        publish=True,
    ),
    "k8s-host": ArmSpec("k8s-host", "kubernetes", "host", "Kubernetes hostNetwork", network="host"),
    "nativo-fijo": ArmSpec("nativo-fijo", "bare", "nativo_fijo", "nativo, fijado a una CPU", pinned=True),
    "docker-puerto-fijo": ArmSpec(
        "docker-puerto-fijo",
        "docker",
        "puerto_fijo",
        "Docker -p, fijado a una CPU",
        publish=True,
        pinned=True,
    ),
}
KUBERNETES_ARMS = tuple(k for k, s in ARM_SPECS.items() if s.engine == "kubernetes")
ARM_NAMES = tuple(ARM_SPECS)
# The baseline of the Kubernetes arms: native again, in their loop, while the cluster idles (never a BRAZOS
# choice: plan() adds it to every server with a Kubernetes arm).
CLUSTER_NATIVE = ArmSpec("nativo-k8s", "bare", "nativo_k8s", "nativo, con el clúster en reposo")
# The arms each server ran on in the document (its table and its appendix): a server after the first of
# SERVIDORES runs only these (those of them in BRAZOS).
DOCUMENT_ARMS = {
    "nethttp": ("nativo", "docker-puerto", "k8s-port-forward"),
    "gin": ("nativo", "docker-puerto", "k8s-port-forward"),
    "actix": ("nativo",),
    "rocket": ("nativo",),
}
# What the default run measures (every claim's arms, within the notebook's time budget); the others are
# one click away in the panel.
DEFAULT_ARMS = [
    "nativo",
    "docker-puerto",
    "docker-seguridad",
    "docker-host",
    "podman-puerto",
    *KUBERNETES_ARMS,
    "nativo-fijo",
    "docker-puerto-fijo",
]
ARM_LABEL = {(s.engine, s.variant): s.label for s in (*ARM_SPECS.values(), CLUSTER_NATIVE)} | {
    ("podman", "gvisor"): "gVisor -p con Podman (su propia pila de red)"
}


# Podman without root publishes a port through a user-space process (rootlessport, or pasta), not NAT
# rules, and is another engine for the comparison: its arms say so.
ROOTLESS_LABEL = {
    ("podman", "puerto"): "Podman sin root -p (rootlessport, en espacio de usuario)",
    ("podman", "host"): "Podman sin root --network host",
}


def rootless(engine: str, meta: dict | None) -> bool:
    """Whether the run's metadata says this engine ran rootless."""
    info = ((meta or {}).get("engines") or {}).get(engine)
    return isinstance(info, dict) and bool(info.get("rootless"))


def arm_label(engine: str, variant: str, meta: dict | None = None) -> str:
    """What the reader sees for an arm; Podman's say «sin root» when the run's metadata says it ran so."""
    if rootless(engine, meta) and (engine, variant) in ROOTLESS_LABEL:
        return ROOTLESS_LABEL[(engine, variant)]
    return ARM_LABEL.get((engine, variant), f"{eng.DISPLAY.get(engine, engine)} {variant}")


@dataclass(frozen=True)
class HttpArm(Arm):
    """One server behind one network path. engine, variant and label as every arm; `image` holds the
    server's key (nethttp, gin, actix), which is what raw.csv's `image` column records; `spec` is the path."""

    spec: ArmSpec = ARM_SPECS["nativo"]


# ------------------------------------------------------------------ the userland-proxy-off arm
SIN_PROXY_REASON = (
    "el daemon de Docker compartido tiene el proxy de usuario activo, y este curso nunca reinicia un "
    "daemon en uso; el brazo «podman-puerto» muestra el mismo mecanismo (reglas NAT, sin proceso proxy)."
)


def userland_proxy_disabled() -> bool | None:
    """Whether the running dockerd has the user-land proxy off (--userland-proxy=false or daemon.json).
    None when it cannot tell."""
    procs = [p for p in psutil.process_iter(["name", "cmdline"]) if p.info["name"] == "dockerd"]
    if not procs:
        return None
    cmdline = " ".join(procs[0].info["cmdline"] or [])
    if "--userland-proxy=false" in cmdline or "--userland-proxy false" in cmdline:
        return True
    try:
        if json.loads(DAEMON_JSON.read_text()).get("userland-proxy") is False:
            return True
    except (OSError, ValueError, AttributeError):
        pass
    return False


# ------------------------------------------------------------------ which arms run here
def gvisor_engine(motores) -> tuple[str | None, str]:
    """gVisor runs under Docker when its daemon has runsc registered, else under Podman (among the
    engines asked for in MOTORES): (engine, "") or (None, Spanish reason)."""
    ok, why = runtimes.runsc_availability()
    if not ok:
        return None, why or "gVisor no está disponible."
    reasons = []
    for name in ("docker", "podman"):
        if name not in motores:
            continue
        engine = eng.get_engine(name)
        if not engine.available:
            reasons.append(f"{engine.display}: {engine.reason}")
            continue
        usable, reason = engine.runtime_availability("runsc")
        if usable:
            return name, ""
        reasons.append(f"{engine.display}: {reason}")
    return None, "; ".join(reasons) or "ningún motor pedido en MOTORES puede usar gVisor."


def kubernetes_source(engines_ok) -> tuple[str | None, str]:
    """The engine whose server images the cluster imports (`docker save`, or Podman's), or (None, Spanish
    reason) when the cluster cannot run here: one reason for every Kubernetes arm."""
    ok, why = kubernetes.availability()
    if not ok:
        return None, f"{why} Queda la cifra del documento como referencia."
    source = next((name for name in eng.CONTAINER_ENGINES if name in engines_ok), None)
    if source is None:
        return (
            None,
            "el clúster toma la imagen del servidor de Docker o de Podman, y ninguno está disponible.",
        )
    return source, ""


def kubernetes_absent(df, meta: dict | None) -> str:
    """Why a run of 06 has no Kubernetes rows, in one Spanish sentence (not asked for, as the quick profile
    does; or skipped, with the reasons it recorded), or "" when its Kubernetes arms ran (06's page and 09
    say it alike)."""
    meta = meta or {}
    asked = [k for k in (meta.get("parameters") or {}).get("brazos") or [] if k in KUBERNETES_ARMS]
    if not asked:
        return (
            "Esta corrida no pidió los brazos de Kubernetes (el perfil rápido los omite: arrancar y desmontar "
            "el clúster tarda más que todo ese perfil); con el perfil por defecto corren los tres."
        )
    if df is not None and not df.empty and (df["engine"] == "kubernetes").any():
        return ""
    why = [f"{k}: {v}" for k, v in (meta.get("skipped_arms") or {}).items() if "Kubernetes" in k]
    return "Esta corrida no pudo medir Kubernetes" + (f" ({'; '.join(why)})" if why else "") + "."


def planned(servidores, brazos) -> list[tuple[str, ArmSpec]]:
    """(server, arm) pairs of a plan, before asking what this machine has: the first server on every arm of
    `brazos`, the others on the arms of `brazos` the document ran them on (DOCUMENT_ARMS), and native again
    in the Kubernetes loop (CLUSTER_NATIVE) for every server with a Kubernetes arm."""
    out = []
    for i, server in enumerate(servidores):
        mine = [ARM_SPECS[k] for k in brazos if i == 0 or k in DOCUMENT_ARMS.get(server, ())]
        if any(spec.engine == "kubernetes" for spec in mine):
            mine.append(CLUSTER_NATIVE)
        out += [(server, spec) for spec in mine]
    return out


def plan(cfg, engines_ok) -> tuple[list[HttpArm], dict[str, str]]:
    """The arms of `cfg` this machine can run (`planned` on the servers that are built), and {arm key:
    Spanish reason} for the others. An arm whose engine was not asked for in MOTORES is silently left out."""
    skipped: dict[str, str] = {}
    present = []
    for key in cfg.servidores:
        ok, why = servers.availability(key)
        if ok:
            present.append(key)
        else:
            skipped[f"servidor {key}"] = why or "no disponible"
    k8s_arms = [key for key in cfg.brazos if key in KUBERNETES_ARMS]
    k8s_source = None
    if k8s_arms:
        k8s_source, why = kubernetes_source(engines_ok)
        if k8s_source is None:
            skipped[f"Kubernetes ({', '.join(k8s_arms)})"] = why
    usable: dict[str, str] = {}  # {arm key: the engine it runs on}
    for arm_key in cfg.brazos:
        spec = ARM_SPECS[arm_key]
        engine_name = spec.engine
        if spec.engine == "kubernetes":
            if k8s_source is None:
                continue  # one line for every Kubernetes arm, above
        elif arm_key == "gvisor":
            root_reason = system.needs_root_reason(NEEDS_ROOT["gvisor"])
            if root_reason:  # the standard root-only skip (runner.RunContext.require_root's wording)
                skipped[arm_key] = root_reason
                continue
            engine_name, why = gvisor_engine(cfg.motores)
            if engine_name is None:
                skipped[arm_key] = why
                continue
        elif engine_name != "bare" and engine_name not in engines_ok:
            if engine_name in cfg.motores:
                skipped[arm_key] = f"{eng.DISPLAY[engine_name]} no está disponible aquí."
            continue
        if arm_key == "docker-sin-proxy" and not userland_proxy_disabled():
            skipped[arm_key] = SIN_PROXY_REASON
            continue
        if spec.runtime and engine_name != "bare":
            ok, why = eng.get_engine(engine_name).runtime_availability(spec.runtime)
            if not ok:
                skipped[arm_key] = why or "runtime no disponible"
                continue
        usable[arm_key] = engine_name
    usable[CLUSTER_NATIVE.key] = CLUSTER_NATIVE.engine
    arms = []
    for key, spec in planned(present, [k for k in cfg.brazos if k in usable]):
        engine_name = usable[spec.key]
        label = f"{arm_label(engine_name, spec.variant)} · {servers.SERVERS[key].label}"
        arms.append(HttpArm(engine_name, spec.variant, key, label, spec))
    return arms, skipped


def in_cluster_loop(arm: HttpArm) -> bool:
    """Whether an arm is measured in the Kubernetes loop, with the cluster up: its Pods, and native
    measured again beside them (CLUSTER_NATIVE)."""
    return arm.engine == "kubernetes" or arm.spec.key == CLUSTER_NATIVE.key
