"""Parameter validation shared by every experiment. Messages are Spanish."""

from __future__ import annotations

import ast
import numbers
from collections.abc import Sequence

from .errors import ParametroInvalido


def is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def positive_int(name: str, value, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return value if it is an integer in [minimum, maximum]; raise otherwise."""
    if not is_int(value):
        raise ParametroInvalido(
            f"{name} debe ser un número entero, pero recibió {value!r} ({type(value).__name__})."
        )
    if value < minimum:
        raise ParametroInvalido(f"{name} debe ser al menos {minimum}, pero recibió {value}.")
    if maximum is not None and value > maximum:
        raise ParametroInvalido(f"{name} debe ser como máximo {maximum}, pero recibió {value}.")
    return int(value)


def non_negative_int(name: str, value, *, maximum: int | None = None) -> int:
    return positive_int(name, value, minimum=0, maximum=maximum)


def as_list(name: str, value) -> list:
    """Accept a list/tuple, a single string, or a string holding a list literal (what
    `papermill -p IMAGENES '["alpine"]'` delivers), and return a list."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith(("[", "(")):
            try:
                parsed = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                raise ParametroInvalido(f"{name}: no entiendo la lista {value!r}.") from None
            if isinstance(parsed, (list, tuple)):
                return list(parsed)
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise ParametroInvalido(f"{name} debe ser una lista, pero recibió {value!r}.")


def choices(name: str, values, allowed: Sequence[str], *, allow_empty: bool = False) -> list[str]:
    """Validate that every value is one of `allowed` (case-insensitive); keep order, drop repeats."""
    items = as_list(name, values)
    if not items and not allow_empty:
        raise ParametroInvalido(f"{name} no puede estar vacía. Opciones: {', '.join(allowed)}.")
    out: list[str] = []
    for item in items:
        key = str(item).strip().lower()
        if key not in allowed:
            raise ParametroInvalido(
                f"{name}: valor desconocido {item!r}. Opciones válidas: {', '.join(allowed)}."
            )
        if key not in out:
            out.append(key)
    return out
