"""The course as a student without root sees it: `make course SINROOT=1` (python -m helpers.course.sinroot).

An unprivileged user (`curso-sinroot`, created by root the first time) gets a copy of this checkout and
runs `make course` in its own login-like environment, as a student who cloned the project would: its
own `make setup` (a virtual environment, rootless Podman, the images built with mmdebstrap
--mode=unshare), then the notebooks. The pages it renders are copied to build/sinroot/ (index.html,
one page per notebook), so the instructor can read before class what a student without root gets.

The user stays between runs with its home (its .venv, its image cache, rootless Podman's storage), so
the second run only runs the course; `python -m helpers.course.sinroot --borrar` (make clean-sinroot)
removes the user and everything it left. After every run, each of its processes (rootless Podman
leaves a pause process) is stopped. tests/course/test_sinroot.py runs this, with the quick profile,
inside `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from .. import engines, images, system
from ..paths import PROJECT_ROOT

USER = "curso-sinroot"
OUTPUT = PROJECT_ROOT / "build" / "sinroot"
COURSE_TIMEOUT = 60 * 60
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
KEEP = {".venv"}  # what a fresh copy of the checkout keeps from the previous one: the student's venv
SKIP_COPY = {".git", ".venv", "build", "results", "__pycache__", ".curso", ".pytest_cache"}

Log = Callable[[str], None]


@dataclass(frozen=True)
class Student:
    user: str
    uid: int
    gid: int
    home: Path

    @property
    def repo(self) -> Path:
        return self.home / "curso"


@dataclass
class Preview:
    """One run of the course as the student: its exit code, how long it took, what it printed, and
    where its pages were copied."""

    student: Student
    returncode: int
    seconds: float
    output: str
    pages: Path | None


def _root(argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def unavailable_reason() -> str | None:
    """Why this machine cannot run the course as a student without root (one Spanish sentence), or None."""
    if not system.is_root():
        return "crear el usuario sin privilegios necesita root: «sudo make course SINROOT=1»."
    for tool in ("useradd", "userdel", "usermod", "runuser", "make"):
        if not images.find_tool(tool):
            return f"falta «{tool}»."
    if not engines.get_engine("podman").available or not images.find_tool("newuidmap"):
        return "hace falta Podman con uidmap («sudo make setup» los instala)."
    return None


# ---------------------------------------------------------------- the user
def _student(user: str) -> Student:
    entry = pwd.getpwnam(user)
    return Student(user, entry.pw_uid, entry.pw_gid, Path(entry.pw_dir))


def ensure_user(user: str = USER, log: Log = print) -> Student:
    """The unprivileged user, created the first time with a home and the subordinate ids rootless Podman
    and mmdebstrap --mode=unshare need."""
    try:
        student = _student(user)
    except KeyError:
        log(f"Creo el usuario sin privilegios «{user}» (se queda para las próximas vistas previas).")
        created = _root(["useradd", "-m", "-s", "/bin/bash", user])
        if created.returncode != 0:
            raise RuntimeError(f"useradd no pudo crear «{user}»: {created.stderr.strip()}") from None
        student = _student(user)
    for path in (Path("/etc/subuid"), Path("/etc/subgid")):
        if not images.has_subid_range(path, user, student.uid):
            start = max(
                system.free_subid_start(Path("/etc/subuid")), system.free_subid_start(Path("/etc/subgid"))
            )
            flag = "--add-subuids" if path.name == "subuid" else "--add-subgids"
            done = _root(["usermod", flag, f"{start}-{start + 65535}", user])
            if done.returncode != 0:
                raise RuntimeError(f"usermod no pudo dar ids subordinados a «{user}»: {done.stderr.strip()}")
    return student


def student_env(student: Student) -> list[str]:
    env = {
        "HOME": str(student.home),
        "USER": student.user,
        "LOGNAME": student.user,
        "LANG": "C.UTF-8",
        "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
    }
    env.update({k: os.environ[k] for k in PASS_ENV if k in os.environ})
    return ["env", "-i", *(f"{k}={v}" for k, v in env.items())]


def as_student(
    student: Student, command: str, *, timeout: float, groups: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    """`command` in bash as the student, from its home, with only the student's environment."""
    argv = ["runuser", "-u", student.user]
    for group in groups:
        argv += ["-G", group]
    argv += ["--", *student_env(student), "bash", "-c", f"cd {student.home} && {command}"]
    return _root(argv, timeout=timeout, stdin=subprocess.DEVNULL)


def stop_processes(uid: int) -> int:
    """Every process of the user (rootless Podman leaves a pause process): by pid, TERM then KILL.
    Returns how many there were."""
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
    return len(procs)


def remove_user(user: str = USER, log: Log = print) -> bool:
    """Remove the user, its home (with the layers its rootless Podman owns through subordinate ids),
    its temporary folders and its subordinate id ranges. False if there was no such user."""
    try:
        student = _student(user)
    except KeyError:
        return False
    stop_processes(student.uid)
    for base in (Path("/tmp"), Path("/var/tmp")):
        for path in base.glob(f"*-{student.uid}"):
            try:
                if path.owner() == user:
                    shutil.rmtree(path, ignore_errors=True)
            except (OSError, KeyError):
                pass
    _root(["userdel", "-r", "-f", user])
    shutil.rmtree(student.home, ignore_errors=True)  # layers owned by subordinate ids, if userdel left them
    for path in (Path("/etc/subuid"), Path("/etc/subgid")):
        text = path.read_text() if path.exists() else ""
        kept = [line for line in text.splitlines() if not line.startswith(f"{user}:")]
        if len(kept) != len(text.splitlines()):
            path.write_text("".join(f"{line}\n" for line in kept))
    log(f"Borré el usuario «{user}» y todo lo que dejó.")
    return True


# ---------------------------------------------------------------- the student's copy of the project
def checkout_files(source: Path = PROJECT_ROOT) -> list[str]:
    """The files of this checkout as a student would have them: tracked and new files as they are now in
    the working tree (uncommitted changes included), nothing that git ignores (.venv, build/, results/)."""
    listed = subprocess.run(
        [
            "git",
            "-c",
            f"safe.directory={source}",
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
        cwd=source,
        capture_output=True,
        text=True,
    )
    if listed.returncode == 0:
        names = [n for n in listed.stdout.split("\0") if n]
    else:  # not a git checkout (a downloaded zip): everything but what the course writes
        names = [
            p.relative_to(source).as_posix()
            for p in source.rglob("*")
            if p.is_file() and not SKIP_COPY & set(p.relative_to(source).parts)
        ]
    return sorted(n for n in dict.fromkeys(names) if (source / n).is_file())


def copy_checkout(dest: Path, source: Path = PROJECT_ROOT) -> int:
    """Make `dest` a fresh copy of this checkout (checkout_files), keeping only the student's .venv from
    the previous copy; modification times are kept, so the student's `make` reinstalls the venv only
    when pyproject.toml changed. Returns how many files were copied."""
    dest.mkdir(parents=True, exist_ok=True)
    for child in dest.iterdir():
        if child.name in KEEP:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    names = checkout_files(source)
    for name in names:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, target, follow_symlinks=False)
    return len(names)


def _give_copy(student: Student) -> None:
    """The copy belongs to the student (its .venv already does)."""
    os.chown(student.repo, student.uid, student.gid)
    for child in student.repo.iterdir():
        if child.name in KEEP:
            continue
        os.chown(child, student.uid, student.gid, follow_symlinks=False)
        if child.is_dir() and not child.is_symlink():
            for root, dirs, files in os.walk(child):
                for name in dirs + files:
                    os.chown(os.path.join(root, name), student.uid, student.gid, follow_symlinks=False)


# ---------------------------------------------------------------- the run
def run(
    *,
    quick: bool = False,
    params: str | None = None,
    output: Path | None = OUTPUT,
    user: str = USER,
    log: Log = print,
    timeout: float = COURSE_TIMEOUT,
) -> Preview:
    """`make course` (RAPIDO=1 with `quick`, PARAMS with `params`) as the student, on a fresh copy of
    this checkout; its pages are copied to `output` (None: left in the student's copy only). The
    student's processes are stopped afterwards, whatever happened."""
    reason = unavailable_reason()
    if reason:
        raise RuntimeError(f"No puedo correr el curso sin root aquí: {reason}")
    student = ensure_user(user, log)
    log(f"Copio este proyecto a {student.repo} ({copy_checkout(student.repo)} archivos).")
    _give_copy(student)
    make = "make -C curso course" + (" RAPIDO=1" if quick else "")
    if params:
        make += " PARAMS=" + _shell_quote(params)
    log(f"Como «{student.user}», sin root: {make}")
    start = time.monotonic()
    try:
        done = as_student(student, make, timeout=timeout)
        returncode, output_text = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        returncode = 124
        output_text = (
            _text(exc.stdout) + _text(exc.stderr) + f"\n[sinroot] se agotó el tiempo ({timeout:.0f} s)."
        )
    finally:
        stop_processes(student.uid)
    seconds = time.monotonic() - start
    pages = _publish(student, output) if output is not None else None
    return Preview(student, returncode, seconds, output_text, pages)


def _text(value) -> str:
    if value is None:
        return ""
    return value.decode(errors="replace") if isinstance(value, bytes) else value


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _publish(student: Student, output: Path) -> Path | None:
    """Copy the student's rendered pages (build/html) and its course.json and course.log to `output`."""
    built = student.repo / "build"
    if not (built / "html").is_dir():
        return None
    if output.exists():
        shutil.rmtree(output)
    shutil.copytree(built / "html", output / "html")
    for name in ("course.json", "course.log"):
        if (built / name).is_file():
            shutil.copy2(built / name, output / name)
    return output / "html"


def failed_notebooks(preview: Preview) -> dict[str, str]:
    """{notebook: error} of the notebooks that failed in the student's run (from its course.json)."""
    summary = preview.student.repo / "build" / "course.json"
    if not summary.is_file():
        return {}
    return {
        nb["name"]: nb.get("error") or "?"
        for nb in json.loads(summary.read_text())["notebooks"]
        if nb["status"] != "ok"
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.course.sinroot",
        description="Ejecuta el curso como un estudiante sin root y deja sus páginas en build/sinroot/.",
    )
    parser.add_argument("--rapido", action="store_true", help="perfil rápido (como make course RAPIDO=1)")
    parser.add_argument("--parametros", default=None, metavar="JSON", help="como make course PARAMS='...'")
    parser.add_argument(
        "--borrar", action="store_true", help=f"borrar el usuario «{USER}» y todo lo que dejó, y salir"
    )
    args = parser.parse_args(argv)
    if args.borrar:
        if not system.is_root():
            print("Borrar el usuario necesita root: «sudo make clean-sinroot».", file=sys.stderr)
            return 1
        if not remove_user(USER):
            print(f"No hay usuario «{USER}»: nada que borrar.")
        return 0
    try:
        preview = run(quick=args.rapido, params=args.parametros)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(preview.output[-3000:] if preview.returncode else "", end="")
    failed = failed_notebooks(preview)
    status = "terminó bien" if preview.returncode == 0 else f"terminó con el código {preview.returncode}"
    print(f"El curso como «{preview.student.user}» (sin root) {status} en {preview.seconds:.0f} s.")
    if failed:
        print("Cuadernos fallidos: " + "; ".join(f"{k} ({v})" for k, v in failed.items()))
    if preview.pages:
        print(f"Sus páginas: {preview.pages / 'index.html'}")
    return preview.returncode


if __name__ == "__main__":
    sys.exit(main())
