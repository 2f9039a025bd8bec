"""``interp-repro figure``: every figure of the book is named and listed, renders to PDF, SVG and PNG
files from the cache, and the built book shows the command under each figure."""

import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from chapters import ROOT, toc_files
from IPython.core.interactiveshell import InteractiveShell

from interp_repro.cli import main
from interp_repro.figures import DPI, FORMATS, book_figures
from interp_repro.reproduction.speed import load_results

BOOK = ROOT / "book"
FIGURES = book_figures(BOOK)
STUDY_FIGURES = [name for name, figure in FIGURES.items() if "/" in figure.chapter]
BENCHMARKS_FIGURE = "fig-benchmark-speedups"  # drawn only from the results of `make bench`
BENCHMARK_RESULTS = ROOT / "benchmarks" / "results"


def test_every_figure_of_the_book_is_named_and_listed(capsys):
    named = {}
    for chapter in (f"{entry}.md" for entry in toc_files()):
        lines = [line.strip().lstrip(":").strip() for line in (ROOT / chapter).read_text().splitlines()]
        named[chapter] = {line.split("name:")[1].strip() for line in lines if line.startswith("name: fig-")}
        figures = lines.count("figure:")  # a cell's figure metadata, in either MyST form
        assert figures == len(named[chapter]), f"{chapter}: a figure without a name"
    assert {f.name for f in FIGURES.values()} == set().union(*named.values())
    assert all(f"book/{f.chapter}.md" in named and f.name in named[f"book/{f.chapter}.md"]
               for f in FIGURES.values())
    assert main(["figure", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in FIGURES)


def test_an_unknown_figure_names_the_closest(capsys):
    assert main(["figure", "fig-dstr", "--scale", "ci"]) == 2
    err = capsys.readouterr().err
    assert "unknown figure 'fig-dstr'" in err and "fig-dstar" in err
    assert main(["figure", "--scale", "ci"]) == 2
    assert "--all or --list" in capsys.readouterr().err


def _png_dpi(path: Path) -> float:
    """The resolution a PNG declares in its pHYs chunk, in dots per inch."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    at = data.index(b"pHYs")
    per_metre, _, unit = struct.unpack(">IIB", data[at + 4: at + 13])
    assert unit == 1, "pHYs gives no unit"
    return per_metre * 0.0254


@pytest.mark.book
def test_every_figure_renders_at_ci_scale_in_every_format(filled, tmp_path):
    out = tmp_path / "figures"
    env = os.environ | {"INTERP_REPRO_RECORD": str(tmp_path / "records.json"), "INTERP_REPRO_QUIET": "1"}
    formats = [a for fmt in FORMATS for a in ("--format", fmt)]
    proc = subprocess.run([sys.executable, "-m", "interp_repro.cli", "figure", *STUDY_FIGURES,
                           "--scale", "ci", *formats, "--out", str(out)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in STUDY_FIGURES:
        pdf, svg, png = (out / f"{name}.{fmt}" for fmt in FORMATS)
        assert pdf.read_bytes()[:5] == b"%PDF-", f"{pdf.name} is not a PDF"
        assert ET.parse(svg).getroot().tag.endswith("svg"), f"{svg.name} is not an SVG"
        assert _png_dpi(png) == pytest.approx(DPI, abs=1)
        assert min(p.stat().st_size for p in (pdf, svg, png)) > 2_000, f"{name}: a file is nearly empty"


def test_the_benchmarks_figure_needs_benchmark_results(tmp_path, capsys):
    """Drawn from `make bench`'s results where they exist; else a one-line error that says so. The
    page runs in this process, which gets its ``__main__`` back (a pool started later needs it)."""
    main_module = sys.modules["__main__"]
    code = main(["figure", BENCHMARKS_FIGURE, "--scale", "ci", "--format", "png", "--out", str(tmp_path)])
    if load_results(BENCHMARK_RESULTS):
        assert code == 0 and (tmp_path / f"{BENCHMARKS_FIGURE}.png").is_file()
    else:
        assert code == 2 and "make bench" in capsys.readouterr().err
    assert sys.modules["__main__"] is main_module and not InteractiveShell.initialized()


def test_figures_refuse_to_render_inside_an_ipython_session(tmp_path, capsys):
    main_module = sys.modules["__main__"]
    InteractiveShell.instance()
    try:
        assert main(["figure", "fig-dstar", "--scale", "ci", "--out", str(tmp_path)]) == 2
    finally:
        InteractiveShell.clear_instance()
        sys.modules["__main__"] = main_module
    assert "from a terminal" in capsys.readouterr().err


@pytest.mark.book
def test_each_figure_shows_its_command(html):
    for figure in FIGURES.values():
        if figure.name == BENCHMARKS_FIGURE and not load_results(BENCHMARK_RESULTS):
            continue  # the page has no figure to put the command under
        page = (html / "book" / f"{figure.chapter}.html").read_text()
        text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
        assert f"interp-repro figure {figure.name} --format pdf" in text, (
            f"{figure.chapter}: no command for {figure.name}")
