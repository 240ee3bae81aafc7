"""Network experiment (notebook 06): wrk parsing, the loopback-only rule, parameters, analysis, claims,
the server images and the views.

No engine and no load here; the real runs are in test_engines.py."""

from __future__ import annotations

import importlib
import re
import shutil
import socket
import subprocess

import numpy as np
import pandas as pd
import pytest

from helpers import PROJECT_ROOT, reference, results, sources
from helpers.errors import ErrorDelCurso, ParametroInvalido
from helpers.experiments import red as exp
from helpers.experiments import verdict
from helpers.experiments.contract import CLOSING_COLUMNS
from helpers.experiments.red import analysis, arms, servers
from helpers.experiments.red import arms as red_arms
from helpers.experiments.red import load as wrk
from helpers.experiments.red import measure as red_measure
from helpers.experiments.red.analysis import compare, reference_ratios, summarize
from helpers.experiments.red.arms import plan
from helpers.experiments.red.claims import SOURCE
from helpers.experiments.red.measure import DOCUMENT_PRESET, SEED_PRESET, UNPINNED
from helpers.experiments.red.start import start_all
from helpers.experiments.runner import Resultado
from tests.support import assert_round_rows_change_nothing

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
    default = exp.config()
    # five minutes for the default run, the Kubernetes cluster's start and teardown counted once
    assert exp.estimated_seconds(default) <= 5 * 60
    quick = exp.config(**{k.lower(): v for k, v in exp.QUICK.items()})
    assert exp.estimated_seconds(quick) <= 45
    assert exp.config(servidores='["gin"]', brazos="nativo").brazos == ["nativo"]


def test_the_default_run_reaches_a_verdict_for_every_claim_it_judges():
    """Enough repetitions for the verdict module's minimum, and every arm a judged claim reads."""
    default = exp.config()
    assert default.repeticiones >= verdict.MIN_N
    needed = {("bare", "nativo"), ("docker", "puerto"), ("docker", "sin_seccomp")}
    chosen = {(red_arms.ARM_SPECS[k].engine, red_arms.ARM_SPECS[k].variant) for k in default.brazos}
    assert needed <= chosen and {"nethttp", "gin"} <= set(default.servidores)
    # The quick profile too, for the two claims on Docker -p (gin's claim needs gin: not in a minute).
    quick = exp.config(**{k.lower(): v for k, v in exp.QUICK.items()})
    assert quick.repeticiones >= verdict.MIN_N
    assert needed == {(red_arms.ARM_SPECS[k].engine, red_arms.ARM_SPECS[k].variant) for k in quick.brazos}


def test_the_quick_profile_says_it_shows_figures_without_verdicts(monkeypatch, tmp_path):
    import IPython.display

    from helpers.view import red as vista

    quick = exp.config(**{k.lower(): v for k, v in exp.QUICK.items()})
    # The quick profile stays below the minimum (today's or a future higher one), so the page says it.
    monkeypatch.setattr(verdict, "MIN_N", max(verdict.MIN_N, quick.repeticiones + 1))
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    df = synthetic()
    short = Resultado("red", df[df["rep"] <= quick.repeticiones], tmp_path, {"parameters": {"hilos": 2}})
    vista.veredictos(short)
    text = " ".join(str(getattr(o, "data", "")) for o in shown)
    assert f"{quick.repeticiones} repeticiones por brazo" in text and "sin veredictos" in text
    assert "— se confirma" not in text and "— no se sostiene" not in text
    shown.clear()
    vista.veredictos(Resultado("red", df, tmp_path, {"parameters": {"hilos": 2}}))
    assert "sin veredictos" not in " ".join(str(getattr(o, "data", "")) for o in shown)


def test_the_document_preset_is_its_load_bounded_and_on_loopback():
    """«Como el documento»: its load with its 30 s, its two servers, its three levels (native, Docker -p and
    its Deployment through port-forward), nothing pinned."""
    cfg = exp.config(**DOCUMENT_PRESET)
    assert (cfg.hilos, cfg.conexiones, cfg.duracion_s) == (12, 400, 30) == tuple(SEED_PRESET.values())
    assert cfg.brazos == ["nativo", "docker-puerto", "k8s-port-forward"] and cfg.repeticiones >= verdict.MIN_N
    assert cfg.servidores == ["nethttp", "gin"]
    assert not any(red_arms.ARM_SPECS[k].pinned for k in cfg.brazos)
    assert exp.estimated_seconds(cfg) <= red_measure.MAX_RUN_S
    # every wrk run it makes is bounded by -d and aimed at 127.0.0.1
    argv = wrk.argv(wrk.target_url(8080, {8080}), cfg.hilos, cfg.conexiones, cfg.duracion_s)
    assert argv[-1].startswith("http://127.0.0.1:") and argv[argv.index("-d") + 1] == "30s"


def test_the_panel_offers_the_document_preset_with_its_time():
    from helpers.view import panel as panel_mod
    from helpers.view import red as vista

    (preset,) = vista.PRESETS
    assert preset.values == DOCUMENT_PRESET and "127.0.0.1" in preset.warning
    message = panel_mod.preset_message(exp, {**exp.config().__dict__, **preset.values}, preset)
    minutes = round(exp.estimated_seconds(exp.config(**preset.values)) / 60)
    assert f"unos {minutes} minutos" in message or "menos de 2 minutos" in message


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
def _rows(engine, variant, server, values, per_thread_div=2.0, proxy_us=0.0, server_us=20.0):
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
            ("cpu_servidor", requests * server_us * 1e-6, "s"),
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


def synthetic(
    docker_p=34_000, host=97_000, seccomp_off=34_500, nat=60_000, reps=8, seccomp_server_us=20.0
) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    noise = lambda m: list(m * (1 + rng.normal(0, 0.005, reps)))  # noqa: E731
    rows = (
        _rows("bare", "nativo", "nethttp", noise(100_000))
        + _rows("bare", "nativo", "gin", noise(101_000))
        + _rows("docker", "puerto", "nethttp", noise(docker_p), proxy_us=30)
        + _rows(
            "docker", "sin_seccomp", "nethttp", noise(seccomp_off), proxy_us=30, server_us=seccomp_server_us
        )
        + _rows("docker", "host", "nethttp", noise(host))
        + _rows("podman", "puerto", "nethttp", noise(nat))
    )
    return pd.DataFrame(rows, columns=results.COLUMNS)


def test_summary_ratios_and_cpu_per_request():
    s = summarize(synthetic())
    row = s[(s["engine"] == "docker") & (s["variant"] == "puerto")].iloc[0]
    assert row["frente_nativo"] == pytest.approx(0.34, abs=0.01)
    assert row["frente_nativo_ic_bajo"] <= row["frente_nativo"] <= row["frente_nativo_ic_alto"]
    assert row["us_cpu_proxy"] == pytest.approx(30) and row["us_cpu_servidor"] == pytest.approx(20)
    assert row["brazo"] == "Docker -p (docker-proxy)"
    assert list(s["servidor"])[:1] == ["nethttp"] and not s["inestable"].any()


# A run with the document's set-up (`wrk -t12 -c400`, its servers unpinned): its losses are judged.
AT_DOCUMENT_LOAD = {"parameters": {**SEED_PRESET, "duracion_s": 2}, UNPINNED: True}


def test_claims_follow_the_one_rule():
    claims = {c.key: c for c in exp.claims(synthetic(), AT_DOCUMENT_LOAD)}
    assert claims["docker_pierde_66"].status == verdict.SE_CONFIRMA  # 66 % loss, tight IC
    assert claims["docker_pierde_66"].value == pytest.approx(-66, abs=1)
    light = {c.key: c for c in exp.claims(synthetic(docker_p=90_000), AT_DOCUMENT_LOAD)}["docker_pierde_66"]
    assert light.status == verdict.NO_SE_SOSTIENE and light.value == pytest.approx(-10, abs=1)
    assert claims["causa_seguridad"].status == verdict.NO_SE_SOSTIENE  # seccomp off gives nothing back
    assert claims["causa_seguridad"].value == pytest.approx(34_500 / 34_000, abs=0.01)
    assert claims["gin_igual_nethttp"].status == verdict.SE_CONFIRMA
    assert claims["columna_por_hilo"].status == verdict.NO_COMPARABLE  # an absolute figure of another machine
    assert claims["kubernetes_pierde_84"].status == verdict.SIN_DATOS  # no Kubernetes arm in this run
    assert "Kubernetes no corrió" in claims["kubernetes_pierde_84"].note
    assert all(c.source == SOURCE for c in claims.values())


def test_the_security_claim_follows_the_data_both_ways():
    """If switching seccomp off gave the requests back, the claim would be confirmed."""
    back = {c.key: c for c in exp.claims(synthetic(seccomp_off=90_000))}["causa_seguridad"]
    assert back.status == verdict.SE_CONFIRMA and back.value == pytest.approx(90_000 / 34_000, abs=0.05)
    missing_arm = synthetic()
    missing_arm = missing_arm[missing_arm["variant"] != "sin_seccomp"]
    assert {c.key: c for c in exp.claims(missing_arm)}["causa_seguridad"].status == verdict.SIN_DATOS


def test_every_claim_names_its_source_and_where_in_it():
    for claim in exp.claims(synthetic(), {"parameters": {"hilos": 2}}):
        assert claim.source == "«Container Performance Testing»", claim.key
        assert claim.where.startswith(("tabla «Results»", "sección «Conclusion»", "apéndice")), claim.key
        assert claim.status == verdict.NO_COMPARABLE or claim.note or claim.key == "gin_igual_nethttp"


def test_claims_match_the_reference_figures():
    """A claim's declared figure and its reference row cannot drift apart: each claim with a figure
    declares where it comes from (`ref`), and that row of data/reference/red.csv gives it back."""
    declared = importlib.import_module("helpers.experiments.red.claims")
    ref = reference.load("red")
    with_figure = [s for s in declared.SAID if s.claimed == s.claimed]
    assert {s.key for s in with_figure} == {
        "docker_pierde_66",
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
    for said in with_figure:
        assert said.ref is not None, said.key
        ok, found = sources.matches(said, "red")
        assert ok, (said.key, said.claimed, found)
    totals = ref[(ref["metric"] == "req_s") & (ref["engine"] == "bare") & (ref["image"] == "nethttp")]
    assert declared.APPENDIX_TOTAL == totals["value"].iloc[0]
    hilos = ref[(ref["metric"] == "hilos") & (ref["image"] == "nethttp")]["value"]
    assert set(hilos) == {declared.APPENDIX_THREADS}
    # and the figures written in the statements and in the reading are those same numbers
    from helpers.view.common import num

    said = {s.key: s for s in declared.SAID}
    assert (
        "65.83 %" in said["docker_pierde_66"].statement
        and "83.59 %" in said["kubernetes_pierde_84"].statement
    )
    assert "gin (go-gin) pierde un 66.40 %" in said["docker_gin_pierde_66"].statement
    assert "gin (go-gin) pierde un 83.68 %" in said["kubernetes_gin_pierde_84"].statement
    assert "8.78k" in said["gin_igual_nethttp"].statement and "9.01k" in said["gin_igual_nethttp"].statement
    latencies = [s for key, s in said.items() if key.startswith("latencia_")]
    assert len(latencies) == 4
    for s in latencies:  # the two latencies of its row, and their ratio to two decimals
        assert f"{s.claimed:.2f} veces" in s.statement, s.key
    assert "1.28 veces" in said["actix_rocket_128"].statement
    assert num(declared.APPENDIX_ACTIX).split(",")[0] in said["actix_rocket_128"].statement
    assert num(declared.APPENDIX_TOTAL) in declared.PER_THREAD_READING
    assert (
        f"{declared.APPENDIX_TOTAL / declared.APPENDIX_PER_THREAD:.1f} veces" in declared.PER_THREAD_READING
    )


def test_the_security_note_states_our_setup_from_the_run():
    def note(options):
        meta = {"engines": {"docker": {"server_version": "20.10.24", "security_options": options}}}
        return {c.key: c for c in exp.claims(synthetic(), meta)}["causa_seguridad"].note

    assert "AppArmor no está activo" in note(["name=seccomp,profile=default"]) and "20.10.24" in note([])
    assert "AppArmor también está activo" in note(["name=apparmor", "name=seccomp,profile=default"])
    assert "no sabemos si AppArmor" in analysis.security_setup({})


def test_the_loss_is_the_change_against_native_paired_by_round():
    """Docker -p / native − 1, round by round: a drift shared by a round cancels."""
    df = synthetic()
    drifted = df.copy()
    factor = drifted["rep"].map({r: 0.5 + 0.1 * r for r in range(1, 9)})  # every arm alike, per round
    is_rate = drifted["metric"] == "req_s"
    drifted.loc[is_rate, "value"] = drifted.loc[is_rate, "value"] * factor[is_rate]
    loss = {c.key: c for c in exp.claims(df, AT_DOCUMENT_LOAD)}["docker_pierde_66"]
    shifted = {c.key: c for c in exp.claims(drifted, AT_DOCUMENT_LOAD)}["docker_pierde_66"]
    assert loss.value == pytest.approx(100 * (34_000 / 100_000 - 1), abs=0.5)
    assert shifted.value == pytest.approx(loss.value, abs=0.5) and shifted.status == loss.status
    assert loss.low <= loss.value <= loss.high and loss.n == 8 and loss.detail.get("rondas")


def test_claims_without_data_say_so():
    empty = pd.DataFrame(columns=results.COLUMNS)
    statuses = {c.key: c.status for c in exp.claims(empty, AT_DOCUMENT_LOAD)}
    assert set(statuses.values()) == {verdict.SIN_DATOS, verdict.NO_COMPARABLE}
    assert statuses["docker_pierde_66"] == verdict.SIN_DATOS
    only_native = synthetic()
    only_native = only_native[only_native["engine"] == "bare"]
    statuses = {c.key: c.status for c in exp.claims(only_native, AT_DOCUMENT_LOAD)}
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
    ratios = reference_ratios(ref).set_index(["servidor", "engine"])["frente_nativo"]
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
    table = compare(synthetic(), {}, ref)
    nethttp_docker = table[(table["servidor"] == "nethttp") & (table["nivel"] == "docker")].iloc[0]
    assert nethttp_docker["tu_frente_nativo"] == pytest.approx(0.34, abs=0.01)
    kube = table[table["nivel"] == "kubernetes"]
    assert len(kube) == 2 and kube["tu_frente_nativo"].isna().all()  # reference only, never live
    closing = exp.closing_rows(synthetic())
    assert list(closing.columns) == CLOSING_COLUMNS and set(closing["tipo"]) == {"RUNNING"}
    assert len(closing) == 5 and "HTTP Go net/http · Docker -p (docker-proxy)" in set(closing["concepto"])


def test_server_catalogue_and_sources():
    """The document's four servers, each from pinned sources."""
    assert set(servers.SERVER_NAMES) == {"nethttp", "gin", "actix", "rocket"}
    ref = reference.load("red")
    assert set(servers.SERVER_NAMES) == set(ref["image"])  # every server of the appendix runs here
    go_mod = (servers.SOURCES_DIR / "go" / "go.mod").read_text()
    assert "github.com/gin-gonic/gin v" in go_mod and (servers.SOURCES_DIR / "go" / "go.sum").exists()
    for folder, crate in (("actix", "actix-web"), ("rocket", "rocket")):
        cargo = (servers.SOURCES_DIR / folder / "Cargo.toml").read_text()
        assert (
            f'{crate} = {{ version = "=' in cargo and (servers.SOURCES_DIR / folder / "Cargo.lock").exists()
        )
        lock = (servers.SOURCES_DIR / folder / "Cargo.lock").read_text()
        pinned = cargo.split('version = "=')[1].split('"')[0]
        assert f'name = "{crate}"\nversion = "{pinned}"' in lock  # the lock holds the pinned version
    for key in ("actix", "rocket"):
        ok, why = servers.availability(key)
        assert ok or why.startswith(f"{servers.SERVERS[key].label} no está")


def test_the_image_recipe_is_credited_to_the_documents_dockerfile():
    """The document's repository has a Dockerfile (a golang builder, `CGO_ENABLED=0 go build -ldflags="-s
    -w"`, `FROM scratch`): the course's binary-only image is its recipe, and every text says so; none
    says the document published none."""
    texts = {"servers.py": servers.__doc__}
    texts["06_red_http.ipynb"] = (PROJECT_ROOT / "notebooks" / "06_red_http.ipynb").read_text(
        encoding="utf-8"
    )
    sources = (PROJECT_ROOT / "data" / "reference" / "SOURCES.md").read_text(encoding="utf-8")
    texts["SOURCES.md"] = sources[sources.index("## `red.csv`") :]
    for name, text in texts.items():
        assert "FROM scratch" in text and "Dockerfile" in text, name
        assert "CGO_ENABLED=0" in text, name
        assert not re.search(r"no publica su Dockerfile|publishes no Dockerfile|publica ningún", text), name


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
        "parameters": {**AT_DOCUMENT_LOAD["parameters"], "brazos": ["nativo", *red_arms.KUBERNETES_ARMS]},
        "skipped_arms": {"docker-sin-proxy": red_arms.SIN_PROXY_REASON},
        UNPINNED: True,
    }
    resultado = Resultado("red", synthetic(), tmp_path, meta)
    for name in (
        "tabla",
        "por_hilo",
        "grafico",
        "grafico_cpu",
        "veredictos",
        "comparacion",
        "por_que_kubernetes",
    ):
        assert getattr(vista, name)(resultado) is None, name
    assert vista.referencia() is None and vista.kubernetes() is None
    html = " ".join(o.to_html() for o in shown if hasattr(o, "to_html"))
    assert "Go net/http" in html and "Rust Rocket" in html and "port-forward" in html
    assert html.count("Rendimiento HTTP con wrk") == 1  # each table once
    text = " ".join(str(getattr(o, "data", "")) for o in shown)
    # The claims, rendered by the shared renderer from their declarations, then this run's figures.
    assert "«En Docker, net/http (http-pkg) pierde un 65.83 %" in text and "— se confirma.**" in text
    assert "(«Container Performance Testing», tabla «Results», fila Docker · http-pkg" in text
    assert "«El autor oyó que Docker aplica" in text and "sección «Conclusion») — no se sostiene.**" in text
    assert "— no comparable.**" in text and "`kubectl port-forward`" in html
    assert "Esta corrida no pudo medir Kubernetes" in text  # asked for, not measured
    assert "docker-proxy gastó 30.0 µs de CPU por petición; el servidor, 20.0 µs." in text
    assert "SEED_PRESET" not in text and "red." not in text.replace("red.csv", "")
    assert "0,5" not in text and "x [" not in text  # one number format: decimal point and «×»


def _behind_text(tmp_path, **kw) -> str:
    from helpers.view import red as vista

    df = synthetic(**kw)
    return " ".join(vista._behind_the_claims(Resultado("red", df, tmp_path, {"parameters": {"hilos": 2}})))


def test_the_sentences_under_the_verdicts_follow_the_data(tmp_path):
    """Synthetic runs pointing both ways: each generated sentence changes with the numbers (decimals
    follow each interval's width: view.common.fmt_ratio)."""
    slower = _behind_text(tmp_path, host=90_000, nat=60_000)
    assert re.search(
        r"el mismo contenedor de Docker atiende 0\.90\d*× \[[^]]+\] lo de nativo \(IC 95 %, pareado", slower
    )
    assert "nativo (IC 95 %, pareado por ronda, n = 8 rondas): menos, con todo el IC 95 %" in slower
    assert re.search(
        r"atiende 1\.76\d*× \[[^]]+\] lo de Docker -p \([^)]*\): más, con todo el IC 95 %", slower
    )
    faster = _behind_text(tmp_path, host=110_000, nat=20_000)
    assert re.search(
        r"el mismo contenedor de Docker atiende 1\.10\d*× \[[^]]+\] lo de nativo \([^)]*\): más", faster
    )
    assert re.search(r"atiende 0\.58\d*× \[[^]]+\] lo de Docker -p \([^)]*\): menos, con todo", faster)
    same = _behind_text(tmp_path, host=100_000)
    assert (
        "lo de nativo (IC 95 %, pareado por ronda, n = 8 rondas): casi igual: el IC 95 % cae de 0.952× a"
        in same
    )
    few = _behind_text(tmp_path, host=90_000, reps=verdict.MIN_N - 1) if verdict.MIN_N > 2 else ""
    if few:
        from helpers.view import common

        assert f"rondas): {common.too_few(verdict.MIN_N - 1)}" in few
    assert "sin contenedor y con 2 hilos de wrk, el total" in slower and "2.0× la cifra por hilo" in slower
    assert (
        "Con seccomp apagado, el servidor gastó 20.0 µs de CPU por petición; con el filtro de Docker, 20.0 µs"
        in slower
    )


def test_one_wrk_thread_reads_the_column_as_the_total(tmp_path):
    from helpers.view import red as vista

    lines = vista._behind_the_claims(Resultado("red", synthetic(), tmp_path, {"parameters": {"hilos": 1}}))
    assert any(
        "con un solo hilo de wrk el total y la cifra por hilo son el mismo número" in ln for ln in lines
    )


def test_gvisor_without_root_is_skipped_with_the_standard_reason(monkeypatch):
    from helpers import system

    monkeypatch.setattr(system, "is_root", lambda: False)
    monkeypatch.setattr(arms, "userland_proxy_disabled", lambda: False)
    monkeypatch.setattr(servers, "availability", lambda key: (True, None))
    cfg = exp.config(servidores=["nethttp", "gin"], brazos=["nativo", "gvisor"], motores=[])
    planned, skipped = plan(cfg, [])
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
    arm = red_arms.HttpArm(
        "docker", "puerto", "nethttp", "Docker -p · Go net/http", red_arms.ARM_SPECS["docker-puerto"]
    )
    (started,) = start_all([arm], {arm: None}, None, ctx=None)
    assert started.arm is arm and "make setup" in started.failed


def test_the_kubernetes_sentence_follows_the_reference_figures(monkeypatch):
    """Whether Kubernetes lost more than Docker in the document is read from its figures, and the page says
    its gin row in Docker was computed against net/http's native figure (66.40 %, not 67.26 %)."""
    import IPython.display

    from helpers.view import red as vista

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    real = reference.load("red")
    vista.kubernetes()
    text = " ".join(str(getattr(o, "data", "")) for o in shown)
    assert "Kubernetes perdió más" in text and "solo pudo llegar al pod por `kubectl port-forward`" in text
    assert "«66.40 %» de pérdida sale de dividir por la cifra nativa de **net/http**" in text
    assert "la pérdida sería 67.26 %" in text
    swapped = real.copy()
    k8s = (swapped["engine"] == "kubernetes") & (swapped["metric"] == "req_s")
    swapped.loc[k8s, "value"] = swapped.loc[k8s, "value"] * 4  # Kubernetes above Docker
    monkeypatch.setattr(vista.reference, "load", lambda name: swapped)
    shown.clear()
    vista.kubernetes()
    text = " ".join(str(getattr(o, "data", "")) for o in shown)
    assert "Kubernetes no perdió más que Docker" in text


def test_every_claim_of_the_document_is_listed_in_sources_with_where_and_status():
    """SOURCES.md's list for red.csv names every declared claim by key, with where the document says it."""
    text = (PROJECT_ROOT / "data" / "reference" / "SOURCES.md").read_text(encoding="utf-8")
    section = text[text.index("## `red.csv`") :]
    section = section[: section.index("\n## ", 5)]
    for said in exp.SAID:
        row = next((ln for ln in section.splitlines() if f"| `{said.key}` |" in ln), None)
        assert row is not None, f"SOURCES.md no lista {said.key}"
        assert said.where.split(",")[0] in row, (said.key, said.where, row)


def test_the_comparison_sentence_names_its_servers_as_a_spanish_list(monkeypatch, tmp_path):
    import IPython.display

    from helpers.view import red as vista

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    rng = np.random.default_rng(5)
    gin = _rows("docker", "puerto", "gin", list(34_000 * (1 + rng.normal(0, 0.005, 8))), proxy_us=30)
    df = pd.concat([synthetic(), pd.DataFrame(gin, columns=results.COLUMNS)], ignore_index=True)
    vista.comparacion(Resultado("red", df, tmp_path, AT_DOCUMENT_LOAD))
    text = " ".join(str(getattr(o, "data", "")) for o in shown)
    # net/http's row is the figure of the document's loss: its verdict, not a second judgement; gin's
    # (gin over gin's native) is another figure than its claim's (over net/http's): compared
    assert "Para Go net/http con `-p`, tu proporción es la cifra de una pérdida del documento" in text, text
    assert "coincide con la del documento para Go gin con `-p`" in text, text
    cells = shown[0].data.set_index(["servidor", "nivel"])["¿coincide?"]
    assert cells[(vista.SERVIDOR["nethttp"], vista.NIVEL["docker"])] == "su veredicto, arriba: «se confirma»"
    assert vista._names(["a", "b", "c"]) == "a, b y c" and vista._names(["a"]) == "a"


def test_the_comparison_never_judges_a_loss_its_verdict_calls_not_comparable(monkeypatch, tmp_path):
    """With another load than the document's, its losses are «no comparable» in the verdicts; the
    comparison table beside them says the same, never «coincide» or «no coincide» (one judgement per
    claim and page), and judges them at the document's load."""
    import IPython.display

    from helpers.view import red as vista

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    own_load = {"parameters": {"hilos": 2, "conexiones": 50, "duracion_s": 2}, UNPINNED: True}
    loss = next(c for c in exp.claims(synthetic(), own_load) if c.key == "docker_pierde_66")
    assert loss.status == verdict.NO_COMPARABLE
    vista.comparacion(Resultado("red", synthetic(), tmp_path, own_load))
    cells = (
        shown[0].data.set_index(["servidor", "nivel"]).loc[(vista.SERVIDOR["nethttp"], vista.NIVEL["docker"])]
    )
    assert cells["¿coincide?"] == "no comparable (otra carga)"
    text = " ".join(str(getattr(o, "data", "")) for o in shown[1:])
    assert "no se compara con la del documento" in text and "coincide" not in text
    shown.clear()
    vista.comparacion(Resultado("red", synthetic(), tmp_path, AT_DOCUMENT_LOAD))
    cells = (
        shown[0].data.set_index(["servidor", "nivel"]).loc[(vista.SERVIDOR["nethttp"], vista.NIVEL["docker"])]
    )
    assert cells["¿coincide?"].startswith("su veredicto, arriba: «")


def test_rootless_podman_is_never_labelled_as_nat_rules(monkeypatch, tmp_path):
    """Without root, Podman's -p goes through a user-space process (rootlessport or pasta): the table and
    the sentence under the verdicts say so, never «reglas NAT»."""
    import IPython.display

    from helpers.view import red as vista

    rootless = {"engines": {"podman": {"rootless": True}}, "parameters": {"hilos": 2}}
    s = summarize(synthetic(), rootless)
    assert "Podman sin root -p (rootlessport, en espacio de usuario)" in set(s["brazo"])
    assert not any("reglas NAT" in b for b in s["brazo"])
    assert "Podman -p (reglas NAT)" in set(summarize(synthetic(), {})["brazo"])
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.veredictos(Resultado("red", synthetic(), tmp_path, rootless))
    text = " ".join(str(getattr(o, "data", "")) for o in shown)
    assert "Podman sin root -p no usa reglas NAT" in text and "sus reglas NAT" not in text


def test_the_rows_of_the_rounds_change_no_claim_and_no_closing_row(tmp_path):
    """The machine's load per round and each arm's position (runner.measure_rounds) are not measurements."""
    assert_round_rows_change_nothing(exp, synthetic(), {"parameters": {"hilos": 2}}, tmp_path / "rondas")


def test_without_root_the_log_and_the_page_say_the_p_arms_have_no_bridge_of_their_own(monkeypatch, tmp_path):
    """Without root, the `-p` arms run on the engine's default network, which has a way off the machine
    (no bridge of the run's own: bridges.availability says why): one Spanish line per engine in the run's
    log, the same under the page's table; none for the arms that publish nothing or run no container."""
    import json
    import os

    import IPython.display

    from helpers.experiments.red import start
    from helpers.experiments.runner import experiment_run
    from helpers.view import red as vista

    keys = ("nativo", "docker-puerto", "docker-seguridad", "docker-host", "podman-puerto", "k8s-nodeport")
    specs = [red_arms.ARM_SPECS[k] for k in keys]
    http_arms = [red_arms.HttpArm(s.engine, s.variant, "nethttp", s.label, s) for s in specs]
    logged: list[str] = []
    with experiment_run("red", {}, [], root=tmp_path / "r", log=logged.append) as ctx:
        with monkeypatch.context() as student:
            student.setattr(os, "geteuid", lambda: 1000)  # a student without root
            said = start.note_default_networks(ctx, http_arms)
        root = os.geteuid() == 0 and shutil.which("iptables")
        as_root = start.note_default_networks(ctx, http_arms) if root else None
    assert sorted(said) == ["docker", "podman"], said
    assert said["podman"].startswith("Podman sin root: ") and said["docker"].startswith("Docker: ")
    for line in said.values():
        assert "red por defecto" in line and "root (iptables)" in line
        assert logged.count(line) == 1, logged
    meta = json.loads((ctx.run.dir / "meta.json").read_text())
    assert meta[start.OWN_BRIDGE_META] == said
    assert as_root in (None, {})  # as root, the run's own bridge: nothing to say
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.tabla(Resultado("red", synthetic(), tmp_path, meta))
    text = " ".join(str(getattr(o, "data", "")) for o in shown)
    assert all(line in text for line in said.values()), text
    shown.clear()
    vista.tabla(Resultado("red", synthetic(), tmp_path, {}))
    assert not any("red por defecto" in str(getattr(o, "data", "")) for o in shown)


def test_a_claim_judged_by_hand_names_the_notebooks_parameters():
    """«HILOS = 12 y CONEXIONES = 400», as the parameters cell of 06 writes them: a student finds each
    there (never the configuration's «hilos=12»)."""
    import json

    cell = next(
        "".join(c["source"])
        for c in json.loads((PROJECT_ROOT / "notebooks" / "06_red_http.ipynb").read_text())["cells"]
        if "parameters" in c.get("metadata", {}).get("tags", [])
    )
    for text in (analysis.by_hand("gin"), analysis.HOW):
        names = re.findall(r"\b([A-Z][A-Z0-9_]+) = \d+", text)
        assert len(names) == 2 and all(re.search(rf"^{n} = ", cell, flags=re.M) for n in names), (text, names)


def test_a_ratio_to_native_that_varies_too_much_is_never_printed_nor_compared(monkeypatch):
    """Native's rounds swing (two clusters 5× apart, every other round) while Docker's do not: the
    per-round ratio is unstable, so the table says «inestable: repite» instead of a ratio and the
    comparison with the document says it once, in the figure's column, never «coincide» or an interval."""
    import IPython.display

    from helpers.view import red as vista

    swinging = [100_000 if rep % 2 else 20_000 for rep in range(8)]
    df = pd.DataFrame(
        _rows("bare", "nativo", "nethttp", swinging) + _rows("docker", "puerto", "nethttp", [34_000] * 8),
        columns=results.COLUMNS,
    )
    row = summarize(df).set_index("variant").loc["puerto"]
    assert row["frente_nativo_inestable"] and np.isnan(row["frente_nativo"])
    table = compare(df, {}, reference.load("red"))
    docker = table[(table["servidor"] == "nethttp") & (table["nivel"] == "docker")].iloc[0]
    assert docker["acuerdo"] == verdict.INESTABLE and np.isnan(docker["tu_frente_nativo"])
    assert vista.AGREEMENT[verdict.INESTABLE] == "inestable: repite"
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.comparacion(Resultado("red", df, None, AT_DOCUMENT_LOAD))
    rows = shown[0].data.set_index(["servidor", "nivel"])  # the table's Styler
    cells = rows.loc[(vista.SERVIDOR["nethttp"], vista.NIVEL["docker"])]
    assert list(cells).count("inestable: repite") == 1  # said once, in the figure's column
    assert cells["tú: frente a nativo [IC 95 %]"] == "inestable: repite" and cells["¿coincide?"] == "—"
    steady = summarize(synthetic()).set_index(["engine", "variant"]).loc[("docker", "puerto")]
    assert not steady["frente_nativo_inestable"] and steady["frente_nativo"] == pytest.approx(0.34, abs=0.01)


def test_the_main_chart_legend_hides_no_bar(monkeypatch, tmp_path):
    """The legend sits off the axes: no bar (nor its interval) under it, the last arm's included."""
    import matplotlib.pyplot as plt

    from helpers.view import red as vista
    from tests.support import capture_figures

    figs = capture_figures(monkeypatch)
    vista.grafico(Resultado("red", synthetic(nat=99_000), tmp_path, {}))  # the last arm as long as native
    fig = figs[-1]
    fig.canvas.draw()
    ax = fig.axes[0]
    box = ax.get_legend().get_window_extent()
    bars = [p.get_window_extent() for p in ax.patches]
    assert bars and not any(box.overlaps(b) for b in bars)
    plt.close("all")
