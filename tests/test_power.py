"""Each check can fail: at its alternative, with the measured size and spread, the status machinery
says "differs" as often as the claim's stated power.

For every claim the ``ci`` book build recorded with samples, synthetic samples are drawn at the
claim's alternative (``Estimate.drawn_at``: the measured units, shifted to the alternative) with a
seed of their own, each given its interval and status by the same code as a run's; the share that
differs must match the power the report states (``Outcome.power``, drawn with another seed) within
the noise of two samplings of 200. A check whose power is high is thereby shown to say "differs" on
what a non-reproduction would look like.
"""

import math

import numpy as np
import pytest

from interp_repro.core.estimate import POWER_DRAWS
from interp_repro.reproduction.records import load_records
from interp_repro.reproduction.report import check_records

pytestmark = pytest.mark.book


def _sampled(book) -> list:
    outcomes = check_records("ci", load_records(book.records))
    return [o for o in outcomes if o.estimate is not None and o.value is not None]


def test_every_claim_with_samples_names_an_alternative_its_band_excludes(book):
    sampled = _sampled(book)
    assert len(sampled) >= 30
    for o in sampled:
        assert o.claim.alternative is not None, o.claim.id
        assert not o.claim.band.passes(o.claim.alternative.value), o.claim.id


def test_each_check_says_differs_at_its_alternative_as_often_as_its_power(book):
    rng = np.random.default_rng(20261207)
    off = []
    for o in _sampled(book):
        if o.scale in o.claim.skipped:
            continue
        stated = o.power
        hits = sum(o.claim.differs(o.estimate.drawn_at(o.claim.alternative.value, rng))
                   for _ in range(POWER_DRAWS))
        observed = hits / POWER_DRAWS
        spread = math.sqrt(2 * max(stated * (1 - stated), 0.02) / POWER_DRAWS)
        if abs(observed - stated) > 4 * spread:
            off.append(f"{o.claim.id}: stated power {stated:.2f}, drawn {observed:.2f}")
    assert not off, "\n".join(off)
