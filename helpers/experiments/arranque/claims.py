"""The chapter's claims on startup, judged on containers launched its way (`run --rm`, default network),
each arm a Series by round: the arms are measured round-robin, so every figure is paired by round.
`podman_mas_rapido` is the course's answer to «is Podman faster to start?», cited elsewhere through
`experiments.read_claim`. Ratios keep the notebook's direction: Podman/Docker and Ubuntu/Alpine."""

from __future__ import annotations

from functools import partial

import pandas as pd

from ..figures import Computed, Ratio, Sel, judge_all
from ..verdict import Claim, Said, ref
from .analysis import arm_series, iqr_ratio, relative_iqr
from .measure import CONTAINER_VARIANT, METRIC

# The chapter's table «Medianas y multiplicadores» (ms): median, q1, q3 (a test ties them to its raw rows).
TABLE = {("docker", "ubuntu"): (427.6, 373.5, 460.4), ("docker", "alpine"): (429.8, 363.5, 451.2)}
TABLE |= {("podman", "ubuntu"): (212.7, 180.8, 265.2), ("podman", "alpine"): (193.3, 175.3, 230.9)}
chapter = partial(Said, source="el capítulo original", where="experimento 1, «Análisis»", unit="x")
seed = partial(ref, source="seed000", metric="arranque")


def ratio(a: tuple, b: tuple, what: str, **options) -> Ratio:
    """a / b of two (engine, role) arms; detail names the role (or engine) they share and the ratio."""
    a_sel, b_sel = (Sel(engine=e, role=r, variant=CONTAINER_VARIANT, metric=METRIC) for e, r in (a, b))
    shared = {"role": a[1]} if a[1] == b[1] else {"engine": a[0]}
    return Ratio(a_sel, b_sel, detail={**shared, "ratio": what}, **options)


def spread(engine: str, role: str) -> float:
    """IQR/median in the chapter's table."""
    median, q1, q3 = TABLE[(engine, role)]
    return (q3 - q1) / median


def podman_docker(role: str, factor: float) -> tuple[Said, Said]:
    """With one image: «fork-exec without a daemon starts faster» (the course's question, decided here
    under the chapter's conditions) and «Podman es ~2x más rápido que Docker en startup» (per image in
    its «Tabla resumen»: 2x, 2.2x)."""
    figure = ratio(("podman", role), ("docker", role), "podman_sobre_docker")
    over_docker = partial(seed, engine="podman", image=role, over={"engine": "docker"})
    faster = chapter(
        "podman_mas_rapido",
        "Sin daemon intermedio, con fork y exec directos, Podman da menos saltos que Docker (cliente, API "
        "REST, dockerd, containerd, runc) y arranca con menos sobrecarga",
        claimed=TABLE[("podman", role)][0] / TABLE[("docker", role)][0],
        kind="reduces",
        ref=over_docker(),
        quantity=f"Podman/Docker del arranque con «{role}» (red por defecto)",
        figure=figure,
    )
    return faster, faster.but(
        key="podman_2x",
        statement=f"Podman es ~2x más rápido que Docker en el arranque (con {role.title()}: {factor}x)",
        where="experimento 1, «Análisis»; por imagen (2x, 2.2x), «Tabla resumen»",
        claimed=1 / factor,
        kind="about",
        ref=over_docker(rtol=0.02),
        quantity=f"Podman/Docker con «{role}» (red por defecto)",
        note="«~2x más rápido» es Podman/Docker ≈ 0.5×.",
    )


FASTER, TWICE = zip(podman_docker("ubuntu", 2), podman_docker("alpine", 2.2))
PODMAN_2X = dict(zip(("ubuntu", "alpine"), TWICE))
# «Alpine vs Ubuntu: poca diferencia en Docker, algo en Podman» (~428 vs ~430 ms; ~213 vs ~193 ms)
ALPINE_UBUNTU = tuple(
    chapter(
        "alpine_ubuntu",
        f"Alpine frente a Ubuntu: {words}",
        claimed=TABLE[(engine, "ubuntu")][0] / TABLE[(engine, "alpine")][0] if on_ref else 1.0,
        kind="adds" if on_ref else "no_difference",
        ref=seed(engine=engine, image="ubuntu", over={"image": "alpine"}) if on_ref else None,
        quantity=f"Ubuntu/Alpine en {engine.capitalize()}",
        figure=ratio((engine, "ubuntu"), (engine, "alpine"), "ubuntu_sobre_alpine", optional=True),
    )
    for engine, on_ref, words in (
        ("docker", False, "poca diferencia en Docker"),
        ("podman", True, "algo de diferencia en Podman (~213 frente a ~193 ms)"),
    )
)
# «La varianza alta de Podman (IQR más amplio que Docker) es típica de la arquitectura fork-exec: cada
# `podman run` pasa por el caché de fuse-overlayfs que puede estar frío o caliente.»
# Simulated with this claim's own figure (rounds_ci of relative IQRs, 1000 resamples) and the one rule,
# 200 runs per n, Podman's log-spread 1.5× Docker's: confirmed in 1 % at n = 6, 0 % at 10, 5.5 % at 20
# and 20 % at 46.
IQR_UNDECIDABLE = (
    "Un cociente de dispersiones pide muchas más repeticiones que una mediana: aunque Podman variara "
    "de verdad 1.5 veces más que Docker, con 6 a 20 repeticiones esta cifra lo confirmaría como mucho "
    "un 6 % de las veces, y con 46, un 20 % (una simulación con la misma cifra y la misma regla). Se "
    "muestra la cifra, sin veredicto."
)
WIDER_IQR = tuple(
    chapter(
        "podman_iqr_amplio",
        "Podman varía más que Docker al arrancar (IQR más amplio), por la caché de fuse-overlayfs",
        claimed=spread("podman", role) / spread("docker", role),
        kind="adds",
        quantity=f"IQR/mediana de Podman ÷ IQR/mediana de Docker con «{role}»",
        undecidable=IQR_UNDECIDABLE,
        figure=Computed(
            partial(iqr_ratio, role=role), detail={"role": role, "ratio": "iqr_relativo_podman_sobre_docker"}
        ),
    )
    for role in ("ubuntu", "alpine")
)
SAID = (*FASTER, *TWICE, *ALPINE_UBUNTU, *WIDER_IQR)


def noted(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The run's own note: its setup, for the daemonless path; its spreads and storage, for the wider IQR."""
    engines = (meta or {}).get("engines") or {}
    podman, docker = engines.get("podman") or {}, engines.get("docker") or {}
    if said.key == "podman_mas_rapido":
        return said.but(note=setup(podman, docker) if podman or docker else "")
    if said.key != "podman_iqr_amplio":
        return said
    role = dict(said.figure.detail)["role"]
    here = [arm_series(df, meta, (e, role)) for e in ("podman", "docker")]
    note = (
        ""
        if min(map(len, here)) < 2
        else "IQR/mediana aquí: Podman {:.3f} y Docker {:.3f} ".format(
            *(relative_iqr(s.to_numpy()) for s in here)
        )
        + f"(en el capítulo, {spread('podman', role):.3f} y {spread('docker', role):.3f}). "
    )
    iqr = [TABLE[(e, role)][2] - TABLE[(e, role)][1] for e in ("podman", "docker")]
    note += (
        f"En la tabla del capítulo el IQR absoluto de Podman no es mayor ({iqr[0]:.0f} frente a {iqr[1]:.0f} "
        f"ms con «{role}»); relativo a la mediana sí, y esa es la lectura que se juzga."
    )
    storage = podman.get("storage") or podman.get("storage_driver")
    if storage:
        note += f" Tu Podman guarda las capas con «{storage}»" + (
            ": la causa que da el capítulo está presente."
            if "fuse" in str(storage).lower()
            else ", sin fuse-overlayfs: la causa que da el capítulo no está en esta máquina."
        )
    return said.but(note=note)


def setup(podman: dict, docker: dict) -> str:
    """What our setup has that the chapter's did not say, for the claim on the daemonless path."""
    return (
        f"Aquí: Docker {docker.get('server_version', '?')} y Podman {podman.get('server_version', '?')}, "
        f"los dos con {podman.get('runtime') or docker.get('runtime') or '?'}; la red de Podman la arma "
        f"{podman.get('network_backend', '?')}. `podman run` no es un solo fork-exec: lanza conmon, que "
        "lanza el runtime, y prepara la red; el cuaderno 04 mide cada paso. El capítulo usó Docker 28.4.0 "
        "y Podman 4.6.2."
    )


def claims(df: pd.DataFrame, meta: dict | None) -> list[Claim]:
    """The chapter's claims on startup, per image and per engine (default network only)."""
    return judge_all(SAID, df, meta, adapt=noted)
