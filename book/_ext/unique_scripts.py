"""Sphinx extension: each script once per page.

In this Jupyter Book 1 stack, sphinx-thebe's inline configuration (``const THEBE_JS_URL = ...``)
reaches every page twice, and the browser logged "Identifier 'THEBE_JS_URL' has already been
declared" on every page. A page keeps the first copy of each script with the same source and
attributes.
"""

from sphinx.application import Sphinx


def _unique_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    seen: set[tuple] = set()
    unique = []
    for script in context.get("script_files", []):
        key = (script.filename or "", tuple(sorted((k, str(v)) for k, v in script.attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app: Sphinx) -> dict[str, bool]:
    # last, once every other handler has added its scripts
    app.connect("html-page-context", _unique_scripts, priority=1000)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
