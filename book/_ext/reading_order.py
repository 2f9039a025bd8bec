"""Sphinx extension: read the Reproduction page last, and always.

Sphinx reads (and myst-nb executes) pages in alphabetical order. The Reproduction page tabulates
the values that the chapters record while they execute, so it must run after them, on every build.
"""

LAST = "book/reproduction"


def _outdated(app, env, added, changed, removed):
    return [LAST] if LAST in env.found_docs else []


def _order(app, env, docnames):
    if LAST in docnames:
        docnames.remove(LAST)
        docnames.append(LAST)


def setup(app):
    app.connect("env-get-outdated", _outdated)
    app.connect("env-before-read-docs", _order)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
