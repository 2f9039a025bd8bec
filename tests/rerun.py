"""Rerun chosen ``ci`` jobs of every study in one process (one worker), into a cache of their own.

``tests/test_determinism.py`` compares every entry they write with what the pool of two workers wrote
for the book build. The ``rerun`` fixture starts this script (``python tests/rerun.py CACHE``) as soon
as the tests before the build are done, so it runs beside the pool's last jobs and then the build.
"""

import os
import sys

from interp_repro import studies
from interp_repro.core.parallel import run_jobs

CHOSEN = {
    # study: the labels of the jobs("ci") it reruns, with what they train
    "superposition": ("intro", "privileged"),  # intro sparsity sweep; privileged basis (ReLU hidden layer)
    "abstraction": ("linear", "gelu_sensitivity"),  # linear network with a ridge readout; GELU networks
    "modular_addition": ("networks: uniform, seed 1",),  # uniform attention: the MLP networks' steps and
    # more; no view or training-length run (51 CPU s cold, where the learnable one with its lengths took 93)
}
"""Not Schur RNN's: each of its ci units trains for two minutes, a fifth of the whole rerun, so
test_parallel.py checks a unit of its recipe, shortened, from a pool against one process instead."""


def main(cache: str) -> None:
    os.environ["INTERP_REPRO_CACHE"] = cache
    os.environ["INTERP_REPRO_QUIET"] = "1"
    for study, chosen in CHOSEN.items():
        jobs = [job for job in studies.jobs("ci", study) if job.label in chosen]
        assert len(jobs) == len(chosen), f"{study}: no ci job is labelled as each of {chosen}"
        run_jobs(jobs, desc=f"{study} in this process", workers=1)


if __name__ == "__main__":
    main(sys.argv[1])
