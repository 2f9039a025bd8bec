"""The same seed on the same machine gives bit-identical cached arrays, whatever the number of workers.

For every study, some of its ``ci`` jobs (``experiments.jobs("ci")``: the independent trainings and
analyses that its chapters read) run twice, each into an empty cache: in this process (one worker),
and in a pool of two worker processes. Every array of every entry must be equal, bit for bit. The
jobs are chosen to cover each kind of training the study does while keeping the test to minutes.
"""

import importlib

import pytest
from entries import assert_same_entries

from interp_repro.core.parallel import run_jobs

CHOSEN = {
    # study: indices into jobs("ci"), with what they train
    "superposition": (0, 7),    # intro sparsity sweep; privileged basis (ReLU hidden layer)
    "abstraction": (0, 4),      # linear network with a ridge readout; GELU ablation networks
    "modular_addition": (0, 6),  # an attention network and an MLP network, trained and analysed
    "schur_rnn": (-4, -3),      # two context-integration units: orthogonal and default (2 seeds each)
}

pytestmark = pytest.mark.trained  # minutes of training: runs with the chapter checks


@pytest.mark.parametrize("study", sorted(CHOSEN))
def test_one_worker_and_two_give_the_same_entries(study, tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_QUIET", "1")
    jobs = importlib.import_module(f"interp_repro.{study}.experiments").jobs("ci")
    chosen = [jobs[i] for i in CHOSEN[study]]
    for name, workers in (("one", 1), ("two", 2)):
        monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / name))
        run_jobs(chosen, desc=f"{study} on {workers} worker(s)", workers=workers)
    assert_same_entries(tmp_path / "one", tmp_path / "two")
