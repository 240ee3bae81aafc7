import json
import os
import sys

import pytest

from helpers import PROJECT_ROOT, engines

# Kernels started by papermill in these tests import this checkout's helpers (a git worktree, a clone),
# not the copy the virtual environment was installed from.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")]))


@pytest.fixture(autouse=True)
def results_tmp(tmp_path, monkeypatch):
    """Every test writes its runs under a temporary folder, never into results/."""
    root = tmp_path / "resultados"
    monkeypatch.setenv("CURSO_RESULTADOS", str(root))
    return root


@pytest.fixture(autouse=True)
def no_leaked_containers(tmp_path):
    """Safety net for every test: after it, remove the containers of every run it created (found
    through the meta.json files under its tmp_path) and report any it left behind as an error."""
    yield
    run_ids = set()
    for meta in tmp_path.rglob("meta.json"):
        try:
            run_id = json.loads(meta.read_text()).get("run_id")
        except (OSError, ValueError):
            continue
        if run_id:
            run_ids.add(run_id)
    leaked = {}
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        if not run_ids or not engine.available:
            continue
        for run_id in run_ids:
            if engine.list_labelled(run_id):
                leaked[f"{name}:{run_id}"] = engine.cleanup(run_id)
    if leaked:
        pytest.fail(f"la prueba dejó contenedores (ya eliminados): {leaked}")


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
