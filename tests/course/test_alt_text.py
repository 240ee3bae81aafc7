"""Every chart says what it shows (issue 41 item 8): `figuras.show_figure` puts an alternative text from
the figure's own words into the output's metadata, and the course's HTML writes it as the image's «alt»,
never nbconvert's «No description has been provided for this image»; and a drawn chart escapes its words."""

from __future__ import annotations

from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

from helpers import PROJECT_ROOT  # noqa: E402
from helpers.course import pages  # noqa: E402
from helpers.view import figuras  # noqa: E402

DEFAULT_ALT = "No description has been provided for this image"


def test_the_description_is_the_figure_s_own_words():
    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4], label="Docker")
    ax.plot([1, 2], [4, 5], label="Podman")
    ax.set_title("¿En qué se va el arranque?")
    ax.set_xlabel("ms")
    ax.set_ylabel("peldaño")
    ax.legend()
    text = figuras.description(fig)
    plt.close(fig)
    assert text == "Gráfico: ¿En qué se va el arranque?; eje x: ms; eje y: peldaño; leyenda: Docker, Podman"
    empty, _ = plt.subplots()
    assert figuras.description(empty) == "Gráfico del curso"
    plt.close(empty)


def test_the_course_page_writes_the_chart_s_alt_escaped(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import matplotlib.pyplot as plt\n"
            "from helpers.view.figuras import show_figure\n"
            "fig, ax = plt.subplots()\n"
            "ax.plot([1, 2], [1, 2])\n"
            "ax.set_title('Docker <b>frente</b> a \"Podman\"')\n"
            "show_figure(fig)"
        )
    ]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(PROJECT_ROOT)}}
    ).execute()
    executed = tmp_path / "grafico.ipynb"
    nbformat.write(nb, str(executed))
    (png,) = [o for o in nb.cells[0].outputs if "image/png" in o.get("data", {})]  # shown once
    target = tmp_path / "grafico.html"
    pages.render_html(executed, target)
    html = target.read_text()
    assert DEFAULT_ALT not in html and "<b>frente" not in html  # the title is text, not markup
    images = ImageAlts()
    images.feed(html)
    assert images.alts == ['Gráfico: Docker <b>frente</b> a "Podman"']


class ImageAlts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.alts = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.alts.append(dict(attrs).get("alt"))
