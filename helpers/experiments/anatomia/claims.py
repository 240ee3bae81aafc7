"""Three ideas about LAUNCH (claims.toml), each judged per engine on a figures.Formula of rungs measured
in the same rounds, so paired by round; the pool is two claims (`pool_creado`, `pool_en_marcha`: one
judgement each). «Is Podman faster to start?» is notebook 01's `podman_mas_rapido` (READS), not judged here."""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from .. import declared
from ..figures import judging
from ..verdict import Said
from .rungs import RUNG_LABEL

SOURCE = "una idea muy repetida sobre el arranque"


def network_part(total, without):
    """The network's part of a `run` with it: (with − without) / with."""
    return (total - without) / total


def part(runc, total):
    """runc's part of a `run`: runc / run."""
    return runc / total


def saved(pool, total):
    """What a warm pool saves of a `run`: 1 − pool / run."""
    return 1 - pool / total


SAID, JUDGED = declared.read(__package__, globals())


def as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The engine (and rung) in the quantity: «Podman sin root» when the run says so."""
    detail = dict(said.figure.detail)
    info = ((meta or {}).get("engines") or {}).get(detail["engine"])
    rootless = isinstance(info, dict) and info.get("rootless")
    who = eng.DISPLAY[detail["engine"]] + (" sin root" if rootless else "")
    rung = [RUNG_LABEL[detail["variante"]]] if "variante" in detail else []
    return said.but(quantity=", ".join([said.quantity, who, *rung]))


claims = judging(JUDGED, adapt=as_run)
