"""Every study keeps its experiments in one table, from which its jobs and its claims are derived.

A study's ``experiments`` module declares ``EXPERIMENTS``, experiment name -> :class:`Experiment`:
its config at a scale, its cached run function, its claims functions and, where it computes more than
one cached thing, its jobs. The study's contract (``interp_repro.studies.Experiments``), ``jobs(scale)``
and ``run_all(scale)``, is :func:`table_jobs` and :func:`table_claims` of that table, so the jobs a
build runs and the claims a run reads come from the same rows, in the same order.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from interp_repro.core.parallel import Job, run_jobs

Claims = Callable[[Any], dict[str, Any]]
"""A claims function: results -> claim id -> measured value."""


def declares(*ids: str) -> Callable[[Claims], Claims]:
    """Mark a claims function with the claim ids it returns (some only where their data exist, e.g.
    a test that needs more networks than a scale trains), so that the registry can be checked against
    them before any work (``studies.check_registry``) and :func:`table_claims` refuses an id the
    function did not declare."""
    def mark(read: Claims) -> Claims:
        read.claim_ids = frozenset(ids)
        return read
    return mark


def declared_ids(table: "Table") -> set[str]:
    """The claim ids the claims functions of ``table`` declare (:func:`declares`); ``ValueError`` for a
    claims function that declares none."""
    reads = [read for experiment in table.values() for read in experiment.claims]
    if undeclared := [read.__qualname__ for read in reads if not hasattr(read, "claim_ids")]:
        raise ValueError(f"claims functions {undeclared} declare no claim ids (core.table.declares)")
    return {cid for read in reads for cid in read.claim_ids}


def no_jobs(config: Any) -> list[Job]:
    """The jobs of an experiment that caches nothing (a closed form, computed when asked): none."""
    return []


@dataclass(frozen=True)
class Experiment:
    """One experiment of a study: ``config(scale)`` is its config at a scale, ``run(config)`` its
    results (cached), ``claims`` the functions that read its headline numbers from them (none: only
    the chapters read them). ``jobs(config)`` lists the independent cached computations that fill its
    cache; None means the one job ``run(config)``. An experiment with a jobs function computes many
    cached things, and its run function hands them to ``core.parallel.run_jobs`` itself."""

    config: Callable[[str], Any]
    run: Callable[[Any], Any]
    claims: tuple[Claims, ...] = ()
    jobs: Callable[[Any], list[Job]] | None = None

    def jobs_for(self, config: Any) -> list[Job]:
        """The jobs that fill this experiment's cache for ``config``."""
        return [Job(self.run, (config,))] if self.jobs is None else self.jobs(config)


Table = Mapping[str, Experiment]
"""A study's experiments by name, in the order their jobs start and their claims are read."""


def table_jobs(table: Table, scale: str) -> list[Job]:
    """Every job of the experiments of ``table`` at ``scale``, experiment by experiment, each labelled
    with its experiment's name (and its own label, if it has one)."""
    return [replace(job, label=f"{name}: {job.label}" if job.label else name)
            for name, experiment in table.items() for job in experiment.jobs_for(experiment.config(scale))]


def table_claims(table: Table, scale: str, desc: str) -> dict[str, Any]:
    """Every claim of the experiments of ``table`` at ``scale``, experiment by experiment (cached).

    The experiments that are one job each and not cached yet first run side by side in one pool
    (``core.parallel.run_jobs``, its progress labelled ``desc``); the others run their jobs from their
    run functions."""
    configs = {name: experiment.config(scale) for name, experiment in table.items()}
    single = [Job(experiment.run, (configs[name],)) for name, experiment in table.items()
              if experiment.jobs is None]
    if single:
        run_jobs(single, desc=desc)
    claims: dict[str, Any] = {}
    for name, experiment in table.items():
        if experiment.claims:
            results = experiment.run(configs[name])
            for read in experiment.claims:
                values = read(results)
                if extra := sorted(set(values) - read.claim_ids):
                    raise ValueError(f"{read.__qualname__} returns claim ids it does not declare: {extra}")
                claims |= values
    return claims
