"""A figure drawn twice: an interactive plotly view for the HTML book, a static matplotlib one for the rest.

A chapter's figure cell ends with an :class:`Interactive`, so that it is the cell's value. Jupyter shows
it through :meth:`Interactive._repr_mimebundle_`: the HTML book takes the ``text/html`` (a plotly div
drawn by the plotly.js the book ships, ``book/_ext/local_plotly.py``; where no plotly.js is loaded,
the static image shows instead), the PDF takes the ``image/png``, and a downloaded notebook keeps
both. ``interp-repro figure`` saves ``.figure``.
"""

import base64
import io
import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from plotly.graph_objects import Figure as PlotlyFigure

DIV_PREFIX = "plotly-"  # the div's id is this and the figure's name (which names the figure element)
PLOTLY_CONFIG = {"responsive": True, "displaylogo": False}
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


class Interactive:
    """The static matplotlib ``figure`` and its interactive plotly view ``plotly``, named ``name``."""

    def __init__(self, name: str, figure: "Figure", plotly: "PlotlyFigure") -> None:
        """Hold both views; ``figure`` leaves pyplot (so the notebook does not show it a second time) but
        can still be saved."""
        import matplotlib.pyplot as plt

        if not _NAME.fullmatch(name):
            raise ValueError(f"name must be a letter then letters, digits, - or _, got {name!r}")
        self.name = name
        self.figure = figure
        self.plotly = plotly
        plt.close(figure)

    @property
    def div_id(self) -> str:
        """The plotly div's id: fixed by the name, so a rebuilt page is byte for byte the same."""
        return DIV_PREFIX + self.name

    def html(self) -> str:
        """The static PNG, then the plotly div and a script that draws it and hides the PNG when
        plotly.js is on the page (the book's pages load it). Where it is not (Colab, a notebook
        opened untrusted, scripts off), the reader sees the static figure instead of a blank div."""
        import plotly.io as pio

        data = base64.b64encode(self.png()).decode("ascii")
        spec = pio.to_json(self.plotly).replace("</", "<\\/")  # no "</script>" inside the script
        draw = (f"if (window.Plotly) {{var fig = {spec}; "
                f"document.getElementById('{self.div_id}-static').style.display = 'none'; "
                f"Plotly.newPlot('{self.div_id}', fig.data, fig.layout, {json.dumps(PLOTLY_CONFIG)});}}")
        return (f'<img id="{self.div_id}-static" alt="{self.name}" style="max-width: 100%" '
                f'src="data:image/png;base64,{data}">\n'
                f'<div id="{self.div_id}" class="plotly-graph-div"></div>\n'
                f"<script>{draw}</script>")

    def png(self) -> bytes:
        """The static figure as PNG bytes, cropped as the notebook's inline backend crops it."""
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        """The HTML view, the PNG (base64, as a notebook stores it) and a line of text."""
        return {"text/html": self.html(), "image/png": base64.b64encode(self.png()).decode("ascii"),
                "text/plain": repr(self)}

    def __repr__(self) -> str:
        return f"Interactive({self.name!r})"
