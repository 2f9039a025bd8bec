"""The launchable notebooks (interp_repro/notebooks.py): the committed ones are what the chapters give,
none holds a solution, and one of them runs for a student who has nothing installed but Jupyter, as on
Colab. The student edition of the book (make student-book): its configuration, and pages without
solutions."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from chapters import ROOT

from interp_repro import STUDIES
from interp_repro.exercises.catalogue import EXERCISES
from interp_repro.exercises.student_edition import STUDENT_BUILD, student_config, without_solutions
from interp_repro.notebooks import notebook, pages, pip_spec, write_notebooks
from interp_repro.reproduction.claims import NOT_CHECKED, load_claims
from interp_repro.reproduction.records import load_records
from interp_repro.reproduction.report import check_records

STUDENT_PAGE = ROOT / "book" / "superposition" / "phase_change.md"  # trains least at ci: 21 s cold, here


def test_committed_notebooks_are_the_chapters(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "book", copy / "book", ignore=shutil.ignore_patterns("_ext", "*.bib"))
    shutil.copy(ROOT / "_config.yml", copy)
    for fresh in write_notebooks(copy):
        committed = ROOT / fresh.relative_to(copy)
        assert committed.is_file() and committed.read_bytes() == fresh.read_bytes(), (
            f"{committed.relative_to(ROOT)} is not what its page gives: run make notebooks")
    stray = {ROOT / "book" / p.relative_to(ROOT / "notebooks").with_suffix(".md")
             for p in (ROOT / "notebooks").glob("*/*.ipynb")} - set(pages(ROOT))
    assert not stray, f"notebooks without a page: {sorted(stray)}: run make notebooks"
    assert not list((ROOT / "book").glob("**/*.ipynb")), "book/ holds only MyST sources, no notebooks"


def test_install_cell_comes_first_and_installs_the_configured_spec():
    cells = json.loads(notebook(STUDENT_PAGE, pip_spec(ROOT)))["cells"]
    assert cells[0]["cell_type"] == "code"
    assert repr(pip_spec(ROOT)) in "".join(cells[0]["source"])
    tagged = [i for i, c in enumerate(cells) if "parameters" in c["metadata"].get("tags", [])]
    assert tagged and tagged[0] > 0  # papermill's -p SCALE ci lands after the chapter's parameters cell


CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)


def _solutions(text: str) -> tuple[set[str], set[str]]:
    """The lines of code of a page's solutions: its coding exercises' solution regions, and the code cells
    of its gated solutions (comments and blank lines left out)."""
    def lines(blocks) -> set[str]:
        return {line.strip() for block in blocks for line in block.splitlines()
                if line.strip() and not line.strip().startswith(("#", ":"))}
    coding = re.findall(r"^[ \t]*### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION", text, re.M | re.S)
    gated = re.findall(r"\{solution-start\}.*?\{solution-end\}", text, re.S)
    return lines(coding), lines(cell for solution in gated for cell in CODE_CELL.findall(solution))


def _exercise_page(study: str) -> str:
    return (ROOT / "book" / study / "exercises.md").read_text()


def test_no_launch_notebook_holds_a_solution():
    """No code cell of any launch notebook has a line of a coding exercise's reference solution; the
    exercise notebooks have no line of any other solution either, and give each coding exercise's
    function as the release does."""
    coding, other = set(), {}
    for study in STUDIES:
        found = _solutions(_exercise_page(study))
        coding |= found[0]
        other[study] = found[1]
    assert len(coding) > 30 and all(other.values())
    for path in sorted((ROOT / "notebooks").glob("*/*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
        lines = {line.strip() for cell in code for line in cell.splitlines()}
        assert not lines & coding, f"{path.relative_to(ROOT)} holds solution lines {sorted(lines & coding)}"
        if path.stem == "exercises":
            assert not lines & other[path.parent.name], sorted(lines & other[path.parent.name])
            unsolved = [cell for cell in code if "raise NotImplementedError()" in cell]
            assert len(unsolved) == sum(1 for e in EXERCISES if e.study == path.parent.name and e.check)


def test_the_student_edition_builds_with_hide_solutions_and_its_pages_have_none(tmp_path):
    """make student-book writes the student configuration and builds from it; the configuration hides
    the solutions (sphinx-exercise's hide_solutions and this library's rewriting of the pages) and
    copies no page source into the HTML; a page rewritten as it does keeps every exercise and no
    solution, and a chapter stays as it is."""
    copy = tmp_path / "clone"
    copy.mkdir()
    shutil.copy(ROOT / "_config.yml", copy)
    _run(sys.executable, "-m", "interp_repro.exercises.student_edition", copy)  # as make student-book does
    config = yaml.safe_load((copy / STUDENT_BUILD / "_config.yml").read_text())
    assert config == student_config(copy)
    sphinx = student_config(ROOT)["sphinx"]
    assert sphinx["config"]["hide_solutions"] is True and sphinx["config"]["html_copy_source"] is False
    assert "interp_repro.exercises.student_edition" in sphinx["extra_extensions"]
    assert all(Path(path).is_dir() for path in sphinx["local_extensions"].values())
    recipe = re.search(r"^student-book:.*?(?=^\S|\Z)", (ROOT / "Makefile").read_text(), re.M | re.S).group(0)
    assert "-m interp_repro.exercises.student_edition" in recipe
    assert f"--config {STUDENT_BUILD}/_config.yml" in recipe and "-W" in recipe
    for study in STUDIES:
        page = _exercise_page(study)
        student = without_solutions(page)
        coding, other = _solutions(page)
        code = {line.strip() for cell in CODE_CELL.findall(student) for line in cell.splitlines()}
        assert not code & (coding | other), sorted(code & (coding | other))
        assert "solution-start" not in student and "solution-end" not in student
        labels = re.findall(r"^:label: (\S+)", page, re.M)
        assert labels == re.findall(r"^:label: (\S+)", student, re.M) and len(labels) >= 4
    chapter = (ROOT / "book" / "abstraction" / "nonlinear.md").read_text()
    assert without_solutions(chapter) == chapter


def _run(*args: str | Path, **kwargs) -> None:
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{args} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


@pytest.mark.trained
def test_a_launched_notebook_runs_at_ci_by_default_and_its_claims_pass(tmp_path):
    """As a student launches it, with nothing of the library installed: a fresh venv whose packages are
    this one's (linked, the library left out, nothing downloaded), the first cell's install of this
    project's wheel, and a run with no parameters: the notebook picks ci and says so, and the claims
    the chapter names are recorded and pass at ci."""
    import site

    source = tmp_path / "source"
    shutil.copytree(ROOT / "interp_repro", source / "interp_repro",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", source, "-w",
         tmp_path / "wheel")
    wheel = next((tmp_path / "wheel").glob("interp_repro-*.whl"))
    venv, packages = tmp_path / "venv", tmp_path / "packages"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)  # pip, setuptools: this venv's, linked
    packages.mkdir()
    for entry in Path(site.getsitepackages()[0]).iterdir():  # this venv's packages, but not the library
        if not entry.name.startswith(("interp_repro", "__editable__", "_distutils", "distutils")) \
                and entry.suffix != ".pth":
            (packages / entry.name).symlink_to(entry)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "course_packages.pth").write_text(f"{packages}\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("INTERP_REPRO_", "PYTHON", "VIRTUAL_ENV", "JUPYTER"))}
    env |= {"PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}", "INTERP_REPRO_QUIET": "1",
            "INTERP_REPRO_CACHE": str(tmp_path / "cache"), "PIP_NO_INDEX": "1",
            "INTERP_REPRO_RECORD": str(tmp_path / "records.json")}
    work = tmp_path / "work"
    work.mkdir()
    launch, out = tmp_path / "launch.ipynb", tmp_path / "out.ipynb"
    launch.write_text(notebook(STUDENT_PAGE, str(wheel)))
    _run(python, "-m", "papermill", launch, out, "-k", "python3", "--cwd", work, "--no-progress-bar", env=env,
         cwd=work)
    cells = json.loads(out.read_text())["cells"]
    printed = ["".join("".join(o.get("text", "")) for o in c["outputs"])
               for c in cells if c["cell_type"] == "code"]
    assert "installing" in printed[0] and "runs at the ci scale" in printed[0], printed[0]
    assert any("scale ci" in text for text in printed), printed[:4]
    installed = subprocess.run([python, "-c", "import interp_repro; print(interp_repro.__file__)"],
                               capture_output=True, text=True, cwd=work, env=env).stdout
    assert installed.startswith(str(venv)), installed
    text = STUDENT_PAGE.read_text()
    named = {c for c in load_claims() if re.search(rf"`{re.escape(c)}(`|:|\.status`)", text)}  # not .paper
    recorded = set(load_records(tmp_path / "records.json").get("ci", {}))
    assert named and named <= recorded, f"claims the chapter names but did not record: {named - recorded}"
    outcomes = [o for o in check_records("ci", load_records(tmp_path / "records.json"), current_only=False)
                if o.claim.id in recorded]
    failed = [o.message() for o in outcomes if o.result not in ("pass", NOT_CHECKED)]
    assert not failed, "claims whose outcome at ci scale is not the expected one:\n" + "\n".join(failed)
