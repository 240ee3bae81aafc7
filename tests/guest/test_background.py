"""The guest started in the background for a test session (helpers.guest.background, tests/conftest.py):
it returns its run, and the VM never outlives the session (stopped, -x, a real Ctrl-C, the session
killed outright). Fault injection: the real `python -m helpers.guest` with a shell standing in for QEMU
(no disks, no build), identified by a tag on its command line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from helpers import PROJECT_ROOT
from helpers.guest import background

HANGS = "echo CURSO-HUESPED-INICIO 1; sleep 600"
FINISHES = "echo CURSO-HUESPED-INICIO 1; echo CURSO-HUESPED-FASE root 9.5; echo CURSO-HUESPED-FIN 0"

# `python -m helpers.guest` (its real main, run_guest and boot_and_run) with QEMU, the build and the
# disks replaced: argv = work folder, tag, console script, then main's own arguments.
CHILD = """
import sys
from pathlib import Path
from helpers.guest import __main__ as cli, boot, build, run
work, tag, console = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
cli.availability = lambda: (True, None)
run.GUEST_DIR, run.RUNS_DIR = work, work / "corridas"
run.guest_build.ensure = lambda log: (build.Guest(work / "k", work / "i", work / "d", {}), None)
boot.system.run_checked = lambda *a, **k: ""
run.acceleration = lambda: ("tcg", "prueba")
boot.io_disk = lambda dest, w, flags=(): dest
run.capa.ensure = lambda *a, **k: {"key": "prueba"}
run.capa.PARTIAL, run.capa.LAYER_LOGS = work / "parcial", work / "capa"
run.capa.LAYER_LOGS.mkdir(exist_ok=True)
boot.qemu_argv = lambda *a: ["sh", "-c", console, tag]
run.copy_out = lambda io, dest: (dest / "salida").mkdir(parents=True)
sys.exit(cli.main(sys.argv[4:]))
"""


def child_argv(work: Path, tag: str, console: str) -> list[str]:
    """The fake guest's command line, but for `--resultado FILE` (which Background adds)."""
    return [sys.executable, "-c", CHILD, str(work), tag, console, "--limite", "5", "--resultado"]


def alive(tag: str) -> list[int]:
    """The fake QEMU's pids (`sh -c <console> <tag>`; the child's python also carries the tag)."""
    found = []
    for p in psutil.process_iter(["cmdline", "status"]):
        cmdline = p.info["cmdline"] or []
        if cmdline[:1] == ["sh"] and tag in cmdline and p.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(p.pid)
    return found


def wait_until(check, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Background.start(), in this process, starts the fake guest; logs under tmp_path."""
    monkeypatch.setattr(background, "GUEST_DIR", tmp_path)
    tag = f"huesped-fondo-{tmp_path.name}"

    def start(console: str) -> background.Background:
        return background.Background.start(
            60, command=lambda result: [*child_argv(tmp_path, tag, console), str(result)]
        )

    return start, tag


def test_a_finished_run_is_returned_with_its_log(fake, tmp_path):
    start, tag = fake
    bg = start(FINISHES)
    result = bg.wait()
    assert result.exit_code == 0 and result.phases == {"root": 9.5}
    assert Path(result.folder).parent == tmp_path / "corridas"
    assert bg.log_path == Path(result.folder) / "anfitrion.log"
    assert "[huésped" in bg.log_path.read_text() and "código 0" in bg.outcome
    assert not bg.stop() and not alive(tag)


def test_stopping_the_background_run_kills_the_vm(fake, tmp_path):
    start, tag = fake
    bg = start(HANGS)
    assert wait_until(lambda: alive(tag)), bg.tail()
    assert bg.stop()
    assert not bg.running() and not alive(tag)
    assert not list(tmp_path.glob("instancia-*")), "la instancia del huésped quedó en la caché"
    assert "detenida" in bg.outcome
    with pytest.raises(Exception, match="sin devolver una corrida"):
        bg.wait()


def test_a_run_that_returns_nothing_says_why(fake):
    start, tag = fake
    bg = start("echo sin marcas; exit 3")
    with pytest.raises(Exception, match="sin devolver una corrida") as err:
        bg.wait()
    assert "terminó (código 3)" in str(err.value), "el error no trae el final del registro"
    assert not alive(tag)


def test_a_session_killed_outright_takes_the_vm_with_it(tmp_path):
    """SIGKILL to the session (no hook runs): the kernel kills the background child, and QEMU with it."""
    tag = f"huesped-sesion-{tmp_path.name}"
    session = (
        "import sys, time\n"
        "from helpers.guest import background\n"
        f"background.GUEST_DIR = __import__('pathlib').Path({str(tmp_path)!r})\n"
        f"argv = {child_argv(tmp_path, tag, HANGS)!r}\n"
        "background.Background.start(60, command=lambda result: [*argv, str(result)])\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", session], cwd=PROJECT_ROOT, start_new_session=True)
    try:
        assert wait_until(lambda: alive(tag)), "el QEMU falso no arrancó"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert wait_until(lambda: not alive(tag), 15), "la VM sobrevivió a la sesión"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# ---------------------------------------------------------------- a real pytest session with our conftest
SESSION_TESTS = """
import pathlib, time
import pytest

def test_early(request):
    if request.config.getoption("-x"):
        assert False, "falla a propósito"
    pathlib.Path(__file__).with_name("en-marcha").touch()
    time.sleep(600)

@pytest.mark.huesped
def test_guest(guest_background):
    guest_background.wait()
"""

PLUGIN = """
from helpers import guest
from helpers.guest import background
guest.availability = lambda: (True, None)
background.GUEST_DIR = __import__("pathlib").Path({work!r})
_start = background.Background.start.__func__
ARGV = {argv!r}
background.Background.start = classmethod(
    lambda cls, timeout=60, command=None: _start(cls, 60, command=lambda result: [*ARGV, str(result)])
)
"""


def nested_session(tmp_path: Path, tag: str, *args: str) -> subprocess.Popen:
    """pytest in a separate process, with tests/conftest.py as a plugin and the fake guest."""
    (tmp_path / "test_sesion.py").write_text(SESSION_TESTS)
    argv = child_argv(tmp_path, tag, HANGS)
    (tmp_path / "guest_falso.py").write_text(PLUGIN.format(work=str(tmp_path), argv=argv))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(PROJECT_ROOT)]))
    env.pop("CURSO_HUESPED_CORRIDA", None)  # this session must start its (fake) guest
    script = "import signal, sys, pytest\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
    script += "sys.exit(pytest.main(sys.argv[1:]))\n"
    return subprocess.Popen(
        [sys.executable, "-c", script, "-c", str(PROJECT_ROOT / "pyproject.toml"), "-p", "tests.conftest"]
        + ["-p", "guest_falso", "-q", "-p", "no:cacheprovider", *args, str(tmp_path / "test_sesion.py")],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _finish(proc: subprocess.Popen) -> str:
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return out


def test_pytest_x_after_an_early_failure_leaves_no_vm(tmp_path):
    tag = f"huesped-x-{tmp_path.name}"
    proc = nested_session(tmp_path, tag, "-x")
    out = _finish(proc)
    assert proc.returncode == 1 and "falla a propósito" in out, out
    assert "1 failed" in out and "passed" not in out, out
    assert "detenida" in out, out  # stopped by the session's hooks, not only by the kernel
    assert not alive(tag), f"la VM siguió tras pytest -x: {out}"
    assert not list(tmp_path.glob("instancia-*")), "la instancia del huésped quedó en la caché"


def test_a_real_ctrl_c_during_the_session_stops_the_vm(tmp_path):
    tag = f"huesped-ctrlc-{tmp_path.name}"
    proc = nested_session(tmp_path, tag)
    try:
        started = wait_until(lambda: alive(tag) and (tmp_path / "en-marcha").exists(), 60)
        assert started, "la sesión no llegó a tener la VM en marcha"
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the session's process group
    finally:
        out = _finish(proc)
    assert proc.returncode == 2 and "KeyboardInterrupt" in out, out
    assert "detenida" in out, out
    assert not alive(tag), f"la VM siguió tras Ctrl-C: {out}"
    assert not list(tmp_path.glob("instancia-*")), "la instancia del huésped quedó en la caché"


def test_the_guest_tests_run_last():
    """They only wait for the run started at the beginning: everything else runs while the VM works."""
    from tests import conftest

    class Item:
        def __init__(self, name, guest):
            self.name, self.guest = name, guest

        def get_closest_marker(self, name):
            return object() if self.guest and name == "huesped" else None

    items = [Item("a", False), Item("g1", True), Item("g2", True), Item("b", False)]
    conftest.pytest_collection_modifyitems(None, items)
    assert [i.name for i in items] == ["a", "b", "g1", "g2"]
