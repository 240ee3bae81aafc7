"""What every `make bench-*` shares: the tools it needs, one comparison of two paths, the exit code.

A benchmark compares the experiment's figure with a second path that shares no measuring code with it
(hyperfine, `wrk` typed by hand, the probe started by hand, `docker stats`), prints both medians with their
ratio and its IC 95 %, and says whether they agree within a tolerance stated beforehand, by the course's one
rule (verdict.decide): the interval of the per-round ratio (or difference) inside the tolerance → they
agree; entirely outside → they do not; otherwise «no concluyente» (more rounds would say). A tolerance is
never wider than the narrowest margin the figure backs (`TIGHTEST`, the margin of «no difference»). The
exit code: 0 every comparison agrees, 1 one falls outside its tolerance, 2 one could not be made or
decided (a tool or an engine missing, too few rounds). A benchmark prints figures; it is not a test (it
never runs under pytest).
"""

from __future__ import annotations

import math
import shutil
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from .. import provision, stats
from ..experiments import verdict
from ..experiments.margins import SAME
from ..view.common import num

OK, OUTSIDE, NOT_MADE = 0, 1, 2
TIGHTEST = SAME  # the margin of «no difference» (±5 %): the narrowest one a bench's figure backs


def figure(value: float) -> str:
    """A figure with three significant digits (at most four decimals), the course's way (view.common)."""
    if not math.isfinite(value):
        return "—"
    digits = 0 if value == 0 else 2 - math.floor(math.log10(abs(value)))
    return num(value, min(max(digits, 0), 4))


@dataclass(frozen=True)
class Tolerance:
    """How far the two paths may be apart: a ratio band (`relative`: 0.10 = ±10 %) and/or an absolute
    difference (`absolute`, in the figures' unit). With both, meeting either is enough."""

    relative: float | None = None
    absolute: float | None = None

    def judge(self, ratio: stats.Estimate, difference: stats.Estimate) -> str:
        """The one rule on the per-round ratio's interval (against 1 ± relative) and the difference's
        (against ± absolute): they agree if either interval lies inside its band, they do not if every
        band given is cleared entirely, else «no concluyente»; no interval → «sin datos»."""
        verdicts = []
        if self.relative is not None:
            verdicts.append(
                verdict.decide(ratio.low, ratio.high, region=(1 - self.relative, 1 + self.relative))
            )
        if self.absolute is not None:
            verdicts.append(
                verdict.decide(difference.low, difference.high, region=(-self.absolute, self.absolute))
            )
        if verdict.SE_CONFIRMA in verdicts:
            return verdict.SE_CONFIRMA
        if verdicts and all(v == verdict.NO_SE_SOSTIENE for v in verdicts):
            return verdict.NO_SE_SOSTIENE
        if verdict.NO_CONCLUYENTE in verdicts:
            return verdict.NO_CONCLUYENTE
        return verdict.SIN_DATOS

    def describe(self, unit: str) -> str:
        parts = []
        if self.absolute is not None:
            parts.append(f"±{figure(self.absolute)} {unit}")
        if self.relative is not None:
            parts.append(f"±{figure(100 * self.relative)} %")
        return " o ".join(parts)


@dataclass(frozen=True)
class Comparison:
    label: str
    ours: float  # median of every value of the experiment's path
    theirs: float  # median of every value of the independent path
    ratio: stats.Estimate  # over rounds, of (ours ÷ theirs): judged against a relative tolerance
    difference: stats.Estimate  # over rounds, of (ours − theirs): judged against an absolute tolerance
    unit: str
    tolerance: Tolerance
    status: str  # verdict.SE_CONFIRMA: they agree; NO_SE_SOSTIENE: they do not; else undecided

    @property
    def ok(self) -> bool:
        return self.status == verdict.SE_CONFIRMA

    @property
    def outside(self) -> bool:
        return self.status == verdict.NO_SE_SOSTIENE


Round = tuple[Sequence[float], Sequence[float]]  # (experiment's values, independent values) of one round


def compare(
    label: str,
    rounds: Sequence[Round],
    *,
    unit: str,
    tolerance: Tolerance,
    names: tuple[str, str],
    log=print,
) -> Comparison:
    """Print the two paths' medians, their ratio and difference, and whether they agree.

    The paths are measured in rounds (each round one block of each, in alternating order): the ratio and
    the difference judged are the medians over rounds of each round's own ratio and difference of medians,
    so drift between rounds (a loaded machine) falls on both paths alike and does not count."""
    rounds = [([v for v in a if math.isfinite(v)], [v for v in b if math.isfinite(v)]) for a, b in rounds]
    rounds = [(a, b) for a, b in rounds if a and b]  # a round counts only with both paths measured
    ours = [v for a, _ in rounds for v in a]
    theirs = [v for _, b in rounds for v in b]
    nan = float("nan")
    a = statistics.median(ours) if ours else nan
    b = statistics.median(theirs) if theirs else nan
    per_round = [(statistics.median(x), statistics.median(y)) for x, y in rounds]
    ratio = stats.median_ci([x / y for x, y in per_round if y])
    difference = stats.median_ci([x - y for x, y in per_round])
    status = tolerance.judge(ratio, difference)
    result = Comparison(label, a, b, ratio, difference, unit, tolerance, status)
    width = max(len(n) for n in names)
    log(label)
    for name, values, median in ((names[0], ours, a), (names[1], theirs, b)):
        low = f", mín {figure(min(values))}" if values else ""
        log(f"  {name:{width}s}  mediana {figure(median):>10} {unit}  (n = {len(values)}{low})")
    said = {
        verdict.SE_CONFIRMA: "dentro de",
        verdict.NO_SE_SOSTIENE: "FUERA de",
        verdict.NO_CONCLUYENTE: "no concluyente frente a",
    }.get(status, f"sin IC 95 % (hacen falta {stats.MIN_N} rondas) frente a")

    def interval(e: stats.Estimate, digits) -> str:
        return f" [{digits(e.low)}, {digits(e.high)}]" if e.has_interval else ""

    log(
        f"  proporción {num(ratio.value, 3)}×{interval(ratio, lambda v: num(v, 3))}, diferencia "
        f"{figure(difference.value)}{interval(difference, figure)} {unit} (medianas e IC 95 % de "
        f"{len(rounds)} rondas pareadas): {said} la tolerancia ({tolerance.describe(unit)})"
    )
    return result


def need(command: str, package: str, log=print) -> bool:
    """True if `command` is on PATH; if it is not, install its Debian package (root with apt), the same
    way `make setup` does, and look again."""
    if shutil.which(command):
        return True
    provision.apt_install([package])
    if shutil.which(command):
        return True
    log(f"No está «{command}» (paquete Debian «{package}») y no pude instalarlo: no hay comparación.")
    return False


def exit_code(comparisons: Sequence[Comparison], not_made: Sequence[str] = (), log=print) -> int:
    """0 if every comparison agrees, 1 if one falls outside its tolerance, 2 if one could not be made;
    one closing Spanish line says which."""
    outside = [c.label for c in comparisons if c.outside]
    undecided = [c.label for c in comparisons if not c.ok and not c.outside]
    for reason in not_made:
        log(f"Sin comparar: {reason}")
    if outside:
        log(f"\nResultado: {len(outside)} de {len(comparisons)} comparaciones FUERA de su tolerancia.")
        return OUTSIDE
    if not_made or undecided or not comparisons:
        log(
            f"\nResultado: {len(comparisons) - len(undecided)} comparaciones dentro; {len(undecided)} sin "
            f"decidir (más rondas lo dirían); {len(not_made)} sin hacer."
        )
        return NOT_MADE
    log(f"\nResultado: las {len(comparisons)} comparaciones dentro de su tolerancia.")
    return OK
