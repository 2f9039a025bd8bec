"""The exercise pages without their solutions: for the launch notebooks (:mod:`interp_repro.notebooks`)
and for the student edition of the book (``make student-book``), for a graded class.

:func:`without_solutions` rewrites a page's MyST source: every gated solution (``solution-start`` to
``solution-end``, with the cells inside) goes, and each coding exercise's function cell is written as
the graded release gives it (its solution region replaced by ``raise NotImplementedError()``, its input
shown), with its check cell tagged ``raises-exception`` so that a run goes on past the line the check
prints for an unwritten function.

The student edition is the book built with sphinx-exercise's ``hide_solutions``, which drops plain
``{solution}`` directives but, in sphinx-exercise 1.2.1, stops the build at gated ones with "unknown
node type: solution_end_node" (executablebooks/sphinx-exercise#89), and knows nothing of the coding
exercises' solution regions. This module is also a Sphinx extension that rewrites each page with
:func:`without_solutions` before it is parsed, where ``hide_solutions`` is set. :func:`student_config`
is the book's ``_config.yml`` with both, and without the copies of the pages' sources (which hold the
solutions) in the HTML. ``python -m interp_repro.exercises.student_edition [ROOT]`` writes it to
``ROOT/_build/student/_config.yml``.
"""

import re
import sys
from pathlib import Path

GATED_SOLUTION = re.compile(r"^`{3,}\{solution-start\}[^\n]*\n.*?^`{3,}\{solution-end\}\n`{3,}\n+",
                            re.M | re.S)
SOLUTION_REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION\n", re.M | re.S)
UNSOLVED = r"\1# YOUR CODE HERE\n\1raise NotImplementedError()\n"
"""What replaces a solution region, as nbgrader's release writes it."""
NOTE = ("> **Without solutions.** This edition gives the exercises without their solutions: each coding "
        "exercise's function raises `NotImplementedError` until you write it, and its check says so.\n\n")
EXTENSION = "interp_repro.exercises.student_edition"
"""This module, as the student edition's configuration names it among Sphinx's extensions."""
STUDENT_BUILD = Path("_build") / "student"
"""Where ``make student-book`` writes its configuration and the student edition (from the clone's root)."""


def without_solutions(text: str) -> str:
    """The MyST source ``text`` of a page without its solutions; a page with none is returned as it is."""
    out = SOLUTION_REGION.sub(UNSOLVED, GATED_SOLUTION.sub("", text))
    if out == text:
        return text
    out = out.replace(":tags: [exercise-code, hide-input]", ":tags: [exercise-code]")
    out = out.replace(":tags: [exercise-check]", ":tags: [exercise-check, raises-exception]")
    return re.sub(r"^(# [^\n]*\n\n)", lambda m: m.group(1) + NOTE, out, count=1, flags=re.M)


def _rewrite(app, docname: str, source: list[str]) -> None:
    if app.config.hide_solutions:
        source[0] = without_solutions(source[0])


def setup(app) -> dict:
    app.connect("source-read", _rewrite)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def student_config(root: Path) -> dict:
    """The configuration of the student edition: ``root/_config.yml`` with ``hide_solutions`` and this
    extension, no copies of the pages' sources, its local extensions' paths and the notebook cache
    (shared with ``make book``, so only the rewritten pages execute again) named from ``root``."""
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text())
    sphinx = config["sphinx"]
    sphinx["extra_extensions"] = [*sphinx["extra_extensions"], EXTENSION]
    sphinx["local_extensions"] = {name: str((root / path).resolve())
                                  for name, path in sphinx["local_extensions"].items()}
    sphinx["config"] |= {"hide_solutions": True, "html_copy_source": False}
    config["execute"]["cache"] = str((root / "_build" / ".jupyter_cache").resolve())
    return config


def write_student_config(root: Path) -> Path:
    """Write :func:`student_config` to ``root/_build/student/_config.yml``; returns its path."""
    import yaml

    target = root / STUDENT_BUILD / "_config.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(student_config(root), sort_keys=False, allow_unicode=True))
    return target


if __name__ == "__main__":
    print(write_student_config(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
