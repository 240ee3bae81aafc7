"""The chapter's claims on startup, per image, judged on `run --rm` with the default network, arms paired
by round; the claimed figures come from its table «Medianas y multiplicadores» (TABLE). `podman_mas_rapido`
answers «is Podman faster to start?» for the whole course."""

from __future__ import annotations

from functools import partial

import pandas as pd

from ..figures import Computed, Ratio, Sel, judging
from ..verdict import Said, ref
from .analysis import iqr_ratio, setup_note, spread_note
from .measure import CONTAINER_VARIANT, METRIC

# The chapter's table «Medianas y multiplicadores» (ms): median, q1, q3 (a test ties them to its raw rows).
TABLE = {("docker", "ubuntu"): (427.6, 373.5, 460.4), ("docker", "alpine"): (429.8, 363.5, 451.2)}
TABLE |= {("podman", "ubuntu"): (212.7, 180.8, 265.2), ("podman", "alpine"): (193.3, 175.3, 230.9)}
ROLES = ("ubuntu", "alpine")
FACTOR = {"ubuntu": 2, "alpine": 2.2}  # «~2x más rápido», per image in its «Tabla resumen»


def ratio(a, b, what: str, **options) -> Ratio:
    """a / b of two (engine, role) arms; detail names the role (or engine) they share and the ratio."""
    a_sel, b_sel = (Sel(engine=e, role=r, variant=CONTAINER_VARIANT, metric=METRIC) for e, r in (a, b))
    shared = {"role": a[1]} if a[1] == b[1] else {"engine": a[0]}
    return Ratio(a_sel, b_sel, detail={**shared, "ratio": what}, **options)


def spread(engine: str, role: str) -> float:
    """IQR/median in the chapter's table."""
    median, q1, q3 = TABLE[(engine, role)]
    return (q3 - q1) / median


def median(engine: str, role: str) -> float:
    return TABLE[(engine, role)][0]


def podman_over_docker(role: str, **options):
    """The chapter's own row of seed000: Podman over Docker of launch with `role`."""
    return ref(
        source="seed000", metric="arranque", engine="podman", image=role, over={"engine": "docker"}, **options
    )


chapter = partial(Said, source="el capítulo original", where="experimento 1, «Análisis»", unit="x")
# «Sin daemon, fork-exec directo arranca antes» (the course's question, decided here under the chapter's
# conditions) and «Podman es ~2x más rápido que Docker en startup» (per image in its «Tabla resumen»: 2x, 2.2x).
FASTER = tuple(
    chapter(
        "podman_mas_rapido",
        "Sin daemon intermedio, con fork y exec directos, Podman da menos saltos que Docker (cliente, API REST, dockerd, containerd, runc) y arranca con menos sobrecarga",
        claimed=median("podman", role) / median("docker", role),
        kind="reduces",
        ref=podman_over_docker(role),
        quantity=f"Podman/Docker del arranque con «{role}» (red por defecto)",
        figure=ratio(("podman", role), ("docker", role), "podman_sobre_docker"),
    )
    for role in ROLES
)
PODMAN_2X = {
    role: faster.but(
        key="podman_2x",
        statement=f"Podman es ~2x más rápido que Docker en el arranque (con {role.capitalize()}: {FACTOR[role]}x)",
        where="experimento 1, «Análisis»; por imagen (2x, 2.2x), «Tabla resumen»",
        claimed=1 / FACTOR[role],
        kind="about",
        ref=podman_over_docker(role, rtol=0.02),
        quantity=f"Podman/Docker con «{role}» (red por defecto)",
        note="«~2x más rápido» es Podman/Docker ≈ 0.5×.",
    )
    for role, faster in zip(ROLES, FASTER)
}
# «Alpine vs Ubuntu: poca diferencia en Docker, algo en Podman» (~428 vs ~430 ms; ~213 vs ~193 ms)
ALPINE_UBUNTU = (
    chapter(
        "alpine_ubuntu",
        "Alpine frente a Ubuntu: poca diferencia en Docker",
        claimed=1.0,
        kind="no_difference",
        quantity="Ubuntu/Alpine en Docker",
        figure=ratio(("docker", "ubuntu"), ("docker", "alpine"), "ubuntu_sobre_alpine", optional=True),
    ),
    chapter(
        "alpine_ubuntu",
        "Alpine frente a Ubuntu: algo de diferencia en Podman (~213 frente a ~193 ms)",
        claimed=median("podman", "ubuntu") / median("podman", "alpine"),
        kind="adds",
        ref=ref(
            source="seed000", metric="arranque", engine="podman", image="ubuntu", over={"image": "alpine"}
        ),
        quantity="Ubuntu/Alpine en Podman",
        figure=ratio(("podman", "ubuntu"), ("podman", "alpine"), "ubuntu_sobre_alpine", optional=True),
    ),
)
# «La varianza alta de Podman (IQR más amplio que Docker) es típica de la arquitectura fork-exec: cada
# `podman run` pasa por el caché de fuse-overlayfs que puede estar frío o caliente.» Simulated with this
# claim's own figure (rounds_ci of relative IQRs, 1000 resamples) and the one rule, 200 runs per n,
# Podman's log-spread 1.5× Docker's: confirmed in 1 % at n = 6, 0 % at 10, 5.5 % at 20 and 20 % at 46.
WIDER_IQR = tuple(
    chapter(
        "podman_iqr_amplio",
        "Podman varía más que Docker al arrancar (IQR más amplio), por la caché de fuse-overlayfs",
        claimed=spread("podman", role) / spread("docker", role),
        kind="adds",
        quantity=f"IQR/mediana de Podman ÷ IQR/mediana de Docker con «{role}»",
        undecidable="Un cociente de dispersiones pide muchas más repeticiones que una mediana: aunque Podman variara de verdad 1.5 veces más que Docker, con 6 a 20 repeticiones esta cifra lo confirmaría como mucho un 6 % de las veces, y con 46, un 20 % (una simulación con la misma cifra y la misma regla). Se muestra la cifra, sin veredicto.",
        figure=Computed(iqr_ratio, role, detail={"role": role, "ratio": "iqr_relativo_podman_sobre_docker"}),
    )
    for role in ROLES
)
SAID = (*FASTER, *PODMAN_2X.values(), *ALPINE_UBUNTU, *WIDER_IQR)


def noted(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The run's own note (analysis.py words it): its setup, for the daemonless path; its spreads and
    storage beside the chapter's table, for the wider IQR."""
    if said.key == "podman_mas_rapido":
        return said.but(note=setup_note(meta))
    if said.key != "podman_iqr_amplio":
        return said
    role = dict(said.figure.detail)["role"]
    return said.but(note=spread_note(df, meta, role, {e: TABLE[(e, role)] for e in ("podman", "docker")}))


claims = judging(SAID, adapt=noted)
