"""Fill a cache in one pool of two workers, in a process of its own, and write what it took
(``studies.fill_cache``'s report, with the seconds): ``python tests/fill.py OUT`` fills the session's
cache with every study's ``ci`` jobs; ``python tests/fill.py --shifted OUT`` fills the cache in
``$INTERP_REPRO_CACHE`` with the ``ci`` jobs the claims read, every seed shifted by :data:`OFFSET`
(the robustness test's run).

The conftest starts the first as soon as a session that builds the book has collected its tests, so
that its pool runs beside the unit tests, and the second as the book build starts, so that its pool
runs beside the build and the page checks, which use one core each.
"""

import json
import sys
import time
from pathlib import Path

from interp_repro.abstraction import experiments as abstraction
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import seed_offset
from interp_repro.modular_addition import experiments as modular_addition
from interp_repro.schur_rnn import experiments as schur
from interp_repro.studies import fill_cache
from interp_repro.superposition import experiments as superposition

OFFSET = 1000
"""Far from every seed a preset uses, so no network of the shifted run repeats one of the chapters'."""


def seeded_jobs() -> list[Job]:
    """The ``ci`` jobs the claims read, the longest study's first: every one but modular addition's
    training-length runs and the manifolds chapter's views, which no claim reads, and the analysis of
    Zhong's released networks, which takes no seed."""
    networks = modular_addition.network_jobs(modular_addition.ModAddConfig.preset("ci"))
    return schur.jobs("ci") + networks + superposition.jobs("ci") + abstraction.jobs("ci")


def main(args: list[str]) -> None:
    start = time.perf_counter()
    if args[0] == "--shifted":
        with seed_offset(OFFSET):
            spent = run_jobs(seeded_jobs(), desc=f"the claims' ci jobs, seeds + {OFFSET}", workers=2)
        report = {"jobs": len(spent), "computed": sum(s is not None for s in spent)}
    else:
        report = {"studies": fill_cache("ci", workers=2)}
    Path(args[-1]).write_text(json.dumps({"seconds": round(time.perf_counter() - start, 1)} | report))


if __name__ == "__main__":
    main(sys.argv[1:])
