"""The graded release: an nbgrader course folder written from the exercise pages (``make coursework``).

One assignment per study, ``source/<study>/<study>.ipynb``: a cell that installs the library where it is
missing (the pip spec of the launch notebooks, :func:`interp_repro.notebooks.pip_spec`), the imports of
the page's setup cell that the exercises use, then each coding exercise: its statement with its
difficulty, time and points (:mod:`interp_repro.exercises.catalogue`), the function cell (tag
``exercise-code``) as an nbgrader solution cell, and the check cell (tag ``exercise-check``) as a locked
autograder test. nbgrader's own ``generate_assignment`` then writes the student release.

The folder's ``nbgrader_config.py`` names every path relative to its own folder, so a copy moved to a
hub works as it is; it sets the course id and keeps the exchange (where releases wait for students and
submissions for the instructor) in the folder's ``exchange/``. ``python -m
interp_repro.exercises.coursework [ROOT [OUT]]`` (defaults: the current folder and
``ROOT/_build/coursework``) writes the folder and prints the commands of the grading cycle.
"""

import ast
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from interp_repro import STUDIES
from interp_repro.exercises.catalogue import exercise
from interp_repro.notebooks import pip_spec

COURSE_ID = "interp-repro"
"""The course id of the folder ``make coursework`` writes (nbgrader's exchange files releases under it)."""

CONFIG = '''\
"""nbgrader's settings for this course folder, written by `make coursework`. Every path is relative to
this file's folder, so a copy of the folder moved elsewhere (to a hub) works as it is."""
import warnings
from pathlib import Path

from sqlalchemy.exc import SAWarning

c = get_config()  # noqa: F821 (nbgrader's configuration object)
HERE = Path(__file__).resolve().parent
c.CourseDirectory.root = str(HERE)
c.CourseDirectory.db_url = "sqlite:///" + str(HERE / "gradebook.db")
c.CourseDirectory.course_id = {course_id!r}
c.ExecutePreprocessor.timeout = 120

# What autograde would print for every submission, with nothing to act on: three SQLAlchemy warnings from
# nbgrader 0.9's gradebook (an autoflush meets a submission not yet in the session; it is recorded all the
# same), and the warning of the kernel that runs the checks (ipykernel 7) that it talks to nbgrader over
# TCP without encryption, on this machine.
warnings.filterwarnings("ignore", r"Object of type <Submitted\\w+> not in session", SAWarning)
c.Execute.extra_arguments = ["--IPKernelApp.log_level=ERROR"]

# The exchange, where releases wait for the students and their submissions for you: here inside the
# course folder, for a laptop or a hub whose students share this file system, made writable by all as
# nbgrader asks. Where the hub has an exchange of its own, set c.Exchange.root to it instead.
EXCHANGE = HERE / "exchange"
if not EXCHANGE.is_dir():
    EXCHANGE.mkdir()
    EXCHANGE.chmod(0o777)
c.Exchange.root = str(EXCHANGE)
'''

INSTALL = '''\
# Installs the interp-repro library, whose checks grade this notebook, where it is missing (a JupyterHub,
# Colab); does nothing where it is installed.
import importlib
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("interp_repro") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", {spec!r}], check=True)
    importlib.invalidate_caches()'''

NUMPY = "np"
"""The one import a release keeps whether or not the exercises use it: students write their answers in it."""

CYCLE = (
    ("nbgrader db student add STUDENT_ID --first-name=FIRST --last-name=LAST", "the roster, once a student"),
    ("nbgrader release_assignment {study}", "into exchange/; students fetch it, work, submit"),
    ("nbgrader collect {study}", "the submissions, from exchange/ into submitted/"),
    ("nbgrader autograde {study}", "runs every check: autograded/ and gradebook.db"),
    ("jupyter lab", "Nbgrader menu, Formgrader: review, grade by hand"),
    ("nbgrader generate_feedback {study}", "feedback/: one HTML page a student"),
    ("nbgrader release_feedback {study}", "into exchange/; students fetch_feedback"),
    ("nbgrader export", "grades.csv"),
)
"""The commands of the grading cycle, run in the course folder, each with what it does."""


def nbgrader(*args: str, cwd: Path) -> str:
    """Run ``nbgrader ARGS`` in the course folder ``cwd`` with this Python, whose ``bin`` goes first on
    the PATH (nbgrader creates its database with the ``alembic`` command found there); returns its log."""
    env = os.environ | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True,
                          text=True)
    if proc.returncode:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return proc.stderr


EXERCISE = re.compile(r"^`{3,}\{exercise\}[^\n]*\n:label: (\S+)\n(.*?)^`{3,}$", re.M | re.S)


def _nbgrader(cell, grade_id: str, *, solution: bool, points: int = 0) -> None:
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "schema_version": 3, "solution": solution,
                                 "grade": not solution, "locked": not solution,
                                 **({"points": points} if not solution else {})}


def _imports(setup: str, used: str) -> str:
    """The imports of the setup cell ``setup`` of the names the code ``used`` refers to (and numpy), one
    statement a line: the page's parameters, sizes and prints stay with the book."""
    names = {node.id for node in ast.walk(ast.parse(used)) if isinstance(node, ast.Name)} | {NUMPY}
    kept = []
    for node in ast.parse(setup).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            node.names = [a for a in node.names if (a.asname or a.name.split(".")[0]) in names]
            kept += [ast.unparse(node)] if node.names else []
    return "\n".join(kept)


def _heading(title: str) -> str:
    """A coding exercise's heading from its catalogue title: "code: " dropped, the first letter capital,
    every other letter (and maths symbol) as the catalogue writes it."""
    title = title.removeprefix("code: ")
    return title[:1].upper() + title[1:]


def source_notebook(page: Path, spec: str):
    """The nbgrader source notebook of an exercise page: an install cell for ``spec``, the imports the
    coding exercises use, and those exercises, graded."""
    import jupytext
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    cells = jupytext.read(page).cells
    exercises, label = [], ""
    for cell in cells:
        found = EXERCISE.search(cell.source) if cell.cell_type == "markdown" else None
        if found:
            label = found.group(1)
        tags = set(cell.metadata.get("tags", []))
        entry = exercise(label) if label else None
        if found and entry.check:
            exercises.append(new_markdown_cell(f"### {_heading(entry.title)}\n\n**{entry.badge} · "
                                               f"{entry.points} points**\n\n{found.group(2).strip()}"))
        elif "exercise-code" in tags or "exercise-check" in tags:
            exercises.append(new_code_cell(cell.source))
            solution = "exercise-code" in tags
            _nbgrader(exercises[-1], f"{label}-{'code' if solution else 'check'}", solution=solution,
                      points=entry.points)
    setup = [c for c in cells if c.cell_type == "code"][1]  # the page's imports, after its parameters
    used = "\n".join(c.source for c in exercises if c.cell_type == "code")
    out = [new_markdown_cell(cells[0].source.split("\n")[0] + " (graded coding exercises)"),
           new_code_cell(INSTALL.format(spec=spec)), new_code_cell(_imports(setup.source, used)), *exercises]
    for i, cell in enumerate(out):
        cell.id = f"cell-{i}"
    return new_notebook(cells=out, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}})


def write_course(root: Path, out: Path, studies=STUDIES, course_id: str = COURSE_ID) -> Path:
    """Write the course folder ``out`` (config, sources) for ``studies`` and generate each release."""
    import nbformat

    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(CONFIG.format(course_id=course_id))
    spec = pip_spec(root)
    for study in studies:
        target = out / "source" / study / f"{study}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(root / "book" / study / "exercises.md", spec), target)
        nbgrader("generate_assignment", study, "--force", cwd=out)
    return out


def next_steps(out: Path, studies=STUDIES) -> str:
    """What to run next in the course folder ``out``: the commands of :data:`CYCLE`, for the first of
    ``studies``."""
    commands = [(command.format(study=studies[0]), comment) for command, comment in CYCLE]
    width = max(len(command) for command, _ in commands)
    return "\n".join([f"Course folder: {out}",
                      f"Next, with {Path(sys.executable).parent} first on the PATH:",
                      f"  cd {shlex.quote(str(out))}",
                      *(f"  {command.ljust(width)}  # {comment}" for command, comment in commands),
                      f"Assignments: {', '.join(studies)}. book/instructors.md walks through the cycle."])


if __name__ == "__main__":
    clone = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    print(next_steps(write_course(clone, Path(sys.argv[2]) if len(sys.argv) > 2 else
                                  clone / "_build" / "coursework")))
