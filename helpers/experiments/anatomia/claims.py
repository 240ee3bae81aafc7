"""Four ideas about LAUNCH, declared once and judged by the one rule (verdict.estimate: each figure is a
function of several rungs' medians, with its bootstrap interval; «inestable» when a rung's spread
dwarfs its median):

- api_daemon (the chapter's conclusion 3): Podman's fork-exec model, with no daemon, removes the
  bottleneck of Docker's API: Podman's own part of LAUNCH (its `run --network none` minus `runc run`)
  is at most half of Docker's;
- red_grande (per engine): the network is at least a quarter of the `run` with the default network;
- runtime_pequeno (per engine): runc is at most a fifth of it;
- pool (per engine and pool kind): a warm pool saves more than half of it.
"""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from ..verdict import Claim, Said, formula, missing
from .analysis import values
from .rungs import RUNG_LABEL

SEED = "el capítulo original"
COMMON = "idea extendida"

API_DAEMON = Said(
    "api_daemon",
    "El modelo fork-exec de Podman, sin daemon, elimina el cuello de botella central que es la API de Docker.",
    SEED,
    claimed=0.5,
    kind="at_most",
    quantity="la parte propia de Podman / la de Docker (su `run --network none` menos `runc run`)",
    unit="x",
    note="Aquí «elimina» quiere decir que la parte propia de Podman es como mucho la mitad de la de Docker.",
)
NETWORK_LARGE = Said(
    "red_grande",
    "Configurar la red virtual es una parte grande del arranque de un contenedor.",
    COMMON,
    claimed=25.0,
    kind="at_least",
    quantity="la parte de la red en el `run` con red por defecto",
    unit="%",
    note="Aquí «una parte grande» quiere decir al menos una cuarta parte.",
)
RUNTIME_SMALL = Said(
    "runtime_pequeno",
    "El runtime OCI (runc) es una parte pequeña del arranque.",
    COMMON,
    claimed=20.0,
    kind="at_most",
    quantity="`runc run` (con espacio de red) como parte del `run` con red por defecto",
    unit="%",
    note="Aquí «una parte pequeña» quiere decir como mucho una quinta parte.",
)
WARM_POOL = Said(
    "pool",
    "Un pool caliente, con contenedores preparados de antemano, elimina la mayor parte del arranque.",
    COMMON,
    claimed=50.0,
    kind="at_least",
    quantity="lo que ahorra el pool frente al `run` con red por defecto",
    unit="%",
    note="Aquí «la mayor parte» quiere decir más de la mitad.",
)
SAID = (API_DAEMON, NETWORK_LARGE, RUNTIME_SMALL, WARM_POOL)
NEEDS_FOR_API = "Faltan peldaños: runc con espacio de red y `run --network none` de Docker y de Podman."


def _judged(said: Said, fn, *samples, scale: float = 1.0, detail: dict | None = None) -> Claim:
    """The claim judged on fn(arms) × scale with its IC (verdict.formula)."""
    return formula(said, fn, *samples, scale=scale, detail=detail)


def _who(engine: str, meta: dict | None) -> str:
    """The engine as the claim names it: «Podman sin root» when the run says so."""
    info = ((meta or {}).get("engines") or {}).get(engine)
    rootless = isinstance(info, dict) and info.get("rootless")
    return eng.DISPLAY[engine] + (" sin root" if rootless else "")


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The seed's daemon bottleneck, then network, runtime and warm pool per engine."""
    runc = values(df, "bare", "runc_con_netns")
    docker_none, podman_none = values(df, "docker", "run_sin_red"), values(df, "podman", "run_sin_red")
    if runc.size and docker_none.size and podman_none.size:
        out = [_judged(API_DAEMON, lambda p, d, r: (p - r) / (d - r), podman_none, docker_none, runc)]
    else:
        out = [missing(API_DAEMON.but(note=NEEDS_FOR_API))]
    for engine in eng.CONTAINER_ENGINES:
        total, none = values(df, engine, "run_red"), values(df, engine, "run_sin_red")
        if not total.size:
            continue
        who = _who(engine, meta)
        if none.size:
            said = NETWORK_LARGE.but(where=who)
            out.append(
                _judged(said, lambda a, b: (a - b) / a, total, none, scale=100, detail={"engine": engine})
            )
        if runc.size:
            said = RUNTIME_SMALL.but(where=who)
            out.append(_judged(said, lambda r, t: r / t, runc, total, scale=100, detail={"engine": engine}))
        for variant in ("pool", "pool_exec"):
            pool = values(df, engine, variant)
            if pool.size:
                said = WARM_POOL.but(where=f"{who}, {RUNG_LABEL[variant]}")
                detail = {"engine": engine, "variante": variant}
                out.append(_judged(said, lambda p, t: 1 - p / t, pool, total, scale=100, detail=detail))
    return out
