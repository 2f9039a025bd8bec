"""The launchable notebooks: every study page as a Jupyter notebook without outputs, committed in the
clone's ``notebooks/<study>/<page>.ipynb`` (``book/`` holds only the MyST sources), which the book's
launch buttons open on Colab or a JupyterHub (``book/_ext/launch_notebooks.py``).

A notebook's first cell installs the library where it is missing, from the pip spec ``launch_buttons:
install:`` of ``_config.yml`` (``{url}`` and ``{branch}`` in it stand for ``repository:``'s), and where it
has just installed it, makes ``ci`` the default scale (minutes, not the book's hour), saying which scale
the notebook runs at; the rest is the page as jupytext reads it, with each exercise's difficulty and time
(``interp_repro.exercises.catalogue``) above it, and without its solutions
(``interp_repro.exercises.student_edition``): a coding exercise's function raises
``NotImplementedError`` until the student writes it, as in the graded release, and the other
exercises' solutions are left out (the book keeps them, folded). ``make notebooks`` (``python -m
interp_repro.notebooks [ROOT]``, ROOT the clone's root, default the current folder) writes them.
"""

import re
import sys
from pathlib import Path

from interp_repro import STUDIES
from interp_repro.core.scales import SCALE_ENV

NOTEBOOKS = "notebooks"
INSTALL = '''\
# Installs the interp-repro library where it is missing (Colab, a JupyterHub); does nothing where it is
# installed. The book's _config.yml sets the pip spec (launch_buttons: install:). Just installed, the
# notebook runs at the small ci scale unless you chose one: set SCALE in the parameters cell below.
import importlib
import importlib.util
import os
import subprocess
import sys

PIP_SPEC = {spec!r}
if importlib.util.find_spec("interp_repro") is None:
    print(f"installing {{PIP_SPEC}} and its dependencies: this takes a few minutes")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", PIP_SPEC], check=True)
    importlib.invalidate_caches()
    os.environ.setdefault("{env}", "ci")  # minutes, not the book's hour of training
print(f"this notebook runs at the {{os.environ.get('{env}') or 'book'}} scale; "
      "set SCALE in the parameters cell to change it")'''
EXERCISE = re.compile(r"^`{3,}\{exercise\}[^\n]*\n:label: (\S+)", re.M)
"""An exercise directive's opening and its label (group 1)."""


def pip_spec(root: Path) -> str:
    """The pip spec the notebooks install the library from, as ``root/_config.yml`` sets it."""
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text())
    return config["launch_buttons"]["install"].format(**config["repository"])


def pages(root: Path) -> list[Path]:
    """The source of every study page (chapters and exercise pages) under ``root/book``."""
    return sorted(p for study in STUDIES for p in (root / "book" / study).glob("*.md"))


def notebook(source: Path, spec: str) -> str:
    """The launchable notebook of the page ``source`` (ipynb text, without solutions), whose first cell
    installs ``spec``."""
    import jupytext
    from nbformat.v4 import new_code_cell

    from interp_repro.exercises.catalogue import exercise
    from interp_repro.exercises.student_edition import without_solutions

    nb = jupytext.reads(without_solutions(source.read_text()), fmt="md:myst")
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = EXERCISE.sub(lambda m: f"**{exercise(m.group(1)).badge}**\n\n{m.group(0)}",
                                       cell.source)
    nb.cells.insert(0, new_code_cell(INSTALL.format(spec=spec, env=SCALE_ENV)))
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"  # fixed ids: the same page gives the same file
    return jupytext.writes(nb, fmt="ipynb") + "\n"


def notebook_path(source: Path, root: Path) -> Path:
    """Where the launchable notebook of the page ``root/book/<study>/<page>.md`` lives."""
    return root / NOTEBOOKS / source.relative_to(root / "book").with_suffix(".ipynb")


def write_notebooks(root: Path) -> list[Path]:
    """Write every study page's launchable notebook under ``root/notebooks``; returns their paths."""
    spec = pip_spec(root)
    written = []
    for source in pages(root):
        target = notebook_path(source, root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(notebook(source, spec))
        written.append(target)
    return written


if __name__ == "__main__":
    clone = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    for path in write_notebooks(clone):
        print(path.relative_to(clone))
