"""The students' usual host (issue 24): a Debian 13 guest with cgroup v2, Docker 26 and Podman 5 runs
notebook 00 and the quick profile of the first class (02 and 03 as root; 01, 02 and 03 as the student
«alumno», rootless Podman) headless. These tests judge the run folders the guest returns.

One boot per test session, started in the background when the session begins (tests/conftest.py) so
the VM works while every other test runs; these tests come last and wait for it. `make test-huesped`
runs only these, `make test` runs them too. CURSO_HUESPED_CORRIDA=<folder> re-checks a returned run without booting.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from pathlib import Path
from statistics import median

import pytest

from helpers import guest
from helpers.experiments.ejecucion import arms as ejecucion
from helpers.guest import background
from helpers.guest import run as guest_run
from tests.support import setup_step_missing

pytestmark = [pytest.mark.huesped]
USERS = ("root", guest.STUDENT)
# What each user runs (guest.sh): root skips 01, whose launches under emulation decide nothing.
NOTEBOOKS = {"root": ["00", "02", "03"], guest.STUDENT: ["00", "01", "02", "03"]}


@pytest.fixture(scope="module")
def corrida(guest_background) -> guest_run.GuestRun:
    """The run started in the background at the beginning of the session (tests/conftest.py), waited
    for here; started now if this session did not start one."""
    again = os.environ.get("CURSO_HUESPED_CORRIDA")
    if again:
        return guest_run.load(Path(again))
    ok, why = guest.availability()
    if not ok:
        setup_step_missing(
            "las herramientas de la VM Debian 13 (la instalación de paquetes)", f"VM Debian 13: {why}"
        )
    started = guest_background or background.Background.start()
    try:
        result = started.wait()
    finally:
        started.stop()
    print(
        f"\n[huésped] {result.label}: construcción {result.build_seconds or 0:.0f} s (0 = caché), "
        f"arranque {result.boot_seconds} s, total {result.total_seconds} s, fases {result.phases}; "
        f"registro {started.log_path}",
        file=sys.stderr,
    )
    return result


def _text(path: Path) -> str:
    assert path.is_file(), f"el huésped no devolvió {path.name}"
    return path.read_text(errors="replace")


def notebook_output(folder: Path, user: str, name: str) -> str:
    """Everything an executed notebook printed (its stream and text outputs)."""
    nb = json.loads(_text(folder / user / "build" / "notebooks" / f"{name}.ipynb"))
    out = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            out.append("".join(output.get("text", "")))
            out.append("".join((output.get("data") or {}).get("text/plain", "")))
    return "\n".join(out)


def raw_rows(folder: Path, user: str, experiment: str) -> list[dict]:
    runs = sorted((folder / user / "results" / experiment).glob("*/raw.csv"))
    assert runs, f"{user}: no hay corrida de {experiment}"
    with open(runs[-1], newline="") as f:
        return list(csv.DictReader(f))


def meta(folder: Path, user: str, experiment: str) -> dict:
    runs = sorted((folder / user / "results" / experiment).glob("*/meta.json"))
    assert runs, f"{user}: no hay corrida de {experiment}"
    return json.loads(runs[-1].read_text())


def values(rows: list[dict], engine: str, metric: str) -> list[float]:
    return [float(r["value"]) for r in rows if r["engine"] == engine and r["metric"] == metric]


def test_the_guest_runs_the_course_and_powers_off(corrida):
    folder = corrida.dir
    assert corrida.total_seconds, "QEMU no terminó"
    for user in USERS:
        summary = json.loads(_text(folder / user / "build" / "course.json"))
        failed = {nb["name"]: nb["error"] for nb in summary["notebooks"] if nb["status"] != "ok"}
        assert not failed, f"{user}: cuadernos fallidos en el huésped: {failed}"
        assert [nb["name"][:2] for nb in summary["notebooks"]] == NOTEBOOKS[user]
    assert corrida.exit_code == 0, f"el huésped terminó con código {corrida.exit_code}"


def test_the_images_were_imported_once_by_the_course_and_found_by_the_run(corrida):
    """The stand-in images are imported into the guest's cached layer by the course's images.ensure
    (one boot, capa.py), on Docker 26 and Podman 5 with and without root; each run finds them there."""
    assert corrida.images_layer, "la corrida no arrancó sobre la capa con las imágenes"
    prepared = corrida.dir / "hechos" / "imagenes-preparadas"
    logs = {user: _text(prepared / user / "imagenes.log") for user in USERS}
    for user, engines in (("root", ("Docker", "Podman")), (guest.STUDENT, ("Podman sin root",))):
        for engine in engines:
            for role in ("alpine", "ubuntu"):
                assert f"[ OK ] {engine}: {role} -> " in logs[user], f"{user}: {logs[user]}"
                ran = _text(corrida.dir / user / "imagenes.log")
                assert f"[ OK ] {engine}: {role} -> " in ran, f"{user}: {ran}"
        assert "importando" not in _text(corrida.dir / user / "imagenes.log"), "la corrida volvió a importar"
        assert _text(prepared / user / "codigo.txt").strip() == "0"


def test_no_network_device_in_the_guest(corrida):
    nics = _text(corrida.dir / "hechos" / "tarjetas-de-red.txt").split()
    assert not nics, f"el huésped tiene una tarjeta de red: {nics}"
    assert "dummy0" in _text(corrida.dir / "hechos" / "red.txt")


def test_pinned_package_versions(corrida):
    installed = guest.parse_dpkg_list(_text(corrida.dir / "hechos" / "paquetes.txt"))
    assert not guest.version_drift(guest.pinned_packages(), installed)


def test_notebook_00_recognises_the_usual_host(corrida):
    root = notebook_output(corrida.dir, "root", "00_entorno")
    assert "[ OK ] versión de cgroups: v2" in root
    assert "[ OK ] motor Docker: versión 26." in root
    assert "[ OK ] motor Podman: versión 5." in root
    assert "red netavark" in root and "runtime crun" in root
    docker_line = next(line for line in root.splitlines() if "motor Docker" in line)
    assert "cgroups v2" in docker_line, docker_line
    assert "[FALTA] sonda" not in root, "las sondas compiladas no llegaron al huésped"
    student = notebook_output(corrida.dir, guest.STUDENT, "00_entorno")
    assert "[ OK ] motor Podman sin root: versión 5." in student
    assert "red pasta" in student and "runtime crun" in student
    assert "[ OK ] delegación de cgroups v2" in student and "memory" in student
    delegated = _text(corrida.dir / "hechos" / f"delegados-{guest.STUDENT}.txt").split()
    assert {"cpu", "memory", "pids"} <= set(delegated)


def test_02_reads_every_container_memory_from_v2_files(corrida):
    for user, engines in (("root", ("docker", "podman")), (guest.STUDENT, ("podman",))):
        rows = raw_rows(corrida.dir, user, "escala")
        info = meta(corrida.dir, user, "escala")
        assert info["cgroup_layout"] == "v2"
        skipped = " ".join(str(v) for v in (info.get("skipped_arms") or {}).values())
        assert "cgroup" not in skipped, f"{user}: {skipped}"
        for engine in engines:
            memory = values(rows, engine, "memoria_cgroup_por_contenedor")
            assert memory, f"{user}/{engine}: 02 no leyó la memoria de ningún contenedor"
            assert all(v > 0 for v in memory), f"{user}/{engine}: memoria leída {memory}"
            assert values(rows, engine, "tiempo_lectura_cgroup")
            # Next to the engine's own `stats` (same containers, same moment): Docker's agrees with the
            # cgroup's usage minus inactive cache; Podman 5's on v2 counts less (about the anon memory).
            ours = median(values(rows, engine, "memoria_stats_por_contenedor"))
            theirs = median(values(rows, engine, "memoria_stats_cli_por_contenedor"))
            if engine == "docker":
                assert 0.6 < ours / theirs < 1.6, (
                    f"{user}/{engine}: cgroup {ours:.0f} KB, stats {theirs:.0f} KB"
                )
            else:
                assert 0 < theirs <= ours, f"{user}/{engine}: cgroup {ours:.0f} KB, stats {theirs:.0f} KB"


def test_03_measures_every_workload_in_each_engine_on_v2(corrida):
    """03 (the first class's last notebook) on cgroup v2: every workload the guest asks for (guest.sh: one
    of CPU, one of I/O) timed on bare metal and in each engine of the user; the chroot baseline as root
    only (it needs root), nothing left behind."""
    for user, engines in (("root", ("docker", "podman")), (guest.STUDENT, ("podman",))):
        rows = raw_rows(corrida.dir, user, "ejecucion")
        info = meta(corrida.dir, user, "ejecucion")
        assert info["status"] == "complete", f"{user}: {info['status']} {info.get('reason')}"
        assert info["host"]["cgroup_version"] == "v2", info["host"]["cgroup_version"]
        asked = info["parameters"]["cargas"]
        assert asked and set(asked) <= set(ejecucion.WORKLOADS), f"{user}: cargas {asked}"
        assert list(info["workloads"]) == asked, f"{user}: pedidas {asked}, medidas {list(info['workloads'])}"
        for engine in ("bare", *engines):
            for workload in asked:
                work = [
                    float(r["value"])
                    for r in rows
                    if r["engine"] == engine
                    and r["metric"] == ejecucion.METRIC_WORK
                    and r["variant"].split(":")[0] == workload
                ]
                assert work and all(v > 0 for v in work), f"{user}/{engine}/{workload}: trabajo {work}"
            launched = [
                float(r["value"])
                for r in rows
                if r["engine"] == engine
                and r["variant"] == ejecucion.EXEC_TRUE
                and r["metric"] == ejecucion.METRIC_E2E
            ]
            assert launched and all(v > 0 for v in launched), f"{user}/{engine}: exec true {launched}"
        if user != "root":
            assert not any(r["engine"] == "docker" for r in rows), f"{user}: filas de Docker sin root"
        assert not any(info["cleanup_leftovers"].values()), f"{user}: {info['cleanup_leftovers']}"
        assert info["chroot"]["usada"] is (user == "root"), f"{user}: {info['chroot']}"
    assert "chroot" in meta(corrida.dir, guest.STUDENT, "ejecucion")["skipped_arms"]


def test_cgroup_paths_of_each_engine_on_v2(corrida):
    """Where each engine puts a container, as the course finds it, and its memory read there."""
    where = {
        ("root", "docker"): "system.slice/docker-",
        ("root", "podman"): "machine.slice/libpod-",
        (guest.STUDENT, "podman"): f"user@{guest.STUDENT_UID}.service/",
    }
    for (user, engine), fragment in where.items():
        probe = json.loads(_text(corrida.dir / user / "sonda.json"))["motores"][engine]
        assert not probe.get("error"), f"{user}/{engine}: {probe.get('error')}"
        assert fragment in probe["cgroup"], f"{user}/{engine}: {probe['cgroup']}"
        assert probe["memoria"]["version"] == "v2" and probe["memoria"]["usage"] > 0, probe
        assert probe["motivo_sin_cgroup"] is None, probe["motivo_sin_cgroup"]
        if engine == "podman":  # crun puts the container's processes in a `container` sub-cgroup
            assert probe["cgroup_pid"].endswith("/container"), probe
            assert probe["cgroup"] == probe["cgroup_pid"], "02 no lee el subgrupo «container» de crun"


def test_the_full_memory_bill_finds_the_helpers(corrida):
    root = raw_rows(corrida.dir, "root", "escala")
    assert min(values(root, "docker", "shims_procesos")) >= 1
    assert min(values(root, "docker", "rss_daemon")) > 0 and min(values(root, "docker", "rss_containerd")) > 0
    for user in USERS:
        rows = raw_rows(corrida.dir, user, "escala")
        assert min(values(rows, "podman", "conmon_procesos")) >= 1, user
        assert min(values(rows, "podman", "rss_conmon_total")) > 0, user
    helpers = meta(corrida.dir, "root", "escala")["helpers"]
    assert any("shim" in name for name in helpers["docker"]), helpers
    assert helpers["podman"] == ["conmon"], helpers


def test_nothing_is_left_in_the_guest(corrida):
    left = corrida.dir / "restos"
    for name in ("docker.txt", "podman.txt", f"podman-{guest.STUDENT}.txt"):
        assert not _text(left / name).split(), f"quedaron contenedores: {name}"
    assert not _text(left / "cgroups.txt").split(), "quedaron cgroups de contenedores"
    procs = _text(left / "procesos.txt")
    for helper in ("conmon", "containerd-shim", "sleep 3600", "sleep 600", "pasta"):
        assert helper not in procs, f"quedó un proceso «{helper}» en el huésped"
