"""Execute every chapter at ``ci`` scale with papermill and check the claims it records.

Each chapter writes its record to a file of its own (``$INTERP_REPRO_RECORD``). A chapter must record
at least one claim, every claim it records must pass its ``ci`` check, and every claim of a study
must be recorded by one of the study's chapters.
"""

import os

import jupytext
import papermill
import pytest
from chapters import ROOT, study_chapters

from interp_repro import STUDIES
from interp_repro.claims import check_records, study_claims
from interp_repro.core import load_records

pytestmark = pytest.mark.notebooks
CHAPTERS = study_chapters()


@pytest.fixture(scope="session")
def run_chapter(tmp_path_factory):
    """Execute a chapter once per session and return its ci-scale outcomes."""
    done: dict[str, list] = {}
    out_dir = tmp_path_factory.mktemp("executed")

    def run(chapter: str):
        if chapter not in done:
            record = out_dir / (chapter.replace("/", "_") + ".json")
            env = {"INTERP_REPRO_RECORD": str(record), "INTERP_REPRO_QUIET": "1"}
            saved = {k: os.environ.get(k) for k in env}
            os.environ.update(env)
            try:
                papermill.execute_notebook(
                    jupytext.read(ROOT / chapter),
                    str(out_dir / (chapter.replace("/", "_") + ".ipynb")),
                    parameters={"SCALE": "ci"}, kernel_name="python3",
                    cwd=str((ROOT / chapter).parent), progress_bar=False,
                )
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
            recorded = load_records(record).get("ci", {})
            done[chapter] = [o for o in check_records("ci", {"ci": recorded})
                             if o.claim.id in recorded]
        return done[chapter]

    return run


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_chapter_reproduces_its_claims(chapter, run_chapter):
    outcomes = run_chapter(chapter)
    assert outcomes, f"{chapter} recorded no claim"
    failed = [o.message() for o in outcomes if o.result != "pass"]
    assert not failed, "claims not reproduced at ci scale:\n" + "\n".join(failed)


@pytest.mark.parametrize("study", [s for s in STUDIES if s in CHAPTERS.values()])
def test_every_claim_of_the_study_is_recorded(study, run_chapter):
    recorded = {o.claim.id for ch, s in CHAPTERS.items() if s == study for o in run_chapter(ch)}
    missing = [c.id for c in study_claims(study) if c.id not in recorded]
    assert not missing, f"claims of {study} that no chapter records: {missing}"
