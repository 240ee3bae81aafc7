"""The chapter's claims about launching N containers and their memory, declared once and judged by the
one rule (verdict builders)."""

from __future__ import annotations

import math

import pandas as pd

from ... import engines as eng
from ..verdict import Claim, Said, estimate, missing, ratio
from .analysis import SEED_CROSSOVER, crossover, crossover_interval, metric_values, wide

SOURCE = "el capítulo original"
WHERE = "experimento 2"
CGROUP_RATIO = 97 / 437  # «Podman 4.5x menos» (97 frente a 437 KB por contenedor)

CROSSOVER = {
    basis: Said(
        f"cruce_{basis}",
        f"A partir de unos {SEED_CROSSOVER} contenedores, Podman gasta más memoria que el daemon fijo de "
        f"Docker (contando {basis.upper()})",
        SOURCE,
        where=WHERE,
        claimed=SEED_CROSSOVER,
        kind="about",
        quantity=f"el N en que se cruzan las dos facturas completas de memoria ({basis.upper()})",
        unit="",
    )
    for basis in ("rss", "pss")
}
# Launch time per container, every N pooled: «Podman 2x más rápido» (5.52 s frente a 2.74 s con 20).
LAUNCH_2X = Said(
    "lanzamiento_2x",
    "Lanzar contenedores: Podman es 2x más rápido que Docker",
    SOURCE,
    where=WHERE,
    claimed=0.5,
    kind="about",
    quantity="Podman/Docker del tiempo de lanzamiento por contenedor",
    unit="x",
)
# cgroup memory per container, every N pooled, the way the chapter read it (stats' view).
CGROUP_4X = Said(
    "cgroup_4x",
    "Memoria de cgroup por contenedor: Podman usa 4.5x menos que Docker",
    SOURCE,
    where=WHERE,
    claimed=CGROUP_RATIO,
    kind="about",
    quantity="Podman/Docker de la memoria por contenedor (la vista de `stats`)",
    unit="x",
)
FLAT = Said(
    "cgroup_estable",
    "La memoria de cgroup por contenedor es estable con 1, 5, 10 o 20 contenedores",
    SOURCE,
    where=WHERE,
    claimed=1.0,
    kind="no_difference",
    unit="x",
)


CROSSOVER_REGION = CROSSOVER["rss"].region  # the margin of «a partir de ~100» (kind «about»)
SAID = (*CROSSOVER.values(), LAUNCH_2X, CGROUP_4X, FLAT)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The chapter's claims about launching N containers and their memory."""
    out = []
    w = wide(df)
    engines_present = set(df["engine"])
    both = {"docker", "podman"} <= engines_present
    for basis, said in CROSSOVER.items():
        value, low, high = crossover_interval(df, basis) if both else (float("nan"),) * 3
        if math.isnan(value):
            out.append(missing(said, {"basis": basis}))
            continue
        n_reps = int(w.groupby(["engine", "n"])["rep"].nunique().min())
        out.append(estimate(said, value, low, high, n=n_reps, detail=crossover(df, basis)))
    out.append(
        ratio(
            LAUNCH_2X,
            metric_values(w, "podman", "lanzamiento_por_contenedor"),
            metric_values(w, "docker", "lanzamiento_por_contenedor"),
            detail={"ratio": "podman_sobre_docker"},
        )
    )
    metric = "memoria_stats_por_contenedor"
    out.append(
        ratio(
            CGROUP_4X,
            metric_values(w, "podman", metric),
            metric_values(w, "docker", metric),
            detail={"ratio": "podman_sobre_docker"},
        )
    )
    # KB per container stays flat with N: largest N over smallest N.
    for engine_name in sorted(engines_present):
        ns = sorted(w[w["engine"] == engine_name]["n"].unique())
        said = FLAT.but(statement=f"{FLAT.statement} ({eng.DISPLAY[engine_name]})")
        detail = {"engine": engine_name, "ratio": "n_mayor_sobre_n_menor"}
        if len(ns) < 2:
            out.append(missing(said, detail))
            continue
        detail.update(n_menor=int(ns[0]), n_mayor=int(ns[-1]))
        said = said.but(
            quantity=f"memoria por contenedor con N = {ns[-1]} frente a N = {ns[0]} ({eng.DISPLAY[engine_name]})"
        )
        out.append(
            ratio(
                said,
                metric_values(w, engine_name, "memoria_cgroup_por_contenedor", ns[-1]),
                metric_values(w, engine_name, "memoria_cgroup_por_contenedor", ns[0]),
                detail=detail,
            )
        )
    return out
