"""Every chapter at ``ci`` scale records its claims, and each has the status the registry expects.

The chapters run once, in the ``ci`` book build (conftest.py's ``book``), which writes every
recorded value to a claim record of its own. A chapter's claims are the values it glued (myst-nb
keeps each glued name beside the executed notebook). A chapter must run without an error, record at
least one claim, and every claim it records must pass (its measured status is the expected one, its
guard holds); every claim of a study must be recorded by one of the study's chapters (except those
skipped at ``ci``: their statistic means nothing at that scale), and every exercise page must run
without an error.
"""

import pytest
from chapters import exercise_pages, study_chapters

from interp_repro import STUDIES
from interp_repro.reproduction.claims import NOT_CHECKED, load_claims, study_claims
from interp_repro.reproduction.records import load_records
from interp_repro.reproduction.report import check_records

pytestmark = pytest.mark.book
CHAPTERS = study_chapters()


def errors(notebook: dict) -> list[str]:
    """The error outputs of an executed notebook, as 'ename: evalue'."""
    return [f"{out['ename']}: {out['evalue']}" for cell in notebook["cells"]
            for out in cell.get("outputs", []) if out.get("output_type") == "error"]


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_chapter_reproduces_its_claims(chapter, book):
    notebook = book.notebook(chapter)
    assert not errors(notebook), f"{chapter} raised: {errors(notebook)}"
    recorded = book.glued(chapter) & set(load_claims())
    assert recorded, f"{chapter} recorded no claim"
    outcomes = [o for o in check_records("ci", load_records(book.records)) if o.claim.id in recorded]
    failed = [o.message() for o in outcomes if o.result not in ("pass", NOT_CHECKED)]
    assert not failed, "claims whose outcome at ci scale is not the expected one:\n" + "\n".join(failed)


@pytest.mark.parametrize("study", [s for s in STUDIES if s in CHAPTERS.values()])
def test_every_claim_of_the_study_is_recorded(study, book):
    recorded = set().union(*(book.glued(ch) for ch, s in CHAPTERS.items() if s == study))
    missing = [c.id for c in study_claims(study) if c.id not in recorded and "ci" not in c.skipped]
    assert not missing, f"claims of {study} that no chapter records: {missing}"


@pytest.mark.parametrize("page", sorted(exercise_pages()))
def test_exercise_page_runs_at_ci_scale(page, book):
    notebook = book.notebook(page)
    assert not errors(notebook), f"{page} raised: {errors(notebook)}"
    assert any(cell.get("outputs") for cell in notebook["cells"] if cell["cell_type"] == "code")
