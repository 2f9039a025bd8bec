"""The same seed on the same machine gives bit-identical cached arrays, whatever the number of workers.

The session's cache was filled by a pool of two worker processes (the ``filled`` fixture: every
study's ``ci`` jobs, which the book build then reads). For every study but Schur RNN's, some of those
jobs ran again in one process (one worker) into an empty cache of their own (``tests/rerun.py``,
beside the pool's last jobs and the book build), and every array of every entry they wrote must
equal the pool's, bit for bit. The jobs are chosen to cover each kind of training the study does while
keeping the rerun to minutes; a Schur unit of the ci recipe, shortened, is checked the same way in
test_parallel.py.
"""

import pytest
from entries import assert_entries_within
from rerun import CHOSEN

from interp_repro.core import cache_dir

pytestmark = pytest.mark.book  # compares against the pool that filled the cache for the book build


@pytest.mark.parametrize("study", sorted(CHOSEN))
def test_one_worker_gives_the_entries_two_workers_gave(study, rerun):
    assert_entries_within(rerun() / study, cache_dir() / study)
