"""Sphinx extension: a launch menu (Colab, JupyterHub) only on the pages that have a launchable notebook.

The theme gives every executed page a launch menu that opens ``<page>.ipynb`` from the repository when
that file lies beside the page's source, and the ``.md`` source otherwise, which Colab cannot open. The
study pages have one (``make notebooks``, ``interp_repro/notebooks.py``); the record pages (front page,
Reproduction, Benchmarks) read this build's results and are not for launching, so their menu goes.
"""

from pathlib import Path


def _drop_launch_menu(app, pagename, templatename, context, doctree):
    if doctree is None or Path(app.env.doc2path(pagename)).with_suffix(".ipynb").is_file():
        return
    buttons = context.get("header_buttons", [])
    context["header_buttons"] = [b for b in buttons if b.get("label") != "launch-buttons"]


def setup(app):
    # after the theme's launch menu (priority 501) is in the context
    app.connect("html-page-context", _drop_launch_menu, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
