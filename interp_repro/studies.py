"""Every study's cached computations, study by study: what a whole book build computes first.

Each study's ``experiments.jobs(scale)`` lists the independent trainings and analyses its chapters
read. Run in a pool before the pages execute, they keep every core busy, where a chapter that
trained in its own kernel would leave the others idle; the pages then only read the cache. Each
study's time is measured on its own, so a build records how long every study took.
"""

import importlib
import time
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
    one study after another, each in a pool of ``workers`` processes or on Dask
    (``core.parallel.run_jobs``). Returns per study its wall seconds, its number of jobs and how
    many of them computed something (0: everything was cached)."""
    out = {}
    for study in _check(studies):
        start, todo = time.perf_counter(), jobs(scale, study)
        computed = run_jobs(todo, desc=f"{study} at scale {scale}", workers=workers, dask=dask)
        out[study] = {"seconds": round(time.perf_counter() - start, 1), "jobs": len(todo),
                      "computed": computed}
    return out
