"""Independent jobs side by side (``core.parallel``) against one after another, in the same run.

For each study, a cold ``run_all`` at ``ci`` scale (empty temporary results cache) with one worker,
then with ``--workers`` processes (default: one per core). Both give the same numbers (tested in
tests/test_parallel.py); this measures the wall time.

Usage: ``python benchmarks/parallel.py [--studies S ...] [--workers N] [--out FILE]``.
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

from interp_repro import STUDIES
from interp_repro.core.cache import CACHE_ENV
from interp_repro.core.parallel import WORKERS_ENV
from interp_repro.core.progress import QUIET_ENV
from interp_repro.reproduction.records import RECORD_ENV
from interp_repro.reproduction.speed import comparison, write_result
from interp_repro.studies import run_all


def cold_run(study: str, workers: int) -> float:
    """Seconds for a cold ``run_all("ci")`` of ``study`` with ``workers`` processes."""
    with tempfile.TemporaryDirectory() as cache:
        os.environ.update({CACHE_ENV: cache, WORKERS_ENV: str(workers), RECORD_ENV: f"{cache}/records.json"})
        start = time.perf_counter()
        run_all("ci", study)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", nargs="+", choices=STUDIES, default=["abstraction", "superposition"])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/parallel.json"))
    args = parser.parse_args()
    os.environ[QUIET_ENV] = "1"
    rows = []
    for study in args.studies:
        one, pool = cold_run(study, 1), cold_run(study, args.workers)
        rows.append(comparison(f"{study}: {args.workers} workers vs 1, cold ci run", pool, one,
                               f"run_all('ci'), {args.workers} processes"))
    write_result({"setting": f"cold ci-scale run_all, {args.workers} workers", "comparisons": rows}, args.out)


if __name__ == "__main__":
    main()
