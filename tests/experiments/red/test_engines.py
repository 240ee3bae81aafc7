"""Network experiment against the real engines and the real wrk, on short durations.

Only behaviour is asserted (rows, arms, clean-up, statuses), never absolute throughput: the machine is
shared. Containers are found by this run's label only."""

from __future__ import annotations

import shutil
import subprocess

import psutil
import pytest

from helpers.experiments import red as exp
from helpers.experiments import verdict
from helpers.experiments.red import arms as red_arms
from helpers.experiments.red import servers, start
from helpers.experiments.red.analysis import summarize
from tests.support import available_engines, interrupt_run, leftovers, setup_step_missing

pytestmark = pytest.mark.engines

SHORT = dict(servidores=["nethttp"], hilos=1, conexiones=4, duracion_s=1, repeticiones=1, calentamiento=0)


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    if shutil.which("wrk") is None:
        setup_step_missing(
            "wrk (la instalación de paquetes)", "wrk no está instalado (paquete Debian «wrk»)."
        )
    require_servers(["nethttp"])
    results = tmp_path / "resultados"
    monkeypatch.setenv("CURSO_RESULTADOS", str(results))
    return results


def require_servers(keys: list[str]) -> None:
    """Each server built by make setup; skipped only where its toolchain is absent (make setup installs
    neither Go nor Rust)."""
    for key in keys:
        ok, why = servers.availability(key)
        if ok:
            continue
        if servers.toolchain(servers.SERVERS[key]) is None:
            pytest.skip(why)
        setup_step_missing(f"el servidor {servers.SERVERS[key].label} compilado (red.provision)", why)


def server_processes() -> list[int]:
    """Native server processes started from the course's cache (none may outlive a run)."""
    binary = str(servers.SERVERS["nethttp"].path)
    return [p.pid for p in psutil.process_iter(["cmdline"]) if (p.info["cmdline"] or [""])[0] == binary]


def test_every_arm_that_runs_here_measures_and_cleans_up(sandbox):
    engines = available_engines()
    # The Kubernetes arms start a cluster of their own: tests/experiments/red/test_kubernetes.py.
    every = [key for key in red_arms.ARM_NAMES if key not in red_arms.KUBERNETES_ARMS]
    res = exp.run(exp.config(motores=engines, brazos=every, **SHORT), log=lambda _: None)
    assert res.status == "complete"
    skipped = res.meta.get("skipped_arms", {})
    measured = {(e, v) for e, v in res.df[["engine", "variant"]].drop_duplicates().itertuples(index=False)}
    assert ("bare", "nativo") in measured
    for key, spec in red_arms.ARM_SPECS.items():
        ran = any(v == spec.variant and (e == spec.engine or key == "gvisor") for e, v in measured)
        wanted = spec.engine == "bare" or key == "gvisor" or spec.engine in engines
        if wanted:
            # every arm either measured or says in Spanish why not
            assert ran or any(key in k or spec.label in k for k in skipped), key
    assert all(isinstance(why, str) and why for why in skipped.values())
    s = summarize(res.df, res.meta)
    assert (s["req_s"] > 0).all() and (s["us_cpu_servidor"] > 0).all()
    docker_p = s[(s["engine"] == "docker") & (s["variant"] == "puerto")]
    if len(docker_p):
        assert docker_p["us_cpu_proxy"].iloc[0] > 0  # docker-proxy really carried the requests
    for engine_name in engines:
        host = s[(s["engine"] == engine_name) & (s["variant"] == "host")]
        if len(host):
            assert host["us_cpu_proxy"].iloc[0] == 0  # no forwarder with --network host
    assert all(1 <= port <= 65535 for port in res.meta["ports"].values())
    assert leftovers(res.meta["run_id"]) == {n: [] for n in engines}
    assert res.meta["cleanup_leftovers"] == {n: 0 for n in engines}
    assert server_processes() == []
    for name in engines:  # the `-p` arms' bridge of the run (engines/bridges.py) is gone with it
        networks = subprocess.run(
            [name, "network", "ls", "--format", "{{.Name}}"], capture_output=True, text=True
        )
        assert res.meta["run_id"].lower() not in networks.stdout
    claims = {c.key: c for c in exp.claims(res.df, res.meta)}
    assert set(claims) == {
        "docker_pierde_66",
        "causa_seguridad",
        "gin_igual_nethttp",
        "columna_por_hilo",
        "kubernetes_pierde_84",
        "docker_gin_pierde_66",
        "kubernetes_gin_pierde_84",
        "latencia_docker_nethttp",
        "latencia_kubernetes_nethttp",
        "latencia_docker_gin",
        "latencia_kubernetes_gin",
        "actix_rocket_128",
    }
    assert claims["columna_por_hilo"].status == verdict.NO_COMPARABLE  # another machine's absolute figure
    # another load than the document's: its figures are not compared
    assert claims["gin_igual_nethttp"].status == verdict.NO_COMPARABLE
    if "docker" in engines:  # the security arm ran with seccomp off, the -p arm with Docker's default
        sec = s[(s["engine"] == "docker") & (s["variant"] == "sin_seccomp")]
        assert len(sec) and sec["us_cpu_proxy"].iloc[0] > 0  # same path: through docker-proxy
        assert "security_options" in res.meta["engines"]["docker"]


def test_the_documents_four_servers_answer_natively_and_in_docker(sandbox):
    """net/http, gin, actix-web and Rocket (the appendix's four) serve wrk natively, and on the arms the
    document ran them on: behind Docker -p, net/http (the first server, on every arm) and gin."""
    require_servers(list(servers.SERVER_NAMES))
    engines = [n for n in available_engines() if n == "docker"]
    arms = ["nativo"] + (["docker-puerto"] if engines else [])
    cfg = exp.config(
        **{**SHORT, "servidores": list(servers.SERVER_NAMES), "brazos": arms, "motores": engines}
    )
    res = exp.run(cfg, log=lambda _: None)
    assert res.status == "complete" and not res.meta.get("skipped_arms"), res.meta.get("skipped_arms")
    s = summarize(res.df, res.meta)
    served = {(r.servidor, r.engine) for r in s.itertuples() if r.req_s > 0}
    # the first server on every arm, the others on the arms the document ran them on
    expected = {
        (k, e) for k in servers.SERVER_NAMES for e in ["bare", *engines] if e == "bare" or k != "actix"
    }
    expected -= {("rocket", e) for e in engines}
    assert served == expected
    assert leftovers(res.meta["run_id"]) == {n: [] for n in available_engines()}
    assert server_processes() == []


def test_a_server_that_does_not_answer_fails_its_arm_not_the_run(sandbox, monkeypatch):
    # Fault injection: wait for a body no server sends, with a short timeout.
    monkeypatch.setattr(servers, "BODY", "una respuesta que ningún servidor envía")
    monkeypatch.setattr(start, "READY_TIMEOUT_S", 1.0)
    engines = available_engines()[:1]
    res = exp.run(
        exp.config(
            motores=engines,
            brazos=["nativo", "docker-puerto", "podman-puerto"],
            **{k: v for k, v in SHORT.items()},
        ),
        log=lambda _: None,
    )
    assert res.status == "complete" and res.df.empty
    reasons = res.meta["skipped_arms"]
    assert any("no respondió" in why for why in reasons.values())
    assert leftovers(res.meta["run_id"]) == {n: [] for n in available_engines()}
    assert server_processes() == []


def test_ctrl_c_stops_servers_and_removes_containers(sandbox):
    """A real SIGINT to a separate Python process while wrk is loading the servers."""
    engines = available_engines()
    if not engines:
        setup_step_missing(
            "Docker o Podman instalado y en marcha", "No hay Docker ni Podman disponibles en esta máquina."
        )

    def servers_up(run_id):
        assert server_processes()

    run = interrupt_run(
        "red",
        dict(
            servidores=["nethttp"],
            brazos=["nativo", "docker-puerto", "podman-puerto"],
            motores=engines,
            hilos=1,
            conexiones=4,
            duracion_s=2,
            repeticiones=20,
            calentamiento=0,
        ),
        sandbox,
        ready=lambda meta, rows: rows >= 2 and all(leftovers(meta["run_id"]).values()),
        before_signal=servers_up,
    )
    assert run.meta["rows"] >= 2
    assert leftovers(run.run_id) == {n: [] for n in engines}
    assert server_processes() == []
    children = [p for p in psutil.process_iter(["name"]) if p.info["name"] == "wrk"]
    assert all(p.ppid() != run.pid for p in children)
