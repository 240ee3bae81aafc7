"""helpers.engines.rootfs: an image's root filesystem exported once from a real engine, ready to chroot
into (experiments 3, 4 and 7 use it). Faults (no mknod, an export that dies halfway) are injected."""

from __future__ import annotations

import os
import stat

import pytest

from helpers import engines as eng
from helpers import images, system
from helpers.engines import rootfs
from tests.support import setup_step_missing


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "rootfs-exportado"
    monkeypatch.setattr(rootfs, "ROOTFS_CACHE", folder)
    return folder


@pytest.fixture
def busybox_image():
    """(engine name, image entry) of the busybox stand-in in the first engine that has it."""
    for name in eng.CONTAINER_ENGINES:
        if eng.get_engine(name).available:
            info = images.resolve("alpine", eng.get_engine(name))
            if info:
                return name, info
    setup_step_missing(
        "la imagen «alpine» en Docker o Podman (la preparación de imágenes)",
        "ningún motor tiene la imagen «alpine» (make setup la prepara).",
    )


def test_without_mknod_the_rest_of_the_rootfs_is_still_prepared(monkeypatch, tmp_path):
    """A user without root: mknod is refused, /dev and a sticky /tmp are still there."""

    def refuse(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(rootfs.os, "mknod", refuse)
    rootfs.make_dev_nodes(tmp_path)
    assert (tmp_path / "dev").is_dir() and not (tmp_path / "dev" / "null").exists()
    assert (tmp_path / "tmp").stat().st_mode & 0o1777 == 0o1777


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod necesita root")
def test_device_nodes_replace_what_an_image_left_in_their_place(tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "null").write_text("un archivo normal")  # what an export may leave
    (tmp_path / "dev" / "urandom").symlink_to("random")
    rootfs.make_dev_nodes(tmp_path)
    for name, minor in rootfs.DEV_NODES:
        mode = (tmp_path / "dev" / name).lstat()
        assert stat.S_ISCHR(mode.st_mode) and os.major(mode.st_rdev) == 1 and os.minor(mode.st_rdev) == minor
        assert stat.S_IMODE(mode.st_mode) == 0o666


def test_chroot_needs_root_said_in_spanish(monkeypatch):
    monkeypatch.setattr(system, "is_root", lambda: True)
    assert rootfs.chroot_unavailable_reason() is None
    monkeypatch.setattr(system, "is_root", lambda: False)
    reason = rootfs.chroot_unavailable_reason()
    assert reason.startswith(rootfs.CHROOT_WHAT) and "root" in reason


@pytest.mark.engines
def test_an_image_is_exported_once_and_then_reused(cache, busybox_image, monkeypatch):
    engine_name, image = busybox_image
    lines = []
    target = rootfs.exported_rootfs(engine_name, image, "PRUEBA", lines.append)
    assert target.parent == cache and (target / "bin" / "busybox").is_file()
    assert (cache / f"{target.name}.ok").read_text().split() == [image["name"], image["id"]]
    assert len(lines) == 1 and "una sola vez" in lines[0]
    assert [p.name for p in cache.iterdir() if p.name.startswith(".")] == []  # no half export left
    assert eng.get_engine(engine_name).list_labelled("PRUEBA") == []  # the export's container is gone

    def no_second_export(*args, **kwargs):
        raise AssertionError("la segunda vez no debe exportar")

    monkeypatch.setattr(type(eng.get_engine(engine_name)), "export_rootfs", no_second_export)
    assert rootfs.exported_rootfs(engine_name, image, "PRUEBA", lines.append) == target
    assert len(lines) == 1


def test_an_export_that_dies_halfway_leaves_nothing_to_be_taken_for_good(cache, monkeypatch):
    class Dying:
        display = "Motor que muere"

        def export_rootfs(self, image, dest, *, run_id):
            (dest / "bin").mkdir(parents=True)
            (dest / "bin" / "sh").write_text("a medias")
            raise OSError("el motor murió a mitad de la exportación")

    monkeypatch.setattr(rootfs, "get_engine", lambda name: Dying())
    image = {"name": "curso/busybox", "id": "sha256:0123456789abcdef0123"}
    with pytest.raises(OSError, match="a mitad"):
        rootfs.exported_rootfs("docker", image, "PRUEBA", lambda line: None)
    assert list(cache.iterdir()) == []
