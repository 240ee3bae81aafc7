"""Three ideas about LAUNCH, declared once with their figure (a figures.Formula of rungs, each a
pandas Series indexed by round: every rung is measured in the same rounds, so each figure is computed
round by round and its interval is the paired one of helpers.stats):

- red_grande (per engine): the default network is at least a quarter of the `run` with it;
- runtime_pequeno (per engine): runc is at most a fifth of it;
- pool (per engine and pool kind): a warm pool saves more than half of it.

«Is Podman faster to start?» (the chapter's «fork-exec without a daemon» claim) is decided in notebook 01
(arranque, claim `podman_mas_rapido`); this experiment cites it (READS) and shows its own figure for the
engines' own parts (`run --network none` minus `runc run`) without a verdict of its own.
"""

from __future__ import annotations

import pandas as pd

from ... import engines as eng
from ..figures import Formula, Sel, judge_all
from ..verdict import Claim, Said
from .rungs import METRIC, RUNG_LABEL

SOURCE = "una idea muy repetida sobre el arranque"
WHERE = "sin fuente escrita: el curso la formula para ponerla a prueba"
ANSWER_OF_01 = ("arranque", "podman_mas_rapido")  # where «is Podman faster to start?» is decided

NETWORK_LARGE = Said(
    "red_grande",
    "Configurar la red virtual es una parte grande del arranque de un contenedor.",
    SOURCE,
    where=WHERE,
    claimed=25.0,
    kind="at_least",
    quantity="la parte de la red (crearla y deshacerla) en el `run` con red por defecto",
    unit="%",
    note="Aquí «una parte grande» quiere decir al menos una cuarta parte.",
)
RUNTIME_SMALL = Said(
    "runtime_pequeno",
    "El runtime OCI (runc) es una parte pequeña del arranque.",
    SOURCE,
    where=WHERE,
    claimed=20.0,
    kind="at_most",
    quantity="`runc run` (con espacio de red) como parte del `run` con red por defecto",
    unit="%",
    note="Aquí «una parte pequeña» quiere decir como mucho una quinta parte.",
)
WARM_POOL = Said(
    "pool",
    "Un pool caliente, con contenedores preparados de antemano, elimina la mayor parte del arranque.",
    SOURCE,
    where=WHERE,
    claimed=50.0,
    kind="at_least",
    quantity="lo que ahorra el pool frente al `run` con red por defecto",
    unit="%",
    note="Aquí «la mayor parte» quiere decir más de la mitad.",
)
SAID = (NETWORK_LARGE, RUNTIME_SMALL, WARM_POOL)


def _rung(engine: str, variant: str) -> Sel:
    return Sel(engine=engine, variant=variant, metric=METRIC)


def _judged(engine: str) -> tuple[Said, ...]:
    """The three ideas on one engine's rungs (a rung this run did not measure: no claim)."""
    total, per = _rung(engine, "run_red"), {"scale": 100, "optional": True}
    none, runc = _rung(engine, "run_sin_red"), _rung("bare", "runc_con_netns")
    pools = {v: (_rung(engine, v), {"engine": engine, "variante": v}) for v in ("pool", "pool_exec")}
    return (
        NETWORK_LARGE.but(
            figure=Formula(lambda a, b: (a - b) / a, total, none, detail={"engine": engine}, **per)
        ),
        RUNTIME_SMALL.but(figure=Formula(lambda r, t: r / t, runc, total, detail={"engine": engine}, **per)),
        *(
            WARM_POOL.but(figure=Formula(lambda p, t: 1 - p / t, pool, total, detail=d, **per))
            for pool, d in pools.values()
        ),
    )


JUDGED = tuple(said for engine in eng.CONTAINER_ENGINES for said in _judged(engine))


def _who(engine: str, meta: dict | None) -> str:
    """The engine as the claim names it: «Podman sin root» when the run says so."""
    info = ((meta or {}).get("engines") or {}).get(engine)
    rootless = isinstance(info, dict) and info.get("rootless")
    return eng.DISPLAY[engine] + (" sin root" if rootless else "")


def _as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    detail = dict(said.figure.detail)
    rung = [RUNG_LABEL[detail["variante"]]] if "variante" in detail else []
    return said.but(quantity=", ".join([said.quantity, _who(detail["engine"], meta), *rung]))


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """Network, runtime and warm pool per engine, each paired by round."""
    return judge_all(JUDGED, df, meta, adapt=_as_run)
