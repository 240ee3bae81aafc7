"""Network experiment (notebook 06): wrk parsing, the loopback-only rule, parameters, analysis, claims,
the server images and the views.

No engine and no load here; the real runs are in test_engines.py."""

from __future__ import annotations

import socket
import subprocess

import numpy as np
import pandas as pd
import pytest

from helpers import PROJECT_ROOT, reference, results
from helpers.errors import ErrorDelCurso, ParametroInvalido
from helpers.experiments import red as exp
from helpers.experiments import verdict
from helpers.experiments.contract import CLOSING_COLUMNS
from helpers.experiments.red import arms, servers
from helpers.experiments.red import load as wrk
from helpers.experiments.runner import Resultado

# A real `wrk --latency` report from this machine, and one in the seed's appendix style (no --latency).
LIVE = """Running 3s test @ http://127.0.0.1:18080/
  2 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.94ms    7.51ms  91.46ms   95.27%
    Req/Sec     9.55k     3.33k   15.72k    65.00%
  Latency Distribution
     50%  812.00us
     75%    4.50ms
     90%    8.01ms
     99%    1.20s
  57949 requests in 3.09s, 8.23MB read
  Socket errors: connect 0, read 7, write 1, timeout 2
  Non-2xx or 3xx responses: 3
Requests/sec:  18777.69
Transfer/sec:      2.67MB
"""
SEED_STYLE = """Running 30s test @ http://localhost:8080
  12 threads and 400 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    11.16ms    4.78ms  95.97ms   78.89%
    Req/Sec     3.00k   397.64     4.15k    71.00%
  1076704 requests in 30.04s, 1.11GB read
  Socket errors: connect 0, read 261, write 0, timeout 0
Requests/sec:  35839.72
Transfer/sec:      4.48MB
"""


# ------------------------------------------------------------------ parsing
def test_parse_live_report_with_percentiles_and_units():
    s = wrk.parse(LIVE)
    assert s["req_s"] == pytest.approx(18777.69)
    assert s["req_s_hilo"] == pytest.approx(9550) and s["req_s_hilo_max"] == pytest.approx(15720)
    assert s["latencia_media"] == pytest.approx(3.94)
    assert s["latencia_p50"] == pytest.approx(0.812)  # us -> ms
    assert s["latencia_p99"] == pytest.approx(1200.0)  # s -> ms
    assert s["peticiones"] == 57949 and s["duracion"] == pytest.approx(3.09)
    assert s["errores_socket"] == 10 and s["errores_timeout"] == 2
    assert s["respuestas_no_2xx"] == 3
    assert (s["hilos"], s["conexiones"]) == (2, 50)


def test_parse_seed_style_report():
    s = wrk.parse(SEED_STYLE)
    assert s["req_s"] == pytest.approx(35839.72) and s["req_s_hilo_desv"] == pytest.approx(397.64)
    assert s["leido"] == pytest.approx(1110.0)
    assert "latencia_p99" not in s and s["errores_read"] == 261


def test_parse_refuses_a_truncated_report():
    with pytest.raises(ValueError):
        wrk.parse("Running 3s test @ http://127.0.0.1:1/\n  2 threads and 50 connections\n")


# ------------------------------------------------------------------ safety: load only to 127.0.0.1
@pytest.mark.parametrize(
    "host",
    ["172.17.0.2", "10.88.0.5", "192.168.1.10", "8.8.8.8", "localhost", "::1", "127.0.0.2", "0.0.0.0", ""],
)
def test_target_refuses_any_address_but_loopback(host):
    with pytest.raises(ErrorDelCurso, match="127.0.0.1"):
        wrk.target_url(8080, {8080}, host=host)


@pytest.mark.parametrize("port", [0, 70000, "8080", 80.0, True, None])
def test_target_refuses_bad_ports(port):
    with pytest.raises(ErrorDelCurso):
        wrk.target_url(port, {8080, port} if isinstance(port, int) else {8080})


def test_target_refuses_a_port_the_experiment_did_not_publish():
    with pytest.raises(ErrorDelCurso, match="no es uno de ellos"):
        wrk.target_url(9090, {8080})
    target = wrk.target_url(8080, {8080})
    assert target.url == "http://127.0.0.1:8080/"


@pytest.mark.parametrize(
    "url",
    [
        "http://172.17.0.2:8080/",
        "http://127.0.0.1:9999/",
        "https://127.0.0.1:8080/",
        "http://127.0.0.1.example.org:8080/",
        "http://localhost:8080/",
    ],
)
def test_a_forged_target_never_reaches_wrk(url, monkeypatch):
    def no_spawn(*args, **kwargs):  # fault injection: fail loudly if anything would be started
        raise AssertionError("se lanzó un proceso con un objetivo no permitido")

    monkeypatch.setattr(subprocess, "Popen", no_spawn)
    forged = wrk.Target(url=url, port=8080)
    with pytest.raises(ErrorDelCurso, match="rechazo"):
        wrk.run(forged, 1, 1, 1)
    with pytest.raises(ErrorDelCurso):
        wrk.argv(forged, 1, 1, 1)
    with pytest.raises(ErrorDelCurso, match="target_url"):
        wrk.run(url, 1, 1, 1)


def test_every_wrk_command_targets_loopback_and_is_bounded():
    argv = wrk.argv(wrk.target_url(8080, {8080}), 2, 50, 3, cpus="1")
    assert argv[-1] == "http://127.0.0.1:8080/"
    assert argv[argv.index("-d") + 1] == "3s" and "--latency" in argv


def test_a_busy_port_is_replaced_by_a_free_one():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        busy = sock.getsockname()[1]
        assert not wrk.port_is_free(busy)
        other = wrk.free_port(busy)
        assert other != busy and wrk.port_is_free(other)
    assert wrk.free_port(None, exclude={other}) != other


def test_wait_ready_gives_a_spanish_reason_when_nothing_answers():
    port = wrk.free_port()
    ok, why = wrk.wait_ready(wrk.target_url(port, {port}), timeout=0.5)
    assert not ok and "no respondió" in why


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize(
    "params, match",
    [
        ({"repeticiones": 0}, "REPETICIONES"),
        ({"servidores": ["nginx"]}, "SERVIDORES"),
        ({"servidores": []}, "SERVIDORES"),
        ({"brazos": ["kubernetes"]}, "BRAZOS"),
        ({"hilos": 4, "conexiones": 2}, "CONEXIONES"),
        ({"duracion_s": 0}, "DURACION_S"),
        ({"duracion_s": "5"}, "DURACION_S"),
        ({"motores": ["lxc"]}, "MOTORES"),
        ({"duracion_s": 120, "repeticiones": 50, "servidores": ["nethttp", "gin", "actix"]}, "minutos"),
    ],
)
def test_bad_parameters_are_refused_in_spanish(params, match):
    with pytest.raises(ParametroInvalido, match=match):
        exp.config(**params)


@pytest.mark.parametrize("name", ["hilos", "conexiones", "duracion_s", "repeticiones", "calentamiento"])
def test_each_limit_is_declared_once_and_enforced(name):
    """The widget shows the limit the validator enforces: one past it is refused, naming the parameter."""
    spec = exp.Config.limits(name)
    control = {c["name"]: c for c in exp.CONTROLS}.get(name)
    if control is not None:
        assert (control["min"], control["max"]) == (spec.minimum, spec.maximum)
    base = {"hilos": 1, "conexiones": 64, "duracion_s": 1, "repeticiones": 1, "calentamiento": 0}
    base |= {"servidores": ["nethttp"], "brazos": ["nativo"]}
    assert getattr(exp.config(**{**base, name: int(spec.maximum)}), name) == spec.maximum
    for bad in (int(spec.minimum) - 1, int(spec.maximum) + 1):
        with pytest.raises(ParametroInvalido, match=name.upper()):
            exp.config(**{**base, name: bad})


def test_defaults_and_quick_profile_fit_their_time():
    assert exp.estimated_seconds(exp.config()) <= 4 * 60 - 30  # room for starting the servers
    quick = exp.config(**{k.lower(): v for k, v in exp.QUICK.items()})
    assert exp.estimated_seconds(quick) <= 45
    assert exp.config(servidores='["gin"]', brazos="nativo").brazos == ["nativo"]


def test_the_seed_preset_is_valid():
    cfg = exp.config(
        servidores=["nethttp"],
        brazos=["nativo", "docker-puerto"],
        repeticiones=2,
        calentamiento=0,
        **exp.SEED_PRESET,
    )
    assert (cfg.hilos, cfg.conexiones, cfg.duracion_s) == (12, 400, 30)


def test_cpu_layout_uses_two_different_cpus_when_there_are_two():
    server, load = exp.cpu_layout()
    if server is None:
        pytest.skip("esta máquina tiene menos de dos CPU permitidas")
    assert server != load


def test_run_takes_cpu_layout_from_the_package(monkeypatch, tmp_path):
    """Exercise 2 swaps red.cpu_layout from the notebook: run() must use the swapped one."""

    class Swapped(Exception):
        pass

    def swapped():
        raise Swapped

    monkeypatch.setattr(exp, "cpu_layout", swapped)
    monkeypatch.setattr(wrk, "available", lambda: (True, None))
    monkeypatch.setenv("CURSO_RESULTADOS", str(tmp_path))
    with pytest.raises(Swapped):
        exp.run(exp.config(brazos=["nativo"], motores=[]), log=lambda _: None)


# ------------------------------------------------------------------ analysis on synthetic rows
def _rows(engine, variant, server, values, per_thread_div=2.0, proxy_us=0.0):
    out = []
    for rep, v in enumerate(values, 1):
        requests = v * 3
        for metric, value, unit in (
            ("req_s", v, "req/s"),
            ("req_s_hilo", v / per_thread_div, "req/s"),
            ("latencia_p50", 1e3 / v * 50, "ms"),
            ("latencia_p99", 5e3 / v * 50, "ms"),
            ("peticiones", requests, "peticiones"),
            ("errores_socket", 0, "errores"),
            ("cpu_servidor", requests * 20e-6, "s"),
            ("cpu_proxy", requests * proxy_us * 1e-6, "s"),
            ("cpu_ayudante", 0.0, "s"),
            ("cpu_carga", requests * 10e-6, "s"),
        ):
            out.append(
                {
                    "experiment": "red",
                    "engine": engine,
                    "image": server,
                    "variant": variant,
                    "rep": rep,
                    "metric": metric,
                    "value": value,
                    "unit": unit,
                }
            )
    return out


def synthetic() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    noise = lambda m: list(m * (1 + rng.normal(0, 0.005, 8)))  # noqa: E731
    rows = (
        _rows("bare", "nativo", "nethttp", noise(100_000))
        + _rows("bare", "nativo", "gin", noise(101_000))
        + _rows("docker", "puerto", "nethttp", noise(34_000), proxy_us=30)
        + _rows("docker", "host", "nethttp", noise(97_000))
    )
    return pd.DataFrame(rows, columns=results.COLUMNS)


def test_summary_ratios_and_cpu_per_request():
    s = exp.summarize(synthetic())
    row = s[(s["engine"] == "docker") & (s["variant"] == "puerto")].iloc[0]
    assert row["frente_nativo"] == pytest.approx(0.34, abs=0.01)
    assert row["frente_nativo_ic_bajo"] <= row["frente_nativo"] <= row["frente_nativo_ic_alto"]
    assert row["us_cpu_proxy"] == pytest.approx(30) and row["us_cpu_servidor"] == pytest.approx(20)
    assert row["brazo"] == "Docker -p (docker-proxy)"
    assert list(s["servidor"])[:1] == ["nethttp"] and not s["inestable"].any()


def test_claims_follow_the_one_rule():
    claims = {c.key: c for c in exp.claims(synthetic(), {"parameters": {"hilos": 2}})}
    assert claims["docker_pierde_66"].status == verdict.SE_CONFIRMA  # 66 % loss, tight IC
    assert claims["docker_pierde_66"].value == pytest.approx(66, abs=1)
    assert claims["causa_seguridad"].status == verdict.NO_SE_SOSTIENE  # host arm barely loses
    assert claims["gin_igual_nethttp"].status == verdict.SE_CONFIRMA
    assert claims["columna_por_hilo"].status == verdict.NO_SE_SOSTIENE
    assert claims["columna_por_hilo"].value == pytest.approx(2.0)
    assert all(c.source == exp.SOURCE for c in claims.values())


def test_claims_are_declared_as_the_source_said_them():
    """Statement, figure and margin of each claim, as the course has always judged them."""
    declared = {
        c.key: (c.claimed, c.region, c.unit) for c in exp.claims(synthetic(), {"parameters": {"hilos": 2}})
    }
    assert declared == {
        "docker_pierde_66": (66.0, (61.0, 71.0), "%"),
        "causa_seguridad": (1.0, (0.9, 1.1), "x"),
        "gin_igual_nethttp": (1.0, (0.9, 1.1), "x"),
        "columna_por_hilo": (1.0, (0.9, 1.1), "x"),
    }
    statements = {c.key: c.statement for c in exp.claims(synthetic())}
    assert statements["docker_pierde_66"].startswith("Docker pierde alrededor del 66 %")
    assert "8,78k y 9,01k" in statements["gin_igual_nethttp"]


def test_the_loss_is_the_ratio_turned_into_percent():
    df = synthetic()
    loss = {c.key: c for c in exp.claims(df)}["docker_pierde_66"]
    native = exp.arm_values(df, "req_s", "bare", "nativo", "nethttp")
    docker = exp.arm_values(df, "req_s", "docker", "puerto", "nethttp")
    assert (loss.value, loss.low, loss.high) == pytest.approx(exp.loss_pct(docker, native))
    assert loss.low <= loss.value <= loss.high and loss.n == 8


def test_one_wrk_thread_cannot_tell_per_thread_from_total():
    claims = {c.key: c for c in exp.claims(synthetic(), {"parameters": {"hilos": 1}})}
    assert claims["columna_por_hilo"].status == verdict.SIN_DATOS
    assert "HILOS = 1" in claims["columna_por_hilo"].note


def test_claims_without_data_say_so():
    empty = pd.DataFrame(columns=results.COLUMNS)
    assert {c.status for c in exp.claims(empty)} == {verdict.SIN_DATOS}
    only_native = synthetic()
    only_native = only_native[only_native["engine"] == "bare"]
    statuses = {c.key: c.status for c in exp.claims(only_native)}
    assert (
        statuses["docker_pierde_66"] == verdict.SIN_DATOS
        and statuses["gin_igual_nethttp"] == verdict.SE_CONFIRMA
    )


# ------------------------------------------------------------------ reference
def test_reference_holds_the_whole_appendix():
    ref = reference.load("red")
    totals = ref[ref["metric"] == "req_s"]
    assert len(totals) == 8 and set(ref["source"]) == {"seed003"}
    assert set(totals["engine"]) == {"bare", "docker", "kubernetes"}
    assert set(totals["image"]) == {"nethttp", "gin", "actix", "rocket"}
    per_thread = ref[ref["metric"] == "req_s_hilo"].set_index(["engine", "image"])["value"]
    # The seed's table: 8.78k native, 3.00k Docker, a 65.83 % loss, all per thread.
    assert per_thread[("bare", "nethttp")] == 8780 and per_thread[("docker", "nethttp")] == 3000
    assert 1 - per_thread[("docker", "nethttp")] / per_thread[("bare", "nethttp")] == pytest.approx(
        0.6583, abs=1e-4
    )
    ratios = exp.reference_ratios(ref).set_index(["servidor", "engine"])["frente_nativo"]
    assert ratios[("nethttp", "docker")] == pytest.approx(35839.72 / 104418.14)
    assert ratios[("gin", "kubernetes")] == pytest.approx(17427.49 / 107115.65)


def test_reference_rows_parse_back_from_the_seed_text():
    """Every total in red.csv is what load.parse reads from the source's appendix."""
    seed = next((PROJECT_ROOT.parent / "shared" / "seeds").glob("003_*.txt"), None)
    if seed is None:
        pytest.skip("los documentos de origen no están junto al repositorio")
    blocks = seed.read_text().split("```")[1::2]
    parsed = sorted(round(wrk.parse(b)["req_s"], 2) for b in blocks if "Requests/sec" in b)
    ref = reference.load("red")
    assert parsed == sorted(ref.loc[ref["metric"] == "req_s", "value"].round(2))


def test_compare_and_closing_rows():
    ref = reference.load("red")
    table = exp.compare(synthetic(), {}, ref)
    nethttp_docker = table[(table["servidor"] == "nethttp") & (table["nivel"] == "docker")].iloc[0]
    assert nethttp_docker["tu_frente_nativo"] == pytest.approx(0.34, abs=0.01)
    kube = table[table["nivel"] == "kubernetes"]
    assert len(kube) == 2 and kube["tu_frente_nativo"].isna().all()  # reference only, never live
    closing = exp.closing_rows(synthetic())
    assert list(closing.columns) == CLOSING_COLUMNS and set(closing["tipo"]) == {"RUNNING"}
    assert len(closing) == 3


def test_server_catalogue_and_sources():
    assert set(servers.SERVER_NAMES) == {"nethttp", "gin", "actix"}
    go_mod = (servers.SOURCES_DIR / "go" / "go.mod").read_text()
    assert "github.com/gin-gonic/gin v" in go_mod and (servers.SOURCES_DIR / "go" / "go.sum").exists()
    cargo = (servers.SOURCES_DIR / "actix" / "Cargo.toml").read_text()
    assert 'version = "=' in cargo and (servers.SOURCES_DIR / "actix" / "Cargo.lock").exists()
    ok, why = servers.availability("actix")
    assert ok or why.startswith("Rust actix-web no está")


class FakeEngine:
    """An engine that holds images by name (the server images are looked up, never pulled)."""

    name, display = "podman", "Podman"

    def __init__(self, present=()):
        self.images = {n: {"id": f"sha256:{n}", "size_bytes": 1} for n in present}

    def image_info(self, name):
        return self.images.get(name)


def test_a_server_image_is_imported_once_and_found_by_its_local_name(monkeypatch):
    engine = FakeEngine()
    imported = []

    def fake_import(eng_, server, log):
        imported.append(server.key)
        eng_.images[f"localhost/{server.image_tag()}"] = {"id": "sha256:nuevo", "size_bytes": 7}

    monkeypatch.setattr(servers.eng, "get_engine", lambda name: engine)
    monkeypatch.setattr(servers, "is_built", lambda server: True)
    monkeypatch.setattr(servers, "_import_binary", fake_import)
    first = servers.ensure_image("podman", "nethttp", log=lambda _: None)
    again = servers.ensure_image("podman", "nethttp", log=lambda _: None)
    assert imported == ["nethttp"]
    tag = servers.SERVERS["nethttp"].image_tag()
    assert (
        first
        == again
        == {
            "server": "nethttp",
            "engine": "podman",
            "name": f"localhost/{tag}",
            "id": "sha256:nuevo",
            "size_bytes": 7,
        }
    )


def test_no_image_without_a_built_binary(monkeypatch):
    monkeypatch.setattr(servers.eng, "get_engine", lambda name: FakeEngine())
    monkeypatch.setattr(servers, "is_built", lambda server: False)
    assert servers.ensure_image("podman", "gin", log=lambda _: None) is None


# ------------------------------------------------------------------ views on a synthetic run
def test_every_view_displays_itself_and_returns_none(monkeypatch, tmp_path):
    import IPython.display
    import matplotlib

    matplotlib.use("Agg")
    from helpers.view import red as vista

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    monkeypatch.setattr("matplotlib.pyplot.show", lambda *a, **k: None)
    meta = {
        "parameters": {"hilos": 2, "conexiones": 50, "duracion_s": 3},
        "skipped_arms": {"docker-sin-proxy": exp.SIN_PROXY_REASON},
    }
    resultado = Resultado("red", synthetic(), tmp_path, meta)
    for name in ("tabla", "por_hilo", "omitidos", "grafico", "grafico_cpu", "veredictos", "comparacion"):
        assert getattr(vista, name)(resultado) is None, name
    assert vista.referencia() is None and vista.kubernetes() is None
    html = " ".join(o.to_html() for o in shown if hasattr(o, "to_html"))
    assert "Go net/http" in html and "Rust rocket" in html and "port-forward" in html
    text = " ".join(str(getattr(o, "data", "")) for o in shown)
    assert "docker-sin-proxy" in text
    # The claims, rendered by the shared renderer from their declarations, then this run's figures.
    assert "«Docker pierde alrededor del 66 %" in text and "— se confirma.**" in text
    assert "«El autor no sabe por qué" in text and "— no se sostiene.**" in text
    assert "Con `--network host`, el mismo contenedor de Docker pierde 2.9 % frente a nativo." in text
    assert "docker-proxy gastó 30.0 µs de CPU por petición." in text


def test_gvisor_without_root_is_skipped_with_the_standard_reason(monkeypatch):
    from helpers import system

    monkeypatch.setattr(system, "is_root", lambda: False)
    monkeypatch.setattr(arms, "userland_proxy_disabled", lambda: False)
    monkeypatch.setattr(servers, "availability", lambda key: (True, None))
    cfg = exp.config(brazos=["nativo", "gvisor"], motores=[])
    planned, skipped = exp.plan(cfg, [])
    assert [(a.engine, a.variant, a.image) for a in planned] == [
        ("bare", "nativo", "nethttp"),
        ("bare", "nativo", "gin"),
    ]
    assert "root" in skipped["gvisor"] and "gVisor" in skipped["gvisor"]
    assert "gvisor" in exp.NEEDS_ROOT


def test_an_arm_without_its_image_fails_with_the_reason_and_starts_nothing(monkeypatch):
    from helpers.experiments.red import start

    def no_start(*args, **kwargs):
        raise AssertionError("se arrancó un servidor sin imagen")

    monkeypatch.setattr(start, "start_arm", no_start)
    arm = exp.HttpArm(
        "docker", "puerto", "nethttp", "Docker -p · Go net/http", exp.ARM_SPECS["docker-puerto"]
    )
    (started,) = exp.start_all([arm], {arm: None}, None, ctx=None)
    assert started.arm is arm and "make setup" in started.failed
