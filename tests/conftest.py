"""Run the fast unit tests first, then the notebook checks, then the book build (which reuses the
models the notebook checks trained, through the results cache)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from chapters import ROOT

ORDER = {"notebooks": 1, "book": 2}
OUT = ROOT / "_build" / "ci-scale"


def pytest_collection_modifyitems(items):
    def rank(item):
        return max((ORDER.get(m.name, 0) for m in item.iter_markers()), default=0)

    items.sort(key=rank)


@pytest.fixture(scope="session")
def html() -> Path:
    """The book built at ``ci`` scale (warnings are errors): its HTML folder.

    ``INTERP_REPRO_BOOK_HTML=<html folder>`` checks an existing build instead of building.
    """
    if built := os.environ.get("INTERP_REPRO_BOOK_HTML"):
        return Path(built)
    env = os.environ | {"INTERP_REPRO_SCALE": "ci", "INTERP_REPRO_QUIET": "1"}
    jb = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run(
        [str(jb), "build", str(ROOT), "--path-output", str(OUT), "--all", "-W", "-n",
         "--keep-going"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, f"book build failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    return OUT / "_build" / "html"
