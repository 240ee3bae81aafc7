"""A fake container engine for the fault paths (test-only code).

It implements the Engine interface far enough for `experiment_run` + `measure_rounds` to run a toy arm
against it, without any daemon. Every verb that "talks to the engine" counts as one call, and the
engine can be told to:

- die at the k-th call: that call raises ComandoFallido (Spanish) and `healthy()` answers False from
  then on, as a daemon killed mid-run would;
- hang from the k-th call: the command it hands out (`run_argv`) is a real `sleep` far longer than any
  timeout, so the caller's own watchdog has to fire; `healthy()` answers False while it hangs;
- answer slowly: every command it hands out takes `delay` seconds, and then succeeds;
- leave after-effects: engines sharing one `AfterEffects` hand out commands whose time depends on the
  command that ran just before (the command after one of image X is slowed, as a heavy launch's
  clean-up in the kernel slows whatever comes next).

Commands are real processes (`true`, `sleep N`), so measure.time_command and its watchdog run for real.
Put one where a real engine would be with `registry.substituted(name, FakeEngine(name, ...))`.
"""

from __future__ import annotations

from collections.abc import Sequence

from helpers import engines as eng
from helpers.engines import labels
from helpers.errors import ComandoFallido


class AfterEffects:
    """What one command leaves to the next, shared by fake engines: every command takes `base` seconds,
    plus `extra` when the command before it (of any engine) ran image `after`."""

    def __init__(self, after: str, *, base: float, extra: float):
        self.after, self.base, self.extra = after, base, extra
        self.last: str | None = None

    def command(self, image: str) -> list[str]:
        seconds = self.base + (self.extra if self.last == self.after else 0.0)
        self.last = image
        return ["sleep", f"{seconds:.4f}"]


class FakeEngine(eng.Engine):
    is_container = True

    def __init__(
        self,
        name: str = "docker",
        *,
        die_at: int | None = None,
        hang_at: int | None = None,
        hang_seconds: float = 60.0,
        delay: float = 0.0,
        after_effects: AfterEffects | None = None,
    ):
        self.name = name
        self.after_effects = after_effects
        self.die_at, self.hang_at = die_at, hang_at
        self.hang_seconds, self.delay = hang_seconds, delay
        self.calls = 0
        self.dead = False
        self.hanging = False
        self.containers: dict[str, dict] = {}  # id -> labels
        self.forgotten = 0

    # -- the fault switchboard
    def _call(self, what: str) -> None:
        """One call to the engine: counts, and dies or starts hanging when told to."""
        self.calls += 1
        if self.die_at is not None and self.calls >= self.die_at:
            self.dead = True
        if self.hang_at is not None and self.calls >= self.hang_at:
            self.hanging = True
        if self.dead:
            raise ComandoFallido(
                f"{self.display} no pudo {what}: el motor no responde.",
                detail=f"fake engine: connection refused at call {self.calls}",
            )

    # -- availability
    def availability(self):
        if self.dead:
            return False, f"{self.display} (falso) ya no responde."
        return True, None

    def healthy(self, timeout: float = 10.0) -> bool:
        return not (self.dead or self.hanging)

    def forget(self) -> None:
        self.forgotten += 1

    def info(self) -> dict:
        return {"engine": self.name, "fake": True}

    # -- commands (what is timed)
    def run_argv(
        self, image, command, *, run_id=None, name=None, remove=True, detach=False, opts=None, extra=()
    ):
        self._call(f"preparar «{' '.join(command)}»")
        if self.hanging:
            return ["sleep", str(self.hang_seconds)]
        if self.after_effects is not None:
            return self.after_effects.command(image)
        if self.delay:
            return ["sleep", str(self.delay)]
        return ["true"]

    def exec_argv(self, container, command):
        return self.run_argv("", command)

    # -- verbs outside the timed path
    def launch(
        self, image: str, command: Sequence[str], *, run_id: str, name: str, opts=None
    ) -> eng.Container:
        self._call(f"arrancar el contenedor {name}")
        labels = eng.labels_for(run_id)
        self.containers[name] = labels
        return eng.Container(self.name, name, name, 0, None, labels)

    def list_labelled(self, run_id: str | None = None) -> list[str]:
        if self.dead:
            return []
        return [
            cid
            for cid, marks in self.containers.items()
            if run_id is None or marks.get(labels.LABEL_RUN) == run_id
        ]

    def course_containers(self):
        return [] if self.dead else [(cid, labels, None) for cid, labels in self.containers.items()]

    def remove_ids(self, ids: Sequence[str]) -> int:
        return sum(self.containers.pop(cid, None) is not None for cid in ids)

    def cleanup(self, run_id: str | None) -> int:
        if self.dead:
            return 0
        return self.remove_ids(self.list_labelled(run_id))
