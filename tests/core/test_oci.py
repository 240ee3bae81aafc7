"""helpers.engines.oci: a bundle runc runs with and without a network namespace, and an overlay
mounted for the duration of a block (both need root)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.engines import oci
from tests.support import setup_step_missing

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="necesita root (runc, mount)")


def _mounted(path: Path) -> bool:
    target = str(path.resolve())
    with open("/proc/self/mounts", encoding="utf-8") as fh:
        return any(line.split()[1] == target for line in fh)


@needs_root
def test_runc_runs_the_bundle_with_and_without_a_network_namespace(tmp_path):
    rootfs = tmp_path / "rootfs"
    (rootfs / "bin").mkdir(parents=True)
    for d in ("proc", "dev", "sys"):
        (rootfs / d).mkdir()
    busybox = next((p for p in ("/bin/busybox", "/usr/bin/busybox") if Path(p).exists()), None)
    if busybox is None:
        setup_step_missing(
            "busybox estático (la instalación de paquetes)",
            "no hay busybox estático en el host para construir un rootfs mínimo.",
        )
    shutil.copy(busybox, rootfs / "bin" / "busybox")
    (rootfs / "bin" / "echo").symlink_to("busybox")
    (rootfs / "bin" / "readlink").symlink_to("busybox")
    for netns in (False, True):
        bundle = oci.make_bundle(
            rootfs, ["readlink", "/proc/self/ns/net"], network_namespace=netns, parent=tmp_path
        )
        config = json.loads((bundle.path / "config.json").read_text())
        assert any(ns["type"] == "network" for ns in config["linux"]["namespaces"]) == netns
        assert config["root"] == {"path": str(rootfs.resolve()), "readonly": True}
        out = subprocess.run(
            oci.runc_argv(bundle, f"curso-anatomia-prueba-{int(netns)}"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        host = os.readlink("/proc/self/ns/net")
        assert (out.stdout.strip() != host) == netns
        assert oci.leftover_containers(bundle) == []
        bundle.remove()
        assert not bundle.path.exists() and not bundle.state.exists()


@needs_root
def test_an_overlay_is_mounted_for_the_block_and_gone_after_it(tmp_path):
    lower = tmp_path / "lower"
    lower.mkdir()
    (lower / "imagen.txt").write_text("capa de abajo\n")
    base = tmp_path / "overlay"
    with oci.mounted_overlay(lower, base) as merged:
        assert _mounted(merged)
        assert (merged / "imagen.txt").read_text() == "capa de abajo\n"
        (merged / "nuevo.txt").write_text("escrito arriba\n")
        assert (base / "upper" / "nuevo.txt").exists() and not (lower / "nuevo.txt").exists()
    assert not _mounted(merged)
    assert not (base / "upper").exists() and not (base / "work").exists()
    with pytest.raises(RuntimeError, match="dentro"):
        with oci.mounted_overlay(lower, base) as merged:
            raise RuntimeError("fallo dentro del bloque")
    assert not _mounted(merged)
