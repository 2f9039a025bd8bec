"""Sphinx extension: serve MathJax 3 from the book's own ``_static`` folder instead of a CDN.

The files come from the ``django-static-mathjax`` package (MathJax 3.2.2's ``es5`` build, the same
files the CDN serves; the package depends on nothing, Django included). The build copies the one
combined component the pages load, ``tex-mml-chtml.js``, and the folders MathJax loads from beside it
on demand (CHTML fonts, TeX extensions, menu, accessibility), but not the other combined builds.
"""

import shutil
from importlib.resources import files
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

ES5 = Path(str(files("mathjax"))) / "static" / "mathjax" / "es5"
ENTRY = "tex-mml-chtml.js"
ON_DEMAND = ("a11y", "input", "output/chtml", "sre", "ui")
STATIC_DIR = "mathjax"  # under _static/


def _use_local_mathjax(app: Sphinx, config: Config) -> None:
    """Point the pages at the local copy (a path relative to ``_static``)."""
    config.mathjax_path = f"{STATIC_DIR}/{ENTRY}"


def _copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    """Copy MathJax into ``_static/mathjax`` of a finished HTML build."""
    if exception is not None or app.builder.format != "html":
        return
    dest = Path(app.outdir) / "_static" / STATIC_DIR
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ES5 / ENTRY, dest / ENTRY)
    for folder in ON_DEMAND:
        shutil.copytree(ES5 / folder, dest / folder, dirs_exist_ok=True)


def setup(app: Sphinx) -> dict[str, bool]:
    app.connect("config-inited", _use_local_mathjax)
    app.connect("build-finished", _copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
