"""Claims keep their outcome on other seeds, as they must on another machine.

Another CPU, BLAS kernel or thread count rounds differently, and after thousands of steps the same
seed then trains a different network: a claim whose outcome hangs on what one seed happened to
train passes on one machine and fails on the next. Other seeds are the stronger form of that
perturbation, so the ``ci`` trainings the claims read run again with every seed shifted
(``core.presets.seed_offset``), in one pool into an empty cache (the ``shifted`` fixture,
``tests/fill.py``), and every claim they give must pass its ``ci`` check (a claim whose ``ci`` check
is skipped has no outcome to keep). The modular-addition training-length runs and the manifolds
chapter's views, which no claim reads, are not rerun, nor is the analysis of Zhong's released
networks, which takes no seed. The spreads measured this way are in the claims' reasons in
``claims.toml``.
"""

from pathlib import Path

import pytest
from fill import OFFSET

from interp_repro.abstraction import experiments as abstraction
from interp_repro.core.presets import seed_offset
from interp_repro.modular_addition import experiments as modular_addition
from interp_repro.reproduction.claims import NOT_CHECKED, load_claims
from interp_repro.reproduction.report import Outcome
from interp_repro.schur_rnn import experiments as schur
from interp_repro.superposition import experiments as superposition


def _network_claims() -> dict:
    """Every claim on our modular-addition networks (the table's ``networks`` row, without Zhong's)."""
    row = modular_addition.EXPERIMENTS["networks"]
    res = row.run(row.config("ci"))
    return {cid: value for claims in row.claims for cid, value in claims(res).items()}


EXPERIMENTS = {
    "abstraction": lambda: abstraction.run_all("ci"),
    "modular_addition": _network_claims,
    "schur_rnn copy task": lambda: schur.copy_claims(schur.run_copy(schur.CopyConfig.preset("ci"))),
    "superposition": lambda: superposition.run_all("ci"),
    "schur_rnn neuroscience": lambda: schur.neuro_claims(schur.run_neuro(schur.NeuroConfig.preset("ci"))),
}

pytestmark = [pytest.mark.trained, pytest.mark.seeds]  # a second ci training, run beside the ci build


@pytest.mark.parametrize("experiments", sorted(EXPERIMENTS))
def test_claims_hold_on_other_seeds(experiments, shifted: Path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(shifted))
    monkeypatch.setenv("INTERP_REPRO_QUIET", "1")
    with seed_offset(OFFSET):
        values = EXPERIMENTS[experiments]()
    claims = load_claims()
    outcomes = [Outcome.of(claims[cid], "ci", value) for cid, value in values.items()]
    failed = [o.message() for o in outcomes if o.result not in ("pass", NOT_CHECKED)]
    assert outcomes and not failed, f"claims that fail on seeds shifted by {OFFSET}:\n" + "\n".join(failed)
