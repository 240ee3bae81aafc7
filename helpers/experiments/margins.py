"""The margins of the verdict rule, one per kind of claim (`KINDS`, the table every notebook prints),
and where a claimed figure comes from in data/reference (`Ref`). `verdict` re-exports all of it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..stats import any_nan

INF = math.inf


# ---------------------------------------------------------------- margins: one per kind of claim
# Every margin on a ratio is symmetric on the log scale: a ratio r and 1/r are as far from 1, so a claim
# accepts the same factor either way (÷/×), never a linear ± that is wider on one side.
ABOUT = 1.25  # «about k»: within a factor 1.25 of k either way (k/1.25 … k·1.25)
EFFECT = 0.2  # «an effect of p %»: log(r) within ±20 % of the claimed log(r), r = 1 + p/100 (r^0.8 … r^1.2)
SAME = 0.05  # «no difference»: within a factor 1.05 of 1 (1/1.05 … 1.05×, −4.76 % … +5 %)


@dataclass(frozen=True)
class Kind:
    """How a source says a figure (Spanish, for the table the notebooks print) and what we accept."""

    name: str
    said: str
    accepted: str
    example: str
    cases: tuple = ()  # margin(name, *case) for each case: the margins `example` states, in its order


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "about",
            "una cifra: «~2× más rápido», «unas 10 veces», «unos 650 MB»",
            f"de la cifra ÷ {ABOUT:g} a la cifra × {ABOUT:g}",
            "«~2× más rápido» (0.5×): de 0.4× a 0.625×",
            ((0.5, "x"),),
        ),
        Kind(
            "percent_about",
            "un efecto en porcentaje: «un 11 % más lento», «+45 %»",
            f"la proporción r = 1 + efecto, de r^{1 - EFFECT:g} a r^{1 + EFFECT:g} (la cifra ÷/× r^{EFFECT:g}: "
            f"el mismo factor a cada lado, ±{EFFECT * 100:g} % del efecto en escala logarítmica)",
            "«+11 %»: de +8.71 % a +13.3 %; «−65.83 %»: de −72.4 % a −57.6 %",
            ((11.0, "%"), (-65.83, "%")),
        ),
        Kind(
            "no_difference",
            "«casi igual», «sin penalización», «~1×», «~0 %»",
            f"de 1 ÷ {1 + SAME:g} a {1 + SAME:g}× (de −4.76 % a +5 %: el mismo factor a cada lado)",
            "«gin y net/http rinden igual»: de 0.952× a 1.05×",
            ((1.0, "x"),),
        ),
        Kind(
            "adds",
            "«añade costo», «algo de diferencia», «se acumula»",
            f"al menos {1 + SAME:g}× (+5 %): por encima del margen de «casi igual»",
            "«cada nivel suma CPU»: al menos 1.05×",
            ((1.0, "x"),),
        ),
        Kind(
            "reduces",
            "«ahorra», «cuesta menos», sin cifra",
            f"como mucho 1 ÷ {1 + SAME:g} (−4.76 %): por debajo del margen de «casi igual»",
            "«cuesta menos»: como mucho 0.952×",
            ((1.0, "x"),),
        ),
        Kind(
            "at_least",
            "un umbral desde abajo: «una parte grande», «más de la mitad»",
            "el umbral que declara la afirmación, o más",
            "«al menos una cuarta parte»: al menos +25 %",
            ((25.0, "%"),),
        ),
        Kind(
            "at_most",
            "un umbral desde arriba: «una parte pequeña», «como mucho la mitad»",
            "el umbral que declara la afirmación, o menos",
            "«como mucho una quinta parte»: como mucho +20 %",
            ((20.0, "%"),),
        ),
        Kind(
            "range",
            "un rango publicado: «24-30 %» (o la lectura que declara su nota)",
            "el rango, tal cual lo da la fuente",
            "«+24-30 %»: de +24 % a +30 %",
            ((float("nan"), "%", (24.0, 30.0)),),
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
        r = claimed if ratio_unit else 1 + claimed / 100
        if r == 1:
            raise ValueError("an effect of 0 % has no relative margin: use kind='no_difference'")
        if r <= 0:
            raise ValueError("an effect of −100 % or less is not a ratio: use kind='at_most'")
        low, high = _sorted(r ** (1 - EFFECT), r ** (1 + EFFECT))
        return (low, high) if ratio_unit else (_percent(low), _percent(high))
    if kind in ("no_difference", "adds", "reduces"):
        if unit not in ("x", "%"):
            raise ValueError(f"kind {kind!r} is for ratios ('x') or percentages ('%'); use at_least/at_most")
        below, above = 1 / (1 + SAME), 1 + SAME
        if not ratio_unit:
            below, above = _percent(below), _percent(above)
        return {"no_difference": (below, above), "adds": (above, INF), "reduces": (-INF, below)}[kind]
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


def _percent(ratio: float) -> float:
    """A ratio as the percent change it is, (r − 1) × 100."""
    return (ratio - 1) * 100


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
