"""Three ideas about LAUNCH, each judged per engine on its figure (a figures.Formula of rungs, each a
pandas Series indexed by round: every rung is measured in the same rounds, so each figure is computed
round by round and its interval is the paired one of helpers.stats):

- red_grande: the default network is at least a quarter of the `run` with it;
- runtime_pequeno: runc is at most a fifth of it;
- pool (per pool kind): a warm pool saves more than half of it.

«Is Podman faster to start?» (the chapter's «fork-exec without a daemon» claim) is decided in notebook 01
(arranque, claim `podman_mas_rapido`); this experiment cites it (READS) and shows its own figure for the
engines' own parts (`run --network none` minus `runc run`) without a verdict of its own. The declarations
are in claims.toml (helpers/experiments/declared.py).
"""

from __future__ import annotations

from functools import partial

import pandas as pd

from ... import engines as eng
from .. import declared
from ..figures import Formula, Sel, judge_all
from ..verdict import Claim, Said
from .rungs import METRIC, RUNG_LABEL

SOURCE = "una idea muy repetida sobre el arranque"
SAID = declared.read(__package__, globals()).said
NETWORK_LARGE, RUNTIME_SMALL, WARM_POOL = SAID


def judged(engine: str) -> tuple[Said, ...]:
    """The three ideas on one engine's rungs, in % (a rung this run did not measure: no claim)."""
    rung = partial(Sel, engine=engine, metric=METRIC)
    share = partial(Formula, scale=100, optional=True, detail={"engine": engine})
    total, runc = rung(variant="run_red"), Sel(engine="bare", variant="runc_con_netns", metric=METRIC)

    def pool(v: str) -> Formula:
        return share(lambda p, t: 1 - p / t, rung(variant=v), total, detail={"engine": engine, "variante": v})

    return (
        NETWORK_LARGE.but(figure=share(lambda a, b: (a - b) / a, total, rung(variant="run_sin_red"))),
        RUNTIME_SMALL.but(figure=share(lambda r, t: r / t, runc, total)),
        *(WARM_POOL.but(figure=pool(v)) for v in ("pool", "pool_exec")),
    )


def as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The engine (and rung) in the quantity: «Podman sin root» when the run says so."""
    detail = dict(said.figure.detail)
    info = ((meta or {}).get("engines") or {}).get(detail["engine"])
    rootless = isinstance(info, dict) and info.get("rootless")
    who = eng.DISPLAY[detail["engine"]] + (" sin root" if rootless else "")
    rung = [RUNG_LABEL[detail["variante"]]] if "variante" in detail else []
    return said.but(quantity=", ".join([said.quantity, who, *rung]))


JUDGED = tuple(said for engine in eng.CONTAINER_ENGINES for said in judged(engine))


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """Network, runtime and warm pool per engine, each paired by round."""
    return judge_all(JUDGED, df, meta, adapt=as_run)
