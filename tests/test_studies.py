"""The registry of studies, and every study's jobs, study by study, for a whole build."""

import subprocess
import sys

import pytest

import interp_repro
from interp_repro import STUDIES
from interp_repro.cli import build_parser
from interp_repro.core.cache import PACKAGE, study_sources
from interp_repro.core.parallel import Spent
from interp_repro.studies import LONGEST_FIRST, REGISTRY, experiments, fill_cache, jobs


def test_the_registry_names_each_study_once_in_book_order():
    assert STUDIES == interp_repro.STUDIES
    assert STUDIES == ("superposition", "modular_addition", "abstraction", "schur_rnn")
    assert [study.name for study in REGISTRY] == list(STUDIES)
    assert sorted(study.cost_rank for study in REGISTRY) == list(range(1, len(REGISTRY) + 1))
    assert LONGEST_FIRST == ("modular_addition", "schur_rnn", "superposition", "abstraction")
    for study in REGISTRY:
        assert study.experiments.__name__ == f"interp_repro.{study.name}.experiments"
        assert study.experiments is sys.modules[study.experiments.__name__]
        assert callable(study.experiments.jobs) and callable(study.experiments.run_all)
    with pytest.raises(AttributeError, match="STUDY"):
        interp_repro.STUDY  # noqa: B018


def test_reading_the_names_loads_no_study():
    code = ("import sys; from interp_repro import STUDIES; from interp_repro.studies import LONGEST_FIRST; "
            "assert len(STUDIES) == len(LONGEST_FIRST) == 4; "
            "assert not [m for m in sys.modules if m.endswith('.experiments') or m == 'torch'], sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PACKAGE.parent)


def test_the_studies_stand_side_by_side():
    """Every study's code imports only ``core`` and itself: no study reaches a top-level module (or
    another study) that the others do not."""
    for study in STUDIES:
        reached = {path.relative_to(PACKAGE).parts[0] for path in study_sources(study)}
        assert reached == {"core", study}, study


def test_jobs_are_the_studys_own():
    for study in STUDIES:
        assert jobs("ci", study) == experiments(study).jobs("ci")
        assert jobs("ci", study) == sys.modules[f"interp_repro.{study}.experiments"].jobs("ci")
    with pytest.raises(ValueError, match="unknown studies.*'clocks'"):
        experiments("clocks")


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
    [row] = first["abstraction"]["by_job"]
    assert row["job"] == "linear" and row["wall_s"] == first["abstraction"]["seconds"] and row["cpu_s"] > 0
    assert row["gflop"] > 0 and row["bounds"]  # its training steps are metered (core.flops)
    again = fill_cache("ci", ("abstraction",), workers=1)["abstraction"]
    assert again == {"seconds": 0, "jobs": 1, "computed": 0, "by_job": []}


def test_fill_cache_starts_the_jobs_marked_first_and_reports_each_in_its_study(monkeypatch):
    """The geometry sweeps, among the book's longest jobs, start before every other; the report still
    puts each job's seconds under its own study."""
    started = []

    def run_jobs(queue, desc, workers, dask):
        started.extend(queue)
        return [Spent(float(i), float(i)) for i in range(len(queue))]

    monkeypatch.setattr("interp_repro.core.parallel.run_jobs", run_jobs)
    report = fill_cache("book")
    assert [job.name for job in started[:3]] == [f"geometry: sweep {i}" for i in (1, 2, 3)]
    assert all(job.first for job in started[:3]) and sum(job.first for job in started) == 3
    assert started[3:] == [job for study in LONGEST_FIRST for job in jobs("book", study) if not job.first]
    seconds = {job: float(i) for i, job in enumerate(started)}  # what the stub gave each job
    for study, row in report.items():
        assert row["seconds"] == round(sum(seconds[job] for job in jobs("book", study)), 1)
    assert report["superposition"]["by_job"][-1] == {"job": "geometry: sweep 1", "cpu_s": 0.0, "wall_s": 0.0,
                                                     "gflop": 0.0, "training_s": 0.0, "bounds": []}
    costs = [row["cpu_s"] for row in report["modular_addition"]["by_job"]]
    assert costs == sorted(costs, reverse=True)


def test_run_takes_all_or_a_study():
    parser = build_parser()
    assert parser.parse_args(["run", "all"]).study == "all"
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "everything"])
