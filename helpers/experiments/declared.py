"""Claims declared as data: an experiment's claims.toml, beside its claims.py, read into `verdict.Said`s.

A file holds [defaults] (fields every claim takes unless it gives its own), [text] (named snippets) and
one [[claim]] per declaration, with the fields of `Said` (key, statement, source, where, kind, claimed,
bounds, unit, quantity, note, ref, undecidable, figure) and four of its own:

- variants = [{engine = "docker"}, …]: one claim per table, in order, its values filling {engine};
- like = "key": the fields of an earlier entry, these changed (a variant worded apart);
- each = {engine = "@ENGINES", …}: the claim is declared once (SAID, the table of sources) and judged
  once per combination of these values (their product, the first outermost), each judged copy with the
  fields of judged = {…} (filled also with the declared fields: "{statement} ({name})").

A [judging] section, order = ["key", ["key", "key"], …], gives the order the judged copies are judged
in: a key alone, or a group judged in turns (as many as its claim with the fewest copies: the first
copies of each, then the next…, a claim's copies split evenly among the turns); without it, entry by
entry.

Every string is filled with the [text] snippets and the variant's values ({name}, {name[0]:.2f}; a
literal brace is {{ or }}; a string that is only "{name}" takes the value as it is, a number say); a
snippet is filled, then read, with the values of the copy that uses it. A string starting with "@" then
names what the experiment's claims.py defines (a function, a constant; "@A.b": b of A, an item or
attribute), a module of its package ("@levels.PRIV") or of this one ("@verdict.OTHER_MACHINE") or a
figure of helpers/experiments/figures.py (SHARED): a figure that needs code, and a claimed number
data/reference holds, stay in Python. Any table with call = "@function" (args = […], its other keys as
keywords) is what that function returns: a figure that needs code, a condition. ref is a table of
`verdict.ref`'s arguments; figure is "@name", such a call, or a table with one of ratio = [sel, sel],
difference = [sel, sel] (percent = true), median = sel or formula = "@function" (arms = [sel, …],
scale = 100) (a sel: a table of column = value, and paired = false), and the figure's options (detail,
optional, missing_note, when, needs, incomparable).
A field or section this module does not know, a name claims.py does not define or a malformed value
raises `DeclarationError`, naming the file and the claim.
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import NamedTuple

from . import figures
from .figures import Difference, Figure, Formula, Median, Ratio, Sel
from .verdict import Said, ref

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, as a package (pyproject.toml)
    import tomli as tomllib

FILE = "claims.toml"
FIELDS = ("key", "statement", "source", "where", "kind", "claimed", "bounds", "unit", "quantity", "note")
FIELDS += ("ref", "undecidable", "figure")
# What "@name" finds when claims.py does not define it: the figures, the selection of an arm, the condition
# on engines (ran).
SHARED = ("Computed", "Custom", "Difference", "Formula", "Median", "NotComparable", "Outcome", "Ratio", "Sel")
SHARED += ("Unless", "ran")
SHAPES = {"ratio": Ratio, "difference": Difference, "median": Median, "formula": Formula}
OPTIONS = {"detail", "optional", "missing_note", "when", "needs", "incomparable"}
OWN = {"variants", "like", "each", "judged"}  # an entry's keys that are not fields of Said


class DeclarationError(ValueError):
    """A claims.toml entry that cannot be read (the message names the file and the claim)."""


class Declared(NamedTuple):
    """What a claims.toml declares (one per entry and variant, as the sources list them) and what its
    experiment judges (each judged copy, in the order of [judging])."""

    said: tuple[Said, ...]
    judged: tuple[Said, ...]


def read(package: str, names: Mapping) -> Declared:
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
    """claims.py's names, then the modules of its package ("@levels.PRIV": PRIV of its levels.py), then
    those of helpers.experiments ("@verdict.OTHER_MACHINE")."""

    def __init__(self, package: str, names: Mapping) -> None:
        super().__init__(names)
        self.package = package

    def __missing__(self, name: str):
        for package in (self.package, __package__):  # its own module, else a shared one ("@verdict.X")
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError:
                continue
        raise KeyError(name)


def parse(data: Mapping, names: Mapping, file: str = FILE) -> Declared:
    """The claims of a parsed claims.toml (see the module docstring)."""
    extra = set(data) - {"defaults", "text", "claim", "judging"}
    if extra:
        raise DeclarationError(f"{file}: sección desconocida {sorted(extra)}")
    defaults, text = data.get("defaults", {}), data.get("text", {})
    if set(defaults) - set(FIELDS):
        raise DeclarationError(
            f"{file}: campo desconocido en [defaults] {sorted(set(defaults) - set(FIELDS))}"
        )
    raw: dict[str, dict] = {}
    said: list[Said] = []
    judged: list[tuple[str, list[Said]]] = []  # each declaration's judged copies, in declaration order
    for entry in data.get("claim", []):
        key = entry.get("key", "?")
        try:
            entry = _merged(entry, raw)
            raw[key] = entry
            for variant in entry.get("variants", [{}]):
                fields = {k: v for k, v in {**defaults, **entry}.items() if k not in OWN}
                declared = _said(_resolve(_fill(fields, _Variables(text, variant, names)), names))
                said.append(declared)
                judged.append((declared.key, _copies(entry, declared, text, variant, names)))
        except (DeclarationError, KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            raise DeclarationError(f"{file}, afirmación «{key}»: {e}") from e
    return Declared(tuple(said), _ordered(judged, data.get("judging", {}), file))


class _Variables(Mapping):
    """The values a string is filled with: the variant's (and the judged copy's), then the [text]
    snippets, each filled and read ("@name") with these same values when a string uses it."""

    def __init__(self, text: Mapping, values: Mapping, names: Mapping) -> None:
        self.text, self.values, self.names = text, values, names

    def __getitem__(self, name: str):
        if name in self.values:
            return _resolve(self.values[name], self.names)
        return _resolve(_fill(self.text[name], self), self.names)

    def __contains__(self, name: object) -> bool:
        return name in self.values or name in self.text

    def __iter__(self) -> Iterator[str]:
        return iter({**self.text, **self.values})

    def __len__(self) -> int:
        return len({**self.text, **self.values})


def _copies(entry: dict, declared: Said, text: Mapping, variant: Mapping, names: Mapping) -> list[Said]:
    """The judged copies of one declaration: one per combination of `each`, with the fields of `judged`."""
    if "each" not in entry and "judged" not in entry:
        return [declared]
    each = _resolve(entry.get("each", {}), names)
    if not isinstance(each, dict) or not all(isinstance(v, (list, tuple)) for v in each.values()):
        raise DeclarationError(f"each no es una tabla de listas: {entry['each']!r}")
    own = {f: getattr(declared, f) for f in ("statement", "quantity", "note", "where")}
    out = []
    for combination in itertools.product(*each.values()):
        values = {**own, **variant, **dict(zip(each, combination))}
        changes = _resolve(_fill(entry.get("judged", {}), _Variables(text, values, names)), names)
        unknown = set(changes) - set(FIELDS) | ({"key"} & set(changes))  # a copy keeps its key
        if unknown:
            raise DeclarationError(f"campo desconocido en judged {sorted(unknown)}")
        out.append(declared.but(**_converted(changes)))
    return out


def _ordered(judged: list[tuple[str, list[Said]]], judging: Mapping, file: str) -> tuple[Said, ...]:
    """The judged copies in the order [judging] gives (a group in turns), else entry by entry."""
    if set(judging) - {"order"}:
        raise DeclarationError(f"{file}: campo desconocido en [judging] {sorted(set(judging) - {'order'})}")
    if "order" not in judging:
        return tuple(s for _, copies in judged for s in copies)
    by_key: dict[str, list[Said]] = {}
    for key, copies in judged:  # a key declared twice (two entries, one wording each): all its copies
        by_key.setdefault(key, []).extend(copies)
    groups = [[item] if isinstance(item, str) else item for item in judging["order"]]
    named = [key for group in groups for key in group]
    if sorted(named) != sorted(by_key):
        missing, unknown = sorted(set(by_key) - set(named)), sorted(set(named) - set(by_key))
        repeated = sorted({k for k in named if named.count(k) > 1})
        raise DeclarationError(
            f"{file}: [judging] order debe nombrar cada afirmación una vez (faltan {missing}, "
            f"no existen {unknown}, repetidas {repeated})"
        )
    out = []
    for group in groups:
        copies = [by_key[key] for key in group]
        turns = min(len(c) for c in copies)
        if any(len(c) % turns for c in copies):
            raise DeclarationError(
                f"{file}: las copias del grupo {group} de [judging] no se reparten en {turns} turnos"
            )
        for turn in range(turns):
            out += [s for c in copies for s in c[turn * len(c) // turns : (turn + 1) * len(c) // turns]]
    return tuple(out)


def _merged(entry: dict, raw: dict) -> dict:
    unknown = set(entry) - set(FIELDS) - OWN
    if unknown:
        raise DeclarationError(f"campo desconocido {sorted(unknown)}")
    if "like" not in entry:
        return dict(entry)
    if entry["like"] not in raw:
        raise DeclarationError(f"«like» nombra una afirmación que no está antes: {entry['like']!r}")
    return {**{k: v for k, v in raw[entry["like"]].items() if k not in OWN}, **entry, "like": None}


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
    claimed = fields.get("claimed", 0.0)
    if isinstance(claimed, bool) or not isinstance(claimed, (int, float)):
        raise DeclarationError(f"claimed no es un número: {fields['claimed']!r}")
    return Said(**_converted(fields))


def _converted(fields: dict) -> dict:
    """ref, bounds and figure as Said takes them."""
    fields = dict(fields)
    if fields.get("ref") is not None:
        fields["ref"] = ref(**fields["ref"])
    if fields.get("bounds") is not None:
        low, high = fields["bounds"]
        fields["bounds"] = (float(low), float(high))
    if fields.get("figure") is not None:
        fields["figure"] = _figure(fields["figure"])
    return fields


def _figure(spec) -> Figure:
    if isinstance(spec, Figure):
        return spec
    if not isinstance(spec, dict):
        raise DeclarationError(f"figure no es una cifra: {spec!r}")
    shapes = [s for s in SHAPES if s in spec]
    if len(shapes) != 1:
        raise DeclarationError(
            f"figure necesita una de ratio, difference, median, formula o call: {sorted(spec)}"
        )
    shape, options = shapes[0], {k: v for k, v in spec.items() if k != shapes[0]}
    allowed = OPTIONS | {"difference": {"percent"}, "formula": {"arms", "scale"}}.get(shape, set())
    if set(options) - allowed:
        raise DeclarationError(f"opción desconocida {sorted(set(options) - allowed)} en figure")
    if shape == "formula":
        if not callable(spec["formula"]):
            raise DeclarationError(f"formula no nombra una función: {spec['formula']!r}")
        arms = options.pop("arms", [])
        return Formula(spec["formula"], *(Sel(**sel) for sel in arms), **options)
    sels = [spec[shape]] if shape == "median" else spec[shape]
    return SHAPES[shape](*(Sel(**sel) for sel in sels), **options)
