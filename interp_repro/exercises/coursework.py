"""The graded release: an nbgrader course folder written from the exercise pages (``make coursework``).

One assignment per study, ``source/<study>/<study>.ipynb``: the page's parameters and setup cells, then
each coding exercise: its statement with its difficulty, time and points
(:mod:`interp_repro.exercises.catalogue`), the function cell (tag ``exercise-code``) as an nbgrader
solution cell, and the check cell (tag ``exercise-check``) as a locked autograder test. nbgrader's own
``generate_assignment`` then writes the student release. ``python -m interp_repro.exercises.coursework
[ROOT [OUT]]`` (defaults: the current folder and ``ROOT/_build/coursework``).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from interp_repro import STUDIES
from interp_repro.exercises.catalogue import exercise

CONFIG = """c = get_config()  # noqa: F821 (nbgrader's configuration object)
c.CourseDirectory.root = {root!r}
c.CourseDirectory.db_url = "sqlite:///" + {db!r}
c.ExecutePreprocessor.timeout = 120
"""
def nbgrader(*args: str, cwd: Path) -> None:
    """Run ``nbgrader ARGS`` in the course folder ``cwd`` with this Python, whose ``bin`` goes first on
    the PATH (nbgrader creates its database with the ``alembic`` command found there)."""
    env = os.environ | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True,
                          text=True)
    if proc.returncode:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{proc.stderr[-3000:]}")


EXERCISE = re.compile(r"^`{3,}\{exercise\}[^\n]*\n:label: (\S+)\n(.*?)^`{3,}$", re.M | re.S)


def _nbgrader(cell, grade_id: str, *, solution: bool, points: int = 0) -> None:
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "schema_version": 3, "solution": solution,
                                 "grade": not solution, "locked": not solution,
                                 **({"points": points} if not solution else {})}


def source_notebook(page: Path):
    """The nbgrader source notebook of an exercise page: setup and coding exercises, graded."""
    import jupytext
    from nbformat.v4 import new_markdown_cell, new_notebook

    cells = jupytext.read(page).cells
    setup = [c for c in cells if c.cell_type == "code"][:2]
    out = [new_markdown_cell(cells[0].source.split("\n")[0] + " (graded coding exercises)")] + setup
    label = ""
    for cell in cells:
        found = EXERCISE.search(cell.source) if cell.cell_type == "markdown" else None
        if found:
            label = found.group(1)
        tags = set(cell.metadata.get("tags", []))
        entry = exercise(label) if label else None
        if found and entry.check:
            heading = entry.title[len("code: "):].capitalize()
            out.append(new_markdown_cell(f"### {heading}\n\n**{entry.badge} · {entry.points} points**\n\n"
                                         f"{found.group(2).strip()}"))
        elif "exercise-code" in tags:
            out.append(cell.copy())
            out[-1].metadata = {}
            _nbgrader(out[-1], f"{label}-code", solution=True)
        elif "exercise-check" in tags:
            out.append(cell.copy())
            out[-1].metadata = {}
            _nbgrader(out[-1], f"{label}-check", solution=False, points=entry.points)
    for i, cell in enumerate(out):
        cell.id = f"cell-{i}"
    nb = new_notebook(cells=out, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                          "language": "python"}})
    return nb


def write_course(root: Path, out: Path, studies=STUDIES) -> Path:
    """Write the course folder ``out`` (config, sources) for ``studies`` and generate each release."""
    import nbformat

    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(CONFIG.format(root=str(out), db=str(out / "gradebook.db")))
    for study in studies:
        target = out / "source" / study / f"{study}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(root / "book" / study / "exercises.md"), target)
        nbgrader("generate_assignment", study, "--force", cwd=out)
    return out


if __name__ == "__main__":
    clone = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    print(write_course(clone, Path(sys.argv[2]) if len(sys.argv) > 2 else clone / "_build" / "coursework"))
