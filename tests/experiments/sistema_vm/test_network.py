"""Experiment 8's network test (iperf3 in each scenario): the claims and the sentence on a synthetic run,
the client's bounds, and, with the real things, a run of the iperf3 arms that leaves nothing behind."""

from __future__ import annotations

import concurrent.futures
import json
import shutil
import socket
import struct
import subprocess

import pandas as pd
import psutil
import pytest

from helpers import vm
from helpers.engines import lxd
from helpers.experiments import sistema_vm as exp
from helpers.experiments import verdict
from helpers.experiments.red.load import free_port
from helpers.experiments.sistema_vm import network
from helpers.results import COLUMNS
from tests.experiments.sistema_vm.test_lxd import require_lxd, rows_of
from tests.support import setup_step_missing


def _rows(variant, engine, values):
    return rows_of(variant, engine, exp.RED, values, "Gbit/s")


def _net_df(app, system, nested, vm_values, vm_variant="vm_kvm"):
    rows = _rows("aplicacion", "docker", app) + _rows("sistema_lxd", "lxd", system)
    rows += _rows("anidado_lxd", "docker", nested) + _rows(vm_variant, "qemu", vm_values)
    return pd.DataFrame(rows, columns=COLUMNS)


SIX = [1.0, 1.01, 0.99, 1.02, 0.98, 1.0]


def test_the_posts_network_figures_confirm_each_claim():
    nested = [10 * 0.83 * x for x in SIX]
    df = _net_df([10 * x for x in SIX], [10 * x for x in SIX], nested, [0.35 * v for v in nested])
    claims = {c.key: c for c in exp.claims(df, {})}
    assert claims["red_sistema_igual"].status == verdict.SE_CONFIRMA
    assert claims["red_anidado_17"].status == verdict.SE_CONFIRMA
    assert claims["red_anidado_17"].value == pytest.approx(0.83, rel=0.01)
    assert claims["red_vm_65"].status == verdict.SE_CONFIRMA
    assert claims["red_vm_65"].value == pytest.approx(0.35, rel=0.01)


def test_a_nested_container_as_fast_as_the_system_one_does_not_confirm_the_17_percent():
    same = [10 * x for x in SIX]
    df = _net_df(same, same, same, [3.5 * x for x in SIX])
    claims = {c.key: c for c in exp.claims(df, {})}
    assert claims["red_anidado_17"].status == verdict.NO_SE_SOSTIENE


def test_an_emulated_vm_is_not_comparable_and_the_sentence_names_every_hop():
    df = _net_df([10.0] * 3, [10.0] * 3, [8.3] * 3, [0.2] * 3, vm_variant="vm_emulada")
    claims = {c.key: c for c in exp.claims(df, {})}
    assert claims["red_vm_65"].status == verdict.NO_COMPARABLE
    sentence = network.paths_sentence(df["variant"])
    assert sentence.index("contenedor de aplicación") < sentence.index("contenedor de sistema LXD")
    assert sentence.index("dentro de un contenedor de sistema") < sentence.index("VM emulada")
    assert "dispositivo proxy de LXD" in sentence and "slirp" in sentence and "un puente más" in sentence
    assert "127.0.0.1" in sentence


def test_a_run_without_iperf_rows_has_its_network_claims_without_data():
    df = pd.DataFrame(
        _rows("aplicacion", "docker", [1.0]) + _rows("sistema_lxd", "lxd", [1.0]), columns=COLUMNS
    )
    df["metric"] = exp.GZIP
    claims = {c.key: c for c in exp.claims(df, {})}
    for key in ("red_sistema_igual", "red_anidado_17", "red_vm_65"):
        assert claims[key].status == verdict.SIN_DATOS, key
    # without the LXD system container the phase does not run: no network claim at all
    keys = {c.key for c in exp.claims(df[df["variant"] == "aplicacion"], {})}
    assert not keys & {"red_sistema_igual", "red_anidado_17", "red_vm_65"}
    assert network.paths_sentence([]) == ""


def test_the_client_aims_only_at_loopback_and_is_bounded():
    argv = network.client(5999)
    assert argv[argv.index("-c") + 1] == "127.0.0.1" and argv[argv.index("-p") + 1] == "5999"
    assert float(argv[argv.index("-t") + 1]) <= 5 and argv[argv.index("-b") + 1] == network.MAX_RATE
    assert "-J" in argv


def test_iperf3_json_is_read_and_its_errors_are_spanish():
    assert network.gbits(json.dumps({"end": {"sum_received": {"bits_per_second": 2.5e9}}})) == 2.5
    with pytest.raises(Exception, match="iperf3 falló"):
        network.gbits(json.dumps({"error": "unable to connect to server"}))
    with pytest.raises(Exception, match="no dio JSON"):
        network.gbits("iperf3: error")


def test_only_a_test_that_failed_before_its_first_byte_is_tried_again():
    assert network.before_any_byte(json.dumps({"error": "unable to receive control message: reset"}))
    assert network.before_any_byte("")
    midway = {"error": "control socket has closed unexpectedly", "intervals": [{"sum": {}}]}
    assert not network.before_any_byte(json.dumps(midway))  # it measured: never tried again
    assert not network.before_any_byte(json.dumps({"end": {"sum_received": {"bits_per_second": 1e9}}}))


def _reset_then_serve(port: int) -> subprocess.Popen | None:
    """Fault injection: the first connection to 127.0.0.1:port is reset (as QEMU's forward does while the
    guest's server is not listening again), then a real iperf3 server takes the port for one test."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(1)
        conn, _ = listener.accept()
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()  # linger 0: an RST, not a FIN
    return subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", str(port)])


def test_a_reset_before_the_first_byte_is_measured_on_the_next_try():
    if shutil.which("iperf3") is None:
        setup_step_missing("iperf3 en el host (sistema_vm.provision)", "iperf3 no está instalado")
    port = free_port()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        server = pool.submit(_reset_then_serve, port)
        try:
            with pytest.raises(Exception, match="iperf3 falló"):  # one try: the reset is the figure
                network.measure_gbits(port, tries=1)
            assert network.measure_gbits(port) > 0  # the retry reaches the real server
        finally:
            proc = server.result(timeout=30)
            proc.kill()
            proc.wait()


def _iperf_processes() -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if any(part.endswith("iperf3") for part in cmd[:4]):
            found.append(proc.pid)
    return found


def _proxy_devices(run_id: str) -> list[int]:
    """LXD's relays of a proxy device (`lxd forkproxy`, its log named after the instance) of this run."""
    tag = f"curso-{run_id.lower()}"
    return [
        proc.pid
        for proc in psutil.process_iter(["cmdline"])
        if "forkproxy" in " ".join(proc.info.get("cmdline") or []) and tag in " ".join(proc.info["cmdline"])
    ]


@pytest.mark.engines
def test_iperf_arms_write_rows_and_leave_nothing(results_tmp):
    require_lxd()
    if not network.available():
        setup_step_missing(
            "la carpeta de iperf3 para las instancias (sistema_vm.provision)", network.reason()
        )
    if not vm.availability()[0] or not network.vm_ready():
        setup_step_missing("la VM del curso con los módulos de red (sistema_vm.provision)", network.reason())
    before = _iperf_processes()
    kinds = ["aplicacion", "sistema_lxd", "anidado_lxd", "vm"]
    cfg = exp.config(tipos=kinds, repeticiones=1, instancias=1, calentamiento=0, memoria_mb=32, densidad=0)
    resultado = exp.run(cfg, log=lambda line: None, root=results_tmp)
    df = resultado.df
    assert resultado.meta["status"] == "complete"
    assert not [k for k in resultado.meta.get("skipped_arms", {}) if k.startswith("red")]
    red = df[df["metric"] == exp.RED]
    vm_variant = "vm_kvm" if resultado.meta["vm"]["acceleration"] == "kvm" else "vm_emulada"
    for variant in ("aplicacion", "sistema_lxd", "anidado_lxd", vm_variant):
        values = red[red["variant"] == variant]["value"]
        assert len(values) == 1 and (values > 0).all(), variant
    assert set(red["unit"]) == {"Gbit/s"}
    paths = resultado.meta["iperf3"]["paths"]
    assert "dispositivo proxy" in " ".join(paths["sistema_lxd"])
    run_id = resultado.meta["run_id"]
    assert not [n for n, labels in lxd.course_instances() if labels.get("curso-contenedores.run") == run_id]
    assert vm.run.leftover_processes(f"curso-{exp.EXPERIMENT}-{run_id.lower()}") == []
    assert set(_iperf_processes()) <= set(before)
    assert _proxy_devices(run_id) == []


def test_the_vm_network_claim_goes_to_the_class_like_the_other_vm_speed_claims():
    from helpers.clase import deferred
    from helpers.experiments.sistema_vm.claims import DEFERRED_TO_CLASS

    assert "red_vm_65" in DEFERRED_TO_CLASS and "red_vm_65" in deferred.kvm_keys()
    nested = [10 * 0.83 * x for x in SIX]
    df = _net_df([10 * x for x in SIX], [10 * x for x in SIX], nested, [0.35 * v for v in nested])
    kvm = {c.key: c for c in exp.claims(df, {})}["red_vm_65"]
    # what the class keeps from a machine with KVM: judged, not emulated, with its rounds
    assert kvm.status == verdict.SE_CONFIRMA and not kvm.detail.get("emulada") and kvm.n > 0
    df = _net_df([10.0] * 6, [10.0] * 6, [8.3] * 6, [0.2] * 6, vm_variant="vm_emulada")
    emulated = {c.key: c for c in exp.claims(df, {})}["red_vm_65"]
    assert emulated.status == verdict.NO_COMPARABLE and emulated.detail.get("emulada")
    assert "comparación de la clase" in emulated.note


def test_the_nested_startup_claim_points_to_the_network_claims_now_that_iperf3_runs():
    df = _net_df([10.0] * 3, [10.0] * 3, [8.3] * 3, [0.2] * 3, vm_variant="vm_emulada")
    claims = {c.key: c for c in exp.claims(df, {})}
    reason = claims["anidado_17"].note
    assert {"red_anidado_17", "red_vm_65"} <= set(claims)  # the two claims it points to, by their figures
    assert "la del 17 %" in reason and "la del 65 %" in reason and "red_anidado_17" not in reason
    assert "ninguna instancia tiene red" not in reason
