"""A bridge of a run's own that leads nowhere off the machine, for a container whose port is published on
127.0.0.1: never the engine's default bridge, which has a NAT route out.

- Docker: `docker network create` with IP masquerade off (com.docker.network.bridge.enable_ip_masquerade
  =false) and a bridge interface named here, plus one firewall rule in DOCKER-USER (the chain Docker leaves
  to its users, evaluated before its own) that drops whatever the bridge would forward to any other
  interface. Masquerade off alone is not enough: the container's packets still leave, with its private
  address, unanswered.
- Podman (with root, netavark): its own bridge (netavark has no masquerade switch) and the same rule at the
  top of FORWARD.
Why not `--internal`: Docker 20.10 publishes no port of an internal network, and on Podman 4.3 the port of
an internal network does not answer on 127.0.0.1 (both tried on the course's machine). The published port
still answers: the engine's proxy (docker-proxy) or its DNAT reach the container from the host itself,
which is not forwarding.
The network carries the run's labels and, like the rule, is removed with the run (`remove`, never raises).
The rule's comment names the network («curso-contenedores <network>»): `course_rules` finds the course's
rules by it and nothing else, and `course_networks` lists the networks that carry the course's mark, so
that the bridges of a run that was killed are reaped by the next one (cleanup.reap_orphans).
It needs root (iptables): without it, `availability` says why. `of_run` gives a run one bridge per engine
(06's `-p` arms share it); 08's network phase makes its own with `create`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import threading
from dataclasses import dataclass

from ..errors import ComandoFallido
from .base import CLI_TIMEOUT
from .labels import LABEL, label_args

CHAINS = {"docker": "DOCKER-USER", "podman": "FORWARD"}  # where each engine's rule goes
NO_MASQUERADE = "com.docker.network.bridge.enable_ip_masquerade=false"
BRIDGE_NAME = "com.docker.network.bridge.name"  # Docker's option that names the bridge's interface
INTERFACE_PREFIX = "cb-"  # the interface of a Docker bridge made here (Podman's are podmanN)


@dataclass(frozen=True)
class Bridge:
    engine: str
    name: str  # the engine's network
    interface: str  # the bridge's interface on the host

    def rule(self) -> list[str]:
        """The firewall rule: drop what the bridge would forward to any other interface."""
        return [
            CHAINS[self.engine],
            "-i",
            self.interface,
            "!",
            "-o",
            self.interface,
            "-m",
            "comment",
            "--comment",
            comment(self.name),
            "-j",
            "DROP",
        ]


def comment(network: str) -> str:
    """The comment of the rule of `network`: the course's mark and the network's name."""
    return f"{LABEL} {network}"


_LOCK = threading.Lock()
_OF_RUN: dict[tuple[str, str], Bridge] = {}  # (engine, run) -> its bridge, while the run lasts


def availability(engine: str) -> tuple[bool, str | None]:
    """Can this process give `engine`'s containers a bridge that leads nowhere? (True, None) or a reason."""
    if engine not in CHAINS:
        return False, f"{engine} no tiene puente propio aquí."
    if os.geteuid() != 0 or shutil.which("iptables") is None:
        return False, "darle un puente propio sin salida de esta máquina pide root (iptables)."
    return True, None


def _run(argv: list[str], what: str, env: dict | None = None) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=CLI_TIMEOUT)
    if result.returncode != 0:
        raise ComandoFallido(f"{what} falló: {(result.stderr or result.stdout).strip()[-300:]}")
    return result.stdout.strip()


def create(engine: str, name: str, run_id: str | None, env: dict | None = None) -> Bridge:
    """The network `name` of `engine` (its CLI, with `env`), labelled for `run_id`, and its rule."""
    ok, why = availability(engine)
    if not ok:
        raise ComandoFallido(why)
    argv = [engine, "network", "create", "--driver", "bridge", *label_args(run_id)]
    interface = ""
    if engine == "docker":
        interface = INTERFACE_PREFIX + hashlib.sha1(name.encode()).hexdigest()[:10]  # at most 15 characters
        argv += ["-o", NO_MASQUERADE, "-o", f"{BRIDGE_NAME}={interface}"]
    _run([*argv, name], f"{engine} network create", env)
    if engine == "podman":
        inspect = [engine, "network", "inspect", name, "--format", "{{.NetworkInterface}}"]
        interface = _run(inspect, f"{engine} network inspect", env)
    bridge = Bridge(engine, name, interface)
    try:
        if not interface:
            raise ComandoFallido(f"{engine} no dijo el nombre del puente de «{name}».")
        _run(["iptables", "-I", *bridge.rule()[:1], "1", *bridge.rule()[1:]], "iptables")
    except ComandoFallido:
        remove(bridge, env)
        raise
    return bridge


def remove(bridge: Bridge, env: dict | None = None) -> None:
    """The rule and the network (after its containers); never raises (clean-up). Every rule whose
    comment names the network goes too (one of a bridge whose interface nobody knows any more)."""
    while subprocess.run(["iptables", "-D", *bridge.rule()], capture_output=True).returncode == 0:
        pass  # every copy of it
    remove_rules(bridge.engine, bridge.name)
    try:
        subprocess.run(
            [bridge.engine, "network", "rm", bridge.name], capture_output=True, env=env, timeout=CLI_TIMEOUT
        )
    except (OSError, subprocess.SubprocessError):
        pass  # the engine does not answer: the next run's reaping tries again


def remove_rules(engine: str, network: str) -> None:
    """Every rule of the course in `engine`'s chain whose comment names `network`; never raises."""
    try:
        specs = course_rules(engine).get(network, [])
    except (ComandoFallido, OSError, subprocess.SubprocessError):
        return
    for spec in specs:
        subprocess.run(["iptables", "-D", *spec], capture_output=True)


def course_rules(engine: str) -> dict[str, list[list[str]]]:
    """The course's rules in `engine`'s chain, by the network their comment names: {network: [rule]},
    each rule as `iptables -D` takes it (chain first). A rule without the course's comment is not listed."""
    return parse_rules(_run(["iptables", "-S", CHAINS[engine]], "iptables -S"))


def parse_rules(listing: str) -> dict[str, list[list[str]]]:
    """The course's rules in `iptables -S CHAIN`'s output, as course_rules gives them."""
    rules: dict[str, list[list[str]]] = {}
    for line in listing.splitlines():
        try:
            spec = shlex.split(line)
        except ValueError:
            continue  # an unbalanced quote: not a rule the course wrote
        if spec[:1] != ["-A"] or "--comment" not in spec[:-1]:
            continue
        mark, _, network = spec[spec.index("--comment") + 1].partition(" ")
        if mark == LABEL and network:
            rules.setdefault(network, []).append(spec[1:])
    return rules


def course_networks(engine: str, env: dict | None = None) -> list[tuple[Bridge, dict, str | None]]:
    """Every network of `engine` that carries the course's mark: (its bridge, its labels, when it was
    created as the engine writes it). A network that vanishes while it is listed is left out."""
    listed = [engine, "network", "ls", "--filter", f"label={LABEL}", "--format", "{{.Name}}"]
    found = []
    for name in _run(listed, f"{engine} network ls", env).split():
        try:
            info = json.loads(_run([engine, "network", "inspect", name], f"{engine} network inspect", env))[0]
        except (ComandoFallido, ValueError, IndexError):
            continue
        labels = info.get("Labels", info.get("labels")) or {}
        if labels.get(LABEL) != "1":
            continue  # the filter matched a key of that name with another value: not the course's mark
        interface = (info.get("Options") or {}).get(BRIDGE_NAME) or info.get("network_interface") or ""
        found.append((Bridge(engine, name, interface), labels, info.get("Created", info.get("created"))))
    return found


def of_run(engine: str, run_id: str, env: dict | None, defer) -> Bridge:
    """The run's one bridge of `engine`, created on first use (safe from several threads at once);
    `defer(fn, *args)` is the run's clean-up, which removes it after the run's containers."""
    with _LOCK:
        key = (engine, run_id)
        if key not in _OF_RUN:
            _OF_RUN[key] = create(engine, f"curso-{run_id}-{engine}".lower(), run_id, env)
            defer(_end_of_run, key, env)
        return _OF_RUN[key]


def _end_of_run(key: tuple[str, str], env: dict | None) -> None:
    with _LOCK:
        bridge = _OF_RUN.pop(key, None)
    if bridge is not None:
        remove(bridge, env)
