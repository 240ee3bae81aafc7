"""`make setup` (helpers.provision) in a clean cache: CURSO_CACHE moves every cache path of the course; a
step's swallowed exception or «[AVISO]» line is a problem named by its step; and, as root with apt, the
whole set-up (every registered experiment's provision step included) run in an empty temporary cache
builds everything the course needs, or fails naming the step."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
import types

import pytest

from helpers import PROJECT_ROOT, experiments, provision, setup_times
from helpers.engines import kubernetes_build
from helpers.experiments.red import servers
from helpers.paths import CACHE_DIR, CACHE_ENV
from tests.support import setup_step_missing

# Every cache path of the course, as the modules that own them derive it from CACHE_DIR.
CACHE_PATHS = textwrap.dedent(
    """
    import json
    from helpers import guest, images, paths, vm
    from helpers.engines import lxd, rootfs, runtimes
    from helpers.experiments.anidamiento import build
    from helpers.experiments.red import servers
    from helpers.experiments.sistema_vm import disk_io
    print(json.dumps({
        "cache": str(paths.CACHE_DIR), "images": str(images.IMAGES_CACHE), "vm": str(vm.VM_DIR),
        "fio": str(disk_io.BUNDLE), "runsc": str(runtimes.RUNSC), "go": str(runtimes.TOOLCHAIN_DIR),
        "lxd": str(lxd.IMAGE_CACHE), "rootfs": str(rootfs.ROOTFS_CACHE), "servidores": str(servers.BUILD_DIR),
        "anidamiento": str(build.CACHE), "huesped": str(guest.GUEST_DIR),
    }))
    """
)

# What the set-up leaves in the cache for the course, checked through the modules' own tests of it.
BUILT = textwrap.dedent(
    """
    import json
    from helpers import vm
    from helpers.engines import runtimes
    from helpers.experiments.anidamiento import build
    from helpers.experiments.red import servers
    from helpers.experiments.sistema_vm import disk_io
    found = vm.assets()
    print(json.dumps({
        "vm": found is not None,
        "vm_systemd": found is not None and found.systemd_disk is not None,
        "fio": disk_io.available(),
        "runsc": runtimes.runsc_current(),
        "servidores": {k: servers.availability(k)[0] for k in servers.SERVER_NAMES},
        "anidamiento": sorted(p.name for p in build.SHARE.glob("*.tar")),
    }))
    """
)


def _in_cache(script: str, cache) -> dict:
    env = dict(os.environ, **{CACHE_ENV: str(cache)})
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_curso_cache_moves_every_cache_path(tmp_path):
    paths = _in_cache(CACHE_PATHS, tmp_path)
    assert paths.pop("cache") == str(tmp_path)
    outside = {name: path for name, path in paths.items() if not path.startswith(f"{tmp_path}/")}
    assert outside == {}


def _fake(name: str, prepare) -> types.SimpleNamespace:
    return types.SimpleNamespace(EXPERIMENT=name, TITLE=f"Experimento {name}", provision=prepare)


def test_a_failing_provision_step_is_a_problem_named_by_its_experiment_and_line(monkeypatch, capsys):
    """Fault injection: an ImportError raised by one experiment's provision, an «[AVISO]» line said by
    another; a «[FALTA]» (what set-up does not provide) is no problem; the experiments after them run."""

    def broken(log):
        raise ImportError("cannot import name 'engines' from 'helpers.vm'")

    ran = []
    fakes = [
        _fake("roto", broken),
        _fake("aviso", lambda log: log("[AVISO] No pude construir la pareja con systemd: sin espacio")),
        _fake("falta", lambda log: log("[FALTA] servidor Rust actix-web no disponible: no hay Rust")),
        _fake("sano", lambda log: ran.append(True) or log("[ OK ] listo")),
    ]
    monkeypatch.setattr(experiments, "all_experiments", lambda: fakes)
    monkeypatch.setattr(provision, "PROBLEMS", provision.Problems())
    problems = provision.provision_experiments()
    assert ran == [True]
    assert len(problems) == 2, problems
    assert problems[0].startswith(
        "Experimento roto (roto.provision): ImportError: cannot import name 'engines'"
    )
    assert "test_provision.py" in problems[0] and "(broken)" in problems[0]  # where it was raised
    assert problems[1] == (
        "Experimento aviso (aviso.provision): [AVISO] No pude construir la pareja con systemd: sin espacio"
    )
    assert "la preparación falló (ImportError" in capsys.readouterr().out  # the reader still sees it


def test_a_swallowed_exception_of_a_setup_step_is_a_problem(monkeypatch):
    monkeypatch.setattr(provision, "PROBLEMS", provision.Problems())
    assert provision.step("La compilación de sondas", lambda: 1 / 0) is None
    assert provision.PROBLEMS.found[0].startswith("La compilación de sondas: ZeroDivisionError")


def test_a_missing_setup_step_fails_as_root_with_apt_and_skips_otherwise(monkeypatch):
    monkeypatch.setattr(provision, "can_apt", lambda: True)
    with pytest.raises(
        pytest.fail.Exception, match="Falta un paso de «make setup»: la carpeta de fio. falta"
    ):
        setup_step_missing("la carpeta de fio", "falta fio.")
    monkeypatch.setattr(provision, "can_apt", lambda: False)
    with pytest.raises(pytest.skip.Exception, match="^falta fio.$"):
        setup_step_missing("la carpeta de fio", "falta fio.")


def _skip_texts(tree: ast.AST):
    """The literal text of every pytest.skip(...) call in a module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("pytest.skip", "skip"):
            yield ast.unparse(node)


def test_no_test_skips_for_a_missing_setup_step_by_itself():
    """A skip that says «make setup» goes through tests.support.setup_step_missing, which fails instead
    where make setup could have provided it."""
    found = [
        f"{path.relative_to(PROJECT_ROOT)}: {text}"
        for path in sorted((PROJECT_ROOT / "tests").rglob("*.py"))
        for text in _skip_texts(ast.parse(path.read_text()))
        if "make setup" in text
    ]
    assert found == []


def _seed_compiler_state(cache) -> list[str]:
    """The compilers' incremental state from the real cache (cargo's target folder: the Rust servers'
    dependencies, compiled once): the servers themselves are still compiled, linked and installed in the
    clean cache. Go's build cache lives outside the course's cache (~/.cache/go-build). Kubernetes'
    binaries too (hard links): their build takes 15-45 min, beyond this test's time; its stamp makes
    the step say «ya construido» (tests/core/test_kubernetes_build.py checks the build's pieces)."""
    seeded = []
    if kubernetes_build.built():
        dest = cache / kubernetes_build.CACHE.relative_to(CACHE_DIR)
        dest.parent.mkdir(parents=True)
        subprocess.run(["cp", "-al", str(kubernetes_build.CACHE), str(dest)], check=True)
        seeded.append(str(kubernetes_build.CACHE.relative_to(CACHE_DIR)))
    if servers.CARGO_TARGET.is_dir():
        dest = cache / servers.CARGO_TARGET.relative_to(CACHE_DIR)
        dest.parent.mkdir(parents=True)
        subprocess.run(["cp", "-a", "--reflink=auto", str(servers.CARGO_TARGET), str(dest)], check=True)
        seeded.append(str(servers.CARGO_TARGET.relative_to(CACHE_DIR)))
    return seeded


@pytest.mark.engines
def test_setup_in_a_clean_cache_builds_everything_or_names_the_failed_step(tmp_path):
    """`python -m helpers.provision --estricto` (make setup's command) with CURSO_CACHE on an empty folder:
    every step runs for real there (the course's VM: kernel downloaded with apt-get, initramfs, disks;
    the Debian with systemd by mmdebstrap and its VM disk; fio's bundle; runsc; the servers; the nesting
    images saved), and any «[AVISO]» or swallowed exception fails the test with its step's name.
    Images already inside Docker, Podman and LXD are kept (the set-up finds them there)."""
    if not provision.can_apt():
        pytest.skip("solo como root con apt: sin root, la preparación salta con razón lo que necesita root")
    cache = tmp_path / "cache"
    cache.mkdir()
    seeded = _seed_compiler_state(cache)
    env = dict(os.environ, **{CACHE_ENV: str(cache)}, PYTHONUNBUFFERED="1")
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "helpers.provision", "--estricto"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    elapsed = time.monotonic() - start
    output = result.stdout + result.stderr
    log = tmp_path / "preparacion.log"
    log.write_text(output)
    print(
        f"\n[preparación en caché limpia] {elapsed:.0f} s; sembrado: {seeded or 'nada'}; registro: {log}",
        file=sys.stderr,
    )
    failed = output[output.find("[FALLO]") :] if "[FALLO]" in output else output[-3000:]
    assert result.returncode == 0, f"make setup falló en una caché limpia:\n{failed}"
    built = _in_cache(BUILT, cache)
    assert built["vm"] and built["vm_systemd"] and built["fio"] and built["runsc"], (built, output[-3000:])
    # a server whose toolchain is absent here (set-up installs neither Go nor Rust) was said «[FALTA]»
    unbuilt = [k for k, ok in built["servidores"].items() if not ok and servers.toolchain(servers.SERVERS[k])]
    assert unbuilt == [], built
    assert built["anidamiento"] == [
        "anidado-docker.tar",
        "anidado-podman.tar",
        "busybox-docker.tar",
        "busybox-podman.tar",
    ], built
    recorded = setup_times.history(cache / setup_times.HISTORY.name)  # its steps' times, in its own cache
    assert len(recorded) == 1 and "La compilación de sondas" in recorded[0]["pasos"], recorded
    assert recorded[0]["total_s"] <= elapsed + 1 and "Preparación terminada" in output
    shutil.rmtree(cache)  # some 2 GB; kept when the test fails, with the log beside it
