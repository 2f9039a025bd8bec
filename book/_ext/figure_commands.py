"""Sphinx extension: under each named figure of the book, the command that renders it to a file.

``interp-repro figure NAME`` (``interp_repro.figures``) draws a page's figure by the ``name:`` of its
MyST-NB figure cell; this adds that command to the figure's legend, so a reader who wants the figure
for a paper finds it where the figure is.
"""

from docutils import nodes
from sphinx.application import Sphinx


def _add_commands(app: Sphinx, doctree: nodes.document) -> None:
    if not app.env.docname.startswith("book/"):
        return
    for figure in doctree.findall(nodes.figure):
        for name in figure["names"]:
            command = nodes.literal(text=f"interp-repro figure {name} --format pdf")
            legend = nodes.legend("", nodes.paragraph("", "", nodes.Text("Reproduce this figure: "), command),
                                  classes=["figure-command"])
            figure += legend


def setup(app: Sphinx) -> dict[str, bool]:
    app.connect("doctree-read", _add_commands)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
