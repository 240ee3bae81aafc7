"""The guest started in the background at the beginning of a test session, so it runs while the other
tests run (`make test`), and judged at the end by tests/guest.

It is `python -m helpers.guest --resultado FILE` as a child process of the session, in its own process
group, its output in a log file (never mixed with pytest's): the child builds (once) and boots the guest
exactly as `make test-huesped` does, and writes the folder of the returned run into FILE.
The child belongs to the session that started it:
- `stop()` sends it SIGTERM, which it handles as a Ctrl-C (QEMU's process group killed, its instance
  removed), and SIGKILL after a grace period;
- if the session dies first, even by SIGKILL, the kernel kills the child (PR_SET_PDEATHSIG), and QEMU,
  the child's own child, dies with it the same way.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .. import PROJECT_ROOT, measure
from ..errors import ComandoFallido
from . import GUEST_DIR
from . import run as guest_run

# Beyond the boot-to-power-off limit of the run itself: building the guest once (~1.5 min cold here),
# waiting for another session's guest (one at a time per machine) and copying the run out.
MARGIN = 20 * 60  # s
GRACE = 60  # s between SIGTERM and SIGKILL (the child stops QEMU and removes its instance)
LOG_PREFIX = "fondo-"


class Background:
    """One guest run in a child process. `wait()` returns the GuestRun; `stop()` ends it for sure."""

    def __init__(self, argv: list[str], log_path: Path, result_path: Path, limit: float):
        self.log_path = log_path
        self.result_path = result_path
        self.limit = limit  # s from start to the child's exit
        self.started = time.monotonic()
        self.ended: float | None = None
        self.outcome: str | None = None  # one Spanish line once waited for or stopped
        result_path.unlink(missing_ok=True)
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(
                argv,
                cwd=PROJECT_ROOT,
                env=dict(os.environ, PYTHONUNBUFFERED="1"),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=measure.die_with_parent,
            )

    @classmethod
    def start(
        cls, timeout: float = guest_run.DEFAULT_TIMEOUT, *, command: Callable[[Path], list[str]] | None = None
    ) -> Background:
        """Start the guest's run now. `command(result file)` replaces the command line (fault injection
        in the tests)."""
        GUEST_DIR.mkdir(parents=True, exist_ok=True)
        _remove_stale_logs()
        log_path = GUEST_DIR / f"{LOG_PREFIX}{os.getpid()}.log"
        result_path = GUEST_DIR / f"{LOG_PREFIX}{os.getpid()}.resultado"
        argv = command(result_path) if command else None
        if argv is None:
            argv = [
                sys.executable,
                "-m",
                "helpers.guest",
                "--limite",
                f"{timeout / 60:.2f}",
                "--resultado",
                str(result_path),
            ]
        return cls(argv, log_path, result_path, timeout + MARGIN)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def running(self) -> bool:
        return self.proc.poll() is None

    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def wait(self) -> guest_run.GuestRun:
        """Wait for the child (within its limit, counted from its start) and return the run it returned.
        ComandoFallido (Spanish, with the end of its log) if it returned none or ran out of time."""
        left = self.limit - (time.monotonic() - self.started)
        try:
            self.proc.wait(timeout=max(left, 1))
        except subprocess.TimeoutExpired:
            self.stop()
            self.outcome = f"no terminó en {self.limit / 60:.0f} min: detenida"
            raise ComandoFallido(
                f"La corrida del huésped en segundo plano no terminó en {self.limit / 60:.0f} min; la "
                f"detuve. Registro: {self.log_path}\n{self.tail()}"
            ) from None
        self.ended = self.ended or time.monotonic()
        folder = self.result_path.read_text().strip() if self.result_path.is_file() else ""
        if not folder:
            self.outcome = f"terminó sin devolver una corrida (código {self.proc.returncode})"
            raise ComandoFallido(
                f"La corrida del huésped en segundo plano {self.outcome}. Registro: {self.log_path}\n"
                f"{self.tail()}"
            )
        self.result_path.unlink(missing_ok=True)
        kept = Path(folder) / "anfitrion.log"  # the host side's log stays with the run it belongs to
        try:
            os.replace(self.log_path, kept)
            self.log_path = kept
        except OSError:
            pass
        result = guest_run.load(Path(folder))
        self.outcome = (
            f"código {result.exit_code}, arranque {result.boot_seconds} s, total {self.elapsed():.0f} s "
            f"desde el inicio de la sesión; corrida en {folder}"
        )
        return result

    def stop(self, grace: float = GRACE) -> bool:
        """End the child if it is still running: SIGTERM (it stops QEMU and cleans up), then SIGKILL.
        True if it had to be stopped."""
        if self.proc.poll() is not None:
            return False
        self.ended = time.monotonic()
        self.outcome = self.outcome or "detenida antes de terminar"
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 30)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self.result_path.unlink(missing_ok=True)
        return True


def _remove_stale_logs() -> None:
    """Logs and result files of sessions that are gone (their pid no longer exists)."""
    for path in GUEST_DIR.glob(f"{LOG_PREFIX}*"):
        pid = path.name.removeprefix(LOG_PREFIX).split(".")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            path.unlink(missing_ok=True)
