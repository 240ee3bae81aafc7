"""Claims declared as data (experiments.declared): a claims.toml entry gives the same declaration, and the
same verdict, as the one written in Python; a malformed entry or an unknown field is an error naming the
file and the claim; every experiment's claims.toml is read and shipped with the package."""

import fnmatch
import importlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import experiments
from helpers.experiments import declared
from helpers.experiments import figures as figs
from helpers.experiments.verdict import Said, ref

GOOD = """
[defaults]
source = "una fuente"
unit = "x"

[text]
SHARED = "un texto que comparten"

[[claim]]
key = "doble_{engine}"
statement = "{engine} tarda el doble que b ({SHARED})"
claimed = "@CLAIMED"
kind = "about"
quantity = "{engine}/b"
ref = { metric = "t", engine = "{engine}", over = { engine = "b" } }
figure = { ratio = [{ engine = "{engine}", metric = "t" }, { engine = "b", metric = "t" }], detail = { engine = "{engine}" } }
variants = [{ engine = "a" }, { engine = "c" }]

[[claim]]
like = "doble_{engine}"
key = "mitad"
claimed = 0.5
figure = { call = "@ratio_of", args = ["b", "a"], optional = true }
variants = [{ engine = "a" }]
"""
NAMES = {
    "CLAIMED": 2.0,
    "ratio_of": lambda a, b, **options: figs.Ratio(
        figs.Sel(engine=a, metric="t"), figs.Sel(engine=b, metric="t"), **options
    ),
}


def _read(text: str, names=NAMES) -> tuple[Said, ...]:
    return declared.parse(
        declared.tomllib.loads(text), {**{n: getattr(figs, n) for n in declared.SHARED}, **names}, "x.toml"
    ).said


def _rounds(a, b) -> pd.DataFrame:
    """Arms a and b of metric t measured in the same rounds (rep 1, 2, …)."""
    n = len(a)
    return pd.DataFrame(
        {
            "engine": ["a"] * n + ["b"] * n,
            "variant": "v",
            "metric": "t",
            "rep": [*range(n)] * 2,
            "value": [*a, *b],
        }
    )


def test_an_entry_is_the_declaration_written_in_python_and_judged_the_same():
    said = _read(GOOD)
    assert [s.key for s in said] == ["doble_a", "doble_c", "mitad"]
    a = said[0]
    python = Said(
        "doble_a",
        "a tarda el doble que b (un texto que comparten)",
        "una fuente",
        claimed=2.0,
        kind="about",
        quantity="a/b",
        unit="x",
        ref=ref(metric="t", engine="a", over={"engine": "b"}),
    )
    assert a.but(figure=None) == python
    assert said[2].claimed == 0.5 and said[2].region != a.region and said[2].statement == a.statement
    rng = np.random.default_rng(5)
    drift = np.exp(rng.normal(0, 0.5, 8))
    df = _rounds(2 * drift * rng.normal(1, 0.01, 8), drift * rng.normal(1, 0.01, 8))
    figure = figs.Ratio(
        figs.Sel(engine="a", metric="t"), figs.Sel(engine="b", metric="t"), detail={"engine": "a"}
    )
    data, code = figs.judge_all(said, df, {}), figs.judge_all([python.but(figure=figure)], df, {})
    assert [c.key for c in data] == ["doble_a", "doble_c", "mitad"]  # doble_c: no arm c, «sin datos»
    assert (data[0].status, data[0].estimate, data[0].detail) == (
        code[0].status,
        code[0].estimate,
        code[0].detail,
    )
    assert data[1].status == "sin_datos" and data[2].value == pytest.approx(1 / data[0].value, rel=1e-3)


@pytest.mark.parametrize(
    "change, words",
    [
        (
            ('quantity = "{engine}/b"', 'quantity = "{engine}/b"\ncolor = "rojo"'),
            "campo desconocido ['color']",
        ),
        (("[defaults]", "[defaults]\ncolor = 1"), "campo desconocido en [defaults] ['color']"),
        (("[text]", "[textos]"), "sección desconocida ['textos']"),
        (('"@CLAIMED"', '"@NO_DEFINIDO"'), "claims.py no define 'NO_DEFINIDO'"),
        (('"@CLAIMED"', '"dos"'), "claimed no es un número"),
        (("({SHARED})", "({NINGUNO})"), "variable desconocida 'NINGUNO'"),
        (('kind = "about"', 'kind = "casi"'), "casi"),
        (("detail = {", 'median = { engine = "a" }, detail = {'), "figure necesita una de"),
        (("detail = {", "paso = 2, detail = {"), "opción desconocida ['paso']"),
        (('statement = "{engine} tarda', 'enunciado = "{engine} tarda'), "campo desconocido ['enunciado']"),
        (('like = "doble_{engine}"\nkey = "mitad"', 'key = "mitad"'), "falta 'statement'"),
        (('like = "doble_{engine}"', 'like = "otra"'), "«like» nombra una afirmación que no está antes"),
    ],
)
def test_a_malformed_entry_names_the_file_and_the_claim(change, words):
    old, new = change
    assert old in GOOD
    with pytest.raises(declared.DeclarationError) as raised:
        _read(GOOD.replace(old, new, 1))
    message = str(raised.value)
    assert message.startswith("x.toml") and words in message
    if "sección" not in words and "[defaults]" not in words:
        assert "afirmación «doble_{engine}»" in message or "afirmación «mitad»" in message


def test_every_experiment_reads_its_declarations_and_ships_them():
    patterns = [
        f"helpers/experiments/{glob}"
        for glob in declared.tomllib.loads(Path("pyproject.toml").read_text())["tool"]["setuptools"][
            "package-data"
        ]["helpers.experiments"]
    ]
    files = sorted(Path("helpers/experiments").glob("*/claims.toml"))
    assert files, "ningún experimento declara sus afirmaciones como datos"
    for path in files:
        assert any(fnmatch.fnmatch(path.as_posix(), p) for p in patterns), f"{path} no se empaqueta"
        module = importlib.import_module(f"helpers.experiments.{path.parent.name}.claims")
        said, judged = declared.read(f"helpers.experiments.{path.parent.name}", vars(module))
        assert said and all(isinstance(s, Said) for s in said)
    assert {p.parent.name for p in files} <= {
        m.__name__.rsplit(".", 1)[-1] for m in experiments.all_experiments()
    }


EACH = """
[judging]
order = ["uno", ["doble", "mitad"]]

[defaults]
source = "una fuente"
unit = "x"

[text]
NAME = "@NAMES.{engine}"

[[claim]]
key = "doble"
statement = "tarda el doble que b"
claimed = 2.0
kind = "about"
quantity = "motor/b"
each = { engine = ["a", "c"] }

[claim.judged]
statement = "{statement} ({NAME})"
figure = { ratio = [{ engine = "{engine}", metric = "t" }, { engine = "b", metric = "t" }], detail = { engine = "{engine}" } }

[[claim]]
key = "mitad"
statement = "b tarda la mitad"
claimed = 0.5
kind = "about"
each = { engine = ["a", "c"], metric = ["t", "u"] }

[claim.judged]
quantity = "b/{engine} en {metric}"
figure = { formula = "@over", arms = [{ engine = "b", metric = "{metric}" }, { engine = "{engine}", metric = "{metric}" }], optional = true }

[[claim]]
key = "uno"
statement = "uno"
"""
EACH_NAMES = {"NAMES": {"a": "A", "c": "C"}, "over": lambda x, y: x / y}


def test_each_declares_once_and_judges_a_copy_per_value_in_the_order_of_judging():
    said, judged = declared.parse(
        declared.tomllib.loads(EACH),
        {**{n: getattr(figs, n) for n in declared.SHARED}, **EACH_NAMES},
        "x.toml",
    )
    assert [s.key for s in said] == ["doble", "mitad", "uno"]  # as the sources list them
    assert said[0].statement == "tarda el doble que b" and said[0].figure is None
    # «uno» alone, then the group in two turns (its claim with the fewest copies has two): engine a's
    # copies, then c's, each claim's in the order of its `each` (engine outermost).
    assert [(s.key, s.quantity) for s in judged] == [
        ("uno", ""),
        ("doble", "motor/b"),
        ("mitad", "b/a en t"),
        ("mitad", "b/a en u"),
        ("doble", "motor/b"),
        ("mitad", "b/c en t"),
        ("mitad", "b/c en u"),
    ]
    assert [s.statement for s in judged if s.key == "doble"] == [
        "tarda el doble que b (A)",
        "tarda el doble que b (C)",
    ]
    rng = np.random.default_rng(7)
    drift = np.exp(rng.normal(0, 0.5, 8))
    df = _rounds(2 * drift * rng.normal(1, 0.01, 8), drift * rng.normal(1, 0.01, 8))
    claims = figs.judge_all(judged, df, {})
    code = figs.judge_all(
        [said[0].but(figure=figs.Ratio(figs.Sel(engine="a", metric="t"), figs.Sel(engine="b", metric="t")))],
        df,
        {},
    )
    doble_a = claims[1]
    assert (doble_a.status, doble_a.estimate) == (code[0].status, code[0].estimate)
    assert doble_a.detail["engine"] == "a"
    # mitad: optional, so only engine a in metric t has arms; its figure is b / a, the inverse of doble's
    mitad = [c for c in claims if c.key == "mitad"]
    assert len(mitad) == 1 and mitad[0].value == pytest.approx(1 / doble_a.value, rel=1e-3)


@pytest.mark.parametrize(
    "change, words, claim",
    [
        (
            ('each = { engine = ["a", "c"] }', 'each = { engine = "a" }'),
            "each no es una tabla de listas",
            "doble",
        ),
        (
            ('quantity = "b/{engine}', 'key = "otra"\nquantity = "b/{engine}'),
            "campo desconocido en judged ['key']",
            "mitad",
        ),
        (
            ('quantity = "b/{engine}', 'color = 1\nquantity = "b/{engine}'),
            "campo desconocido en judged ['color']",
            "mitad",
        ),
        (('formula = "@over"', 'formula = "@NO_DEFINIDA"'), "claims.py no define 'NO_DEFINIDA'", "mitad"),
        (('formula = "@over"', 'formula = "over"'), "formula no nombra una función", "mitad"),
        (("optional = true", "optional = true, paso = 2"), "opción desconocida ['paso']", "mitad"),
        (('order = ["uno", ["doble", "mitad"]]', 'order = [["doble", "mitad"]]'), "faltan ['uno']", None),
        (('order = ["uno", ', 'order = ["uno", "otra", '), "no existen ['otra']", None),
        (('order = ["uno", ', 'order = ["uno", "uno", '), "repetidas ['uno']", None),
        (("order = [", "orden = 1\norder = ["), "campo desconocido en [judging] ['orden']", None),
        (
            ('each = { engine = ["a", "c"] }', 'each = { engine = ["a", "c", "a"] }'),
            "no se reparten en 3 turnos",
            None,
        ),
    ],
)
def test_a_malformed_each_judged_or_judging_names_the_file_and_the_claim(change, words, claim):
    old, new = change
    assert old in EACH
    with pytest.raises(declared.DeclarationError) as raised:
        declared.parse(
            declared.tomllib.loads(EACH.replace(old, new, 1)),
            {**{n: getattr(figs, n) for n in declared.SHARED}, **EACH_NAMES},
            "x.toml",
        )
    message = str(raised.value)
    assert message.startswith("x.toml") and words in message
    if claim:
        assert f"afirmación «{claim}»" in message


def test_without_each_or_judging_the_judged_are_the_declared_in_their_order():
    # a key declared again further down (another wording of doble_a) is judged where it is declared
    text = GOOD + '[[claim]]\nlike = "mitad"\nkey = "doble_a"\nvariants = [{ engine = "a" }]\n'
    parsed = declared.parse(
        declared.tomllib.loads(text), {**{n: getattr(figs, n) for n in declared.SHARED}, **NAMES}, "x.toml"
    )
    assert [s.key for s in parsed.said] == ["doble_a", "doble_c", "mitad", "doble_a"]
    assert parsed.judged == parsed.said
