"""Class-wide comparison on generated result folders, broken ones included."""

from __future__ import annotations

import json
import zipfile

import pandas as pd
import pytest

from helpers import PROJECT_ROOT, clase, experiments, reference, results
from helpers.experiments import figures as fg
from helpers.experiments import verdict as vd

IMAGES = {
    "docker": {"alpine": {"name": "curso/alpine:1"}},
    "podman": {"alpine": {"name": "localhost/curso/alpine:1"}},
}


def write_run(
    base,
    experiment,
    rows,
    *,
    status="complete",
    started="2026-01-01T10:00:00Z",
    run_id=None,
    host="pc",
    images=None,
):
    """A run folder as helpers.results writes it: <base>/<experiment>/<run_id>/raw.csv + meta.json."""
    run_id = run_id or started.replace("-", "").replace(":", "")[:15] + "Z-abc123"
    run = base / experiment / run_id
    run.mkdir(parents=True)
    df = pd.DataFrame([dict(zip(results.COLUMNS, (experiment, *r))) for r in rows], columns=results.COLUMNS)
    df.to_csv(run / "raw.csv", index=False)
    meta = {
        "experiment": experiment,
        "run_id": run_id,
        "status": status,
        "started": started,
        "rows": len(df),
        "reason": None if status == "complete" else "interrumpido por el usuario (Ctrl-C)",
        "host": {"hostname": host, "cpu_model": f"CPU de {host}", "cpu_cores": 2, "kernel": "6.1"},
        "engines": {"docker": {"version": "20.10"}, "podman": {"version": "4.3"}},
        "images": images or {},
    }
    (run / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return run


def arranque_rows(bare=1.0, docker=100.0, podman=50.0, seed_bare=2.0, reps=6):
    rows = []
    for rep in range(1, reps + 1):
        rows += [
            ("bare", "", "proceso", rep, "arranque", bare, "ms"),
            ("bare", "", "metodo_semilla", rep, "arranque", seed_bare, "ms"),
            ("docker", "curso/alpine:1", "por_defecto", rep, "arranque", docker, "ms"),
            ("podman", "localhost/curso/alpine:1", "por_defecto", rep, "arranque", podman, "ms"),
        ]
    return rows


def ejecucion_rows(bare=1.0, docker=1.1, podman=1.2):
    return [
        (e, "" if e == "bare" else "ubuntu", w, rep, "extremo_a_extremo", v * (1 + rep / 100), "s")
        for rep in range(1, 4)
        for w in ("hash", "sort")
        for e, v in (("bare", bare), ("docker", docker), ("podman", podman))
    ]


@pytest.fixture
def class_folder(tmp_path):
    root = tmp_path / "entregas"
    # alumno-a: an older run and a newer complete one; a stray screenshot in the folder.
    a = root / "alumno-a"
    write_run(
        a,
        "arranque",
        arranque_rows(docker=999, podman=999),
        started="2026-01-01T09:00:00Z",
        host="pc-a",
        images=IMAGES,
        run_id="20260101T090000Z-old000",
    )
    write_run(
        a,
        "arranque",
        arranque_rows(docker=100, podman=50),
        started="2026-01-01T10:00:00Z",
        host="pc-a",
        images=IMAGES,
    )
    write_run(a, "ejecucion", ejecucion_rows(), host="pc-a")
    (a / "captura.png").write_bytes(b"\x89PNG not really")
    # alumno-b: handed in as a zip with a top folder (what make pack produces).
    b = tmp_path / "b" / "alumno-b"
    write_run(b, "arranque", arranque_rows(docker=200, podman=100), host="pc-b", images=IMAGES)
    with zipfile.ZipFile(root / "entrega-b.zip", "w") as archive:
        for path in b.rglob("*"):
            if path.is_file():
                archive.write(path, f"alumno-b/{path.relative_to(b).as_posix()}")
    # alumno-c: only an interrupted run, with what it measured; no ejecucion at all.
    write_run(
        root / "alumno-c",
        "arranque",
        arranque_rows(docker=150, podman=75, reps=2),
        status="interrupted",
        host="pc-c",
        images=IMAGES,
    )
    # alumno-d: everything broken.
    d = root / "alumno-d"
    run = write_run(d, "arranque", arranque_rows(), host="pc-d", run_id="20260101T100000Z-nometa")
    (run / "meta.json").unlink()
    run = write_run(d, "arranque", arranque_rows(), host="pc-d", run_id="20260101T100001Z-badcsv")
    (run / "raw.csv").write_text("motor;tiempo\ndocker;1\n", encoding="utf-8")
    write_run(d, "ejecucion", [], status="failed", host="pc-d", run_id="20260101T100002Z-empty0")
    run = write_run(d, "escala", [], host="pc-d", run_id="20260101T100003Z-badjsn")
    (run / "meta.json").write_text("{ no es json", encoding="utf-8")
    # alumno-e: an experiment the course does not know yet (no reference): still compared.
    write_run(
        root / "alumno-e",
        "futuro",
        [
            ("bare", "", "w", 1, "t", 1.0, "s"),
            ("bare", "", "w", 2, "t", 1.0, "s"),
            ("docker", "img", "w", 1, "t", 3.0, "s"),
            ("docker", "img", "w", 2, "t", 3.0, "s"),
        ],
        host="pc-e",
    )
    # foreign files.
    (root / "LEEME.txt").write_text("hola", encoding="utf-8")
    (root / "roto.zip").write_bytes(b"PK\x03\x04 esto no es un zip")
    return root


def reasons(c: clase.ClassRuns) -> str:
    return "\n".join(f"{o.what}: {o.reason}" for o in c.skipped)


def test_collects_machines_and_says_what_was_skipped(class_folder):
    c = clase.recolectar(class_folder)
    machines = {r.machine for r in c.runs}
    assert machines == {"alumno-a", "alumno-b", "alumno-c", "alumno-e"}
    text = reasons(c)
    assert "LEEME.txt" in text and "archivo ajeno" in text
    assert "roto.zip" in text and "zip ilegible" in text
    assert "captura.png" in text
    assert "nometa" in text and "falta meta.json" in text
    assert "badcsv" in text and "faltan las columnas" in text
    assert "empty0" in text and "no tiene mediciones válidas" in text
    assert "badjsn" in text and "meta.json ilegible" in text
    assert "old000" in text and "más reciente" in text
    assert not c.demo
    assert set(c.experiments) == {"arranque", "ejecucion", "futuro"}


def test_partial_run_is_used_and_marked(class_folder):
    c = clase.recolectar(class_folder)
    run = next(r for r in c.runs if r.machine == "alumno-c")
    assert run.partial and len(run.df) == 8
    assert "parcial" in c.machines().set_index("máquina").loc["alumno-c", "experimentos"]
    assert "01_arranque" in c.machines().set_index("máquina").loc["alumno-c", "experimentos"]
    assert "interrupted" not in c.machines().to_string()  # the status in Spanish
    assert c.data.query("machine == 'alumno-c'")["parcial"].all()


def test_the_newest_complete_run_wins(class_folder):
    c = clase.recolectar(class_folder)
    a = next(r for r in c.runs if r.machine == "alumno-a" and r.experiment == "arranque")
    assert a.df.query("engine == 'docker'")["value"].eq(100).all()


def test_ratios_to_bare_metal_and_podman_docker(class_folder):
    c = clase.recolectar(class_folder)
    ratios = clase.ratios_vs_bare(c.data).set_index(["machine", "experiment", "engine", "role"])
    assert ratios.loc[("alumno-a", "arranque", "docker", "alpine"), "proporcion"] == pytest.approx(100)
    assert (
        ratios.loc[("alumno-a", "arranque", "docker", "alpine"), "base"] == "proceso"
    )  # the module's BASELINE
    assert ratios.loc[("alumno-b", "arranque", "podman", "alpine"), "proporcion"] == pytest.approx(100)
    assert ratios.loc[("alumno-e", "futuro", "docker", "img"), "proporcion"] == pytest.approx(3)
    ejec = clase.ratios_vs_bare(c.data).query("experiment == 'ejecucion'")
    assert set(ejec["base"]) == {"hash", "sort"} and (ejec["base"] == ejec["variant"]).all()
    pairs = clase.podman_over_docker(c.data).set_index(["machine", "experiment", "role"])
    assert pairs.loc[("alumno-a", "arranque", "alpine"), "proporcion"] == pytest.approx(0.5)
    assert ("alumno-e", "futuro", "img") not in pairs.index  # no Podman there: no pair


def test_spread_across_machines(class_folder):
    c = clase.recolectar(class_folder)
    spread = clase.spread(clase.ratios_vs_bare(c.data))
    docker = spread.query("experiment == 'arranque' and engine == 'docker'").iloc[0]
    assert docker["maquinas"] == 3  # a, b and the partial c
    assert docker["min"] == pytest.approx(100) and docker["max"] == pytest.approx(200)
    assert docker["max_sobre_min"] == pytest.approx(2)


def test_each_machine_against_the_reference(class_folder):
    c = clase.recolectar(class_folder)
    table = clase.against_reference(c)
    assert set(table["machine"]) <= {"alumno-a", "alumno-b", "alumno-c"}  # futuro has no reference
    xbare = table.query("proporcion_de == '× bare metal' and experiment == 'arranque'")
    assert set(xbare["base"]) == {"metodo_semilla"}  # the reference's own baseline
    row = xbare.query("machine == 'alumno-a' and engine == 'docker'").iloc[0]
    assert row["proporcion"] == pytest.approx(50)  # 100 ms / 2 ms
    # the one rule on live ÷ reference (0.8×-1.25×), never interval overlap
    assert row["referencia_ic_bajo"] < row["referencia"] < row["referencia_ic_alto"]
    expected = fg.agreement(
        (row["proporcion"], row["ic_bajo"], row["ic_alto"]),
        (row["referencia"], row["referencia_ic_bajo"], row["referencia_ic_alto"]),
    )
    assert row["veredicto"] == expected
    assert set(table["veredicto"]) <= {fg.COINCIDE, fg.NO_COINCIDE, vd.NO_CONCLUYENTE, vd.SIN_DATOS}
    # alumno-a measured arranque in 6 rounds; ejecucion in 3: below MIN_N, no agreement at all
    assert set(table.query("experiment == 'ejecucion'")["veredicto"]) <= {vd.SIN_DATOS}


def test_two_wide_intervals_no_longer_coincide():
    wide, ref = (1.0, 0.5, 2.0), (1.0, 0.6, 1.7)
    assert max(wide[1], ref[1]) <= min(wide[2], ref[2])  # they overlap...
    assert clase.compare.agreement_status(wide, 10, ref) == vd.NO_CONCLUYENTE  # ...and decide nothing
    assert clase.compare.agreement_status((1.0, 0.95, 1.05), 10, (1.0, 0.97, 1.03)) == fg.COINCIDE
    assert clase.compare.agreement_status((3.0, 2.8, 3.2), 10, (1.0, 0.97, 1.03)) == fg.NO_COINCIDE
    assert clase.compare.agreement_status((1.0, 0.95, 1.05), vd.MIN_N - 1, (1.0, 0.97, 1.03)) == vd.SIN_DATOS


def test_each_reference_source_is_its_own_machine_and_a_range_stays_a_range():
    refs = clase.reference_ratios("llamadas").query("metric == 'getpid'").set_index("fuente")
    # the seed's own run, the run of its «25 %», its expected ranges and its three CPU tables: never pooled
    assert set(refs.index) == {
        "seed001",
        "seed001-corrida2",
        "seed001-esperado",
        "seed001-tabla-xeon-8370c",
        "seed001-tabla-epyc-7763",
        "seed001-tabla-i7-12700k",
    }
    xeon = refs.loc["seed001-tabla-xeon-8370c"]
    assert xeon["forma"] == "rango" and xeon["n"] == 0
    # the overhead it publishes (25-27 %), not its ns recomputed (140-150 over 110-120: 1.17×-1.36×)
    assert (xeon["ic_bajo"], xeon["ic_alto"]) == (pytest.approx(1.25), pytest.approx(1.27))
    # where nothing is published, two ranges are divided end by end, never resampled
    figs = (
        reference.figures("llamadas")
        .rename(columns={"image": "role"})
        .query("source == 'seed001-tabla-xeon-8370c' and metric == 'getpid'")
    )
    num, den = (figs[figs["engine"] == e].iloc[0] for e in ("docker", "bare"))
    _, low, high, n, forma = clase.compare._published_ratio(num, den, reference.load("llamadas"))
    assert forma == "rango" and n == 0 and (low, high) == (pytest.approx(140 / 120), pytest.approx(150 / 110))
    own = refs.loc["seed001"]
    assert own["forma"] == "cifra" and own["proporcion"] == pytest.approx(298.31 / 268.83)
    assert pd.isna(own["ic_bajo"])


def test_baseline_is_picked_by_server():
    # seed 003: Docker -p over bare metal serving the same server (06 says 0.34× for net/http)
    refs = clase.reference_ratios("red").query("metric == 'req_s' and variant == 'puerto'")
    nethttp = refs.query("role == 'nethttp'").iloc[0]
    assert nethttp["proporcion"] == pytest.approx(0.34, abs=0.005)
    rows = [
        (e, srv, v, rep, "req_s", base * f, "req/s")
        for rep in range(1, 7)
        for srv, base in (("nethttp", 100.0), ("gin", 200.0))
        for e, v, f in (("bare", "nativo", 1.0), ("docker", "puerto", 0.5))
    ]
    data = pd.DataFrame([dict(zip(results.COLUMNS, ("red", *r))) for r in rows]).assign(
        machine="pc", role=lambda d: d["image"]
    )
    ratios = clase.ratios_vs_bare(data).set_index("role")["proporcion"]
    assert ratios.to_dict() == {"gin": pytest.approx(0.5), "nethttp": pytest.approx(0.5)}


def test_only_the_metrics_an_experiment_declares_comparable():
    import pandas as pd

    rows = pd.DataFrame(
        {
            "experiment": ["escala", "escala", "arranque", "otro"],
            "metric": ["lanzamiento_por_contenedor", "rss_daemon", "arranque", "x"],
        }
    )
    kept = clase.only_comparable(rows)
    assert list(kept["metric"]) == ["lanzamiento_por_contenedor", "arranque", "x"]


def test_zero_medians_do_not_break_the_comparison(tmp_path):
    rows = [
        (e, "img", "n=1", rep, "memoria", v, "KB")
        for rep in (1, 2, 3)
        for e, v in (("bare", 0.0), ("docker", 0.0), ("podman", 5.0))
    ]
    rows += [
        ("docker", "img", "n=2", 1, "memoria", 0.0, "KB"),
        ("docker", "img", "n=2", 2, "memoria", 4.0, "KB"),
        ("docker", "img", "n=2", 3, "memoria", 4.0, "KB"),
        ("podman", "img", "n=2", 1, "memoria", 2.0, "KB"),
        ("podman", "img", "n=2", 2, "memoria", 2.0, "KB"),
        ("podman", "img", "n=2", 3, "memoria", 2.0, "KB"),
    ]
    write_run(tmp_path / "pc", "escala", rows)
    c = clase.recolectar(tmp_path)
    assert clase.ratios_vs_bare(c.data).empty  # 0 on bare metal: no ratio, no crash
    pairs = clase.podman_over_docker(c.data).set_index("variant")
    assert "n=1" not in pairs.index  # Docker's median is 0: undefined
    assert pairs.loc["n=2", "proporcion"] == pytest.approx(0.5)
    assert clase.against_reference(c) is not None


def test_missing_or_empty_folder(tmp_path):
    missing = clase.recolectar(tmp_path / "no-existe")
    assert not missing.runs and "no existe" in reasons(missing)
    empty = clase.recolectar(tmp_path)
    assert not empty.runs and clase.against_reference(empty).empty
    assert clase.ratios_vs_bare(empty.data).empty


def test_a_single_results_folder_is_one_machine(tmp_path):
    write_run(tmp_path / "results", "arranque", arranque_rows(), host="mi-pc", images=IMAGES)
    c = clase.recolectar(tmp_path / "results")
    assert {r.machine for r in c.runs} == {"mi-pc"}


def test_pack_then_compare(tmp_path, monkeypatch):
    own = tmp_path / "results"
    monkeypatch.setenv("CURSO_RESULTADOS", str(own))
    with pytest.raises(FileNotFoundError):
        clase.empaquetar(tmp_path / "out", alumno="ana")
    write_run(
        own,
        "arranque",
        arranque_rows(docker=10),
        started="2026-01-01T09:00:00Z",
        images=IMAGES,
        run_id="20260101T090000Z-aaaaaa",
    )
    write_run(
        own,
        "arranque",
        arranque_rows(docker=20, reps=1),
        status="interrupted",
        started="2026-01-01T11:00:00Z",
        images=IMAGES,
        run_id="20260101T110000Z-bbbbbb",
    )
    write_run(own, "ejecucion", ejecucion_rows(), run_id="20260101T120000Z-cccccc")
    target = clase.empaquetar(tmp_path / "out", alumno="Ana María")
    names = zipfile.ZipFile(target).namelist()
    assert "Ana_Mar_a/arranque/20260101T090000Z-aaaaaa/raw.csv" in names  # the latest *complete* run
    assert not any("bbbbbb" in n for n in names)
    assert any(n.endswith("ejecucion/20260101T120000Z-cccccc/meta.json") for n in names)
    manifest = json.loads(zipfile.ZipFile(target).read(next(n for n in names if n.endswith("entrega.json"))))
    assert set(manifest["corridas"]) == {"arranque", "ejecucion"} and "host" in manifest
    c = clase.recolectar(target.parent)
    assert len({r.machine for r in c.runs}) == 1 and not c.skipped, reasons(c)


def test_demo_class_is_labelled_and_has_broken_entries(tmp_path):
    folder = clase.demo(tmp_path / "demo")
    c = clase.recolectar(folder)
    assert c.demo and "DEMOSTRACIÓN" in (folder / "DEMO.txt").read_text(encoding="utf-8")
    assert len({r.machine for r in c.runs}) == 6
    assert any(r.partial for r in c.runs)
    assert "notas_del_profesor.txt" in reasons(c) and "demo-rota" in reasons(c)
    assert not clase.against_reference(c).empty


def test_pack_command_line(tmp_path):
    import subprocess
    import sys

    own = tmp_path / "results"
    write_run(own, "arranque", arranque_rows(), images=IMAGES)
    env = {"CURSO_RESULTADOS": str(own), "CURSO_ALUMNO": "luis", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-m", "helpers.clase", "empaquetar", "--destino", str(tmp_path / "z")],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Entrega lista" in proc.stdout and list((tmp_path / "z").glob("entrega-luis-*.zip"))


@pytest.mark.notebook
def test_notebook_90_runs_on_a_class_folder(class_folder, tmp_path):
    import papermill as pm

    out = tmp_path / "90.ipynb"
    pm.execute_notebook(
        str(PROJECT_ROOT / "notebooks" / "90_comparar_clase.ipynb"),
        str(out),
        parameters={"CARPETA": str(class_folder)},
        progress_bar=False,
        cwd=str(PROJECT_ROOT / "notebooks"),
    )
    text = out.read_text(encoding="utf-8")
    assert "alumno-a" in text and "LEEME.txt" in text and "image/png" in text
    assert "DEMOSTRACIÓN" not in text


def llamadas_rows(host=100.0, overhead=0.25, reps=8, jitter=0.01):
    return [
        row
        for rep in range(1, reps + 1)
        for row in (
            ("bare", "", "host", rep, "getpid", host * (1 + jitter * (rep % 3)), "ns"),
            ("docker", "", "seccomp", rep, "getpid", host * (1 + overhead) * (1 + jitter * (rep % 3)), "ns"),
        )
    ]


@pytest.fixture
def big_class(tmp_path):
    """40 machines: startup and getpid, all alike except two that stand out."""
    root = tmp_path / "clase40"
    for i in range(1, 41):
        odd = i in (7, 33)
        write_run(
            root / f"pc-{i:02d}",
            "arranque",
            arranque_rows(docker=100 + i, podman=50 + (150 if odd else i)),
            host=f"pc-{i:02d}",
            images=IMAGES,
        )
        write_run(
            root / f"pc-{i:02d}",
            "llamadas",
            llamadas_rows(host=80 + i, overhead=1.0 if i == 33 else 0.25),
            host=f"pc-{i:02d}",
        )
    return root


def test_getpid_overhead_across_cpus_is_a_class_verdict(big_class, tmp_path):
    """Each machine enters with 05's own figure (its +25 % over the host), judged against the median of
    the others in points (±3, half of the seed's 24-30 % band); the sources never enter."""
    from helpers.clase import deferred, rule

    c = clase.recolectar(big_class)
    verdict = deferred.across_cpus(c)
    judged = verdict.judgement
    assert judged.machines == 40 and verdict.per_machine["pc-01"].value == pytest.approx(25)
    # pc-33 (+100 % among +25 %) is 75 points above the others, named; one in 40 is what chance gives
    assert judged.above == ["pc-33"] and judged.figures["pc-33"][0] == pytest.approx(75)
    assert not judged.too_many_apart and judged.threshold == rule.apart_threshold(40) > 1
    # the typical CPU is 0 points from the others: inside «at most 3 points»
    assert judged.typical.value == pytest.approx(0) and verdict.status == vd.SE_CONFIRMA
    # the seed's CPU tables are shown beside the class and never enter it
    sources = set(verdict.sources["fuente"])
    assert {"seed001-tabla-xeon-8370c", "seed001-tabla-epyc-7763"} <= sources
    assert "seed001-esperado" not in sources and not sources & set(judged.figures)
    # half the class at +100 %, half at +25 %: CPUs are not alike
    split = tmp_path / "split"
    for i in range(1, 9):
        write_run(
            split / f"pc-{i}",
            "llamadas",
            llamadas_rows(host=80 + i, overhead=1.0 if i <= 4 else 0.25),
            host=f"pc-{i}",
        )
    apart = deferred.across_cpus(clase.recolectar(split))
    assert apart.status == vd.NO_SE_SOSTIENE and len(apart.judgement.apart) == 8
    one = tmp_path / "one"
    write_run(one / "pc", "llamadas", llamadas_rows(reps=3), host="pc")  # below MIN_N: not judged
    alone = deferred.across_cpus(clase.recolectar(one))
    assert alone.left_out == {"pc": vd.SIN_DATOS} and alone.status == vd.SIN_DATOS


def test_kvm_verdicts_without_a_kvm_machine_say_so(big_class):
    from helpers.clase import deferred

    kvm = deferred.kvm(clase.recolectar(big_class))
    assert kvm and all(v.status == vd.SIN_DATOS and not v.per_machine for v in kvm.values())


def test_forty_machines_fit_a_screen_and_outliers_are_named(big_class, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from helpers.view import clase as vista
    from tests.support import capture_figures

    shown = []
    monkeypatch.setattr(vista, "show", lambda obj: shown.append(obj))
    monkeypatch.setattr(vista, "markdown", lambda text: shown.append(text))
    drawn = capture_figures(monkeypatch)
    c = clase.recolectar(big_class)
    # the metric is named by its experiment's own CLASS_LABELS (no central table of labels)
    monkeypatch.setitem(experiments.get("arranque").CLASS_LABELS, "arranque", "arranque de «echo ok»")
    vista.experimento(c, "arranque")
    assert drawn
    titles = [fig.get_suptitle() for fig in drawn]
    assert any("· arranque de «echo ok»:" in t for t in titles), titles
    for fig in drawn:
        width, height = fig.get_size_inches()
        assert height <= vista.MAX_HEIGHT_IN and width <= 14
        for ax in fig.axes:
            # 40 machines: only the outliers carry a name on the panel, not 40 labels
            assert len(ax.texts) <= 5
    text = "\n".join(t for t in shown if isinstance(t, str))
    assert "«pc-33»" in text and "«pc-07»" in text  # Podman/Docker: the two machines that stand out
    plt.close("all")
    vista.veredictos_diferidos(c)
    text = "\n".join(t for t in shown if isinstance(t, str))
    summary = next(t.data for t in shown if hasattr(t, "data") and "Afirmación (cuaderno)" in t.data.columns)
    assert summary.iloc[0]["La clase"] == "se confirma"  # the typical CPU: 0 points from the others
    assert "«pc-33»" in text and "por encima" in text  # named, with how many chance explains
    for words in ("seed001", "entre_cpus", "sin_datos", "no_se_sostiene"):
        assert words not in text and words not in summary.to_string()


def sistema_vm_rows(vm: str, vm_ms: float, system_ms: float = 100.0, reps: int = 8):
    return [
        row
        for rep in range(1, reps + 1)
        for row in (
            ("qemu", "", vm, rep, "arranque_listo", vm_ms * (1 + 0.01 * (rep % 3)), "ms"),
            (
                "podman",
                "",
                "sistema_systemd",
                rep,
                "arranque_listo",
                system_ms * (1 + 0.01 * (rep % 2)),
                "ms",
            ),
        )
    ]


def test_kvm_verdicts_are_judged_on_the_machines_with_kvm(tmp_path):
    """08's own claim on each machine whose VM used KVM; an emulated VM never enters; one machine alone
    decides nothing, six that agree confirm."""
    from helpers.clase import deferred

    root = tmp_path / "kvm"
    # 08 judges «10×» with systemd on both sides (a busybox microVM is not the post's Ubuntu VM)
    write_run(root / "con-kvm", "sistema_vm", sistema_vm_rows("vm_systemd_kvm", 1000.0), host="con-kvm")
    write_run(root / "emulada", "sistema_vm", sistema_vm_rows("vm_systemd_emulada", 30_000.0), host="emulada")
    verdict = deferred.kvm(clase.recolectar(root))["arranque_10x_systemd"]
    assert verdict.entered == ["con-kvm"] and verdict.left_out == {"emulada": deferred.EMULATED}
    assert verdict.per_machine["con-kvm"].value == pytest.approx(10, rel=0.05)
    assert verdict.status == vd.SIN_DATOS  # one machine: no class verdict
    for i in range(2, 7):
        write_run(
            root / f"kvm-{i}", "sistema_vm", sistema_vm_rows("vm_systemd_kvm", 1000.0 + i), host=f"kvm-{i}"
        )
    six = deferred.kvm(clase.recolectar(root))["arranque_10x_systemd"]
    assert len(six.entered) == 6 and six.status == vd.SE_CONFIRMA
    assert {"densidad_gzip_vm", "densidad_cae_mas_vm", "densidad_cpu_30"} <= set(deferred.kvm_keys())


def test_variants_read_as_words_and_an_empty_experiment_says_why(monkeypatch, tmp_path):
    """90 never prints an arm's identifier (nivel1, n=10, vm_emulada) and never leaves an experiment's
    heading with nothing under it."""
    from helpers.view import clase as vista

    assert vista.variant_words("nivel1") == "nivel 1" and vista.variant_words("n=10") == "N = 10"
    assert "emulada" in vista.variant_words("vm_emulada") and vista.variant_words("hash") == "hash"
    # each experiment names its own arms (CLASS_LABELS): 01's «proceso» is a real process, 08's is bare metal
    assert vista.variant_words("proceso", "arranque") == "proceso real"
    assert vista.variant_words("proceso", "sistema_vm") == "bare metal"
    said = []
    monkeypatch.setattr(vista, "markdown", said.append)
    monkeypatch.setattr(vista, "show", lambda obj: None)
    root = tmp_path / "sin_linea_base"
    rows = [("qemu", "", "vm_emulada", r, "disco_instancia", 0.3, "MB") for r in range(1, 7)]
    write_run(root / "pc", "sistema_vm", rows, host="pc")
    vista.experimento(clase.recolectar(root), "sistema_vm")
    assert said[0].startswith("### ") and "Ninguna corrida de la clase tiene aquí una proporción" in said[1]


def test_getpid_overhead_across_cpus_reads_only_the_default_docker_arm(tmp_path):
    """Each machine's overhead is 05's own claim on its default Docker container (seccomp), once:
    sin_seccomp and gVisor, measured in the same run, neither replace it nor skew the others' median."""
    from helpers.clase import deferred

    root = tmp_path / "variantes"
    for i in range(1, 7):
        host = 80.0 + i
        seccomp = 1.0 if i == 6 else 0.25  # pc-6: +100 % among +25 %
        rows = [
            (engine, "", variant, rep, "getpid", host * factor * (1 + 0.01 * (rep % 3)), "ns")
            for rep in range(1, 9)
            for engine, variant, factor in (
                ("bare", "host", 1.0),
                ("docker", "gvisor", 330.0),
                ("docker", "seccomp", 1 + seccomp),
                ("docker", "sin_seccomp", 1.002),
                ("podman", "seccomp", 1.6),
            )
        ]
        write_run(root / f"pc-{i}", "llamadas", rows, host=f"pc-{i}")
    verdict = deferred.across_cpus(clase.recolectar(root))
    values = {m: round(c.value, 1) for m, c in verdict.per_machine.items()}
    assert values == {**{f"pc-{i}": 25.0 for i in range(1, 6)}, "pc-6": 100.0}
    assert verdict.judgement.above == ["pc-6"]  # 75 points above the median of the others
    assert all(verdict.judgement.figures[f"pc-{i}"][0] == pytest.approx(0) for i in range(1, 6))


def test_the_reference_overhead_is_the_one_the_document_publishes():
    """A source that publishes its overhead (seed 001's per-CPU table: 24-28 % on the EPYC) is read as
    that range, by the same function notebook 05 uses, not recomputed from its ns (120-135 ÷ 95-105)."""
    from helpers.clase import compare
    from helpers.experiments.llamadas.analysis import compare as llamadas_compare
    from helpers.experiments.llamadas.analysis import published_ratios

    published = {
        p["source"]: p["rango"]
        for p in published_ratios(reference.load("llamadas"))
        if (p["metric"], p["engine"], p["variant"]) == ("getpid", "docker", "seccomp")
    }
    assert published["seed001-tabla-epyc-7763"] == pytest.approx((1.24, 1.28))
    refs = compare.reference_ratios("llamadas").set_index("fuente")
    for source, (low, high) in published.items():
        row = refs.loc[source]
        assert row["forma"] == "rango" and (row["ic_bajo"], row["ic_alto"]) == pytest.approx((low, high))
    five = llamadas_compare(pd.DataFrame(columns=results.COLUMNS), {}, reference.load("llamadas"))
    epyc = five.set_index("fuente").loc["seed001-tabla-epyc-7763"]
    assert (epyc["rango_bajo"], epyc["rango_alto"]) == pytest.approx(published["seed001-tabla-epyc-7763"])
    assert refs.loc["seed001", "forma"] != "rango"  # its own run publishes the two calls only


def test_arm_labels_are_words_and_never_repeat_the_engine():
    """«Docker · con seccomp», «Kubernetes · gin»: neither an arm's identifier (seccomp) nor the engine
    named twice (06's Kubernetes arm is variant «kubernetes»), in the headers of the detail table."""
    from helpers.view import clase as vista

    rows = [
        ("pc-1", "docker", "", "seccomp", "llamadas", "getpid", "seed001-tabla-epyc-7763", "rango"),
        ("pc-1", "kubernetes", "gin", "kubernetes", "red", "rps", "seed003", "cifra"),
    ]
    part = pd.DataFrame(
        [
            dict(
                zip(["machine", "engine", "role", "variant", "experiment", "metric", "fuente", "forma"], r),
                proporcion=1.2,
                ic_bajo=1.1,
                ic_alto=1.3,
                referencia=1.26,
                referencia_ic_bajo=1.24,
                referencia_ic_alto=1.28,
                veredicto=fg.COINCIDE,
                n=8,
            )
            for r in rows
        ]
    )
    shown = vista.pivot_detalle(part, "detalle")
    headers = list(getattr(shown, "data", shown).columns)
    assert any(h.startswith("Docker · con seccomp, frente a") for h in headers), headers
    assert any(h.startswith("Kubernetes · gin, frente a") for h in headers), headers
    assert not any("· seccomp" in h or "· kubernetes" in h for h in headers), headers
    columns = vista._spanish(part[["engine", "role", "variant"]])
    assert set(columns["variante"]) == {"con seccomp", ""}  # the table's own column: no «kubernetes» either


def test_every_comparable_metric_has_its_experiments_label():
    """Each experiment names the metrics it lets the class compare, in its own package (view/clase holds
    no table of labels)."""
    for module in experiments.all_experiments():
        assert set(module.COMPARABLE) <= set(module.CLASS_LABELS), module.EXPERIMENT


def test_the_sources_never_enter_the_centre(tmp_path):
    """Two machines of the class: no class verdict, whether or not the seed's tables sit beside them
    (the old rule put them in the centre and confirmed with two machines)."""
    from helpers.clase import deferred

    root = tmp_path / "dos"
    for i in (1, 2):
        write_run(root / f"pc-{i}", "llamadas", llamadas_rows(host=80 + i, overhead=0.26), host=f"pc-{i}")
    verdict = deferred.across_cpus(clase.recolectar(root))
    assert verdict.status == vd.SIN_DATOS and verdict.judgement.machines == 2
    assert not verdict.sources.empty  # shown, never counted


def test_the_sources_alone_decide_nothing_about_the_class_cpus(tmp_path):
    """With no machine of the class (or one), seed 001's own tables cannot confirm their own claim."""
    from helpers.clase import deferred

    empty = tmp_path / "vacia"
    empty.mkdir()
    alone = deferred.across_cpus(clase.recolectar(empty))
    assert alone.status == vd.SIN_DATOS and not alone.sources.empty
    one = tmp_path / "una"
    write_run(one / "pc", "llamadas", llamadas_rows(), host="pc")
    assert deferred.across_cpus(clase.recolectar(one)).status == vd.SIN_DATOS


def test_a_demo_class_shows_its_figures_labelled_and_no_verdict(tmp_path, monkeypatch):
    """The demonstration class (fictitious machines): 90 shows its figures, every table and plot
    labelled as invented, and no verdict at all (no «se confirma», «no se sostiene», «no concluyente»,
    «coincide», marks, nor machines «apart»)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from helpers.view import clase as vista
    from tests.support import capture_figures

    shown = []
    monkeypatch.setattr(vista, "show", lambda obj: shown.append(obj))
    monkeypatch.setattr(vista, "markdown", lambda text: shown.append(text))
    monkeypatch.setattr(vista, "table", lambda df, caption=None: (df, caption))
    drawn = capture_figures(monkeypatch)
    c = clase.recolectar(clase.demo(tmp_path / "demo"))
    comparacion = vista.frente_a_referencia(c)
    vista.frente_a_referencia_detalle(c, comparacion)
    vista.veredictos_diferidos(c)
    vista.experimento(c, "llamadas")
    tables = [t for t in shown if isinstance(t, tuple)]
    assert tables and all(vista.DEMO_MARK in caption for _df, caption in tables)
    assert drawn and all(vista.DEMO_MARK in fig.get_suptitle() for fig in drawn)
    plt.close("all")
    page = "\n".join(
        t if isinstance(t, str) else t[0].to_string() + "\n" + ",".join(t[0].columns) for t in shown
    )
    assert "%" in page and "×" in page  # the figures are there
    for words in (
        "se confirma",
        "no se sostiene",
        "no concluyente",
        "coincide",
        "La clase",
        "✓",
        "✗",
        "por encima",
        "por debajo",
    ):
        assert words not in page, words


def test_the_comparisons_with_the_sources_follow_the_notebook_order(tmp_path, monkeypatch):
    """90's tables against the sources come per ratio in the course's notebook order (01, 02, 03…), as
    the charts above them, never in the alphabetical order of the experiments' names (07 before 01)."""
    from helpers import experiments
    from helpers.view import clase as vista

    shown = []
    monkeypatch.setattr(vista, "show", lambda obj: shown.append(obj))
    monkeypatch.setattr(vista, "markdown", lambda text: None)
    monkeypatch.setattr(vista, "table", lambda df, caption=None: caption)
    c = clase.recolectar(clase.demo(tmp_path / "demo"))
    vista.frente_a_referencia_detalle(c, clase.against_reference(c))
    titles = {experiments.get(n).TITLE: i for i, n in enumerate(experiments.names())}
    seen: dict[str, list[int]] = {}
    for caption in shown:
        label, title = caption.removeprefix(vista.DEMO_MARK + ": ").split(" · ")[:2]
        seen.setdefault(label, []).append(titles[title])
    assert len(seen) == 2 and all(order == sorted(order) and len(order) > 1 for order in seen.values()), seen


def test_an_empty_zip_and_an_empty_folder_are_named_with_their_reason(tmp_path):
    """Exercise 3 of notebook 90: an empty zip and a text file are listed in the skipped table."""
    root = tmp_path / "clase"
    write_run(root / "pc", "llamadas", llamadas_rows(), host="pc")
    with zipfile.ZipFile(root / "vacio.zip", "w"):
        pass
    (root / "vacia").mkdir()
    (root / "nota.txt").write_text("hola", encoding="utf-8")
    text = reasons(clase.recolectar(root))
    assert "vacio.zip: no contiene ninguna corrida válida" in text
    assert "vacia: no contiene ninguna corrida válida" in text
    assert "nota.txt: no es una carpeta de resultados ni un zip" in text


def test_each_figure_of_a_machine_is_shown_once_beside_its_marks():
    """Against five sources, a machine's getpid ratio is one column; each source gets a column of marks
    (its own figure in the header), never the machine's figure again."""
    from helpers.view import clase as vista

    sources = [
        "seed001",
        "seed001-esperado",
        "seed001-tabla-xeon-8370c",
        "seed001-tabla-epyc-7763",
        "seed001-tabla-i7-12700k",
    ]
    part = pd.DataFrame(
        [
            dict(
                machine=m, engine="docker", role="", variant="seccomp", experiment="llamadas", metric="getpid"
            )
            | dict(fuente=s, forma="rango", proporcion=1.2 + i / 10, ic_bajo=1.1, ic_alto=1.5 + i / 10, n=8)
            | dict(referencia=1.26, referencia_ic_bajo=1.24, referencia_ic_alto=1.28, veredicto=fg.COINCIDE)
            for i, m in enumerate(("pc-1", "pc-2"))
            for s in sources
        ]
    )
    wide = vista.pivot_detalle(part, "getpid").data
    figure_columns = [c for c in wide.columns if "IC 95" in c]
    assert len(figure_columns) == 1 and len(wide.columns) == 2 + len(sources)
    marks = wide.drop(columns=["máquina", *figure_columns])
    assert set(marks.to_numpy().ravel()) == {"✓"}
    demo = vista.pivot_detalle(part, "getpid", demo=True).data
    assert list(demo.columns) == ["máquina", figure_columns[0]]
