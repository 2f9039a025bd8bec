"""Independent cached jobs side by side: in this process, in a local process pool, or on Dask.

A :class:`Job` is a top-level function and its arguments whose results end in the results cache
(``core.cached``). :func:`run_jobs` skips the jobs whose entries are all cached, runs the rest and
leaves their entries in this machine's cache; the caller then reads them as if it had computed them.
A job that completed leaves a marker entry of its own, so the next run skips it without replaying
it; only a job without a marker is replayed with the cache in probing mode to find out.
Where they run comes from the arguments or the environment, so a chapter, ``make book`` and the
command line share one switch:

- ``$INTERP_REPRO_DASK`` (``interp-repro run --dask ADDRESS``): a Dask scheduler's address; workers may
  sit on other machines, so each job's new entries travel back as bytes and are stored here. Before
  any job is sent, every worker must show our library fingerprint and torch, NumPy and SciPy versions;
- ``$INTERP_REPRO_WORKERS`` (``--workers N``): a local pool of N processes (default: one per core).
  Ctrl-C stops the pool at once: queued jobs are cancelled and running ones killed (each entry is
  written whole or not at all).

Pool and Dask workers run each job quietly on one torch thread, which keeps two jobs from fighting
over a core. Results do not depend on where a job ran: every job seeds its own random draws (tested
against a local run, and on a Dask ``LocalCluster``).
"""

import asyncio
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import active_children, get_context

import numpy as np
from tqdm import tqdm

from interp_repro.core.cache import (
    NotCached,
    cached,
    dependency_versions,
    entry_bytes,
    install,
    is_cached,
    journal,
    library_fingerprint,
    probing,
)
from interp_repro.core.device import cpu_threads
from interp_repro.core.errors import ConfigError
from interp_repro.core.flops import tally
from interp_repro.core.progress import QUIET_ENV, progress
from interp_repro.core.validate import check_positive_int

WORKERS_ENV = "INTERP_REPRO_WORKERS"
DASK_ENV = "INTERP_REPRO_DASK"
DASK_ADDRESS = re.compile(r"((tcp|tls|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[\w.-]+):\d{1,5}|inproc://\S+")
CONNECT_TIMEOUT = 10
"""Seconds to reach a Dask scheduler before giving up."""


@dataclass(frozen=True)
class Job:
    """``fn(*args)``, where ``fn`` is a module-level function (so it pickles) that fills the cache.
    ``first``: a job far longer than the others, which ``studies.fill_cache`` starts before them (last
    in the queue it would run alone at the end, one worker idle); its cache marker ignores it."""

    fn: Callable[..., object]
    args: tuple = ()
    first: bool = False
    label: str = ""
    """What the per-job table calls it (``core.table.table_jobs`` puts the experiment's name first)."""

    def run(self) -> None:
        self.fn(*self.args)

    @property
    def name(self) -> str:
        """``label``, or the function's name where there is none."""
        return self.label or self.fn.__name__.lstrip("_")


@dataclass(frozen=True)
class Spent:
    """What one job cost where it ran: wall and CPU seconds, the FLOPs of its metered training steps
    (``core.flops``), the CPU seconds those steps took, and what bounds their speed (all empty for a
    job that trains nothing)."""

    wall: float
    cpu: float
    flops: float = 0.0
    training: float = 0.0
    bounds: tuple[str, ...] = ()


def _marker(job: Job) -> tuple[str, dict]:
    """The cache namespace and key of ``job``'s completion marker: under its study's name (so it
    lives as long as that study's code), keyed by the function and its arguments."""
    module = job.fn.__module__.split(".")
    study = module[1] if module[0] == "interp_repro" and len(module) > 2 else None
    return (f"{study}/jobs" if study else "jobs",
            {"job": f"{job.fn.__module__}.{job.fn.__qualname__}", "args": job.args})


def _mark_done(job: Job) -> None:
    cached(*_marker(job), lambda: {"done": np.ones(1, dtype=bool)})


def pending(jobs: Sequence[Job]) -> list[Job]:
    """The jobs that would compute something. A job with a completion marker has nothing to do; one
    without is run with the cache in probing mode, which stops it at its first missing entry (and
    marks it done when nothing is missing)."""
    todo = []
    for job in jobs:
        if is_cached(*_marker(job)):
            continue
        try:
            with probing():
                job.run()
        except NotCached:
            todo.append(job)
        else:
            _mark_done(job)
    return todo


def default_workers() -> int:
    """``$INTERP_REPRO_WORKERS`` if set, else the number of CPU cores."""
    value = os.environ.get(WORKERS_ENV)
    if value is None:
        return os.cpu_count() or 1
    try:
        return check_positive_int(WORKERS_ENV, int(value))
    except ValueError:
        raise ConfigError(f"${WORKERS_ENV} must be a positive integer, got {value!r}") from None


def check_dask_address(address: str) -> str:
    """Return ``address`` if it has the form of a Dask scheduler's address, else :class:`ConfigError`."""
    if not DASK_ADDRESS.fullmatch(address):
        raise ConfigError(f"{address!r} is not a Dask scheduler address: expected [SCHEME://]HOST:PORT "
                          "with scheme tcp, tls or ucx, e.g. tcp://10.0.0.5:8786")
    if not address.startswith("inproc://") and not 0 < int(address.rsplit(":", 1)[1]) < 65536:
        raise ConfigError(f"{address!r} is not a Dask scheduler address: its port must lie in 1-65535")
    return address


def dask_address() -> str | None:
    """The Dask scheduler in ``$INTERP_REPRO_DASK``; None when it is unset. Set but empty, or not an
    address, it is a :class:`ConfigError`, not a silent local pool."""
    address = os.environ.get(DASK_ENV)
    if address is not None and not address.strip():
        raise ConfigError(f"${DASK_ENV} is set but empty: unset it for a local pool, or give a scheduler "
                          "address")
    return None if address is None else check_dask_address(address)


def _fingerprint() -> str:
    """What every worker must share with us: the library fingerprint and the dependency versions."""
    return f"{library_fingerprint()} ({dependency_versions()})"


def _timed(job: Job) -> Spent:
    """Run ``job``; what it cost (its CPU seconds are this process's, every thread's)."""
    wall, cpu = time.perf_counter(), time.process_time()
    with tally() as counted:
        job.run()
    return Spent(time.perf_counter() - wall, time.process_time() - cpu, counted.flops, counted.seconds,
                 tuple(sorted(counted.bounds)))


def _work(job: Job, send: bool) -> tuple[str, dict[str, bytes], Spent]:
    """Worker side: run ``job`` quietly on one torch thread; return this worker's fingerprint, the
    entries it wrote if ``send``, and what the job cost."""
    os.environ[QUIET_ENV] = "1"
    with cpu_threads(1), journal() as written:
        spent = _timed(job)
    return _fingerprint(), dict(entry_bytes(path) for path in written) if send else {}, spent


def _refuse(worker: str, fingerprint: str) -> ConfigError:
    return ConfigError(f"{worker} runs other code or libraries ({fingerprint}; here {_fingerprint()}): "
                       "install this same checkout, torch, numpy and scipy on every worker")


def _receive(result: tuple[str, dict[str, bytes], Spent]) -> Spent:
    fingerprint, entries, spent = result
    if fingerprint != _fingerprint():
        raise _refuse("a worker", fingerprint)
    for relative, data in entries.items():
        install(relative, data)
    return spent


def _scheduler_identity(address: str) -> dict:
    """The scheduler's answer to Dask's ``identity`` call, or an error within ``CONNECT_TIMEOUT`` s.

    Asked on an event loop in a thread of its own, since a notebook kernel already runs one."""
    from distributed.core import rpc

    async def ask() -> dict:
        async with rpc(address, timeout=CONNECT_TIMEOUT) as scheduler:
            return await scheduler.identity()

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, asyncio.wait_for(ask(), CONNECT_TIMEOUT)).result()


def _connect(address: str):
    """A ``distributed.Client`` of the scheduler at ``address``, or a one-line :class:`ConfigError`
    within ``CONNECT_TIMEOUT`` seconds: a malformed address, nothing there, or another service."""
    check_dask_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError("running on Dask needs dask.distributed: "
                          "pip install 'interp-repro[dask]'") from None
    try:
        identity = _scheduler_identity(address)
    except TimeoutError:
        reason = f"no answer within {CONNECT_TIMEOUT} s"
    except OSError as err:
        reason = str(err)
    except Exception:  # e.g. a web server, whose reply reads as a Dask message of exabytes
        reason = "the service there does not speak Dask's protocol"
    else:
        if isinstance(identity, dict) and identity.get("type") == "Scheduler":
            return Client(address, timeout=f"{CONNECT_TIMEOUT}s")
        reason = "the service there is not a Dask scheduler"
    raise ConfigError(f"cannot reach a Dask scheduler at {address!r}: {reason}")


def _on_dask(jobs: list[Job], address: str, desc: str) -> list[Spent]:
    from distributed import as_completed as dask_completed

    with _connect(address) as client:
        for worker, fingerprint in client.run(_fingerprint).items():
            if fingerprint != _fingerprint():
                raise _refuse(f"Dask worker {worker}", fingerprint)
        futures = client.map(_work, jobs, send=True, pure=False)
        spent = {future.key: _receive(future.result())
                 for future in progress(dask_completed(futures), desc=desc, total=len(futures))}
        return [spent[future.key] for future in futures]


def _init_worker() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them (no traceback from each worker), and
    their progress bars take turns on a thread lock: tqdm's default is a multiprocessing lock, a named
    semaphore that a worker killed on Ctrl-C would leave behind, which the resource tracker then
    reports as leaked at shutdown."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tqdm.set_lock(threading.RLock())


WORKER_ENV: dict[str, str | None] = {
    **{name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(1 << 30),
}
"""Set (or, for None, unset) for pool workers before they start. One thread: their OpenMP and BLAS
pools never start a second thread that would spin, waiting for work, against the other workers.
glibc's heap: a training step allocates and frees the same large tensors every step. Left to glibc's
defaults, blocks of a few MB are mapped from the OS for each allocation and handed back when freed,
and every page is faulted in again on the next step (a Schur-RNN copy step on the full replay: 8,000
to 11,000 page faults, an eighth to a sixth of its CPU time in the kernel; ``benchmarks/schur_rnn.py``),
with no effect on the numbers (trained weights compared bit for bit). Blocks up to 32
MiB (glibc's largest threshold) now come from the heap, which keeps up to 1 GiB of freed memory for the
next step. Importing dask.distributed sets ``MALLOC_TRIM_THRESHOLD_=65536`` in this process, which a
worker must not inherit (measured: 40% of a training's CPU time in the kernel)."""


@contextmanager
def _environment(values: dict[str, str | None]) -> Iterator[None]:
    before = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _on_pool(jobs: list[Job], workers: int, desc: str) -> list[Spent]:
    """Run ``jobs`` in a pool of ``workers`` processes, in their order; what each cost. On an error,
    queued jobs are cancelled and running ones finish; on Ctrl-C, running ones are killed too."""
    pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_init_worker)
    try:
        with _environment(WORKER_ENV):  # workers start at submit and inherit it
            futures = [pool.submit(_work, job, False) for job in jobs]
        spent = {future: _receive(future.result())
                 for future in progress(as_completed(futures), desc=desc, total=len(futures))}
    except KeyboardInterrupt:
        # the pool's processes have no public handle before Python 3.14; every child process that
        # multiprocessing started here is one of them (a worker being spawned is not yet in the pool's)
        processes = set((pool._processes or {}).values()) | set(active_children())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.kill()  # a job's entry is written whole or not at all, so nothing is left half-done
        for process in processes:
            process.join()
        raise
    except BaseException:
        pool.shutdown(cancel_futures=True)
        raise
    pool.shutdown()
    return [spent[future] for future in futures]


def run_jobs(jobs: Sequence[Job], desc: str, workers: int | None = None,
             dask: str | None = None) -> list[Spent | None]:
    """Fill the cache for every job that needs it: on the Dask scheduler at ``dask`` (or
    ``$INTERP_REPRO_DASK`` unless ``workers`` is given), else in a pool of ``workers`` processes (or
    ``$INTERP_REPRO_WORKERS``, default one per core), or in this process when one worker or one job is
    left. Jobs start in the order given, so put the longest first. Returns what each job cost
    (:class:`Spent`), None for a job that found everything cached."""
    todo = pending(jobs)
    if not todo:
        return [None] * len(jobs)
    address = dask or (dask_address() if workers is None else None)
    if address:
        spent = _on_dask(todo, address, desc)
    else:
        workers = check_positive_int("workers", workers) if workers is not None else default_workers()
        if workers == 1 or len(todo) == 1:
            spent = [_timed(job) for job in todo]
        else:
            spent = _on_pool(todo, min(workers, len(todo)), desc)
    for job in todo:
        _mark_done(job)
    computed = dict(zip(map(id, todo), spent, strict=True))
    return [computed.get(id(job)) for job in jobs]
