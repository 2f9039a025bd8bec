"""Run the fast unit tests first, then the trained checks (determinism, robustness), then the book
built at ``ci`` scale: that one build executes every chapter and exercise page once, and the chapter
checks (test_notebooks.py), the page checks (test_book.py) and the browser pass (test_browser.py)
all read it."""

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from chapters import ROOT

from interp_repro.core import resolve_env_paths

resolve_env_paths()  # a relative cache or record path means the same folder to every chapter's kernel

ORDER = {"trained": 1, "book": 2}
OUT = ROOT / "_build" / "ci-scale"
TIMINGS = OUT / "_build" / "execution-times.json"  # written by book/_ext/execution_times.py
STARTED = time.time()


def pytest_collection_modifyitems(items):
    def rank(item):
        return max((ORDER.get(m.name, 0) for m in item.iter_markers()), default=0)

    items.sort(key=rank)


@dataclass(frozen=True)
class Build:
    """The book built at ``ci`` scale: its HTML folder, executed notebooks, claim record and log."""

    html: Path
    executed: Path
    records: Path
    returncode: int
    log: str

    def notebook(self, page: str) -> dict:
        """The executed notebook of ``page`` (``book/<study>/<name>.md``)."""
        return json.loads((self.executed / page).with_suffix(".ipynb").read_text())

    def glued(self, page: str) -> set[str]:
        """The names ``page`` glued (myst-nb keeps them in ``<name>.glue.json`` beside the notebook)."""
        path = (self.executed / page).with_suffix(".glue.json")
        return set(json.loads(path.read_text())) if path.exists() else set()


@pytest.fixture(scope="session")
def book() -> Build:
    """Build the whole book at ``ci`` scale (warnings are errors, every page executed) with a claim
    record of its own; the results cache is the session's (``make test`` gives it an empty one).

    ``INTERP_REPRO_BOOK_HTML=<html folder>`` checks an existing build instead of building.
    """
    if built := os.environ.get("INTERP_REPRO_BOOK_HTML"):
        out = Path(built).resolve().parents[1]
        return Build(Path(built), out / "_build" / "jupyter_execute", out / "records.json", 0, "")
    records = OUT / "records.json"
    records.unlink(missing_ok=True)
    env = os.environ | {"INTERP_REPRO_SCALE": "ci", "INTERP_REPRO_QUIET": "1",
                        "INTERP_REPRO_RECORD": str(records)}
    jb = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run(
        [str(jb), "build", str(ROOT), "--path-output", str(OUT), "--all", "-W", "-n", "--keep-going"],
        env=env, capture_output=True, text=True)
    build = Build(OUT / "_build" / "html", OUT / "_build" / "jupyter_execute", records, proc.returncode,
                  proc.stdout[-6000:] + "\n" + proc.stderr[-3000:])
    return build


@pytest.fixture(scope="session")
def html(book: Build) -> Path:
    """The HTML folder of the ``ci`` build."""
    return book.html


def pytest_terminal_summary(terminalreporter):
    """Each page's execution time in the ci book build of this run, slowest first."""
    if not TIMINGS.exists() or TIMINGS.stat().st_mtime < STARTED:
        return
    seconds = json.loads(TIMINGS.read_text())["seconds"]
    terminalreporter.section("page execution times in the ci book build (this run)")
    for page, s in sorted(seconds.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{s:8.1f} s  {page}")
    terminalreporter.write_line(f"{sum(seconds.values()):8.1f} s  in all")
