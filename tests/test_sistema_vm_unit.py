"""Experiment 8 (sistema_vm) without engines: validation, the guest's build pieces, analysis, verdicts,
views. The tables here are hand-made rows in the run format (what a run would write)."""

from __future__ import annotations

import gzip
import io
import math

import matplotlib
import pandas as pd
import pytest

from helpers import experiments, reference, vm
from helpers.errors import ParametroInvalido
from helpers.experiments import base
from helpers.experiments import sistema_vm as exp
from helpers.results import COLUMNS

matplotlib.use("Agg")


# ---------------------------------------------------------------- validation
def test_registered_and_contract():
    assert experiments.get("sistema_vm") is exp
    assert exp.NOTEBOOK == "08_sistema_vs_vm"
    assert set(exp.QUICK) <= {
        "TIPOS",
        "INSTANCIAS",
        "REPETICIONES",
        "MEMORIA_MB",
        "ACELERACION",
        "CALENTAMIENTO",
    }
    assert "qemu-system-x86" in exp.DEBIAN_PACKAGES and "qemu-utils" in exp.DEBIAN_PACKAGES


@pytest.mark.parametrize(
    "params, word",
    [
        ({"tipos": ["vm", "lxc"]}, "TIPOS"),
        ({"tipos": []}, "TIPOS"),
        ({"instancias": 0}, "INSTANCIAS"),
        ({"instancias": 9}, "INSTANCIAS"),
        ({"repeticiones": 0}, "REPETICIONES"),
        ({"memoria_mb": 8}, "MEMORIA_MB"),
        ({"memoria_mb": "mucho"}, "MEMORIA_MB"),
        ({"aceleracion": "hyperv"}, "ACELERACION"),
        ({"motor": "lxd"}, "MOTOR"),
    ],
)
def test_bad_parameters_are_spanish_errors(params, word):
    with pytest.raises(ParametroInvalido, match=word):
        exp.config(**params)


def test_a_plan_that_does_not_fit_in_memory_is_refused(monkeypatch):
    class Tiny:
        available = 512 * exp.MB

    monkeypatch.setattr(exp.psutil, "virtual_memory", lambda: Tiny)
    with pytest.raises(ParametroInvalido, match="disponibles"):
        exp.config(instancias=8, memoria_mb=1024)


def test_defaults_and_vm_memory_leave_room_for_the_block():
    cfg = exp.config()
    assert cfg.tipos == ["aplicacion", "sistema", "vm"] and cfg.aceleracion == "auto"
    assert exp.config(memoria_mb=512).vm_memory_mb >= 512 + 64


def test_kvm_requested_where_it_does_not_work_is_refused(monkeypatch):
    monkeypatch.setattr(vm, "kvm_status", lambda **kw: (False, "no existe /dev/kvm."))
    with pytest.raises(ParametroInvalido, match="KVM no funciona aquí: no existe /dev/kvm"):
        vm.resolve_acceleration("kvm")
    assert vm.resolve_acceleration("auto")[0] == "tcg"
    assert vm.resolve_acceleration("tcg")[0] == "tcg"
    monkeypatch.setattr(vm, "kvm_status", lambda **kw: (True, "arrancó."))
    assert vm.resolve_acceleration("auto")[0] == "kvm"


def test_kvm_refused_before_anything_is_launched(monkeypatch, results_tmp):
    monkeypatch.setattr(vm, "availability", lambda: (True, None))
    monkeypatch.setattr(vm, "kvm_status", lambda **kw: (False, "un huésped no arranca."))
    with pytest.raises(ParametroInvalido, match="ACELERACION"):
        exp.run(exp.config(tipos=["vm"], aceleracion="kvm"), root=results_tmp)
    assert not results_tmp.exists() or not any(results_tmp.rglob("meta.json"))


# ---------------------------------------------------------------- the guest's pieces
def _read_cpio(data: bytes) -> dict[str, tuple[int, bytes]]:
    out, pos = {}, 0
    while True:
        header = data[pos : pos + 110]
        assert header[:6] == b"070701"
        fields = [int(header[6 + 8 * i : 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name = data[pos + 110 : pos + 110 + namesize - 1].decode()
        pos += 110 + namesize
        pos += -pos % 4
        body = data[pos : pos + size]
        pos += size
        pos += -pos % 4
        if name == "TRAILER!!!":
            return out
        out[name] = (mode, body)


def test_cpio_newc_round_trip():
    entries = [("bin", 0o040755, b""), ("bin/sh", 0o120777, b"busybox"), ("init", 0o100755, b"#!/bin/sh\n")]
    parsed = _read_cpio(vm._cpio_newc(entries))
    assert parsed == {name: (mode, data) for name, mode, data in entries}


def test_initramfs_loads_the_modules_in_dependency_order(tmp_path):
    fake_busybox = tmp_path / "busybox"
    fake_busybox.write_text("#!/bin/sh\necho 'sh mount insmod busybox'\n")
    fake_busybox.chmod(0o755)
    modules = tmp_path / "mods"
    for rel in vm.MODULE_PATHS.values():
        (modules / rel).parent.mkdir(parents=True, exist_ok=True)
        (modules / rel).write_bytes(b"\x7fELF" + rel.encode())
    dest = vm.build_initramfs(fake_busybox, modules, tmp_path / "initramfs.cpio.gz")
    files = _read_cpio(gzip.decompress(dest.read_bytes()))
    init = files["init"][1].decode()
    assert init.index("virtio_ring virtio virtio_mmio") >= 0  # virtio needs virtio_ring first
    assert 'INIT="/bin/busybox init"' in init and "switch_root /newroot $INIT" in init
    assert "curso.init=" in init  # systemd disks: curso.init=/sbin/init
    assert files["bin/sh"] == (0o120777, b"busybox")
    assert all(f"lib/modules/{m}.ko" in files for m in vm.MODULES)


def test_extract_vmlinux_finds_the_lz4_payload(tmp_path):
    if not vm.shutil.which("lz4"):
        pytest.skip("falta la herramienta lz4")
    elf = b"\x7fELF" + bytes(range(256)) * 64
    packed = vm.subprocess.run(["lz4", "-l", "-c"], input=elf, capture_output=True, check=True).stdout
    bz = tmp_path / "vmlinuz"
    bz.write_bytes(b"MZ" + b"\0" * 500 + packed + b"trailing bytes")
    assert vm.extract_vmlinux(bz, tmp_path / "vmlinux").read_bytes() == elf


def test_gzip_input_is_deterministic(tmp_path):
    a = vm.gzip_input(tmp_path / "a.txt", 1).read_bytes()
    b = vm.gzip_input(tmp_path / "b.txt", 1).read_bytes()
    assert a == b and len(a) >= 1 << 20
    assert len(gzip.compress(a)) < len(a) / 2  # text-like: gzip has real work to do


def test_the_same_inittab_line_on_both_sides():
    assert vm.INITTAB_VM.startswith(vm.INITTAB_COMMON)
    assert vm.READY in vm.INITTAB_COMMON


def test_systemd_kinds_are_optional_and_labelled():
    assert exp.config().tipos == list(exp.DEFAULT_KINDS)
    cfg = exp.config(tipos=["sistema_systemd", "vm_systemd"])
    assert exp.variant_of("vm_systemd", "tcg") == "vm_systemd_emulada" and exp.is_emulated(
        "vm_systemd_emulada"
    )
    assert "emulada" in exp.kind_label("vm_systemd_emulada") and "systemd" in exp.kind_label(
        "sistema_systemd"
    )
    assert cfg.tipos == ["sistema_systemd", "vm_systemd"]
    assert "/sbin/init" in vm.kernel_cmdline("/sbin/init")


def test_kernel_cmdline_gives_the_tsc_frequency_when_known(monkeypatch):
    monkeypatch.setattr(vm, "host_tsc_khz", lambda: 2_300_000)
    assert "tsc_early_khz=2300000" in vm.kernel_cmdline() and "console=ttyS0" in vm.kernel_cmdline()
    monkeypatch.setattr(vm, "host_tsc_khz", lambda: None)
    assert "tsc_early_khz" not in vm.kernel_cmdline()


# ---------------------------------------------------------------- analysis and verdicts
def _rows(variant, engine, metric, values, unit):
    return [
        dict(
            experiment=exp.EXPERIMENT,
            engine=engine,
            image="",
            variant=variant,
            rep=i + 1,
            metric=metric,
            value=v,
            unit=unit,
        )
        for i, v in enumerate(values)
    ]


def _run_df(vm_variant="vm_emulada", vm_kept=(99.0, 100.5, 101.0), vm_disk=(0.31, 0.32, 0.33)):
    rows = []
    rows += _rows("aplicacion", "docker", exp.ARRANQUE, [290, 300, 310, 305, 295], "ms")
    rows += _rows("sistema", "docker", exp.ARRANQUE, [280, 300, 320, 290, 310], "ms")
    rows += _rows(vm_variant, "qemu", exp.ARRANQUE, [3300, 3400, 3500, 3450, 3350], "ms")
    rows += _rows("sistema", "docker", exp.DISCO, [0.0, 0.0, 0.0], "MB")
    rows += _rows(vm_variant, "qemu", exp.DISCO, list(vm_disk), "MB")
    rows += _rows("sistema", "docker", exp.PSS, [5.0, 5.2, 4.9], "MB")
    rows += _rows(vm_variant, "qemu", exp.PSS, [196.0, 197.0, 198.0], "MB")
    for metric, container, machine in (
        (exp.ANTES, 0.05, 200.0),
        (exp.DURANTE, 64.1, 252.0),
        (exp.DESPUES, 0.1, 252.1),
    ):
        rows += _rows("sistema", "docker", metric, [container] * 3, "MB")
        rows += _rows(vm_variant, "qemu", metric, [machine] * 3, "MB")
    rows += _rows("sistema", "docker", exp.RETENIDA, [0.1, 0.2, 0.1], "%")
    rows += _rows(vm_variant, "qemu", exp.RETENIDA, list(vm_kept), "%")
    rows += _rows("proceso", "bare", exp.GZIP, [480, 470, 490, 485, 475], "ms")
    rows += _rows("sistema", "docker", exp.GZIP, [482, 474, 488, 486, 477], "ms")
    rows += _rows(vm_variant, "qemu", exp.GZIP, [1500, 1480, 1520, 1510, 1490], "ms")
    return pd.DataFrame(rows, columns=COLUMNS)


def _claims(df):
    return {c.key: c for c in exp.claims(df, {})}


def test_emulated_vm_speed_is_not_judged_but_its_memory_and_disk_are():
    claims = _claims(_run_df())
    assert claims["arranque_10x"].status == base.NO_CONCLUYENTE
    assert "comparación de la clase" in claims["arranque_10x"].detail["motivo"]
    assert claims["arranque_10x"].detail["emulada"] is True
    assert claims["gzip_vm_emulada"].status == base.NO_CONCLUYENTE
    assert claims["gzip_vm_emulada"].more_reps is None  # more repetitions would not decide it
    assert claims["vm_retiene_memoria"].status == base.SE_CONFIRMA
    assert claims["contenedor_devuelve_memoria"].status == base.SE_CONFIRMA
    assert claims["vm_disco_650"].status == base.NO_SE_SOSTIENE
    assert claims["contenedor_disco_pocos_mb"].status == base.SE_CONFIRMA
    assert claims["gzip_sistema"].status == base.SE_CONFIRMA


def test_with_kvm_the_speed_claims_are_judged():
    claims = _claims(_run_df(vm_variant="vm_kvm"))
    # 3400 / 300 ≈ 11x: inside the claim's margin
    assert claims["arranque_10x"].status == base.SE_CONFIRMA
    assert claims["gzip_vm_kvm"].status == base.NO_SE_SOSTIENE  # ~3x is not "alike"


def test_systemd_pair_gets_its_own_provisioning_verdict():
    df = _run_df()
    extra = pd.DataFrame(
        _rows("sistema_systemd", "podman", exp.ARRANQUE, [2000, 2100, 1900], "ms")
        + _rows("vm_systemd_emulada", "qemu", exp.ARRANQUE, [70000, 75000, 80000], "ms"),
        columns=COLUMNS,
    )
    claims = _claims(pd.concat([df, extra], ignore_index=True))
    claim = claims["arranque_10x_systemd"]
    assert claim.status == base.NO_CONCLUYENTE and claim.detail["init"] == "systemd"
    assert claim.value == pytest.approx(75000 / 2000)


def test_a_vm_that_gives_memory_back_does_not_confirm_the_claim():
    claims = _claims(_run_df(vm_kept=(2.0, 3.0, 1.0)))
    assert claims["vm_retiene_memoria"].status == base.NO_SE_SOSTIENE


def test_fewer_than_three_values_decide_nothing():
    df = _run_df(vm_kept=(100.0,))
    claim = _claims(df)["vm_retiene_memoria"]
    assert claim.status == base.NO_CONCLUYENTE and "n = 1" in claim.detail["motivo"]
    assert not claim.detail.get("tcg")  # not the emulation's fault: too few instances


def test_no_vm_in_the_run_means_no_data():
    df = _run_df()
    claims = _claims(df[~df["variant"].str.startswith("vm")])
    assert claims["arranque_10x"].status == base.SIN_DATOS
    assert claims["vm_retiene_memoria"].status == base.SIN_DATOS


def test_summary_marks_emulated_rows_and_gzip_ratios():
    s = exp.summarize(_run_df(), {})
    vm_rows = s[s["tipo"] == "vm_emulada"]
    assert vm_rows["emulada"].all() and not s[s["tipo"] == "sistema"]["emulada"].any()
    gzip_vm = s[(s["metrica"] == exp.GZIP) & (s["tipo"] == "vm_emulada")].iloc[0]
    assert gzip_vm["x_bare"] == pytest.approx(1500 / 480)


def test_closing_rows_label_the_emulated_vm():
    rows = exp.closing_rows(_run_df(), {})
    assert list(rows.columns) == base.CLOSING_COLUMNS
    vm_rows = rows[rows["entorno"].str.contains("VM")]
    assert len(vm_rows) == 2 and vm_rows["entorno"].str.contains("emulada").all()
    assert set(rows["tipo"]) == {"LAUNCH", "RUNNING"}


def test_reference_file_and_comparison():
    ref = reference.load(exp.EXPERIMENT)
    assert list(ref.columns) == COLUMNS + ["source"]
    assert (ref["source"] == "seed002").all() and ref["value"].notna().all()
    table = exp.compare(_run_df(), {}, ref)
    row = table[table["concepto"].str.startswith("arranque VM")].iloc[0]
    assert "emulada" in row["concepto"] and row["referencia"] == 10
    assert row["aquí"] == pytest.approx(3400 / 300)
    disk = table[table["concepto"].str.startswith("disco")].iloc[0]
    assert disk["referencia"] == 650


# ---------------------------------------------------------------- views
def test_views_with_a_run(tmp_path, capsys):
    from helpers.view import sistema_vm as view

    res = base.Resultado(
        exp.EXPERIMENT,
        _run_df(),
        tmp_path,
        {"status": "complete", "vm": {"acceleration": "tcg", "reason": "KVM no funciona aquí."}},
    )
    assert "emulada" in view.aceleracion(res)
    shown = view.tabla(res).data
    assert shown[shown["Instancia"].str.contains("VM")]["Instancia"].str.contains("emulada").all()
    for draw in (view.grafico_arranque, view.grafico_memoria, view.grafico_gzip):
        assert draw(res) is not None
    sentences = view.veredictos(res)
    assert any("emulada" in s for s in sentences)
    assert all(not math.isnan(len(s)) for s in sentences)
    assert "650" in io.StringIO(view.comparacion(res).data.to_string()).getvalue()


def test_views_without_a_run():
    from helpers.view import sistema_vm as view

    for func in (
        view.tabla,
        view.aceleracion,
        view.grafico_arranque,
        view.grafico_memoria,
        view.grafico_gzip,
        view.comparacion,
        view.veredictos,
    ):
        assert func(None) is None
