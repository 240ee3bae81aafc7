"""The experiment panel: widgets whose defaults come from the notebook's parameters cell.

    panel = Panel(arranque, tabla=vista.tabla, repeticiones=REPETICIONES, ...)
    panel.mostrar(interactivo=INTERACTIVO)

Interactive (JupyterLab): controls, a «Ejecutar» button, a progress bar and an output area; the results
table appears in that area when the run ends. `presets=[Preset(...)]` adds one button per ready-made
configuration (a source's own settings, say): a click fills the controls with its values and says, before
anything runs, how long that run would take (the experiment's `estimated_seconds`, when it has one). Headless (INTERACTIVO=False, papermill, nbconvert, or
no front end): the experiment runs at once with the parameters, printing its progress, and never
waits for a widget. Parameters are validated before anything is launched, in both modes.
"""

from __future__ import annotations

import html
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType

import psutil

from .. import experiments, results, stats
from ..errors import ErrorDelCurso
from ..experiments import verdict as vd
from ..experiments.runner import Resultado
from .common import ENGINE_LABEL, fmt_duration, run_caption
from .numbers import approx

HEADLESS_MARKERS = ("papermill", "nbconvert", "nbclient")
FRONTEND_MARKERS = (
    "jupyter-lab",
    "jupyterlab",
    "jupyter-notebook",
    "jupyter-server",
    "jupyter_server",
    "notebook.app",
    "nbclassic",
    "voila",
    "jupyterhub",
    "vscode",
    "code-server",
)


def frontend_attached() -> bool:
    """True only when a person can click: an IPython kernel whose ancestors include a Jupyter server
    or an editor front end. False with CURSO_SIN_INTERFAZ set, outside a kernel, or when the kernel was
    started by papermill / nbconvert / nbclient (or anything else unknown): then the panel runs directly
    instead of waiting for a click that will never come."""
    if os.environ.get("CURSO_SIN_INTERFAZ"):
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return False
    try:
        for parent in psutil.Process().parents():
            cmdline = " ".join(parent.cmdline())
            if any(marker in cmdline for marker in HEADLESS_MARKERS):
                return False
            if any(marker in cmdline for marker in FRONTEND_MARKERS):
                return True
    except psutil.Error:
        pass
    return False


@dataclass(frozen=True)
class Preset:
    """A ready-made configuration the panel offers as one button: `label` (Spanish, the button's
    text), `values` (config field names -> values; the controls not named keep theirs) and `warning`
    (Spanish, shown when it is chosen, before anything runs)."""

    label: str
    values: dict = field(default_factory=dict)
    warning: str = ""


def preset_message(module: ModuleType, values: dict, preset: Preset) -> str:
    """What the panel says when a preset is chosen: its warning and, when the experiment can estimate
    it, how long the run would take; or the Spanish reason the values are refused."""
    try:
        cfg = module.config(**values)
    except ErrorDelCurso as exc:
        return f"«{preset.label}» no es válida aquí: {exc}"
    parts = [f"Elegiste «{preset.label}».", preset.warning]
    estimate = getattr(module, "estimated_seconds", None)
    if estimate is not None:
        minutes = estimate(cfg) / 60
        parts.append(
            f"Esta corrida tardaría unos {minutes:.0f} minutos."
            if minutes >= 1.5
            else "Tardaría menos de 2 minutos."
        )
    parts.append("Revisa los controles y pulsa «Ejecutar» para lanzarla.")
    return " ".join(p for p in parts if p)


def last_run_words(module: ModuleType, root=None) -> str:
    """How long this experiment's latest complete run took on this machine, read from its meta.json:
    what a student can expect, measured here rather than written by hand in the notebook."""
    run_dir = results.latest(module.EXPERIMENT, root)
    meta = results.read_meta(run_dir) if run_dir else {}
    took = results.run_seconds(meta) if meta.get("status") == results.STATUS_COMPLETE else None
    if took is None:
        return "Aún no hay ninguna corrida completa de este cuaderno en esta máquina: la primera dirá cuánto tarda."
    reps = (meta.get("parameters") or {}).get("repeticiones")
    with_reps = f" (con {reps} repeticiones)" if reps else ""
    return (
        f"La última corrida completa de este cuaderno en esta máquina tardó {fmt_duration(took)}{with_reps}."
    )


def repetitions_words(values: dict, defaults: dict) -> str:
    """A warning before a run whose repetitions (`repeticiones`), changed from the notebook's default (a
    choice the page explains, such as the chapter's own 10), sit past the first of their step of the
    order-statistic interval (stats.order_step): with 7 or 8 the interval is wider than with 6, and the
    next narrower one needs 9. Empty otherwise (or below MIN_N, which the verdicts already say)."""
    n = values.get("repeticiones")
    if not isinstance(n, int) or n < stats.MIN_N or n == defaults.get("repeticiones"):
        return ""
    first, following = stats.order_step(n)
    if first == n:
        return ""
    k = stats.order_k(n)
    return (
        f"Con {n} repeticiones el IC 95 % de cada mediana va del valor {k}.º al {n - k + 1}.º una vez ordenados, "
        f"como con {first} pero sobre más valores: sale, en promedio, más ancho que con {first}, no más estrecho. El siguiente "
        f"que lo estrecha es {following}."
    )


POWER_SHOWN = 3  # the inconclusive claims the panel names before a run, the nearest to a verdict first


def power_words(module: ModuleType, root=None) -> str:
    """Before a run, what this machine's latest complete run could not decide and how many repetitions
    would (the power calculation each claim carries, `stats.rounds_to_decide`): «no concluyente» claims,
    those that fewest repetitions would decide first; and the claims declared beforehand as having no
    possible verdict (`Said.undecidable`), which no number of repetitions changes. Empty when neither."""
    parts = []
    declared = {s.key: s for s in getattr(module, "SAID", ()) if s.undecidable}  # per-image copies: once
    if declared:
        names = "; ".join(f"«{s.statement}»" for s in declared.values())
        parts.append(
            f"Sin veredicto posible con ningún número de repeticiones, declarado de antemano: {names}."
        )
    res = Resultado.load(path) if (path := results.latest(module.EXPERIMENT, root)) else None
    if res is None or res.status != results.STATUS_COMPLETE or res.df.empty:
        return " ".join(parts)
    open_ = [c for c in experiments.judged(res) if c.status == vd.NO_CONCLUYENTE and c.more_reps]
    if open_:
        open_.sort(key=lambda c: c.more_reps)
        shown = "; ".join(f"{_claim_name(c)}: {_how_many(c.more_reps)}" for c in open_[:POWER_SHOWN])
        more = len(open_) - POWER_SHOWN
        rest = f"; y {more} más" if more > 0 else ""
        parts.append(
            f"En la última corrida completa, {len(open_)} "
            f"{'afirmación quedó' if len(open_) == 1 else 'afirmaciones quedaron'} «no concluyente». Con su "
            f"ruido, para {'decidirla' if len(open_) == 1 else 'decidirlas'} {round(stats.POWER * 10)} de cada "
            f"10 veces harían falta estas repeticiones: {shown}{rest}."
        )
    return " ".join(parts)


def _claim_name(claim) -> str:
    """«statement» (Engine), the engine named once: many statements already name theirs."""
    engine = ENGINE_LABEL.get(e, e) if (e := (claim.detail or {}).get("engine", "")) else ""
    return f"«{claim.statement}»" + (f" ({engine})" if engine and engine not in claim.statement else "")


def _how_many(more: float) -> str:
    return f"más de {vd.PRACTICAL_REPS} repeticiones" if more == math.inf else f"unas {approx(more)}"


class TextProgress:
    """Progress for logs: one line each 10 %, no escape codes."""

    def __init__(
        self,
        prefix: str = "",
        echo: Callable[[str], None] = print,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.prefix = prefix
        self.echo = echo
        self.clock = clock
        self._last = -1
        self._start = clock()

    def __call__(self, done: int, total: int, label: str) -> None:
        decile = (10 * done) // max(total, 1)
        if decile != self._last:
            self._last = decile
            elapsed = fmt_duration(self.clock() - self._start)  # as the run's own length is written
            self.echo(f"{self.prefix}{done}/{total} ({100 * done // max(total, 1)} %) — {label} — {elapsed}")


IGNORED_CLICK = (
    "Ya había una medición en curso: ignoré el clic que llegó mientras medía (una corrida por clic; "
    "pulsa «Ejecutar» de nuevo si quieres otra)."
)


class RunGuard:
    """One run per click. A double click reaches the kernel as two clicks. Usually the second one is
    queued behind the first run and handled a few milliseconds after it ends, before the front end has
    even shown the button enabled again; but ipykernel 7 may hand a widget's message to another thread
    (a subshell) while the main one is busy, so the two clicks can also arrive at the same time. A click
    is accepted only if it takes the guard's lock without waiting (no run is on, in any thread) and at
    least `settle` seconds have passed since the last run ended: no person can see the button come back
    and press it that fast, while a queued click always arrives within that time."""

    def __init__(self, settle: float = 0.5, clock: Callable[[], float] = time.monotonic):
        self.settle = settle
        self.clock = clock
        self.ended_at = float("-inf")
        self._lock = threading.Lock()

    def begin(self) -> bool:
        """Take the guard for one run, atomically; False if a run is on or has just ended."""
        if not self._lock.acquire(blocking=False):
            return False
        if self.clock() - self.ended_at < self.settle:
            self._lock.release()
            return False
        return True

    def end(self) -> None:
        self.ended_at = self.clock()
        self._lock.release()


class Panel:
    def __init__(
        self,
        module: ModuleType,
        *,
        tabla: Callable[[Resultado], object] | None = None,
        root=None,
        presets: Sequence[Preset] = (),
        **defaults,
    ):
        self.module = module
        self.titulo = module.TITLE  # the experiment's title, the notebook's H1 (never a second wording)
        self.tabla = tabla
        self.root = root
        self.presets = tuple(presets)
        self.defaults = defaults
        self._resultado: Resultado | None = None
        self._widgets: dict = {}
        self._hidden: dict = {}  # values a preset set for parameters that have no control
        self._guard = RunGuard()

    # -- results
    def resultado(self) -> Resultado | None:
        """The run made by this panel, or else this machine's latest run of the experiment."""
        return self._resultado or Resultado.latest(self.module.EXPERIMENT, self.root)

    def midio(self) -> bool:
        """True once this panel has measured (and shown its table) in this session."""
        return self._resultado is not None

    # -- modes
    def mostrar(self, interactivo: bool = True) -> None:
        """Show the panel (JupyterLab) or run at once (headless). Returns None, so the notebook cell ends
        with the panel's own summary and table, not with a repr of the whole Resultado; the run is at
        `panel.resultado()`."""
        # Validate first: a clear Spanish error before anything is launched, in both modes.
        self.module.config(**self.defaults)
        if interactivo and frontend_attached():
            self._interactive()
        else:
            self.ejecutar(self.defaults)

    def ejecutar(self, values: dict, progress=None, log=print) -> Resultado:
        cfg = self.module.config(**values)
        said = (
            last_run_words(self.module, self.root),
            power_words(self.module, self.root),
            repetitions_words(values, self.defaults),
        )
        before = " ".join(w for w in said if w)
        print(f"{self.titulo}: empieza la medición. {before}", flush=True)
        resultado = self.module.run(cfg, progress=progress or TextProgress("  "), log=log, root=self.root)
        self._resultado = resultado
        print(run_caption(resultado), flush=True)
        print(f"Datos guardados en {resultado.run_dir}", flush=True)
        if self.tabla is not None:
            self.tabla(resultado)  # views display themselves (tests/course/test_view_convention.py)
        return resultado

    # -- widgets
    def _control(self, spec: dict):
        import ipywidgets as w

        value = self.defaults.get(spec["name"])
        layout = w.Layout(width="auto")
        style = {"description_width": "initial"}
        if spec["kind"] == "int":
            return w.BoundedIntText(
                value=value,
                min=spec.get("min", 1),
                max=spec.get("max", 1000),
                description=spec["label"],
                style=style,
                layout=layout,
            )
        if spec["kind"] == "multi":
            options = list(spec["options"])
            return w.SelectMultiple(
                options=options,
                value=tuple(v for v in (value or []) if v in options),
                rows=min(len(options), 4),
                description=spec["label"],
                style=style,
                layout=layout,
            )
        if spec["kind"] == "choice":
            return w.Dropdown(
                options=list(spec["options"]),
                value=value,
                description=spec["label"],
                style=style,
                layout=layout,
            )
        if spec["kind"] == "ints":
            return w.Text(
                value=", ".join(str(v) for v in value or []),
                description=spec["label"],
                style=style,
                layout=layout,
            )
        if spec["kind"] == "bool":
            return w.Checkbox(value=bool(value), description=spec["label"], style=style, layout=layout)
        raise ValueError(spec["kind"])

    def apply_preset(self, preset: Preset) -> str:
        """Fill the controls with a preset's values (nothing runs) and return what to tell the reader.
        A value with no control (a parameter without a label) holds for the next runs."""
        for name, value in preset.values.items():
            widget = self._widgets.get(name)
            if widget is None:
                self._hidden[name] = value
                continue
            spec = next(s for s in self.module.CONTROLS if s["name"] == name)
            if spec["kind"] == "multi":
                widget.value = tuple(v for v in value if v in widget.options)
            elif spec["kind"] == "ints":
                widget.value = ", ".join(str(v) for v in value)
            else:
                widget.value = value
        return preset_message(self.module, self._values(), preset)

    def _values(self) -> dict:
        values = dict(self.defaults) | self._hidden
        for spec in self.module.CONTROLS:
            widget = self._widgets[spec["name"]]
            value = widget.value
            if spec["kind"] == "multi":
                value = list(value)
            elif spec["kind"] == "ints":
                parts = [p.strip() for p in value.split(",") if p.strip()]
                value = [int(p) if p.lstrip("-").isdigit() else p for p in parts]
            values[spec["name"]] = value
        return values

    def _interactive(self):
        import ipywidgets as w
        from IPython.display import display

        self._widgets = {spec["name"]: self._control(spec) for spec in self.module.CONTROLS}
        button = w.Button(
            description="Ejecutar",
            button_style="primary",
            icon="play",
            tooltip="Lanza la medición con estos valores",
        )
        bar = w.IntProgress(
            value=0,
            min=0,
            max=1,
            description="Progreso:",
            bar_style="info",
            style={"description_width": "initial"},
        )
        status = w.Label(value="Elige los valores y pulsa «Ejecutar».")
        out = w.Output()

        def progress(done: int, total: int, label: str) -> None:
            bar.max = max(total, 1)
            bar.value = done
            status.value = f"{done}/{total} — {label}"

        def on_click(_):
            if not self._guard.begin():
                status.value = IGNORED_CLICK
                return
            button.disabled = True
            bar.bar_style = "info"
            out.clear_output()
            with out:
                try:
                    self.ejecutar(self._values(), progress=progress)
                    bar.bar_style = "success"
                    status.value = "Listo. Ejecuta las celdas siguientes para ver el gráfico y el veredicto."
                except ErrorDelCurso as exc:
                    bar.bar_style = "danger"
                    status.value = "Error."
                    print(f"Error: {exc}")
                except KeyboardInterrupt:
                    bar.bar_style = "warning"
                    status.value = "Interrumpido: las filas medidas quedaron guardadas."
                    print("Medición interrumpida; las filas medidas quedaron guardadas.")
                finally:
                    button.disabled = False
                    self._guard.end()

        button.on_click(on_click)
        notice = w.HTML()  # what a preset's button says (long text: a Label would cut it)
        preset_buttons = []
        for preset in self.presets:
            chooser = w.Button(
                description=preset.label, tooltip=preset.warning, layout=w.Layout(width="auto")
            )
            chooser.on_click(
                lambda _b, preset=preset: setattr(
                    notice, "value", f"<p>{html.escape(self.apply_preset(preset))}</p>"
                )
            )
            preset_buttons.append(chooser)
        before = [last_run_words(self.module, self.root), power_words(self.module, self.root)]
        title = w.HTML(
            f"<b>{self.titulo}</b>"
            + "".join(f"<br><small>{html.escape(words)}</small>" for words in before if words)
        )
        rows = [title, *self._widgets.values()]
        if preset_buttons:
            rows += [w.HBox([w.Label("Configuraciones listas:"), *preset_buttons]), notice]
        controls = w.VBox([*rows, w.HBox([button, bar]), status])
        box = w.VBox([controls, out])
        display(box)
        self._box = box
        self._button = button
        return None
