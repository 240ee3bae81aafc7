"""A student without root, for real (issues 16 and 22): an unprivileged user gets a copy of this checkout
and runs `make course RAPIDO=1` (helpers.course.sinroot: what `make course SINROOT=1` runs for the
instructor's preview). It must exit 0, produce every page, skip the root-only arms with Spanish reasons,
measure with rootless Podman, and leave no container and no process behind.

Part of `make test` (`make test-sinroot` runs only these). The user `curso-sinroot` stays with its venv,
its images and rootless Podman's storage, so the next run is warm; `make clean-sinroot` removes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest

from helpers import PROJECT_ROOT, cgroups, engines
from helpers.course import sinroot
from tests.support import setup_step_missing

pytestmark = [pytest.mark.sinroot, pytest.mark.engines, pytest.mark.notebook]

USER = sinroot.USER


@pytest.fixture(scope="module")
def preview(tmp_path_factory):
    reason = sinroot.unavailable_reason()
    if reason:
        setup_step_missing("Podman sin root con uidmap (la instalación de paquetes)", reason)
    result = sinroot.run(quick=True, output=tmp_path_factory.mktemp("sinroot") / "paginas")
    print(
        f"\n[sinroot] make course RAPIDO=1 como {USER}: código {result.returncode} en {result.seconds:.0f} s"
    )
    return result


def _metas(repo: Path, experiment: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((repo / "results" / experiment).glob("*/meta.json"))]


def test_quick_course_as_a_student_without_root(preview):
    repo, home, output = preview.student.repo, preview.student.home, preview.output
    assert "Traceback" not in output.split("helpers.course")[0], output[-3000:]  # set-up: no traceback
    failed = sinroot.failed_notebooks(preview)
    if preview.returncode != 0 and failed:
        log = (repo / "build" / "course.log").read_text(errors="replace").splitlines()
        context = [line for name in failed for line in log if f"[{name}]" in line][-40:]
        pytest.fail(f"cuadernos fallidos como {USER}: {failed}\n" + "\n".join(context))
    assert preview.returncode == 0, output[-4000:]

    # Every page of the course was produced, and copied where the instructor reads them.
    notebooks = sorted(p.stem for p in (repo / "notebooks").glob("*.ipynb"))
    assert notebooks == sorted(p.stem for p in PROJECT_ROOT.glob("notebooks/*.ipynb"))
    summary = json.loads((repo / "build" / "course.json").read_text())
    assert preview.pages is not None and (preview.pages / "index.html").is_file()
    pages = {p.stem for p in preview.pages.glob("*.html")}
    assert set(notebooks) <= pages, sorted(set(notebooks) - pages)
    assert {nb["name"] for nb in summary["notebooks"]} == set(notebooks)
    assert all(nb["status"] == "ok" for nb in summary["notebooks"])
    for page in preview.pages.glob("*.html"):
        assert "Traceback" not in page.read_text(errors="replace"), f"{page.name} muestra una traza"

    # Set-up built the "ubuntu" stand-in without root (mmdebstrap --mode=unshare) and said what it skipped.
    images = [
        line for line in output.splitlines() if "imagen" in line or "mmdebstrap" in line or "Podman" in line
    ]
    assert (home / ".cache" / "curso-contenedores" / "images" / "ubuntu" / "rootfs.tar").is_file(), "\n".join(
        images[-30:]
    )
    assert "sin root" in output

    # Rootless Podman measured, named as such, with its network and storage in meta.json.
    launch = _metas(repo, "arranque")
    assert launch, "no hay corrida del experimento 1"
    podman = launch[-1]["engines"]["podman"]
    assert podman["rootless"] is True
    assert podman["network_backend"] in ("slirp4netns", "pasta") and podman["storage"]
    raw = (sorted((repo / "results" / "arranque").glob("*/raw.csv"))[-1]).read_text().splitlines()
    assert any(line.split(",")[1] == "podman" for line in raw[1:]), "ninguna fila de Podman sin root"

    # Docker (the user is not in the docker group) and root-only arms: skipped with Spanish reasons.
    for meta in launch:
        assert "grupo «docker»" in meta["skipped_engines"]["docker"]
    exec_metas = _metas(repo, "ejecucion")
    assert exec_metas, "no hay corrida del experimento 3"
    reasons = {k: v for m in exec_metas for k, v in (m.get("skipped_arms") or {}).items()}
    assert any("root" in reason for key, reason in reasons.items() if "chroot" in key), reasons

    # Notebook 00 told the student what they get and what an administrator should run.
    page = (repo / "build" / "html" / "00_entorno.html").read_text(errors="replace")
    assert "sin root" in page and f"usermod -aG docker {USER}" in page

    # Rootless Podman on cgroup v1 has no cgroup per container: notebook 02 says so instead of billing
    # the user's whole session to each container.
    if cgroups.layout() != "v2":
        scale = _metas(repo, "escala")
        assert scale and any("cgroup" in r for m in scale for r in (m.get("skipped_arms") or {}).values())
        rows = (sorted((repo / "results" / "escala").glob("*/raw.csv"))[-1]).read_text()
        assert "memoria_cgroup_por_contenedor" not in rows

    # No process of the student left running (rootless Podman's pause process included).
    uid = preview.student.uid
    assert not [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]

    # No container left: the user's rootless Podman, and the rootful engines for this user's runs.
    try:
        left = sinroot.as_student(preview.student, "podman ps -aq", timeout=120)
    finally:
        sinroot.stop_processes(preview.student.uid)
    assert left.returncode == 0 and not left.stdout.strip(), left.stdout + left.stderr
    run_ids = [m["run_id"] for exp in ("arranque", "escala", "ejecucion") for m in _metas(repo, exp)]
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        if engine.available:
            assert not [rid for rid in run_ids if engine.list_labelled(rid)], (
                f"quedaron contenedores en {name}"
            )


def test_a_student_in_the_docker_group_gets_docker(preview):
    """Issue 16, point 4: the docker group gives Docker without root (and the course says what it means)."""
    if not Path("/var/run/docker.sock").is_socket() or not engines.get_engine("docker").available:
        setup_step_missing(
            "Docker en marcha (el arranque de dockerd)", "no hay daemon de Docker en esta máquina."
        )
    repo = preview.student.repo
    if not (repo / ".venv" / "bin" / "python").exists():
        pytest.skip("el entorno del estudiante no se creó (falló la prueba anterior)")
    script = (
        "from helpers import engines, environment; "
        "print(engines.get_engine('docker').availability()); "
        "print([p.detail for p in environment.course_parts() if p.part == 'Docker'][0])"
    )
    try:
        done = sinroot.as_student(
            preview.student, f'cd curso && .venv/bin/python -c "{script}"', timeout=300, groups=("docker",)
        )
    finally:
        sinroot.stop_processes(preview.student.uid)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(True, None)" in done.stdout and "grupo «docker»" in done.stdout, done.stdout
