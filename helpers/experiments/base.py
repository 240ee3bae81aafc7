"""TRANSITION ONLY: the old home of the contract, the run and the verdict rule. Everything now lives in
contract.py, runner.py, params.py and verdict.py; this module re-exports it for the experiments not yet
turned into packages, and goes away when the last one is."""

from __future__ import annotations

from .contract import CLOSING_COLUMNS  # noqa: F401
from .runner import (  # noqa: F401
    Arm,
    Log,
    Measure,
    Progress,
    Resultado,
    RunContext,
    arm_label,
    cleanup_run,
    engine_metadata,
    experiment_run,
    measure_rounds,
    no_progress,
    print_log,
    split_engines,
)
from .verdict import (  # noqa: F401
    COINCIDE,
    INESTABLE,
    NO_COINCIDE,
    NO_CONCLUYENTE,
    NO_SE_SOSTIENE,
    SE_CONFIRMA,
    SIN_DATOS,
    Claim,
    Said,
    agreement,
    decide,
    repetitions_to_decide,
)
from .verdict import judge as _judge
from .verdict import ratio as _ratio


def judge(
    key, statement, source, value, low, high, *, claimed, region, n=0, unit="", unstable=False, detail=None
) -> Claim:
    said = Said(key, statement, source, claimed=claimed, region=tuple(region), unit=unit)
    return _judge(said, value, low, high, n=n if n else 2, unstable=unstable, detail=detail)


def no_data(key, statement, source, detail=None) -> Claim:
    return Claim(key, statement, SIN_DATOS, detail=dict(detail or {}), source=source)


def ratio_claim(key, statement, source, numerator, denominator, *, claimed, region, detail=None) -> Claim:
    said = Said(key, statement, source, claimed=claimed, region=tuple(region))
    claim = _ratio(said, numerator, denominator, detail=detail)
    claim.unit = ""
    return claim
