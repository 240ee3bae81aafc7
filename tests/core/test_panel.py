import pytest

from helpers.errors import ParametroInvalido
from helpers.experiments import arranque
from helpers.view import panel as panel_mod
from helpers.view.panel import Panel, TextProgress


def test_no_front_end_outside_a_kernel(monkeypatch):
    monkeypatch.delenv("CURSO_SIN_INTERFAZ", raising=False)
    assert panel_mod.frontend_attached() is False


def test_panel_validates_before_launching(monkeypatch):
    called = []
    monkeypatch.setattr(arranque, "run", lambda *a, **k: called.append(1))
    p = Panel(arranque, titulo="t", repeticiones=-1, calentamiento=0, imagenes=["alpine"], motores=[])
    with pytest.raises(ParametroInvalido, match="REPETICIONES"):
        p.mostrar(interactivo=True)
    assert called == []


def test_interactive_request_without_front_end_runs_directly(monkeypatch, capsys):
    for name in ("docker", "podman"):
        from helpers import engines

        monkeypatch.setattr(engines.get_engine(name), "availability", lambda: (False, "apagado."))
    p = Panel(
        arranque, titulo="Prueba", repeticiones=1, calentamiento=0, imagenes=["alpine"], motores=["docker"]
    )
    assert p.mostrar(interactivo=True) is None  # the cell ends with the panel's summary, not a repr
    res = p.resultado()
    assert res is not None and res.status == "complete" and p.midio()
    assert "Prueba: empieza la medición." in capsys.readouterr().out


def test_widgets_are_built_from_the_experiment_controls():
    p = Panel(arranque, titulo="t", repeticiones=7, calentamiento=1, imagenes=["alpine"], motores=["podman"])
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
