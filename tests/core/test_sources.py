"""Where the declared claims come from (helpers.sources): every `Said.ref` gives the claimed figure from
data/reference, data/reference/SOURCES_CLAIMS.md is up to date, published ranges stay ranges, and every
packaged experiment declares the kind of each claim."""

from __future__ import annotations

import math

import pytest

from helpers import experiments, reference, sources
from helpers.experiments import verdict
from helpers.experiments.verdict import Said, ref

DECLARED = sources.declared()
WITH_REF = [(m, s) for m, s in DECLARED if s.ref is not None]


def test_some_claims_name_their_reference_figure():
    assert WITH_REF, "ninguna afirmación declara de qué cifra de referencia sale"


@pytest.mark.parametrize(
    "module, said", WITH_REF, ids=lambda x: getattr(x, "key", getattr(x, "EXPERIMENT", ""))
)
def test_the_claimed_number_is_the_reference_figure(module, said):
    ok, found = sources.matches(said, module.EXPERIMENT)
    assert ok, (
        f"{module.EXPERIMENT}/{said.key}: declara {said.claimed or said.bounds}, la referencia da {found}"
    )


def test_a_claimed_number_that_drifted_from_its_reference_is_caught():
    good = Said(
        "x",
        "s",
        "f",
        claimed=0.5,
        kind="about",
        ref=ref(
            source="seed000", engine="podman", image="ubuntu", metric="arranque", over={"engine": "docker"}
        ),
    )
    assert sources.matches(good, "arranque")[0]
    assert not sources.matches(good.but(claimed=0.6), "arranque")[0]
    with pytest.raises(LookupError, match="ninguna fila"):
        sources.figure(ref(source="seed000", engine="lxc"), "arranque")


def test_a_published_range_is_checked_as_a_range_never_resampled():
    table = ref(source="seed001-tabla-epyc-7763", engine="docker", metric="sobrecarga")
    assert sources.figure(table, "llamadas") == (24.0, 28.0)
    said = Said("t", "24-28 %", "f", kind="range", bounds=(24.0, 28.0), unit="%", ref=table)
    assert sources.matches(said, "llamadas")[0]
    assert not sources.matches(said.but(bounds=(24.0, 30.0)), "llamadas")[0]
    mixed = ref(engine="docker", metric="getpid", variant="seccomp")  # a range and a single run together
    with pytest.raises(LookupError, match="rango"):
        sources.figure(mixed, "llamadas")


def test_range_sources_hold_two_ends_per_figure():
    for name in ("llamadas",):
        rows = reference.load(name)
        ranged = rows[rows["source"].isin(reference.RANGE_SOURCES)]
        assert not ranged.empty
        for _, group in ranged.groupby(["source", "engine", "variant", "metric"]):
            assert sorted(group["rep"]) == [1, 2]
            low, high = group.sort_values("rep")["value"]
            assert low <= high
        figures = reference.figures(name)
        assert set(figures[figures["source"].isin(reference.RANGE_SOURCES)]["forma"]) == {"rango"}
        assert (figures[figures["forma"] == "rango"]["n"] == 0).all()


def test_the_declared_claims_file_is_up_to_date():
    assert sources.OUTPUT.read_text(encoding="utf-8") == sources.render(), (
        "data/reference/SOURCES_CLAIMS.md no está al día: ejecuta `python -m helpers.sources`"
    )


def test_every_packaged_claim_declares_its_kind():
    """A claim's margin comes from its kind (verdict.MARGINS); one that borrows another notebook's
    claim (a margin of its own would be a second one) has no margin of its own."""
    for module, said in DECLARED:
        borrowed = not said.kind and said.region == (-math.inf, math.inf)
        assert said.kind in verdict.KINDS or borrowed, f"{module.EXPERIMENT}/{said.key}"
    assert {m.EXPERIMENT for m, _ in DECLARED} >= {
        "arranque",
        "escala",
        "anatomia",
        "red",
        "anidamiento",
        "sistema_vm",
    }


def test_every_registered_experiment_is_in_the_file():
    text = sources.render()
    for module in experiments.all_experiments():
        if getattr(module, "SAID", ()):
            assert f"`{module.EXPERIMENT}`" in text


def test_the_chapters_decimal_kb_reach_the_course_as_kib():
    """The chapter's script turns Docker's KiB into decimal kB (× 1.024): its per-container figures are
    kB, and the course, which counts KiB, reads them 2.4 % smaller; RSS from `ps` is already KiB."""
    import csv

    raw = list(csv.DictReader((reference.REFERENCE_DIR / "escala.csv").open()))
    cgroup = [r for r in raw if r["metric"] == "memoria_cgroup_por_contenedor"]
    assert cgroup and all(r["unit"] == reference.DECIMAL_KB for r in cgroup)
    assert all(r["unit"] == "KB" for r in raw if r["metric"].startswith("rss_"))
    df = reference.load("escala").query("source == 'seed000'")
    pick = (df["metric"] == "memoria_cgroup_por_contenedor") & (df["engine"] == "docker")
    docker20 = df[pick & (df["variant"] == "n=20")]
    assert docker20["value"].iloc[0] == pytest.approx(437 * 1000 / 1024)
    assert reference.DECIMAL_KB not in set(df["unit"])


# ---------------------------------------------------------------- which document each claim cites
def test_every_claim_names_an_entry_of_SOURCES_md_flagged_as_the_page_flags_it():
    """Every claim's source is a row of SOURCES.md's table of documents (or the course's own claim), its
    reference figure comes from that row's rows, and «segunda mano» is on the page exactly where that row
    says so."""
    assert sources.problems(sources.DOCUMENTS.read_text(encoding="utf-8"), DECLARED) == []


def test_every_entry_has_rows_in_the_reference_data():
    cited = set().union(*(set(reference.load(n)["source"]) for n in reference.available()))
    named = {key for key in sources.ENTRIES.values() if key is not None}
    assert named <= cited, f"sin filas en data/reference: {sorted(named - cited)}"


def test_a_second_hand_flag_or_an_unknown_source_that_disagrees_with_SOURCES_md_is_caught():
    text = sources.DOCUMENTS.read_text(encoding="utf-8")
    row = sources.document_rows(text)["fdd_p26"]
    assert sources.SECOND_HAND not in row  # its script and raw rows are in the repository: first-hand
    cells = row.split("|")
    cells[2] += f"(cifras de {sources.SECOND_HAND}) "
    flagged_row = text.replace(row, "|".join(cells))  # the table says second-hand, the page does not
    assert any("fdd_p26" in p for p in sources.problems(flagged_row, DECLARED))
    chapter = next((m, s) for m, s in DECLARED if sources.entry(s) == "seed000")
    flagged = [(chapter[0], chapter[1].but(source=chapter[1].source + f" ({sources.SECOND_HAND})"))]
    assert sources.problems(text, flagged)  # an unregistered wording of a source
    with pytest.raises(KeyError, match="no es una entrada"):
        sources.entry(Said("x", "s", "un blog cualquiera", claimed=1.0, kind="about"))
    borrowed = chapter[1].but(ref=ref(source="fdd_p26", metric="arranque"))
    assert any("filas de `fdd_p26`" in p for p in sources.problems(text, [(chapter[0], borrowed)]))
