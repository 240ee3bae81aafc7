"""The margins of the verdict rule, one per kind of claim (`KINDS`, the table every notebook prints),
and where a claimed figure comes from in data/reference (`Ref`). `verdict` re-exports all of it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..stats import any_nan

INF = math.inf


# ---------------------------------------------------------------- margins: one per kind of claim
ABOUT = 1.25  # «about k»: within a factor 1.25 of k either way (k/1.25 … k·1.25)
SAME = 0.05  # «no difference»: within ±5 % (0.95× … 1.05×, −5 % … +5 %)


@dataclass(frozen=True)
class Kind:
    """How a source says a figure (Spanish, for the table the notebooks print) and what we accept."""

    name: str
    said: str
    accepted: str
    example: str


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "about",
            "una cifra: «~2× más rápido», «unas 10 veces», «unos 650 MB»",
            "de la cifra ÷ 1.25 a la cifra × 1.25",
            "«~2× más rápido» (0.5×): de 0.4× a 0.625×",
        ),
        Kind(
            "percent_about",
            "un efecto en porcentaje: «un 11 % más lento», «+45 %»",
            "el efecto, de ÷ 1.25 a × 1.25 (sobre una proporción r, el efecto es r − 1)",
            "«+11 %»: de +8.8 % a +13.8 %",
        ),
        Kind(
            "no_difference",
            "«casi igual», «sin penalización», «~1×», «~0 %»",
            "de 0.95× a 1.05× (de −5 % a +5 %)",
            "«gin y net/http rinden igual»: de 0.95× a 1.05×",
        ),
        Kind(
            "adds",
            "«añade costo», «algo de diferencia», «se acumula»",
            "al menos 1.05× (+5 %): por encima del margen de «casi igual»",
            "«cada nivel suma CPU»: al menos 1.05×",
        ),
        Kind(
            "reduces",
            "«ahorra», «cuesta menos», sin cifra",
            "como mucho 0.95× (−5 %): por debajo del margen de «casi igual»",
            "«cuesta menos»: como mucho 0.95×",
        ),
        Kind(
            "at_least",
            "un umbral desde abajo: «una parte grande», «más de la mitad»",
            "el umbral que declara la afirmación, o más",
            "«al menos una cuarta parte»: al menos 25 %",
        ),
        Kind(
            "at_most",
            "un umbral desde arriba: «una parte pequeña», «como mucho la mitad»",
            "el umbral que declara la afirmación, o menos",
            "«como mucho una quinta parte»: como mucho 20 %",
        ),
        Kind(
            "range",
            "un rango publicado: «24-30 %» (o la lectura que declara su nota)",
            "el rango, tal cual lo da la fuente",
            "«+24-30 %»: de +24 % a +30 %",
        ),
        Kind(
            "observed",
            "un resultado determinista: «falla», «funciona»",
            "que pase cada vez que se observa",
            "«sin --privileged falla»: falla en todos los intentos",
        ),
    )
}
MARGINS = KINDS  # the one table of margins (view.common.margins_table prints it)


def margin(
    kind: str, claimed: float = math.nan, unit: str = "x", bounds: tuple[float, float] | None = None
) -> tuple[float, float]:
    """The margin (low, high) of a claim of this kind, in the claim's unit. ValueError, in English (a
    programming error), where the kind needs what the declaration lacks."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {sorted(KINDS)}")
    ratio_unit = unit == "x"
    if kind == "about":
        _need(claimed, kind)
        if claimed == 0:
            raise ValueError("«about 0» has no relative margin: use kind='no_difference'")
        return _sorted(claimed / ABOUT, claimed * ABOUT)
    if kind == "percent_about":
        _need(claimed, kind)
        effect = (claimed - 1) * 100 if ratio_unit else claimed
        if effect == 0:
            raise ValueError("an effect of 0 % has no relative margin: use kind='no_difference'")
        low, high = _sorted(effect / ABOUT, effect * ABOUT)
        return (1 + low / 100, 1 + high / 100) if ratio_unit else (low, high)
    if kind in ("no_difference", "adds", "reduces"):
        if unit not in ("x", "%"):
            raise ValueError(f"kind {kind!r} is for ratios ('x') or percentages ('%'); use at_least/at_most")
        centre, step = (1.0, SAME) if ratio_unit else (0.0, SAME * 100)
        return {
            "no_difference": (centre - step, centre + step),
            "adds": (centre + step, INF),
            "reduces": (-INF, centre - step),
        }[kind]
    if kind == "at_least":
        _need(claimed, kind)
        return (float(claimed), INF)
    if kind == "at_most":
        _need(claimed, kind)
        return (-INF, float(claimed))
    if kind == "range":
        if bounds is None or len(bounds) != 2 or any_nan(*bounds):
            raise ValueError("kind 'range' needs bounds=(low, high)")
        return _sorted(*bounds)
    return (1.0, 1.0)  # observed: every time


def _need(claimed: float, kind: str) -> None:
    if any_nan(claimed):
        raise ValueError(f"kind {kind!r} needs a claimed figure")


def _sorted(a: float, b: float) -> tuple[float, float]:
    return (float(min(a, b)), float(max(a, b)))


# ---------------------------------------------------------------- where a claimed figure comes from
@dataclass(frozen=True)
class Ref:
    """The reference figure a claimed number comes from: rows of data/reference/<experiment>*.csv picked
    by column filters (`select`), optionally divided by a second selection (`over`: the same filters
    with these changed), optionally as a percentage ((a / b − 1) × 100). Several rows of one source give
    their median; a range source (reference.RANGE_SOURCES) gives (low, high). `rtol`: how far the
    claimed number may round the figure. Built with `ref(...)`; checked by tests/core/test_sources.py."""

    select: tuple[tuple[str, object], ...]
    over: tuple[tuple[str, object], ...] = ()
    experiment: str = ""
    percent: bool = False
    rtol: float = 0.01


def ref(
    *, over: dict | None = None, experiment: str = "", percent: bool = False, rtol: float = 0.01, **select
) -> Ref:
    """Ref(select=…): `ref(source="seed001", metric="getpid", engine="docker", variant="seccomp",
    over={"engine": "bare", "variant": "host"}, percent=True)` is seed 001's +11 %."""
    return Ref(tuple(select.items()), tuple((over or {}).items()), experiment, percent, rtol)
