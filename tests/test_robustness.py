"""Claims keep their outcome on other seeds, as they must on another machine.

Another CPU, BLAS kernel or thread count rounds differently, and after thousands of steps the same
seed then trains a different network: a claim whose outcome hangs on what one seed happened to
train passes on one machine and fails on the next. Other seeds are the stronger form of that
perturbation, so the ``ci`` experiments run again with every seed shifted
(``core.presets.seed_offset``), in one pool into an empty cache, and every claim they give must pass its
``ci`` check (a claim whose ``ci`` check is skipped has no outcome to keep). Every ``ci`` training a
claim reads is rerun; the modular-addition training-length runs and the manifolds chapter's views,
which no claim reads, are not, nor is the analysis of Zhong's released networks, which takes no seed.
The spreads measured this way are in the claims' reasons in ``claims.toml``.
"""

from collections.abc import Iterator

import pytest

from interp_repro.abstraction import experiments as abstraction
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import seed_offset
from interp_repro.modular_addition import experiments as modular_addition
from interp_repro.reproduction.claims import NOT_CHECKED, load_claims
from interp_repro.reproduction.report import Outcome
from interp_repro.schur_rnn import experiments as schur
from interp_repro.superposition import experiments as superposition

OFFSET = 1000
"""Far from every seed a preset uses, so no network of the shifted run repeats one of the chapters'."""


def _network_claims() -> dict:
    """Every claim on our modular-addition networks (the table's ``networks`` row, without Zhong's)."""
    row = modular_addition.EXPERIMENTS["networks"]
    res = row.run(row.config("ci"))
    return {cid: value for claims in row.claims for cid, value in claims(res).items()}


def _seeded_jobs() -> list[Job]:
    """The ``ci`` jobs the claims below read, the longest study's first."""
    networks = modular_addition.network_jobs(modular_addition.ModAddConfig.preset("ci"))
    return schur.jobs("ci") + networks + superposition.jobs("ci") + abstraction.jobs("ci")


EXPERIMENTS = {
    "abstraction": lambda: abstraction.run_all("ci"),
    "modular_addition": _network_claims,
    "schur_rnn copy task": lambda: schur.copy_claims(schur.run_copy(schur.CopyConfig.preset("ci"))),
    "superposition": lambda: superposition.run_all("ci"),
    "schur_rnn neuroscience": lambda: schur.neuro_claims(schur.run_neuro(schur.NeuroConfig.preset("ci"))),
}

pytestmark = pytest.mark.trained  # a second ci training: runs before the book build


@pytest.fixture(scope="module")
def shifted(tmp_path_factory) -> Iterator[pytest.MonkeyPatch]:
    """An empty cache filled with the claims' ``ci`` jobs on shifted seeds, in one pool of two."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("INTERP_REPRO_CACHE", str(tmp_path_factory.mktemp("shifted") / "cache"))
        env.setenv("INTERP_REPRO_QUIET", "1")
        with seed_offset(OFFSET):
            run_jobs(_seeded_jobs(), desc="claims' jobs on shifted seeds", workers=2)
        yield env


@pytest.mark.parametrize("experiments", sorted(EXPERIMENTS))
def test_claims_hold_on_other_seeds(experiments, shifted):
    with seed_offset(OFFSET):
        values = EXPERIMENTS[experiments]()
    claims = load_claims()
    outcomes = [Outcome(claims[cid], "ci", value) for cid, value in values.items()]
    failed = [o.message() for o in outcomes if o.result not in ("pass", NOT_CHECKED)]
    assert outcomes and not failed, f"claims that fail on seeds shifted by {OFFSET}:\n" + "\n".join(failed)
