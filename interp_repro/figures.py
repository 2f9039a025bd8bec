"""The book's figures by name: list them from the pages' sources, and render any of them to a file.

A figure's name is the ``name:`` of its MyST-NB figure cell (e.g. ``fig-dstar``). Rendering runs the
figure's page in this process, up to the figure's cell, at the scale asked for: the chapter's own
code draws it, so a rendered figure never drifts from the book's. Results come from the cache, and
whatever is missing is trained, as when the page runs. Every named figure of the book is listed: the
study pages' (chapters and exercise pages) and the Benchmarks page's, which is drawn only from the
results of ``make bench``.
"""

import contextlib
import difflib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from interp_repro import STUDIES
from interp_repro.core import ConfigError, check_scale

FORMATS = ("pdf", "svg", "png")
DPI = 300  # print quality for the PNG (PDF and SVG are vector)
NO_DATES = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": {}}  # byte-stable files


@dataclass(frozen=True)
class BookFigure:
    """A named figure of a page: the code cell (its index among the page's cells) that draws it."""

    name: str
    chapter: str  # the page under book/, without .md: study/page, or benchmarks
    cell: int
    caption: str


def book_figures(book: Path) -> dict[str, BookFigure]:
    """Every named figure of the book's pages under ``book``: the study pages' in book-folder order,
    then the record pages' (the Benchmarks page's)."""
    import jupytext

    studies = [p for study in STUDIES for p in sorted((book / study).glob("*.md"))]
    sources = studies + sorted(book.glob("*.md"))
    figures: dict[str, BookFigure] = {}
    for source in sources:
        page = source.relative_to(book).with_suffix("").as_posix()
        for i, cell in enumerate(jupytext.read(source).cells):
            meta = cell.metadata.get("mystnb", {}).get("figure", {})
            if name := meta.get("name"):
                if name in figures:
                    raise ConfigError(f"figure name {name!r} is used twice: in {figures[name].chapter} "
                                      f"and {page}")
                caption = " ".join(str(meta.get("caption", "")).split())
                figures[name] = BookFigure(name, page, i, caption)
    return figures


def check_names(names: Iterable[str], figures: dict[str, BookFigure]) -> list[str]:
    """``names`` as given, or a :class:`ConfigError` naming the unknown ones and the closest known."""
    names = list(names)
    for name in names:
        if name not in figures:
            close = difflib.get_close_matches(name, figures, n=3, cutoff=0.5)
            hint = f"did you mean {', '.join(close)}?" if close else "`interp-repro figure --list` lists them"
            raise ConfigError(f"unknown figure {name!r}: {hint}")
    return names


def _drawn(result: object, opened: list) -> object:
    """The matplotlib figure a cell drew: its value when that is a figure (or has one as ``.figure``,
    as an interactive figure does), else the one figure the cell left open."""
    from matplotlib.figure import Figure

    for candidate in (result, getattr(result, "figure", None)):
        if isinstance(candidate, Figure):
            return candidate
    if not opened:
        raise ConfigError("its cell drew no figure here: a page draws some figures only from results it "
                          "finds (the Benchmarks page's, from `make bench`)")
    if len(opened) > 1:
        raise RuntimeError(f"the figure cell left {len(opened)} figures open, not one")
    return opened[0]


def render(names: Iterable[str], book: Path, scale: str, formats: Iterable[str], out: Path) -> list[Path]:
    """Render the named figures at ``scale`` into ``out`` as ``NAME.FORMAT``: each chapter runs once, in
    a fresh namespace, from its folder, up to the last figure asked of it. The files written."""
    import matplotlib

    matplotlib.use("agg")  # before pyplot: figures stay open until saved, and no window opens
    import jupytext
    import matplotlib.pyplot as plt
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    scale = check_scale(scale)
    figures = book_figures(book)
    wanted = [figures[n] for n in check_names(names, figures)]
    formats = list(formats)
    if bad := sorted(set(formats) - set(FORMATS)):
        raise ConfigError(f"unknown figure format {', '.join(bad)}: choose from {', '.join(FORMATS)}")
    if InteractiveShell.initialized():
        raise ConfigError("figures render in an IPython shell of their own: run `interp-repro figure` from "
                          "a terminal, not from a notebook or IPython")
    out.mkdir(parents=True, exist_ok=True)
    main = sys.modules["__main__"]  # the shell puts a module of its own there
    shell = InteractiveShell.instance()
    written = []
    try:
        for chapter in dict.fromkeys(f.chapter for f in wanted):
            here = {f.cell: f for f in wanted if f.chapter == chapter}
            source = book / f"{chapter}.md"
            cells = jupytext.read(source).cells
            shell.reset(new_session=False)
            with contextlib.chdir(source.parent):
                for i, cell in enumerate(cells[: max(here) + 1]):
                    if cell.cell_type != "code":
                        continue
                    plt.close("all")
                    with capture_output(stdout=True, stderr=False, display=True):  # progress bars show
                        run = shell.run_cell(cell.source, store_history=False)
                        if "parameters" in cell.metadata.get("tags", []):
                            shell.user_ns["SCALE"] = scale
                    if not run.success:
                        raise RuntimeError(f"{chapter}, code cell {i}, failed: {run.error_in_exec!r}")
                    if figure := here.get(i):
                        try:
                            drawn = _drawn(run.result, [plt.figure(n) for n in plt.get_fignums()])
                        except ConfigError as err:
                            raise ConfigError(f"{figure.name}: {err}") from None
                        for fmt in formats:
                            path = out / f"{figure.name}.{fmt}"
                            drawn.savefig(path, format=fmt, dpi=DPI, bbox_inches="tight",
                                          metadata=NO_DATES[fmt])
                            written.append(path)
            plt.close("all")
    finally:
        InteractiveShell.clear_instance()
        sys.modules["__main__"] = main
    return written
