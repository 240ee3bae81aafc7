"""Three ideas about LAUNCH, each judged per engine on a figures.Formula of rungs measured in the same
rounds, so paired by round, in % (a rung this run did not measure: no claim), engine by engine; the pool is
two claims (`pool_creado`, `pool_en_marcha`: one judgement each). «Is Podman faster to start?» is notebook
01's `podman_mas_rapido` (READS), not judged here."""

from __future__ import annotations

from functools import partial

import pandas as pd

from ... import engines as eng
from ..figures import Formula, Sel, judging
from ..verdict import Said
from .rungs import METRIC, RUNG_LABEL

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


def rung(engine: str, variant: str) -> Sel:
    return Sel(engine=engine, variant=variant, metric=METRIC)


idea = partial(
    Said, source=SOURCE, where="sin fuente escrita: el curso la formula para ponerla a prueba", unit="%"
)
NETWORK = idea(
    "red_grande",
    "Configurar la red virtual es una parte grande del arranque de un contenedor.",
    claimed=25.0,
    kind="at_least",
    quantity="la parte de la red (crearla y deshacerla) en el `run` con red por defecto",
    note="Aquí «una parte grande» quiere decir al menos una cuarta parte.",
)
RUNTIME = idea(
    "runtime_pequeno",
    "El runtime OCI (runc) es una parte pequeña del arranque.",
    claimed=20.0,
    kind="at_most",
    quantity="`runc run` (con espacio de red) como parte del `run` con red por defecto",
    note="Aquí «una parte pequeña» quiere decir como mucho una quinta parte.",
)
POOL = {
    "pool": "Un pool de contenedores ya creados, que solo falta arrancar (`start -a`), elimina la mayor parte del arranque.",
    "pool_exec": "Un pool de contenedores ya en marcha, en los que se entra con `exec`, elimina la mayor parte del arranque.",
}
POOLS = {
    variant: idea(
        key,
        POOL[variant],
        claimed=50.0,
        kind="at_least",
        quantity="lo que ahorra el pool frente al `run` con red por defecto",
        note="Aquí «la mayor parte» quiere decir más de la mitad.",
    )
    for key, variant in (("pool_creado", "pool"), ("pool_en_marcha", "pool_exec"))
}
SAID = (NETWORK, RUNTIME, *POOLS.values())


def judged(engine: str) -> tuple[Said, ...]:
    """The four ideas judged on one engine's rungs (no claim for a rung the run did not measure)."""
    run = rung(engine, "run_red")
    on = partial(Formula, scale=100, optional=True, detail={"engine": engine})
    return (
        NETWORK.but(figure=on(network_part, run, rung(engine, "run_sin_red"))),
        RUNTIME.but(figure=on(part, rung("bare", "runc_con_netns"), run)),
        *(
            said.but(figure=on(saved, rung(engine, v), run, detail={"engine": engine, "variante": v}))
            for v, said in POOLS.items()
        ),
    )


def as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The engine (and rung) in the quantity: «Podman sin root» when the run says so."""
    detail = dict(said.figure.detail)
    info = ((meta or {}).get("engines") or {}).get(detail["engine"])
    rootless = isinstance(info, dict) and info.get("rootless")
    who = eng.DISPLAY[detail["engine"]] + (" sin root" if rootless else "")
    rung_label = [RUNG_LABEL[detail["variante"]]] if "variante" in detail else []
    return said.but(quantity=", ".join([said.quantity, who, *rung_label]))


claims = judging([s for engine in eng.CONTAINER_ENGINES for s in judged(engine)], adapt=as_run)
