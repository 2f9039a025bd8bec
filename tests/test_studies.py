"""Every study's jobs in one list, for one pool over a whole build."""

import importlib

import pytest

from interp_repro import STUDIES
from interp_repro.cli import build_parser
from interp_repro.studies import LONGEST_FIRST, jobs


def test_jobs_are_every_studys_jobs_longest_running_studies_first():
    expected = [job for study in LONGEST_FIRST
                for job in importlib.import_module(f"interp_repro.{study}.experiments").jobs("ci")]
    assert sorted(LONGEST_FIRST) == sorted(STUDIES)
    assert jobs("ci") == expected
    assert jobs("ci", ("abstraction",)) == importlib.import_module(
        "interp_repro.abstraction.experiments").jobs("ci")


def test_an_unknown_study_is_named():
    with pytest.raises(ValueError, match="unknown studies.*'clocks'"):
        jobs("ci", ("clocks",))


def test_run_takes_all_or_a_study():
    parser = build_parser()
    assert parser.parse_args(["run", "all"]).study == "all"
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "everything"])
