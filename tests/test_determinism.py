"""The same seed on the same machine gives bit-identical cached arrays, whatever the number of workers.

The session's cache was filled by a pool of two worker processes (the ``filled`` fixture: every
study's ``ci`` jobs, which the book build then reads). For every study, some of those jobs run again
in this process (one worker) into an empty cache, and every array of every entry they write must
equal the pool's, bit for bit. The jobs are chosen to cover each kind of training the study does
while keeping the rerun to minutes.
"""

import importlib

import pytest
from entries import assert_entries_within

from interp_repro.core import cache_dir
from interp_repro.core.parallel import run_jobs

CHOSEN = {
    # study: indices into jobs("ci"), with what they train
    "superposition": (0, 7),    # intro sparsity sweep; privileged basis (ReLU hidden layer)
    "abstraction": (0, 4),      # linear network with a ridge readout; GELU ablation networks
    "modular_addition": (1,),    # a uniform-attention network: the MLP networks' steps and more (no views)
    "schur_rnn": (-4, -3),      # two context-integration units: orthogonal and default (2 seeds each)
}

pytestmark = pytest.mark.book  # compares against the pool that filled the cache for the book build


@pytest.mark.parametrize("study", sorted(CHOSEN))
def test_one_worker_gives_the_entries_two_workers_gave(study, filled, tmp_path, monkeypatch):
    pooled = cache_dir()
    jobs = importlib.import_module(f"interp_repro.{study}.experiments").jobs("ci")
    monkeypatch.setenv("INTERP_REPRO_QUIET", "1")
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    run_jobs([jobs[i] for i in CHOSEN[study]], desc=f"{study} in this process", workers=1)
    assert_entries_within(tmp_path, pooled)
