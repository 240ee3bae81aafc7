"""A student without root: image builders, root checks, rootless Podman metadata, the docker group."""
import json
import tarfile
from pathlib import Path

import pytest

from helpers import engines, images, system

FIXTURES = Path(__file__).parent / "fixtures" / "podman_info"


def test_busybox_standin_is_a_root_owned_tarball_whoever_builds_it(tmp_path):
    if images.busybox_binary() is None:
        pytest.skip("no hay busybox estático en esta máquina")
    tar_path = images._busybox_tar(tmp_path / "bb.tar")
    with tarfile.open(tar_path) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert {m.uid for m in members.values()} == {0} and {m.gid for m in members.values()} == {0}
    assert members["bin/busybox"].isfile() and members["bin/busybox"].mode & 0o111
    assert members["bin/sh"].issym() and members["bin/sh"].linkname == "busybox"
    assert members["tmp"].mode == 0o1777
    assert not (tmp_path / "bb.tar.parcial.tar").exists()


def test_rootfs_builder_without_root_names_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setattr(system, "is_root", lambda: False)
    monkeypatch.setattr(images, "_tool", lambda name: None if name == "newuidmap" else f"/usr/bin/{name}")
    reason = images.rootfs_builder_reason()
    assert "uidmap" in reason and "apt-get install uidmap" in reason

    monkeypatch.setattr(images, "_tool", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(images, "_subid_range", lambda path, user, uid: False)
    reason = images.rootfs_builder_reason()
    assert "/etc/subuid" in reason and "usermod --add-subuids" in reason

    monkeypatch.setattr(images, "_tool", lambda name: None)
    assert "mmdebstrap" in images.rootfs_builder_reason()
    with pytest.raises(images.ErrorDelCurso, match="mmdebstrap"):
        images.build_rootfs_tar(tmp_path / "x.tar", log=lambda line: None)


def test_subid_ranges_are_read_by_user_name_or_uid(tmp_path):
    subuid = tmp_path / "subuid"
    subuid.write_text("ana:100000:65536\n1002:165536:65536\npepe:231072:1000\n")
    assert images._subid_range(subuid, "ana", 1001)
    assert images._subid_range(subuid, "luis", 1002)
    assert not images._subid_range(subuid, "pepe", 1003)  # too small for a whole image
    assert not images._subid_range(tmp_path / "no-existe", "ana", 1001)
    assert system.free_subid_start(subuid) == 232072


def test_needs_root_reason_is_one_spanish_sentence(monkeypatch):
    monkeypatch.setattr(system, "is_root", lambda: True)
    assert system.needs_root_reason("la línea base chroot") is None
    monkeypatch.setattr(system, "is_root", lambda: False)
    reason = system.needs_root_reason("la línea base chroot")
    assert reason.startswith("la línea base chroot necesita privilegios de root") and reason.endswith(".")


def test_ensure_skips_a_role_that_cannot_be_built_and_keeps_the_other(monkeypatch):
    """Fault injection: no image anywhere and no way to build the "ubuntu" stand-in."""

    class NoImages(engines.Engine):
        name = "podman"

        def availability(self):
            return True, None

    lines = []
    monkeypatch.setattr(images, "get_engine", lambda name: NoImages())
    monkeypatch.setattr(images, "standin_reason",
                        lambda role: "no está mmdebstrap." if role == "ubuntu" else None)
    imported = []
    monkeypatch.setattr(images, "_import", lambda engine, role, tag, log: imported.append(role))
    out = images.ensure(("alpine", "ubuntu"), ("podman",), log=lines.append, try_pull=False)
    assert imported == ["alpine"]
    assert out == {"podman": {}}  # the fake engine never finds what was "imported"
    skipped = [line for line in lines if "se omite la imagen «ubuntu»" in line]
    assert skipped and "mmdebstrap" in skipped[0]


@pytest.mark.parametrize("fixture, rootless, network, storage", [
    ("rootless_vfs.json", True, "slirp4netns", "vfs"),
    ("rootful_overlay.json", False, "netavark", "overlay nativo"),
])
def test_podman_mode_names_rootless_network_and_storage(fixture, rootless, network, storage):
    mode = engines.podman_mode(json.loads((FIXTURES / fixture).read_text()))
    assert mode["rootless"] is rootless
    assert mode["network_backend"] == network
    assert mode["storage"].startswith(storage)


def test_podman_mode_recognises_fuse_overlayfs_and_pasta():
    data = json.loads((FIXTURES / "rootless_vfs.json").read_text())
    data["store"] = {"graphDriverName": "overlay",
                     "graphOptions": {"overlay.mount_program": {"Executable": "/usr/bin/fuse-overlayfs"}}}
    assert engines.podman_mode(data)["storage"] == "overlay con fuse-overlayfs"
    data["host"]["pasta"] = {"executable": "/usr/bin/pasta"}
    data["version"]["Version"] = "5.0.2"
    assert engines.podman_mode(data)["network_backend"] == "pasta"


def test_docker_socket_permission_error_is_explained():
    inner = PermissionError(13, "Permission denied")
    try:
        try:
            raise inner
        except PermissionError as exc:
            raise ConnectionError("Connection aborted.") from exc
    except ConnectionError as outer:
        assert engines._permission_denied(outer)
    assert not engines._permission_denied(ConnectionRefusedError(111, "Connection refused"))
    reason = engines.docker_permission_reason()
    assert "grupo «docker»" in reason and "usermod -aG docker" in reason
