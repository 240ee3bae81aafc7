"""A student without root: image builders, root checks, rootless Podman metadata, the docker group, and
the pieces of the non-root preview (helpers.course.sinroot) that need no user."""

import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from helpers import cgroups, engines, environment, experiments, images, system
from helpers.course import sinroot
from helpers.engines.docker import docker_permission_reason, permission_denied
from helpers.engines.podman import podman_mode
from helpers.experiments import runner
from tests.support import setup_step_missing

FIXTURES = Path(__file__).parent.parent / "fixtures" / "podman_info"


def test_busybox_standin_is_a_root_owned_tarball_whoever_builds_it(tmp_path):
    if images.busybox_binary() is None:
        setup_step_missing(
            "busybox estático (la instalación de paquetes)", "no hay busybox estático en esta máquina."
        )
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
    monkeypatch.setattr(images, "find_tool", lambda name: None if name == "newuidmap" else f"/usr/bin/{name}")
    reason = images.rootfs_builder_reason()
    assert "uidmap" in reason and "apt-get install uidmap" in reason

    monkeypatch.setattr(images, "find_tool", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(images, "has_subid_range", lambda path, user, uid: False)
    reason = images.rootfs_builder_reason()
    assert "/etc/subuid" in reason and "usermod --add-subuids" in reason

    monkeypatch.setattr(images, "find_tool", lambda name: None)
    assert "mmdebstrap" in images.rootfs_builder_reason()
    with pytest.raises(images.ErrorDelCurso, match="mmdebstrap"):
        images.build_rootfs_tar(tmp_path / "x.tar", log=lambda line: None)


def test_subid_ranges_are_read_by_user_name_or_uid(tmp_path):
    subuid = tmp_path / "subuid"
    subuid.write_text("ana:100000:65536\n1002:165536:65536\npepe:231072:1000\n")
    assert images.has_subid_range(subuid, "ana", 1001)
    assert images.has_subid_range(subuid, "luis", 1002)
    assert not images.has_subid_range(subuid, "pepe", 1003)  # too small for a whole image
    assert not images.has_subid_range(tmp_path / "no-existe", "ana", 1001)
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
    monkeypatch.setattr(
        images, "standin_reason", lambda role: "no está mmdebstrap." if role == "ubuntu" else None
    )
    imported = []
    monkeypatch.setattr(images, "_import", lambda engine, role, tag, log: imported.append(role))
    out = images.ensure(("alpine", "ubuntu"), ("podman",), log=lines.append, try_pull=False)
    assert imported == ["alpine"]
    assert out == {"podman": {}}  # the fake engine never finds what was "imported"
    skipped = [line for line in lines if "se omite la imagen «ubuntu»" in line]
    assert skipped and "mmdebstrap" in skipped[0]


@pytest.mark.parametrize(
    "fixture, rootless, network, storage",
    [
        ("rootless_vfs.json", True, "slirp4netns", "vfs"),
        ("rootful_overlay.json", False, "netavark", "overlay nativo"),
    ],
)
def test_podman_mode_names_rootless_network_and_storage(fixture, rootless, network, storage):
    mode = podman_mode(json.loads((FIXTURES / fixture).read_text()))
    assert mode["rootless"] is rootless
    assert mode["network_backend"] == network
    assert mode["storage"].startswith(storage)


def test_podman_mode_recognises_fuse_overlayfs_and_pasta():
    data = json.loads((FIXTURES / "rootless_vfs.json").read_text())
    data["store"] = {
        "graphDriverName": "overlay",
        "graphOptions": {"overlay.mount_program": {"Executable": "/usr/bin/fuse-overlayfs"}},
    }
    assert podman_mode(data)["storage"] == "overlay con fuse-overlayfs"
    data["host"]["pasta"] = {"executable": "/usr/bin/pasta"}
    data["version"]["Version"] = "5.0.2"
    assert podman_mode(data)["network_backend"] == "pasta"


def test_docker_socket_permission_error_is_explained():
    inner = PermissionError(13, "Permission denied")
    try:
        try:
            raise inner
        except PermissionError as exc:
            raise ConnectionError("Connection aborted.") from exc
    except ConnectionError as outer:
        assert permission_denied(outer)
    assert not permission_denied(ConnectionRefusedError(111, "Connection refused"))
    reason = docker_permission_reason()
    assert "grupo «docker»" in reason and "usermod -aG docker" in reason


def test_a_cgroup_that_holds_the_measuring_process_is_not_the_containers(tmp_path):
    (tmp_path / "4242").mkdir()
    (tmp_path / "4242" / "cgroup").write_text("12:memory:/user.slice/session-3.scope\n0::/\n")
    assert cgroups.contains_process("/user.slice/session-3.scope", 4242, proc_root=tmp_path)
    assert cgroups.contains_process("/user.slice", 4242, proc_root=tmp_path)
    assert cgroups.contains_process("/", 4242, proc_root=tmp_path)
    assert not cgroups.contains_process("/libpod_parent/libpod-abc", 4242, proc_root=tmp_path)
    assert not cgroups.contains_process("/user.slice/session-3", 4242, proc_root=tmp_path)


def test_rootless_engine_on_cgroup_v1_has_no_cgroup_per_container(monkeypatch):
    class RootlessPodman(engines.Engine):
        name, rootless = "podman", True

    monkeypatch.setattr(cgroups, "layout", lambda root=cgroups.CGROUP_ROOT: "v1")
    reason = cgroups.per_container_reason(RootlessPodman(), ["/libpod_parent/libpod-abc"])
    assert "no crea un cgroup por contenedor" in reason and "stats" in reason
    monkeypatch.setattr(cgroups, "layout", lambda root=cgroups.CGROUP_ROOT: "v2")
    assert cgroups.per_container_reason(RootlessPodman(), ["/user.slice/libpod-abc.scope"]) is None
    assert "inspect" in cgroups.per_container_reason(RootlessPodman(), [None])


def test_require_root_skips_the_arm_with_a_spanish_reason(monkeypatch, tmp_path):
    lines = []
    monkeypatch.setattr(system, "is_root", lambda: False)
    with runner.experiment_run("prueba_sinroot", {}, ["bare"], root=tmp_path, log=lines.append) as ctx:
        assert ctx.require_root("chroot", "la línea base chroot") is False
    meta = json.loads(next(tmp_path.rglob("meta.json")).read_text())
    assert meta["skipped_arms"]["chroot"].startswith("la línea base chroot necesita privilegios de root")
    assert any("Se omite chroot" in line for line in lines)
    monkeypatch.setattr(system, "is_root", lambda: True)
    with runner.experiment_run("prueba_sinroot", {}, ["bare"], root=tmp_path, log=lines.append) as ctx:
        assert ctx.require_root("chroot", "la línea base chroot") is True


def test_a_missing_image_role_skips_that_arm_and_keeps_the_engine(monkeypatch, tmp_path):
    """Fault injection: the engine has the "alpine" image but not the "ubuntu" one."""

    class HasAlpineOnly(engines.Engine):
        name = "podman"

        def availability(self):
            return True, None

    alpine = {
        "role": "alpine",
        "name": "curso/busybox-estatico:1",
        "id": "x",
        "size_bytes": 1,
        "origin": "sustituto",
    }
    monkeypatch.setattr(runner.eng, "get_engine", lambda name: HasAlpineOnly())
    monkeypatch.setattr(
        runner.images, "resolve_all", lambda roles, names: {"podman": {"alpine": alpine, "ubuntu": None}}
    )
    monkeypatch.setattr(
        images, "standin_reason", lambda role: "no está mmdebstrap." if role == "ubuntu" else None
    )
    with runner.experiment_run(
        "prueba_sinroot",
        {},
        ["podman"],
        image_roles=["alpine", "ubuntu"],
        root=tmp_path,
        log=lambda line: None,
    ) as ctx:
        assert ctx.engines == ["podman"] and list(ctx.images["podman"]) == ["alpine"]
    meta = json.loads(next(tmp_path.rglob("meta.json")).read_text())
    assert "mmdebstrap" in meta["skipped_arms"]["Podman / ubuntu"]
    assert "podman" not in meta["skipped_engines"]


def test_every_root_only_arm_is_listed_for_notebook_00(monkeypatch):
    monkeypatch.setattr(system, "is_root", lambda: False)
    parts = environment.root_only_parts()
    chroot = [p for p in parts if "chroot" in p.part]
    assert chroot and not chroot[0].ok and "root" in chroot[0].detail and chroot[0].admin
    assert all(p.part.split(":")[0] in {m.NOTEBOOK for m in experiments.all_experiments()} for p in parts)


def test_gvisor_is_neither_offered_nor_built_without_root(monkeypatch):
    from helpers.engines import runtimes

    monkeypatch.setattr(system, "is_root", lambda: False)
    ok, why = runtimes.runsc_availability()
    assert not ok and "root" in why
    monkeypatch.setattr(runtimes, "choose_go", lambda log: pytest.fail("no debe buscar Go sin root"))
    built, message = runtimes.build_runsc(lambda line: None)
    assert not built and "No lo compilo" in message


# ---------------------------------------------------------------- helpers.course.sinroot (the preview)
def _git(cwd, *args):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True
    )


def test_the_students_copy_is_the_working_tree_without_what_git_ignores(tmp_path):
    """The copy holds tracked files as they are now (uncommitted changes included) and new files, never
    .venv, build/ or results/; a refresh keeps only the student's own .venv and keeps modification times
    (so the student's make reinstalls nothing when pyproject.toml did not change)."""
    src = tmp_path / "proyecto"
    (src / "helpers").mkdir(parents=True)
    (src / ".gitignore").write_text(".venv\nbuild/\nresults/\n")
    (src / "pyproject.toml").write_text("[project]\n")
    (src / "helpers" / "a.py").write_text("A = 1\n")
    _git(src, "init", "-q")
    _git(src, "add", ".")
    _git(src, "commit", "-q", "-m", "x")
    (src / "helpers" / "a.py").write_text("A = 2\n")  # uncommitted change
    (src / "helpers" / "nuevo.py").write_text("B = 1\n")  # new, not yet added
    for ignored in (".venv/bin/python", "build/html/index.html", "results/arranque/raw.csv"):
        (src / ignored).parent.mkdir(parents=True, exist_ok=True)
        (src / ignored).write_text("no\n")
    old = 1_600_000_000
    os.utime(src / "pyproject.toml", (old, old))

    dest = tmp_path / "curso"
    (dest / ".venv").mkdir(parents=True)
    (dest / ".venv" / ".instalado").write_text("")
    (dest / "results" / "viejo").mkdir(parents=True)
    (dest / "borrado.py").write_text("stale\n")

    assert sinroot.copy_checkout(dest, src) == 4
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        ".gitignore",
        ".venv/.instalado",
        "helpers/a.py",
        "helpers/nuevo.py",
        "pyproject.toml",
    ]
    assert (dest / "helpers" / "a.py").read_text() == "A = 2\n"
    assert (dest / "pyproject.toml").stat().st_mtime == old


def test_the_students_shell_gets_none_of_our_variables(monkeypatch, tmp_path):
    monkeypatch.setenv("CURSO_RESULTADOS", "/tmp/x")
    monkeypatch.setenv("CONTAINERS_CONF", "/tmp/c.conf")
    monkeypatch.setenv("PIP_FIND_LINKS", "/opt/wheels")
    student = sinroot.Student("ana", 1001, 1001, tmp_path)
    argv = sinroot.student_env(student)
    assert argv[:2] == ["env", "-i"]
    names = {a.split("=", 1)[0] for a in argv[2:]}
    assert {"HOME", "USER", "PATH", "PIP_FIND_LINKS"} <= names
    assert not names & {"CURSO_RESULTADOS", "CONTAINERS_CONF", "PYTHONPATH"}
    assert f"HOME={tmp_path}" in argv


def test_the_preview_says_why_it_cannot_run_without_root(monkeypatch):
    monkeypatch.setattr(system, "is_root", lambda: False)
    reason = sinroot.unavailable_reason()
    assert reason and "root" in reason and "SINROOT=1" in reason
    assert sinroot.main(["--borrar"]) == 1
