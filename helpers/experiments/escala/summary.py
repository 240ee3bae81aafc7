"""02's rows of the chapter's «Tabla resumen» (09): launching 20 containers, and the memory of each
container and of each engine, at the chapter's N."""

from __future__ import annotations

import pandas as pd

from ..summary import Figure, SummaryRow, declared, median_of
from .analysis import column, wide
from .claims import CHAPTER_N, SAID


def _at_chapter_n(df: pd.DataFrame, engine: str) -> pd.DataFrame:
    w = wide(df)
    return w[(w["engine"] == engine) & (w["n"] == CHAPTER_N)]


def launch_total(df: pd.DataFrame, meta: dict | None, engine: str) -> Figure:
    """Launching CHAPTER_N containers one after another, in total (s)."""
    return median_of(column(_at_chapter_n(df, engine), "lanzamiento_total"), "s")


def memory_per_container(df: pd.DataFrame, meta: dict | None, engine: str) -> Figure:
    """The memory of one container as `docker/podman stats` reports it, as the chapter read it (MiB);
    the cgroup's own figure where stats was not read (02 judges cgroup_4x on the same)."""
    g = _at_chapter_n(df, engine)
    stats_col = "memoria_stats_por_contenedor"
    return median_of(
        column(g, stats_col if stats_col in g.columns else "memoria_cgroup_por_contenedor") / 1024, "MiB"
    )


def engine_rss(df: pd.DataFrame, meta: dict | None, engine: str) -> Figure:
    """The engine's own memory (RSS, MiB): dockerd for Docker (fixed); one conmon per container for Podman."""
    g = _at_chapter_n(df, engine)
    metric = "rss_daemon" if engine == "docker" else "rss_conmon_total"
    per = 1 if engine == "docker" else CHAPTER_N
    return median_of(column(g, metric) / per / 1024, "MiB")


CHAPTER_SUMMARY = (
    SummaryRow(
        f"lanzar {CHAPTER_N} contenedores uno tras otro (total)",
        "LAUNCH",
        declared(SAID, "lanzamiento_20"),
        launch_total,
    ),
    SummaryRow(
        "memoria de un contenedor en reposo según `stats` (su cgroup)",
        "CAPACITY",
        declared(SAID, "cgroup_4x"),
        memory_per_container,
    ),
    SummaryRow(
        "memoria del motor, RSS: Docker, dockerd (fijo); Podman, un conmon por contenedor",
        "CAPACITY",
        declared(SAID, "daemon_fijo"),
        engine_rss,
        judged=("docker",),
    ),
)
