"""Sphinx extension: the launch menu (Colab, JupyterHub) opens a study page's launchable notebook.

The theme's launch menu points at the page's own source in the repository (``book/<study>/<page>.md``),
which Colab cannot open. The launchable notebooks live in ``notebooks/<study>/<page>.ipynb`` (``make
notebooks``, ``interp_repro/notebooks.py``; ``book/`` holds only the MyST sources): each launch link of
a study page is pointed there. The record pages (front page, Reproduction, Benchmarks) read this build's
results and are not for launching, so their menu goes.
"""

from pathlib import Path
from urllib.parse import quote_plus

NOTEBOOKS = "notebooks"  # beside _config.yml
MENU = "launch-buttons"  # the theme's label of its launch menu


def _launch_notebook(app, pagename, templatename, context, doctree):
    if doctree is None:
        return
    buttons = context.get("header_buttons", [])
    notebook = f"{NOTEBOOKS}/{pagename.removeprefix('book/')}.ipynb"
    if not pagename.startswith("book/") or not (Path(app.srcdir) / notebook).is_file():
        context["header_buttons"] = [b for b in buttons if b.get("label") != MENU]
        return
    source = f"{pagename}.md"
    for menu in (b for b in buttons if b.get("label") == MENU):
        for button in menu["buttons"]:
            button["url"] = button["url"].replace(source, notebook).replace(quote_plus(source),
                                                                            quote_plus(notebook))


def setup(app):
    # after the theme's launch menu (priority 501) is in the context
    app.connect("html-page-context", _launch_notebook, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
