import os
import sys

import pytest

from helpers import engines


@pytest.fixture(autouse=True)
def results_tmp(tmp_path, monkeypatch):
    """Every test writes its runs under a temporary folder, never into results/."""
    root = tmp_path / "resultados"
    monkeypatch.setenv("CURSO_RESULTADOS", str(root))
    return root


def require_engine(name: str):
    engine = engines.get_engine(name)
    ok, why = engine.availability()
    if not ok:
        print(f"\n[omitido] {engine.display} no está disponible aquí: {why}", file=sys.stderr)
        pytest.skip(f"{engine.display} no está disponible: {why}")
    return engine


@pytest.fixture
def docker_engine():
    return require_engine("docker")


@pytest.fixture
def podman_engine():
    return require_engine("podman")


@pytest.fixture
def container_engines():
    """The container engines present here; skips (saying why) only if there is none."""
    present = [n for n in engines.CONTAINER_ENGINES if engines.get_engine(n).available]
    absent = {n: engines.get_engine(n).reason for n in engines.CONTAINER_ENGINES if n not in present}
    for name, why in absent.items():
        print(f"\n[aviso] {name} no está disponible aquí: {why}", file=sys.stderr)
    if not present:
        pytest.skip("no hay ningún motor de contenedores disponible")
    return present
