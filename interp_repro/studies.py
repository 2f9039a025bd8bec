"""Every study's cached computations at once: one pool for a whole book build.

Each study's ``experiments.jobs(scale)`` lists the independent trainings and analyses its chapters
read. Run side by side in one pool, they keep every core busy through the whole build, where each
chapter's own pool would leave cores idle between chapters and while a chapter trains in its kernel.
"""

import importlib

from interp_repro import STUDIES
from interp_repro.core.parallel import Job, run_jobs

LONGEST_FIRST = ("modular_addition", "schur_rnn", "superposition", "abstraction")
"""The studies by the length of their longest jobs: a pool that starts the long jobs first ends
with short ones on every worker, not one long job on one."""


def jobs(scale: str, studies: tuple[str, ...] = STUDIES) -> list[Job]:
    """The jobs of ``studies`` at ``scale``, longest-running studies first."""
    unknown = sorted(set(studies) - set(STUDIES))
    if unknown:
        raise ValueError(f"unknown studies {unknown}: choose from {STUDIES}")
    order = sorted(studies, key=LONGEST_FIRST.index)
    return [job for study in order
            for job in importlib.import_module(f"interp_repro.{study}.experiments").jobs(scale)]


def fill_cache(scale: str, studies: tuple[str, ...] = STUDIES, workers: int | None = None,
               dask: str | None = None) -> None:
    """Train and analyse (or find cached) everything the chapters of ``studies`` read at ``scale``,
    in one pool of ``workers`` processes or on Dask (``core.parallel.run_jobs``)."""
    run_jobs(jobs(scale, studies), desc=f"every study at scale {scale}", workers=workers, dask=dask)
