"""Schur-RNN timings, each next to a baseline measured in the same run.

1. One dense orthogonal N_h = 72 copy-task network trained with ``COPY_RECIPE`` (one instance):
   seconds to the end of training and the held-out replay accuracy it reaches (budget: >= 0.99 in
   5 minutes on 2 cores).
2. K seeds batched in one program against the same K seeds one after another (seconds per network).
3. One torch thread against two for the batched run (cached training runs on one, ``core.cached``).
4. Ordered real Schur form of a 72 x 72 matrix (median over random matrices; budget 50 ms), next to
   scipy's unordered ``schur`` of the same matrices.

Usage: ``python benchmarks/schur_rnn.py [--steps N] [--seeds K] [--out FILE]``.
"""

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import scipy.linalg
import torch

from interp_repro.benchmarks import comparison, write_result
from interp_repro.core import cpu_threads, numpy_rng
from interp_repro.schur_rnn.measures import ordered_real_schur
from interp_repro.schur_rnn.train import COPY_RECIPE, train


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def copy_run(seeds: int, steps: int, seed: int = 0, threads: int = 1):
    recipe = dict(COPY_RECIPE, steps=steps)
    with cpu_threads(threads):
        return train("copy", "orthogonal", 72, seeds=seeds, seed=seed, quiet=True, **recipe)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="steps for the batched/threads comparison")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--out", type=Path, default=Path("_build/benchmarks/schur_rnn.json"))
    args = parser.parse_args()

    copy_run(1, 20)  # warm up
    start = time.perf_counter()
    one = copy_run(1, COPY_RECIPE["steps"])
    t_one = time.perf_counter() - start

    t_batched = timed(lambda: copy_run(args.seeds, args.steps))
    t_sequential = timed(lambda: [copy_run(1, args.steps, seed=s) for s in range(args.seeds)])
    t_two_threads = timed(lambda: copy_run(args.seeds, args.steps, threads=2))

    rng = numpy_rng(0)
    mats = [rng.normal(0, 1.2 / np.sqrt(72), (72, 72)) for _ in range(30)]
    ordered = [timed(lambda W=W: ordered_real_schur(W)) for W in mats]
    plain = [timed(lambda W=W: scipy.linalg.schur(W, output="real")) for W in mats]

    result = {
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads",
        "torch": torch.__version__,
        "one_network": {"setting": f"copy task, dense orthogonal N_h = 72, {COPY_RECIPE}",
                        "seconds": t_one, "held_out_replay_accuracy": float(one.accuracy[0])},
        "batched_vs_sequential": {"setting": f"K = {args.seeds} seeds, {args.steps} steps",
                                  "seconds_per_network_batched": t_batched / args.seeds,
                                  "seconds_per_network_sequential": t_sequential / args.seeds,
                                  "speedup": t_sequential / t_batched},
        "one_vs_two_threads": {"seconds_one_thread": t_batched, "seconds_two_threads": t_two_threads,
                               "two_threads_speedup": t_batched / t_two_threads},
        "ordered_schur_72": {"median_ms": 1e3 * float(np.median(ordered)),
                             "max_ms": 1e3 * float(np.max(ordered)),
                             "scipy_unordered_median_ms": 1e3 * float(np.median(plain)),
                             "ratio_to_unordered": float(np.median(ordered) / np.median(plain))},
        "comparisons": [
            comparison("batched vs one seed after another", t_batched, t_sequential, f"{args.seeds} seeds"),
            comparison("1 vs 2 torch threads (batched)", t_batched, t_two_threads, f"{args.seeds} seeds"),
            comparison("ordered vs scipy's unordered real Schur", float(np.median(ordered)),
                       float(np.median(plain)), "72 x 72"),
        ],
    }
    write_result(result, args.out)


if __name__ == "__main__":
    main()
