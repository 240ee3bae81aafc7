"""Three ideas about LAUNCH, each judged per engine on its figure (a figures.Formula of rungs, each a
pandas Series indexed by round: every rung is measured in the same rounds, so each figure is computed
round by round and its interval is the paired one of helpers.stats):

- red_grande: the default network is at least a quarter of the `run` with it;
- runtime_pequeno: runc is at most a fifth of it;
- pool_creado, pool_en_marcha: a pool of created (`start -a`) or of running (`exec`) containers saves
  more than half of it (two claims: one judgement each per engine and page).

«Is Podman faster to start?» (the chapter's «fork-exec without a daemon» claim) is decided in notebook 01
(arranque, claim `podman_mas_rapido`); this experiment cites it (READS) and shows its own figure for the
engines' own parts (`run --network none` minus `runc run`) without a verdict of its own. The declarations
are in claims.toml (helpers/experiments/declared.py).
"""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from .. import declared
from ..figures import judge_all
from ..verdict import Claim, Said
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


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """Network, runtime and warm pool per engine, each paired by round."""
    return judge_all(JUDGED, df, meta, adapt=as_run)
