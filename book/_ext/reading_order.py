"""Sphinx extension: read the pages that summarise the claims last, and always.

Sphinx reads (and myst-nb executes) pages in alphabetical order. The front page counts, and the
Reproduction page tabulates, the values that the chapters record while they execute, so both must
run after them, on every build.
"""

LAST = ("book/intro", "book/reproduction")


def _outdated(app, env, added, changed, removed):
    return [doc for doc in LAST if doc in env.found_docs]


def _order(app, env, docnames):
    for doc in LAST:
        if doc in docnames:
            docnames.remove(doc)
            docnames.append(doc)


def setup(app):
    app.connect("env-get-outdated", _outdated)
    app.connect("env-before-read-docs", _order)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
