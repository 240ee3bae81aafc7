import json
import os
import sys

import pytest

from helpers import PROJECT_ROOT, engines
from tests.support import setup_step_missing

GUEST_MARK = "huesped"
GUEST_RUN = pytest.StashKey()  # the guest started in the background (helpers.guest.background)


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
        except (OSError, ValueError, AttributeError):  # a hand-in's meta.json may be anything
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
        setup_step_missing(
            f"{engine.display} instalado y en marcha", f"{engine.display} no está disponible: {why}"
        )
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
        setup_step_missing(
            "Docker o Podman instalado y en marcha", "no hay ningún motor de contenedores disponible."
        )
    return present


# ---------------------------------------------------------------- the guest VM, in the background
def pytest_collection_modifyitems(config, items):
    """The guest's tests (marker `huesped`) go last: they only wait for and judge the run started at the
    beginning of the session, so every other test runs while the VM works."""
    items.sort(key=lambda item: item.get_closest_marker(GUEST_MARK) is not None)


def pytest_collection_finish(session):
    """If the selected tests include the guest's, start its run now in the background (tests/guest's
    fixture `corrida` waits for it). Not with CURSO_HUESPED_CORRIDA (a returned run re-checked), nor
    where the guest cannot run (the fixture then skips with the reason)."""
    config = session.config
    if config.option.collectonly or os.environ.get("CURSO_HUESPED_CORRIDA"):
        return
    if not any(item.get_closest_marker(GUEST_MARK) for item in session.items):
        return
    from helpers import guest
    from helpers.guest import background

    ok, _ = guest.availability()
    if not ok:
        return
    config.stash[GUEST_RUN] = background.Background.start()
    print(
        f"\n[huésped] la VM Debian 13 arranca en segundo plano mientras corren las demás pruebas; "
        f"registro: {config.stash[GUEST_RUN].log_path}",
        file=sys.stderr,
        flush=True,
    )


def guest_run_of(config):
    """The guest run this session started in the background, or None."""
    return config.stash.get(GUEST_RUN, None)


@pytest.fixture(scope="session")
def guest_background(request):
    """The guest run started in the background for this session (None if none was started)."""
    return guest_run_of(request.config)


def pytest_sessionfinish(session):
    """Whatever happened (-x, a failure, Ctrl-C, an error), the VM does not outlive the session."""
    found = guest_run_of(session.config)
    if found is not None and found.stop():
        print("\n[huésped] la corrida en segundo plano seguía en marcha: detenida.", file=sys.stderr)


def pytest_unconfigure(config):
    found = guest_run_of(config)
    if found is not None:
        found.stop()


def pytest_terminal_summary(terminalreporter, config):
    from helpers import setup_times

    lines = setup_times.summary()
    if lines:
        terminalreporter.write_sep("-", "Preparación (make setup)")
        for line in lines:
            terminalreporter.write_line(line)
    found = guest_run_of(config)
    if found is not None and found.outcome:
        terminalreporter.write_sep("-", "VM Debian 13 (huésped)")
        terminalreporter.write_line(f"{found.outcome}; registro: {found.log_path}")
