"""Independent cached jobs side by side: in this process, in a local process pool, or on Dask.

A :class:`Job` is a top-level function and its arguments whose results end in the results cache
(``core.cached``). :func:`run_jobs` skips the jobs whose entries are all cached, runs the rest and
leaves their entries in this machine's cache; the caller then reads them as if it had computed them.
Where they run comes from the arguments or the environment, so a chapter, ``make book`` and the
command line share one switch:

- ``$INTERP_REPRO_DASK`` (``interp-repro run --dask ADDRESS``): a Dask scheduler's address; workers may
  sit on other machines, so each job's new entries travel back as bytes and are stored here;
- ``$INTERP_REPRO_WORKERS`` (``--workers N``): a local pool of N processes (default: one per core).

Pool and Dask workers run each job quietly on one torch thread, which keeps two jobs from fighting
over a core. Results do not depend on where a job ran: every job seeds its own random draws (tested
against a local run, and on a Dask ``LocalCluster``).
"""

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context

from interp_repro.core.cache import NotCached, entry_bytes, install, journal, library_fingerprint, probing
from interp_repro.core.device import torch_threads
from interp_repro.core.progress import QUIET_ENV, progress
from interp_repro.core.validate import check_positive_int

WORKERS_ENV = "INTERP_REPRO_WORKERS"
DASK_ENV = "INTERP_REPRO_DASK"


@dataclass(frozen=True)
class Job:
    """``fn(*args)``, where ``fn`` is a module-level function (so it pickles) that fills the cache."""

    fn: Callable[..., object]
    args: tuple = ()

    def run(self) -> None:
        self.fn(*self.args)


def pending(jobs: Sequence[Job]) -> list[Job]:
    """The jobs that would compute something: each is run with the cache in probing mode, which
    stops it at its first missing entry."""
    todo = []
    for job in jobs:
        try:
            with probing():
                job.run()
        except NotCached:
            todo.append(job)
    return todo


def default_workers() -> int:
    """``$INTERP_REPRO_WORKERS`` if set, else the number of CPU cores."""
    value = os.environ.get(WORKERS_ENV)
    if value is None:
        return os.cpu_count() or 1
    try:
        return check_positive_int(WORKERS_ENV, int(value))
    except ValueError:
        raise ValueError(f"${WORKERS_ENV} must be a positive integer, got {value!r}") from None


def _work(job: Job, send: bool) -> tuple[str, dict[str, bytes]]:
    """Worker side: run ``job`` quietly on one torch thread; return this worker's library fingerprint
    and, if ``send``, the entries it wrote."""
    os.environ[QUIET_ENV] = "1"
    with torch_threads(1), journal() as written:
        job.run()
    return library_fingerprint(), dict(entry_bytes(path) for path in written) if send else {}


def _receive(result: tuple[str, dict[str, bytes]]) -> None:
    fingerprint, entries = result
    if fingerprint != library_fingerprint():
        raise RuntimeError(f"a worker runs other interp_repro code (fingerprint {fingerprint}, here "
                           f"{library_fingerprint()}): install this same checkout on every worker")
    for relative, data in entries.items():
        install(relative, data)


def _on_dask(jobs: list[Job], address: str, desc: str) -> None:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise RuntimeError("running on Dask needs dask.distributed: "
                           "pip install 'interp-repro[dask]'") from None
    try:
        client = Client(address, timeout="20s")
    except OSError as err:
        raise RuntimeError(f"cannot reach a Dask scheduler at {address!r}: {err}") from None
    with client:
        futures = client.map(_work, jobs, send=True, pure=False)
        for future in progress(dask_completed(futures), desc=desc, total=len(futures)):
            _receive(future.result())


def run_jobs(jobs: Sequence[Job], desc: str, workers: int | None = None, dask: str | None = None) -> None:
    """Fill the cache for every job that needs it: on the Dask scheduler at ``dask`` (or
    ``$INTERP_REPRO_DASK``), else in a pool of ``workers`` processes (or ``$INTERP_REPRO_WORKERS``,
    default one per core), or in this process when one worker or one job is left."""
    todo = pending(jobs)
    if not todo:
        return
    address = dask or os.environ.get(DASK_ENV)
    if address:
        _on_dask(todo, address, desc)
        return
    workers = check_positive_int("workers", workers) if workers is not None else default_workers()
    if workers == 1 or len(todo) == 1:
        for job in todo:
            job.run()
        return
    with ProcessPoolExecutor(min(workers, len(todo)), mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(_work, job, False) for job in todo]
        for future in progress(as_completed(futures), desc=desc, total=len(futures)):
            _receive(future.result())
