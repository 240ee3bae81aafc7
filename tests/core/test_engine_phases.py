"""The engine verbs experiment 4 times phase by phase (the same CLI verbs for both engines), and which
daemons serve this Docker client (their CPU time is read during a launch)."""

from __future__ import annotations

import os

import pytest

from helpers import engines as eng
from helpers import system
from helpers.engines.docker import unix_sockets


def test_engine_verbs_for_the_phases():
    assert eng.get_engine("podman").wait_argv("c1") == ["podman", "wait", "c1"]
    assert eng.get_engine("docker").wait_argv("c1") == ["docker", "wait", "c1"]


@pytest.mark.engines
def test_docker_daemons_are_the_ones_serving_this_client(docker_engine):
    procs = docker_engine.daemon_processes()
    assert procs["daemon"] and procs["containerd"]
    if os.geteuid() == 0:  # root can see which dockerd has the socket open
        assert len(procs["daemon"]) == 1
        others = {p.pid for p in system.processes_named("dockerd")} - {procs["daemon"][0].pid}
        assert not [p for p in procs["containerd"] if p.ppid() in others]
        assert docker_engine._socket_path() in unix_sockets(procs["daemon"][0])
