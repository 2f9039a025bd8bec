"""Run the fast unit tests first, then the trained checks of the CLI and the launched notebook, then
the book built at ``ci`` scale and its checks, then the robustness check on shifted seeds. Every core
stays busy: as soon as the tests are collected, one pool of two workers starts filling the session's
cache with every study's ``ci`` jobs beside them (``tests/fill.py``; the ``filled`` fixture waits for
it); once those tests are done, a rerun of some of those jobs in one process starts beside the pool's
last jobs (``rerun``, for the determinism test); and as the build starts, a pool of two trains the
claims' jobs on shifted seeds beside it and then beside the page checks, which use one core
(``shifted``). With both cores busy from the first test to the last, every process of the session
runs on one thread (``ONE_THREAD``). The build executes every chapter and exercise page once, and the
chapter checks (test_notebooks.py), the page checks (test_book.py) and the browser pass
(test_browser.py) all read it."""

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from chapters import ROOT
from threadpoolctl import threadpool_limits

from interp_repro.core import cache_dir
from interp_repro.core.parallel import WORKER_ENV
from interp_repro.reproduction import resolve_env_paths

resolve_env_paths()  # a relative cache or record path means the same folder to every chapter's kernel

ONE_THREAD = {"NUMBA_NUM_THREADS": "1"} | {k: v for k, v in WORKER_ENV.items() if v is not None}
"""One thread in every process of the session: the tests', and every kernel, command and pool it
starts (set here, before they start and before Numba is imported). Pools keep both cores busy
throughout, so a second thread only spins, waiting for a core: on a loaded machine the gradient
symmetricity test took twice the CPU time on two threads that it takes on one. With it, the pool
workers' glibc heap settings (``core.parallel.WORKER_ENV``), for every process the session starts."""
os.environ.update(ONE_THREAD)

ORDER = {"trained": 1, "book": 2, "seeds": 3}
OUT = ROOT / "_build" / "ci-scale"
TIMINGS = OUT / "_build" / "execution-times.json"  # written by book/_ext/execution_times.py
COMPUTED = OUT / "computed-entries.txt"
FILLED = OUT / "filled.json"
SHIFTED = OUT / "shifted"  # the robustness run's cache, its report and its log
STARTED = time.time()
FILLING: dict[str, subprocess.Popen] = {}  # the pools of tests/fill.py, once started


def _worker_env() -> dict[str, str]:
    """This process's environment as a pool worker starts (one thread each)."""
    env = {k: v for k, v in os.environ.items() if k not in WORKER_ENV}
    return env | {k: v for k, v in WORKER_ENV.items() if v is not None}


def pytest_collection_modifyitems(items):
    def rank(item):
        return max((ORDER.get(m.name, 0) for m in item.iter_markers()), default=0)

    items.sort(key=rank)


def _fill(name: str, args: list[str], report: Path, env: dict[str, str] | None = None) -> None:
    """Start ``tests/fill.py ARGS REPORT`` in a process group of its own (its log beside the report),
    once per session."""
    if name in FILLING:
        return
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    with report.with_suffix(".log").open("w") as log:
        FILLING[name] = subprocess.Popen([sys.executable, str(Path(__file__).with_name("fill.py")), *args,
                                          str(report)], stdout=log, stderr=subprocess.STDOUT, env=env,
                                         start_new_session=True)


def _wait(name: str, report: Path) -> None:
    """Wait for the pool started as ``name``; its log's end if it failed."""
    log = report.with_suffix(".log")
    assert FILLING[name].wait() == 0, f"tests/fill.py failed:\n{log.read_text()[-4000:]}"


def pytest_collection_finish(session):
    """Start filling the cache for the book build at once when this session builds it, so that the
    pool of two workers runs beside the unit tests instead of after them. The tests' own process
    keeps to one thread from here on (``ONE_THREAD``; its BLAS libraries are loaded by now), and
    what it starts gets the pool workers' glibc heap settings again: importing dask.distributed
    overrode one of them at collection (``core.parallel.WORKER_ENV`` says what that costs)."""
    torch.set_num_threads(1)
    threadpool_limits(1)
    os.environ.update(ONE_THREAD)
    if any(item.get_closest_marker("book") for item in session.items):
        _fill("pool", [], FILLED)


def pytest_sessionfinish(session):
    """Stop the pools, workers included, that are still running when the session ends."""
    for proc in FILLING.values():
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


@dataclass(frozen=True)
class Build:
    """The book built at ``ci`` scale: its HTML folder, executed notebooks, claim record and log."""

    html: Path
    executed: Path
    records: Path
    returncode: int
    log: str
    computed: tuple[str, ...] = ()  # cache entries the pages wrote: work that ``filled`` left to them

    def notebook(self, page: str) -> dict:
        """The executed notebook of ``page`` (``book/<study>/<name>.md``)."""
        return json.loads((self.executed / page).with_suffix(".ipynb").read_text())

    def glued(self, page: str) -> set[str]:
        """The names ``page`` glued (myst-nb keeps them in ``<name>.glue.json`` beside the notebook)."""
        path = (self.executed / page).with_suffix(".glue.json")
        return set(json.loads(path.read_text())) if path.exists() else set()


def _entries() -> set[str]:
    """The results in the cache (the jobs' completion markers, ``*/jobs/``, are not results)."""
    return {p.relative_to(cache_dir()).as_posix() for p in cache_dir().rglob("*.npz")
            if p.parent.name != "jobs"}


@pytest.fixture(scope="session")
def filled() -> None:
    """Every study's ``ci`` jobs computed (or found) in the session's cache by one pool of two workers:
    the one started at collection (``tests/fill.py``), waited for here."""
    _fill("pool", [], FILLED)  # started at collection when the session builds the book
    _wait("pool", FILLED)


@pytest.fixture(scope="session")
def rerun() -> Iterator[Callable[[], Path]]:
    """Chosen ``ci`` jobs rerun in one process into a cache of their own (``tests/rerun.py``), started
    with the book build's setup, once the tests before it are done: beside the pool's last jobs, then
    beside the build. Calling the fixture's value waits for the rerun and gives its cache folder."""
    cache = OUT / "rerun-cache"
    shutil.rmtree(cache, ignore_errors=True)
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("rerun.py")), str(cache)],
                            env=_worker_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    @functools.cache
    def wait() -> Path:
        output, _ = proc.communicate()
        assert proc.returncode == 0, f"tests/rerun.py failed:\n{output[-4000:]}"
        return cache

    yield wait
    proc.kill()


@pytest.fixture(scope="session")
def book(rerun, filled) -> Build:
    """Build the whole book at ``ci`` scale (warnings are errors, every page executed) with a claim
    record of its own; the results cache is the session's (``make test`` gives it an empty one), which
    ``filled`` has filled already, so the chapters train nothing.

    ``INTERP_REPRO_BOOK_HTML=<html folder>`` checks an existing build instead of building.
    """
    if built := os.environ.get("INTERP_REPRO_BOOK_HTML"):
        out = Path(built).resolve().parents[1]
        return Build(Path(built), out / "_build" / "jupyter_execute", out / "records.json", 0, "")
    _start_shifted()  # beside the build, whose pages execute on one core, and then the page checks
    records = OUT / "records.json"
    records.unlink(missing_ok=True)
    shutil.rmtree(OUT / "_build" / ".jupyter_cache", ignore_errors=True)  # every page executes, records
    before = _entries()
    env = os.environ | {"INTERP_REPRO_SCALE": "ci", "INTERP_REPRO_QUIET": "1",
                        "INTERP_REPRO_RECORD": str(records)}
    jb = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run(
        [str(jb), "build", str(ROOT), "--path-output", str(OUT), "--all", "-W", "-n", "--keep-going"],
        env=env, capture_output=True, text=True)
    build = Build(OUT / "_build" / "html", OUT / "_build" / "jupyter_execute", records, proc.returncode,
                  proc.stdout[-6000:] + "\n" + proc.stderr[-3000:], tuple(sorted(_entries() - before)))
    COMPUTED.write_text("\n".join(build.computed))
    return build


def _start_shifted() -> None:
    shutil.rmtree(SHIFTED / "cache", ignore_errors=True)
    _fill("shifted", ["--shifted"], SHIFTED / "report.json",
          env=os.environ | {"INTERP_REPRO_CACHE": str(SHIFTED / "cache"), "INTERP_REPRO_QUIET": "1"})


@pytest.fixture(scope="session")
def shifted() -> Path:
    """A cache of its own holding the claims' ``ci`` jobs with every seed shifted by
    ``fill.OFFSET``, filled by a pool of two (started as the book build starts, or here)."""
    if "shifted" not in FILLING:
        _start_shifted()
    _wait("shifted", SHIFTED / "report.json")
    return SHIFTED / "cache"


@pytest.fixture(scope="session")
def html(book: Build) -> Path:
    """The HTML folder of the ``ci`` build."""
    return book.html


def pytest_terminal_summary(terminalreporter):
    """Each page's execution time in the ci book build of this run, slowest first."""
    if not TIMINGS.exists() or TIMINGS.stat().st_mtime < STARTED:
        return
    seconds = json.loads(TIMINGS.read_text())["seconds"]
    terminalreporter.section("page execution times in the ci book build (this run)")
    if FILLED.exists():
        filled = json.loads(FILLED.read_text())
        terminalreporter.write_line(f"{filled['seconds']:8.1f} s  every study's ci jobs, in one pool of 2 "
                                    "beside the tests before the build; of them, per study (seconds summed "
                                    "over its jobs):")
        for study, s in filled["studies"].items():
            terminalreporter.write_line(f"{s['seconds']:8.1f} s  {study}: "
                                        f"{s['computed']} of {s['jobs']} jobs computed")
        jobs = sorted(((study, job) for study, s in filled["studies"].items() for job in s["by_job"]),
                      key=lambda item: -item[1]["cpu_s"])
        terminalreporter.write_line("each job's CPU seconds (of them, its training steps' and their GFLOP):")
        for study, job in jobs:
            terminalreporter.write_line(f"{job['cpu_s']:8.1f} s  {study}: {job['job']} "
                                        f"({job['training_s']:.1f} s, {job['gflop']:.1f} GFLOP)")
    if (report := SHIFTED / "report.json").exists():
        shifted = json.loads(report.read_text())
        terminalreporter.write_line(f"{shifted['seconds']:8.1f} s  the claims' {shifted['jobs']} ci jobs on "
                                    "shifted seeds, in one pool of 2 beside the build and the page checks")
    for page, s in sorted(seconds.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{s:8.1f} s  {page}")
    terminalreporter.write_line(f"{sum(seconds.values()):8.1f} s  in all")
    if COMPUTED.exists() and (computed := COMPUTED.read_text().split()):
        terminalreporter.write_line(f"cache entries the pages computed themselves: {len(computed)}")
        for name in computed:
            terminalreporter.write_line(f"  {name}")
