"""helpers.engines.nested: a chain of containers driven by one `exec` per level, without engines."""

from __future__ import annotations

import subprocess

import pytest

from helpers.engines import nested
from helpers.errors import ComandoFallido


def test_chain_wraps_one_exec_per_outer_container():
    chain = nested.Chain("podman", outer=["fuera", "medio"])
    assert chain.wrap(["echo", "ok"]) == ["podman", "exec", "fuera", "podman", "exec", "medio", "echo", "ok"]
    assert chain.wrap(["true"], depth=1) == ["podman", "exec", "fuera", "true"]
    assert nested.Chain("docker").wrap(["true"]) == ["true"]


def test_a_failed_call_names_the_level_in_spanish(monkeypatch):
    chain = nested.Chain("podman", outer=["fuera"])
    failed = subprocess.CompletedProcess([], 125, "", "Copying blob\nError: runc: mount proc: denied\n")
    monkeypatch.setattr(type(chain.cli), "call", lambda self, argv, timeout=None: failed)
    with pytest.raises(ComandoFallido, match=r"\(nivel 2\) no pudo cargar busybox: Error: runc: mount proc"):
        chain.call(["podman", "load"], what="cargar busybox")


def test_short_error_keeps_the_error_line():
    text = "Getting image source signatures\nCopying blob\nError: runc: mount proc: denied\n"
    assert nested.short_error(text) == "Error: runc: mount proc: denied"
    assert nested.short_error("") == "(sin mensaje)"


def test_errors_are_cut_on_words():
    line = "Error: runc: mount proc:/proc (via /proc/self/fd/6), flags: 0xe: operation not permitted"
    assert nested.short_error(line, 40) == "…flags: 0xe: operation not permitted"
    cut = nested.clip(line, 30)
    assert cut == "Error: runc: mount proc:/proc…" and len(cut) <= 30
    assert nested.clip("corto", 30) == "corto"


def test_an_engine_inside_reaps_its_orphans():
    assert nested.entry("podman") == ["sh", "-c", nested.REAPER]
    assert "dockerd" in nested.entry("docker")[2] and "wait" in nested.entry("docker")[2]
