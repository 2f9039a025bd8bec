"""The command line: listing, bad input, expected errors as one line, the environment, the report's
exit status and the cache command."""

import json
import os

import numpy as np
import papermill
import pytest
import torch
from chapters import ROOT, toc_files

import interp_repro.cli as cli
from interp_repro import __version__
from interp_repro.abstraction import experiments as abstraction
from interp_repro.cli import main
from interp_repro.core import Estimate, cached, progress
from interp_repro.reproduction import record
from interp_repro.reproduction.claims import load_claims

ENV = ("INTERP_REPRO_SCALE", "INTERP_REPRO_CACHE", "INTERP_REPRO_RECORD", "INTERP_REPRO_WORKERS",
       "INTERP_REPRO_DASK", "INTERP_REPRO_QUIET")


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))
    for name in ("INTERP_REPRO_SCALE", "INTERP_REPRO_WORKERS", "INTERP_REPRO_DASK", "INTERP_REPRO_QUIET"):
        monkeypatch.delenv(name, raising=False)  # restored after the test, which main() may set


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
    (["run", "abstraction", "--seed-offset", "-3"], "--seed-offset must be an integer in [0, 2**63 - 1]"),
    (["run", "abstraction", "--seed-offset", str(2**64)], "--seed-offset must be an integer in [0, 2**63"),
    (["run", "abstraction", "--seed-offset", "١٢"], "--seed-offset must be an integer in [0, 2**63 - 1]"),
    (["run", "abstraction", "--workers", "2", "--dask", "tcp://h:8786"], "not allowed with argument"),
    (["run", "abstraction", "--dask", "h"], "'h' is not a Dask scheduler address: expected"),
    (["cache"], "one of the arguments --size --prune is required"),
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


def test_report_json_gives_each_claims_statuses_and_each_estimates_samples(capsys):
    record("superposition.five_two_dense_count", 2, "ci")
    agreement = Estimate.share([True] * 60 + [False] * 4, "cells")
    record("superposition.phase_agreement", agreement, "ci")
    assert main(["report", "--scale", "ci", "--json", "--study", "superposition"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["superposition.five_two_dense_count"] == {
        "id": "superposition.five_two_dense_count", "kind": "reproduction", "paper": "2", "paper_value": 2,
        "reference": None, "paper_band": "== 2", "ours": 2, "estimate": None, "interval": None,
        "basis": "one run", "units": None, "n_units": None, "alternative": 5,
        "alternative_reason": "dense features in superposition all the same: every feature represented",
        "power": None, "units_for_power": None, "paper_inside_interval": None, "direction": True,
        "status": "reproduced", "counted": "reproduced, one run", "to_decide": None,
        "expected": "reproduced", "guard": None, "guard_result": None, "invalid": None, "result": "pass"}
    shares = rows["superposition.phase_agreement"]
    assert shares["ours"] == agreement.value and shares["estimate"] == agreement.as_dict()
    assert (shares["basis"], shares["units"], shares["n_units"], shares["status"]) == (
        "interval", "64 cells", 64, "inconclusive")  # 60 of 64: its interval (0.85-0.98) reaches below 0.9
    assert shares["interval"] == list(agreement.interval) and shares["alternative"] == 0.33333
    assert shares["power"] == 1.0 and shares["units_for_power"] is None
    assert shares["estimate"]["samples"].count(True) == 60 and shares["estimate"]["level"] == 0.95
    assert rows["superposition.five_two_sparse_count"]["result"] == "not run"


def test_every_chapter_in_the_toc_can_be_named():
    from interp_repro.cli import chapters

    in_toc = {e.removeprefix("book/") for e in toc_files() if e.count("/") == 2}
    assert in_toc and in_toc <= set(chapters(ROOT / "book"))


def test_the_book_folder_is_a_setting_not_a_path_of_the_package(tmp_path, monkeypatch, capsys):
    """Installed from a wheel, the package has no book/ beside it: chapter and figure look in ./book,
    $INTERP_REPRO_BOOK or --book, and say where they looked when it is missing."""
    monkeypatch.chdir(tmp_path)
    assert main(["figure", "--list"]) == 2
    assert f"no book folder at {tmp_path / 'book'}" in capsys.readouterr().err
    monkeypatch.setenv("INTERP_REPRO_BOOK", str(ROOT / "book"))
    assert main(["figure", "--list"]) == 0
    assert "fig-dstar" in capsys.readouterr().out
    monkeypatch.delenv("INTERP_REPRO_BOOK")
    assert main(["figure", "--list", "--book", str(ROOT / "book")]) == 0


@pytest.mark.trained
def test_chapter_executes_one_chapter_and_records_its_claims(tmp_path, capsys):
    """In an empty cache: the chapter that trains least at ci (21 s here; the linear theory took 64 s)."""
    out = tmp_path / "phase.ipynb"
    assert main(["chapter", "superposition/phase_change", "--scale", "ci", "--out", str(out), "--quiet"]) == 0
    assert out.exists() and "executed superposition/phase_change at scale ci" in capsys.readouterr().out
    recorded = json.loads((tmp_path / "records.json").read_text())["ci"]
    assert {"superposition.phase_agreement", "superposition.phase_3_2_agreement"} <= set(recorded)
    assert main(["report", "--scale", "ci", "--study", "superposition"]) == 0


# --- expected errors: one line, before any work -----------------------------------------------


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a command starts training or executing a chapter."""
    def work(*args, **kwargs):
        pytest.fail("work started before the settings were checked")

    monkeypatch.setattr(abstraction, "run_all", work)
    monkeypatch.setattr(papermill, "execute_notebook", work)
    monkeypatch.setattr(cli, "fill_cache", work)
    monkeypatch.setattr(cli, "render", work)


def _file(path):
    path.write_text("not a folder")
    return path


SETUPS = {
    "the cache path is a file": (lambda t: {"INTERP_REPRO_CACHE": _file(t / "f")}, "is a file, not a folder"),
    "the record folder is a file": (lambda t: {"INTERP_REPRO_RECORD": _file(t / "f") / "records.json"},
                                    "record file ($INTERP_REPRO_RECORD) "),
    "the record file is a folder": (lambda t: {"INTERP_REPRO_RECORD": t}, "is a folder"),
    "the record file is not JSON": (lambda t: {"INTERP_REPRO_RECORD": _file(t / "r.json")}, "not valid JSON"),
    "a bad worker count": (lambda t: {"INTERP_REPRO_WORKERS": "two"}, "a positive integer, got 'two'"),
    "a bad Dask address": (lambda t: {"INTERP_REPRO_DASK": "h"}, "is not a Dask scheduler address"),
    "a bad scale": (lambda t: {"INTERP_REPRO_SCALE": "huge"}, "$INTERP_REPRO_SCALE: unknown scale 'huge'"),
    "an empty scale": (lambda t: {"INTERP_REPRO_SCALE": ""}, "$INTERP_REPRO_SCALE: unknown scale ''"),
    "an empty Dask address": (lambda t: {"INTERP_REPRO_DASK": ""}, "$INTERP_REPRO_DASK is set but empty"),
    "an empty worker count": (lambda t: {"INTERP_REPRO_WORKERS": ""}, "a positive integer, got ''"),
    "an empty quiet flag": (lambda t: {"INTERP_REPRO_QUIET": ""}, "$INTERP_REPRO_QUIET must be one of"),
    "the record file's lock is a folder": (
        lambda t: (t / "r.json.lock").mkdir() or {"INTERP_REPRO_RECORD": t / "r.json"},
        "the record file's lock ($INTERP_REPRO_RECORD) "),
}


@pytest.mark.parametrize("argv", [["run", "abstraction"], ["chapter", "abstraction/linear_theory"]])
@pytest.mark.parametrize("setup", SETUPS)
def test_a_bad_setting_is_one_line_before_any_work(setup, argv, tmp_path, monkeypatch, capsys, no_work):
    env, message = SETUPS[setup]
    for name, value in env(tmp_path).items():
        monkeypatch.setenv(name, str(value))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("interp-repro: error: ") and err.count("\n") == 1, err
    assert message in err


@pytest.mark.parametrize("argv", [["chapter", "abstraction/linear_theory"], ["figure", "--list"]])
def test_an_empty_book_variable_is_refused_not_the_default(argv, monkeypatch, capsys, no_work):
    monkeypatch.setenv("INTERP_REPRO_BOOK", "")
    assert main(argv) == 2
    assert "$INTERP_REPRO_BOOK is set but empty" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_cache_folder_is_one_line(tmp_path, monkeypatch, capsys, no_work):
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o500)
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(folder / "cache"))
    assert main(["run", "abstraction"]) == 2
    assert "is not a writable folder" in capsys.readouterr().err


def test_relative_cache_and_record_paths_are_made_absolute(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INTERP_REPRO_CACHE", "rel/cache")
    monkeypatch.setenv("INTERP_REPRO_RECORD", "rel/records.json")
    assert main(["list"]) == 0
    assert os.environ["INTERP_REPRO_CACHE"] == str(tmp_path / "rel" / "cache")
    assert os.environ["INTERP_REPRO_RECORD"] == str(tmp_path / "rel" / "records.json")
    assert str(tmp_path / "rel" / "cache") in capsys.readouterr().out


# --- flags and the environment ----------------------------------------------------------------


@pytest.fixture
def seen(monkeypatch):
    """Replace the run and chapter commands by one that keeps its arguments and the environment."""
    calls = []

    def command(args):
        calls.append((args, {name: os.environ.get(name) for name in ENV}))
        return 0

    monkeypatch.setattr(cli, "cmd_run", command)
    monkeypatch.setattr(cli, "cmd_chapter", command)
    return calls


def test_workers_flag_wins_over_the_dask_environment(monkeypatch, seen):
    monkeypatch.setenv("INTERP_REPRO_DASK", "tcp://10.0.0.5:8786")
    assert main(["run", "abstraction", "--workers", "2"]) == 0
    [(_, env)] = seen
    assert env["INTERP_REPRO_DASK"] is None and env["INTERP_REPRO_WORKERS"] == "2"


def test_device_flag_sets_the_environment_and_a_missing_gpu_is_one_line(monkeypatch, seen, capsys):
    monkeypatch.setenv("INTERP_REPRO_DEVICE", "cpu")  # restored afterwards, with what main sets
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["run", "modular_addition", "--device", "auto"]) == 0
    assert os.environ["INTERP_REPRO_DEVICE"] == "auto"
    assert main(["chapter", "modular_addition/clock_pizza", "--device", "cuda"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err
    assert len(seen) == 1


@pytest.mark.parametrize("argv", [["run", "abstraction"], ["chapter", "abstraction/linear_theory"]])
def test_scale_comes_from_the_environment_unless_given(argv, monkeypatch, seen):
    monkeypatch.setenv("INTERP_REPRO_SCALE", "ci")
    assert main(argv) == 0
    assert main([*argv, "--scale", "paper"]) == 0
    monkeypatch.delenv("INTERP_REPRO_SCALE")
    assert main(argv) == 0
    assert [args.scale for args, _ in seen] == ["ci", "paper", "book"]


def test_report_scale_comes_from_the_environment(monkeypatch, capsys):
    record("superposition.five_two_dense_count", 2, "ci")
    monkeypatch.setenv("INTERP_REPRO_SCALE", "ci")
    assert main(["report"]) == 0
    assert "reproduction report, scale ci" in capsys.readouterr().out


def test_help_documents_every_variable_and_is_plain_text(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert all(name in out for name in ENV)
    assert "a command-line flag wins over its variable" in out
    assert "``" not in out


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"interp-repro {__version__}\n"


def test_report_with_nothing_recorded_says_so_in_one_line_with_exit_2(capsys):
    for args in ([], ["--json"]):
        assert main(["report", "--scale", "ci", *args]) == 2
        out, err = capsys.readouterr()
        assert not out and err.count("\n") == 1 and "no claim recorded at scale ci for any study" in err
    assert main(["report", "--scale", "ci", "--study", "abstraction"]) == 2
    assert "no claim recorded at scale ci for abstraction" in capsys.readouterr().err


# --- the cache command ------------------------------------------------------------------------


def test_cache_size_and_prune(tmp_path, monkeypatch, capsys):
    import interp_repro.core.cache as cache_mod

    cached("superposition/probe", {"n": 1}, lambda: {"x": np.arange(1000)})
    cached("abstraction/probe", {"n": 1}, lambda: {"x": np.arange(10)})
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "library_fingerprint", lambda study=None: "0.0.1+000000000000")
        cached("abstraction/probe", {"n": 2}, lambda: {"x": np.arange(10)})

    def sizes() -> dict[str, str]:
        assert main(["cache", "--size"]) == 0
        return {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()[3:]}

    assert sizes() == {"abstraction": "2", "superposition": "1", "total": "3"}
    assert main(["cache", "--prune"]) == 0
    assert "removed 1 outdated entries" in capsys.readouterr().out
    assert sizes() == {"abstraction": "1", "superposition": "1", "total": "2"}


# --- the probes of a careless or hostile user: exit 2, one line, no traceback, no work ---------------

GOOD_ENTRY = {"value": 1.0, "recorded_at": "2026-01-01T00:00:00", "lib": "x"}
BAD_RECORDS = {
    "a list at a scale": {"ci": [1, 2]},
    "a number at a scale": {"ci": 5},
    "a number for an entry": {"ci": {"superposition.five_two_dense_count": 3}},
    "an entry without a value": {"ci": {"superposition.five_two_dense_count": {"lib": "x"}}},
    "a text value": {"ci": {"superposition.five_two_dense_count": GOOD_ENTRY | {"value": "2"}}},
    "a list value": {"ci": {"superposition.five_two_dense_count": GOOD_ENTRY | {"value": [2]}}},
    "a numeric lib": {"ci": {"superposition.five_two_dense_count": GOOD_ENTRY | {"lib": 3}}},
}


def _records(tmp_path, content) -> dict:
    path = tmp_path / "bad-records.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return {"INTERP_REPRO_RECORD": path}


def _locked(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o500)
    return folder / "out"


NAN_RECORD = '{"ci": {"superposition.five_two_dense_count": {"value": NaN, "recorded_at": "t", "lib": "x"}}}'
PROBES = [
    *[pytest.param(["run", "superposition", "--scale", "ci"], lambda t, c=c: _records(t, c), "record file",
                   id=f"run with {name}") for name, c in BAD_RECORDS.items()],
    *[pytest.param(["report", "--scale", "ci"], lambda t, c=c: _records(t, c), "record file",
                   id=f"report with {name}") for name, c in BAD_RECORDS.items()],
    pytest.param(["report", "--json"], lambda t: _records(t, NAN_RECORD), "not valid JSON", id="NaN record"),
    pytest.param(["report"], lambda t: _records(t, b"\xff\xfe{\x00"), "not valid JSON", id="non-UTF-8"),
    pytest.param(["figure", "--all", "--out", "{file}"], None, "is a file, not a folder",
                 id="figure out file"),
    pytest.param(["figure", "--all", "--out", "{file}/sub"], None, "is not a writable folder",
                 id="figure out under a file"),
    pytest.param(["chapter", "abstraction/linear_theory", "--out", "{file}/x.ipynb"], None,
                 "is a file, not a folder", id="chapter out under a file"),
    pytest.param(["chapter", "abstraction/linear_theory", "--out", "{dir}"], None, "is a folder",
                 id="chapter out a folder"),
    pytest.param(["figure", "fig-nope", "--list"], None, "not both", id="figure name with --list"),
    pytest.param(["figure", "fig-nope", "--all"], None, "not both", id="figure name with --all"),
    pytest.param(["figure", "fig-nope"], None, "fig-nope", id="figure unknown name"),
    pytest.param(["run", "abstraction", "--dask", "127.0.0.1:99999"], None, "port must lie in 1-65535",
                 id="dask port flag"),
    pytest.param(["run", "abstraction"], lambda t: {"INTERP_REPRO_DASK": "tcp://h:0"}, "port must lie",
                 id="dask port variable"),
    pytest.param(["run", "abstraction"], lambda t: {"INTERP_REPRO_QUIET": "maybe"},
                 "$INTERP_REPRO_QUIET must be", id="quiet variable"),
    pytest.param(["list"], lambda t: {"INTERP_REPRO_CACHE": ""}, "$INTERP_REPRO_CACHE is set but empty",
                 id="empty cache variable"),
    pytest.param(["report"], lambda t: {"INTERP_REPRO_RECORD": " "}, "$INTERP_REPRO_RECORD is set but empty",
                 id="empty record variable"),
    pytest.param(["run", "abstraction"], lambda t: {"INTERP_REPRO_DEVICE": "gpu9"}, "INTERP_REPRO_DEVICE",
                 id="bad device for a command that trains"),
    pytest.param(["run", "nope"], None, "unknown study 'nope'", id="unknown study"),
    pytest.param(["report", "--scale", "tiny"], None, "unknown scale 'tiny'", id="unknown scale"),
    pytest.param(["cache"], None, "one of the arguments --size --prune is required", id="cache, no action"),
]


@pytest.mark.parametrize(("argv", "env", "message"), PROBES)
def test_every_probe_exits_2_with_one_line_and_no_traceback(argv, env, message, tmp_path, monkeypatch, capsys,
                                                             no_work):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "folder"
    folder.mkdir()
    argv = [a.format(file=_file(tmp_path / "f"), dir=folder) for a in argv]
    for name, value in (env(tmp_path) if env else {}).items():
        monkeypatch.setenv(name, str(value))
    monkeypatch.setenv("INTERP_REPRO_BOOK", str(ROOT / "book"))
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and "error: " in err and "Traceback" not in err, err
    assert message in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_figure_folder_is_one_line(tmp_path, monkeypatch, capsys, no_work):
    monkeypatch.setenv("INTERP_REPRO_BOOK", str(ROOT / "book"))
    assert main(["figure", "--all", "--out", str(_locked(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert "is not a writable folder" in err and err.count("\n") == 1


def test_a_bad_device_does_not_block_the_commands_that_use_none(monkeypatch, capsys):
    monkeypatch.setenv("INTERP_REPRO_DEVICE", "gpu9")
    assert main(["list"]) == 0
    assert main(["cache", "--size"]) == 0
    assert main(["report", "--scale", "ci"]) == 2  # nothing recorded
    assert "DEVICE" not in capsys.readouterr().err


@pytest.mark.parametrize(("value", "quiet"), [("false", False), ("0", False), ("No", False),
                                              ("true", True), ("1", True), ("yes", True)])
def test_quiet_variable_means_what_it_says(value, quiet, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_QUIET", value)
    assert progress(range(3), "x").disable is quiet


def test_list_shows_the_default_scale_the_environment_sets(monkeypatch, capsys):
    monkeypatch.setenv("INTERP_REPRO_SCALE", "ci")
    assert main(["list"]) == 0
    assert "(default ci)" in capsys.readouterr().out


def test_cache_size_counts_a_dangling_entry_and_creates_no_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "absent"))
    assert main(["cache", "--size"]) == 0
    assert not (tmp_path / "absent").exists()
    study = tmp_path / "cache" / "superposition"
    study.mkdir(parents=True)
    (study / "gone.npz").symlink_to(tmp_path / "nowhere.npz")
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    assert main(["cache", "--size"]) == 0
    assert "superposition" in capsys.readouterr().out


def test_help_states_the_exit_status_rule(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "exit status: 0 ok; 1 a claim failed" in capsys.readouterr().out
