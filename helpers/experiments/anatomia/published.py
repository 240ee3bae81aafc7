"""Experiment 4 next to published launch figures (data/reference/anatomia.csv): ratios where both
sides have one, absolute figures from other machines as orientation only."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from .analysis import series, values

COMPARE_COLUMNS = [
    "fuente",
    "medida",
    "referencia",
    "ref_unidad",
    "como_lo_dice",
    "tu_valor",
    "tu_ic_bajo",
    "tu_ic_alto",
    "tu_unidad",
    "comparable",
]
# Launch figures of microVMs and sandboxes, next to this machine's `docker run` (orientation only):
# (source, variant, metric, what it measures, unit, factor to ms, how the source says it).
ORIENTATION = (
    (
        "firecracker_spec",
        "firecracker",
        "hasta_init",
        "microVM Firecracker: hasta el /sbin/init del invitado (máximo)",
        "ms",
        1,
        "≤ 125 ms (i3.metal, kernel y raíz mínimos)",
    ),
    (
        "kata_checkmetrics",
        "kata_qemu",
        "hasta_carga",
        "Kata Containers (QEMU): hasta la carga de trabajo",
        "ms",
        1000,
        "0.61 s (el valor esperado de su CI, ±15 %)",
    ),
    (
        "kata_checkmetrics",
        "kata_clh",
        "hasta_carga",
        "Kata Containers (Cloud Hypervisor): hasta la carga de trabajo",
        "ms",
        1000,
        "0.69 s (el valor esperado de su CI, −40 % / +30 %)",
    ),
)


def _ref(reference: pd.DataFrame, source: str, variant: str, metric: str) -> float:
    sel = reference[
        (reference["source"] == source) & (reference["variant"] == variant) & (reference["metric"] == metric)
    ]
    return float(sel["value"].iloc[0]) if len(sel) else np.nan


def _row(fuente, medida, referencia, ref_unidad, said, live, tu_unidad, comparable) -> dict:
    return {
        "fuente": fuente,
        "medida": medida,
        "referencia": referencia,
        "ref_unidad": ref_unidad,
        "como_lo_dice": said,
        "tu_valor": live[0],
        "tu_ic_bajo": live[1],
        "tu_ic_alto": live[2],
        "tu_unidad": tu_unidad,
        "comparable": comparable,
    }


def _ratio(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    return stats.ratio_ci(a, b).triple


def compare(df: pd.DataFrame, meta: dict | None, reference: pd.DataFrame) -> pd.DataFrame:
    """Published launch figures next to the live ones, as ratios where both sides have one:
    - crun's README: cost of a network namespace for runc (new netns / none), per container;
    - Red Hat's Podman on a Raspberry Pi: its whole set of changes (about x6) vs dropping the network here;
    - Firecracker's specification and Kata Containers' launch metrics: time to the guest's first process,
      next to this machine's `docker run` (absolute figures from other machines: orientation only)."""
    runc_net = values(df, "bare", "runc_con_netns")
    crun_ratio = _ref(reference, "crun_readme_anterior", "runc_con_netns", "cien_true") / _ref(
        reference, "crun_readme_anterior", "runc_sin_netns", "cien_true"
    )
    per_container = _ref(reference, "crun_readme", "runc", "cien_true") * 1000 / 100
    s = stats.summarize(runc_net)
    rpi = _ref(reference, "redhat_rpi", "antes", "arranque_rpi") / _ref(
        reference, "redhat_rpi", "despues", "arranque_rpi"
    )
    rows = [
        _row(
            "README de crun (versión anterior)",
            "runc con espacio de red / sin él",
            crun_ratio,
            "x",
            "11.17 s con espacio de red nuevo, 10.95 s sin él (100 /bin/true)",
            _ratio(series(df, "bare", "runc_con_netns"), series(df, "bare", "runc_sin_netns")),
            "x",
            True,
        ),
        _row(
            "README de crun",
            "runc run de /bin/true, por contenedor",
            per_container,
            "ms",
            "3.34 s para 100 /bin/true en secuencia",
            (s.median, s.ci_low, s.ci_high),
            "ms",
            False,
        ),
        # Not comparable: their figure sums many changes (the network among them), ours only drops the
        # network; the view says so beside the two figures.
        _row(
            "Red Hat (Podman en Raspberry Pi)",
            "aceleración: ellos, con todos sus cambios; tú, solo sin red",
            rpi,
            "x",
            "seis veces más rápido (su título; de unos 2 s a menos de 0.3 s según un resumen de terceros)",
            _ratio(series(df, "podman", "run_red"), series(df, "podman", "run_sin_red")),
            "x",
            False,
        ),
    ]
    docker = stats.summarize(values(df, "docker", "run_red"))
    for source, variant, metric, label, unit, factor, said in ORIENTATION:
        rows.append(
            _row(
                source,
                label,
                _ref(reference, source, variant, metric) * factor,
                unit,
                said,
                (docker.median, docker.ci_low, docker.ci_high),
                "ms (tu docker run)",
                False,
            )
        )
    return pd.DataFrame(rows, columns=COMPARE_COLUMNS)
