"""The chapter's claims about launching N containers and their memory, declared once, each judged on its
figure by the one rule (figures.judge_all) in the chapter's own terms: a figure at 20 containers is judged
at N = 20, with n counting repetitions; launch times only under the chapter's conditions (default network,
one launch after another). «Is Podman faster to start?» is decided in notebook 01
(arranque.podman_mas_rapido); this notebook cites it (view.escala.respuesta_de_01)."""

from __future__ import annotations

import math

import pandas as pd

from ... import engines as eng
from ...stats import Estimate
from ..figures import Custom, judge_all, ratio
from ..verdict import Claim, Said, judge, missing, not_comparable, ref
from .analysis import SEED_CROSSOVER, by_round, crossover, wide
from .per_n import fixed_ratio, ratio_at, seed_crossover, steadiness
from .probing import NETWORKS

SOURCE = "el capítulo original"
WHERE = "experimento 2"
WHERE_TABLE_20 = "experimento 2, tabla «Comparación directa a 20 contenedores»"
WHERE_SCALING = "experimento 2, «Análisis», tabla «Tiempos de arranque — escalamiento lineal»"
WHERE_DAEMON = "experimento 2, «Análisis», «El impuesto del daemon»"
WHERE_CGROUP = "experimento 2, «Análisis», «Memoria cgroup»"
CHAPTER_N = 20
CGROUP_RATIO = 97 / 437  # «Podman 4.5x menos» (97 frente a 437 KB por contenedor)

# «184 MB / 1.8 MB ≈ 102 contenedores»: dockerd alone against one conmon per container (RSS).
CROSSOVER = Said(
    "cruce_102",
    f"Con ~1.8 MB por conmon frente a ~184 MB fijos de dockerd, Podman gasta más memoria que Docker a "
    f"partir de unos {SEED_CROSSOVER} contenedores",
    SOURCE,
    where=WHERE_DAEMON,
    claimed=SEED_CROSSOVER,
    kind="about",
    quantity="RSS de dockerd ÷ RSS de un conmon (la cuenta del capítulo, con tus datos)",
    unit="",
    note="La cuenta deja fuera containerd, el shim de cada contenedor de Docker y los cgroups: la factura "
    "completa que calcula el cuaderno 02 (con RSS y con PSS) es la corrección del curso.",
)
# «20 contenedores: Launch time 5.52 s frente a 2.74 s, Podman 2x más rápido» (one launch after another)
LAUNCH_20 = Said(
    "lanzamiento_20",
    "Lanzar 20 contenedores uno tras otro: Podman 2x más rápido que Docker (2.74 s frente a 5.52 s)",
    SOURCE,
    where=WHERE_TABLE_20,
    claimed=2.74 / 5.52,
    kind="about",
    ref=ref(
        source="seed000",
        metric="lanzamiento_total",
        engine="podman",
        variant="n=20",
        over={"engine": "docker"},
    ),
    quantity="Podman/Docker del tiempo total de lanzar 20 contenedores uno tras otro",
    unit="x",
)
# «Podman escala de forma más consistente (~130-190 ms/cont) … no hay cuello de botella central. Docker
# varía más (220-350 ms/cont) por la serialización en el daemon.»
STEADY = Said(
    "escala_constante",
    "Sin daemon no hay cuello de botella central: Podman se mantiene en ~130-190 ms por contenedor y "
    "Docker varía más, 220-350 ms, por la serialización en el daemon",
    SOURCE,
    where=WHERE_SCALING,
    claimed=(190 - 130) / (350 - 220),
    kind="reduces",
    quantity="el rango de ms por contenedor entre las N de Podman ÷ el de Docker",
    unit="x",
)
# «Docker carga un daemon que consume ~184 MB de RSS con 0 o con 20 contenedores: un costo fijo.»
DAEMON_FIXED = Said(
    "daemon_fijo",
    "dockerd consume lo mismo con 0 que con 20 contenedores: un costo fijo",
    SOURCE,
    where=WHERE_DAEMON,
    claimed=1.0,
    kind="no_difference",
    quantity="RSS de dockerd con contenedores ÷ sin ninguno",
    unit="x",
)
# «Memoria/cont (cgroup): 437 KB frente a 97 KB, Podman 4.5x menos» (at 20 containers)
CGROUP_4X = Said(
    "cgroup_4x",
    "Memoria de cgroup por contenedor: Podman usa 4.5x menos que Docker (97 frente a 437 KB)",
    SOURCE,
    where=WHERE_TABLE_20,
    claimed=CGROUP_RATIO,
    kind="about",
    ref=ref(
        source="seed000",
        metric="memoria_cgroup_por_contenedor",
        engine="podman",
        variant="n=20",
        over={"engine": "docker"},
    ),
    quantity="Podman/Docker de la memoria por contenedor (la vista de `stats`)",
    unit="x",
)
FLAT = Said(
    "cgroup_estable",
    "La memoria de cgroup por contenedor es estable con 1, 5, 10 o 20 contenedores",
    SOURCE,
    where=WHERE_CGROUP,
    claimed=1.0,
    kind="no_difference",
    unit="x",
)
CROSSOVER_REGION = CROSSOVER.region  # the margin of «a partir de unos 102» (kind «about»)
SAID = (CROSSOVER, LAUNCH_20, STEADY, DAEMON_FIXED, CGROUP_4X, FLAT)


def on_default_network(meta: dict | None) -> bool:
    """Whether this run launched its containers on the engine's default network (a bridge), as the
    chapter did; runs from before the option was recorded say it in their parameters."""
    params = (meta or {}).get("parameters") or {}
    return (meta or {}).get("launch_network", params.get("red", "sin_red")) == NETWORKS[0]


def launch_conditions(meta: dict | None) -> str | None:
    """Why this run's launch times cannot test the chapter's (None when they can): the chapter's script
    launched one container after another with the default network."""
    params = (meta or {}).get("parameters") or {}
    if not on_default_network(meta):
        return (
            "Esta corrida lanzó sin red (`--network none`, variante del curso) y el capítulo con la red por "
            "defecto: sus tiempos se muestran, pero no juzgan esta afirmación."
        )
    if int(params.get("concurrencia", 1) or 1) > 1:
        return (
            "Esta corrida lanzó varios contenedores a la vez y el capítulo uno tras otro: sus tiempos se "
            "muestran, pero no juzgan esta afirmación."
        )
    return None


def _both(df: pd.DataFrame) -> bool:
    return {"docker", "podman"} <= (set(df["engine"]) if len(df) else set())


def _at_n(said: Said, df: pd.DataFrame, metric: str, n: int, detail: dict) -> Claim:
    figure = ratio_at(df, metric, n)
    if figure.n == 0 or math.isnan(figure.value):
        return missing(said, {**detail, "falta_n": n})
    return judge(said, figure, detail=detail)


def _launched(build):
    """A launch claim: judged only under the chapter's conditions (see launch_conditions)."""

    def claim(said: Said, df: pd.DataFrame, meta: dict | None) -> Claim:
        why_not = launch_conditions(meta)
        return missing(said) if not _both(df) else not_comparable(said, why_not) if why_not else build(df)

    return Custom(claim)


def _crossover(said: Said, df: pd.DataFrame, meta: dict | None) -> Claim:
    figure = seed_crossover(df) if _both(df) else Estimate.missing()
    detail = {"rss": crossover(df, "rss"), "pss": crossover(df, "pss")} if _both(df) else {}
    return judge(said, figure, detail=detail) if figure.n else missing(said, detail)


def _fixed(said: Said, df: pd.DataFrame, meta: dict | None) -> Claim:
    figure, top = fixed_ratio(df)
    if top:
        said = said.but(quantity=f"RSS de dockerd con {top} contenedores ÷ sin ninguno")
    return judge(said, figure, detail={"n_mayor": top}) if figure.n else missing(said, {"falta_n": 0})


def _flat(said: Said, df: pd.DataFrame, engine_name: str) -> Claim:
    """KB per container stays flat with N: largest N over smallest N, paired by round (every round
    launches each N of each engine, in its shuffled order)."""
    w = wide(df)
    ns = sorted(n for n in w[w["engine"] == engine_name]["n"].unique() if n > 0)
    detail = {"engine": engine_name, "ratio": "n_mayor_sobre_n_menor"}
    if len(ns) < 2:
        return missing(said, detail)
    detail.update(n_menor=int(ns[0]), n_mayor=int(ns[-1]))
    name = eng.DISPLAY[engine_name]
    said = said.but(quantity=f"memoria por contenedor con N = {ns[-1]} frente a N = {ns[0]} ({name})")
    per_n = [by_round(w, engine_name, "memoria_cgroup_por_contenedor", n) for n in (ns[-1], ns[0])]
    return ratio(said, *per_n, detail=detail)


def _flat_said(engine_name: str) -> Said:
    return FLAT.but(
        statement=f"{FLAT.statement} ({eng.DISPLAY[engine_name]})",
        figure=Custom(
            lambda said, df, meta: _flat(said, df, engine_name),
            when=lambda df, meta: len(df) > 0 and engine_name in set(df["engine"]),
        ),
    )


AT_20 = {"n": CHAPTER_N}
JUDGED = (
    CROSSOVER.but(figure=Custom(_crossover)),
    LAUNCH_20.but(figure=_launched(lambda df: _at_n(LAUNCH_20, df, "lanzamiento_total", CHAPTER_N, AT_20))),
    STEADY.but(figure=_launched(lambda df: _steady(df))),
    DAEMON_FIXED.but(figure=Custom(_fixed)),
    CGROUP_4X.but(
        figure=Custom(
            lambda said, df, meta: (
                _at_n(said, df, "memoria_stats_por_contenedor", CHAPTER_N, AT_20)
                if _both(df)
                else missing(said)
            )
        )
    ),
    *(_flat_said(engine_name) for engine_name in sorted(eng.DISPLAY)),
)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    """The chapter's claims about launching N containers and their memory."""
    return judge_all(JUDGED, df, meta)


def _steady(df: pd.DataFrame) -> Claim:
    figure, ranges = steadiness(df)
    if figure.n == 0:
        return missing(STEADY)
    ns = sorted(int(n) for n in wide(df).query("n > 0")["n"].unique())
    here = "; ".join(
        f"{eng.DISPLAY[e]} de {lo:.0f} a {hi:.0f} ms" for e, (lo, hi) in sorted(ranges.items(), reverse=True)
    )
    note = (
        f"Tus medianas por contenedor con N = {', '.join(map(str, ns))}: {here} (la tabla del capítulo: "
        "Podman de 123 a 190 ms y Docker de 220 a 350 ms, con N = 1, 5, 10 y 20)."
    )
    if len(ns) == 2:
        note += " Con solo dos N, cada rango es la diferencia entre ellas: añade 5 y 10 a CANTIDADES."
    said = STEADY.but(note=note)
    return judge(said, figure, detail={"rangos_ms": ranges})
