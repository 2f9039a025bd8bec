"""Build the book and record how long it took, and whether it was cold, warm or partial.

First every study's jobs at the scale run in one pool (``studies.fill_cache``), which keeps every
core busy and times each job; then jupyter-book executes each page, reading what the pool cached.

The build fails (exit 1) when a claim's outcome at the built scale fails: its measured status is not
the one ``claims.toml`` expects, or its guard fails; the HTML is written first, so the Reproduction
page shows which. A cold build starts from an empty results cache (every model trained); a warm one
computes nothing, and executes only the pages whose code cells, library code or scale changed
(``book/_ext/execution_cache.py``). ``make book`` builds
through this script; the Benchmarks page shows the latest build of each kind and their ratio.

Usage: ``python benchmarks/book_build.py [jupyter-book build arguments ...]`` (default: ``. --all -W -n
--keep-going``); the scale is ``$INTERP_REPRO_SCALE`` (default ``book``).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

from interp_repro.core import cache_dir, cpu_threads, default_scale
from interp_repro.reproduction import resolve_env_paths
from interp_repro.reproduction.report import NOT_RUN, check_records
from interp_repro.reproduction.speed import matmul_flops, record_book_build
from interp_repro.studies import fill_cache

RESULTS = Path("_build/benchmarks")
JUPYTER_CACHE = Path("_build/.jupyter_cache")
"""Where this script records its builds, and jupyter-book's notebook cache (from the clone's root)."""


def entries() -> int:
    return sum(1 for _ in cache_dir().rglob("*.npz")) if cache_dir().is_dir() else 0


def main() -> int:
    resolve_env_paths()  # chapters run in their own folders: a relative path must mean this one
    args = sys.argv[1:] or [".", "--all", "-W", "-n", "--keep-going"]
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    before, start = entries(), time.perf_counter()
    studies = fill_cache(default_scale())
    with cpu_threads(1):  # the ceiling the per-job table reads each job's GFLOP/s against
        ceiling = matmul_flops() / 1e9
    forget_unrecorded(default_scale())
    code = subprocess.call([str(jupyter_book), "build", *args], env=os.environ)
    if code == 0:
        build = record_book_build(time.perf_counter() - start, default_scale(), before, entries(),
                                  studies, RESULTS, ceiling)
        print(f"book built in {build['seconds']:.0f} s ({build['kind']}, scale {build['scale']})")
        code = check_claims(default_scale())
    return code


def forget_unrecorded(scale: str) -> None:
    """Drop from the notebook cache the pages of every study whose claims are not recorded for the
    current library code at ``scale`` (a new record file, say): a page read from the cache records
    nothing, so these pages must execute again."""
    from jupyter_cache import get_cache

    missing = sorted({o.claim.study for o in check_records(scale) if o.result == NOT_RUN})
    if not missing or not JUPYTER_CACHE.is_dir():
        return
    cache = get_cache(str(JUPYTER_CACHE))
    for record in cache.list_cache_records():
        if any(f"/book/{study}/" in record.uri for study in missing):
            cache.remove_cache(record.pk)
    print(f"claims not recorded for {', '.join(missing)} at scale {scale}: their pages execute again")


def check_claims(scale: str) -> int:
    """1 if a claim's outcome at ``scale`` failed (its measured status is not the expected one, or its
    guard failed) or no chapter recorded it; the HTML is written either way, so the reader sees it."""
    bad = [o for o in check_records(scale) if o.result in ("FAIL", NOT_RUN)]
    for o in bad:
        print(f"claim {o.result}: {o.message()}", file=sys.stderr)
    if bad:
        print(f"{len(bad)} claims failed or were not recorded at scale {scale}: "
              "see the Reproduction page", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
