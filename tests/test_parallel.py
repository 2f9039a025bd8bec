"""core.parallel and the cache switches it uses: cached jobs are skipped, new entries travel back
from a worker intact, and a Dask cluster gives the same results as one process (a local pool against
one process: test_determinism.py)."""

import os
from dataclasses import replace

import numpy as np
import pytest
from entries import assert_same_entries

from interp_repro.abstraction import experiments as abstraction
from interp_repro.abstraction.experiments.linear import LinearConfig, run_linear
from interp_repro.core import ConfigError, cache, cached, parallel
from interp_repro.core.parallel import (
    DASK_ENV,
    WORKERS_ENV,
    Job,
    Spent,
    _receive,
    default_workers,
    pending,
    run_jobs,
)
from interp_repro.schur_rnn import experiments as schur


@pytest.fixture
def cache_at(tmp_path, monkeypatch):
    def point(name: str):
        monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / name))
        return tmp_path / name
    point("main")
    return point


def _fill(n: int) -> np.ndarray:
    return cached("tests/parallel", {"n": n}, lambda: {"x": np.arange(n)})["x"]


def test_the_journal_lists_only_entries_written_in_its_body(cache_at):
    _fill(3)
    with cache.journal() as written:
        _fill(3)
        _fill(4)
    assert [p.name for p in written] == [cache._entry_path("tests/parallel", cache.cache_key(
        "tests/parallel", {"n": 4})).name]


def test_probing_reads_what_is_cached_and_refuses_to_compute(cache_at):
    _fill(3)
    with cache.probing():
        np.testing.assert_array_equal(_fill(3), np.arange(3))
        with pytest.raises(cache.NotCached, match="tests/parallel"):
            _fill(5)
    assert not cache.is_cached("tests/parallel", {"n": 5})
    np.testing.assert_array_equal(_fill(5), np.arange(5))  # probing ended: computes again


def test_pending_keeps_only_the_jobs_with_missing_entries(cache_at):
    _fill(2)
    jobs = [Job(_fill, (2,)), Job(_fill, (6,))]
    assert pending(jobs) == [jobs[1]]


def test_a_job_done_is_marked_and_not_replayed_again(cache_at, monkeypatch):
    jobs = [Job(_fill, (3,)), Job(_fill, (7,))]
    assert run_jobs(jobs, desc="t", workers=1)[0] is not None
    replayed = []
    monkeypatch.setattr(parallel, "probing", lambda: replayed.append(1))  # a replay would call it
    assert pending(jobs) == [] and not replayed
    assert run_jobs(jobs, desc="t", workers=1) == [None, None]
    marker = parallel._marker(jobs[0])
    assert marker[0] == "jobs" and cache.is_cached(*marker)
    study_job = Job(run_linear, (LinearConfig(),))
    assert parallel._marker(study_job)[0] == "abstraction/jobs"  # lives as long as the study's code


def test_an_entry_sent_back_is_installed_intact_and_never_overwrites(cache_at):
    with cache.journal() as written:
        _fill(4)
    relative, data = cache.entry_bytes(written[0])
    here = cache_at("other")
    cache.install(relative, data)
    np.testing.assert_array_equal(_fill(4), np.arange(4))
    cache.install(relative, b"not an npz")  # already present: left alone
    np.testing.assert_array_equal(_fill(4), np.arange(4))
    assert len(list(here.rglob("*.npz"))) == 1


@pytest.mark.parametrize("relative", ["../x/0123456789abcdef01234567.npz", "0123456789abcdef01234567.npz",
                                      "tests/parallel/key.npz", "tests/../etc/0123456789abcdef01234567.npz"])
def test_install_refuses_a_path_outside_the_cache_layout(cache_at, relative):
    with pytest.raises(ValueError):
        cache.install(relative, b"")


def test_install_refuses_corrupt_or_mislabelled_bytes(cache_at):
    with cache.journal() as written:
        _fill(4)
    relative, data = cache.entry_bytes(written[0])
    other = cache_at("other")
    with pytest.raises(ValueError, match="not valid"):
        cache.install(relative, data[:50])
    with pytest.raises(ValueError, match="not valid"):  # a valid entry under another key
        cache.install(relative.replace(relative[-28:-4], "f" * 24), data)
    assert not list(other.rglob("*.npz"))


def test_a_worker_running_other_code_is_refused(cache_at):
    with pytest.raises(ConfigError, match="same checkout"):
        _receive(("0.1.0+000000000000", {}, 1.0))


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_the_workers_setting_must_be_a_positive_integer(monkeypatch, value):
    monkeypatch.setenv(WORKERS_ENV, value)
    with pytest.raises(ValueError, match=WORKERS_ENV):
        default_workers()


@pytest.mark.parametrize("workers", [1, 2])
def test_run_jobs_gives_what_each_job_spent_in_order_and_none_where_cached(cache_at, workers):
    _fill(2)
    spent = run_jobs([Job(_fill, (5,)), Job(_fill, (2,)), Job(_fill, (7,))], desc="x", workers=workers)
    assert spent[1] is None
    for s in (spent[0], spent[2]):
        assert isinstance(s, Spent) and s.wall >= 0 and s.cpu >= 0 and s.flops == 0 and s.bounds == ()
    assert run_jobs([Job(_fill, (5,)), Job(_fill, (7,))], desc="x", workers=workers) == [None, None]


def test_ci_jobs_on_a_dask_local_cluster_match_a_local_run(cache_at):
    distributed = pytest.importorskip("distributed")
    jobs = [abstraction.jobs("ci")[i] for i in (0, 4)]  # the linear network and the GELU ablation
    workers_cache = cache_at("dask-workers")
    local = cache_at("local")
    run_jobs(jobs, desc="here", workers=1)
    client_cache = cache_at("dask-client")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  env={"INTERP_REPRO_CACHE": str(workers_cache)}) as cluster:
        spent = run_jobs(jobs, desc="on Dask", dask=cluster.scheduler_address)
    assert all(s.wall > 0 and s.cpu > 0 for s in spent)
    assert spent[0].flops > 0 and spent[0].bounds  # the linear network's metered training steps
    assert_same_entries(client_cache, local)
    assert_same_entries(workers_cache, local)  # computed on the workers, then sent back


def test_schur_units_from_a_pool_equal_those_trained_in_this_process(cache_at):
    """The determinism check of Schur RNN training (tests/rerun.py leaves its ci units out): two
    units of the ci flip-flop recipe, shortened to 200 steps at N_h = 16, trained by a pool of two
    and in this process, give the same entries bit for bit."""
    spec = replace(schur.NeuroConfig.preset("ci").specs()[0], n_hidden=16, steps=200)
    assert (spec.task, spec.construction, spec.seeds) == ("flipflop", "orthogonal", 2)
    jobs = [Job(schur.run_unit, (replace(spec, seed=seed), 0.9, 64)) for seed in (0, 10)]
    pool = cache_at("pool")
    assert all(s is not None for s in run_jobs(jobs, desc="pool", workers=2))
    here = cache_at("here")
    run_jobs(jobs, desc="here", workers=1)
    assert_same_entries(pool, here)


def test_an_unreachable_dask_scheduler_is_a_clear_error(cache_at, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT", 2)  # 10 s by default
    monkeypatch.setenv(DASK_ENV, "tcp://127.0.0.1:9")
    with pytest.raises(ConfigError, match="cannot reach a Dask scheduler"):
        abstraction.run_all("ci")


def test_a_dask_worker_with_other_code_is_refused_before_any_job(cache_at, monkeypatch):
    distributed = pytest.importorskip("distributed")
    workers_cache = cache_at("dask-workers")
    cache_at("client")
    monkeypatch.setattr(parallel, "library_fingerprint", lambda study=None: "0.0.1+000000000000")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  env={"INTERP_REPRO_CACHE": str(workers_cache)}) as cluster:
        with pytest.raises(ConfigError, match=r"^Dask worker tcp://\S+ runs other code or libraries \("
                                              r"\d\S+\+[0-9a-f]{12} \(torch==.*; here 0\.0\.1\+0{12} "):
            parallel.run_jobs([Job(_fill, (3,))], "x", dask=cluster.scheduler_address)
    assert not list(workers_cache.rglob("*.npz"))


def test_a_workers_argument_wins_over_the_dask_environment(cache_at, monkeypatch):
    monkeypatch.setenv(DASK_ENV, "tcp://127.0.0.1:9")
    parallel.run_jobs([Job(_fill, (3,))], "x", workers=1)
    assert cache.is_cached("tests/parallel", {"n": 3})


def _worker_environment(name: str) -> None:
    cached("tests/environment", {"name": name},
           lambda: {name: np.array(os.environ.get(name, "unset"))})


def test_pool_workers_get_one_thread_and_a_heap_that_keeps_memory_whatever_the_parent(cache_at, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")  # what importing dask.distributed sets
    monkeypatch.setenv("OMP_NUM_THREADS", "8")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    names = ["MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "OMP_NUM_THREADS"]
    run_jobs([Job(_worker_environment, (name,)) for name in names], desc="environment", workers=2)
    seen = {name: cached("tests/environment", {"name": name}, lambda: {})[name].item() for name in names}
    assert seen == {"MALLOC_TRIM_THRESHOLD_": str(1 << 30), "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
                    "OMP_NUM_THREADS": "1"}
    assert os.environ["MALLOC_TRIM_THRESHOLD_"] == "65536" and os.environ["OMP_NUM_THREADS"] == "8"
