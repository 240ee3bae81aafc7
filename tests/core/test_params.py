"""helpers.experiments.params: a multi-choice parameter keeps its options' own type."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from helpers.errors import ParametroInvalido
from helpers.experiments.params import Params, param


@dataclass
class Levels(Params):
    niveles: list = param([1, 2], "Niveles", kind="multi", options=(1, 2, 3))
    motores: list = param(["docker"], "Motores", options=("docker", "podman"))


def test_integer_options_stay_integers_and_text_stays_text():
    assert Levels.build(niveles="[3, 1]").niveles == [3, 1]  # what papermill delivers
    assert Levels.build(niveles=["2"], motores=["Podman"]) == Levels(niveles=[2], motores=["podman"])
    assert Levels.controls()[0]["options"] == [1, 2, 3]


def test_an_unknown_option_names_the_parameter():
    with pytest.raises(ParametroInvalido, match="NIVELES: valor desconocido 4"):
        Levels.build(niveles=[1, 4])


@dataclass
class Pinned(Params):
    cpu: int | None = param(0, "CPU", kind="choice", options=(0, 1, None), labels={None: "sin fijar"})
    modo: str = param("a", "Modo", options=("a", "b"), labels=lambda o: f"modo {o.upper()}")


def test_labelled_options_show_their_label_and_keep_their_value():
    controls = {c["name"]: c["options"] for c in Pinned.controls()}
    assert controls["cpu"] == [("0", 0), ("1", 1), ("sin fijar", None)]
    assert controls["modo"] == [("modo A", "a"), ("modo B", "b")]
    assert Pinned.build(cpu=None, modo="b") == Pinned(cpu=None, modo="b")  # values, not labels
    with pytest.raises(ParametroInvalido, match="CPU: valor desconocido 'sin fijar'"):
        Pinned.build(cpu="sin fijar")
