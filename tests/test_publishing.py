"""The publishing files: GitHub workflows that test and publish the book, and the citation file."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"


def workflow(name: str) -> dict:
    data = yaml.safe_load((WORKFLOWS / name).read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def steps(job: dict) -> str:
    return "\n".join(str(step.get("run", "")) + str(step.get("uses", "")) for step in job["steps"])


def test_every_workflow_validates_against_the_github_schema():
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert len(files) == 2
    checker = Path(sys.executable).with_name("check-jsonschema")
    done = subprocess.run([str(checker), "--builtin-schema", "vendor.github-workflows", *files],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_test_workflow_runs_make_test_on_every_push_and_pull_request():
    flow = workflow("test.yml")
    assert {"push", "pull_request"} <= set(flow["on"])
    assert "make test" in steps(flow["jobs"]["test"])


def test_the_book_workflow_builds_at_book_scale_with_the_cache_keyed_on_the_fingerprint():
    flow = workflow("book.yml")
    build = flow["jobs"]["build"]
    assert build["env"]["INTERP_REPRO_SCALE"] == "book"
    run = steps(build)
    assert "make book" in run and "library_fingerprint()" in run
    cache = next(s for s in build["steps"] if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == "~/.cache/interp-repro"
    assert "steps.fingerprint.outputs.value" in cache["with"]["key"]
    pages = next(s for s in build["steps"] if "upload-pages-artifact" in s.get("uses", ""))
    assert pages["with"]["path"] == "_build/html"
    assert "actions/deploy-pages" in steps(flow["jobs"]["deploy"])
    assert flow["permissions"]["pages"] == "write"


@pytest.fixture(scope="module")
def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_citation_file_names_the_package_version(version):
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert citation["version"] == version
    assert citation["title"] and citation["authors"] and citation["message"]


def test_the_changelog_has_an_entry_for_the_package_version(version):
    headings = [line for line in (ROOT / "CHANGELOG.md").read_text().splitlines()
                if line.startswith("## ")]
    assert headings and headings[0].startswith(f"## {version}")
