"""Experiment 4: what is inside each timed window of the engine's phases, as the page says it
(phases.phase_window, the «Qué incluye» column), held to the code that measures it.

- each phase (crear, iniciar, esperar, borrar) is one CLI process, from its spawn to its exit, for Docker
  as for Podman: the client's own start is inside every phase of both engines, so «the longest phase»
  compares like with like;
- the page names the command the code spawns (both read phases.PHASE_ARGV), and says the client's share;
- with real engines (`engines`), every command measure_phases times is recorded (it still runs): the
  four verbs, in order, and nothing else.
Other windows of 04 have their own tests: the overlay rung (test_unit: mount(2), the runtime and
umount2(2) inside, the layer's preparation and rmtree out) and the process chain (test_unit, chain_split).
"""

from __future__ import annotations

import os

import pytest

from helpers import engines as eng
from helpers import images, measure
from helpers.experiments.anatomia import phases

VERBS = {"fase_crear": "create", "fase_iniciar": "start", "fase_esperar": "wait", "fase_borrar": "rm"}


def test_every_phase_has_its_command_and_its_description():
    assert list(phases.PHASE_ARGV) == [metric for metric, _ in phases.PHASES] == list(VERBS)
    assert set(phases.CLIENT_WINDOW) == set(eng.CONTAINER_ENGINES)


@pytest.mark.parametrize("engine", ["docker", "podman"])
def test_both_engines_time_each_phase_as_one_cli_process_and_the_page_says_so(engine):
    for metric, verb in VERBS.items():
        argv = phases.PHASE_ARGV[metric](eng.get_engine(engine), "img", "c1", "r")
        assert argv[:2] == [engine, verb]
        window = phases.phase_window(engine, metric)
        assert window.startswith(f"`{engine} {verb} …`, un proceso del CLI, de lanzarlo a que sale")
        assert "su propio arranque" in window  # the client's share, named in every phase
    assert "no hay sondeo" in phases.phase_window("docker", "fase_esperar")
    assert "cerrojo" in phases.phase_window("podman", "fase_esperar")


@pytest.mark.engines
@pytest.mark.parametrize("engine_name", ["docker", "podman"])
def test_measure_phases_times_exactly_the_described_commands(engine_name, request, monkeypatch):
    engine = request.getfixturevalue(f"{engine_name}_engine")
    timed: list[list[str]] = []
    real = measure.time_command

    def recording(argv, env=None):
        timed.append(list(argv))
        return real(argv, env)

    monkeypatch.setattr(measure, "time_command", recording)
    image = images.resolve("alpine", engine)["name"]
    run_id = f"prueba-ventanas-{engine_name}"
    rows = phases.measure_phases(
        engine, image, f"curso-anatomia-ventanas-{os.getpid()}", run_id, engine.env()
    )
    assert [argv[:2] for argv in timed] == [[engine_name, verb] for verb in VERBS.values()]
    assert [metric for metric, _, _ in rows] == [*VERBS, phases.PHASE_TOTAL]
    assert engine.list_labelled(run_id) == []
