"""A bridge of the run's own (helpers.engines.bridges): its container reaches nothing off the machine while its
published port answers on 127.0.0.1; the engine's default bridge, the control, does reach off the machine
(so the test can fail); the network and its firewall rule are gone afterwards.

«Off the machine» is a network namespace of the test's own behind a veth pair, with an HTTP server on a
documentation address (198.51.100.2), routed from the host like any outside network."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from helpers import engines as eng
from helpers import images
from helpers.engines import bridges
from helpers.experiments.red.load import free_port

pytestmark = pytest.mark.engines
OUTSIDE, HOST_SIDE = "198.51.100.2", "198.51.100.1"
DEFAULT_NETWORK = {"docker": "bridge", "podman": "podman"}


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def outside():
    """An HTTP server «off the machine»: in a namespace of its own, reached through a veth pair."""
    if os.geteuid() != 0:
        pytest.skip("crear un espacio de red de prueba pide root.")
    tag = f"cf{os.getpid() % 100000}"
    netns, host_if = f"curso-fuera-{tag}", f"{tag}h"
    _ip("netns", "add", netns)
    server = None
    try:
        _ip("link", "add", host_if, "type", "veth", "peer", "name", f"{tag}f")
        _ip("link", "set", f"{tag}f", "netns", netns)
        _ip("addr", "add", f"{HOST_SIDE}/24", "dev", host_if)
        _ip("link", "set", host_if, "up")
        inside = ["ip", "netns", "exec", netns]
        for args in (("addr", "add", f"{OUTSIDE}/24", "dev", f"{tag}f"), ("link", "set", f"{tag}f", "up")):
            subprocess.run([*inside, "ip", *args], check=True)
        subprocess.run([*inside, "ip", "route", "add", "default", "via", HOST_SIDE], check=True)
        port = free_port()
        server = subprocess.Popen(
            [*inside, sys.executable, "-m", "http.server", "--bind", OUTSIDE, str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(50):
            probe = subprocess.run(
                ["curl", "-s", "-m", "1", f"http://{OUTSIDE}:{port}/"], capture_output=True
            )
            if probe.returncode == 0:
                break
            time.sleep(0.2)
        yield port
    finally:
        if server is not None:
            server.kill()
            server.wait()
        subprocess.run(["ip", "link", "del", host_if], capture_output=True)
        subprocess.run(["ip", "netns", "del", netns], capture_output=True)


def _reaches(engine, image: str, network: str, port: int, run_id: str) -> bool:
    """Does a container on `network` get an HTTP answer from the server off the machine?"""
    ask = f'printf "GET / HTTP/1.0\\r\\n\\r\\n" | nc -w 3 {OUTSIDE} {port}'
    argv = engine.run_argv(image, ["sh", "-c", ask], run_id=run_id, opts=eng.RunOptions(network=network))
    out = subprocess.run(argv, capture_output=True, text=True, env=engine.env(), timeout=60).stdout
    return "HTTP/1.0 200" in out


def test_a_bridge_of_its_own_reaches_nothing_off_the_machine_and_publishes_on_loopback(
    container_engines, outside, results_tmp
):
    tested = []
    for name in container_engines:
        engine = eng.get_engine(name)
        ok, why = bridges.availability(name)
        if not ok or engine.display.endswith("sin root"):
            print(f"\n[aviso] {name}: {why or 'sin root'}", file=sys.stderr)
            continue
        tested.append(name)
        image = images.resolve("alpine", engine)["name"]
        run_id = f"prueba-puente-{name}"
        # the control: the engine's default bridge forwards off the machine
        assert _reaches(engine, image, DEFAULT_NETWORK[name], outside, run_id), name
        bridge = bridges.create(name, f"curso-prueba-puente-{name}", run_id, engine.env())
        try:
            assert not _reaches(engine, image, bridge.name, outside, run_id), name
            port = free_port()
            serve = "mkdir -p /w && echo hola > /w/index.html && exec httpd -f -p 8080 -h /w"
            opts = eng.RunOptions(network=bridge.name, publish=[(port, 8080)])
            argv = engine.run_argv(
                image, ["sh", "-c", serve], run_id=run_id, name=f"{run_id}-srv", detach=True, opts=opts
            )
            subprocess.run(argv, check=True, capture_output=True, env=engine.env(), timeout=60)
            body = ""
            for _ in range(25):
                got = subprocess.run(
                    ["curl", "-s", "-m", "2", f"http://127.0.0.1:{port}/"], capture_output=True
                )
                body = got.stdout.decode()
                if body:
                    break
                time.sleep(0.2)
            assert body.strip() == "hola", name
        finally:
            engine.cleanup(run_id)
            bridges.remove(bridge, engine.env())
        listed = subprocess.run(
            [name, "network", "ls", "--format", "{{.Name}}"], capture_output=True, text=True, env=engine.env()
        )
        assert bridge.name not in listed.stdout.split()
        rules = subprocess.run(["iptables", "-S", bridges.CHAINS[name]], capture_output=True, text=True)
        assert bridge.interface not in rules.stdout
    if not tested:
        pytest.skip("ningún motor con root aquí: el puente propio pide iptables.")
    print(f"\nmotores probados: {tested}", file=sys.stderr)


def test_the_rule_drops_only_what_the_bridge_forwards_elsewhere():
    rule = bridges.Bridge("docker", "curso-x", "cb-123").rule()
    assert rule[0] == "DOCKER-USER" and rule[-2:] == ["-j", "DROP"]
    assert rule[rule.index("-i") + 1] == "cb-123" and rule[rule.index("!") + 2] == "cb-123"
    assert bridges.Bridge("podman", "curso-x", "podman3").rule()[0] == "FORWARD"
