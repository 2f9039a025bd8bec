"""The publishing files: GitHub workflows that test and publish the book, and the citation file."""

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


def test_every_workflow_passes_the_zizmor_linter():
    """zizmor audits the workflows (actions pinned to commits, least permissions, no persisted
    credentials, no template injection), offline."""
    linter = Path(sys.executable).with_name("zizmor")
    done = subprocess.run([str(linter), "--offline", "--format", "plain", str(WORKFLOWS)],
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
    assert flow["permissions"] == {"contents": "read"}
    assert flow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


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


LOCK = ROOT / "requirements.lock"


PIN = re.compile(r"^([A-Za-z0-9_.-]+)==(\S+)((?: \\\n    --hash=sha256:[0-9a-f]{64})*)", re.M)


def locked() -> dict[str, str]:
    """{normalised name: pinned version} of requirements.lock, each pin checked to carry a hash."""
    text = LOCK.read_text()
    pins = PIN.findall(text)
    assert len(pins) == len(re.findall(r"^[A-Za-z0-9_.-]+==", text, re.M)) > 100
    assert all(hashes for _, _, hashes in pins), [name for name, _, hashes in pins if not hashes]
    return {canonicalize_name(name): pin for name, pin, _ in pins}


def test_the_lock_pins_every_requirement_of_the_project():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    wanted += [Requirement(r) for extra in project["optional-dependencies"].values() for r in extra]
    pins = locked()
    for req in wanted:
        name = canonicalize_name(req.name)
        if name == canonicalize_name(project["name"]):
            continue
        assert name in pins, f"{req.name} is not in requirements.lock: make lock"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {req.name}=={pins[name]}, outside {req}: make lock")


def test_this_environment_is_the_locked_one():
    installed = {name: metadata.version(name) for name in locked()}
    differ = {name: (pin, installed[name]) for name, pin in locked().items() if installed[name] != pin}
    assert not differ, f"installed versions that differ from requirements.lock (pin, installed): {differ}"


def test_the_workflows_find_the_locked_cpu_build_of_torch():
    assert locked()["torch"].endswith("+cpu")
    for name in ("test.yml", "book.yml"):
        flow = workflow(name)
        job = next(iter(flow["jobs"].values()))
        assert job["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu", name
