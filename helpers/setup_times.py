"""How long each `make setup` took on this machine, step by step (helpers.provision records it): one JSON
line per set-up in the course's cache, so the first one (a fresh machine: every build) stays beside the
latest (a warm one: nothing to build). `make test` prints both at the end (tests/conftest.py), and the
README's set-up times come from these lines."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path

from .paths import CACHE_DIR
from .view.numbers import fmt_duration

HISTORY = CACHE_DIR / "preparaciones.jsonl"
SHOWN_STEPS = 3  # the longest steps a summary names


class Stopwatch:
    """The seconds each named step of one set-up took (a step run twice adds up)."""

    def __init__(self):
        self.started = time.monotonic()
        self.when = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.steps: dict[str, float] = {}

    def add(self, step: str, seconds: float) -> None:
        self.steps[step] = self.steps.get(step, 0.0) + seconds

    def record(self, path: Path = HISTORY) -> dict:
        """Append this set-up (its total so far and its steps) to `path`; returns the line written."""
        line = {
            "inicio": self.when,
            "total_s": round(time.monotonic() - self.started, 1),
            "pasos": {k: round(v, 1) for k, v in self.steps.items()},
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
        return line


def history(path: Path = HISTORY) -> list[dict]:
    """Every set-up recorded on this machine, oldest first (a line that does not parse is skipped)."""
    if not path.exists():
        return []
    found = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(line, dict) and "total_s" in line:
            found.append(line)
    return found


def sentence(line: dict) -> str:
    """One set-up in Spanish: its date, its total and its longest steps."""
    steps = sorted((line.get("pasos") or {}).items(), key=lambda kv: -kv[1])[:SHOWN_STEPS]
    longest = "; ".join(f"{name}: {fmt_duration(s)}" for name, s in steps if s >= 1)
    day = str(line.get("inicio", "?"))[:16].replace("T", " ")
    return f"{day} UTC, {fmt_duration(line['total_s'])}" + (f" (lo más largo: {longest})" if longest else "")


def summary(path: Path = HISTORY) -> list[str]:
    """The first set-up this machine recorded and the latest, one Spanish line each ([] if none)."""
    lines = history(path)
    if not lines:
        return []
    out = [f"La primera en esta máquina: {sentence(lines[0])}."]
    if len(lines) > 1:
        out.append(f"La última ({len(lines)}.ª): {sentence(lines[-1])}.")
    return out
