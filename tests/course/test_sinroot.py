"""A student without root (issue 16), for real: a new unprivileged user clones the project and runs
`make course RAPIDO=1`. It must exit 0, produce every page, skip the root-only arms with Spanish
reasons, measure with rootless Podman, and leave no container behind (rootful or the user's). The user
and everything it left are removed afterwards.

Slow (a fresh venv, a Debian image built with mmdebstrap --mode=unshare, the whole quick course): it
runs only when asked for, with `make test-sinroot` (pytest -m sinroot).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from helpers import PROJECT_ROOT, cgroups, engines, images, system

pytestmark = [pytest.mark.sinroot, pytest.mark.engines, pytest.mark.notebook]

USER = f"curso-sr-{os.getpid()}"
COURSE_TIMEOUT = 40 * 60
# What the student's shell would have: no variable of ours (CURSO_RESULTADOS, CONTAINERS_CONF...)
# leaks into the student's run; pip's settings of this machine do (they are the machine's, not ours).
PASS_ENV = (
    "LANG",
    "PIP_DEFAULT_TIMEOUT",
    "PIP_CERT",
    "PIP_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_TRUSTED_HOST",
    "PIP_DISABLE_PIP_VERSION_CHECK",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)


def _root(argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def student_env(home: Path) -> list[str]:
    env = {
        "HOME": str(home),
        "USER": USER,
        "LOGNAME": USER,
        "LANG": "C.UTF-8",
        "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
    }
    env.update({k: os.environ[k] for k in PASS_ENV if k in os.environ})
    return ["env", "-i", *(f"{k}={v}" for k, v in env.items())]


def as_student(home: Path, command: str, *, timeout: float, groups: tuple[str, ...] = ()):
    argv = ["runuser", "-u", USER]
    for group in groups:
        argv += ["-G", group]
    argv += ["--", *student_env(home), "bash", "-c", f"cd {home} && {command}"]
    return _root(argv, timeout=timeout, stdin=subprocess.DEVNULL)


def kill_user_processes(uid: int) -> None:
    """Every process of the test user (rootless Podman leaves a pause process): by pid, TERM then KILL."""
    procs = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]
    for proc in procs:
        try:
            proc.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(procs, timeout=5)
    for proc in alive:
        try:
            proc.kill()
        except psutil.Error:
            pass


def remove_user(uid: int | None, home: Path) -> None:
    if uid is not None:
        kill_user_processes(uid)
        for base in (Path("/tmp"), Path("/var/tmp")):
            for path in base.glob(f"*-{uid}"):
                try:
                    if path.owner() == USER:
                        shutil.rmtree(path, ignore_errors=True)
                except (OSError, KeyError):
                    pass
    _root(["userdel", "-r", "-f", USER])
    shutil.rmtree(home, ignore_errors=True)  # vfs layers owned by subordinate ids, if userdel left them
    for path in (Path("/etc/subuid"), Path("/etc/subgid")):
        text = path.read_text() if path.exists() else ""
        kept = [line for line in text.splitlines() if not line.startswith(f"{USER}:")]
        if len(kept) != len(text.splitlines()):
            path.write_text("".join(f"{line}\n" for line in kept))


@pytest.fixture(scope="module")
def student():
    if not system.is_root():
        pytest.skip("crear un usuario de prueba necesita root")
    for tool in ("useradd", "userdel", "runuser", "git"):
        if not images.find_tool(tool):
            pytest.skip(f"falta «{tool}»")
    if not engines.get_engine("podman").available or not images.find_tool("newuidmap"):
        pytest.skip("hace falta Podman con uidmap (make setup como root los instala)")
    created = _root(["useradd", "-m", "-s", "/bin/bash", USER])
    assert created.returncode == 0, created.stderr
    entry = pwd.getpwnam(USER)
    home = Path(entry.pw_dir)
    try:
        # Rootless Podman and mmdebstrap --mode=unshare need subordinate ids (useradd may have given them).
        for path in (Path("/etc/subuid"), Path("/etc/subgid")):
            if not images.has_subid_range(path, USER, entry.pw_uid):
                start = max(
                    system.free_subid_start(Path("/etc/subuid")), system.free_subid_start(Path("/etc/subgid"))
                )
                flag = "--add-subuids" if path.name == "subuid" else "--add-subgids"
                done = _root(["usermod", flag, f"{start}-{start + 65535}", USER])
                assert done.returncode == 0, done.stderr
        clone = _root(
            [
                "git",
                "-c",
                f"safe.directory={PROJECT_ROOT}",
                "clone",
                "-q",
                str(PROJECT_ROOT),
                str(home / "curso"),
            ]
        )
        assert clone.returncode == 0, clone.stderr
        _root(["chown", "-R", f"{USER}:{USER}", str(home / "curso")])
        yield {"home": home, "uid": entry.pw_uid, "repo": home / "curso"}
    finally:
        if os.environ.get("CURSO_SINROOT_CONSERVAR"):  # keep the user to look at what happened
            print(f"\n[sinroot] se conserva el usuario {USER} en {home}; bórralo con «userdel -r -f {USER}»")
        else:
            remove_user(entry.pw_uid, home)


def _metas(repo: Path, experiment: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((repo / "results" / experiment).glob("*/meta.json"))]


def test_quick_course_as_a_student_without_root(student):
    repo, home = student["repo"], student["home"]
    start = time.monotonic()
    done = as_student(home, "make -C curso course RAPIDO=1", timeout=COURSE_TIMEOUT)
    seconds = time.monotonic() - start
    output = done.stdout + done.stderr
    print(f"\n[sinroot] make course RAPIDO=1 como {USER}: código {done.returncode} en {seconds:.0f} s")
    assert "Traceback" not in output.split("helpers.course")[0], output[-3000:]  # set-up: no traceback
    summary_path = repo / "build" / "course.json"
    if done.returncode != 0 and summary_path.is_file():
        failed = {
            nb["name"]: nb["error"]
            for nb in json.loads(summary_path.read_text())["notebooks"]
            if nb["status"] != "ok"
        }
        log = (repo / "build" / "course.log").read_text(errors="replace").splitlines()
        context = [line for name in failed for line in log if f"[{name}]" in line][-40:]
        pytest.fail(f"cuadernos fallidos como {USER}: {failed}\n" + "\n".join(context))
    assert done.returncode == 0, output[-4000:]

    # Every page of the course was produced.
    notebooks = sorted(p.stem for p in (repo / "notebooks").glob("*.ipynb"))
    summary = json.loads((repo / "build" / "course.json").read_text())
    pages = {p.stem for p in (repo / "build" / "html").glob("*.html")}
    assert set(notebooks) <= pages, sorted(set(notebooks) - pages)
    assert (repo / "build" / "html" / "index.html").is_file()
    failed = {nb["name"]: nb["error"] for nb in summary["notebooks"] if nb["status"] != "ok"}
    assert not failed, failed
    assert {nb["name"] for nb in summary["notebooks"]} == set(notebooks)
    for page in (repo / "build" / "html").glob("*.html"):
        assert "Traceback" not in page.read_text(errors="replace"), f"{page.name} muestra una traza"

    # Set-up built the "ubuntu" stand-in without root (mmdebstrap --mode=unshare) and said what it skipped.
    assert (home / ".cache" / "curso-contenedores" / "images" / "ubuntu" / "rootfs.tar").is_file()
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

    # No container left: the user's rootless Podman, and the rootful engines for this user's runs.
    left = as_student(home, "podman ps -aq", timeout=120)
    assert left.returncode == 0 and not left.stdout.strip(), left.stdout + left.stderr
    run_ids = [m["run_id"] for exp in ("arranque", "escala", "ejecucion") for m in _metas(repo, exp)]
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        if engine.available:
            assert not [rid for rid in run_ids if engine.list_labelled(rid)], (
                f"quedaron contenedores en {name}"
            )


def test_a_student_in_the_docker_group_gets_docker(student):
    """Issue 16, point 4: the docker group gives Docker without root (and the course says what it means)."""
    if not Path("/var/run/docker.sock").is_socket() or not engines.get_engine("docker").available:
        pytest.skip("no hay daemon de Docker en esta máquina")
    repo, home = student["repo"], student["home"]
    if not (repo / ".venv" / "bin" / "python").exists():
        pytest.skip("el entorno del estudiante no se creó (falló la prueba anterior)")
    script = (
        "from helpers import engines, environment; "
        "print(engines.get_engine('docker').availability()); "
        "print([p.detail for p in environment.course_parts() if p.part == 'Docker'][0])"
    )
    done = as_student(home, f'cd curso && .venv/bin/python -c "{script}"', timeout=300, groups=("docker",))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(True, None)" in done.stdout and "grupo «docker»" in done.stdout, done.stdout
