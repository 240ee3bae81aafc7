"""How long each set-up step took: provision.step times every step (a failed one too), each set-up is one
line in the cache, and the summary `make test` prints names the first set-up and the latest."""

from __future__ import annotations

import json
import time

from helpers import provision, setup_times


def test_every_step_is_timed_even_when_it_fails(monkeypatch):
    monkeypatch.setattr(provision, "PROBLEMS", provision.Problems())
    watch = setup_times.Stopwatch()
    monkeypatch.setattr(provision, "STOPWATCH", watch)
    provision.step("La compilación de sondas", time.sleep, 0.05)
    provision.step("La compilación de sondas", lambda: 1 / 0)  # swallowed, still timed, adds up
    provision.step("El arranque de dockerd", lambda: None)
    assert set(watch.steps) == {"La compilación de sondas", "El arranque de dockerd"}
    assert watch.steps["La compilación de sondas"] >= 0.05 > watch.steps["El arranque de dockerd"]


def test_each_setup_is_one_line_and_the_summary_keeps_the_first_beside_the_latest(tmp_path):
    path = tmp_path / "cache" / "preparaciones.jsonl"
    assert setup_times.history(path) == [] and setup_times.summary(path) == []
    fresh = setup_times.Stopwatch()
    for name, seconds in (("La construcción de Kubernetes", 1500.0), ("La preparación de imágenes", 320.0)):
        fresh.add(name, seconds)
    fresh.add("El arranque de dockerd", 0.2)
    written = fresh.record(path)
    assert json.loads(path.read_text().splitlines()[0]) == written
    with path.open("a") as out:
        out.write("{no es json\n")  # a torn line (a set-up killed while writing) is skipped
    warm = setup_times.Stopwatch()
    warm.add("La preparación de imágenes", 3.0)
    warm.record(path)
    assert len(setup_times.history(path)) == 2
    first, latest = setup_times.summary(path)
    assert first.startswith("La primera en esta máquina: ") and latest.startswith("La última (2.ª): ")
    # the longest steps first, as a clock reads; a step under a second is not named
    assert "La construcción de Kubernetes: 25 min; La preparación de imágenes: 5 min 20 s" in first
    assert "dockerd" not in first and "La preparación de imágenes: 3 s" in latest
