"""Warm rebuilds: a page executes again only when its code cells, the library code it runs or the
scale changed (book/_ext/execution_cache.py with MyST-NB's cache mode, keyed by jupyter-cache)."""

import shutil
import sys
from pathlib import Path

import jupytext
import pytest
from chapters import ROOT
from jupyter_cache.cache.main import JupyterCacheBase

from interp_repro import STUDIES
from interp_repro.core.cache import PACKAGE, study_sources

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import execution_cache  # noqa: E402

PAGE = ROOT / "book" / "abstraction" / "nonlinear.md"


def cache_hash(text: str) -> str:
    """The key jupyter-cache files a page's executed notebook under, as MyST-NB hands it the page."""
    return JupyterCacheBase.create_hashed_notebook(None, jupytext.reads(text, fmt="md:myst"))[1]


def page_key(text: str, study: str, monkeypatch, scale: str = "book") -> str:
    monkeypatch.setenv("INTERP_REPRO_SCALE", scale)
    return cache_hash(text + execution_cache.key_cell(study))


def test_study_pages_get_the_key_cell_and_the_other_pages_do_not():
    assert execution_cache.study_of("book/schur_rnn/copy_task") == "schur_rnn"
    assert execution_cache.study_of("book/reproduction") is None
    assert execution_cache.study_of("book/intro") is None
    for page in ("intro", "reproduction", "benchmarks"):  # they read what this build writes
        assert "execution_mode: force" in (ROOT / "book" / f"{page}.md").read_text()


def test_prose_edits_keep_the_key_code_edits_scale_and_library_change_it(monkeypatch):
    text = PAGE.read_text()
    key = page_key(text, "abstraction", monkeypatch)
    assert page_key(text.replace("## ", "## Edited: ", 1), "abstraction", monkeypatch) == key
    assert page_key(text.replace("SCALE = default_scale()", "SCALE = default_scale()  # edited"),
                    "abstraction", monkeypatch) != key
    assert page_key(text, "abstraction", monkeypatch, scale="ci") != key
    monkeypatch.setattr(execution_cache, "page_fingerprint", lambda study: "another library")
    assert page_key(text, "abstraction", monkeypatch) != key


@pytest.fixture
def package(tmp_path) -> Path:
    copy = tmp_path / "interp_repro"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def fingerprints(root: Path) -> dict[str, str]:
    return {study: execution_cache.page_fingerprint(study, root) for study in STUDIES}


@pytest.mark.parametrize(("edited", "changed"), [
    ("abstraction/plots.py", {"abstraction"}),              # a figure: its study's pages only
    ("schur_rnn/experiments.py", {"schur_rnn"}),             # results code: its study's pages only
    ("exercises/superposition.py", {"superposition"}),       # exercises: their study's pages
    ("modular_addition/topology.py", {"modular_addition"}),  # a study's own module: its pages only
    ("abstraction/experiments/linear.py", {"abstraction"}),  # a module of a study's subpackage too
    ("core/table.py", set(STUDIES)),                         # every study's table of experiments
    ("studies.py", set()),                                   # the registry: no study's code imports it
    ("core/scales.py", set(STUDIES)),                        # core: every study
    ("reproduction/claims.toml", set(STUDIES)),              # the claims every chapter records
])
def test_a_library_edit_re_executes_exactly_the_studies_that_run_it(package, edited, changed):
    before = fingerprints(package)
    with (package / edited).open("a") as f:
        f.write("\n# edited\n")
    execution_cache.page_fingerprint.cache_clear()
    after = fingerprints(package)
    assert {study for study in STUDIES if after[study] != before[study]} == changed


@pytest.mark.parametrize(("statement", "reached"), [
    ("from interp_repro import figures", "figures.py"),  # the form a regex over "interp_repro.x" missed
    ("import interp_repro.figures", "figures.py"),
    ("from interp_repro.reproduction import report", "reproduction/report.py"),
    ("from interp_repro.reproduction.report import provenance", "reproduction/report.py"),
    ("from ..reproduction import report", "reproduction/report.py"),  # relative, in a function
])
def test_the_fingerprint_follows_every_import_statement(package, statement, reached):
    assert package / reached not in study_sources("superposition", package)
    with (package / "superposition" / "model.py").open("a") as f:
        f.write(f"\n\ndef _uses():\n    {statement}\n")
    sources = study_sources("superposition", package)
    assert package / reached in sources
    if reached == "reproduction/report.py":  # and what that module imports in turn
        assert package / "reproduction" / "claims.py" in sources
    assert package / "modular_addition" / "topology.py" not in sources


@pytest.mark.parametrize("statement", ["import importlib", "from importlib import import_module",
                                       "__import__('interp_repro.figures')"])
def test_an_import_by_name_at_run_time_is_refused(package, statement):
    with (package / "abstraction" / "plots.py").open("a") as f:
        f.write(f"\n\ndef _loads():\n    {statement}\n")
    with pytest.raises(ValueError, match=r"plots\.py:\d+ may load a module by a name computed at run time"):
        study_sources("abstraction", package)
