"""The whole book built at ``ci`` scale (warnings are errors): the build succeeds and every page is
rendered with its figures, downloads and claims. The build is conftest.py's session fixture ``book``,
which test_notebooks.py and test_browser.py share.
"""

import hashlib
import json
import re

import pytest
import yaml
from chapters import OWN_NETWORKS, ROOT, exercise_pages, study_chapters, toc_files

from interp_repro import STUDIES, __version__
from interp_repro.core.cache import dependency_versions, library_fingerprint
from interp_repro.core.machine import cpu_model
from interp_repro.reproduction.claims import load_claims

pytestmark = pytest.mark.book


def test_the_book_builds_without_warnings(book):
    assert book.returncode == 0, f"book build failed:\n{book.log}"


def test_every_toc_page_is_built(html):
    for entry in toc_files():
        assert (html / f"{entry}.html").exists(), entry


@pytest.mark.parametrize("chapter", [*sorted(study_chapters()), OWN_NETWORKS])
def test_chapter_page_has_figures_and_no_errors(html, chapter):
    page = (html / chapter.replace(".md", ".html")).read_text()
    assert "Traceback (most recent call last)" not in page
    assert not re.search(r'class="[^"]*output[^"]*(error|traceback)', page)
    images = re.findall(r'<img[^>]+src="([^"]+)"', page)
    assert images, f"{chapter} shows no figure"
    page_dir = (html / chapter).parent
    for src in images:
        if not src.startswith(("http", "data:")):
            assert (page_dir / src).resolve().exists(), f"{chapter}: missing image {src}"


def test_reproduction_page_lists_every_claim_and_no_failure(html):
    page = (html / "book" / "reproduction.html").read_text()
    for claim_id in load_claims():
        assert claim_id in page, claim_id
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", page)
    assert cells and not [c for c in cells if c.startswith("FAIL")], "a claim failed in this build"
    assert "not run" not in cells, "a claim was not recorded by the chapters of this build"


def test_reproduction_page_names_the_version_fingerprints_lock_and_machine(html):
    page = (html / "book" / "reproduction.html").read_text()
    assert f"interp-repro <strong>{__version__}</strong>" in page
    for study in STUDIES:
        assert library_fingerprint(study) in page, study
    assert cpu_model() in page and dependency_versions() in page
    lock = hashlib.sha256((ROOT / "requirements.lock").read_bytes()).hexdigest()[:16]
    assert "SHA-256 <code" in page and lock in page


@pytest.mark.parametrize("chapter", sorted(study_chapters()))
def test_chapter_page_offers_its_executed_notebook_and_its_source(html, chapter):
    page = (html / chapter.replace(".md", ".html")).read_text()
    for suffix in (".ipynb", ".md"):
        source = f"_sources/{chapter.removesuffix('.md')}{suffix}"
        assert source in page, f"{chapter}: the download menu has no {suffix}"
        assert (html / source).is_file(), f"{chapter}: {source} is linked but missing"
    notebook = json.loads((html / "_sources" / chapter.replace(".md", ".ipynb")).read_text())
    assert any(cell.get("outputs") for cell in notebook["cells"] if cell["cell_type"] == "code"), (
        f"{chapter}: the downloadable notebook carries no outputs")


@pytest.mark.parametrize("page", sorted(study_chapters() | exercise_pages()))
def test_study_page_launches_its_notebook_on_colab(html, page):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repository = config["repository"]
    notebook = "notebooks/" + page.removeprefix("book/").replace(".md", ".ipynb")
    repo = repository["url"].removeprefix("https://github.com/")
    colab = f"{config['launch_buttons']['colab_url']}/github/{repo}/blob/{repository['branch']}/{notebook}"
    assert f'href="{colab}"' in (html / page.replace(".md", ".html")).read_text(), f"{page}: no Colab link"
    assert (ROOT / notebook).is_file(), f"{notebook} is missing: run make notebooks"


@pytest.mark.parametrize("page", ["book/intro.md", "book/reproduction.md", "book/benchmarks.md"])
def test_record_page_has_no_launch_menu(html, page):
    assert "colab.research.google.com" not in (html / page.replace(".md", ".html")).read_text(), page


@pytest.mark.parametrize("page", [*sorted(study_chapters() | exercise_pages()), OWN_NETWORKS])
def test_each_figure_cell_shows_one_output_under_its_caption(book, page):
    """MyST-NB wraps every output of a figure cell in the caption: a cell whose last line returns a
    value (a legend, a list of lines) shows a second, bogus figure of text."""
    for i, cell in enumerate(book.notebook(page)["cells"]):
        if cell["cell_type"] == "code" and "figure" in cell["metadata"].get("mystnb", {}):
            shown = [o for o in cell["outputs"] if o["output_type"] in ("display_data", "execute_result")]
            assert len(shown) == 1, (f"{page}, cell {i}: {len(shown)} outputs under one caption; end the "
                                     "cell with the figure, or with a ;")


def test_the_own_networks_page_names_each_studys_format(book):
    """The page a reader opens to analyse a network of their own prints the file format of every study,
    as ``interp-repro analyse --help`` gives them."""
    from interp_repro import abstraction, modular_addition, schur_rnn, superposition

    cells = book.notebook(OWN_NETWORKS)["cells"]
    texts = [out.get("text", "") for cell in cells if cell["cell_type"] == "code" for out in cell["outputs"]]
    printed = "".join(t if isinstance(t, str) else "".join(t) for t in texts)  # a stream's text may be lines
    for study in (superposition, modular_addition, abstraction, schur_rnn):
        assert study.FORMAT in printed, study.__name__
