"""The table of a study's experiments (``core.table``): its jobs and its claims come from the same rows,
in the same order."""

import pytest

from interp_repro.core import table
from interp_repro.core.parallel import Job
from interp_repro.core.table import Experiment, declares, no_jobs, table_claims, table_jobs
from interp_repro.studies import STUDIES, experiments

RAN: list[tuple[str, int]] = []


def _run(cfg: int) -> dict[str, int]:
    """A one-job experiment's run (module level, as a job's function must be)."""
    RAN.append(("run", cfg))
    return {"x": cfg}


def _many(cfg: int) -> int:
    """The run of an experiment with jobs of its own."""
    RAN.append(("many", cfg))
    return cfg


def _many_jobs(cfg: int) -> list[Job]:
    return [Job(_run, (10 * cfg,)), Job(_run, (10 * cfg + 1,), label="second")]


TABLE = {
    "one": Experiment(lambda scale: 1, _run, (declares("one")(lambda res: {"one": res["x"]}),)),
    "unclaimed": Experiment(lambda scale: 2, _run),
    "many": Experiment(lambda scale: 3, _many, (declares("many")(lambda res: {"many": res}),
                                                 declares("many_twice")(lambda res: {"many_twice": 2 * res})),
                       jobs=_many_jobs),
    "closed_form": Experiment(lambda scale: 4, _many,
                              (declares("closed_form")(lambda res: {"closed_form": res}),), jobs=no_jobs),
}


def test_the_jobs_are_each_experiments_in_table_order_labelled_with_its_name():
    assert table_jobs(TABLE, "ci") == [Job(_run, (1,), label="one"), Job(_run, (2,), label="unclaimed"),
                                       Job(_run, (30,), label="many"), Job(_run, (31,), label="many: second")]


def test_the_one_job_experiments_run_side_by_side_first_then_the_claims_in_table_order(monkeypatch):
    pooled = []
    monkeypatch.setattr(table, "run_jobs", lambda jobs, desc: pooled.append((jobs, desc)))
    RAN.clear()
    claims = table_claims(TABLE, "ci", desc="test experiments")
    assert pooled == [([Job(_run, (1,)), Job(_run, (2,))], "test experiments")]
    assert claims == {"one": 1, "many": 3, "many_twice": 6, "closed_form": 4}
    assert list(claims) == ["one", "many", "many_twice", "closed_form"]
    assert RAN == [("run", 1), ("many", 3), ("many", 4)]  # an experiment without claims is not read


@pytest.mark.parametrize("study", STUDIES)
def test_every_study_derives_its_jobs_from_its_table(study):
    module = experiments(study)
    assert module.EXPERIMENTS and all(isinstance(e, Experiment) for e in module.EXPERIMENTS.values())
    assert module.jobs("ci") == table_jobs(module.EXPERIMENTS, "ci")
