"""The graded release (interp_repro/exercises/coursework.py): nbgrader's own cycle, offline, in a
temporary course folder: generate the assignment, then autograde three submissions."""

import nbformat
import pytest
from chapters import ROOT

from interp_repro import STUDIES
from interp_repro.exercises.catalogue import EXERCISES
from interp_repro.exercises.coursework import nbgrader, source_notebook, write_course

pytest.importorskip("nbgrader")

STUDY = "superposition"
WRONG = "def weighted_loss(x, x_hat, importance):\n    return float(((x - x_hat) ** 2).sum(axis=1).mean())\n"


def _submit(course, student: str, notebook) -> None:
    folder = course / "submitted" / student / STUDY
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / f"{STUDY}.ipynb")


def test_release_autogrades_the_reference_wrong_and_untouched_notebooks(tmp_path):
    from nbgrader.api import Gradebook

    course = write_course(ROOT, tmp_path / "course", studies=(STUDY,))
    source = nbformat.read(course / "source" / STUDY / f"{STUDY}.ipynb", 4)
    release = nbformat.read(course / "release" / STUDY / f"{STUDY}.ipynb", 4)
    assert "BEGIN SOLUTION" not in str(release) and "NotImplementedError" in str(release)
    wrong = nbformat.read(course / "release" / STUDY / f"{STUDY}.ipynb", 4)
    code = [c for c in wrong.cells if c.metadata.get("nbgrader", {}).get("solution")]
    code[0].source = WRONG
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source
                 for c in source.cells if "nbgrader" in c.metadata}
    code[1].source = solutions[code[1].metadata["nbgrader"]["grade_id"]]  # the second exercise right
    for student, notebook in (("reference", source), ("wrong", wrong), ("untouched", release)):
        _submit(course, student, notebook)
    nbgrader("autograde", STUDY, "--force", cwd=course)
    points = {e.label: e.points for e in EXERCISES if e.study == STUDY and e.check}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s: gb.find_submission(STUDY, s).score for s in ("reference", "wrong", "untouched")}
        assert gb.find_assignment(STUDY).max_score == sum(points.values())
    assert scores == {"reference": sum(points.values()),
                      "wrong": sum(points.values()) - points["ex-superposition-code-loss"], "untouched": 0}


def test_every_study_releases_its_coding_exercises_with_their_points():
    for study in STUDIES:
        nb = source_notebook(ROOT / "book" / study / "exercises.md")
        graded = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"].get("points")
                  for c in nb.cells if "nbgrader" in c.metadata}
        expected = {e.label: e.points for e in EXERCISES if e.study == study and e.check}
        assert {k[:-len("-check")]: v for k, v in graded.items() if k.endswith("-check")} == expected
        assert {k[:-len("-code")] for k in graded if k.endswith("-code")} == set(expected)
