import threading

import numpy as np
import pytest

from helpers.errors import ParametroInvalido
from helpers.experiments import arranque
from helpers.view import common
from helpers.view import panel as panel_mod
from helpers.view.panel import Panel, TextProgress


def test_no_front_end_outside_a_kernel(monkeypatch):
    monkeypatch.delenv("CURSO_SIN_INTERFAZ", raising=False)
    assert panel_mod.frontend_attached() is False


def test_panel_validates_before_launching(monkeypatch):
    called = []
    monkeypatch.setattr(arranque, "run", lambda *a, **k: called.append(1))
    p = Panel(arranque, repeticiones=-1, calentamiento=0, imagenes=["alpine"], motores=[])
    with pytest.raises(ParametroInvalido, match="REPETICIONES"):
        p.mostrar(interactivo=True)
    assert called == []


def test_interactive_request_without_front_end_runs_directly(monkeypatch, capsys):
    for name in ("docker", "podman"):
        from helpers import engines

        monkeypatch.setattr(engines.get_engine(name), "availability", lambda: (False, "apagado."))
    p = Panel(arranque, repeticiones=1, calentamiento=0, imagenes=["alpine"], motores=["docker"])
    assert p.mostrar(interactivo=True) is None  # the cell ends with the panel's summary, not a repr
    res = p.resultado()
    assert res is not None and res.status == "complete" and p.midio()
    assert f"{arranque.TITLE}: empieza la medición." in capsys.readouterr().out  # the title is TITLE


def test_widgets_are_built_from_the_experiment_controls():
    p = Panel(arranque, repeticiones=7, calentamiento=1, imagenes=["alpine"], motores=["podman"])
    p._widgets = {spec["name"]: p._control(spec) for spec in arranque.CONTROLS}
    assert p._widgets["repeticiones"].value == 7
    assert p._widgets["repeticiones"].description == "Repeticiones"
    assert p._widgets["imagenes"].value == ("alpine",)
    p._widgets["repeticiones"].value = 2
    assert p._values()["repeticiones"] == 2 and p._values()["motores"] == ["podman"]


def test_text_progress_prints_at_most_eleven_lines():
    lines = []
    progress = TextProgress(echo=lines.append)
    for i in range(101):
        progress(i, 100, "paso")
    assert 2 <= len(lines) <= 11
    assert all("\x1b" not in line for line in lines)


def test_text_progress_writes_its_clock_as_the_run_s_length_is_written():
    """«— 1 min 24 s», as the line with the run's length under it («(completa, …, 1 min 23 s)»), not «84 s»."""
    lines, now = [], iter([0.0, 0.4, 84.2])
    progress = TextProgress(echo=lines.append, clock=lambda: next(now))
    progress(0, 10, "uno")
    progress(10, 10, "listo")
    assert lines[0].endswith("— uno — 0 s") and lines[-1].endswith("— listo — 1 min 24 s"), lines


def test_a_preset_fills_the_controls_and_says_how_long_before_anything_runs(monkeypatch):
    from helpers.experiments import red
    from helpers.experiments.red.measure import DOCUMENT_PRESET
    from helpers.view.panel import Preset

    monkeypatch.setattr(red, "run", lambda *a, **k: pytest.fail("un preset no debe lanzar nada"))
    p = Panel(red, servidores=["nethttp", "gin"], hilos=2, conexiones=50, duracion_s=2)
    p._widgets = {spec["name"]: p._control(spec) for spec in red.CONTROLS}
    message = p.apply_preset(Preset("Del documento", DOCUMENT_PRESET, "Carga solo contra 127.0.0.1."))
    values = p._values()
    assert {k: values[k] for k in DOCUMENT_PRESET} == DOCUMENT_PRESET
    assert p._widgets["brazos"].value == tuple(DOCUMENT_PRESET["brazos"])
    minutes = red.estimated_seconds(red.config(**values)) / 60
    assert "«Del documento»" in message and "Carga solo contra 127.0.0.1." in message
    assert (f"unos {minutes:.0f} minutos" if minutes >= 1.5 else "menos de 2 minutos") in message
    refused = p.apply_preset(Preset("Imposible", {"hilos": 8, "conexiones": 4}))
    assert "no es válida aquí" in refused and "CONEXIONES" in refused


def test_a_double_click_on_ejecutar_starts_one_run(monkeypatch):
    """A double click reaches the kernel as a second click queued behind the first run: it is refused,
    and the panel says so; a click after the button came back (settle time later) runs again."""
    now = [0.0]
    runs = []
    p = Panel(arranque, repeticiones=2, calentamiento=0, imagenes=["alpine"], motores=["docker"])
    p._guard = panel_mod.RunGuard(settle=0.5, clock=lambda: now[0])

    def ejecutar(values, progress=None, log=print):
        runs.append(values)
        now[0] += 3.0  # the run takes a while

    monkeypatch.setattr(p, "ejecutar", ejecutar)
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: None)
    p._interactive()
    button = p._button
    status = p._box.children[0].children[-1]
    button.click()
    assert len(runs) == 1 and not button.disabled
    now[0] += 0.005  # the queued second click of the double click, handled right after the run
    button.click()
    assert len(runs) == 1, "el segundo clic de un doble clic lanzó otra corrida"
    assert status.value == panel_mod.IGNORED_CLICK
    now[0] += 2.0  # a person presses it again once it is enabled
    button.click()
    assert len(runs) == 2


def test_two_clicks_handled_at_once_in_two_threads_start_one_run(monkeypatch):
    """ipykernel 7 may hand the second click of a double click to another thread (a subshell) while the
    first one is measuring: both handlers run at the same time, and only one may measure."""
    runs = []
    inside = threading.Event()
    release = threading.Event()
    p = Panel(arranque, repeticiones=2, calentamiento=0, imagenes=["alpine"], motores=["docker"])

    def ejecutar(values, progress=None, log=print):
        runs.append(values)
        inside.set()
        release.wait(10)

    monkeypatch.setattr(p, "ejecutar", ejecutar)
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: None)
    p._interactive()
    button = p._button
    status = p._box.children[0].children[-1]
    first = threading.Thread(target=button.click)
    first.start()
    assert inside.wait(10), "el primer clic no llegó a medir"
    second = threading.Thread(target=button.click)
    second.start()
    second.join(10)
    assert not second.is_alive(), "el segundo clic esperó a la corrida en vez de rechazarse"
    assert status.value == panel_mod.IGNORED_CLICK
    release.set()
    first.join(10)
    assert len(runs) == 1, "dos clics a la vez lanzaron dos corridas"


def test_the_run_guard_is_taken_atomically():
    """The check and the taking are one step: a thread held between them (here, inside the guard's
    clock) does not let a second thread through."""
    held = threading.Event()
    go_on = threading.Event()
    calls = []

    def clock():
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            held.set()
            go_on.wait(10)
        return 100.0

    guard = panel_mod.RunGuard(settle=0.5, clock=clock)
    taken = {}
    first = threading.Thread(target=lambda: taken.__setitem__("first", guard.begin()), name="primero")
    first.start()
    assert held.wait(10)
    taken["second"] = guard.begin()
    go_on.set()
    first.join(10)
    assert taken == {"first": True, "second": False}
    guard.end()
    assert not guard.begin(), "un clic que llega justo al acabar la corrida es el segundo de un doble clic"


def test_the_panel_says_how_long_the_last_complete_run_took(results_tmp):
    from helpers import results

    assert "Aún no hay ninguna corrida completa" in panel_mod.last_run_words(arranque, results_tmp)
    run = results.Run(arranque.EXPERIMENT, {"repeticiones": 7}, root=results_tmp)
    run.finish(results.STATUS_COMPLETE)
    run.meta.update(started="2026-01-01T10:00:00Z", ended="2026-01-01T10:02:02Z")
    run.write_meta()
    words = panel_mod.last_run_words(arranque, results_tmp)
    assert "tardó 2 min 2 s (con 7 repeticiones)" in words
    failed = results.Run(arranque.EXPERIMENT, {}, root=results_tmp)  # a later run that failed is not it
    failed.finish(results.STATUS_FAILED, "x")
    assert panel_mod.last_run_words(arranque, results_tmp) == words


def test_before_a_run_the_panel_says_what_the_last_run_left_undecided_and_how_many_would_decide(
    results_tmp, monkeypatch
):
    """power_words: the claims declared without a possible verdict (before any run), then the latest complete
    run's «no concluyente» claims with the repetitions a power calculation asks for, fewest first."""
    from types import SimpleNamespace

    from helpers import experiments, results, stats
    from helpers.experiments import verdict as vd

    declared = vd.Said("d", "Una dispersión declarada", "f", kind="adds", undecidable="Sin potencia.")
    said = vd.Said("k", "Casi igual", "f", claimed=1.0, kind="no_difference")
    noisy, noisier = (stats.median_ci(np.random.default_rng(1).normal(1.03, s, 8)) for s in (0.04, 0.3))
    judged = [vd.judge(said, noisier), vd.judge(said.but(statement="Otra casi igual"), noisy)]
    module = SimpleNamespace(
        EXPERIMENT="juguete_potencia", SAID=(declared, declared), claims=lambda df, meta: judged
    )
    monkeypatch.setitem(
        experiments._extra, module.EXPERIMENT, module
    )  # a run's claims come from the registry
    assert panel_mod.power_words(module, results_tmp) == (
        "Sin veredicto posible con ningún número de repeticiones, declarado de antemano: «Una dispersión declarada»."
    )
    with results.Run(module.EXPERIMENT, {}, root=results_tmp) as run:
        run.append(engine="docker", image="i", variant="v", rep=1, metric="m", value=1.0, unit="ms")
    words = panel_mod.power_words(module, results_tmp)
    assert [c.status for c in judged] == [vd.NO_CONCLUYENTE] * 2
    fewest, most = sorted(judged, key=lambda c: c.more_reps)
    assert fewest.more_reps < most.more_reps
    assert f"«{fewest.statement}»: unas {common.approx(fewest.more_reps)}" in words
    assert words.index(f"«{fewest.statement}»") < words.index(f"«{most.statement}»")
    assert "2 afirmaciones quedaron «no concluyente»" in words and "8 de cada 10 veces" in words


def test_every_preset_a_notebook_offers_is_a_valid_configuration():
    import importlib

    from helpers import experiments

    offered = 0
    for module in experiments.all_experiments():
        view = importlib.import_module(f"helpers.view.{module.EXPERIMENT}")
        for preset in getattr(view, "PRESETS", ()):
            cfg = module.config(**preset.values)
            assert all(getattr(cfg, k) == v for k, v in preset.values.items()), preset.label
            offered += 1
    assert offered >= 4  # the chapter's presets of 02 and 03, the documents' of 05 and 06


def test_before_a_run_with_seven_repetitions_the_panel_says_that_six_give_a_narrower_interval():
    from helpers import stats

    assert stats.order_step(7) == (6, 9) and stats.order_step(9) == (9, 12) and stats.order_step(6) == (6, 9)
    words = panel_mod.repetitions_words({"repeticiones": 7}, {"repeticiones": 10})
    assert "del valor 1.º al 7.º" in words and "como con 6" in words and "es 9" in words
    assert (
        panel_mod.repetitions_words({"repeticiones": 9}, {"repeticiones": 10}) == ""
    )  # the first of its step
    assert (
        panel_mod.repetitions_words({"repeticiones": 10}, {"repeticiones": 10}) == ""
    )  # the page's own choice
    assert panel_mod.repetitions_words({"repeticiones": 3}, {"repeticiones": 10}) == ""  # no interval at all
    # what it says, measured: the mean width of the interval at 7 and 8 values exceeds 6's; 9's is narrower
    rng = np.random.default_rng(11)
    width = {
        n: np.mean([np.subtract(*stats.median_ci(rng.normal(size=n)).interval[::-1]) for _ in range(3000)])
        for n in (6, 7, 8, 9)
    }
    assert width[6] < width[7] < width[8] and width[9] < width[6], width
