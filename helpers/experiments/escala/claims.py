"""The chapter's claims on launching N containers and their memory (claims.toml), in its own terms: a figure
at 20 containers at N = 20 (n: repetitions); launch times only with its default network, one at a time."""

from __future__ import annotations

import math

import pandas as pd

from ... import engines as eng
from .. import declared
from ..figures import Custom, judging, ratio
from ..verdict import Claim, Said, judge, missing, not_comparable
from .analysis import SEED_CROSSOVER, both, by_round, crossover, growth_note, launch_conditions, wide
from .per_n import fixed_ratio, ratio_at, seed_crossover, steadiness

CHAPTER_N = 20
# The claimed figures: Podman/Docker at N = 20 in the chapter's table (seed000), and its crossover.
CLAIMED = {"lanzamiento_20": 2.74 / 5.52, "cgroup_4x": 97 / 437, "cruce_102": SEED_CROSSOVER}


def of_both(build, launch: bool = False) -> Custom:
    """build(said, df) on a run with both engines («sin datos» without them); a launch figure only under
    the chapter's conditions, else «no comparable» (see launch_conditions), and judged on the bare
    declaration, as 09's table shows it."""

    def claim(said: Said, df: pd.DataFrame, meta: dict | None) -> Claim:
        why_not = launch_conditions(meta) if launch else None
        if not both(df) or why_not:
            return not_comparable(said, why_not) if both(df) else missing(said)
        return build(said.but(figure=None) if launch else said, df)

    return Custom(claim)


def at_20(metric: str, **options) -> Custom:
    """Podman/Docker of `metric` at N = 20, the chapter's table (see per_n.ratio_at)."""

    def build(said: Said, df: pd.DataFrame) -> Claim:
        figure = ratio_at(df, metric, CHAPTER_N)
        if figure.n == 0 or math.isnan(figure.value):
            return missing(said, {"n": CHAPTER_N, "falta_n": CHAPTER_N})
        return judge(said, figure, detail={"n": CHAPTER_N})

    return of_both(build, **options)


def crossover_claim(said: Said, df: pd.DataFrame) -> Claim:
    figure, detail = seed_crossover(df), {"rss": crossover(df, "rss"), "pss": crossover(df, "pss")}
    return judge(said, figure, detail=detail) if figure.n else missing(said, detail)


def steady_claim(said: Said, df: pd.DataFrame) -> Claim:
    figure, own = steadiness(df)
    if figure.n == 0:
        return missing(said)
    ns = sorted(int(n) for n in wide(df).query("n > 0")["n"].unique())
    detail = {"crecimiento": own, "n_menor": ns[0], "n_mayor": ns[-1]}
    return judge(said.but(note=growth_note(ns, own)), figure, detail=detail)


def fixed_claim(said: Said, df: pd.DataFrame, meta: dict | None) -> Claim:
    figure, top = fixed_ratio(df)
    if top:
        said = said.but(quantity=f"RSS de dockerd con {top} contenedores ÷ sin ninguno")
    return judge(said, figure, detail={"n_mayor": top}) if figure.n else missing(said, {"falta_n": 0})


def flat_claim(said: Said, df: pd.DataFrame, meta: dict | None, engine: str) -> Claim:
    """KB per container stays flat with N: largest N over smallest N, paired by round (every round
    launches each N of each engine, in its shuffled order)."""
    w = wide(df)
    ns = sorted(n for n in w[w["engine"] == engine]["n"].unique() if n > 0)
    detail = {"engine": engine, "ratio": "n_mayor_sobre_n_menor"}
    if len(ns) < 2:
        return missing(said, detail)
    detail.update(n_menor=int(ns[0]), n_mayor=int(ns[-1]))
    said = said.but(
        quantity=f"memoria por contenedor con N = {ns[-1]} frente a N = {ns[0]} ({eng.DISPLAY[engine]})"
    )
    per_n = [by_round(w, engine, "memoria_cgroup_por_contenedor", n) for n in (ns[-1], ns[0])]
    return ratio(said, *per_n, detail=detail)


ENGINES = sorted(eng.DISPLAY)  # every engine's, in this order (a claim per engine the run measured)
SAID, JUDGED = declared.read(__package__, globals())


claims = judging(JUDGED)
