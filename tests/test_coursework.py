"""The graded release (interp_repro/exercises/coursework.py): nbgrader's own cycle, offline, on a course
folder moved away from where it was written: generate the assignment, release it into the folder's
exchange, collect three submissions from there and autograde them, without the known warnings. The
source notebooks of every study, run in this process, pass their own checks: their reference solutions
are numpy alone, and the release imports no reference module."""

import contextlib
import io
import re
import shutil
from datetime import UTC, datetime

import nbformat
import pytest
from chapters import ROOT

from interp_repro import STUDIES
from interp_repro.exercises.catalogue import EXERCISES
from interp_repro.exercises.coursework import COURSE_ID, nbgrader, next_steps, source_notebook, write_course
from interp_repro.notebooks import pip_spec

pytest.importorskip("nbgrader")

STUDY = "superposition"
WRONG = "def weighted_loss(x, x_hat, importance):\n    return float(((x - x_hat) ** 2).sum(axis=1).mean())\n"


def _submit(course, student: str, notebook) -> None:
    """Leave ``notebook`` in the exchange as ``nbgrader submit`` does for ``student``."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    folder = course / "exchange" / COURSE_ID / "inbound" / f"{student}+{STUDY}+{stamp}"
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / f"{STUDY}.ipynb")
    (folder / "timestamp.txt").write_text(stamp)


def _graded(notebook, grade_id: str):
    return next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def test_a_moved_course_folder_releases_collects_and_autogrades(tmp_path):
    from nbgrader.api import Gradebook

    written = write_course(ROOT, tmp_path / "written", studies=(STUDY,))
    course = tmp_path / "hub" / "course"
    shutil.copytree(written, course)
    shutil.rmtree(written)  # nothing may lead back to where the folder was written
    source = nbformat.read(course / "source" / STUDY / f"{STUDY}.ipynb", 4)
    release = nbformat.read(course / "release" / STUDY / f"{STUDY}.ipynb", 4)
    assert "BEGIN SOLUTION" not in str(release) and "NotImplementedError" in str(release)
    wrong = nbformat.read(course / "release" / STUDY / f"{STUDY}.ipynb", 4)
    code = [c for c in wrong.cells if c.metadata.get("nbgrader", {}).get("solution")]
    code[0].source = WRONG
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source
                 for c in source.cells if "nbgrader" in c.metadata}
    code[1].source = solutions[code[1].metadata["nbgrader"]["grade_id"]]  # the second exercise right
    nbgrader("release_assignment", STUDY, cwd=course)  # needs the course id and a writable exchange
    assert (course / "exchange" / COURSE_ID / "outbound" / STUDY / f"{STUDY}.ipynb").is_file()
    for student, notebook in (("reference", source), ("wrong", wrong), ("untouched", release)):
        _submit(course, student, notebook)
    nbgrader("collect", STUDY, cwd=course)
    log = nbgrader("autograde", STUDY, "--force", cwd=course)
    assert "SAWarning" not in log and "without encryption" not in log, log  # the known warnings, silenced
    points = {e.label: e.points for e in EXERCISES if e.study == STUDY and e.check}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s: gb.find_submission(STUDY, s).score for s in ("reference", "wrong", "untouched")}
        assert gb.find_assignment(STUDY).max_score == sum(points.values())
    assert scores == {"reference": sum(points.values()),
                      "wrong": sum(points.values()) - points["ex-superposition-code-loss"], "untouched": 0}
    graded = nbformat.read(course / "autograded" / "wrong" / STUDY / f"{STUDY}.ipynb", 4)
    failed = _graded(graded, "ex-superposition-code-loss-check").outputs
    assert [o.output_type for o in failed] == ["error"]
    assert len(failed[0].traceback) == 1 and failed[0].traceback[0].startswith("CheckFailed: an error on"), \
        failed[0].traceback  # the one line, no traceback into the check


@pytest.mark.parametrize("study", STUDIES)
def test_each_release_installs_the_library_and_its_source_passes_its_checks(study):
    nb = source_notebook(ROOT / "book" / study / "exercises.md", pip_spec(ROOT))
    install, imports = nb.cells[1].source, nb.cells[2].source
    assert repr(pip_spec(ROOT)) in install and "pip" in install
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert not re.search(r"\b(SCALE|SAMPLES|STEPS|SEEDS|KERNELS|P|print)\b", code), imports
    assert not re.search(r"\b(measures|train)\b", imports), imports  # no reference module within reach
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"{study}.ipynb", "exec"), {})  # the reference solutions, checked
    checks = [e.check for e in EXERCISES if e.study == study and e.check]
    assert re.fullmatch("".join(r"\w+: all \d+ checks pass\n" for _ in checks), printed.getvalue())
    for line in imports.splitlines():  # every import is used, numpy aside
        bound = re.findall(r"(?:as|import) (\w+)$", line)[0]
        assert bound == "np" or re.search(rf"\b{bound}\.", code.replace(line, "")), line


def test_release_headings_keep_their_case():
    headings = [line for study in STUDIES
                for c in source_notebook(ROOT / "book" / study / "exercises.md", "spec").cells
                if c.cell_type == "markdown" for line in c.source.splitlines() if line.startswith("### ")]
    for expected in ("### Feature dimensionality $D_i$", "### Linear CKA",
                     "### The R/C split of the ordered real Schur form"):
        assert expected in headings, headings


def test_every_study_releases_its_coding_exercises_with_their_points():
    for study in STUDIES:
        nb = source_notebook(ROOT / "book" / study / "exercises.md", "spec")
        graded = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"].get("points")
                  for c in nb.cells if "nbgrader" in c.metadata}
        expected = {e.label: e.points for e in EXERCISES if e.study == study and e.check}
        assert {k[:-len("-check")]: v for k, v in graded.items() if k.endswith("-check")} == expected
        assert {k[:-len("-code")] for k in graded if k.endswith("-code")} == set(expected)


def test_the_config_names_no_absolute_path_and_the_next_steps_name_the_cycle(tmp_path):
    from interp_repro.exercises.coursework import CONFIG

    config = CONFIG.format(course_id=COURSE_ID)
    assert not re.search(r"[\"']/", config) and "__file__" in config  # no absolute path, its own folder
    assert f"course_id = {COURSE_ID!r}" in config and "c.Exchange.root" in config
    steps = next_steps(tmp_path / "course")
    for command in ("db student add", "release_assignment", "collect", "autograde", "generate_feedback",
                    "release_feedback", "export"):
        assert f"nbgrader {command}" in steps, command
