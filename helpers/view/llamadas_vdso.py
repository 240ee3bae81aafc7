"""Experiment 5's sentence on the call that does not enter the kernel (the vDSO): where it moved and
where it did not, arm by arm, from a run. Notebook 05's page and the instructor's kit say it alike."""

from __future__ import annotations

import pandas as pd

from ..experiments import verdict
from ..experiments.llamadas.analysis import summarize
from .numbers import fmt_ratio

VDSO_GROUP = {  # the groups of the vDSO sentence, in the order it names them
    "igual": "a menos de un 5 % del host",
    "cara": "más cara que en el host",
    "barata": "más barata que en el host",
    verdict.NO_CONCLUYENTE: "sin decidir con estas repeticiones",
    verdict.INESTABLE: "inestable (repite)",
    verdict.SIN_DATOS: f"sin juzgar (menos de {verdict.MIN_N} repeticiones)",
}


def _vdso_group(r) -> str:
    """Which group of the vDSO sentence one arm's × host falls in: its direction by the one rule
    (verdict.direction, against the margin of «casi igual»)."""
    if r["n"] >= verdict.MIN_N and r["inestable"]:
        return verdict.INESTABLE
    code = verdict.direction(r["x_host_ic_bajo"], r["x_host_ic_alto"], int(r["n"]))
    return {verdict.LEVEL: "igual", verdict.ABOVE: "cara", verdict.BELOW: "barata"}.get(code, code)


def vdso_sentence(df: pd.DataFrame, operacion: str = "clock_gettime") -> str:
    """Where the call that does not enter the kernel (the vDSO) moved and where it did not, from this
    run: each arm's × host (round by round, IC 95 %) against the margin of «casi igual»."""
    s = summarize(df)
    s = s[(s["operacion"] == operacion) & ~((s["engine"] == "bare") & (s["variant"] == "host"))]
    s = s.dropna(subset=["x_host"])
    if s.empty:
        return (
            f"_Para ver si alguna capa encarece {operacion} hace falta medirla en el host y en otro brazo._"
        )
    groups: dict[str, list[str]] = {}
    for _, r in s.iterrows():
        groups.setdefault(_vdso_group(r), []).append(
            f"{r['brazo']} ({fmt_ratio(r['x_host'], r['x_host_ic_bajo'], r['x_host_ic_alto'])})"
        )
    parts = [f"{VDSO_GROUP[k]}: {'; '.join(groups[k])}" for k in VDSO_GROUP if k in groups]
    return f"En esta corrida, {operacion} (vDSO, × host e IC 95 %) quedó " + "; ".join(parts) + "."
