"""The chapter's claims on startup, declared once, judged by the one rule (verdict.ratio: bootstrap IC
of the ratio of medians; unstable arms flagged). Ratios keep the direction of the notebook's tables:
Podman/Docker and Ubuntu/Alpine."""

from __future__ import annotations

import pandas as pd

from ..verdict import Claim, Said, ratio
from .analysis import arm_values

SOURCE = "el capítulo original"
WHERE = "experimento 1"

# «Podman es ~2x más rápido que Docker en startup» (2x with Ubuntu, 2.2x with Alpine)
PODMAN_2X = {
    role: Said(
        "podman_2x",
        f"Podman es ~2x más rápido que Docker en el arranque (con {name}: {factor})",
        SOURCE,
        where=WHERE,
        claimed=claimed,
        kind="about",
        quantity=f"Podman/Docker con «{role}»",
        unit="x",
        note="«~2x más rápido» es Podman/Docker ≈ 0.5×.",
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
    ),
    "podman": Said(
        "alpine_ubuntu",
        "Alpine frente a Ubuntu: algo de diferencia en Podman (~213 frente a ~193 ms)",
        SOURCE,
        where=WHERE,
        claimed=212.7 / 193.3,
        kind="adds",
        quantity="Ubuntu/Alpine en Podman",
        unit="x",
    ),
}


SAID = (*PODMAN_2X.values(), *ALPINE_UBUNTU.values())


def claims(df: pd.DataFrame, meta: dict | None) -> list[Claim]:
    """The chapter's claims on startup, per image and per engine."""
    out: list[Claim] = []
    for role, said in PODMAN_2X.items():
        out.append(
            ratio(
                said,
                arm_values(df, meta, ("podman", role)),
                arm_values(df, meta, ("docker", role)),
                detail={"role": role, "ratio": "podman_sobre_docker"},
            )
        )
    for engine_name, said in ALPINE_UBUNTU.items():
        ubuntu = arm_values(df, meta, (engine_name, "ubuntu"))
        alpine = arm_values(df, meta, (engine_name, "alpine"))
        if not (ubuntu.size and alpine.size):
            continue
        out.append(
            ratio(said, ubuntu, alpine, detail={"engine": engine_name, "ratio": "ubuntu_sobre_alpine"})
        )
    return out
