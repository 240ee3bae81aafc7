"""Shared scaffolding of the experiments' tests: a real Ctrl-C to a running experiment, and the shape
of a committed notebook. Each test keeps its own assertions; this only does the common plumbing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from helpers import PROJECT_ROOT, provision, results
from helpers import engines as eng

# The headings every lesson notebook has (CONTRIBUTING, «forma del cuaderno»).
COURSE_HEADINGS = (
    "Aprenderás a:",
    "## La idea",
    "## Parámetros",
    "## Resultados",
    "## Ejercicios",
    "## En este cuaderno...",
)


def write_run(experiment: str, rows: list[dict]) -> None:
    """A run of another experiment with these rows, under the tests' results folder (conftest), for a
    claim that reads it through `experiments.read_run` (READS)."""
    with results.Run(experiment, {}) as run:
        for r in rows:
            run.append(**r)


def setup_step_missing(step: str, why: str):
    """A test needs what `make setup` prepares (`step`), and it is not here. As root with apt, where make
    setup installs and builds everything, that is a failure naming the step (never a skip); otherwise a
    skip saying why."""
    if provision.can_apt():
        pytest.fail(
            f"Falta un paso de «make setup»: {step}. {why} Como root y con apt, «make setup» lo prepara: "
            "esta prueba falla en lugar de omitirse."
        )
    print(f"\n[omitido] {why}", file=sys.stderr)
    pytest.skip(why)


def available_engines() -> list[str]:
    """The container engines present on this machine."""
    return [n for n in eng.CONTAINER_ENGINES if eng.get_engine(n).available]


def leftovers(run_id: str, engines: Iterable[str] | None = None) -> dict[str, list[str]]:
    """The labelled containers of `run_id` still present, by engine."""
    names = available_engines() if engines is None else list(engines)
    return {n: eng.get_engine(n).list_labelled(run_id) for n in names}


@dataclass
class Interrupted:
    """What is left of a run stopped by a real SIGINT."""

    run_id: str
    run_dir: Path
    meta: dict  # meta.json as the interrupted run left it
    output: str  # the process's stdout and stderr
    pid: int


def holding_run(script: str, *args: str) -> tuple[subprocess.Popen, list[str]]:
    """A run held by a child process (`script`, with `args`), as a kernel holds one: it prints «LISTO»
    and what it made once it holds it, then sleeps; the test kills it or ends it. Returns the process
    and the words after «LISTO»."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=PROJECT_ROOT,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    if not line.startswith("LISTO"):
        proc.kill()
        proc.wait()
        pytest.fail(f"el proceso no llegó a preparar su corrida: {line!r}")
    return proc, line.split()[1:]


def results_and_scratch(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """Point the run's results (CURSO_RESULTADOS) and every temporary directory (tempfile) under
    tmp_path; returns (results, scratch), so a test can check the scratch folder is left empty."""
    results = tmp_path / "resultados"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("CURSO_RESULTADOS", str(results))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return results, scratch


def _raw_rows(run_dir: Path) -> int:
    raw = run_dir / "raw.csv"
    return len(raw.read_text().splitlines()) - 1 if raw.exists() else 0


def interrupt_run(
    experiment: str,
    config_kwargs: dict,
    results: Path,
    *,
    ready: Callable[[dict, int], bool],
    before_signal: Callable[[str], None] | None = None,
    scratch: Path | None = None,
    timeout: float = 120,
    poll: float = 0.3,
) -> Interrupted:
    """Run `helpers.experiments.<experiment>.run(config(**config_kwargs))` in a separate Python process
    (its own session, SIGINT restored as a terminal has it), poll its run folder under `results` until
    `ready(meta, raw_rows)` is true, call `before_signal(run_id)` (the test's checks of a run in
    progress), send SIGINT to the process group as a terminal's Ctrl-C does, and wait for it to end.
    Asserts it ended by the interruption and that meta.json says «interrupted»; returns what is left
    for the test's own assertions. With `scratch`, the run's temporary files go there.
    If anything fails before the signal, the run is still interrupted (so it cleans up), then killed."""
    script = (
        # A background job may inherit SIGINT ignored; a terminal's Ctrl-C is not.
        "import signal, sys, tempfile\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "if len(sys.argv) > 1: tempfile.tempdir = sys.argv[1]\n"
        f"from helpers.experiments import {experiment} as exp\n"
        f"exp.run(exp.config(**{config_kwargs!r}))\n"
    )
    argv = [sys.executable, "-c", script] + ([str(scratch)] if scratch is not None else [])
    env = dict(os.environ, CURSO_RESULTADOS=str(results), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        argv,
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    interrupted = False
    try:
        run_dir, run_id, deadline = None, None, time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            metas = list(results.glob("*/*/meta.json"))
            if metas:
                run_dir = metas[0].parent
                try:
                    meta = json.loads(metas[0].read_text())
                except ValueError:  # being written
                    time.sleep(0.1)
                    continue
                run_id = meta["run_id"]
                if ready(meta, _raw_rows(run_dir)):
                    break
            time.sleep(poll)
        else:
            raise AssertionError(
                proc.stdout.read()
                if proc.poll() is not None
                else "la corrida no llegó al punto de interrumpirla"
            )
        if before_signal is not None:
            before_signal(run_id)
        os.killpg(proc.pid, signal.SIGINT)
        interrupted = True
        output, _ = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            if not interrupted:  # the test failed first: interrupt, so the run cleans up
                os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert proc.returncode != 0, output
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["status"] == "interrupted", meta
    return Interrupted(run_id=run_id, run_dir=run_dir, meta=meta, output=output, pid=proc.pid)


@dataclass
class Notebook:
    """A committed lesson notebook, read and checked for the course's shape."""

    nb: nbformat.NotebookNode
    code: list  # its code cells
    parameters: str  # the source of its one «parameters» cell
    scope: dict  # what that cell defines (plain literals only)
    text: str  # all its markdown


def committed_notebook(path: Path, parameters: Iterable[str] = (), headings: Iterable[str] = ()) -> Notebook:
    """Read `path` and assert it is committed without outputs, has exactly one «parameters» cell that
    assigns each of `parameters`, and that its markdown has each of `headings`."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    for name in parameters:
        assert f"{name} =" in params[0].source, name
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for heading in headings:
        assert heading in text, heading
    scope: dict = {}
    exec(params[0].source, scope)  # plain literals only
    return Notebook(nb=nb, code=code, parameters=params[0].source, scope=scope, text=text)


@dataclass
class Executed:
    """A lesson notebook as the shared quick course executed it (tests/curso_rapido.py)."""

    run: object  # the quick course's run: .build, .results, .output
    nb: nbformat.NotebookNode
    outputs: list  # the outputs of its code cells
    text: str  # those outputs as JSON, to look for sentences in


def executed_in_quick_course(notebook: Path) -> Executed:
    """Run (once per session) the quick course and return `notebook` as it executed; asserts it was
    executed and no cell raised."""
    from tests.curso_rapido import quick_course

    run = quick_course()
    executed = run.build / "notebooks" / notebook.name
    assert executed.is_file(), run.output[-2000:]
    nb = nbformat.read(executed, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    errors = [o for o in outputs if o.get("output_type") == "error"]
    assert not errors, f"{errors[0].get('ename')}: {errors[0].get('evalue')}" if errors else ""
    return Executed(run=run, nb=nb, outputs=outputs, text=json.dumps(outputs, ensure_ascii=False))


def with_round_rows(df, loop: str = "", seed: int = 0):
    """`df` (an experiment's tidy rows) plus the rows its rounds would leave (runner.measure_rounds): the
    machine's load per round and each arm's position in it, with made-up values of a quiet machine (the
    pressure within a few points from round to round, as on the stored runs: a load that varies more
    changes the verdicts, by design; tests/core/test_load.py)."""
    import numpy as np
    import pandas as pd

    from helpers import results

    rng = np.random.default_rng(seed)
    extra = []
    base = {"experiment": df["experiment"].iloc[0] if len(df) and "experiment" in df else "x"}
    for rep, group in df.groupby("rep", sort=True):
        arms = group[["engine", "image", "variant"]].drop_duplicates().to_dict("records")
        for place, i in enumerate(rng.permutation(len(arms)), 1):
            extra.append(
                {
                    **base,
                    **arms[i],
                    "rep": rep,
                    "metric": results.round_metric(results.POSITION, loop),
                    "value": place,
                    "unit": results.ROUND_UNITS[results.POSITION],
                }
            )
        for metric, value in (
            (results.LOAD_PRESSURE, rng.uniform(15, 19)),
            (results.STEAL, rng.uniform(0, 0.5)),
        ):
            extra.append(
                {
                    **base,
                    "engine": results.MACHINE,
                    "image": "",
                    "variant": "",
                    "rep": rep,
                    "metric": results.round_metric(metric, loop),
                    "value": value,
                    "unit": results.ROUND_UNITS[metric],
                }
            )
    return pd.concat([df, pd.DataFrame(extra)], ignore_index=True)


def judged(module, df, meta) -> tuple[list[str], str]:
    """An experiment's claims and closing rows on `df`, as text that compares NaN with NaN."""
    claims = [repr(c) for c in module.claims(df, meta)]
    closing = getattr(module, "closing_rows", None)
    rows = closing(df, meta).to_csv() if closing is not None else ""
    return claims, rows


def assert_round_rows_change_nothing(module, df, meta: dict, tmp_path: Path, *, raw_too: bool = True) -> None:
    """The rows of the rounds (load, positions) change no claim and no closing row of `module` through
    the run's loader, which sets them apart (Resultado.load); with `raw_too`, not even when a df still
    carries them (claims(df, meta) on raw rows)."""
    from helpers.experiments.runner import Resultado

    if raw_too:
        assert judged(module, df, meta) == judged(module, with_round_rows(df), meta)
    runs = {}
    for name, rows in (("sin", df), ("con", with_round_rows(df, seed=1))):
        folder = tmp_path / module.EXPERIMENT / f"20260101T00000{len(runs)}Z-{name}"
        folder.mkdir(parents=True)
        rows.to_csv(folder / "raw.csv", index=False)
        (folder / "meta.json").write_text(json.dumps({**meta, "experiment": module.EXPERIMENT}))
        runs[name] = Resultado.load(folder)
    assert judged(module, runs["sin"].df, runs["sin"].meta) == judged(
        module, runs["con"].df, runs["con"].meta
    )
    assert len(runs["con"].rondas) == len(with_round_rows(df)) - len(df)


def layout_problems(fig) -> list[str]:
    """What a reader would see wrong in a drawn matplotlib figure: two texts over each other (tick labels,
    titles, names, legend entries), a legend over a data point or bar, or over another panel, and a
    text past its figure or a name past its panel. [] when it reads cleanly."""
    from matplotlib.collections import Collection
    from matplotlib.legend import Legend
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle
    from matplotlib.text import Annotation, Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    whole = fig.bbox
    problems = []

    def overlap(a, b, slack: float = 1.0) -> bool:
        return min(a.x1, b.x1) - max(a.x0, b.x0) > slack and min(a.y1, b.y1) - max(a.y0, b.y0) > slack

    axes = [ax for ax in fig.axes if ax.get_visible()]
    undrawn = set()  # tick labels outside their axis's limits: matplotlib keeps them, but never draws them
    for ax in fig.axes:
        if not ax.get_visible():  # a hidden panel draws none of its texts
            undrawn.update(id(t) for t in ax.findobj(Text))
        frame = ax.get_window_extent(renderer)
        for axis, low, high, at in ((ax.xaxis, frame.x0, frame.x1, 0), (ax.yaxis, frame.y0, frame.y1, 1)):
            for label in axis.get_ticklabels(minor=False) + axis.get_ticklabels(minor=True):
                centre = label.get_window_extent(renderer).get_points().mean(axis=0)[at]
                if not ax.get_visible() or not low - 1 <= centre <= high + 1:
                    undrawn.add(id(label))
    texts = []
    for t in fig.findobj(Text):
        if not t.get_text().strip() or not t.get_visible() or id(t) in undrawn:
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        legend = next((lg for lg in fig.findobj(Legend) if t in lg.get_texts() or t is lg.get_title()), None)
        if legend is not None and not legend.get_visible():
            continue
        box = t.get_window_extent(renderer)
        if box.width <= 0 or box.height <= 0:
            continue
        texts.append((t, box))
        if box.x0 < whole.x0 - 1 or box.x1 > whole.x1 + 1 or box.y0 < whole.y0 - 1 or box.y1 > whole.y1 + 1:
            problems.append(f"«{t.get_text()}» se sale de la figura")
        if isinstance(t, Annotation) and t.axes is not None:
            frame = t.axes.get_window_extent(renderer)
            if box.x1 > frame.x1 + 1 or box.x0 < frame.x0 - 1:
                problems.append(f"el nombre «{t.get_text()}» se sale de su panel")
    for i, (t, a) in enumerate(texts):
        for u, b in texts[i + 1 :]:
            if overlap(a, b):
                problems.append(f"«{t.get_text()}» y «{u.get_text()}» se pisan")
    for legend in fig.findobj(Legend):
        if not legend.get_visible() or not legend.get_texts():
            continue
        box = legend.get_window_extent(renderer)
        owner = legend.axes
        for ax in axes:
            if ax is not owner and overlap(box, ax.get_window_extent(renderer)):
                problems.append(f"la leyenda «{legend.get_texts()[0].get_text()}» tapa otro panel")
        if owner is None:
            continue
        for artist in owner.get_children():
            if isinstance(artist, Rectangle) and artist is not owner.patch and artist.get_visible():
                if overlap(box, artist.get_window_extent(renderer)):
                    problems.append(f"la leyenda «{legend.get_texts()[0].get_text()}» tapa una barra")
                    break
            points = []
            if isinstance(artist, Line2D) and artist.get_marker() not in (None, "None", "", " "):
                points = artist.get_transform().transform(artist.get_xydata())
            elif isinstance(artist, Collection) and len(artist.get_offsets()):
                points = artist.get_offset_transform().transform(artist.get_offsets())
            if any(box.x0 < x < box.x1 and box.y0 < y < box.y1 for x, y in points):
                problems.append(f"la leyenda «{legend.get_texts()[0].get_text()}» tapa un punto")
                break
    return list(dict.fromkeys(problems))


def capture_figures(monkeypatch) -> list:
    """The figures the views show (helpers.view.figuras.show_figure), in order, left open and drawn so
    that the test can read them; the caller closes them (plt.close("all"))."""
    from helpers.view import figuras

    figures: list = []
    monkeypatch.setattr(figuras, "display", lambda fig, **k: figures.append(fig))
    monkeypatch.setattr(figuras, "close_figure", lambda fig: None)
    return figures
