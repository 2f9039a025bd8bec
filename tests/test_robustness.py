"""Every claim keeps its outcome on other seeds, as it must on another machine.

Another CPU, BLAS kernel or thread count rounds differently, and after thousands of steps the same
seed then trains a different network: a claim whose outcome hangs on what one seed happened to
train passes on one machine and fails on the next. Other seeds are the stronger form of that
perturbation, so each study's ``ci`` experiments run again with every seed shifted
(``core.presets.seed_offset``), into an empty cache, and every claim must still pass its ``ci`` check.
"""

import importlib

import pytest

from interp_repro.claims import Outcome, load_claims
from interp_repro.core.presets import seed_offset

OFFSET = 1000
"""Far from every seed a preset uses, so no network of the shifted run repeats one of the chapters'."""

pytestmark = pytest.mark.trained  # a second ci training of the study: runs with the chapter checks


@pytest.mark.parametrize("study", ["superposition", "abstraction", "modular_addition", "schur_rnn"])
def test_claims_hold_on_other_seeds(study, tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    with seed_offset(OFFSET):
        values = importlib.import_module(f"interp_repro.{study}.experiments").run_all("ci")
    claims = load_claims()
    failed = [Outcome(claims[cid], "ci", v).message() for cid, v in values.items()
              if Outcome(claims[cid], "ci", v).result != "pass"]
    assert not failed, f"claims that fail on seeds shifted by {OFFSET}:\n" + "\n".join(failed)
