"""The graded release (interp_repro/exercises/coursework.py): nbgrader's own cycle, offline, on a course
folder moved away from where it was written: generate the assignment, release it into the folder's
exchange, collect three submissions from there and autograde them, without the known warnings. The
source notebooks of every study, run in this process, pass their own checks: their reference solutions
are numpy alone, and the release imports no reference module."""

import contextlib
import copy
import csv
import html
import importlib
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

WRONG = ("+ 1", "- 1", "* 0 + 7")
"""Three wrong answers to every coding exercise, each the reference's own value moved, and a fourth that
calls the library's reference: at the scale of the cycle, what matters is that any answer its check
fails loses that exercise's points (the checks' own tests, ``test_coding_exercises.py``, feed them the
typical mistakes)."""
REFUSED = "is not available inside a graded answer"


def _submit(course, student: str, study: str, notebook) -> None:
    """Leave ``notebook`` in the exchange as ``nbgrader submit`` does for ``student``."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    folder = course / "exchange" / COURSE_ID / "inbound" / f"{student}+{study}+{stamp}"
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / f"{study}.ipynb")
    (folder / "timestamp.txt").write_text(stamp)


def _answered(notebook, study: str, answer) -> nbformat.NotebookNode:
    """A copy of ``study``'s ``notebook`` whose every solution cell is ``answer(cell source, function
    name, check)``."""
    notebook, checks = copy.deepcopy(notebook), importlib.import_module(f"interp_repro.exercises.{study}")
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            name = re.search(r"^def (\w+)\(", cell.source, re.M)[1]
            cell.source = answer(cell.source, name, getattr(checks, f"check_{name}"))
    return notebook


def _moved(shift: str):
    """The reference solution, its value moved by ``shift``."""
    return lambda source, name, _: f"{source}\n\n_answer = {name}\n\n\ndef {name}(*args):\n" \
                                   f"    return _answer(*args) {shift}\n"


def _calls_the_reference(source, name, check):
    reference = check.references[0]
    return (f"import {reference.__module__} as _library\n\n\ndef {name}(*args):\n"
            f"    return _library.{reference.__name__}(*args)\n")


def _cell(notebook, grade_id: str):
    return next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def test_a_moved_course_folder_runs_the_whole_cycle_and_every_wrong_answer_loses_its_points(tmp_path):
    """Release, collect, autograde, feedback and export, for every study, on a folder moved away from
    where it was written: the reference scores full marks, the untouched release and four wrong answers to
    every exercise score nothing; the fourth calls the library's reference, and its student reads the one
    line that says why, in the graded notebook and in the feedback."""
    from nbgrader.api import Gradebook

    written = write_course(ROOT, tmp_path / "written")
    course = tmp_path / "hub" / "course"
    shutil.copytree(written, course)
    shutil.rmtree(written)  # nothing may lead back to where the folder was written
    students = ("reference", "untouched", *(f"wrong-{i}" for i in range(len(WRONG))), "calls-reference")
    for study in STUDIES:
        source = nbformat.read(course / "source" / study / f"{study}.ipynb", 4)
        release = nbformat.read(course / "release" / study / f"{study}.ipynb", 4)
        assert "BEGIN SOLUTION" not in str(release) and "NotImplementedError" in str(release)
        nbgrader("release_assignment", study, cwd=course)  # needs the course id and a writable exchange
        assert (course / "exchange" / COURSE_ID / "outbound" / study / f"{study}.ipynb").is_file()
        answers = [source, release, *(_answered(source, study, _moved(shift)) for shift in WRONG),
                   _answered(source, study, _calls_the_reference)]
        for student, notebook in zip(students, answers, strict=True):
            _submit(course, student, study, notebook)
    for study in STUDIES:  # collect and autograde take one assignment at a time
        nbgrader("collect", study, cwd=course)
        log = nbgrader("autograde", study, "--force", cwd=course)
        assert "SAWarning" not in log and "without encryption" not in log, log  # the known warnings, silenced
    nbgrader("generate_feedback", "*", cwd=course)  # every assignment's at once
    nbgrader("export", cwd=course)

    points = {e.label: e.points for e in EXERCISES if e.check}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for study in STUDIES:
            assert gb.find_assignment(study).max_score == sum(
                points[e.label] for e in EXERCISES if e.study == study and e.check)
            for e in (e for e in EXERCISES if e.study == study and e.check):
                scores = {s: gb.find_grade(f"{e.label}-check", study, study, s).score for s in students}
                assert scores == {s: points[e.label] if s == "reference" else 0 for s in students}, e.label
    grades = list(csv.DictReader((course / "grades.csv").open()))
    assert {(row["student_id"], row["assignment"]) for row in grades} == {
        (s, study) for s in students for study in STUDIES}
    for study in STUDIES:
        graded = nbformat.read(course / "autograded" / "calls-reference" / study / f"{study}.ipynb", 4)
        feedback = (course / "feedback" / "calls-reference" / study / f"{study}.html").read_text()
        for e in (e for e in EXERCISES if e.study == study and e.check):
            failed = _cell(graded, f"{e.label}-check").outputs
            assert [o.output_type for o in failed] == ["error"]
            assert len(failed[0].traceback) == 1 and REFUSED in failed[0].traceback[0], \
                failed[0].traceback  # the one line, no traceback into the check
            assert html.escape(failed[0].evalue) in feedback or failed[0].evalue in feedback, e.label
        assert "most recent call last" not in feedback and "site-packages" not in feedback


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
