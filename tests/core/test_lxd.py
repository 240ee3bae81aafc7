"""System containers with the real LXD (or Incus) daemon: unprivileged, no network, nothing remote, an
engine nested inside without --privileged, and nothing left after success, error and Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import psutil
import pytest

from helpers import PROJECT_ROOT, images
from helpers import engines as eng
from helpers.engines import labels, lxd, lxd_nested, lxd_setup
from tests.conftest import require_engine
from tests.support import setup_step_missing

pytestmark = pytest.mark.engines


@pytest.fixture(scope="module")
def daemon():
    lxd.reset_cache()
    ok, why = lxd.availability()
    if not ok:
        setup_step_missing("LXD sin red (la preparación de LXD)", f"LXD/Incus no está disponible: {why}")
    return lxd.flavor()


@pytest.fixture
def run_id():
    rid = "prueba-" + uuid.uuid4().hex[:8]
    yield rid
    lxd.cleanup(rid)


def require_pool(pool: str) -> None:
    """make setup creates the copy-on-write pool wherever the kernel has btrfs."""
    if pool in lxd.pools():
        return
    why = f"el daemon no tiene el pool «{pool}» («sudo make setup» lo crea donde hay btrfs)."
    if not lxd_setup.kernel_has_btrfs():
        pytest.skip(f"{why} Este kernel no tiene btrfs.")
    setup_step_missing(f"el pool «{pool}» de LXD (la preparación de LXD)", why)


def _names(run_id: str) -> list[str]:
    return [n for n, marks in lxd.course_instances() if marks.get(labels.LABEL_RUN) == run_id]


@pytest.mark.parametrize("pool", [lxd.POOL, lxd.POOL_COW])
def test_unprivileged_system_container_reaches_running_without_network(daemon, run_id, pool):
    require_pool(pool)
    links_before = lxd.host_links()
    name = f"curso-prueba-{run_id}"
    lxd.create(name, run_id=run_id, pool=pool)
    assert lxd.pool_of(name) == pool
    config = lxd.query(f"/1.0/instances/{name}")
    assert config["config"].get("security.privileged", "false") == "false"
    assert [d for d in config["expanded_devices"].values() if d.get("type") == "nic"] == []
    lxd.start(name)
    assert lxd.wait_ready(name) in lxd.READY_STATES
    # unprivileged: root inside is a high host uid (the user namespace shifts every id)
    first = lxd.uid_map(name).split()
    assert first[0] == "0" and int(first[1]) >= 65536, first
    init = psutil.Process(lxd.init_pid(name))
    assert init.uids().real == int(first[1])
    # no network device inside but loopback, and no new interface on the host
    inside = lxd.execute(name, ["ls", "/sys/class/net"]).stdout.split()
    assert inside == ["lo"], inside
    # on the host: no new link that stays (another run's Docker veth lives a moment without its bridge)
    added = lxd.links_added_since(links_before)
    if added:
        time.sleep(2)
        added &= lxd.links_added_since(links_before)
    assert added == set()
    assert not [k for k in lxd.query(f"/1.0/instances/{name}")["config"] if k.endswith(".host_name")]
    # labelled with the run, as user.* keys
    assert _names(run_id) == [name]
    lxd.cleanup(run_id)
    assert _names(run_id) == []
    assert not lxd.rootfs_dir(name, pool).exists()


def test_copy_on_write_pool_keeps_only_what_an_instance_writes(daemon, run_id):
    require_pool(lxd.POOL_COW)
    cow, full = f"curso-cow-{run_id}", f"curso-dir-{run_id}"
    lxd.create(cow, run_id=run_id, pool=lxd.POOL_COW)
    lxd.create(full, run_id=run_id, pool=lxd.POOL)
    assert lxd.disk_bytes(full) > 100 * 2**20  # a full copy of the image
    before = lxd.disk_bytes(cow)
    assert before < 2**20  # a fresh snapshot shares everything with the image's volume
    lxd.start(cow)
    lxd.wait_ready(cow)
    written = lxd.execute(cow, ["dd", "if=/dev/urandom", "of=/nuevo", "bs=1M", "count=20", "conv=fsync"])
    assert written.returncode == 0, written.stderr
    assert lxd.disk_bytes(cow) - before >= 20 * 2**20  # what it wrote, and only that, is its own


def test_the_default_profile_and_the_daemon_have_no_network(daemon):
    profile = lxd.query("/1.0/profiles/default")
    assert [d for d in profile["devices"].values() if d.get("type") == "nic"] == []
    assert [n for n in lxd.query("/1.0/networks?recursion=1") if n.get("managed")] == []


def test_daemon_never_contacts_a_remote_server(daemon):
    proc = lxd.daemon_process(daemon)
    assert proc is not None
    environ = Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\0")
    assert f"HTTPS_PROXY={lxd.PROXY}".encode() in environ
    assert lxd.query("/1.0")["config"].get("core.proxy_https") == lxd.PROXY
    assert lxd.query("/1.0/networks?recursion=1") is not None
    managed = [n["name"] for n in lxd.query("/1.0/networks?recursion=1") if n.get("managed")]
    assert managed == []
    # the daemon holds no internet socket, and any remote request it tried went to the closed proxy
    assert [c for c in proc.net_connections(kind="inet") if c.raddr] == []
    log = lxd.LOG_DIR / "daemon.log"
    if log.exists():
        for line in log.read_text(errors="replace").splitlines():
            if "https://" in line or "http://" in line:
                assert "proxyconnect" in line and "127.0.0.1:9" in line, line


@pytest.mark.parametrize("engine", lxd_nested.INNER_ENGINES)
def test_engine_nested_without_privileged(daemon, run_id, engine, tmp_path):
    require_engine(engine)  # the host's engine hands its image in
    if not lxd.image_present(lxd.IMAGE_NESTED):
        setup_step_missing(
            f"la imagen {lxd.IMAGE_NESTED} de LXD (la preparación de LXD)",
            f"falta la imagen {lxd.IMAGE_NESTED}: «sudo make setup».",
        )
    image = images.resolve("alpine", eng.get_engine(engine))["name"]
    name = f"curso-anidado-{run_id}"
    lxd.create(name, lxd.IMAGE_NESTED, run_id=run_id, nesting=True)
    config = lxd.query(f"/1.0/instances/{name}")["config"]
    assert config.get("security.nesting") == "true"
    assert config.get("security.privileged", "false") == "false"
    lxd.start(name)
    lxd.wait_ready(name)
    lxd_nested.inner_ready(name, engine)
    inner = lxd_nested.hand_in_image(name, engine, image, tmp_path)
    result = lxd.execute(name, lxd_nested.inner_run_command(engine, inner), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert lxd.uid_map(name).split()[1] != "0"


def test_orphans_of_dead_runs_are_reaped(daemon, run_id):
    name = f"curso-huerfano-{run_id}"
    lxd.create(name, run_id=run_id)
    dead = subprocess.Popen(["true"])
    dead.wait()
    # the owner label now names a process that is gone
    subprocess.run(
        [daemon.cli, "config", "set", name, f"user.{labels.LABEL_PID}={dead.pid}"],
        check=True,
        env=lxd.proxy_env(),
    )
    reaped = lxd.reap_orphans()
    assert any(r["run"] == run_id and r["removed"] == 1 for r in reaped.values()), reaped
    assert _names(run_id) == []


SCRIPT = textwrap.dedent(
    """
    import sys, time
    from helpers.engines import lxd
    from helpers.experiments import runner
    with runner.experiment_run("prueba_lxd", {}, [], log=lambda line: None) as ctx:
        ctx.defer(lxd.cleanup, ctx.run_id)
        lxd.create(f"curso-corte-{ctx.run_id}", run_id=ctx.run_id)
        lxd.start(f"curso-corte-{ctx.run_id}")
        print(ctx.run_id, flush=True)
        if sys.argv[1] == "error":
            raise RuntimeError("falla a propósito")
        if sys.argv[1] == "ok":
            sys.exit(0)
        time.sleep(120)
    """
)


@pytest.mark.parametrize("how", ["ok", "error", "sigint", "sigterm"])
def test_nothing_left_after_success_error_and_interrupt(daemon, how, results_tmp):
    env = dict(os.environ, CURSO_RESULTADOS=str(results_tmp), PYTHONPATH=str(PROJECT_ROOT))
    child = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    rid = child.stdout.readline().strip()
    assert rid, child.stderr.read()
    if how in ("sigint", "sigterm"):
        assert _names(rid), "the instance should exist mid-run"
        child.send_signal(signal.SIGINT if how == "sigint" else signal.SIGTERM)
    child.wait(timeout=120)
    deadline = time.monotonic() + 10
    while _names(rid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _names(rid) == []
