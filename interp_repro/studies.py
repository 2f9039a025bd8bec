"""Every study's cached computations in one pool: what a whole book build computes first.

Each study's ``experiments.jobs(scale)`` lists the independent trainings and analyses its chapters
read. Run in one pool before the pages execute, they keep every core busy until the last job, where
a chapter that trained in its own kernel, or a pool per study, would leave cores idle; the pages
then only read the cache. Each study's cost is the sum of its jobs' seconds.
"""

import importlib
from typing import Any

from interp_repro import STUDIES
from interp_repro.core.parallel import Job, run_jobs

LONGEST_FIRST = ("modular_addition", "schur_rnn", "superposition", "abstraction")
"""The studies by the length of their jobs, longest first."""


def _check(studies: tuple[str, ...]) -> tuple[str, ...]:
    unknown = sorted(set(studies) - set(STUDIES))
    if unknown:
        raise ValueError(f"unknown studies {unknown}: choose from {STUDIES}")
    return tuple(sorted(studies, key=LONGEST_FIRST.index))


def jobs(scale: str, study: str) -> list[Job]:
    """The jobs of ``study`` at ``scale``."""
    (study,) = _check((study,))
    return importlib.import_module(f"interp_repro.{study}.experiments").jobs(scale)


def fill_cache(scale: str, studies: tuple[str, ...] = STUDIES, workers: int | None = None,
               dask: str | None = None) -> dict[str, dict[str, Any]]:
    """Train and analyse (or find cached) everything the chapters of ``studies`` read at ``scale``,
    in one pool of ``workers`` processes or on Dask (``core.parallel.run_jobs``), the longest
    study's jobs first. Returns per study its number of jobs, how many of them computed something
    (0: everything was cached), the seconds they took, summed over its jobs (on one worker each), and
    ``by_function``: those seconds per job function (the experiment), largest first."""
    chosen = _check(studies)
    todo = {study: jobs(scale, study) for study in chosen}
    seconds = iter(run_jobs([job for study in chosen for job in todo[study]],
                            desc=f"{', '.join(chosen)} at scale {scale}", workers=workers, dask=dask))
    out = {}
    for study in chosen:
        took = [(job, s) for job in todo[study] if (s := next(seconds)) is not None]
        by_function: dict[str, float] = {}
        for job, s in took:
            name = job.fn.__name__.lstrip("_")
            by_function[name] = by_function.get(name, 0.0) + s
        out[study] = {"seconds": round(sum(s for _, s in took), 1), "jobs": len(todo[study]),
                      "computed": len(took),
                      "by_function": {name: round(s, 1) for name, s in
                                      sorted(by_function.items(), key=lambda item: -item[1])}}
    return out
