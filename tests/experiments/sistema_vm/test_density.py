"""Experiment 8's density phase: the levels of N for a machine, the limits as engines, LXD and the kernel
spell them, and the density claims on hand-made rows in the run format; with engines (marker), the phase
itself with N = 1 and 2 in containers and LXD."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from helpers import cgroups
from helpers import engines as eng
from helpers.engines import lxd
from helpers.engines.base import RunOptions
from helpers.experiments import sistema_vm as exp
from helpers.experiments import verdict
from helpers.experiments.sistema_vm import density
from helpers.experiments.sistema_vm import kinds as k
from helpers.experiments.sistema_vm.analysis import density_levels, fit_level, top_level
from helpers.results import COLUMNS
from helpers.view import sistema_vm_densidad as density_view
from tests.experiments.sistema_vm.test_lxd import require_lxd, rows_of

DENSITY_KEYS = {
    "densidad_gzip_sistema",
    "densidad_gzip_vm",
    "densidad_cae_aplicacion",
    "densidad_cae_sistema",
    "densidad_cae_mas_vm",
    "densidad_cpu_30",
    "densidad_memoria_16x",
}


# ---------------------------------------------------------------- levels, arms, at once
@pytest.mark.parametrize(
    "cores, most, expected",
    [
        (2, 4, [1, 2, 4]),  # 1×, 2×, 4× the 2 cores
        (2, 2, [1, 2]),  # the quick profile: 2× at most
        (2, 0, []),  # DENSIDAD = 0: no phase
        (8, 4, [1, 4]),  # 4 instances only fill 8 cores: 1× is the largest level that fits
        (1, 8, [1, 2]),  # one core: one instance already overcommits it 2×
    ],
)
def test_levels_follow_the_machine_s_cores(cores, most, expected):
    assert density.levels(cores, most) == expected


def test_overcommit_is_cpus_assigned_over_cores():
    assert [density.overcommit(n, 2) for n in (1, 2, 4)] == [1.0, 2.0, 4.0]


def test_the_phase_takes_one_system_container_lxd_s_first():
    def arm(kind):
        return k.Arm("x", kind, "", kind, kind)

    arms = [arm(k) for k in ("aplicacion", "sistema", "sistema_lxd", "sistema_lxd_cow", "anidado_lxd", "vm")]
    assert [a.kind for a in density.density_arms(arms)] == ["aplicacion", "sistema_lxd_cow", "vm"]
    assert [a.kind for a in density.density_arms(arms[:2])] == ["aplicacion", "sistema"]


def test_at_once_really_runs_everything_together():
    """Each call waits for all the others: run one after another, it would time out."""
    n = 4
    meeting = threading.Barrier(n, timeout=5)
    assert density.at_once(lambda i: (meeting.wait(), i)[1], list(range(n))) == list(range(n))


def test_throughput_is_the_part_of_the_data_file_compressed_over_the_time():
    assert density.throughput_mb_s(1000.0) == pytest.approx(density.INPUT_MIB * 2**20 / 1e6)
    assert density.throughput_mb_s(500.0, mib=8) == pytest.approx(2 * 8 * 2**20 / 1e6)


def test_the_page_says_how_much_of_the_input_each_gzip_compressed():
    part = density_view.entrada({"densidad": {"entrada_mb": 4}, "gzip": {"input_mb": 4, "file_mb": 8}})
    assert "primeros 4 MiB de un archivo de 8 MiB" in part and "como las cargas" in part
    before = density_view.entrada({"densidad": {"entrada_mb": 8}, "gzip": {"input_mb": 8}})  # the whole file
    assert "un archivo de 8 MiB" in before and "primeros" not in before
    assert density_view.entrada({}) == ""
    half = density_view.entrada({"densidad": {"entrada_mb": 2}, "gzip": {"input_mb": 4, "file_mb": 8}})
    assert "primeros 2 MiB de un archivo de 8 MiB (las cargas de arriba, 4 MiB)" in half


def test_each_gzip_of_the_density_phase_compresses_the_phases_own_part():
    """gzip_rows asks every instance for density.INPUT_MIB and turns its time into MB/s of that part."""

    class Instance:
        def __init__(self):
            self.asked = []

        def timed_gzip(self, mib):
            self.asked.append(mib)
            return 1000.0  # one second: MB/s equals the part's MB

    group = [Instance(), Instance()]
    rows = dict((metric, value) for metric, value, _ in density.gzip_rows(group, [1, 2]))
    assert [i.asked for i in group] == [[density.INPUT_MIB] * 2, [density.INPUT_MIB]]
    one = round(density.INPUT_MIB * 2**20 / 1e6, 4)
    assert rows[k.level_metric(k.DENSIDAD_INSTANCIA, 1)] == pytest.approx(one)
    assert rows[k.level_metric(k.DENSIDAD_TOTAL, 2)] == pytest.approx(2 * one, abs=1e-3)


# ---------------------------------------------------------------- limits as written and as read back
def test_limits_as_engines_and_lxd_spell_them():
    args = eng.get_engine("docker").option_args(RunOptions(cpus=2, memory_mb=384))
    assert args[args.index("--cpus") + 1] == "2" and args[args.index("--memory") + 1] == "384m"
    config = lxd.limits_config(2, 384)
    assert config == {"limits.cpu": "2", "limits.cpu.allowance": "200ms/100ms", "limits.memory": "384MiB"}


def test_limits_are_read_back_from_v1_and_v2_files(tmp_path):
    v1 = tmp_path / "v1"
    for controller, files in (
        ("cpu", {"cpu.cfs_quota_us": "200000\n", "cpu.cfs_period_us": "100000\n"}),
        ("memory", {"memory.limit_in_bytes": f"{384 * 2**20}\n", "memory.stat": "rss 0\n"}),
    ):
        folder = v1 / controller / "docker" / "abc"
        folder.mkdir(parents=True)
        for name, text in files.items():
            (folder / name).write_text(text)
    limits = cgroups.read_limits("/docker/abc", root=v1)
    assert (limits.cpus, limits.memory) == (2.0, 384 * 2**20) and "cfs_quota_us" in limits.files
    v2 = tmp_path / "v2"
    folder = v2 / "lxc.payload.x"
    folder.mkdir(parents=True)
    (v2 / "cgroup.controllers").write_text("cpu memory pids\n")
    (folder / "cpu.max").write_text("max 100000\n")
    (folder / "memory.max").write_text("max\n")
    assert cgroups.read_limits("/lxc.payload.x", root=v2) == cgroups.Limits(None, None, "cpu.max, memory.max")
    assert cgroups.parse_cpu_max("150000 100000") == 1.5
    assert cgroups.parse_cfs("-1", "100000") is None
    assert cgroups.parse_memory_limit("9223372036854771712") is None


# ---------------------------------------------------------------- the density claims
META = {"densidad": {"niveles": [1, 2, 4], "nucleos": 2, "sobrecompromiso": {"1": 1.0, "2": 2.0, "4": 4.0}}}
JITTER = (1.0, 1.01, 0.99, 1.005, 0.995, 1.002)


def _density_df(per_instance: dict, held: dict | None = None) -> pd.DataFrame:
    """per_instance: variant -> {N: MB/s per instance}; 6 rounds with a small jitter; held: variant ->
    MB the host keeps per instance after the free."""
    engines = {"aplicacion": "docker", "sistema_lxd_cow": "lxd", "vm_emulada": "qemu", "vm_kvm": "qemu"}
    rows = []
    for variant, levels in per_instance.items():
        for n, rate in levels.items():
            values = [rate * j for j in JITTER]
            rows += rows_of(
                variant, engines[variant], k.level_metric(k.DENSIDAD_INSTANCIA, n), values, "MB/s"
            )
            rows += rows_of(
                variant,
                engines[variant],
                k.level_metric(k.DENSIDAD_TOTAL, n),
                [v * n for v in values],
                "MB/s",
            )
    for variant, mb in (held or {}).items():
        rows += rows_of(variant, engines[variant], k.DENSIDAD_DESPUES, [mb] * 4, "MB")
    return pd.DataFrame(rows, columns=COLUMNS)


def _claims(df, meta=META):
    return {c.key: c for c in exp.claims(df, meta) if c.key.startswith("densidad_")}


FLAT = {1: 20.0, 2: 20.0, 4: 20.0}
HALVED = {1: 20.0, 2: 20.0, 4: 10.0}


def test_levels_of_a_run_and_its_fit_and_top():
    df = _density_df({"aplicacion": HALVED})
    assert density_levels(df) == [1, 2, 4]
    assert (fit_level(df, META), top_level(df, META)) == (1, 4)
    assert top_level(df.iloc[0:0], META) == 0


def test_containers_alike_then_falling_confirm_the_post():
    claims = _claims(_density_df({"aplicacion": HALVED, "sistema_lxd_cow": HALVED, "vm_emulada": HALVED}))
    assert claims["densidad_gzip_sistema"].status == verdict.SE_CONFIRMA
    assert claims["densidad_cae_aplicacion"].status == verdict.SE_CONFIRMA
    assert claims["densidad_cae_sistema"].status == verdict.SE_CONFIRMA
    assert claims["densidad_cae_sistema"].value == pytest.approx(0.5, rel=0.02)
    assert "pool con copia en escritura" in claims["densidad_cae_sistema"].quantity


def test_no_fall_when_overcommitted_does_not_confirm():
    claims = _claims(_density_df({"aplicacion": FLAT, "sistema_lxd_cow": {1: 20.0, 2: 20.0, 4: 13.0}}))
    assert claims["densidad_cae_aplicacion"].status == verdict.NO_SE_SOSTIENE
    assert claims["densidad_gzip_sistema"].status == verdict.SE_CONFIRMA
    slower = _claims(_density_df({"aplicacion": FLAT, "sistema_lxd_cow": {1: 15.0, 2: 15.0, 4: 7.0}}))
    assert slower["densidad_gzip_sistema"].status == verdict.NO_SE_SOSTIENE


def test_an_emulated_vm_is_not_comparable_wherever_it_appears():
    df = _density_df(
        {"aplicacion": HALVED, "sistema_lxd_cow": HALVED, "vm_emulada": {1: 5.0, 2: 5.0, 4: 1.0}},
        held={"sistema_lxd_cow": 3.5, "vm_emulada": 450.0},
    )
    claims = _claims(df)
    assert set(claims) == DENSITY_KEYS
    for key in ("densidad_gzip_vm", "densidad_cae_mas_vm", "densidad_cpu_30"):
        assert claims[key].status == verdict.NO_COMPARABLE, key
        assert "emulada" in claims[key].note and "comparación de la clase" not in claims[key].note
    memory = claims["densidad_memoria_16x"]
    assert memory.status == verdict.NO_COMPARABLE and memory.detail["emulada"] is True
    assert memory.detail["vm_x_sistema"] == pytest.approx(450 / 3.5, rel=0.01)
    assert memory.detail["frente_al_articulo"] == pytest.approx(450 / 3.5 / 16, rel=0.01)


def test_with_kvm_the_vm_s_density_claims_are_judged():
    df = _density_df({"aplicacion": HALVED, "sistema_lxd_cow": HALVED, "vm_kvm": {1: 20.0, 2: 19.0, 4: 6.0}})
    claims = _claims(df)
    assert claims["densidad_gzip_vm"].status == verdict.SE_CONFIRMA
    assert claims["densidad_cae_mas_vm"].status == verdict.SE_CONFIRMA  # 0.3 / 0.5 = 0.6
    assert claims["densidad_cpu_30"].status == verdict.SE_CONFIRMA  # 40 / 24 ≈ 1.67
    close = _claims(_density_df({"aplicacion": HALVED, "sistema_lxd_cow": HALVED, "vm_kvm": HALVED}))
    assert close["densidad_cpu_30"].status == verdict.NO_SE_SOSTIENE  # the same total: 1×
    assert close["densidad_cae_mas_vm"].status == verdict.NO_SE_SOSTIENE


def test_without_overcommit_only_the_alike_claim_is_made():
    meta = {"densidad": {"sobrecompromiso": {"1": 0.25, "4": 1.0}}}  # an 8-core machine, DENSIDAD = 4
    claims = _claims(
        _density_df({"aplicacion": {1: 20.0, 4: 20.0}, "sistema_lxd_cow": {1: 20.0, 4: 20.0}}), meta
    )
    assert set(claims) == {"densidad_gzip_sistema"}
    assert claims["densidad_gzip_sistema"].status == verdict.SE_CONFIRMA


def test_a_run_without_the_phase_makes_no_density_claim():
    rows = rows_of("aplicacion", "docker", "gzip", [300.0] * 6, "ms")
    assert _claims(pd.DataFrame(rows, columns=COLUMNS), {}) == {}


# ---------------------------------------------------------------- the phase, with engines
@pytest.mark.engines
def test_the_phase_runs_n_limited_instances_at_once_and_leaves_nothing(results_tmp):
    require_lxd()
    docker = eng.get_engine("docker")
    if not docker.available:
        pytest.skip("Docker no está disponible")
    system = "sistema_lxd_cow" if lxd.POOL_COW in lxd.pools() else "sistema_lxd"
    cfg = exp.config(
        tipos=["aplicacion", system], repeticiones=2, instancias=1, calentamiento=0, memoria_mb=32, densidad=2
    )
    res = exp.run(cfg, log=lambda line: None, root=results_tmp)
    assert res.meta["status"] == "complete"
    df = res.df
    ns = density.levels(density.cores(), 2)
    assert res.meta["densidad"]["niveles"] == ns and ns[-1] == 2
    for variant in ("aplicacion", system):
        arm = df[df["variant"] == variant]
        for n in ns:
            each = arm[arm["metric"] == k.level_metric(k.DENSIDAD_INSTANCIA, n)].sort_values("rep")["value"]
            together = arm[arm["metric"] == k.level_metric(k.DENSIDAD_TOTAL, n)].sort_values("rep")["value"]
            assert len(each) == 2 and (each > 0).all(), (variant, n)
            assert together.to_numpy() == pytest.approx(each.to_numpy() * n, abs=1e-3), (variant, n)
        # the limits, read back from each instance's cgroup: 2 CPUs of quota and the memory limit
        assert arm[arm["metric"] == k.DENSIDAD_CPUS]["value"].tolist() == [2.0, 2.0], variant
        assert arm[arm["metric"] == k.DENSIDAD_MEMORIA]["value"].tolist() == [cfg.vm_memory_mb] * 2, variant
        kept = arm[arm["metric"] == k.DENSIDAD_RETENIDA]["value"]
        assert len(kept) == 2 and (kept < 20).all(), variant  # a container gives the freed block back
    assert "cfs_quota_us" in res.meta["densidad"]["limites_leidos_de"][system] or "cpu.max" in str(
        res.meta["densidad"]["limites_leidos_de"][system]
    )
    run_id = res.meta["run_id"]
    assert docker.list_labelled(run_id) == []
    assert not [n for n, labels in lxd.course_instances() if labels.get("curso-contenedores.run") == run_id]


# ---------------------------------------------------------------- the view
def test_the_view_shows_limits_curves_and_memory_and_says_emulated(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    from helpers.experiments.runner import Resultado
    from helpers.view import sistema_vm as view
    from helpers.view import sistema_vm_densidad as density_view

    df = _density_df(
        {"aplicacion": HALVED, "sistema_lxd_cow": HALVED, "vm_emulada": {1: 5.0, 2: 5.0, 4: 1.0}},
        held={"sistema_lxd_cow": 3.5, "vm_emulada": 450.0},
    )
    limits = rows_of("vm_emulada", "qemu", k.DENSIDAD_CPUS, [2.0] * 4, "CPU")
    limits += rows_of("vm_emulada", "qemu", k.DENSIDAD_MEMORIA, [384.0] * 4, "MB")
    limits += rows_of("aplicacion", "docker", "arranque_listo", [200.0] * 6, "ms")  # a row of the main table
    df = pd.concat([df, pd.DataFrame(limits, columns=COLUMNS)], ignore_index=True)
    meta = {**META, "densidad": {**META["densidad"], "entrada_mb": 4}, "gzip": {"input_mb": 4, "file_mb": 8}}
    res = Resultado(exp.EXPERIMENT, df, tmp_path, {"status": "complete", **meta})
    shown = []
    for module in (view, density_view):
        monkeypatch.setattr(module, "show", lambda obj: shown.append(obj))
        monkeypatch.setattr(module, "markdown", lambda text: shown.append(text))
    assert view.densidad(res) is None
    assert "primeros 4 MiB" in shown.pop(1)  # between the limits and the curves
    limits_table = shown[0].data
    vm_row = limits_table[limits_table["Instancia"].str.contains("VM")].iloc[0]
    assert "no comparable" in vm_row["Instancia"] and vm_row["CPU (límite leído)"] == "2"
    assert vm_row["instancias"] == 4
    memory = shown[1].data
    assert memory["artículo, por instancia (16 a la vez)"].tolist() == ["128 MiB", "2\u202f048 MiB"]
    assert "16×" in shown[2] and "hipervisor" in shown[2]
    curve = density_view.curves(df, k.DENSIDAD_INSTANCIA)
    lxd_4 = curve[(curve["tipo"] == "sistema_lxd_cow") & (curve["n_instancias"] == 4)]["mediana"]
    assert lxd_4.iloc[0] == pytest.approx(10.0, rel=0.01)
    shown.clear()
    assert view.densidad(Resultado(exp.EXPERIMENT, df.iloc[0:0], tmp_path, {})) is None
    assert "DENSIDAD = 0" in shown[0]
    view.tabla(res)  # the main table leaves the density rows to `densidad`
    assert shown[-1].data["Medida"].tolist() == [view.METRIC_LABEL["arranque_listo"]]


def test_the_phase_s_own_load_does_not_screen_any_figure():
    """N instances busy at once load the machine on purpose: that loop's load rows leave every verdict
    as it is; the same rows from a loop that did not declare it make them «bajo carga»."""
    from helpers import results

    df = _density_df({"aplicacion": HALVED, "sistema_lxd_cow": HALVED})
    pressure = results.round_metric(results.LOAD_PRESSURE, density.LOOP)
    loads = [{"metric": pressure, "rep": r, "value": v} for r, v in enumerate((5, 60, 10, 70, 8, 65), 1)]
    own = {**META, results.ROUND_LOADS: loads, results.SELF_LOADED: [density.LOOP]}
    assert _claims(df, own)["densidad_cae_aplicacion"].status == verdict.SE_CONFIRMA
    foreign = {**META, results.ROUND_LOADS: loads}
    assert _claims(df, foreign)["densidad_cae_aplicacion"].status == verdict.BAJO_CARGA


# ---------------------------------------------------------------- memory given back, on every instance
def _freed_df(idle: dict, dense: dict) -> pd.DataFrame:
    """idle: variant -> % the host kept in the memory phase's instances (INSTANCIAS); dense: the same in
    the density phase's N at once."""
    engines = {"sistema": "docker", "sistema_lxd_cow": "lxd", "vm_emulada": "qemu", "aplicacion": "docker"}
    rows = []
    for metric, kept in ((k.RETENIDA, idle), (k.DENSIDAD_RETENIDA, dense)):
        for variant, values in kept.items():
            rows += rows_of(variant, engines[variant], metric, list(values), "%")
    return pd.DataFrame(rows, columns=COLUMNS)


def test_freed_memory_is_judged_on_the_instances_the_density_phase_already_runs():
    """INSTANCIAS = 1 gives one observation per kind, fewer than an observed outcome needs; with the
    density phase's 4 instances the default run decides both claims."""
    df = _freed_df(
        idle={"sistema": [0.2], "vm_emulada": [100.0]},
        dense={"sistema_lxd_cow": [0.1, 0.3, 0.2, 0.1], "vm_emulada": [99.0, 100.5, 100.0, 98.0]},
    )
    claims = {c.key: c for c in exp.claims(df, META)}
    vm_claim, container_claim = claims["vm_retiene_memoria"], claims["contenedor_devuelve_memoria"]
    assert vm_claim.status == verdict.SE_CONFIRMA and vm_claim.n == 5
    assert vm_claim.detail["por_fase"] == {"reposo": 1, "densidad": 4}
    assert container_claim.status == verdict.SE_CONFIRMA and container_claim.n == 4
    assert container_claim.detail["tipo"] == "sistema_lxd_cow"  # the density phase's system container
    from helpers.view.sistema_vm import _frase_memoria

    said = _frase_memoria(df, claims)
    assert "mediana de 5 instancias: 1 en reposo y 4 a la vez en la fase de densidad" in said
    assert "mediana de 4 instancias a la vez en la fase de densidad" in said
    # the same rule as before: one instance that gave the block back makes it «no concluyente»
    mixed = _freed_df(idle={"vm_emulada": [100.0]}, dense={"vm_emulada": [99.0, 2.0, 100.0]})
    assert {c.key: c for c in exp.claims(mixed, META)}["vm_retiene_memoria"].status == verdict.NO_CONCLUYENTE


def test_without_the_density_phase_one_idle_instance_still_decides_nothing():
    df = _freed_df(idle={"sistema": [0.2], "vm_emulada": [100.0]}, dense={})
    claims = {c.key: c for c in exp.claims(df, {})}
    for key in ("vm_retiene_memoria", "contenedor_devuelve_memoria"):
        assert claims[key].status == verdict.SIN_DATOS and claims[key].n == 1, key
    assert claims["contenedor_devuelve_memoria"].detail["tipo"] == "sistema"
