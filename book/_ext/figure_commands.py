"""Sphinx extension: under each named figure of a study page, the command that renders it to a file.

``interp-repro figure NAME`` (``interp_repro.figures``) draws a chapter's figure by the ``name:`` of its
MyST-NB figure cell; this adds that command to the figure's legend, so a reader who wants the figure
for a paper finds it where the figure is. The record pages are left alone: the command lists the
figures of the study pages (chapters and exercise pages).
"""

from docutils import nodes
from sphinx.application import Sphinx

STUDY_PAGE_DEPTH = 3  # book/<study>/<page>


def _add_commands(app: Sphinx, doctree: nodes.document) -> None:
    parts = app.env.docname.split("/")
    if len(parts) != STUDY_PAGE_DEPTH or parts[0] != "book":
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
