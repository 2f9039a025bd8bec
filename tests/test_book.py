"""Build the whole book at ``ci`` scale (warnings are errors) and check the rendered pages.

Runs after the notebook checks (see conftest.py), so every model comes from the results cache.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from chapters import ROOT, study_chapters, toc_files

from interp_repro.claims import load_claims

pytestmark = pytest.mark.book
OUT = ROOT / "_build" / "ci-scale"


@pytest.fixture(scope="module")
def html():
    env = os.environ | {"INTERP_REPRO_SCALE": "ci", "INTERP_REPRO_QUIET": "1"}
    jb = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run(
        [str(jb), "build", str(ROOT), "--path-output", str(OUT), "--all", "-W", "-n",
         "--keep-going"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, f"book build failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    return OUT / "_build" / "html"


def test_every_toc_page_is_built(html):
    for entry in toc_files():
        assert (html / f"{entry}.html").exists(), entry


@pytest.mark.parametrize("chapter", sorted(study_chapters()))
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
    assert "FAIL" not in page
    assert "not run" not in page, "a claim was not recorded by the chapters of this build"
