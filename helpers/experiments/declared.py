"""Claims declared as data: an experiment's claims.toml, beside its claims.py, read into `verdict.Said`s.

A file holds [defaults] (fields every claim takes unless it gives its own), [text] (named snippets) and
one [[claim]] per declaration, with the fields of `Said` (key, statement, source, where, kind, claimed,
bounds, unit, quantity, note, ref, undecidable, figure) and two of its own:

- variants = [{engine = "docker"}, …]: one claim per table, in order, its values filling {engine};
- like = "key": the fields of an earlier entry, these changed (a variant worded apart).

Every string is filled with the [text] snippets and the variant's values ({name}, {name[0]:.2f}; a
literal brace is {{ or }}; a string that is only "{name}" takes the value as it is, a number say). A
string starting with "@" then names what the experiment's claims.py defines (a function, a constant;
"@A.b": b of A, an item or attribute), a module of its package ("@levels.PRIV") or a figure of
helpers/experiments/figures.py (SHARED): a figure that needs code, and a claimed number data/reference
holds, stay in Python. Any table with call = "@function" (args = […], its other keys as keywords) is what
that function returns: a figure that needs code, a condition. ref is a table of `verdict.ref`'s
arguments; figure is "@name", such a call, or a table with one of ratio = [sel, sel], difference =
[sel, sel] (percent = true) or median = sel (a sel: a table of column = value, and paired = false), and
the figure's options (detail, optional, missing_note, when, needs, incomparable).
A field or section this module does not know, a name claims.py does not define or a malformed value
raises `DeclarationError`, naming the file and the claim.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from importlib import resources

from . import figures
from .figures import Difference, Figure, Median, Ratio, Sel
from .verdict import Said, ref

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, as a package (pyproject.toml)
    import tomli as tomllib

FILE = "claims.toml"
FIELDS = ("key", "statement", "source", "where", "kind", "claimed", "bounds", "unit", "quantity", "note")
FIELDS += ("ref", "undecidable", "figure")
# What "@name" finds when claims.py does not define it: the figures, and the selection of an arm.
SHARED = ("Computed", "Custom", "Difference", "Formula", "Median", "NotComparable", "Outcome", "Ratio", "Sel")
SHAPES = {"ratio": Ratio, "difference": Difference, "median": Median}
OPTIONS = {"detail", "optional", "missing_note", "when", "needs", "incomparable"}


class DeclarationError(ValueError):
    """A claims.toml entry that cannot be read (the message names the file and the claim)."""


def read(package: str, names: Mapping) -> tuple[Said, ...]:
    """The claims `package`'s claims.toml declares, "@name" read from `names` (claims.py's globals())."""
    path = resources.files(package) / FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise DeclarationError(f"{package}/{FILE}: {e}") from e
    return parse(
        data, _Names(package, {**{n: getattr(figures, n) for n in SHARED}, **names}), f"{package}/{FILE}"
    )


class _Names(dict):
    """claims.py's names, then the modules of its package ("@levels.PRIV": PRIV of its levels.py)."""

    def __init__(self, package: str, names: Mapping) -> None:
        super().__init__(names)
        self.package = package

    def __missing__(self, name: str):
        try:
            return importlib.import_module(f"{self.package}.{name}")
        except ModuleNotFoundError:
            raise KeyError(name) from None


def parse(data: Mapping, names: Mapping, file: str = FILE) -> tuple[Said, ...]:
    """The claims of a parsed claims.toml (see the module docstring)."""
    extra = set(data) - {"defaults", "text", "claim"}
    if extra:
        raise DeclarationError(f"{file}: sección desconocida {sorted(extra)}")
    defaults, text = data.get("defaults", {}), data.get("text", {})
    if set(defaults) - set(FIELDS):
        raise DeclarationError(
            f"{file}: campo desconocido en [defaults] {sorted(set(defaults) - set(FIELDS))}"
        )
    raw: dict[str, dict] = {}
    out: list[Said] = []
    for entry in data.get("claim", []):
        key = entry.get("key", "?")
        try:
            entry = _merged(entry, raw)
            raw[key] = entry
            for variant in entry.get("variants", [{}]):
                fields = {k: v for k, v in {**defaults, **entry}.items() if k != "variants"}
                variables = _resolve({**text, **variant}, names)  # "@name" read before it fills
                out.append(_said(_resolve(_fill(fields, variables), names)))
        except (DeclarationError, KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            raise DeclarationError(f"{file}, afirmación «{key}»: {e}") from e
    return tuple(out)


def _merged(entry: dict, raw: dict) -> dict:
    unknown = set(entry) - set(FIELDS) - {"variants", "like"}
    if unknown:
        raise DeclarationError(f"campo desconocido {sorted(unknown)}")
    if "like" not in entry:
        return dict(entry)
    if entry["like"] not in raw:
        raise DeclarationError(f"«like» nombra una afirmación que no está antes: {entry['like']!r}")
    return {**{k: v for k, v in raw[entry["like"]].items() if k != "variants"}, **entry, "like": None}


def _fill(value, variables: Mapping):
    """Strings filled with the snippets and the variant's values, in every nested value."""
    if isinstance(value, str):
        name = value[1:-1]
        if value.startswith("{") and value.endswith("}") and name in variables:
            return variables[name]
        try:
            return value.format_map(variables)
        except KeyError as e:
            raise DeclarationError(f"variable desconocida {e} en {value!r}") from None
    if isinstance(value, dict):
        return {k: _fill(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, variables) for v in value]
    return value


def _resolve(value, names: Mapping):
    """ "@name" (and "@name.part") replaced by what claims.py defines."""
    if isinstance(value, str) and value.startswith("@"):
        first, *parts = value[1:].split(".")
        try:
            found = names[first]
        except KeyError:
            raise DeclarationError(f"claims.py no define {first!r}") from None
        for part in parts:
            if isinstance(found, (Mapping, list, tuple)):
                found = found[part if isinstance(found, Mapping) else int(part)]
            else:
                found = getattr(found, part)
        return found
    if isinstance(value, dict):
        value = {k: _resolve(v, names) for k, v in value.items()}
        if "call" in value:  # {call = "@function", args = […], keyword = …}: what it returns
            if not callable(value["call"]):
                raise DeclarationError(f"call no nombra una función: {value['call']!r}")
            kwargs = {k: v for k, v in value.items() if k not in ("call", "args")}
            return value["call"](*value.get("args", []), **kwargs)
        return value
    if isinstance(value, list):
        return [_resolve(v, names) for v in value]
    return value


def _said(fields: dict) -> Said:
    fields.pop("like", None)
    for required in ("key", "statement", "source"):
        if not isinstance(fields.get(required), str):
            raise DeclarationError(f"falta {required!r} (un texto)")
    if fields.get("ref") is not None:
        fields["ref"] = ref(**fields["ref"])
    if fields.get("bounds") is not None:
        low, high = fields["bounds"]
        fields["bounds"] = (float(low), float(high))
    claimed = fields.get("claimed", 0.0)
    if isinstance(claimed, bool) or not isinstance(claimed, (int, float)):
        raise DeclarationError(f"claimed no es un número: {fields['claimed']!r}")
    if fields.get("figure") is not None:
        fields["figure"] = _figure(fields["figure"])
    return Said(**fields)


def _figure(spec) -> Figure:
    if isinstance(spec, Figure):
        return spec
    if not isinstance(spec, dict):
        raise DeclarationError(f"figure no es una cifra: {spec!r}")
    shapes = [s for s in SHAPES if s in spec]
    if len(shapes) != 1:
        raise DeclarationError(f"figure necesita una de ratio, difference, median o call: {sorted(spec)}")
    shape, options = shapes[0], {k: v for k, v in spec.items() if k != shapes[0]}
    allowed = OPTIONS | ({"percent"} if shape == "difference" else set())
    if set(options) - allowed:
        raise DeclarationError(f"opción desconocida {sorted(set(options) - allowed)} en figure")
    sels = [spec[shape]] if shape == "median" else spec[shape]
    return SHAPES[shape](*(Sel(**sel) for sel in sels), **options)
