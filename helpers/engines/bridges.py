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
It needs root (iptables): without it, `availability` says why. `of_run` gives a run one bridge per engine
(06's `-p` arms share it); 08's network phase makes its own with `create`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass

from ..errors import ComandoFallido
from .base import CLI_TIMEOUT
from .labels import LABEL, label_args

CHAINS = {"docker": "DOCKER-USER", "podman": "FORWARD"}  # where each engine's rule goes
NO_MASQUERADE = "com.docker.network.bridge.enable_ip_masquerade=false"


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
            f"{LABEL} {self.name}",
            "-j",
            "DROP",
        ]


_LOCK = threading.Lock()
_OF_RUN: dict[tuple[str, str], Bridge] = {}  # (engine, run) -> its bridge, while the run lasts


def availability(engine: str) -> tuple[bool, str | None]:
    """Can this process give `engine`'s containers a bridge that leads nowhere? (True, None) or a reason."""
    if engine not in CHAINS:
        return False, f"{engine} no tiene puente propio aquí."
    if os.geteuid() != 0 or shutil.which("iptables") is None:
        return False, (
            "hace falta root (iptables) para que su puente no lleve a ninguna parte fuera de esta máquina; "
            "sin eso, ningún contenedor publica un puerto."
        )
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
        interface = "cb-" + hashlib.sha1(name.encode()).hexdigest()[:10]  # at most 15 characters
        argv += ["-o", NO_MASQUERADE, "-o", f"com.docker.network.bridge.name={interface}"]
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
    """The rule and the network (after its containers); never raises (clean-up)."""
    while subprocess.run(["iptables", "-D", *bridge.rule()], capture_output=True).returncode == 0:
        pass  # every copy of it
    subprocess.run(
        [bridge.engine, "network", "rm", bridge.name], capture_output=True, env=env, timeout=CLI_TIMEOUT
    )


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
