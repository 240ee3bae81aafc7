"""Experiment 1 without engines: validation, planning, analysis on synthetic rows."""

from pathlib import Path

import IPython.display
import numpy as np
import pandas as pd
import pytest

from helpers import engines, results
from helpers.errors import ParametroInvalido
from helpers.experiments import arranque, verdict
from helpers.experiments.arranque import measure as arranque_measure
from helpers.experiments.arranque.analysis import (
    arm_values,
    compare,
    first_launches,
    network_table,
    pair_ratio,
    summarize,
    unstable_arms,
)
from helpers.experiments.runner import Resultado
from helpers.view import arranque as vista
from helpers.view import common
from tests.support import assert_round_rows_change_nothing


@pytest.mark.parametrize("bad", [0, -3, 2.5, "3", None, True])
def test_bad_repetitions_are_refused_in_spanish(bad):
    with pytest.raises(ParametroInvalido, match="REPETICIONES"):
        arranque.config(repeticiones=bad)


def test_unknown_image_and_engine_are_refused_with_the_valid_options():
    with pytest.raises(ParametroInvalido, match="IMAGENES.*«?'debian'.*alpine"):
        arranque.config(imagenes=["debian"])
    with pytest.raises(ParametroInvalido, match="MOTORES.*'lxc'.*docker"):
        arranque.config(motores=["docker", "lxc"])
    with pytest.raises(ParametroInvalido, match="CALENTAMIENTO"):
        arranque.config(calentamiento=-1)


def test_bad_input_launches_nothing_and_writes_no_run(results_tmp, monkeypatch):
    launched = []
    monkeypatch.setattr(arranque_measure.measure, "time_command", lambda *a, **k: launched.append(a) or 1.0)
    with pytest.raises(ParametroInvalido):
        arranque.run(arranque.Config(repeticiones=0))
    assert launched == []
    assert not results_tmp.exists()


def test_names_are_normalised_and_deduplicated():
    cfg = arranque.config(imagenes=["Alpine", "alpine"], motores="docker")
    assert cfg.imagenes == ["alpine"] and cfg.motores == ["docker"]


def _synthetic(docker_ms, podman_ms, reps=15, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(1, reps + 1):
        rows.append(("bare", "", "proceso", rep, rng.normal(1.0, 0.05)))
        for role, factor in (("ubuntu", 1.0), ("alpine", 1.0)):
            rows.append(("docker", f"d-{role}", "por_defecto", rep, rng.normal(docker_ms * factor, 5)))
            rows.append(("podman", f"p-{role}", "por_defecto", rep, rng.normal(podman_ms * factor, 5)))
    df = pd.DataFrame(rows, columns=["engine", "image", "variant", "rep", "value"])
    df["experiment"], df["metric"], df["unit"] = "arranque", "arranque", "ms"
    meta = {
        "images": {
            e: {r: {"name": f"{e[0]}-{r}"} for r in ("ubuntu", "alpine")} for e in ("docker", "podman")
        }
    }
    return df[results.COLUMNS], meta


def test_summary_ratios_against_a_real_process():
    df, meta = _synthetic(400, 200)
    s = summarize(df, meta)
    docker_ubuntu = s[(s.engine == "docker") & (s.role == "ubuntu")].iloc[0]
    assert docker_ubuntu.x_bare == pytest.approx(400, rel=0.1)
    assert docker_ubuntu.x_bare_ic_bajo < docker_ubuntu.x_bare < docker_ubuntu.x_bare_ic_alto


def test_an_unstable_baseline_divides_nothing_and_the_table_says_repite(monkeypatch):
    """Bare metal with two clusters (1 ms and 6 ms: a page cache cold half the time) is flagged
    unstable: no «× bare metal» is computed against it, and the table says «repite» instead."""
    df, meta = _synthetic(400, 200, reps=12)
    bare = df["engine"] == "bare"
    df.loc[bare, "value"] = np.where(df.loc[bare, "rep"] % 2 == 0, 1.0, 6.0)
    s = summarize(df, meta)
    assert s["base_inestable"].all() and s["x_bare"].isna().all()
    steady, _ = _synthetic(400, 200, reps=12)
    assert not summarize(steady, meta)["base_inestable"].any()
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    vista.tabla(Resultado("arranque", df, Path("."), meta))
    assert any("repite: la línea base es inestable" in o.to_html() for o in shown if hasattr(o, "to_html"))


@pytest.mark.parametrize(
    "docker_ms,podman_ms,expected",
    [
        (400, 200, "se_confirma"),
        (300, 400, "no_se_sostiene"),
        (300, 300, "no_se_sostiene"),
        (300, 250, "no_se_sostiene"),
    ],
)
def test_podman_twice_as_fast_verdict(docker_ms, podman_ms, expected):
    df, meta = _synthetic(docker_ms, podman_ms)
    verdicts = [c for c in arranque.claims(df, meta) if c.key == "podman_2x"]
    assert {c.status for c in verdicts} == {expected}
    assert all(c.source == "el capítulo original" and c.n == 15 for c in verdicts)
    for c in verdicts:
        sentence = common.claim_sentence(c)
        assert "Podman/Docker" in sentence and "Docker/Podman" not in sentence
        assert "semilla" not in sentence


def test_podman_twice_as_fast_is_inconclusive_with_few_noisy_repetitions():
    df, meta = _synthetic(400, 200, reps=6)
    for role in ("ubuntu", "alpine"):
        df.loc[(df.engine == "podman") & (df.image == f"p-{role}"), "value"] = [200, 140, 260, 170, 290, 230]
    c = [c for c in arranque.claims(df, meta) if c.key == "podman_2x"][0]
    assert c.low < c.region[0] < c.high  # the IC straddles the margin's edge
    assert c.status == "no_concluyente" and c.more_reps > 6
    assert "harían falta unas" in common.claim_sentence(c)


def test_below_the_minimum_the_claim_says_how_many_repetitions_it_needs():
    df, meta = _synthetic(400, 200, reps=verdict.MIN_N - 1)
    c = [c for c in arranque.claims(df, meta) if c.key == "podman_2x"][0]
    assert c.status == "sin_datos" and c.n == verdict.MIN_N - 1 and c.more_reps == verdict.MIN_N
    assert f"no se puede juzgar con {verdict.MIN_N - 1} repeticiones; hacen falta {verdict.MIN_N}" in (
        common.claim_sentence(c)
    )


def test_an_unstable_arm_is_flagged_not_judged():
    df, meta = _synthetic(400, 200)
    at = (df.engine == "docker") & (df.image == "d-ubuntu")
    df.loc[at, "value"] = [130.0, 140.0, 135.0, 2100.0, 2000.0, 2050.0] * 2 + [135.0, 2080.0, 138.0]
    by_role = {c.detail["role"]: c.status for c in arranque.claims(df, meta) if c.key == "podman_2x"}
    assert by_role == {"ubuntu": "inestable", "alpine": "se_confirma"}
    assert ("docker", "ubuntu", "por_defecto") in unstable_arms(df, meta)


def test_alpine_versus_ubuntu_verdict_detects_a_big_difference():
    df, meta = _synthetic(300, 300)
    bigger = (df.engine == "docker") & (df.image == "d-ubuntu")
    df.loc[bigger, "value"] *= 1.5
    podman_ubuntu = (df.engine == "podman") & (df.image == "p-ubuntu")
    df.loc[podman_ubuntu, "value"] *= 1.1
    by_engine = {c.detail["engine"]: c.status for c in arranque.claims(df, meta) if c.key == "alpine_ubuntu"}
    assert by_engine == {"docker": "no_se_sostiene", "podman": "se_confirma"}


def test_comparison_with_reference_gives_podman_over_docker_per_image():
    from helpers import reference

    df, meta = _synthetic(300, 450)
    c = compare(df, meta, reference.load("arranque"))
    assert set(zip(c.engine, c.role)) == {
        ("docker", "ubuntu"),
        ("docker", "alpine"),
        ("podman", "ubuntu"),
        ("podman", "alpine"),
    }
    assert c["tu_podman_sobre_docker"].iloc[0] == pytest.approx(1.5, rel=0.1)
    assert c["ref_podman_sobre_docker"].iloc[0] < 0.6
    # the reference's own interval comes from its ten repetitions
    assert (
        c["ref_podman_sobre_docker_ic_bajo"].iloc[0]
        < c["ref_podman_sobre_docker"].iloc[0]
        < c["ref_podman_sobre_docker_ic_alto"].iloc[0]
    )
    assert set(c["acuerdo_podman_sobre_docker"]) == {"no_coincide"}
    sentence = vista._frase_comparacion(c)
    assert "No coincide" in sentence and "Docker" in sentence


def test_agreement_with_the_reference_is_judged_like_a_claim():
    from helpers import reference

    ref = reference.load("arranque")
    # Podman/Docker near the reference's own (about 0.5), but the reference's ten noisy repetitions
    # give it an interval of about [0.41, 0.65]: live ÷ reference pokes out of 0.8×-1.25×
    df, meta = _synthetic(430, 215)
    c = compare(df, meta, ref)
    assert set(c["acuerdo_podman_sobre_docker"]) == {"no_concluyente"}
    sentence = vista._frase_comparacion(c)
    assert "No concluyente" in sentence and "Coincide" not in sentence


def test_an_engine_that_is_down_is_skipped_with_its_reason(monkeypatch, capsys):
    """Fault injection: both engines report themselves down; the run still measures bare metal."""
    for name in engines.CONTAINER_ENGINES:
        monkeypatch.setattr(
            engines.get_engine(name),
            "availability",
            lambda name=name: (False, f"{name} apagado para la prueba."),
        )
    res = arranque.run(arranque.config(repeticiones=2, calentamiento=0))
    out = capsys.readouterr().out
    assert "Se omite Docker: docker apagado para la prueba." in out
    assert res.meta["skipped_engines"] == {
        "docker": "docker apagado para la prueba.",
        "podman": "podman apagado para la prueba.",
    }
    assert res.status == "complete"
    assert set(res.df["engine"]) == {"bare"} and len(res.df) == 6


def test_list_parameters_given_as_text_by_papermill_are_understood():
    cfg = arranque.config(imagenes='["alpine"]', motores="['podman', 'docker']")
    assert cfg.imagenes == ["alpine"] and cfg.motores == ["podman", "docker"]
    with pytest.raises(ParametroInvalido, match="no entiendo la lista"):
        arranque.config(imagenes="[alpine")


# ---------------------------------------------------------------- the course's variant, the new claims
def _with_variant(df, podman_ms, docker_ms, seed=1):
    """Add `--network none` rows (variant sin_red) with their own figures to a synthetic run."""
    rng = np.random.default_rng(seed)
    rows = []
    for rep in sorted(set(df["rep"])):
        for role in ("ubuntu", "alpine"):
            rows.append(("docker", f"d-{role}", "sin_red", rep, rng.normal(docker_ms, 5)))
            rows.append(("podman", f"p-{role}", "sin_red", rep, rng.normal(podman_ms, 5)))
    extra = pd.DataFrame(rows, columns=["engine", "image", "variant", "rep", "value"])
    extra["experiment"], extra["metric"], extra["unit"] = "arranque", "arranque", "ms"
    return pd.concat([df, extra[results.COLUMNS]], ignore_index=True)


def test_claims_judge_only_the_chapter_conditions_and_the_variant_has_its_own_figures():
    df, meta = _synthetic(400, 200)
    plain = {(c.key, c.detail.get("role")): c.value for c in arranque.claims(df, meta)}
    df2 = _with_variant(df, podman_ms=500, docker_ms=100)  # the variant points the other way
    mixed = {(c.key, c.detail.get("role")): c.value for c in arranque.claims(df2, meta)}
    assert mixed == pytest.approx(plain)
    t = network_table(df2, meta)
    docker = t[(t.engine == "docker") & (t.role == "ubuntu")].iloc[0]
    assert docker.con_red_ms == pytest.approx(400, rel=0.05) and docker.sin_red_ms == pytest.approx(
        100, rel=0.1
    )
    assert docker.red_ic_bajo < docker.red_ms < docker.red_ic_alto
    assert pair_ratio(df2, meta, ("podman", "ubuntu"), ("docker", "ubuntu"), "sin_red")[0] > 4


@pytest.mark.parametrize("docker_ms,podman_ms,word", [(400, 200, "sí"), (200, 400, "no")])
def test_the_answer_to_the_course_question_follows_the_verdict(docker_ms, podman_ms, word):
    df, meta = _synthetic(docker_ms, podman_ms)
    claims = arranque.claims(df, meta)
    faster = [c for c in claims if c.key == "podman_mas_rapido"]
    assert {c.status for c in faster} == {"se_confirma" if word == "sí" else "no_se_sostiene"}
    assert all(c.where and "Análisis" in c.where for c in faster)
    text = vista._respuesta(claims)
    assert f"con «ubuntu», {word}:" in text and f"con «alpine», {word}:" in text


def test_podman_wider_iqr_is_judged_on_the_spread_relative_to_the_median():
    df, meta = _synthetic(400, 200, reps=12)
    rng = np.random.default_rng(3)
    wide = (df.engine == "podman") & (df.variant == "por_defecto")
    df.loc[wide, "value"] = 200 * rng.lognormal(0, 0.35, wide.sum())
    by_role = {c.detail["role"]: c for c in arranque.claims(df, meta) if c.key == "podman_iqr_amplio"}
    assert set(by_role) == {"ubuntu", "alpine"}
    assert all(c.value > 1 and c.n == 12 for c in by_role.values())
    meta["engines"] = {"podman": {"storage": "overlay nativo del kernel"}}
    note = [c for c in arranque.claims(df, meta) if c.key == "podman_iqr_amplio"][0].note
    assert "overlay nativo del kernel" in note and "no está en esta máquina" in note
    meta["engines"] = {"podman": {"storage_driver": "overlay", "storage": "fuse-overlayfs"}}
    note = [c for c in arranque.claims(df, meta) if c.key == "podman_iqr_amplio"][0].note
    assert "está presente" in note


def _bare(builtin_ms, seed_ms, process_ms, reps=10):
    rng = np.random.default_rng(0)
    rows = []
    for rep in range(1, reps + 1):
        for variant, ms in (("builtin", builtin_ms), ("metodo_semilla", seed_ms), ("proceso", process_ms)):
            rows.append(("bare", "", variant, rep, ms * rng.normal(1, 0.03)))
    df = pd.DataFrame(rows, columns=["engine", "image", "variant", "rep", "value"])
    df["experiment"], df["metric"], df["unit"] = "arranque", "arranque", "ms"
    return df[results.COLUMNS]


def test_the_baseline_lesson_follows_the_data_both_ways():
    df = _bare(builtin_ms=0.03, seed_ms=2.0, process_ms=1.0)
    text = " ".join(vista._frases_bare_metal(summarize(df), df, {}))
    assert "el método mide `date`, no `echo`" in text and "del mismo orden" in text
    df = _bare(builtin_ms=1.8, seed_ms=2.0, process_ms=40.0)  # a machine where the builtin dominates
    text = " ".join(vista._frases_bare_metal(summarize(df), df, {}))
    assert "mide `date`" not in text and "la mayor parte" in text
    assert "no es del mismo orden" in text


def test_the_stopwatch_sentence_follows_its_figures():
    shown = []
    import IPython.display

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(getattr(obj, "data", "")))
        same = {"bucle_ms": 1.0, "curso_ms": 1.02, "proporcion": 0.98, "ic_bajo": 0.97, "ic_alto": 1.01}
        vista.bucle({**same, "repeticiones": 20})
        vista.bucle({**same, "ic_bajo": 0.45, "ic_alto": 0.55, "proporcion": 0.5, "repeticiones": 20})
        vista.bucle({**same, "ic_bajo": 0.8, "ic_alto": 1.3, "repeticiones": 20})
        vista.bucle({**same, "repeticiones": 5})  # below the minimum n: no reading, whatever the figures
    assert "def time_launches" in shown[0]
    assert "la misma cifra" in shown[1]
    assert "mide menos que el cronómetro" in shown[3] and "la misma cifra" not in shown[3]
    assert "no se distingue hacia qué lado" in shown[5]
    assert "la misma cifra" not in shown[7] and "mide" not in shown[7].split("proporción")[-1]


def test_the_stopwatch_gives_the_course_figure_in_the_same_run():
    """The loop a student reads and the panel's timer, interleaved on the same command (a ratio of two
    medians measured together, never an absolute time). The command does some milliseconds of work, so
    that a scheduling hiccup on our two shared cores (the guest VM runs beside the tests) cannot
    outweigh it as it could a bare `true` of 1 ms."""
    work = ["sh", "-c", "i=0; while [ $i -lt 3000 ]; do i=$((i + 1)); done"]
    out = arranque.side_by_side(work, repetitions=30)
    assert 0.5 < out["proporcion"] < 2.0 and out["ic_bajo"] <= out["proporcion"] <= out["ic_alto"]


def test_a_quick_run_below_the_minimum_says_it_shows_figures_without_verdicts(tmp_path, monkeypatch):
    from helpers.experiments import verdict
    from helpers.experiments.runner import Resultado

    shown: list = []
    monkeypatch.setattr(vista, "markdown", lambda text: shown.append(text or ""))
    monkeypatch.setattr(vista, "claims_list", lambda claims: None)
    df, meta = _synthetic(400, 200, reps=verdict.MIN_N - 1 if verdict.MIN_N > 2 else 1)
    vista.veredictos(Resultado("arranque", df, tmp_path, meta))
    assert any("sin veredictos" in t for t in shown)
    shown.clear()
    df, meta = _synthetic(400, 200, reps=max(verdict.MIN_N, 2))
    vista.veredictos(Resultado("arranque", df, tmp_path, meta))
    assert not any("sin veredictos" in t for t in shown)


def test_default_and_quick_runs_reach_the_verdicts_minimum():
    from helpers.experiments import verdict

    assert arranque.Config().repeticiones >= verdict.MIN_N
    assert arranque.QUICK["REPETICIONES"] >= verdict.MIN_N


def test_first_launches_sit_beside_the_median():
    df, meta = _synthetic(400, 200)
    first = df[df.engine != "bare"].groupby(["engine", "image", "variant"], as_index=False).first()
    first["metric"], first["value"] = arranque_measure.FIRST_METRIC, 1200.0
    t = first_launches(pd.concat([df, first[results.COLUMNS]]), meta)
    assert len(t) == 4 and (t["proporcion"] > 2).all()
    assert (t["mas_rapidos"] == t["n"]).all() and (t["n"] > 0).all()  # slower than every later launch


@pytest.mark.parametrize(
    "factor,words",
    [(3.0, "En 4 de 4 combinaciones el primer arranque fue más lento"), (0.5, "En 0 de 4 combinaciones")],
)
def test_the_first_launch_sentence_follows_the_data(factor, words, tmp_path, monkeypatch):
    import IPython.display

    from helpers.experiments.runner import Resultado

    df, meta = _synthetic(400, 200)
    first = df[df.engine != "bare"].groupby(["engine", "image", "variant"], as_index=False).first()
    first["metric"] = arranque_measure.FIRST_METRIC
    first["value"] = first["engine"].map({"docker": 400.0, "podman": 200.0}) * factor
    shown = []
    monkeypatch.setattr(
        IPython.display, "display", lambda obj, *a, **k: shown.append(getattr(obj, "data", ""))
    )
    vista.primer_arranque(Resultado("arranque", pd.concat([df, first[results.COLUMNS]]), tmp_path, meta))
    assert any(words in str(text) for text in shown)


def _shown_tables(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, *a, **k: shown.append(obj))
    return shown


def test_the_results_table_shows_the_precision_each_interval_supports(tmp_path, monkeypatch):
    """«286.28 [281.66, 292.85]» claimed a precision its interval does not have: a median of hundreds of
    ms with a ±5 ms interval shows no decimals; the baseline's own row is named, not «1.00× [1.00, 1.00]»."""
    from helpers.experiments.runner import Resultado

    df, meta = _synthetic(400, 200)
    shown = _shown_tables(monkeypatch)
    vista.tabla(Resultado("arranque", df, tmp_path, meta))
    t = shown[0].data.set_index("Combinación")
    docker = t.loc["Docker / ubuntu"]
    assert "." not in docker["Mediana (ms)"] and "." not in docker["IC 95 % mediana (ms)"]
    assert "." in t.loc[t.index.str.startswith("bare metal")].iloc[0]["Mediana (ms)"]  # ~1 ms ± 0.05
    assert (
        t.loc[t.index.str.startswith("bare metal")].iloc[0]["× bare metal [IC 95 %]"] == "1× (la línea base)"
    )
    assert "prueba del signo" in shown[0].caption and "bootstrap" not in shown[0].caption


def test_the_reference_multipliers_are_explained_next_to_the_chapter_printed_ones():
    from helpers import reference

    ref = reference.load("arranque")
    text = vista._published_x_bare(ref)
    assert "~238× (Docker/ubuntu)" in text and "1.8 ms" in text and "1.835 ms" in text
    # The chapter's ten bare-metal runs (1.3 to 6.9 ms) are an unstable baseline: the table divides
    # nothing by it (its «× bare» column is «—»), so the sentence never says it recomputes them.
    assert "La tabla las recalcula" not in text and "inestable" in text, text
    stable = ref.copy()
    bare = (stable["engine"] == "bare") & (stable["variant"] == "metodo_semilla")
    stable.loc[bare, "value"] = 1.835 + 0.01 * np.arange(bare.sum())
    again = vista._published_x_bare(stable)
    assert "La tabla las recalcula" in again and "más bajas" in again  # 1.835 > 1.8: lower than printed


def test_the_second_round_shows_bare_metal_and_says_which_parameters_changed(tmp_path, monkeypatch):
    import json

    from helpers import results as res_mod
    from helpers.experiments.runner import Resultado
    from helpers.view import arranque_condiciones

    df, meta = _synthetic(400, 200)
    for run_id, reps in (("20260101T000000Z-aaaa", 6), ("20260101T010000Z-bbbb", 10)):
        run_dir = tmp_path / "arranque" / run_id
        run_dir.mkdir(parents=True)
        df.to_csv(run_dir / "raw.csv", index=False)
        (run_dir / "meta.json").write_text(
            json.dumps({**meta, "run_id": run_id, "status": "complete", "parameters": {"repeticiones": reps}})
        )
    assert res_mod.list_runs("arranque", tmp_path)
    now = Resultado.load(tmp_path / "arranque" / "20260101T010000Z-bbbb")
    shown = _shown_tables(monkeypatch)
    arranque_condiciones.segunda_ronda(now, root=tmp_path)
    assert "bare metal (proceso real)" in list(shown[0].data["Combinación"])
    assert "repeticiones 6 (ahora 10)" in shown[1].data


def _sources_section(name: str) -> str:
    from helpers import PROJECT_ROOT

    text = (PROJECT_ROOT / "data" / "reference" / "SOURCES.md").read_text(encoding="utf-8")
    section = text[text.index(f"## `{name}`") :]
    return section[: section.index("\n## ", 5)]


@pytest.mark.parametrize("name", ["arranque", "escala"])
def test_sources_lists_every_claim_with_where_the_chapter_says_it(name):
    """SOURCES.md's hand-written sections for arranque.csv and escala.csv name every declared claim by
    key, with the chapter's section its declaration names first and a status."""
    import re

    from helpers import experiments

    section = _sources_section(f"{name}.csv")
    for said in experiments.get(name).SAID:
        row = next((ln for ln in section.splitlines() if ln.startswith(f"| `{said.key}` |")), None)
        assert row is not None, f"SOURCES.md no lista {said.key}"
        first = re.search(r"«[^»]+»", said.where)[0]
        assert first in row, (said.key, first, row)
        assert row.rstrip().endswith("|") and row.count("|") == 5, row
        assert said.source == "el capítulo original"


def test_the_chapter_figures_declared_in_claims_match_its_raw_rows():
    """The medians and IQRs claims.py copies from the chapter's table «Medianas y multiplicadores» are
    those of the raw rows in arranque.csv (the IQR ends are two of its repetitions: the chapter read them
    by rank), so a claim and its reference figure cannot drift apart."""
    import importlib

    from helpers import reference

    c = importlib.import_module("helpers.experiments.arranque.claims")

    ref = reference.load("arranque")
    for (engine_name, role), (median, q1, q3) in c.TABLE.items():
        raw = arm_values(ref, None, (engine_name, role))
        assert len(raw) == 10 and np.median(raw) == pytest.approx(median, abs=0.05)
        # one decimal, cut rather than rounded (230.97 is printed 230.9)
        assert min(abs(raw - q1)) < 0.1 and min(abs(raw - q3)) < 0.1, (engine_name, role)


@pytest.mark.parametrize(
    "live,words",
    [
        ((0.99, 0.8, 1.3), "no se distingue hacia qué lado"),
        ((1.01, 0.97, 1.04), "casi igual"),
        ((0.9, 0.85, 0.95), "aquí tarda menos Podman"),
        ((1.3, 1.2, 1.4), "aquí tarda menos Docker"),
    ],
)
def test_the_reference_sentence_names_the_quicker_engine_only_when_the_interval_does(live, words):
    """A run with Podman/Docker = 0.99× [0.8, 1.3] was said to be one where «tarda menos Podman»."""
    row = {"engine": "docker", "role": "ubuntu", "acuerdo_x_bare": "sin_datos"}
    row |= {"acuerdo_podman_sobre_docker": "no_coincide", "ref_podman_sobre_docker": 0.5}
    row |= {"ref_podman_sobre_docker_ic_bajo": 0.42, "ref_podman_sobre_docker_ic_alto": 0.64}
    row |= dict(
        zip(
            ["tu_podman_sobre_docker", "tu_podman_sobre_docker_ic_bajo", "tu_podman_sobre_docker_ic_alto"],
            live,
        )
    )
    text = vista._frase_comparacion(pd.DataFrame([row]))
    assert words in text


def test_citation_of_04_before_it_runs_says_it_comes_later_not_run_it(tmp_path):
    """In course order 01 runs before 04: without 04's run, 01 says what 04 will measure, later."""
    from helpers.view import arranque_condiciones

    text = arranque_condiciones.red_en_04(root=tmp_path)
    assert "más adelante" in text and "04" in text
    assert "ejecút" not in text.lower()


def test_the_rows_of_the_rounds_change_no_claim_and_no_closing_row(tmp_path):
    """The machine's load per round and each arm's position (runner.measure_rounds) are not measurements."""
    df, meta = _synthetic(400, 200)
    assert_round_rows_change_nothing(arranque, df, meta, tmp_path / "rondas")


def test_the_worked_answer_names_01s_verdict_once_when_both_images_agree(tmp_path):
    """Solution 01, exercise 4: «(veredicto de 01 sobre …: «no se sostiene»)» once, not after each image."""
    from helpers.course.facts import arranque as kit

    df, meta = _synthetic(200, 400)
    text = kit.facts(Resultado("arranque", df, tmp_path, meta))["podman_docker"]
    assert text.count("no se sostiene") == 1 and "con cada imagen: «no se sostiene»" in text, text
    assert text.count("arranca antes Docker") == 2, text
