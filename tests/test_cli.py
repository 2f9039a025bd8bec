"""The command line: listing, bad input, and the report's exit status."""

import pytest

from interp_repro.claims import load_claims
from interp_repro.cli import main
from interp_repro.core import record


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "superposition" in out and "ci, book, paper" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "superposition", "--scale", "huge"], "unknown scale 'huge': choose one of ci, book"),
    (["run", "nope"], "unknown study 'nope': choose one of superposition"),
    (["report", "--scale", "tiny"], "unknown scale 'tiny'"),
    (["chapter", "superposition/nope"], "unknown chapter 'superposition/nope': choose one of"),
    (["chapter", "schur_rnn/copy_task", "--scale", "big"], "unknown scale 'big'"),
    (["run", "abstraction", "--workers", "0"], "--workers must be a positive integer, got '0'"),
    (["run", "abstraction", "--workers", "2", "--dask", "tcp://h:8786"], "not allowed with argument"),
])
def test_bad_input_is_named(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_report_passes_then_fails(capsys):
    claim = load_claims()["superposition.five_two_dense_count"]
    record(claim.id, 2, "ci")
    assert main(["report", "--scale", "ci"]) == 0
    out = capsys.readouterr().out
    assert claim.id in out and "pass" in out and "not run" in out
    record(claim.id, 3, "ci")
    assert main(["report", "--scale", "ci"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_every_chapter_in_the_toc_can_be_named():
    from chapters import toc_files

    from interp_repro.cli import chapters
    in_toc = {e.removeprefix("book/") for e in toc_files() if e.count("/") == 2}
    assert in_toc and in_toc <= set(chapters())


@pytest.mark.notebooks
def test_chapter_executes_one_chapter_and_records_its_claims(tmp_path, capsys):
    out = tmp_path / "linear.ipynb"
    assert main(["chapter", "abstraction/linear_theory", "--scale", "ci", "--out", str(out), "--quiet"]) == 0
    assert out.exists() and "executed abstraction/linear_theory at scale ci" in capsys.readouterr().out
    assert main(["report", "--scale", "ci", "--study", "abstraction"]) == 0
