"""A bridge of the run's own (helpers.engines.bridges): its container reaches nothing off the machine while its
published port answers on 127.0.0.1; the engine's default bridge, the control, does reach off the machine
(so the test can fail); the network and its firewall rule are gone afterwards.

«Off the machine» is a network namespace of the test's own behind a veth pair, with an HTTP server on a
documentation address (198.51.100.2), routed from the host like any outside network.

A run killed with SIGKILL leaves its bridge behind: the next run's reaping (cleanup.reap_orphans) removes
its network, interface and rule, keeps a live run's, and leaves the engine's default network working.
Which bridges are chosen (cleanup.orphan_bridges) and which rules are the course's (bridges.parse_rules)
is tested without an engine, with broken labels and foreign rules."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import engines as eng
from helpers import images
from helpers.engines import bridges, cleanup, labels, lxd
from helpers.experiments.red.load import free_port
from tests.support import holding_run

from ..conftest import require_engine

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


@pytest.mark.engines
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
    assert bridges.comment("curso-x") in rule


# ---------------------------------------------------------------- a killed run's bridge is reaped
HOLDER = """
import sys, time
from helpers import engines as eng
from helpers.engines import bridges
from helpers.experiments.runner import experiment_run
name = sys.argv[1]
with experiment_run("robustez", {}, [name], image_roles=["alpine"], log=lambda s: None) as ctx:
    engine = eng.get_engine(name)
    bridge = bridges.of_run(name, ctx.run_id, engine.env(), ctx.defer)
    # a container on it, as 06's `-p` arms: the bridge's interface is up while the run lives
    engine.launch(ctx.images[name]["alpine"]["name"], ["sleep", "600"], run_id=ctx.run_id,
                  name=ctx.container_name(name, "puente"),
                  opts=eng.RunOptions(network=bridge.name, stop_timeout=0))
    print("LISTO", ctx.run_id, bridge.name, bridge.interface, flush=True)
    time.sleep(600)
"""


def _left(engine_name: str, network: str, interface: str) -> dict[str, bool]:
    """What is left of a bridge: its network, its interface, its rule."""
    env = eng.get_engine(engine_name).env()
    listed = subprocess.run(
        [engine_name, "network", "ls", "--format", "{{.Name}}"], capture_output=True, text=True, env=env
    )
    assert listed.returncode == 0, listed.stderr
    link = subprocess.run(["ip", "link", "show", interface], capture_output=True)
    return {
        "red": network in listed.stdout.split(),
        "interfaz": link.returncode == 0,
        "regla": network in bridges.course_rules(engine_name),
    }


@pytest.mark.engines
@pytest.mark.parametrize("engine_name", ["docker", "podman"])
def test_a_killed_runs_bridge_is_reaped_and_a_live_ones_is_not(engine_name, results_tmp):
    engine = require_engine(engine_name)
    ok, why = bridges.availability(engine_name)
    if not ok or engine.display.endswith("sin root"):
        pytest.skip(f"{engine_name}: {why or 'sin root'}")
    victim, (victim_run, victim_net, victim_if) = holding_run(HOLDER, engine_name)
    survivor, (survivor_run, survivor_net, survivor_if) = holding_run(HOLDER, engine_name)
    try:
        assert _left(engine_name, victim_net, victim_if) == {"red": True, "interfaz": True, "regla": True}
        victim.send_signal(signal.SIGKILL)  # as when JupyterLab restarts a busy kernel
        victim.wait()
        assert _left(engine_name, victim_net, victim_if) == {"red": True, "interfaz": True, "regla": True}
        lines: list[str] = []
        reaped = eng.reap_orphans([engine_name], log=lines.append)
        assert _left(engine_name, victim_net, victim_if) == {"red": False, "interfaz": False, "regla": False}
        assert _left(engine_name, survivor_net, survivor_if) == {"red": True, "interfaz": True, "regla": True}
        # its container first (a network in use cannot go), then its bridge
        assert sorted(r.get("what", "contenedores") for r in reaped.values() if r["run"] == victim_run) == [
            "contenedores",
            "puente",
        ]
        assert not any(r["run"] == survivor_run for r in reaped.values())
        assert any("puente huérfano" in line and victim_run in line for line in lines), lines
        # the engine's default network still works: a container on it gets an address
        image = images.resolve("alpine", engine)["name"]
        argv = engine.run_argv(
            image,
            ["ip", "-4", "-o", "addr", "show", "eth0"],
            run_id=f"prueba-puente-defecto-{engine_name}",
            opts=eng.RunOptions(network=DEFAULT_NETWORK[engine_name]),
        )
        shown = subprocess.run(argv, capture_output=True, text=True, env=engine.env(), timeout=120)
        assert shown.returncode == 0 and " inet " in shown.stdout, shown.stdout + shown.stderr
    finally:
        survivor.send_signal(signal.SIGTERM)  # the live run ends the normal way: it cleans up itself
        survivor.wait(timeout=120)
        victim.kill()
        victim.wait()
        cleanup.reap_bridges([engine_name])  # after a failure above: no bridge of a dead run stays
    assert _left(engine_name, survivor_net, survivor_if) == {"red": False, "interfaz": False, "regla": False}


# ---------------------------------------------------------------- which bridges go, without an engine
def _owned(run: str, pid: int, **extra) -> dict:
    marks = eng.labels_for(run)
    marks[labels.LABEL_PID] = str(pid)
    marks[labels.LABEL_PID_START] = labels.start_time(pid) or "0"
    marks.update(extra)
    return marks


def test_only_the_bridges_of_dead_runs_and_rules_without_a_network_are_chosen():
    child = subprocess.Popen(["true"])
    child.wait()
    now = time.time()
    net = {name: bridges.Bridge("docker", name, f"cb-{name}") for name in "abcdefgh"}
    networks = [
        (net["a"], _owned("muerta", child.pid), now),  # its owner is gone
        (net["b"], _owned("viva", os.getpid()), now),  # a live run's
        (net["c"], _owned("otra", os.getpid(), **{labels.LABEL_BOOT: "otro-arranque"}), now),
        (net["d"], _owned("rota", os.getpid(), **{labels.LABEL_PID: "no-es-un-pid"}), now),  # unreadable
        (net["e"], {labels.LABEL: "1", labels.LABEL_RUN: "antigua"}, "2000-01-01T00:00:00.123456789Z"),
        (net["f"], {labels.LABEL: "1", labels.LABEL_RUN: "reciente"}, "no es una fecha"),  # kept: no age
        (net["g"], None, now),  # labels the engine did not give
    ]
    rules = {"b": [[]], "a": [[]], "h": [[]], "perdida": [[]]}
    chosen = {
        bridge.name: (run, why) for bridge, run, why in cleanup.orphan_bridges("docker", networks, rules, now)
    }
    assert set(chosen) == {"a", "c", "e", "h", "perdida"}, chosen
    assert chosen["a"][0] == "muerta" and "ya no existe" in chosen["a"][1]
    assert "arranque" in chosen["c"][1] and "anterior" in chosen["e"][1]
    assert chosen["h"] == ("(sin corrida)", cleanup.NETWORK_GONE)


def test_only_the_courses_rules_are_read_from_the_chain():
    mine = bridges.Bridge("docker", "curso-r1-docker", "cb-0123456789")
    listing = "\n".join(
        [
            "-N DOCKER-USER",
            "-A DOCKER-USER " + " ".join(f'"{a}"' if " " in a else a for a in mine.rule()[1:]),
            '-A DOCKER-USER -i br0 -m comment --comment "netavark firewall plugin rules" -j ACCEPT',
            '-A DOCKER-USER -i br1 -m comment --comment "curso-contenedores" -j DROP',  # no network named
            '-A DOCKER-USER -i br2 -m comment --comment "curso-contenedoresX curso-r2" -j DROP',
            '-A DOCKER-USER -i br3 -m comment --comment "curso-contenedores curso-r3 -j DROP',  # broken quote
            "-A DOCKER-USER -i cb-0123456789 -j DROP",  # the course's interface, but not the course's rule
            "-A DOCKER-USER -m comment --comment",
            "-A DOCKER-USER -j RETURN",
        ]
    )
    assert bridges.parse_rules(listing) == {"curso-r1-docker": [mine.rule()]}


def test_lxds_check_for_new_host_interfaces_leaves_out_the_bridges_made_here():
    """08's LXD check that no instance added a host interface must not blame a bridge of the run's own
    that a run in another process makes meanwhile (its interface is named here)."""
    if os.geteuid() != 0:
        pytest.skip("crear una interfaz de prueba pide root.")
    tag = f"{os.getpid() % 100000}"
    ours, other = f"{bridges.INTERFACE_PREFIX}p{tag}", f"zz-p{tag}"
    before = lxd.host_links()
    try:
        for name in (ours, other):
            _ip("link", "add", name, "type", "bridge")
        added = lxd.links_added_since(before)
        assert other in added and ours not in added, added
    finally:
        for name in (ours, other):
            subprocess.run(["ip", "link", "del", name], capture_output=True)
