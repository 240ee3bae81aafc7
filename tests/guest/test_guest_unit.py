"""The guest's pieces that need no VM: pins, command line, course copy, and the course fixes the guest
found (each with its own test here)."""

from __future__ import annotations

from pathlib import Path

from helpers import environment, guest, system
from helpers.guest import boot, build


def test_pins_parse_and_drift():
    pins = guest.pinned_packages("# c\ndocker.io=26.1.5-1\nudev\n\npodman=5.4.2 # x\n")
    assert pins == {"docker.io": "26.1.5-1", "udev": None, "podman": "5.4.2"}
    installed = guest.parse_dpkg_list("docker.io\t26.1.5-1\npodman:amd64\t5.4.1\nudev\t257\n")
    assert guest.version_drift(pins, installed) == {"podman": ("5.4.2", "5.4.1")}
    assert guest.version_drift(pins, {"docker.io": "26.1.5-1", "podman": "5.4.2"}) == {}


def test_the_shipped_lists_pin_the_engines():
    pins = guest.pinned_packages()
    for name in ("docker.io", "podman", "crun", "netavark", "passt", "linux-image-cloud-amd64"):
        assert pins.get(name), f"{name} sin versión fijada"
    wheels = [line for line in guest.REQUIREMENTS_FILE.read_text().splitlines() if line and line[0] != "#"]
    assert wheels and all("==" in line for line in wheels)
    for name in ("papermill", "pandas", "psutil", "docker", "ipykernel"):
        assert any(line.startswith(f"{name}==") for line in wheels), name


def test_the_guest_gets_every_dependency_the_course_declares():
    """The guest installs requisitos.txt, not pyproject: a dependency added to one only (scipy, say) left
    the guest's course dying at import. Every runtime dependency of pyproject is pinned for the guest (one
    whose marker leaves out the guest's Python is not installed there)."""
    import re

    import tomllib
    from packaging.requirements import Requirement

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    on_guest = [
        d
        for d in project["dependencies"]
        if (marker := Requirement(d).marker) is None
        or marker.evaluate({"python_version": build.PYTHON_VERSION})
    ]
    wanted = {re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower() for d in on_guest}
    assert len(on_guest) >= len(project["dependencies"]) - 1  # a marker leaves out one at most
    pinned = {
        line.split("==")[0].strip().lower()
        for line in guest.REQUIREMENTS_FILE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert wanted <= pinned, f"faltan en requisitos.txt del huésped: {sorted(wanted - pinned)}"


def test_qemu_has_no_network_device_and_owns_two_disks(tmp_path):
    found = build.Guest(tmp_path / "k", tmp_path / "i", tmp_path / "d", {})
    argv = boot.qemu_argv(found, tmp_path / "o.qcow2", tmp_path / "io.raw", "tcg")
    assert argv[argv.index("-nic") + 1] == "none" and "-nodefaults" in argv
    assert not any("netdev" in a or "virtio-net" in a for a in argv)
    assert argv[argv.index("-accel") + 1].startswith("tcg")
    assert sum(1 for a in argv if a == "-drive") == 2
    assert guest.label("tcg") == "VM emulada (TCG), Debian 13, cgroup v2"


def test_the_course_copy_is_what_a_clone_has():
    files = boot.course_files()
    assert "helpers/guest/guest.sh" in files and "notebooks/00_entorno.ipynb" in files
    assert not any(f.startswith((".venv/", "results/", "build/")) for f in files)


def test_make_setup_installs_what_the_guest_needs_on_the_host():
    """The guest runs in the background beside the other tests: it must not install anything on the
    host (apt's lock), so every host tool it needs comes from a package `make setup` installs."""
    from helpers import experiments, provision

    setup = set(provision.APT_PACKAGES.values())
    setup |= {p for module in experiments.all_experiments() for p in getattr(module, "DEBIAN_PACKAGES", ())}
    assert set(guest.HOST_PACKAGES.values()) <= setup, set(guest.HOST_PACKAGES.values()) - setup
    code = " ".join(p.read_text() for p in Path(guest.HERE).glob("*.py"))
    assert "apt-get" not in code and "provision" not in code


def test_without_root_it_says_why_in_spanish(monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    ok, why = guest.availability()
    assert not ok and "necesita root" in why


# ---------------------------------------------------------------- fixes the guest found in the course
def _v2_tree(tmp_path: Path, uid: int, controllers: str | None) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    if controllers is not None:
        service = environment.user_service_cgroup(uid, tmp_path)
        service.mkdir(parents=True)
        (service / "cgroup.controllers").write_text(controllers + "\n")
    return tmp_path


def test_notebook_00_reports_rootless_delegation(tmp_path, monkeypatch):
    monkeypatch.setattr(system, "is_root", lambda: False)
    [check] = environment.check_delegation(_v2_tree(tmp_path, 1000, "cpu memory pids"), uid=1000)
    assert check.ok and "memory" in check.detail and check.item == "delegación de cgroups v2"


def test_notebook_00_says_what_is_missing_without_delegation(tmp_path, monkeypatch):
    monkeypatch.setattr(system, "is_root", lambda: False)
    [check] = environment.check_delegation(_v2_tree(tmp_path, 1000, "pids"), uid=1000)
    assert not check.ok and "Delegate=" in check.fix
    [check] = environment.check_delegation(_v2_tree(tmp_path / "x", 1000, None), uid=1000)
    assert not check.ok


def test_delegation_is_not_checked_for_root_or_on_v1(tmp_path, monkeypatch):
    monkeypatch.setattr(system, "is_root", lambda: True)
    assert environment.check_delegation(_v2_tree(tmp_path, 1000, "memory"), uid=1000) == []
    monkeypatch.setattr(system, "is_root", lambda: False)
    (tmp_path / "v1" / "memory").mkdir(parents=True)
    assert environment.check_delegation(tmp_path / "v1", uid=1000) == []


def test_the_guest_joins_the_class_demo_as_an_emulated_machine(tmp_path):
    import shutil

    from helpers import clase
    from helpers.guest import comparar

    demo = clase.demo(tmp_path / "demo")
    fake = tmp_path / "corrida"  # a returned run: one demo machine's runs as root's results
    shutil.copytree(demo / "demo-maquina-01", fake / "root" / "results")
    found = boot.GuestRun(str(fake), "tcg", "", guest.label("tcg"), None)
    assert comparar.add_to_class(demo, found) == [guest.LABEL_TCG]
    c = clase.recolectar(demo)
    assert guest.LABEL_TCG in {r.machine for r in c.runs}
    data = c.data
    timed = set(data[data["unit"].isin(clase.TIME_UNITS)]["metric"])
    verdicts = clase.against_reference(c)
    mine = verdicts[verdicts["machine"] == guest.LABEL_TCG]
    mine_timed = mine[mine["metric"].isin(timed)]
    assert not mine_timed.empty and (mine_timed["veredicto"] == clase.EMULATED_VERDICT).all()
    others = verdicts[verdicts["machine"] != guest.LABEL_TCG]
    assert not (others["veredicto"] == clase.EMULATED_VERDICT).any()


# ---------------------------------------------------------------- the VM is a child the run owns
def _fake_guest(monkeypatch, tmp_path, script: str) -> tuple[build.Guest, str]:
    """boot_and_run with a shell standing in for QEMU (no disks, no mke2fs)."""
    tag = f"huesped-falso-{tmp_path.name}"
    monkeypatch.setattr(boot.system, "run_checked", lambda *a, **k: "")
    monkeypatch.setattr(boot, "io_disk", lambda dest, work, flags=(): dest)
    monkeypatch.setattr(boot, "qemu_argv", lambda *a: ["sh", "-c", script, tag])
    return build.Guest(tmp_path / "k", tmp_path / "i", tmp_path / "d", {}), tag


def _alive(tag: str) -> list[int]:
    import psutil

    return [p.pid for p in psutil.process_iter(["cmdline"]) if tag in (p.info["cmdline"] or [])]


def _result(tmp_path) -> boot.GuestRun:
    return boot.GuestRun(str(tmp_path / "r"), "tcg", "", guest.LABEL_TCG, None)


def test_a_guest_that_runs_too_long_is_killed(monkeypatch, tmp_path):
    import pytest

    from helpers.errors import ComandoFallido

    found, tag = _fake_guest(monkeypatch, tmp_path, "echo CURSO-HUESPED-INICIO 1; sleep 600")
    result = _result(tmp_path)
    with pytest.raises(ComandoFallido, match="no terminó a tiempo"):
        boot.boot_and_run(found, tmp_path, "tcg", result, lambda line: None, timeout=3)
    assert result.boot_seconds is not None and not _alive(tag)
    assert "CURSO-HUESPED-INICIO" in (tmp_path / "consola.log").read_text()


def test_ctrl_c_kills_the_guest(monkeypatch, tmp_path):
    import pytest

    found, tag = _fake_guest(monkeypatch, tmp_path, "echo CURSO-HUESPED-INICIO 1; sleep 600")

    def interrupt(line):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        boot.boot_and_run(found, tmp_path, "tcg", _result(tmp_path), interrupt, timeout=60)
    assert not _alive(tag)


def test_a_guest_that_finishes_is_read_to_the_end(monkeypatch, tmp_path):
    script = "echo CURSO-HUESPED-INICIO 1; echo CURSO-HUESPED-FASE root 9.5; echo CURSO-HUESPED-FIN 0"
    found, tag = _fake_guest(monkeypatch, tmp_path, script)
    result = _result(tmp_path)
    boot.boot_and_run(found, tmp_path, "tcg", result, lambda line: None, timeout=60)
    assert result.exit_code == 0 and result.phases == {"root": 9.5} and result.total_seconds is not None
    assert not _alive(tag)


def _proc(tmp_path: Path, pid: int, text: str) -> Path:
    (tmp_path / "proc" / str(pid)).mkdir(parents=True)
    (tmp_path / "proc" / str(pid) / "cgroup").write_text(text)
    return tmp_path / "proc"


def test_crun_container_subcgroup_is_the_container(tmp_path):
    """Found by the guest: on cgroup v2 Podman reports the scope, and crun runs the container in its
    `container` sub-cgroup: the course read the scope, not where the container's processes are."""
    from helpers import cgroups

    scope = "/machine.slice/libpod-abc.scope"
    proc = _proc(tmp_path, 77, f"0::{scope}/container\n")
    podman = {"State": {"Pid": 77, "CgroupPath": scope}}
    assert cgroups.cgroup_from_inspect(podman, proc_root=proc) == f"{scope}/container"
    rootless = "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-abc.scope"
    proc = _proc(tmp_path / "b", 78, f"0::{rootless}/container\n")
    data = {"State": {"Pid": 78, "CgroupPath": rootless}}
    assert cgroups.cgroup_from_inspect(data, proc_root=proc) == f"{rootless}/container"
    # runc (v1 or v2): PID 1 lives in the reported cgroup itself, or elsewhere: the reported one stays
    proc = _proc(tmp_path / "c", 79, "4:memory:/libpod_parent/libpod-abc\n")
    data = {"State": {"Pid": 79, "CgroupPath": "/libpod_parent/libpod-abc"}}
    assert cgroups.cgroup_from_inspect(data, proc_root=proc) == "/libpod_parent/libpod-abc"
    data = {"State": {"Pid": 79, "CgroupPath": "/libpod_parent/libpod-ab"}}  # a prefix is not a parent
    assert cgroups.cgroup_from_inspect(data, proc_root=proc) == "/libpod_parent/libpod-ab"
    assert cgroups.cgroup_from_inspect({"State": {"Pid": 0, "CgroupPath": scope}}, proc_root=proc) == scope


def test_engines_report_the_cgroup_version_alike():
    """Found by the guest: notebook 00 said «cgroups 2» for Docker and «cgroups v2» for Podman."""
    from helpers import cgroups

    assert cgroups.version_label("2") == cgroups.version_label("v2") == cgroups.version_label(2) == "v2"
    assert cgroups.version_label("1") == "v1" and cgroups.version_label(None) is None


def test_notebook_00_counts_in_spanish():
    """Found by the guest: notebook 00 said «Faltan 1 cosas»."""
    from helpers.view import entorno

    assert entorno.missing_sentence(1) == "Falta 1 cosa."
    assert entorno.missing_sentence(3) == "Faltan 3 cosas."


# ---------------------------------------------------------------- the images, imported once (capa.py)
def test_runs_boot_on_the_images_layer_and_the_layer_on_the_base(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(boot.system, "run_checked", lambda argv, **k: calls.append([str(a) for a in argv]))
    monkeypatch.setattr(boot, "io_disk", lambda dest, work, flags=(): calls.append(["io", *flags]) or dest)
    monkeypatch.setattr(boot, "qemu_argv", lambda *a: ["sh", "-c", "echo CURSO-HUESPED-FIN 0"])
    found = build.Guest(tmp_path / "k", tmp_path / "i", tmp_path / "base.raw", {})
    result = _result(tmp_path)
    boot.boot_and_run(
        found, tmp_path, "tcg", result, lambda line: None, 60, backing=tmp_path / "imagenes.qcow2"
    )
    assert calls[0][-5:] == [
        "-F",
        "qcow2",
        "-b",
        str(tmp_path / "imagenes.qcow2"),
        str(tmp_path / "raiz.qcow2"),
    ]
    assert calls[1] == ["io"] and result.powered_off
    calls.clear()
    boot.boot_and_run(
        found,
        tmp_path,
        "tcg",
        _result(tmp_path),
        lambda line: None,
        60,
        overlay=tmp_path / "p.qcow2",
        flags=("x",),
    )
    assert calls[0][-5:] == ["-F", "raw", "-b", str(tmp_path / "base.raw"), str(tmp_path / "p.qcow2")]
    assert calls[1] == ["io", "x"]


def _layer_in(monkeypatch, tmp_path, exit_code: int, powered_off: bool = True) -> list:
    from helpers.guest import capa

    for name, value in {
        "GUEST_DIR": tmp_path,
        "LAYER": tmp_path / "imagenes.qcow2",
        "LAYER_INFO": tmp_path / "imagenes.json",
        "LAYER_LOGS": tmp_path / "imagenes",
        "PARTIAL": tmp_path / "imagenes.qcow2.parcial",
    }.items():
        monkeypatch.setattr(capa, name, value)
    boots = []

    def fake_boot(guest, work, accel, result, log, timeout, *, overlay, flags):
        boots.append(flags)
        overlay.write_text("capa")
        (work / "consola.log").write_text("consola\n")
        result.exit_code, result.powered_off = exit_code, powered_off

    monkeypatch.setattr(boot, "boot_and_run", fake_boot)
    monkeypatch.setattr(boot, "copy_out", lambda io, dest: (dest / "salida" / "root").mkdir(parents=True))
    return boots


def test_the_images_layer_is_prepared_once_and_kept(monkeypatch, tmp_path):
    from helpers.guest import capa

    boots = _layer_in(monkeypatch, tmp_path, 0)
    found = build.Guest(tmp_path / "k", tmp_path / "i", tmp_path / "base.raw", {"key": "abc"})
    info = capa.ensure(found, "tcg", lambda line: None, 60)
    assert boots == [(capa.FLAG,)] and capa.LAYER.read_text() == "capa" and not capa.PARTIAL.exists()
    assert (capa.LAYER_LOGS / "root").is_dir() and (capa.LAYER_LOGS / "consola.log").is_file()
    assert capa.ensure(found, "tcg", lambda line: None, 60) == info and len(boots) == 1
    other = build.Guest(tmp_path / "k", tmp_path / "i", tmp_path / "base.raw", {"key": "otra"})
    assert capa.cached(other) is None  # a rebuilt guest: the layer is prepared again


def test_a_layer_that_did_not_import_everything_is_not_kept(monkeypatch, tmp_path):
    import pytest

    from helpers.errors import ComandoFallido
    from helpers.guest import capa

    found = build.Guest(tmp_path / "k", tmp_path / "i", tmp_path / "base.raw", {"key": "abc"})
    for code, off in ((1, True), (0, False)):
        _layer_in(monkeypatch, tmp_path, code, off)
        with pytest.raises(ComandoFallido, match="No pude importar las imágenes"):
            capa.ensure(found, "tcg", lambda line: None, 60)
        assert not capa.LAYER.exists() and not capa.PARTIAL.exists() and capa.cached(found) is None


def test_in_the_guest_each_user_needs_the_images_of_its_engines():
    from helpers.guest import capa

    roles = ("alpine", "ubuntu")
    full = {"docker": {"alpine": {}, "ubuntu": {}}, "podman": {"alpine": {}, "ubuntu": {}}}
    assert capa.missing(full, capa.expected_engines(True), roles) == []
    assert capa.missing({"podman": {"alpine": {}}}, capa.expected_engines(False), roles) == ["podman:ubuntu"]
    assert capa.missing({"podman": full["podman"]}, capa.expected_engines(True), roles) == [
        "docker:alpine",
        "docker:ubuntu",
    ]


def test_the_layer_key_follows_only_the_part_of_guest_sh_that_prepares_it(monkeypatch, tmp_path):
    """Which notebooks the guest runs (and with what parameters) is guest.sh's course part: changing it
    does not re-import the images (~10 min of TCG); changing the preparing part does."""
    import pytest

    from helpers.guest import capa

    shipped = guest.GUEST_SCRIPT.read_text()
    head = capa.preparing_part(shipped)
    course = shipped[len(head) :]
    assert capa.FLAG in head and "helpers.guest.capa" in head and "helpers.course" not in head
    assert "helpers.course --solo" in course and capa.FLAG not in course
    found = build.Guest(tmp_path / "k", tmp_path / "i", tmp_path / "base.raw", {"key": "abc"})
    script = tmp_path / "guest.sh"
    monkeypatch.setattr(capa, "GUEST_SCRIPT", script)
    script.write_text(shipped)
    key = capa.layer_key(found)
    fewer = course.replace('"02 03"', '"03"')
    assert fewer != course
    script.write_text(head + fewer)
    assert capa.layer_key(found) == key
    script.write_text(head.replace("helpers.guest.capa", "helpers.guest.capa -v") + course)
    assert capa.layer_key(found) != key
    script.write_text(shipped.replace(capa.SCRIPT_COURSE_PART, "# curso"))
    with pytest.raises(ValueError, match="separa la capa del curso"):
        capa.layer_key(found)
