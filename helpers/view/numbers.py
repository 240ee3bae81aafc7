"""How every number of the course is written (view.common re-exports these; views call them there).

- Decimal point, as raw.csv, the reference CSVs and the original chapter's tables write it: «1.8 ms»
  (a student who opens raw.csv reads the same figure). Thousands grouped with a narrow no-break space
  (U+202F), never a comma or a point: «183 540 KiB».
- «×» right after the number, no space, in figures, intervals and margins alike: «1.26× [1.10, 1.45]»,
  «de 1.6× a 2.5×».
- Percentages with a space before «%» and an explicit sign: «+7.6 %», «[−1.0, +12.0]»; a difference of
  percentages (unit «pp») in points, signed too: «+2.1 puntos [−0.5, +4.0]».
- Digits follow the interval, one rule: a figure with its IC is rounded at the place of the first
  significant digit of the IC's half-width (decimals, or tens, hundreds… for a wide interval), except
  that each number (the figure and each bound) keeps at least 2 significant digits of its own:
  «0.57× [0.54, 0.62]», «0.54× [0.031, 3.4]» (never «1× [0, 3]»), «30 000 [3 400, 90 000]» (never
  «29 946 [3 446, 89 605]»). So a ratio below 10 always keeps a decimal and a bound that is not 0 never
  prints as 0. A figure without an interval (too few rounds) shows 2 significant digits, without
  trailing zeros: «−0.41 %»; an extrapolated count too («unas 2 100», `approx`); a measured ratio keeps
  both digits, as a ratio with its IC does: «0.50×» beside «0.56×» and «0.50× [0.46, 0.55]», never
  «0.5×». A source's figure or a
  margin end shows up to 3 significant digits, without trailing zeros («0.625×»).
- Memory in binary units, named as such: raw.csv's labels «KB» and «MB» are KiB and MiB (1024 bytes,
  1024 KiB) and are shown as such (`unit_label`).
"""

from __future__ import annotations

import math

from ..stats import Estimate

TIMES = "×"
THOUSANDS = "\u202f"  # narrow no-break space: "1 715", never "1,715" (a decimal to a Spanish reader)
MINUS = "−"
MAX_DECIMALS = 4
UNIT_LABEL = {"KB": "KiB", "MB": "MiB", "GB": "GiB", "us": "µs", "pp": "puntos"}  # pp: percentage points


def unit_label(unit: str) -> str:
    """The unit as a reader sees it: «KB» and «MB» of raw.csv are binary (KiB, MiB)."""
    return UNIT_LABEL.get(unit, unit)


def _missing(*values) -> bool:
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


def num(value: float, digits: int = 0) -> str:
    """A number with a decimal point, thin-space thousands and a true minus sign: «1 715.3», «−34.8»;
    a value that rounds to zero has no sign («0», never «−0»)."""
    if digits < 0:  # rounded to tens, hundreds…: «30 000»
        value, digits = round(value, digits), 0
    text = f"{value:,.{digits}f}"
    if text.startswith("-") and not text.strip("-0.,"):
        text = text[1:]
    return text.replace(",", THOUSANDS).replace("-", "−")


def _trim(text: str) -> str:
    """«0.500» → «0.5», «10.0» → «10» (a source's figure, a margin's end)."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _half_width(low: float, high: float) -> float | None:
    """The interval's half-width, None unless it is finite and positive (a formatting question: how
    wide, never which way)."""
    if _missing(low, high) or not (math.isfinite(low) and math.isfinite(high)):
        return None
    half = (high - low) / 2
    return half if half > 0 else None


def decimals_for(low: float, high: float) -> int | None:
    """Decimals that match an interval: those of the first significant digit of its half-width."""
    half = _half_width(low, high)
    if half is None:
        return None
    return min(max(-math.floor(math.log10(half)), 0), MAX_DECIMALS)


def significant(value: float, digits: int = 3) -> int:
    """Decimals that show `digits` significant digits of value."""
    if _missing(value) or not math.isfinite(value) or value == 0:
        return 0
    return min(max(digits - 1 - math.floor(math.log10(abs(value))), 0), MAX_DECIMALS)


def _half_width_place(low: float, high: float) -> int | None:
    """Decimals at the first significant digit of the interval's half-width, negative for tens,
    hundreds… (not clamped at 0, unlike `decimals_for`)."""
    half = _half_width(low, high)
    if half is None:
        return None
    return min(-math.floor(math.log10(half)), MAX_DECIMALS)


def _own_digits(value: float, place: int | None, keep: int = 2) -> int:
    """Decimals of one number of an interval: the interval's place, but at least `keep` significant
    digits of the number itself (0.03 stays 0.03, 3 446 stays 3 400, not 0)."""
    if _missing(value) or not math.isfinite(value):
        return 0
    own = keep - 1 - math.floor(math.log10(abs(value))) if value else 0
    if place is None:
        place = own
    return min(max(place, own), MAX_DECIMALS)


def approx(value: float) -> str:
    """An extrapolated count, rounded to 2 significant digits: «2 100» for 2 054."""
    if _missing(value):
        return "—"
    return num(value, min(_own_digits(value, None), 0))  # a count: no decimals


def fmt(value: float, digits: int = 1, unit: str = "") -> str:
    if _missing(value):
        return "—"
    return f"{num(value, digits)} {unit_label(unit)}".strip()


def fmt_interval(low: float, high: float, digits: int = 1, unit: str = "") -> str:
    if _missing(low, high):
        return "—"
    return f"[{num(low, digits)}, {num(high, digits)}] {unit_label(unit)}".strip()


def _signed(value: float, digits: int, sign: bool = True) -> str:
    text = num(value, digits)
    if text.startswith("-"):
        text = MINUS + text[1:]
    if sign and value > 0 and text.strip("0.") != "":
        text = "+" + text
    return text


def fmt_pct(value: float, digits: int = 1, sign: bool = True) -> str:
    """A percentage: «+7.6 %»."""
    if _missing(value):
        return "—"
    return f"{_signed(value, digits, sign)} %"


def fmt_ratio(
    value: float, low: float | None = None, high: float | None = None, digits: int | None = None
) -> str:
    """A ratio or multiplier: «1.26× [1.10, 1.45]»; decimals from the interval unless `digits`."""
    if _missing(value):
        return "—"
    has_ci = not _missing(low, high)
    if digits is not None:
        text = f"{_end(value, 'x', digits)}{TIMES}"
        if has_ci:
            text += f" [{_end(low, 'x', digits)}, {_end(high, 'x', digits)}]"
        return text
    if not has_ci:
        return fmt_value(value, "x", _own_digits(value, None))
    return fmt_value_interval(value, low, high, "x")


def _end(value: float, unit: str, digits: int, trim: bool = False) -> str:
    """The number alone, as a claim's figure writes it in `unit`, without the unit."""
    if math.isinf(value):
        return "∞" if value > 0 else MINUS + "∞"
    text = _signed(value, digits, sign=unit in ("%", "pp"))
    return _trim(text) if trim else text


def _with_unit(text: str, unit: str) -> str:
    if unit == "x":
        return text + TIMES
    if unit == "%":
        return text + " %"
    return f"{text} {unit_label(unit)}".strip()


def fmt_value(value: float, unit: str, digits: int | None = None, trim: bool = False) -> str:
    """A claim's figure in its declared unit: «0.5×», «+11 %», «620 MiB», «3». Without `digits`: 3
    significant digits, trailing zeros dropped (a source's figure, a margin's end)."""
    if _missing(value):
        return "—"
    trim = trim or digits is None
    d = significant(value) if digits is None else digits
    return _with_unit(_end(value, unit, d, trim=trim), unit)


def fmt_value_interval(
    value: float | Estimate, low: float = math.nan, high: float = math.nan, unit: str = ""
) -> str:
    """A measured figure with its IC 95 % (three numbers, or a stats.Estimate and unit=...), decimals
    from the interval: «0.57× [0.54, 0.62]», «+7.6 % [+1.0, +12]», «12.3 ms [11.9, 12.8]», «30 000
    [3 400, 90 000]»: the interval's place, at least 2 significant digits of each number; without an
    interval, 2 significant digits, no trailing zeros («−0.41 %») but in a ratio («0.50×»)."""
    figure, interval = value_and_interval(value, low, high, unit)
    return f"{figure} {interval}" if interval else figure


def value_and_interval(
    value: float | Estimate, low: float = math.nan, high: float = math.nan, unit: str = ""
) -> tuple[str, str]:
    """The two parts of `fmt_value_interval`, for a table with a column for each: («12.3 ms»,
    «[11.9, 12.8]»); («—», "") without a figure, (figure, "") without an interval."""
    if isinstance(value, Estimate):
        value, low, high = value.value, value.low, value.high
    if _missing(value):
        return "—", ""
    if _missing(low, high) or (low == high == value):
        return fmt_value(value, unit, _own_digits(value, None), trim=unit != "x"), ""
    place = _half_width_place(low, high)  # None for an infinite end: each number its own 2 digits
    ends = ", ".join(_interval_end(v, unit, place) for v in (low, high))
    return _with_unit(_interval_end(value, unit, place), unit), f"[{ends}]"


def _interval_end(value: float, unit: str, place: int | None) -> str:
    """One number of an interval; the digits it keeps beyond the interval's place (its own 2 significant
    digits) drop trailing zeros down to one decimal: 0.03 stays «0.03», not «0.030»."""
    digits = _own_digits(value, place)
    text = _end(value, unit, digits)
    floor = max(place if place is not None else 0, 1)
    while digits > floor and text.endswith("0") and "." in text:
        text, digits = text[:-1], digits - 1
    return text


def fmt_margin(region: tuple[float, float], unit: str) -> str:
    """A claim's margin in words: «de 0.4× a 0.625×», «al menos 1.05×», «como mucho 20 %»."""
    low, high = region
    if math.isinf(low) and math.isinf(high):
        return "cualquier valor"
    if math.isinf(high):
        return f"al menos {fmt_value(low, unit)}"
    if math.isinf(low):
        return f"como mucho {fmt_value(high, unit)}"
    if low == high:
        return fmt_value(low, unit)
    return f"de {fmt_value(low, unit)} a {fmt_value(high, unit)}"


def fmt_duration(seconds: float | None) -> str:
    """A run's length as a student reads a clock: «47 s», «2 min 2 s», «12 min»; «?» when unknown."""
    if seconds is None or _missing(seconds):
        return "?"
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min" + (f" {rest} s" if rest and minutes < 10 else "")


def cpu_share(seconds_per_second: float, cores=None) -> str:
    """CPU per second as «¿Cuándo importa?» writes it: «% de un núcleo» below one core, «núcleos» above
    (saying when that is more than this machine has); a negative figure (the arm's median below the
    host's) is none at all."""
    v = seconds_per_second
    if v != v:
        return "—"
    if v <= 0:
        return "ninguna medible (su mediana quedó por debajo de la del host)"
    if v < 1:  # a difference of two medians, without an interval: 2 significant digits
        return f"{fmt(v * 100, significant(v * 100, 2))} % de un núcleo"
    text = f"{fmt(v, significant(v, 2))} núcleos"
    if isinstance(cores, int | float) and v > cores:
        text += f" (más de los {num(cores)} de esta máquina: a ese ritmo no cabe)"
    return text
