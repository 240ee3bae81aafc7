"""01's facts for the instructor's kit: who starts first (per image), Podman's network."""

from __future__ import annotations

import numpy as np

from ... import experiments, stats
from ...experiments import arranque as a
from ...experiments import verdict as vd
from ...experiments.arranque.analysis import arm_series, summarize
from ...experiments.arranque.measure import CONTAINER_VARIANT, NO_NETWORK_VARIANT
from ...view import common
from .words import ENGINE, Facts, missing_arms, run_sentence, run_tag

FACTS = ("bare", "docker", "podman", "podman_docker", "podman_docker_sin_red", "red_podman")


def facts(res) -> Facts:
    nb = a.NOTEBOOK
    out: Facts = {}
    df, meta = res.df, res.meta
    table = summarize(df, meta)
    if table.empty:
        return {}
    bare = table[(table["engine"] == "bare") & (table["variant"] == "proceso")]
    out["bare"] = (
        common.fmt_value(float(bare["mediana_ms"].iloc[0]), "ms", 2)
        if len(bare)
        else missing_arms(nb, "bare metal")
    )
    for engine in ENGINE:
        rows = table[(table["engine"] == engine) & (table["variant"] == CONTAINER_VARIANT)]
        if rows.empty:
            out[engine] = missing_arms(nb, f"{ENGINE[engine]} con la red por defecto")
            continue
        parts = [f"{common.fmt_value(r.mediana_ms, 'ms', 0)} ({r.role})" for r in rows.itertuples()]
        out[engine] = ", ".join(parts)
    sentences, verdicts = [], []
    for claim in experiments.judged(res):
        if claim.key != "podman_mas_rapido" or np.isnan(claim.value):
            continue
        side = vd.side(claim.low, claim.high, claim.n)
        who = common.direction_words(side, "arranca antes Docker", "arranca antes Podman", n=claim.n)
        verdicts.append(common.verdict_words(claim))
        sentences.append(
            f"con {claim.detail.get('role', '?')}, Podman/Docker = "
            f"{common.fmt_ratio(claim.value, claim.low, claim.high)}, {who}" + "{verdict}"
        )
    # the verdict once when every image has the same one, else beside each image
    same = len(set(verdicts)) == 1
    sentences = [
        text.format(verdict="" if same else f" (veredicto de 01: «{v}»)")
        for text, v in zip(sentences, verdicts)
    ]
    out["podman_docker"] = run_sentence(
        res,
        ", con la red por defecto (las condiciones del capítulo): ",
        sentences,
        missing_arms(nb, "Docker y Podman en las mismas rondas"),
    )
    if sentences and same:
        out["podman_docker"] += (
            f" Veredicto de 01 sobre «Podman arranca con menos sobrecarga», con cada imagen: «{verdicts[0]}»."
        )
    out["podman_docker_sin_red"] = _without_network(res)
    podman = (meta.get("engines") or {}).get("podman") or {}
    backend = podman.get("network_backend")
    out["red_podman"] = (
        f"En la {run_tag(res)}, Podman {podman.get('server_version') or ''} "
        f"configuró la red con `{backend}`".replace("  ", " ")
        + (" (sin root)" if podman.get("rootless") else "")
        + "."
        if backend
        else missing_arms(nb, "Podman (no hay datos de su red)")
    )
    return out


def _without_network(res) -> str:
    """Podman/Docker of 01's `run --rm --network none`, per image, by round, and which way it points by
    the one rule: the half of 09's answer that the default network hides."""
    cells = []
    for role in ("ubuntu", "alpine"):
        arms = [arm_series(res.df, res.meta, (e, role), NO_NETWORK_VARIANT) for e in ("podman", "docker")]
        if not all(arm.size for arm in arms):
            continue
        ratio = stats.ratio_ci(*arms)
        side = vd.side(ratio.low, ratio.high, ratio.n)
        who = common.direction_words(side, "arranca antes Docker", "arranca antes Podman", n=ratio.n)
        cells.append(
            f"con {role}, Podman/Docker = {common.fmt_ratio(ratio.value, ratio.low, ratio.high)}, {who}"
        )
    return run_sentence(
        res,
        ", sin red (`--network none`, el motor sin la red que arma cada uno): ",
        cells,
        missing_arms(a.NOTEBOOK, "Docker y Podman con `--network none`"),
    )
