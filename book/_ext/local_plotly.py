"""Sphinx extension: serve plotly.js from the book's own ``_static`` folder, on the pages that need it.

A chapter's interactive figure (``interp_repro.core.Interactive``) writes a plotly div and the script
that draws it, but not plotly.js. The build copies ``plotly.min.js`` from the installed plotly package
(the version plotly.py was made for) into ``_static/plotly/``, and each page with a plotly div loads it
in its ``<head>``, before the divs' scripts run; the other pages do not load it.
"""

import shutil
from importlib.resources import files
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

SOURCE = Path(str(files("plotly"))) / "package_data" / "plotly.min.js"
STATIC_DIR = "plotly"  # under _static/
MARKER = 'class="plotly-graph-div"'  # in the HTML of every plotly div


def _has_plotly(doctree: nodes.document) -> bool:
    return any(MARKER in node.astext() for node in doctree.findall(nodes.raw) if "html" in node["format"])


def _add_plotly(app: Sphinx, pagename: str, templatename: str, context: dict,
                doctree: nodes.document | None) -> None:
    """Load plotly.js on a page that holds a plotly div (a plain script: it must run before theirs)."""
    if doctree is not None and _has_plotly(doctree):
        app.add_js_file(f"{STATIC_DIR}/{SOURCE.name}")


def _copy_plotly(app: Sphinx, exception: Exception | None) -> None:
    """Copy plotly.js into ``_static/plotly`` of a finished HTML build."""
    if exception is not None or app.builder.format != "html":
        return
    dest = Path(app.outdir) / "_static" / STATIC_DIR
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(SOURCE, dest / SOURCE.name)


def setup(app: Sphinx) -> dict[str, bool]:
    app.connect("html-page-context", _add_plotly)
    app.connect("build-finished", _copy_plotly)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
