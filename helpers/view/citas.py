"""01's answer to «is Podman faster to start?», in the words 01 uses (`answer`) and as the notebooks that
cite it without judging it again quote it (`cited_answer`: 02 and 04)."""

from __future__ import annotations

from types import ModuleType

from .. import experiments
from ..experiments import verdict
from ..experiments.runner import Resultado
from .common import fmt_ratio, verdict_words


def answer(claim) -> str:
    """One image's answer to «is Podman faster to start?» from its `podman_mas_rapido` claim, in the
    words 01 uses and 02 cites: «con «ubuntu», sí: Podman tarda 0.70× [0.67, 0.74] lo que Docker»."""
    role = claim.detail.get("role", "?")
    figure = fmt_ratio(claim.value, claim.low, claim.high)
    if claim.status == verdict.SE_CONFIRMA:
        return f"con «{role}», sí: Podman tarda {figure} lo que Docker"
    if claim.status == verdict.NO_SE_SOSTIENE:
        return f"con «{role}», no: Podman tarda {figure} lo que Docker"
    return f"con «{role}», todavía no se puede decir: {verdict_words(claim)}, con {figure}"


QUESTION_OF_01 = ("arranque", "podman_mas_rapido")  # where «is Podman faster to start?» is decided


def cited_answer(reader: ModuleType, resultado: Resultado | None, image: str, root=None):
    """01's answer to «is Podman faster to start?» as another notebook cites it, never judged again:
    (01's claim, its sentence), or (None, "") when 01 has no run (the view then says so with
    missing_run). reader: the citing experiment (it declares «arranque» in READS); the claim is 01's for
    the image the citing run used (`image` without a run or without that parameter), or for any image
    01 judged when it did not measure that one."""
    role = ((resultado.meta if resultado else {}).get("parameters") or {}).get("imagen", image)
    experiment, key = QUESTION_OF_01
    claim = experiments.read_claim(reader, experiment, key, root, role=role)
    if claim is None:
        claim = experiments.read_claim(reader, experiment, key, root)
    if claim is None:
        return None, ""
    decided = f"veredicto «{verdict_words(claim)}», " if claim.decided else ""
    return claim, (
        "**¿Arranca Podman más rápido que Docker?** Lo decide el cuaderno 01, en las condiciones del "
        f"capítulo (`run --rm … echo ok` en primer plano, red por defecto): {answer(claim)} ({decided}"
        f"n = {claim.n}). Aquí no se vuelve a juzgar."
    )
