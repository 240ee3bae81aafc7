"""The instructor's kit is generated from a run (issue 22): every figure of the guide and every fact a
worked answer states comes from the latest runs, a sentence that changes when the data point the other
way, and a notice in Spanish when there is no run."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest

from helpers import PROJECT_ROOT, course, experiments, results
from helpers.course import facts as kit
from helpers.course.facts import words
from helpers.experiments import verdict
from helpers.experiments.anatomia.analysis import part_shares, share_gap, waterfall, waterfall_parts
from helpers.experiments.anatomia.analysis import values as anatomia_values

DOCS = PROJECT_ROOT / "docs"
ROLES = {"alpine": "curso/busybox-estatico:1", "ubuntu": "curso/debian-minbase:bookworm"}


def _write_run(root: Path, experiment: str, run_id: str, rows: list[tuple], meta: dict | None = None) -> None:
    run_dir = root / experiment / run_id
    run_dir.mkdir(parents=True)
    lines = [",".join(results.COLUMNS)]
    lines += [",".join(str(v) for v in (experiment, *row)) for row in rows]
    (run_dir / "raw.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    base = {"experiment": experiment, "run_id": run_id, "status": "complete", "started_ns": 1}
    (run_dir / "meta.json").write_text(json.dumps({**base, **(meta or {})}), encoding="utf-8")


def _reps(center: float, n: int = 8, seed: int = 0) -> list[float]:
    rng = np.random.default_rng(seed)
    return [round(center * (1 + 0.01 * x), 4) for x in rng.standard_normal(n)]


def _anatomia(root: Path, network_heavy: bool, pool: float | None = None) -> None:
    """A ladder where the network dominates `run`, netns is the dearest namespace and the warm pool saves
    most of a launch (network_heavy), or the other way round on all three."""
    if network_heavy:
        bare = dict(proceso=1, ns_mount=1.1, ns_uts=1.15, ns_ipc=1.2, ns_pid=1.3, ns_red=4.3)
        bare |= dict(runc_sin_netns=20, runc_con_netns=23, runc_overlay=25)
        engine = dict(run_sin_red=60, run_red=200, pool=40)
    else:
        bare = dict(proceso=1, ns_mount=2.0, ns_uts=2.05, ns_ipc=2.1, ns_pid=2.2, ns_red=2.5)
        bare |= dict(runc_sin_netns=20, runc_con_netns=20.5, runc_overlay=22)
        engine = dict(run_sin_red=180, run_red=200, pool=195)
    if pool is not None:
        engine["pool"] = pool
    rows = []
    for i, (variant, ms) in enumerate(bare.items()):
        rows += [("bare", "", variant, r, "arranque", v, "ms") for r, v in enumerate(_reps(ms, seed=i), 1)]
    for name in ("docker", "podman"):
        for i, (variant, ms) in enumerate(engine.items()):
            values = _reps(ms, seed=10 + i)
            rows += [
                (name, ROLES["alpine"], variant, r, "arranque", v, "ms") for r, v in enumerate(values, 1)
            ]
    _write_run(root, "anatomia", "20260101T000000Z-anat", rows)


def _arranque(root: Path, podman_faster: bool) -> None:
    docker_ms, podman_ms = (200, 100) if podman_faster else (100, 200)
    rows = [("bare", "", "proceso", r, "arranque", v, "ms") for r, v in enumerate(_reps(1.0), 1)]
    for name, ms in (("docker", docker_ms), ("podman", podman_ms)):
        for role, image in ROLES.items():
            values = _reps(ms, seed=len(name) + len(role))
            rows += [(name, image, "por_defecto", r, "arranque", v, "ms") for r, v in enumerate(values, 1)]
    images = {
        name: {role: {"role": role, "engine": name, "name": image} for role, image in ROLES.items()}
        for name in ("docker", "podman")
    }
    backend = "netavark" if podman_faster else "cni"
    meta = {"images": images, "engines": {"podman": {"network_backend": backend, "server_version": "4.3.1"}}}
    _write_run(root, "arranque", "20260101T000000Z-arra", rows, meta)


def _escala(root: Path, helper_heavy: bool) -> None:
    """Idle containers whose per-container helper (shim, conmon) outweighs their cgroup (helper_heavy),
    or the other way round; KB, like raw.csv."""
    helper_kb, cgroup_kb = (12000, 400) if helper_heavy else (100, 5000)
    rows = []
    for n in (1, 3):
        for rep in (1, 2, 3):
            common = [("memoria_cgroup_total", cgroup_kb * n), ("memoria_cgroup_por_contenedor", cgroup_kb)]
            docker = [("rss_daemon", 100000), ("pss_daemon", 95000), ("rss_containerd", 45000)]
            docker += [("pss_containerd", 44000), ("rss_shims_total", helper_kb * n)]
            docker += [("pss_shims_total", helper_kb * n // 3)]
            podman = [("rss_conmon_total", helper_kb * n // 5), ("pss_conmon_total", helper_kb * n // 15)]
            for engine, metrics in (("docker", docker + common), ("podman", podman + common)):
                rows += [(engine, "", f"n={n}", rep, metric, value, "KB") for metric, value in metrics]
    _write_run(root, "escala", "20260101T000000Z-esca", rows, {"host": {"memory_available_bytes": 8 * 2**30}})


def _text(page: Path) -> str:
    """A rendered page as a reader sees it: no tags, entities unescaped, spaces collapsed."""
    raw = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
    return re.sub(r"\s+", " ", html.unescape(raw))


def _render(tmp_path: Path, root: Path) -> dict[str, str]:
    target = tmp_path / f"docente-{root.name}"
    assert course.render_instructor_kit(target, results_root=root) == target / "index.html"
    pages = {"guia": _text(target / "guia_docente.html")}
    for page in (target / "soluciones").glob("*.html"):
        pages[page.stem] = _text(page)
    return pages


def test_every_placeholder_of_the_kit_is_a_known_fact():
    known = set(kit.kit_facts(Path("/nonexistent")))  # every key exists even without any run
    used = set()
    for path in [DOCS / "guia_docente.md", *sorted((DOCS / "soluciones").glob("[0-9]*.md"))]:
        used |= set(kit.PLACEHOLDER.findall(path.read_text(encoding="utf-8")))
    assert used, "la guía y las soluciones no toman ninguna cifra de una corrida"
    assert used <= known, sorted(used - known)
    assert {"anatomia.cascada", "anatomia.espacios", "anatomia.pool", "arranque.red_podman"} <= used


def test_without_a_run_the_pages_say_so_in_spanish(tmp_path):
    pages = _render(tmp_path, tmp_path / "vacio")
    for text in pages.values():
        assert not kit.PLACEHOLDER.search(text) and "dato desconocido" not in text
    assert "todavía no hay ninguna corrida de 04_anatomia_arranque" in pages["04_anatomia_arranque"]
    assert "todavía no hay ninguna corrida de 01_arranque" in pages["guia"]
    assert not re.search(r"\d ms", pages["04_anatomia_arranque"])  # no figure invented


def test_the_worked_answers_follow_the_data_both_ways(tmp_path):
    heavy, light = tmp_path / "red", tmp_path / "motor"
    _anatomia(heavy, network_heavy=True)
    _anatomia(light, network_heavy=False)
    _arranque(heavy, podman_faster=True)
    _arranque(light, podman_faster=False)
    _escala(heavy, helper_heavy=True)
    _escala(light, helper_heavy=False)
    a, b = _render(tmp_path, heavy)["04_anatomia_arranque"], _render(tmp_path, light)["04_anatomia_arranque"]

    # Exercise 1: which part of `run` weighs most.
    label = {part.key: part.label for part in waterfall_parts("docker")}
    assert f"en Docker la parte mayor es «{label['red']}»" in a and "la red es lo que más pesa" in a
    assert f"en Docker la parte mayor es «{label['motor']}»" in b and "no es la red lo que más pesa" in b
    assert "la red es lo que más pesa" not in b
    # Exercise 2: netns against mount, UTS, IPC and PID together, and the dearest one.
    assert "El de red cuesta más que mount, UTS, IPC y PID juntos" in a and "el de red." in a
    assert "El de red no cuesta más que mount, UTS, IPC y PID juntos" in b and "el de mount." in b
    # Exercise 4: what start -a of the warm pool saves.
    # 195 ms against 200 ms: −2.5 %, inside «casi igual» (±5 %): no «more» by the one rule
    assert "un núcleo arranca muchos más" in a
    assert "un núcleo no arranca más con start -a que con run: casi igual: el IC 95 % cae de" in b
    assert "no más" not in a + b
    # The figures are the run's: the pool's median and the network's share, as view.common writes them.
    pool = anatomia_values(
        results.read_raw(heavy / "anatomia" / "20260101T000000Z-anat" / "raw.csv"), "docker", "pool"
    )
    assert f"`start -a` {words.ms(pool)}".replace("`", "") in a
    share = waterfall(
        results.read_raw(light / "anatomia" / "20260101T000000Z-anat" / "raw.csv"), "docker"
    ).set_index("parte")
    assert words.share(*share.loc["red", ["fraccion", "fraccion_ic_bajo", "fraccion_ic_alto"]]) in b

    # 01 and the guide: who starts first, and Podman's network program, from the run.
    guide_a, guide_b = _render(tmp_path, heavy)["guia"], _render(tmp_path, light)["guia"]
    assert "arranca antes Podman" in guide_a and "arranca antes Docker" not in guide_a
    assert "arranca antes Docker" in guide_b and "arranca antes Podman" not in guide_b
    # 02, exercise 4 (CAPACITY): what weighs most per container, and how many fit in the free memory.
    two_a, two_b = _render(tmp_path, heavy)["02_escala"], _render(tmp_path, light)["02_escala"]
    assert "pesa más su ayudante que su cgroup" in two_a and "pesa más su cgroup" not in two_a
    assert "pesa más su cgroup que su ayudante" in two_b and "pesa más su ayudante" not in two_b
    assert ", en los 8.0 GiB libres que tenía al medir, la recta" in two_a
    assert two_a.count("pesa más su ayudante que su cgroup") == 1  # said once, not per engine and count
    assert "0.39 MiB (N = 3)" in guide_a and "4.88 MiB (N = 3)" in guide_b  # the guide's cgroup row
    one_a, one_b = _render(tmp_path, heavy)["01_arranque"], _render(tmp_path, light)["01_arranque"]
    assert "configuró la red con netavark" in one_a and "configuró la red con cni" in one_b


def test_an_undecided_warm_pool_is_neither_more_nor_not_more(tmp_path):
    """start -a about 5 % faster than run, with an interval across the edge of «casi igual» and entirely
    below 0 %: the worked answer says it starts a few more, without telling whether beyond «casi
    igual» (verdict.side), never «no se distingue» (its interval does not hold 0 %) nor «no arranca más»."""
    root = tmp_path / "indeciso"
    _anatomia(root, network_heavy=False, pool=190)
    page = _render(tmp_path, root)["04_anatomia_arranque"]
    assert "arranca algunos más con start -a, sin saber si fuera de «casi igual»" in page
    assert "no se distingue hacia qué lado" not in page.split("start -a")[1][:200]
    assert "no arranca más con start -a que con run" not in page


@pytest.mark.notebook
def test_the_kit_of_the_quick_course_states_its_own_run():
    """The course's quick run (shared with the other course tests): the kit beside it states that run's
    figures, and each worked answer's conclusion is the one its data give."""
    from tests.curso_rapido import quick_course

    run = quick_course()
    docente = run.build / "docente"
    assert (docente / "index.html").is_file(), run.output[-2000:]
    latest = results.latest("anatomia", run.results)
    assert latest is not None, "el curso rápido no dejó una corrida de 04"
    page = _text(docente / "soluciones" / "04_anatomia_arranque.html")
    assert latest.name in page
    df = results.load_run(latest)[0]
    for engine in ("docker", "podman"):
        parts = waterfall(df, engine).dropna(subset=["fraccion"])
        if parts.empty:
            continue
        top = parts.loc[parts["fraccion"].idxmax()]
        start = page.index(f"en {words.ENGINE[engine]} la parte mayor es «{top['etiqueta']}»")
        clause = page[start:].split(";")[0] if top["parte"] == "red" else page[start:].split("; en ")[0]
        if top["parte"] == "red":
            assert "la red es lo que más pesa" in clause, clause
        elif "red" in set(parts["parte"]):  # which weighs more, by the one rule on the per-round gap
            shares = part_shares(df, engine)
            gap = share_gap(shares[top["parte"]], shares["red"])
            decided = gap.has_interval and verdict.exceeds(gap.low, gap.high, gap.n)
            expected = "no es la red lo que más pesa" if decided else "no se puede decir cuál pesa más"
            assert expected in clause, clause
    facts = kit.kit_facts(run.results)
    guide = _text(docente / "guia_docente.html")
    for key in ("arranque.bare", "arranque.docker", "arranque.podman"):
        assert re.sub(r"\s+", " ", facts[key]) in guide, (key, facts[key])
    for text in [guide, page]:
        assert not kit.PLACEHOLDER.search(text) and "dato desconocido" not in text


def _llamadas(root: Path, layered: bool) -> None:
    """05: seccomp costs 27 ns and each nested PID namespace 30 ns (layered), or neither does."""
    per_level, filter_ns = (30.0, 27.0) if layered else (0.0, 0.0)
    arms = {("bare", "host"): 100.0, ("docker", "sin_seccomp"): 100.0, ("docker", "seccomp"): 100 + filter_ns}
    arms |= {("bare", f"pid:{d}"): 100 + per_level * d for d in (1, 2, 4, 8)}
    rows = []
    for i, ((engine, variant), ns) in enumerate(arms.items()):
        for rep, value in enumerate(_reps(ns, seed=20 + i), 1):
            rows.append((engine, "", variant, rep, "getpid", value, "ns"))
            rows.append((engine, "", variant, rep, "getpid:pared", value * 1.1, "ns"))
            rows.append((engine, "", variant, rep, "clock_gettime", 20.0 + value / 1000, "ns"))
            rows.append((engine, "", variant, rep, "clock_gettime:pared", 22.0 + value / 1000, "ns"))
    meta = {"parameters": {"llamadas": 200000, "cpu": 0}}
    _write_run(root, "llamadas", "20260101T000000Z-llam", rows, meta)


def _red(root: Path, security_is_the_cost: bool) -> None:
    """06: Docker -p at half of native; with seccomp off it gets everything back (security_is_the_cost)
    or nothing. docker-proxy spends 20 µs of CPU per request."""
    arms = {("bare", "nativo"): 20000.0, ("docker", "puerto"): 10000.0, ("docker", "host"): 19000.0}
    arms[("docker", "sin_seccomp")] = 20000.0 if security_is_the_cost else 10000.0
    rows = []
    for i, ((engine, variant), req_s) in enumerate(arms.items()):
        for rep, value in enumerate(_reps(req_s, seed=40 + i), 1):
            rows += [(engine, "nethttp", variant, rep, "req_s", value, "req/s")]
            rows += [(engine, "nethttp", variant, rep, "req_s_hilo", value / 2, "req/s")]
            rows += [(engine, "nethttp", variant, rep, "peticiones", value * 2, "")]
            rows += [(engine, "nethttp", variant, rep, "cpu_servidor", value * 2 * 30e-6, "s")]
            if variant in ("puerto", "sin_seccomp"):
                rows += [(engine, "nethttp", variant, rep, "cpu_proxy", value * 2 * 20e-6, "s")]
    meta = {"parameters": {"hilos": 2, "conexiones": 50, "duracion_s": 2}}
    _write_run(root, "red", "20260101T000000Z-red0", rows, meta)


def test_the_worked_answers_of_05_and_06_follow_the_data_both_ways(tmp_path):
    layered, flat = tmp_path / "capas", tmp_path / "plano"
    _llamadas(layered, layered=True)
    _llamadas(flat, layered=False)
    _red(layered, security_is_the_cost=True)
    _red(flat, security_is_the_cost=False)
    five_a, five_b = (
        _render(tmp_path, layered)["05_llamadas_sistema"],
        _render(tmp_path, flat)["05_llamadas_sistema"],
    )
    # Exercise 6: the nesting slope against the course's correction.
    assert "cada nivel de namespace PID añadió 30" in five_a and "contradice el código" in five_a
    assert "la recta es plana, como predice el código" in five_b and "contradice el código" not in five_b
    # Exercise 4: the seccomp profile at a million calls per second (27 ns → about 2.7 % of a core).
    share = r"el perfil seccomp de Docker añade ([0-9.−]+) ns por llamada .*?: (?:([0-9.]+) %|ninguna)"
    found_a, found_b = re.search(share, five_a), re.search(share, five_b)
    assert found_a and 24 < float(found_a[1]) < 30 and 2.4 < float(found_a[2]) < 3.0, found_a
    assert (
        found_b
        and float(found_b[1].replace("−", "-")) < 3
        and (found_b[2] is None or float(found_b[2]) < 0.3)
    ), found_b
    # Exercise 2: the two overhead figures of the document, judged apart.
    assert "frente al 11 % de su corrida: «no se sostiene»" in five_a
    assert "frente al 24-30 % de su tabla: «no se sostiene»" not in five_a
    assert "frente al 24-30 % de su tabla: «no se sostiene»" in five_b
    # Exercise 1: the clock readings of the run, and the CPU it was pinned to.
    assert "(CPU 0), getpid en el host: tiempo de CPU 100" in five_a

    six_a, six_b = _render(tmp_path, layered)["06_red_http"], _render(tmp_path, flat)["06_red_http"]
    # Exercise 5: «Docker applies a lot of security processing», judged by switching seccomp off.
    assert "«procesamiento de seguridad» es «se confirma»" in six_a
    assert "«procesamiento de seguridad» es «no se sostiene»" in six_b
    assert "Docker -p frente a nativo, 0.50×" in six_a
    # Exercise 4: docker-proxy's ceiling with one core (20 µs per request → 50 000 requests per second).
    assert "docker-proxy gastó 20.0 µs" in six_a and "unas 50 000 peticiones" in six_a
    guide = _render(tmp_path, layered)["guia"]
    assert (
        "Docker -p / nativo con Go net/http: 0.50×" in guide
        and "getpid en el contenedor / en el host: Docker 1.2" in guide
    )
    for text in (five_a, five_b, six_a, six_b, guide):
        assert not kit.PLACEHOLDER.search(text) and "dato desconocido" not in text


def _nested(path_grows: bool, worked: bool):
    """A run of 07 where the `exec` path grows with each level (path_grows) or the inner `run` does, and a
    ladder without --privileged that ends in a working step (worked) or not."""
    from helpers.experiments.runner import Resultado

    rows = []
    for level, variant in ((1, "nivel1"), (2, "nivel2"), (3, "nivel3")):
        inner = 200 + (10 if path_grows else 150) * (level - 1)
        path = 2 + (120 if path_grows else 5) * (level - 1)
        for metric, center in (("arranque_interior", inner), ("arranque", inner + path)):
            for r, v in enumerate(_reps(center, seed=level), 1):
                rows.append({"engine": "podman", "variant": variant, "rep": r, "metric": metric, "value": v})
    attempts = [
        {"opciones": "las opciones por defecto", "ok": False},
        {"opciones": "seccomp=unconfined + unmask=ALL", "ok": worked, "mapa_uid_interior": "0 0 1 | 1 1 9"},
    ]
    meta = {"run_id": "r7", "anidamiento": {"intentos_sin_privilegios": attempts}}
    import pandas as pd

    return Resultado("anidamiento", pd.DataFrame(rows), Path("/nonexistent"), meta)


def test_the_nesting_facts_follow_the_data_both_ways():
    from helpers.course.facts import anidamiento

    a = anidamiento.facts(_nested(path_grows=True, worked=True))
    b = anidamiento.facts(_nested(path_grows=False, worked=False))
    assert "crece más el camino de `exec`" in a["niveles"]
    assert "crece más el `run` de dentro" in b["niveles"]
    assert "Lo primero que funcionó fue soltar: seccomp=unconfined + unmask=ALL" in a["sin_privilegios"]
    assert "paso 1 (las opciones por defecto): falla" in a["sin_privilegios"]
    assert "Ningún paso funcionó" in b["sin_privilegios"]
    assert "`0 0 1 | 1 1 9`" in a["mapa_uid"] and "no midió" in b["mapa_uid"]
    assert "no midió" in a["ci"]  # no inner engine's memory in this run: no figure invented


def test_the_plan_quotes_how_long_each_run_measured(tmp_path):
    """The guide's «unos N s» per notebook is the latest complete run's own start and end, never a
    number written by hand; without a run it says so."""
    root = tmp_path / "tiempos"
    rows = [("bare", "", "proceso", 1, "arranque", 1.0, "ms")]
    times = {
        "started": "2026-01-01T10:00:00Z",
        "ended": "2026-01-01T10:00:23Z",
        "parameters": {"repeticiones": 10},
    }
    _write_run(root, "arranque", "20260101T100000Z-arra", rows, times)
    _write_run(root, "escala", "20260101T110000Z-esca", rows, {**times, "ended": "2026-01-01T10:04:30Z"})
    facts = kit.kit_facts(root)
    assert facts["tiempo.arranque"] == "unos 25 s en la última corrida con 10 repeticiones"
    assert facts["tiempo.escala"].startswith("unos 4.5 min")
    assert "no hay tiempo que dar" in facts["tiempo.sistema_vm"]
    assert "de 0.4× a 0.625×" in facts["regla.ejemplo"]
    guide = _render(tmp_path, root)["guia"]
    assert "unos 25 s en la última corrida" in guide and "unos 2 minutos" not in guide


def test_the_90_minute_plan_is_timed_against_the_quick_and_the_default_runs(tmp_path):
    """The plan's table: per notebook of the first class, the latest complete run of each profile (quick:
    the module's QUICK parameters), from meta.json; «sin corrida» where a profile never ran."""
    from helpers.experiments import escala

    root, row = tmp_path / "plan", ("bare", "", "proceso", 1, "arranque", 1.0, "ms")
    for run_id, ended, params in (
        ("20260101T100000Z-esca", "10:02:02", {"repeticiones": 6}),
        ("20260101T110000Z-rapi", "10:00:47", {k.lower(): v for k, v in escala.QUICK.items()}),
    ):
        meta = {"started": "2026-01-01T10:00:00Z", "ended": f"2026-01-01T{ended}Z", "parameters": params}
        _write_run(root, "escala", run_id, [row], meta)
    plan = kit.kit_facts(root)["tiempo.plan"]
    line = next(ln for ln in plan.splitlines() if "`02_escala`" in ln)
    assert (
        "47 s (`20260101T110000Z-rapi`" in line
        and "2 min 2 s (`20260101T100000Z-esca`, 6 repeticiones)" in line
    )
    assert line.index("47 s") < line.index("2 min 2 s")  # quick first, then the default
    assert "sin corrida | sin corrida" in next(ln for ln in plan.splitlines() if "`01_arranque`" in ln)
    assert "20260101T110000Z-rapi" in _render(tmp_path, root)["guia"]  # the table is on the guide


def test_the_kit_names_which_place_of_small_files_was_unstable(tmp_path):
    """When only the layer's small-file figure is unstable, the kit says so of the layer and still gives
    the volume's figure (the fresh render said «inestable» for the whole engine while 09's table showed
    the volume's figure)."""
    from helpers.course.facts import ejecucion as ejecucion_kit
    from helpers.experiments.ejecucion.analysis import overheads
    from tests.experiments.ejecucion.test_unit import _full_run

    res = _full_run(tmp_path)
    wild = (res.df["engine"] == "docker") & (res.df["variant"] == "archivos:capa")
    res.df.loc[wild, "value"] = np.resize([0.2, 3.0, 0.3, 2.5, 0.25, 2.8, 0.22, 3.1], int(wild.sum()))
    over = overheads(res.df)
    layer = over[(over["carga"] == "archivos") & (over["entorno"] == "docker") & (over["lugar"] == "capa")]
    volume = over[
        (over["carga"] == "archivos") & (over["entorno"] == "docker") & (over["lugar"] == "volumen")
    ]
    assert layer["inestable"].all() and not volume["inestable"].any()
    text = ejecucion_kit.facts(res)["archivos"]
    docker = text.split("en Docker, ")[1].split(";")[0]
    assert "la capa: sin cifra (medición inestable: repite)" in docker and "el volumen: " in docker
    assert "%" in docker.split("el volumen: ")[1]


@pytest.mark.parametrize(
    "none, side", [((250.0, 180.0), "arranca antes Podman"), ((200.0, 320.0), "arranca antes Docker")]
)
def test_the_kit_gives_podman_over_docker_without_network_as_09_answers_it(tmp_path, none, side):
    """The guide's «Podman/Docker al arrancar» row carries the half of 09's answer the default network
    hides: 01's `--network none` arms, Podman/Docker by round, read by the one rule both ways."""
    from helpers.course.facts import arranque as arranque_kit
    from helpers.experiments.runner import Resultado
    from tests.course.test_cierre import _launch_split, _run

    _run(tmp_path, "arranque", _launch_split(300.0, 400.0, *none))
    text = arranque_kit.facts(Resultado.latest("arranque", tmp_path))["podman_docker_sin_red"]
    assert "sin red" in text and text.count(side) == 2, text


def test_every_registered_experiment_has_its_facts_above_the_views():
    """The kit's facts of each experiment live in course/facts (they use the views' words), one module per
    experiment of the registry, each with FACTS and facts(res); no experiment package holds one."""
    assert list(kit.KITS) == experiments.REGISTRY
    assert all(m.FACTS and callable(m.facts) for m in kit.KITS.values())
    assert not list((PROJECT_ROOT / "helpers" / "experiments").glob("*/kit.py"))
