"""Every experiment's claims, declared in Python (its claims.py, `verdict.Said` objects): each with its
key, statement and source; declarations that share a key told apart by what they judge (a page or 09
picks each by key and detail); a region that is the margin its kind gives; every claim a run judges
declared in its SAID; and no declaration read from a data file or reached by name."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from helpers import PROJECT_ROOT, experiments, results, sources
from helpers.experiments import verdict
from helpers.experiments.verdict import Said

DECLARED = sources.declared()
EXPERIMENTS = experiments.all_experiments()


def test_every_declaration_is_a_said_with_its_key_statement_and_source():
    assert len(DECLARED) > len(EXPERIMENTS)
    for module, said in DECLARED:
        where = f"{module.EXPERIMENT}/{said.key}"
        assert isinstance(said, Said), where
        assert re.fullmatch(r"[a-z0-9_]+", said.key), where
        assert said.statement.strip() and said.source.strip(), where
        assert isinstance(said.claimed, (int, float)) and not isinstance(said.claimed, bool), where


@pytest.mark.parametrize("module", EXPERIMENTS, ids=lambda m: m.EXPERIMENT)
def test_declarations_that_share_a_key_are_told_apart_by_what_they_judge(module):
    seen = set()
    for said in module.SAID:
        figure = said.figure
        detail = figure.detail if figure is not None and not callable(figure.detail) else ()
        told = (said.key, tuple(detail), said.ref.select if said.ref is not None else ())
        assert told not in seen, f"{module.EXPERIMENT}: «{said.key}» se declara dos veces igual"
        seen.add(told)


def test_a_declared_region_is_the_margin_of_its_kind():
    for module, said in DECLARED:
        if said.kind:
            margin = verdict.margin(said.kind, said.claimed, said.unit, said.bounds)
            assert said.region == margin, f"{module.EXPERIMENT}/{said.key}"
    with pytest.raises(ValueError, match="contradicts"):
        Said("k", "A tarda el doble que B", "una fuente", claimed=2.0, kind="about", region=(0.0, 1.0))


def test_every_claim_a_run_judges_is_declared():
    """On a run without rows, every key judged is one SAID declares."""
    judged = 0
    for module in EXPERIMENTS:
        claims = module.claims(pd.DataFrame(columns=results.COLUMNS), None)
        assert {c.key for c in claims} <= {s.key for s in module.SAID}, module.EXPERIMENT
        judged += len(claims)
    assert judged > len(EXPERIMENTS)


def test_no_declaration_is_read_from_a_data_file_or_reached_by_name():
    folder = PROJECT_ROOT / "helpers" / "experiments"
    assert not [p for p in folder.rglob("*") if p.suffix in (".toml", ".json", ".yaml", ".yml")]
    for path in sorted(folder.glob("*/claims.py")):
        text = path.read_text(encoding="utf-8")
        assert "importlib" not in text and "getattr(" not in text, path
