"""Parameters declared once: the widget, `config()` and the validation all come from one declaration.

An experiment's `Config` is a dataclass that inherits `Params`; each field is declared with `param`:

    @dataclass
    class Config(Params):
        repeticiones: int = param(10, "Repeticiones", minimum=1, maximum=200)
        imagenes: list = param(["ubuntu", "alpine"], "Imágenes", options=images.ROLE_NAMES)
        calentamiento: int = param(1, minimum=0, maximum=100)        # no widget: no label

        def check(self) -> None:          # optional: rules that tie fields together
            ...

From that one declaration:
- `Config.controls()` gives the panel its widgets (label, kind, limits, options): only fields with a label;
- `Config.build(**params)` builds and validates (`ParametroInvalido`, in Spanish, naming the notebook's
  parameter, before anything is launched); `config(**params)` in the contract is this;
- the limits the widget allows are the limits the validator enforces: they are the same numbers.

Options may carry a Spanish label each (`labels={None: "sin fijar"}` or a function of the option): the
widget shows the labels, the value stays the option (`Config.controls()` gives (label, value) pairs).

Kinds (inferred from the default when not given): "int" (an integer within [minimum, maximum]), "float",
"bool", "choice" (one of `options`), "multi" (a sub-list of `options`), "ints" (a list of integers within
the limits), "text" (free text), "any" (checked by `check` only).
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable, Sequence
from typing import Any

from .. import validate
from ..errors import ParametroInvalido

KINDS = ("int", "float", "bool", "choice", "multi", "ints", "text", "any")


@dataclasses.dataclass(frozen=True)
class Spec:
    """How one parameter is shown and checked (see the module docstring)."""

    kind: str
    label: str | None = None  # the widget's Spanish label; None: the parameter has no widget
    minimum: float | None = None
    maximum: float | None = None
    options: tuple = ()
    allow_empty: bool = False
    help: str = ""  # a Spanish sentence shown as the widget's tooltip
    labels: tuple = ()  # (option, Spanish label) pairs: what the widget shows for each option


def _infer_kind(default: Any, options: Sequence | None) -> str:
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, numbers.Integral):
        return "int"
    if isinstance(default, numbers.Real):
        return "float"
    if isinstance(default, (list, tuple)):
        return "multi" if options else "ints"
    if isinstance(default, str):
        return "choice" if options else "text"
    return "any"


def param(
    default: Any,
    label: str | None = None,
    *,
    kind: str | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    options: Sequence | None = None,
    allow_empty: bool = False,
    help: str = "",
    labels: dict | Callable[[Any], str] | None = None,
) -> Any:
    """A dataclass field that carries its Spec (see the module docstring). `labels`: the Spanish label of
    each option (a dict, or a function of the option); options without one show as themselves."""
    options = tuple(options or ())
    named = labels if callable(labels) else (labels or {}).get
    spec = Spec(
        kind or _infer_kind(default, options),
        label,
        minimum,
        maximum,
        options,
        allow_empty,
        help,
        tuple((o, named(o) or str(o)) for o in options) if labels else (),
    )
    if spec.kind not in KINDS:
        raise ValueError(f"unknown parameter kind {spec.kind!r}")
    if isinstance(default, (list, dict, set)):
        value = list(default) if isinstance(default, list) else default
        return dataclasses.field(default_factory=lambda: type(value)(value), metadata={"param": spec})
    return dataclasses.field(default=default, metadata={"param": spec})


def spec_of(field: dataclasses.Field) -> Spec:
    return field.metadata.get("param") or Spec("any")


def _check_value(name: str, spec: Spec, value: Any) -> Any:
    """The validated value of one parameter (raises ParametroInvalido in Spanish)."""
    if spec.kind == "int":
        maximum = None if spec.maximum is None else int(spec.maximum)
        minimum = 0 if spec.minimum is None else int(spec.minimum)
        return validate.positive_int(name, value, minimum=minimum, maximum=maximum)
    if spec.kind == "float":
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ParametroInvalido(f"{name} debe ser un número, pero recibió {value!r}.")
        if spec.minimum is not None and value < spec.minimum:
            raise ParametroInvalido(f"{name} debe ser al menos {spec.minimum}, pero recibió {value}.")
        if spec.maximum is not None and value > spec.maximum:
            raise ParametroInvalido(f"{name} debe ser como máximo {spec.maximum}, pero recibió {value}.")
        return float(value)
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise ParametroInvalido(f"{name} debe ser True o False, pero recibió {value!r}.")
        return value
    if spec.kind == "choice":
        allowed = [str(o) for o in spec.options]
        key = str(value).strip().lower() if isinstance(value, str) else value
        if key not in spec.options:
            raise ParametroInvalido(
                f"{name}: valor desconocido {value!r}. Opciones válidas: {', '.join(allowed)}."
            )
        return key
    if spec.kind == "multi":
        picked = validate.choices(name, value, [str(o) for o in spec.options], allow_empty=spec.allow_empty)
        as_declared = {str(o): o for o in spec.options}  # integer options (levels, say) stay integers
        return [as_declared[p] for p in picked]
    if spec.kind == "ints":
        items = validate.as_list(name, value)
        if not items and not spec.allow_empty:
            raise ParametroInvalido(f"{name} no puede estar vacía.")
        maximum = None if spec.maximum is None else int(spec.maximum)
        minimum = 0 if spec.minimum is None else int(spec.minimum)
        out = [validate.positive_int(name, v, minimum=minimum, maximum=maximum) for v in items]
        return list(dict.fromkeys(out))
    if spec.kind == "text":
        if not isinstance(value, str):
            raise ParametroInvalido(f"{name} debe ser un texto, pero recibió {value!r}.")
        return value
    return value


class Params:
    """Base of every experiment's Config (a dataclass): declared once, validated from the declaration."""

    def check(self) -> None:
        """Rules that tie several fields together; raise ParametroInvalido (Spanish). Optional."""

    def validated(self):
        """A checked copy; raises ParametroInvalido (Spanish) before anything is launched."""
        values = {}
        for f in dataclasses.fields(self):
            values[f.name] = _check_value(f.name.upper(), spec_of(f), getattr(self, f.name))
        out = dataclasses.replace(self, **values)
        out.check()
        return out

    @classmethod
    def build(cls, **params):
        """Build from the notebook's parameters (lower-case names) and validate."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise ParametroInvalido(
                f"Parámetro desconocido: {', '.join(n.upper() for n in unknown)}. "
                f"Este experimento acepta: {', '.join(sorted(n.upper() for n in known))}."
            )
        return cls(**params).validated()

    @classmethod
    def controls(cls) -> list[dict]:
        """The panel's widget specs, from the declaration: one per field with a label."""
        out = []
        for f in dataclasses.fields(cls):
            spec = spec_of(f)
            if spec.label is None:
                continue
            item = {"name": f.name, "kind": spec.kind, "label": spec.label}
            if spec.minimum is not None:
                item["min"] = spec.minimum
            if spec.maximum is not None:
                item["max"] = spec.maximum
            if spec.labels:
                item["options"] = [(text, option) for option, text in spec.labels]
            elif spec.options:
                item["options"] = list(spec.options)
            if spec.help:
                item["help"] = spec.help
            out.append(item)
        return out

    @classmethod
    def limits(cls, name: str) -> Spec:
        """The declared spec of one field (tests and docs read limits from here)."""
        for f in dataclasses.fields(cls):
            if f.name == name:
                return spec_of(f)
        raise KeyError(name)
