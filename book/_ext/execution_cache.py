"""Sphinx extension: a study page re-executes only when what it shows can have changed.

MyST-NB's ``cache`` mode (jupyter-cache) keys a page on the source of its code cells. A page's
output also depends on the library code it calls and on the scale it runs at
(``$INTERP_REPRO_SCALE``), neither of which is in its cells. Before a study page is parsed, this
appends one hidden code cell that names both: the scale and :func:`page_fingerprint`, a hash of the
library code the study's pages run (core, the study's modules with its figures, its exercises and
the reproduction layer). An edit to one page's text re-executes that page; an edit to one
study's library code re-executes that study's pages; every other page is read from the cache.

Pages outside the studies (the front page, the Reproduction and Benchmarks pages) read the claim
records and benchmark results that the build writes, so they set ``mystnb: execution_mode: force``
in their own front matter and always execute. ``benchmarks/book_build.py`` drops a study's pages
from the cache when its claims are not recorded for the current code at the scale, so they record
them again.
"""

from functools import cache
from pathlib import Path

MARK = "# executed against interp_repro"


def page_sources(study: str, root: Path | None = None) -> list[Path]:
    """The library files a page of ``study`` runs, under the package folder ``root``: the study's
    modules with its figures (``core.cache.study_sources``), its exercises, the reproduction layer
    and the package's ``__init__``."""
    from interp_repro.core.cache import PACKAGE, study_sources

    root = root or PACKAGE
    extra = [root / "__init__.py", root / "exercises" / f"{study}.py",
             *sorted((root / "reproduction").glob("*.*"))]
    return study_sources(study, root) + [path for path in extra if path.is_file()]


@cache
def page_fingerprint(study: str, root: Path | None = None) -> str:
    """A hash of :func:`page_sources` and of the dependency versions."""
    from interp_repro.core.cache import PACKAGE, source_digest

    return source_digest(page_sources(study, root), root or PACKAGE)


def study_of(docname: str) -> str | None:
    """The study a page belongs to (``book/<study>/<page>``), else None."""
    from interp_repro import STUDIES

    parts = docname.split("/")
    return parts[1] if len(parts) == 3 and parts[0] == "book" and parts[1] in STUDIES else None


def key_cell(study: str) -> str:
    """The hidden cell appended to each page of ``study``: what the page's outputs depend on beyond
    its own cells."""
    from interp_repro.core import default_scale

    scale = default_scale()
    return (f"\n\n```{{code-cell}} ipython3\n:tags: [remove-cell]\n\n"
            f"{MARK} {page_fingerprint(study)} at scale {scale}\n```\n")


def _append_key(app, docname: str, source: list[str]) -> None:
    if (study := study_of(docname)) is not None:
        source[0] += key_cell(study)


def setup(app):
    app.connect("source-read", _append_key)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
