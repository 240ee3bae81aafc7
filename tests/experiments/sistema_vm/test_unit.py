"""Experiment 8 (sistema_vm) without engines: validation, the guest's build pieces, analysis, verdicts,
views. The tables here are hand-made rows in the run format (what a run would write)."""

from __future__ import annotations

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

from helpers import experiments, reference, vm
from helpers.course.facts import sistema_vm as sistema_kit
from helpers.errors import ParametroInvalido
from helpers.experiments import sistema_vm as exp
from helpers.experiments import verdict
from helpers.experiments.contract import CLOSING_COLUMNS
from helpers.experiments.runner import Resultado
from helpers.experiments.sistema_vm import kinds as sistema_vm_kinds
from helpers.experiments.sistema_vm.analysis import compare, summarize
from helpers.experiments.sistema_vm.claims import DEFERRED_TO_CLASS
from helpers.experiments.sistema_vm.kinds import (
    ANTES,
    ARRANQUE,
    DESPUES,
    DISCO,
    DURANTE,
    GZIP,
    PSS,
    RETENIDA,
    is_emulated,
    kind_label,
)
from helpers.results import COLUMNS
from tests.support import assert_round_rows_change_nothing

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
        "DENSIDAD",
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
        available = 512 * sistema_vm_kinds.MB

    monkeypatch.setattr(exp.measure.psutil, "virtual_memory", lambda: Tiny)
    with pytest.raises(ParametroInvalido, match="disponibles"):
        exp.config(instancias=8, memoria_mb=1024)


def test_defaults_and_vm_memory_leave_room_for_the_block():
    cfg = exp.config()
    assert cfg.tipos == list(sistema_vm_kinds.DEFAULT_KINDS) and cfg.aceleracion == "auto"
    assert "sistema_lxd" in cfg.tipos and "anidado_lxd" in cfg.tipos
    assert exp.config(memoria_mb=512).vm_memory_mb >= 512 + 64


def test_kvm_refused_before_anything_is_launched(monkeypatch, results_tmp):
    monkeypatch.setattr(vm, "availability", lambda: (True, None))
    monkeypatch.setattr(vm.run, "kvm_status", lambda **kw: (False, "un huésped no arranca."))
    with pytest.raises(ParametroInvalido, match="ACELERACION"):
        exp.run(exp.config(tipos=["vm"], aceleracion="kvm"), root=results_tmp)
    assert not results_tmp.exists() or not any(results_tmp.rglob("meta.json"))


# ---------------------------------------------------------------- the guest's pieces
def test_systemd_kinds_are_optional_and_labelled():
    assert exp.config().tipos == list(sistema_vm_kinds.DEFAULT_KINDS)
    cfg = exp.config(tipos=["sistema_systemd", "vm_systemd"])
    assert sistema_vm_kinds.variant_of("vm_systemd", "tcg") == "vm_systemd_emulada" and is_emulated(
        "vm_systemd_emulada"
    )
    assert "emulada" in kind_label("vm_systemd_emulada") and "systemd" in kind_label("sistema_systemd")
    assert cfg.tipos == ["sistema_systemd", "vm_systemd"]
    assert "/sbin/init" in vm.run.kernel_cmdline("/sbin/init")


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


def _run_df(
    vm_variant="vm_emulada",
    vm_kept=(99.0, 100.5, 101.0, 99.5, 100.0, 100.8),
    vm_disk=(0.31, 0.32, 0.33, 0.31, 0.32, 0.33),
):
    rows = []
    rows += _rows("aplicacion", "docker", ARRANQUE, [290, 300, 310, 305, 295, 302], "ms")
    rows += _rows("sistema", "docker", ARRANQUE, [280, 300, 320, 290, 310, 305], "ms")
    rows += _rows(vm_variant, "qemu", ARRANQUE, [3300, 3400, 3500, 3450, 3350, 3420], "ms")
    rows += _rows("sistema", "docker", DISCO, [0.0] * 6, "MB")
    rows += _rows(vm_variant, "qemu", DISCO, list(vm_disk), "MB")
    rows += _rows("sistema", "docker", PSS, [5.0, 5.2, 4.9], "MB")
    rows += _rows(vm_variant, "qemu", PSS, [196.0, 197.0, 198.0], "MB")
    for metric, container, machine in (
        (ANTES, 0.05, 200.0),
        (DURANTE, 64.1, 252.0),
        (DESPUES, 0.1, 252.1),
    ):
        rows += _rows("sistema", "docker", metric, [container] * 3, "MB")
        rows += _rows(vm_variant, "qemu", metric, [machine] * 3, "MB")
    rows += _rows("sistema", "docker", RETENIDA, [0.1, 0.2, 0.1, 0.2, 0.1, 0.15], "%")
    rows += _rows(vm_variant, "qemu", RETENIDA, list(vm_kept), "%")
    rows += _rows("proceso", "bare", GZIP, [480, 470, 490, 485, 475, 482], "ms")
    rows += _rows("sistema", "docker", GZIP, [482, 474, 488, 486, 477, 481], "ms")
    rows += _rows(vm_variant, "qemu", GZIP, [1500, 1480, 1520, 1510, 1490, 1505], "ms")
    return pd.DataFrame(rows, columns=COLUMNS)


def _claims(df):
    return {c.key: c for c in exp.claims(df, {})}


def test_emulated_vm_speed_is_not_judged_but_its_memory_and_disk_are():
    claims = _claims(_run_df())
    assert claims["gzip_vm_emulada"].status == verdict.NO_COMPARABLE
    assert "costo de emular la CPU" in claims["gzip_vm_emulada"].note
    assert claims["vm_retiene_memoria"].note == "Medido con una VM emulada (TCG)."
    assert claims["vm_retiene_memoria"].status == verdict.SE_CONFIRMA
    assert claims["contenedor_devuelve_memoria"].status == verdict.SE_CONFIRMA
    # «pocos MB» is about system containers: without LXD, no verdict (never the busybox one's 0 MB)
    assert claims["contenedor_disco_pocos_mb"].status == verdict.SIN_DATOS
    assert "esta corrida no tuvo LXD" in claims["contenedor_disco_pocos_mb"].note
    assert claims["gzip_sistema"].status == verdict.SE_CONFIRMA
    assert claims["gzip_sistema"].detail.get("rondas") is True  # paired by round


def test_a_few_mb_per_container_is_judged_on_each_lxd_pool():
    df = _run_df()
    rows = _rows("sistema_lxd", "lxd", DISCO, [210.2, 210.1, 210.3, 210.2, 210.0, 210.2], "MB")
    rows += _rows("sistema_lxd_cow", "lxd", DISCO, [6.5, 6.6, 7.9, 6.5, 6.7, 6.5], "MB")
    df = pd.concat([df, pd.DataFrame(rows, columns=COLUMNS)], ignore_index=True)
    judged = [c for c in exp.claims(df, {}) if c.key == "contenedor_disco_pocos_mb"]
    assert [(c.status, "btrfs" in c.quantity, "pool dir" in c.quantity) for c in judged] == [
        (verdict.SE_CONFIRMA, True, False),  # copy on write: a few MiB
        (verdict.NO_SE_SOSTIENE, False, True),  # `dir` copies the whole image
    ]
    assert "no tiene copia en escritura" in judged[1].note


def test_where_the_setup_cannot_reproduce_the_post_it_says_so_with_or_without_kvm():
    for vm_variant in ("vm_emulada", "vm_kvm"):
        claims = _claims(_run_df(vm_variant=vm_variant))
        # a busybox microVM is not the post's Ubuntu VM: the ratio is shown, not judged
        busybox = claims["arranque_10x"]
        assert busybox.status == verdict.NO_COMPARABLE and "busybox" in busybox.note
        assert busybox.detail["vm_x_sistema"][0] == pytest.approx(3410 / 302.5, rel=0.05)
        disk = claims["vm_disco_650"]
        assert disk.status == verdict.NO_COMPARABLE and "Ubuntu" in disk.note
        assert disk.detail["vm_mib"] == pytest.approx(0.32)
        memory = claims["memoria_16x"]  # 16 loaded instances vs our idle PSS
        assert memory.status == verdict.NO_COMPARABLE and "en reposo" in memory.note
        assert memory.detail["pss_vm_x_sistema"][0] == pytest.approx(197 / 5.0, rel=0.05)


def test_with_kvm_the_speed_claims_are_judged():
    claims = _claims(_run_df(vm_variant="vm_kvm"))
    assert claims["gzip_vm_kvm"].status == verdict.NO_SE_SOSTIENE  # ~3x is not "alike"


def _systemd_pair(vm_variant, vm_times):
    return pd.DataFrame(
        _rows("sistema_systemd", "podman", ARRANQUE, [2000, 2100, 1900, 2050, 1950, 2000], "ms")
        + _rows(vm_variant, "qemu", ARRANQUE, vm_times, "ms"),
        columns=COLUMNS,
    )


def test_systemd_pair_gets_its_own_provisioning_verdict_in_both_directions():
    df = _run_df()
    slow = [70000, 75000, 80000, 72000, 78000, 74000]
    claims = _claims(pd.concat([df, _systemd_pair("vm_systemd_emulada", slow)], ignore_index=True))
    claim = claims["arranque_10x_systemd"]
    assert claim.status == verdict.NO_COMPARABLE and claim.detail["init"] == "systemd"
    assert claims["arranque_10x"].detail["init"] == "busybox init"
    df = _run_df(vm_variant="vm_kvm")
    ten = [20000, 21000, 19000, 20500, 19500, 20000]  # ~10x
    claims = _claims(pd.concat([df, _systemd_pair("vm_systemd_kvm", ten)], ignore_index=True))
    assert claims["arranque_10x_systemd"].status == verdict.SE_CONFIRMA
    two = [4000, 4200, 3800, 4100, 3900, 4000]  # ~2x
    claims = _claims(pd.concat([df, _systemd_pair("vm_systemd_kvm", two)], ignore_index=True))
    assert claims["arranque_10x_systemd"].status == verdict.NO_SE_SOSTIENE


def test_a_vm_that_gives_memory_back_does_not_confirm_the_claim():
    claims = _claims(_run_df(vm_kept=(2.0, 3.0, 1.0, 2.5, 1.5, 2.0)))
    assert claims["vm_retiene_memoria"].status == verdict.NO_SE_SOSTIENE
    claims = _claims(_run_df(vm_kept=(100.0, 2.0, 100.0)))  # it varied: no verdict either way
    assert claims["vm_retiene_memoria"].status == verdict.NO_CONCLUYENTE


def test_freed_memory_is_an_observed_outcome_one_observation_decides_nothing():
    claim = _claims(_run_df(vm_kept=(100.0,)))["vm_retiene_memoria"]
    assert claim.status == verdict.SIN_DATOS and claim.n == 1 and claim.detail["observado"]
    assert claim.more_reps == verdict.MIN_OBSERVED
    claim = _claims(_run_df(vm_kept=(100.0,) * verdict.MIN_OBSERVED))["vm_retiene_memoria"]
    assert claim.status == verdict.SE_CONFIRMA and claim.n == verdict.MIN_OBSERVED


def test_fewer_rounds_than_the_shared_minimum_decide_nothing():
    df = _run_df()
    df = df[~((df["metric"] == GZIP) & (df["rep"] == verdict.MIN_N))]
    claim = _claims(df)["gzip_sistema"]
    assert claim.status == verdict.SIN_DATOS and claim.n == verdict.MIN_N - 1
    assert claim.more_reps == verdict.MIN_N  # «hacen falta 6»


def test_the_claims_are_found_by_key():
    keys = [c.key for c in exp.claims(_run_df(), {})]
    assert keys == [
        "arranque_10x",
        "memoria_16x",
        "vm_retiene_memoria",
        "contenedor_devuelve_memoria",
        "vm_disco_650",
        "contenedor_disco_pocos_mb",
        "gzip_sistema",
        "gzip_vm_emulada",
    ]
    declared = {s.key for s in exp.SAID}
    assert set(DEFERRED_TO_CLASS) <= declared
    assert all(s.where for s in exp.SAID), "cada afirmación dice dónde la dice el artículo"


def test_no_vm_in_the_run_means_no_data():
    df = _run_df()
    claims = _claims(df[~df["variant"].str.startswith("vm")])
    assert claims["arranque_10x"].status == verdict.SIN_DATOS
    assert claims["vm_retiene_memoria"].status == verdict.SIN_DATOS


def test_summary_marks_emulated_rows_and_gzip_ratios():
    s = summarize(_run_df(), {})
    vm_rows = s[s["tipo"] == "vm_emulada"]
    assert vm_rows["emulada"].all() and not s[s["tipo"] == "sistema"]["emulada"].any()
    gzip_vm = s[(s["metrica"] == GZIP) & (s["tipo"] == "vm_emulada")].iloc[0]
    assert gzip_vm["x_bare"] == pytest.approx(1502.5 / 481)  # medians of six values


def test_closing_rows_label_the_emulated_vm():
    rows = exp.closing_rows(_run_df(), {})
    assert list(rows.columns) == CLOSING_COLUMNS
    vm_rows = rows[rows["entorno"].str.contains("VM")]
    assert len(vm_rows) == 2 and vm_rows["entorno"].str.contains("emulada").all()
    assert set(rows["tipo"]) == {"LAUNCH", "RUNNING"}


def test_reference_file_and_comparison():
    ref = reference.load(exp.EXPERIMENT)
    assert list(ref.columns) == COLUMNS + ["source"]
    assert (ref["source"] == "seed002").all() and ref["value"].notna().all()
    table = compare(_run_df(), {}, ref)
    row = table[table["concepto"].str.startswith("arranque VM")].iloc[0]
    assert "emulada" in row["concepto"] and row["referencia"] == 10
    per_round = np.array([3300, 3400, 3500, 3450, 3350, 3420]) / np.array([280, 300, 320, 290, 310, 305])
    assert row["aquí"] == pytest.approx(np.median(per_round))  # paired by round
    disk = table[table["concepto"].str.startswith("disco")].iloc[0]
    assert disk["referencia"] == pytest.approx(650e6 / 2**20, abs=0.05)  # the post's decimal MB, in MiB


# ---------------------------------------------------------------- views
def test_views_with_a_run(tmp_path, monkeypatch):
    from helpers.view import sistema_vm as view

    res = Resultado(
        exp.EXPERIMENT,
        _run_df(),
        tmp_path,
        {"status": "complete", "vm": {"acceleration": "tcg", "reason": "KVM no funciona aquí."}},
    )
    shown = []
    monkeypatch.setattr(view, "show", lambda obj: shown.append(obj))
    monkeypatch.setattr(view, "markdown", lambda text: shown.append(text))
    assert view.aceleracion(res) is None and "emulada" in shown[-1]
    assert view.tabla(res) is None
    table = shown[-1].data
    assert table[table["Instancia"].str.contains("VM")]["Instancia"].str.contains("emulada").all()
    kept = table[table["Medida"] == view.METRIC_LABEL[RETENIDA]]["Mediana [IC 95 %]"]
    assert not kept.str.contains("[+−]").any() and kept.str.contains("%").all()  # a share: no sign
    pss = table[table["Medida"] == view.METRIC_LABEL[PSS]]["Mediana [IC 95 %]"]  # n = 3 < MIN_N
    assert not pss.str.contains(r"\[").any(), "con menos del mínimo de repeticiones no hay IC 95 %"
    six = table[table["Medida"] == view.METRIC_LABEL[ARRANQUE]]["Mediana [IC 95 %]"]
    assert six.str.contains(r"\[").all()
    for draw in (view.grafico, view.grafico_memoria, view.grafico_gzip):
        assert draw(res) is None
    assert view.memoria_y_disco(res) is None and "MiB" in shown[-1]
    assert view.comparacion(res) is None
    text = shown[-1].data.to_string()
    assert "650 MB en el artículo" in text and "≈ 620 MiB" in text and "en reposo" in text
    assert "+100" not in text and "100 %" in text  # a share, not a change: no sign
    assert view.veredictos(res) is None and "sin veredictos" not in "".join(map(str, shown))


def test_views_without_a_run():
    from helpers.view import sistema_vm as view

    for func in (
        view.tabla,
        view.aceleracion,
        view.grafico,
        view.grafico_memoria,
        view.grafico_gzip,
        view.comparacion,
        view.veredictos,
    ):
        assert func(None) is None


def test_the_memory_sentence_follows_the_data_both_ways():
    from helpers.view import sistema_vm as view

    def sentence(vm_kept):
        df = _run_df(vm_kept=vm_kept)
        return view._frase_memoria(df, {c.key: c for c in exp.claims(df, {})})

    keeps, gives = sentence((99.0, 100.5, 101.0)), sentence((2.0, 3.0, 1.0))
    assert (
        "VM emulada (TCG): tras liberar" in keeps
        and "lo retuvo en cada instancia" in keeps
        and "100.5 %" in keeps
    )
    assert "esta VM devolvió lo liberado" in gives and "lo retuvo" not in gives.split("VM emulada")[1]
    assert "unas instancias y en otras no" in sentence((99.0, 2.0, 98.0))
    one = sentence((101.4,))  # one observation: what was seen, no «en unas sí y en otras no»
    assert "unas instancias" not in one and "lo retuvo 1 de 1 vez" in one and "sin veredicto" in one, one


def test_the_disk_sentence_is_in_mib_with_the_run_s_figures():
    from helpers.view import sistema_vm as view

    small, large = view._frase_disco(_run_df()), view._frase_disco(_run_df(vm_disk=(640.0,) * 6))
    assert "MiB" in small and "MB " not in small and "0.32" in small
    assert "640" in large and small != large


def test_a_run_below_the_minimum_says_it_shows_figures_without_verdicts():
    from helpers.view import sistema_vm as view

    df = _run_df()
    few = df[(df["rep"] <= 2) | (df["metric"] == RETENIDA)]
    assert "sin veredictos" in view._pocas(exp.claims(few, {}))
    assert view._pocas(exp.claims(df, {})) == ""


def test_gzip_is_judged_against_the_posts_scenario_1_when_the_run_has_it():
    """The post compares each scenario with a container on the host, not with a bare process: with the
    application container's gzip in the run, that is the baseline (a slow container would hide it)."""
    df = _run_df(vm_variant="vm_kvm")
    alone = _claims(df)
    assert "bare metal" in alone["gzip_sistema"].quantity
    app = pd.DataFrame(
        _rows("aplicacion", "docker", GZIP, [960, 948, 976, 972, 954, 962], "ms"), columns=COLUMNS
    )
    claims = _claims(pd.concat([df, app], ignore_index=True))
    for key in ("gzip_sistema", "gzip_vm_kvm"):
        assert "contenedor de aplicación" in claims[key].quantity
    assert claims["gzip_sistema"].value == pytest.approx(0.5, rel=0.02)  # ÷ the container, not ÷ bare
    assert claims["gzip_vm_kvm"].value == pytest.approx(1.56, rel=0.03)
    assert "dentro de la VM" in claims["gzip_vm_kvm"].note
    row = compare(pd.concat([df, app], ignore_index=True), {}, reference.load(exp.EXPERIMENT))
    assert row["concepto"].str.contains("gzip en contenedor de sistema / contenedor de aplicación").any()


def test_every_claim_of_the_post_is_listed_in_sources_with_its_status():
    """SOURCES.md's section of this experiment lists every declared claim by key (the hand-written list
    an instructor reads beside the post), and the post's sections by their own titles."""
    from helpers import PROJECT_ROOT

    text = (PROJECT_ROOT / "data" / "reference" / "SOURCES.md").read_text(encoding="utf-8")
    section = text[text.index("## `sistema_vm.csv`") :]
    section = section[: section.find("\n## ", 5)] if "\n## " in section[5:] else section
    missing = [s.key for s in exp.SAID if f"`{s.key}`" not in section]
    assert not missing, f"SOURCES.md no lista: {missing}"
    for title in ("Workload Performance", "Memory Utilization", "Storage Utilization", "Provisioning Time"):
        assert title in section
    assert "Server Consolidation" in section  # the section's title; «Density» is only its name in the index
    assert not any(s.where.startswith("sección «Density»") for s in exp.SAID)


def test_the_instructors_facts_come_from_the_run_and_say_emulated(tmp_path):
    """docs/soluciones/08 states this run's figures ({{sistema_vm.*}}): the share of the freed block the
    host kept follows the data, and every figure of an emulated VM says so."""

    def facts(df):
        return sistema_kit.facts(Resultado(exp.EXPERIMENT, df, tmp_path, {"run_id": "r1"}))

    kept, given = facts(_run_df()), facts(_run_df(vm_kept=(2.0, 3.0, 1.0, 2.5, 1.5, 2.0)))
    assert "VM emulada (TCG), el 100.2 %" in kept["memoria"]
    assert "VM emulada (TCG), el 2.0 %" in given["memoria"]
    assert "VM emulada (TCG) tardó 11" in kept["arranque"]
    assert "VM emulada (TCG) 3.1" in kept["gzip"] and "costo de emular" in kept["gzip"]
    assert "lxd" not in kept  # no LXD in this run: the kit says so instead of a figure


def test_the_kit_says_when_lxd_on_dir_is_slower_than_the_vm(tmp_path):
    """Solution 08 ex. 5 and the guide compare the VM with LXD on the copy-on-write pool; LXD on `dir`
    copies the whole image, and when it reaches «listo» after the VM the kit says so, from the run."""

    def provisioning(dir_ms):
        df = pd.concat(
            [
                _run_df(),
                pd.DataFrame(
                    _rows(
                        sistema_vm_kinds.LXD_COW, "lxd", ARRANQUE, [1200, 1250, 1190, 1230, 1210, 1240], "ms"
                    )
                    + _rows("sistema_lxd", "lxd", ARRANQUE, dir_ms, "ms"),
                    columns=COLUMNS,
                ),
            ],
            ignore_index=True,
        )
        return sistema_kit.facts(Resultado(exp.EXPERIMENT, df, tmp_path, {"run_id": "r1"}))["arranque"]

    slow_dir = provisioning([7900, 8000, 8100, 7950, 8050, 8020])
    assert "copia en escritura" in slow_dir and "pool «dir»" in slow_dir
    assert "al revés que el «10 veces»" in slow_dir
    fast_dir = provisioning([1300, 1310, 1290, 1320, 1305, 1295])
    assert "pool «dir»" in fast_dir and "al revés" not in fast_dir and "tardó más también" in fast_dir
    assert (
        "pool «dir»" not in sistema_kit.facts(Resultado(exp.EXPERIMENT, _run_df(), tmp_path, {}))["arranque"]
    )


def test_only_the_claims_notebook_90_judges_are_sent_to_it():
    """A «no comparable» that says the class comparison decides it must be a key 90 judges (with KVM)."""
    df = pd.concat(
        [
            _run_df(),
            pd.DataFrame(
                _rows("sistema_lxd", "lxd", GZIP, [480] * 6, "ms")
                + _rows("sistema_lxd", "lxd", ARRANQUE, [2000] * 6, "ms"),
                columns=COLUMNS,
            ),
        ],
        ignore_index=True,
    )
    sent = {c.key for c in exp.claims(df, {}) if "comparación de la clase" in (c.note or "")}
    judged = set(DEFERRED_TO_CLASS) | {"gzip_vm_emulada"}  # 90 judges its KVM twin, gzip_vm_kvm
    assert sent and sent <= judged, sent - judged


def test_the_notebook_states_the_fio_job_and_the_gzip_input_it_runs():
    """08's «Qué medimos» gives fio's duration as disk_io.JOB runs it (it said 0.4 s of a 0.25 s job), and
    gzip's input as workload.gzip_script takes it."""
    import json

    from helpers import PROJECT_ROOT

    cells = json.loads((PROJECT_ROOT / "notebooks" / "08_sistema_vs_vm.ipynb").read_text(encoding="utf-8"))
    text = "".join("".join(c["source"]) for c in cells["cells"] if c["cell_type"] == "markdown")
    seconds = float(exp.disk_io.RUNTIME.removesuffix("ms")) / 1000
    assert f"durante {seconds:g} s" in text
    assert f"archivo de {exp.disk_io.FILE_MB} MiB" in text
    gzip_said = f"los primeros {exp.workload.INPUT_MIB} MiB (que le pasa `head -c`) del mismo archivo de "
    assert gzip_said + f"{exp.workload.FILE_MIB} MiB" in text


def test_a_cgroup_shared_with_other_processes_is_not_the_containers(monkeypatch):
    """Rootless Podman on cgroup v1 reports the user's session cgroup: its memory (everything the user
    runs) must not be read as the container's; then the container's own processes are used."""
    from types import SimpleNamespace

    from helpers.experiments.sistema_vm import instances

    box = object.__new__(instances.ContainerInstance)
    box.container = SimpleNamespace(pid=100, cgroup="/user.slice/x")
    ns = {100: "pid:[1]", 101: "pid:[1]", 555: "pid:[2]"}

    def readlink(path):
        pid = int(path.split("/")[2])
        if pid not in ns:
            raise OSError(path)
        return ns[pid]

    monkeypatch.setattr(instances.os, "readlink", readlink)
    assert box._only_mine([100, 101]) and box._only_mine([100, 999])  # 999: gone or not ours to read
    assert not box._only_mine([100, 101, 555])  # a process of another PID namespace: a shared cgroup


def test_the_rows_of_the_rounds_change_no_claim_and_no_closing_row(tmp_path):
    """The machine's load per round and each arm's position (runner.measure_rounds) are not measurements."""
    assert_round_rows_change_nothing(exp, _run_df(), {}, tmp_path / "rondas")


def test_the_posts_650_mb_are_decimal_and_stored_in_mib():
    """«~650MB» is 650 × 10⁶ bytes: 619.9 MiB in the claim, in the reference row and on the page."""
    said = {s.key: s for s in exp.SAID}["vm_disco_650"]
    assert said.claimed == pytest.approx(650e6 / 2**20, abs=0.05) and "650 MB" in said.statement
    ref = reference.load(exp.EXPERIMENT)
    row = ref[ref["metric"] == "disco_vm"]
    assert row["value"].iloc[0] == pytest.approx(said.claimed) and row["unit"].iloc[0] == "MB"


def test_sources_lists_the_posts_14_claims_each_with_its_status():
    from helpers import PROJECT_ROOT

    text = (PROJECT_ROOT / "data" / "reference" / "SOURCES.md").read_text(encoding="utf-8")
    section = text[text.index("Las 14 afirmaciones del artículo") :]
    rows = [line for line in section.splitlines() if line.startswith("  | ") and line[4:6].strip().isdigit()]
    assert [int(r.split("|")[1]) for r in rows] == list(range(1, 15))
    states = ("en vivo", "no comparable aquí", "solo referencia")
    for row in rows:
        assert any(s in row.split("|")[4] for s in states), row
    keys = {s.key for s in exp.SAID}
    named = {k for r in rows for k in re.findall(r"`([a-z0-9_]+)`", r.split("|")[5])}
    assert named <= keys and keys <= named, (keys - named, named - keys)


def test_a_run_without_the_nested_kind_says_it_was_not_asked_for(tmp_path, monkeypatch):
    """The quick profile leaves «anidado_lxd» out of TIPOS on a machine that has LXD: the page says so,
    not «hace falta LXD»."""
    from helpers.view import sistema_vm as view

    shown = []
    monkeypatch.setattr(view, "markdown", shown.append)
    meta = {"parameters": {"tipos": ["aplicacion", "sistema", "vm"]}}
    view.anidado(Resultado(exp.EXPERIMENT, _run_df(vm_kept=(99.0, 98.0, 97.0)), tmp_path, meta))
    assert "TIPOS sin «anidado_lxd»" in shown[-1] and "hace falta LXD" not in shown[-1], shown


def test_what_the_vm_holds_after_the_free_is_split_into_guest_and_qemu(tmp_path, monkeypatch):
    """The VM's «después» split (VM.resident_split): the page says how much is the guest's RAM and how
    much QEMU's own, labelled emulated; without the split rows it says nothing of it."""
    from helpers.experiments.sistema_vm.kinds import DESPUES_HUESPED, DESPUES_QEMU
    from helpers.view import sistema_vm as view

    split = pd.DataFrame(
        _rows("vm_emulada", "qemu", DESPUES_HUESPED, [130.0, 131.0, 132.0], "MB")
        + _rows("vm_emulada", "qemu", DESPUES_QEMU, [121.0, 122.0, 123.0], "MB"),
        columns=COLUMNS,
    )
    meta = {"status": "complete", "vm": {"acceleration": "tcg", "memory_mb": 384}}
    shown = []
    monkeypatch.setattr(view, "markdown", lambda text: shown.append(text))
    view.memoria_y_disco(Resultado(exp.EXPERIMENT, pd.concat([_run_df(), split]), tmp_path, meta))
    text = shown[-1]
    assert "VM emulada (TCG), separado" in text and "reserva 384 MiB con `-m 384` y solo ocupa" in text
    assert "252 MiB" in text and "131 MiB son la RAM del huésped" in text and "122 MiB son de QEMU" in text
    assert "caché de código TCG" in text
    view.memoria_y_disco(Resultado(exp.EXPERIMENT, _run_df(), tmp_path, meta))
    assert "separado" not in shown[-1]
