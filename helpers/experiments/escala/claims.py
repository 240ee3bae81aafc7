"""The chapter's claims on launching N containers and their memory, in its own terms: a figure at 20
containers at N = 20 (n: repetitions); launch times only with its default network, one at a time. «Is
Podman faster to start?» is decided in notebook 01 (arranque's podman_mas_rapido); 02 only cites it."""

from __future__ import annotations

import math
from functools import partial

import pandas as pd

from ... import engines as eng
from ..figures import Custom, judging, ran, ratio
from ..verdict import Claim, Said, judge, missing, not_comparable, ref
from .analysis import SEED_CROSSOVER, both, by_round, crossover, growth_note, launch_conditions, wide
from .per_n import fixed_ratio, ratio_at, seed_crossover, steadiness

CHAPTER_N = 20


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


def at_20_in_table(metric: str):
    """The chapter's table at N = 20 (seed000): Podman over Docker of `metric`."""
    return ref(source="seed000", metric=metric, engine="podman", variant="n=20", over={"engine": "docker"})


chapter = partial(Said, source="el capítulo original", unit="x")
DAEMON_TAX = "experimento 2, «Análisis», «El impuesto del daemon»"
AT_20 = "experimento 2, tabla «Comparación directa a 20 contenedores»"
FLAT = chapter(
    "cgroup_estable",
    "La memoria de cgroup por contenedor es estable con 1, 5, 10 o 20 contenedores",
    where="experimento 2, «Análisis», «Memoria cgroup»",
    claimed=1.0,
    kind="no_difference",
    moved_by_cpu=False,
)
SAID = (
    # «184 MB / 1.8 MB ≈ 102 contenedores»: dockerd alone against one conmon per container (RSS).
    chapter(
        "cruce_102",
        f"Con ~1.8 MB por conmon frente a ~184 MB fijos de dockerd, Podman gasta más memoria que Docker a partir de unos {SEED_CROSSOVER} contenedores",
        where=DAEMON_TAX,
        claimed=SEED_CROSSOVER,
        kind="about",
        moved_by_cpu=False,
        quantity="RSS de dockerd ÷ RSS de un conmon (la cuenta del capítulo, con tus datos)",
        unit="",
        note="La cuenta deja fuera containerd, el shim de cada contenedor de Docker y los cgroups: la factura completa que calcula el cuaderno 02 (con RSS y con PSS) es la corrección del curso.",
        figure=of_both(crossover_claim),
    ),
    # «20 contenedores: Launch time 5.52 s frente a 2.74 s, Podman 2x más rápido» (one launch after another)
    chapter(
        "lanzamiento_20",
        "Lanzar 20 contenedores uno tras otro: Podman 2x más rápido que Docker (2.74 s frente a 5.52 s)",
        where=AT_20,
        claimed=2.74 / 5.52,
        kind="about",
        ref=at_20_in_table("lanzamiento_total"),
        quantity="Podman/Docker del tiempo total de lanzar 20 contenedores uno tras otro",
        figure=at_20("lanzamiento_total", launch=True),
    ),
    # «Podman escala de forma más consistente (~130-190 ms/cont) … no hay cuello de botella central. Docker
    # varía más (220-350 ms/cont) por la serialización en el daemon.» A central bottleneck makes the cost
    # per container grow with N: judged by each engine's slope across N in each round, Podman's over Docker's.
    chapter(
        "escala_constante",
        "Sin daemon no hay cuello de botella central: Podman se mantiene en ~130-190 ms por contenedor y Docker varía más, 220-350 ms, por la serialización en el daemon",
        where="experimento 2, «Análisis», tabla «Tiempos de arranque — escalamiento lineal»",
        kind="reduces",
        quantity="el crecimiento del tiempo por contenedor de la N menor a la mayor (la pendiente de cada ronda), Podman ÷ Docker en la misma ronda",
        figure=of_both(steady_claim, launch=True),
    ),
    # «Docker carga un daemon que consume ~184 MB de RSS con 0 o con 20 contenedores: un costo fijo.»
    chapter(
        "daemon_fijo",
        "dockerd consume lo mismo con 0 que con 20 contenedores: un costo fijo",
        where=DAEMON_TAX,
        claimed=1.0,
        kind="no_difference",
        moved_by_cpu=False,
        quantity="RSS de dockerd con contenedores ÷ sin ninguno",
        figure=Custom(fixed_claim),
    ),
    # «Memoria/cont (cgroup): 437 KB frente a 97 KB, Podman 4.5x menos» (at 20 containers)
    chapter(
        "cgroup_4x",
        "Memoria de cgroup por contenedor: Podman usa 4.5x menos que Docker (97 frente a 437 KB)",
        where=AT_20,
        claimed=97 / 437,
        kind="about",
        moved_by_cpu=False,
        ref=at_20_in_table("memoria_cgroup_por_contenedor"),
        quantity="Podman/Docker de la memoria por contenedor (la vista de `stats`)",
        figure=at_20("memoria_stats_por_contenedor"),
    ),
    FLAT,
)
# Judged per engine the run measured (`flat_claim`), in this order.
FLAT_PER_ENGINE = tuple(
    FLAT.but(statement=f"{FLAT.statement} ({eng.DISPLAY[e]})", figure=Custom(flat_claim, e, when=ran(e)))
    for e in sorted(eng.DISPLAY)
)


claims = judging((*SAID[:-1], *FLAT_PER_ENGINE))
