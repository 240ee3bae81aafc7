"""The chapter's claims on startup, declared once, judged on its figure by the one rule (verdict.judge_all), always on
the containers launched the chapter's way (`run --rm`, default network), each arm a pandas Series indexed by round: the arms
are measured round-robin, so every figure is paired by round (stats). Notebook 01 is where the
course decides «is Podman faster to start?» (`podman_mas_rapido`); other notebooks cite that claim
through `experiments.read_claim`. Ratios keep the direction of the notebook's tables: Podman/Docker
and Ubuntu/Alpine."""

from __future__ import annotations

import pandas as pd

from ..verdict import Claim, Computed, Ratio, Said, Sel, judge_all, ref
from .analysis import arm_series, iqr_ratio, relative_iqr
from .measure import CONTAINER_VARIANT, METRIC

SOURCE = "el capítulo original"
WHERE = "experimento 1, «Análisis»"
# «~2x» opens the «Análisis»; the per-image factors (2x, 2.2x) are in the chapter's «Tabla resumen»
WHERE_2X = "experimento 1, «Análisis»; por imagen (2x, 2.2x), «Tabla resumen»"

# The chapter's medians (ms) and IQRs, from its table «Medianas y multiplicadores».
CHAPTER_MEDIAN = {("docker", "ubuntu"): 427.6, ("docker", "alpine"): 429.8}
CHAPTER_MEDIAN.update({("podman", "ubuntu"): 212.7, ("podman", "alpine"): 193.3})
CHAPTER_IQR = {("docker", "ubuntu"): (373.5, 460.4), ("docker", "alpine"): (363.5, 451.2)}
CHAPTER_IQR.update({("podman", "ubuntu"): (180.8, 265.2), ("podman", "alpine"): (175.3, 230.9)})


def _arm(engine_name: str, role: str) -> Sel:
    """A container arm launched the chapter's way (default network), by round."""
    return Sel(engine=engine_name, role=role, variant=CONTAINER_VARIANT, metric=METRIC)


def _podman_over_docker(role: str) -> Ratio:
    return Ratio(
        _arm("podman", role), _arm("docker", role), detail={"role": role, "ratio": "podman_sobre_docker"}
    )


def _ubuntu_over_alpine(engine_name: str) -> Ratio:
    detail = {"engine": engine_name, "ratio": "ubuntu_sobre_alpine"}
    return Ratio(_arm(engine_name, "ubuntu"), _arm(engine_name, "alpine"), detail=detail, optional=True)


def _chapter_relative_iqr(engine_name: str, role: str) -> float:
    q1, q3 = CHAPTER_IQR[(engine_name, role)]
    return (q3 - q1) / CHAPTER_MEDIAN[(engine_name, role)]


# «Docker: cliente → API REST → dockerd → containerd → runc. […] Podman: fork() → exec() directo. Sin
# daemon intermediario. Menos saltos, menos overhead.» The question of the course: is Podman faster to
# start? Decided here, per image, under the chapter's conditions; 02 cites it.
PODMAN_FASTER = {
    role: Said(
        "podman_mas_rapido",
        "Sin daemon intermedio, con fork y exec directos, Podman da menos saltos que Docker (cliente, API "
        "REST, dockerd, containerd, runc) y arranca con menos sobrecarga",
        SOURCE,
        where=WHERE,
        claimed=CHAPTER_MEDIAN[("podman", role)] / CHAPTER_MEDIAN[("docker", role)],
        kind="reduces",
        ref=ref(source="seed000", metric="arranque", engine="podman", image=role, over={"engine": "docker"}),
        quantity=f"Podman/Docker del arranque con «{role}» (red por defecto)",
        unit="x",
        figure=_podman_over_docker(role),
    )
    for role in ("ubuntu", "alpine")
}
# «Podman es ~2x más rápido que Docker en startup» (2x with Ubuntu, 2.2x with Alpine)
PODMAN_2X = {
    role: Said(
        "podman_2x",
        f"Podman es ~2x más rápido que Docker en el arranque (con {name}: {factor})",
        SOURCE,
        where=WHERE_2X,
        claimed=claimed,
        kind="about",
        ref=ref(
            source="seed000",
            metric="arranque",
            engine="podman",
            image=role,
            over={"engine": "docker"},
            rtol=0.02,
        ),
        quantity=f"Podman/Docker con «{role}» (red por defecto)",
        unit="x",
        note="«~2x más rápido» es Podman/Docker ≈ 0.5×.",
        figure=_podman_over_docker(role),
    )
    for role, name, factor, claimed in (
        ("ubuntu", "Ubuntu", "2x", 1 / 2.0),
        ("alpine", "Alpine", "2.2x", 1 / 2.2),
    )
}
# «Alpine vs Ubuntu: poca diferencia en Docker, algo en Podman» (~428 vs ~430 ms; ~213 vs ~193 ms)
ALPINE_UBUNTU = {
    "docker": Said(
        "alpine_ubuntu",
        "Alpine frente a Ubuntu: poca diferencia en Docker",
        SOURCE,
        where=WHERE,
        claimed=1.0,
        kind="no_difference",
        quantity="Ubuntu/Alpine en Docker",
        unit="x",
        figure=_ubuntu_over_alpine("docker"),
    ),
    "podman": Said(
        "alpine_ubuntu",
        "Alpine frente a Ubuntu: algo de diferencia en Podman (~213 frente a ~193 ms)",
        SOURCE,
        where=WHERE,
        claimed=212.7 / 193.3,
        kind="adds",
        ref=ref(
            source="seed000", metric="arranque", engine="podman", image="ubuntu", over={"image": "alpine"}
        ),
        quantity="Ubuntu/Alpine en Podman",
        unit="x",
        figure=_ubuntu_over_alpine("podman"),
    ),
}
# «La varianza alta de Podman (IQR más amplio que Docker) es típica de la arquitectura fork-exec:
# cada `podman run` pasa por el caché de fuse-overlayfs que puede estar frío o caliente.»
PODMAN_WIDER_IQR = {
    role: Said(
        "podman_iqr_amplio",
        "Podman varía más que Docker al arrancar (IQR más amplio), por la caché de fuse-overlayfs",
        SOURCE,
        where=WHERE,
        claimed=_chapter_relative_iqr("podman", role) / _chapter_relative_iqr("docker", role),
        kind="adds",
        quantity=f"IQR/mediana de Podman ÷ IQR/mediana de Docker con «{role}»",
        unit="x",
        figure=Computed(
            lambda df, meta, role=role: iqr_ratio(df, meta, role),
            detail={"role": role, "ratio": "iqr_relativo_podman_sobre_docker"},
        ),
    )
    for role in ("ubuntu", "alpine")
}


SAID = (*PODMAN_FASTER.values(), *PODMAN_2X.values(), *ALPINE_UBUNTU.values(), *PODMAN_WIDER_IQR.values())


def _setup_note(meta: dict | None) -> str:
    """What our setup has that the chapter's did not say, for the claim on the daemonless path."""
    engines = (meta or {}).get("engines") or {}
    podman, docker = engines.get("podman") or {}, engines.get("docker") or {}
    if not podman and not docker:
        return ""
    return (
        f"Aquí: Docker {docker.get('server_version', '?')} y Podman {podman.get('server_version', '?')}, "
        f"los dos con {podman.get('runtime') or docker.get('runtime') or '?'}; la red de Podman la arma "
        f"{podman.get('network_backend', '?')}. `podman run` no es un solo fork-exec: lanza conmon, que "
        "lanza el runtime, y prepara la red; el cuaderno 04 mide cada paso. El capítulo usó Docker 28.4.0 "
        "y Podman 4.6.2."
    )


def _spreads_note(df: pd.DataFrame, meta: dict | None, role: str) -> str:
    """Each engine's IQR/median in this run, the two figures the ratio divides (the chapter's beside)."""
    series = {e: arm_series(df, meta, (e, role)) for e in ("podman", "docker")}
    if any(len(s) < 2 for s in series.values()):
        return ""
    here = {e: float(relative_iqr(s.to_numpy())) for e, s in series.items()}
    return (
        f"IQR/mediana aquí: Podman {here['podman']:.3f} y Docker {here['docker']:.3f} (en el capítulo, "
        f"{_chapter_relative_iqr('podman', role):.3f} y {_chapter_relative_iqr('docker', role):.3f}). "
    )


def _storage_note(meta: dict | None, role: str) -> str:
    podman = ((meta or {}).get("engines") or {}).get("podman") or {}
    storage = podman.get("storage") or podman.get("storage_driver")
    q = CHAPTER_IQR
    own = (
        f"En la tabla del capítulo el IQR absoluto de Podman no es mayor ({q[('podman', role)][1] - q[('podman', role)][0]:.0f} "
        f"frente a {q[('docker', role)][1] - q[('docker', role)][0]:.0f} ms con «{role}»); relativo a la mediana sí, "
        "y esa es la lectura que se juzga."
    )
    if not storage:
        return own
    fuse = "fuse" in str(storage).lower()
    return own + (
        f" Tu Podman guarda las capas con «{storage}»"
        + (
            ": la causa que da el capítulo está presente."
            if fuse
            else ", sin fuse-overlayfs: la causa que da el capítulo no está en esta máquina."
        )
    )


def _noted(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The run's own note: the setup, for the daemonless path; the spreads, for the wider IQR."""
    if said.key == "podman_mas_rapido":
        return said.but(note=_setup_note(meta))
    if said.key == "podman_iqr_amplio":
        role = dict(said.figure.detail)["role"]
        return said.but(note=_spreads_note(df, meta, role) + _storage_note(meta, role))
    return said


def claims(df: pd.DataFrame, meta: dict | None) -> list[Claim]:
    """The chapter's claims on startup, per image and per engine (default network only)."""
    return judge_all(SAID, df, meta, adapt=_noted)
