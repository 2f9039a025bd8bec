"""Fill the session's cache with every study's ``ci`` jobs in one pool of two workers, and write what
it took (``python tests/fill.py OUT``): the seconds, and per study its jobs, how many computed and
their seconds (``studies.fill_cache``).

The conftest starts it as soon as a session that builds the book has collected its tests, so the pool
runs beside the unit tests and the trained checks (which use one core, or a cache of their own) and
the book build mostly finds the cache filled. A session that builds no book never starts it.
"""

import json
import sys
import time
from pathlib import Path

from interp_repro.studies import fill_cache


def main(out: str) -> None:
    start = time.perf_counter()
    studies = fill_cache("ci", workers=2)
    Path(out).write_text(json.dumps({"seconds": round(time.perf_counter() - start, 1), "studies": studies}))


if __name__ == "__main__":
    main(sys.argv[1])
