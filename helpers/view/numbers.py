"""How every number of the course is written (view.common re-exports these; views call them there).

- Decimal point, as raw.csv, the reference CSVs and the original chapter's tables write it: «1.8 ms»
  (a student who opens raw.csv reads the same figure). Thousands grouped with a narrow no-break space
  (U+202F), never a comma or a point: «183 540 KiB».
- «×» right after the number, no space, in figures, intervals and margins alike: «1.26× [1.10, 1.45]»,
  «de 1.6× a 2.5×».
- Percentages with a space before «%» and an explicit sign: «+7.6 %», «[−1.0, +12.0]».
- Decimals follow the interval: a figure with its IC shows as many decimals as the first significant
  digit of the IC's half-width (never «221.76× [164.49, 241.83]»: «222× [164, 242]»); a figure without
  an interval shows 3 significant digits; a source's figure or a margin end, without trailing zeros.
- Memory in binary units, named as such: raw.csv's labels «KB» and «MB» are KiB and MiB (1024 bytes,
  1024 KiB) and are shown as such (`unit_label`).
"""

from __future__ import annotations

import math

TIMES = "×"
THOUSANDS = "\u202f"  # narrow no-break space: "1 715", never "1,715" (a decimal to a Spanish reader)
MINUS = "−"
MAX_DECIMALS = 4
UNIT_LABEL = {"KB": "KiB", "MB": "MiB", "GB": "GiB", "us": "µs"}


def unit_label(unit: str) -> str:
    """The unit as a reader sees it: «KB» and «MB» of raw.csv are binary (KiB, MiB)."""
    return UNIT_LABEL.get(unit, unit)


def _missing(*values) -> bool:
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


def num(value: float, digits: int = 0) -> str:
    """A number with a decimal point, thin-space thousands and a true minus sign: «1 715.3», «−34.8»;
    a value that rounds to zero has no sign («0», never «−0»)."""
    text = f"{value:,.{digits}f}"
    if text.startswith("-") and not text.strip("-0.,"):
        text = text[1:]
    return text.replace(",", THOUSANDS).replace("-", "−")


def _trim(text: str) -> str:
    """«0.500» → «0.5», «10.0» → «10» (a source's figure, a margin's end)."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def decimals_for(low: float, high: float) -> int | None:
    """Decimals that match an interval: those of the first significant digit of its half-width."""
    if _missing(low, high) or not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return None
    half = (high - low) / 2
    return min(max(-math.floor(math.log10(half)), 0), MAX_DECIMALS)


def significant(value: float, digits: int = 3) -> int:
    """Decimals that show `digits` significant digits of value."""
    if _missing(value) or not math.isfinite(value) or value == 0:
        return 0
    return min(max(digits - 1 - math.floor(math.log10(abs(value))), 0), MAX_DECIMALS)


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
    if digits is None:
        digits = decimals_for(low, high) if has_ci else None
        digits = significant(value) if digits is None else digits
    text = f"{_end(value, 'x', digits)}{TIMES}"
    if has_ci:
        text += f" [{_end(low, 'x', digits)}, {_end(high, 'x', digits)}]"
    return text


def _end(value: float, unit: str, digits: int, trim: bool = False) -> str:
    """The number alone, as a claim's figure writes it in `unit`, without the unit."""
    if math.isinf(value):
        return "∞" if value > 0 else MINUS + "∞"
    text = _signed(value, digits, sign=unit == "%")
    return _trim(text) if trim else text


def _with_unit(text: str, unit: str) -> str:
    if unit == "x":
        return text + TIMES
    if unit == "%":
        return text + " %"
    return f"{text} {unit_label(unit)}".strip()


def fmt_value(value: float, unit: str, digits: int | None = None) -> str:
    """A claim's figure in its declared unit: «0.5×», «+11 %», «650 MiB», «3». Without `digits`: 3
    significant digits, trailing zeros dropped (a source's figure, a margin's end)."""
    if _missing(value):
        return "—"
    trim = digits is None
    d = significant(value) if digits is None else digits
    return _with_unit(_end(value, unit, d, trim=trim), unit)


def fmt_value_interval(value: float, low: float, high: float, unit: str) -> str:
    """A measured figure with its IC 95 %, decimals from the interval: «0.57× [0.54, 0.62]»,
    «+7.6 % [+1.0, +12.0]», «12.3 ms [11.9, 12.8]»; without an interval, 3 significant digits."""
    if _missing(value):
        return "—"
    if _missing(low, high) or (low == high == value):
        return fmt_value(value, unit, significant(value))
    digits = decimals_for(low, high)
    if digits is None:  # an infinite end: decimals from the value
        digits = significant(value)
    return f"{_with_unit(_end(value, unit, digits), unit)} [{_end(low, unit, digits)}, {_end(high, unit, digits)}]"


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
