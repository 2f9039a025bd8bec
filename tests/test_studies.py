"""Every study's jobs, study by study, for a whole build."""

import importlib

import pytest

from interp_repro import STUDIES
from interp_repro.cli import build_parser
from interp_repro.studies import LONGEST_FIRST, fill_cache, jobs


def test_jobs_are_the_studys_own():
    assert sorted(LONGEST_FIRST) == sorted(STUDIES)
    for study in STUDIES:
        assert jobs("ci", study) == importlib.import_module(f"interp_repro.{study}.experiments").jobs("ci")


def test_an_unknown_study_is_named():
    with pytest.raises(ValueError, match="unknown studies.*'clocks'"):
        fill_cache("ci", ("clocks",))


def test_fill_cache_reports_each_study_and_computes_nothing_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    first_job = jobs("ci", "abstraction")[:1]  # the linear network: seconds
    monkeypatch.setattr("interp_repro.abstraction.experiments.jobs", lambda scale: first_job)
    first = fill_cache("ci", ("abstraction",), workers=1)
    assert list(first) == ["abstraction"] and first["abstraction"]["jobs"] == 1
    assert first["abstraction"]["computed"] == 1 and first["abstraction"]["seconds"] > 0
    assert first["abstraction"]["by_function"] == {"run_linear": first["abstraction"]["seconds"]}
    again = fill_cache("ci", ("abstraction",), workers=1)["abstraction"]
    assert again == {"seconds": 0, "jobs": 1, "computed": 0, "by_function": {}}


def test_run_takes_all_or_a_study():
    parser = build_parser()
    assert parser.parse_args(["run", "all"]).study == "all"
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "everything"])
