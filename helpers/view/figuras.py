"""How every chart of the course is laid out once drawn (views call `fit(fig)` instead of
`fig.tight_layout()`, and `legend_outside(ax)` for a legend that would cover the data), and shown:
`show_figure(fig)` instead of `plt.show()`, with an alternative text from the figure's own words (`description`).

`fit` leaves nothing over anything else: tick labels that would overlap are wrapped at their spaces,
else written upright as they were (a log axis's minor labels are dropped first); a name written beside a
point that would cross its panel's edge is written on the point's other side; a legend that reaches past
its figure has its entries wrapped, a title wider than it is wrapped; a legend under its panel
sits under that panel's axis label; then `tight_layout` keeps every label inside the figure.
"""

from __future__ import annotations

import textwrap

import numpy as np
from IPython.display import display
from matplotlib.pyplot import close as close_figure
from matplotlib.ticker import NullFormatter

ROTATION = 90  # degrees, for tick labels that do not fit even wrapped
GAP_PX = 2.0  # the least room between two tick labels
SCREEN_HEIGHT_IN = 10.0  # a figure grows up to a projector's screen, never past it


def _renderer(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _drawn(ax, axis, renderer, minor: bool = False) -> list:
    """The tick labels of an axis that are drawn (inside its limits, with text), in axis order."""
    frame = ax.get_window_extent(renderer)
    along = 0 if axis is ax.xaxis else 1
    low, high = (frame.x0, frame.x1) if along == 0 else (frame.y0, frame.y1)
    out = []
    for label in axis.get_ticklabels(minor=minor):
        if not label.get_visible() or not label.get_text().strip():
            continue
        box = label.get_window_extent(renderer)
        centre = (box.x0 + box.x1) / 2 if along == 0 else (box.y0 + box.y1) / 2
        if low - 1 <= centre <= high + 1:
            out.append((centre, label, box))
    return [(label, box) for _c, label, box in sorted(out, key=lambda t: t[0])]


def _crowded(ax, axis, renderer, minor: bool = False) -> bool:
    """Whether two neighbouring drawn tick labels of an axis touch."""
    boxes = [box for _label, box in _drawn(ax, axis, renderer, minor)]
    if minor:
        boxes = sorted(boxes + [b for _l, b in _drawn(ax, axis, renderer)], key=lambda b: b.x0 + b.y0)
    if axis is ax.xaxis:
        return any(b.x0 < a.x1 + GAP_PX for a, b in zip(boxes, boxes[1:]))
    return any(b.y0 < a.y1 + GAP_PX for a, b in zip(boxes, boxes[1:]))


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.fill(line, max(width, 6), break_long_words=False) for line in text.split("\n"))


def _ticklabels_apart(ax, renderer) -> bool:
    """Tick labels of the x axis that overlap: minor ones dropped, long ones wrapped, else turned
    upright (True)."""
    axis = ax.xaxis
    if _crowded(ax, axis, renderer, minor=True) and not _crowded(ax, axis, renderer):
        axis.set_minor_formatter(NullFormatter())
        return False
    if not _crowded(ax, axis, renderer):
        return False
    ticks, original = axis.get_ticklocs(), [t.get_text() for t in axis.get_ticklabels()]
    drawn = _drawn(ax, axis, renderer)
    if len(drawn) > 1:
        centres = [(box.x0 + box.x1) / 2 for _l, box in drawn]
        room = float(np.min(np.diff(centres))) - GAP_PX
        widest = max(drawn, key=lambda lb: lb[1].width)
        longest = max(len(line) for line in widest[0].get_text().split("\n")) or 1
        per_char = widest[1].width / longest
        axis.set_ticks(ticks, [_wrap(t, int(room / per_char) if per_char > 0 else 0) for t in original])
        renderer = _renderer(ax.figure)
    if _crowded(ax, axis, renderer):  # wrapped, they still touch: as written, turned upright
        axis.set_ticks(ticks, original)
        for label in axis.get_ticklabels():
            label.set_rotation(ROTATION)
        return True
    return False


def _taller(fig, turned: list) -> None:
    """The figure grows by the height its upright tick labels take, once per row of panels, so that
    turning them does not squeeze the panels (up to a screen's height)."""
    renderer = _renderer(fig)
    rows: dict[float, float] = {}
    for ax in turned:
        high = max((t.get_window_extent(renderer).height for t in ax.xaxis.get_ticklabels()), default=0.0)
        row = round(ax.get_position().y0, 2)
        rows[row] = max(rows.get(row, 0.0), high)
    if rows:
        height = fig.get_figheight()
        fig.set_figheight(max(height, min(height + sum(rows.values()) / fig.dpi, SCREEN_HEIGHT_IN)))


def _names_inside(ax, renderer) -> None:
    """A name written beside a point (an annotation) that crosses its panel's right edge is written on
    the point's left instead."""
    frame = ax.get_window_extent(renderer)
    for text in ax.texts:
        box = text.get_window_extent(renderer)
        if box.x1 > frame.x1 and hasattr(text, "xyann"):
            dx, dy = text.xyann
            text.xyann = (-abs(dx), dy)
            text.set_horizontalalignment("right")


def _legends_fit(fig, renderer) -> None:
    """A legend that reaches past its figure's sides has its entries wrapped at their spaces, so that
    its columns fit the figure."""
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_texts():
            continue
        box = legend.get_window_extent(renderer)
        if box.x0 >= fig.bbox.x0 and box.x1 <= fig.bbox.x1:
            continue
        boxes = {id(t): t.get_window_extent(renderer) for t in legend.get_texts()}
        columns = len({round(b.x0) for b in boxes.values()})
        widest = max(legend.get_texts(), key=lambda t: boxes[id(t)].width)
        per_char = boxes[id(widest)].width / max(len(widest.get_text()), 1)
        chars = int(fig.bbox.width * 0.8 / columns / per_char) - 4 if per_char > 0 else 0
        for text in legend.get_texts():
            text.set_text(_wrap(text.get_text(), chars))


def _legends_below(fig, renderer) -> None:
    """A legend placed under its panel sits under that panel's axis and its label, never over them."""
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not ax.get_visible():
            continue
        frame, box = ax.get_window_extent(renderer), legend.get_window_extent(renderer)
        if box.y1 > frame.y0:
            continue  # not under the panel
        floor = ax.xaxis.get_tightbbox(renderer)
        if floor is None or box.y1 < floor.y0 - GAP_PX:
            continue
        x = ((box.x0 + box.x1) / 2 - frame.x0) / frame.width
        y = (floor.y0 - 2 * GAP_PX - frame.y0) / frame.height
        legend.set_loc("upper center")
        legend.set_bbox_to_anchor((x, y), transform=ax.transAxes)


def _titles_fit(fig, renderer) -> None:
    """A title wider than its figure (the figure's, or a panel's) is wrapped at its spaces."""
    width = fig.bbox.width
    titles = list(fig.texts)  # the suptitle among them
    titles += [ax.title for ax in fig.axes if ax.get_visible()]
    for title in titles:
        box = title.get_window_extent(renderer)
        text = title.get_text()
        if text and box.width > width * 0.95:
            per_char = box.width / max(len(line) for line in text.split("\n"))
            title.set_text(_wrap(text, int(width * 0.9 / per_char)))


def fit(fig) -> None:
    """Lay out a drawn figure so that nothing covers anything and nothing leaves it (see the module)."""
    renderer = _renderer(fig)
    turned = [ax for ax in fig.axes if ax.get_visible() and _ticklabels_apart(ax, renderer)]
    _taller(fig, turned)
    renderer = _renderer(fig)
    for ax in fig.axes:
        if ax.get_visible():
            _names_inside(ax, renderer)
    _legends_fit(fig, _renderer(fig))
    _titles_fit(fig, _renderer(fig))
    for _ in range(2):  # the layout moves the panels, and a legend under one with them
        fig.tight_layout()
        _legends_below(fig, _renderer(fig))
    fig.tight_layout()
    renderer = _renderer(fig)
    for ax in fig.axes:  # the layout moved the panels: a name may cross an edge only now
        if ax.get_visible():
            _names_inside(ax, renderer)


def legend_outside(ax, *args, **kwargs):
    """The axes' legend to its right, outside the data (never over a point or a bar)."""
    kwargs.setdefault("loc", "upper left")
    kwargs.setdefault("bbox_to_anchor", (1.01, 1.0))
    kwargs.setdefault("borderaxespad", 0.0)
    return ax.legend(*args, **kwargs)


# ---------------------------------------------------------------- showing it, with a description
ALT_LENGTH = 300  # characters of alternative text: its title, its axes, what its legend names


def description(fig) -> str:
    """The figure's alternative text in Spanish, from its own words: its title(s), each panel's axes
    and the names in its legends («Gráfico: ¿En qué se va el arranque? Eje x: …; eje y: …; leyenda:
    Docker, Podman»). Never empty: «Gráfico del curso» when it has no words."""
    parts = []
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    if title:
        parts.append(title)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        words = [ax.get_title()]
        if ax.get_xlabel():
            words.append(f"eje x: {ax.get_xlabel()}")
        if ax.get_ylabel():
            words.append(f"eje y: {ax.get_ylabel()}")
        legend = ax.get_legend()
        if legend is not None:
            names = [t.get_text() for t in legend.get_texts() if t.get_text()]
            if names:
                words.append("leyenda: " + ", ".join(names))
        parts.append("; ".join(w for w in words if w))
    for legend in getattr(fig, "legends", []):
        names = [t.get_text() for t in legend.get_texts() if t.get_text()]
        if names:
            parts.append("leyenda: " + ", ".join(names))
    text = " ".join(" ".join(p for p in parts if p).split())
    if not text:
        return "Gráfico del curso"
    text = "Gráfico: " + text
    return text if len(text) <= ALT_LENGTH else text[: ALT_LENGTH - 1].rsplit(" ", 1)[0] + "…"


def show_figure(fig) -> None:
    """Show a drawn figure once, with its alternative text (`description`) in the output's metadata,
    which the course's HTML writes as the image's «alt» (helpers/templates/curso); then close it."""
    display(fig, metadata={"image/png": {"alt": description(fig)}})
    close_figure(fig)
