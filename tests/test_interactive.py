"""The interactive figure: an HTML view that needs no network, a PNG for print, a figure that can be saved."""

import base64
import re

import matplotlib.pyplot as plt
import plotly.graph_objects as go
import pytest

from interp_repro.core import Interactive

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _interactive(name: str = "fig-test") -> Interactive:
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    return Interactive(name, fig, go.Figure(go.Scatter(x=[0, 1], y=[1, 0])))


def test_bundle_has_html_png_and_text():
    bundle = _interactive()._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    assert 'class="plotly-graph-div"' in bundle["text/html"]
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_SIGNATURE)


def test_html_needs_no_network():
    html = _interactive().html()
    assert not re.search(r"<script[^>]*\bsrc=", html), "the page loads plotly.js, not the figure"
    assert "cdn" not in html.lower()
    assert not re.search(r"https?://", html)


def test_div_id_is_fixed_by_the_name():
    first, again = _interactive("fig-a"), _interactive("fig-a")
    assert first.div_id == "plotly-fig-a"
    assert first.html() == again.html()
    assert 'id="plotly-fig-b"' in _interactive("fig-b").html()


@pytest.mark.parametrize("name", ["", "1fig", "fig a", 'fig"a'])
def test_bad_name_refused(name):
    with pytest.raises(ValueError, match="name"):
        _interactive(name)


def test_figure_leaves_pyplot_but_can_be_saved(tmp_path):
    plt.close("all")
    interactive = _interactive()
    assert plt.get_fignums() == []  # the inline backend will not show it a second time
    interactive.figure.savefig(tmp_path / "fig.pdf")
    interactive.figure.savefig(tmp_path / "fig.png")
    assert (tmp_path / "fig.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "fig.png").read_bytes().startswith(PNG_SIGNATURE)


def test_html_shows_the_static_figure_until_plotly_draws():
    """Without plotly.js (Colab, an untrusted notebook) the reader sees the PNG, not a blank div."""
    interactive = _interactive()
    html = interactive.html()
    img = re.search(r'<img id="plotly-fig-test-static"[^>]*>', html)
    assert img and "display" not in img.group(0) and "data:image/png;base64," in img.group(0)
    assert html.index(img.group(0)) < html.index('<div id="plotly-fig-test"')
    assert "if (window.Plotly)" in html and "Plotly.newPlot('plotly-fig-test'" in html
