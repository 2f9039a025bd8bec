"""Sphinx extension: offer each executed chapter as a Jupyter notebook in the download menu.

The theme's download menu lists the page's source (.md) and, when the context names one, an .ipynb.
MyST-NB writes each executed notebook to ``<build>/jupyter_execute``; this copies it next to the
page's sources and names it, so a reader can download the chapter with its outputs and run it.
"""

import shutil
from pathlib import Path


def _offer_notebook(app, pagename, templatename, context, doctree):
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if doctree is None or not executed.is_file():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app):
    # before the theme's header buttons (priority 501) read the context
    app.connect("html-page-context", _offer_notebook, priority=500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
