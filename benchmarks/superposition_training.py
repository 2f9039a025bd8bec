"""Superposition trainer throughput, as ratios against baselines measured in the same run.

1. Our batched trainer against a loop written the way the original notebook does it (two uniform
   draws per entry, einsums over the instance dimension, autograd), at K = 20 instances,
   n = 100, m = 20, batch 1024. Reported in instance-steps per second.
2. Batched (K instances in one program) against one instance at a time, both with our trainer.

Usage: ``python benchmarks/superposition_training.py [--steps N] [--out FILE]``.
"""

import argparse
import platform
import time
from pathlib import Path

import torch

from interp_repro.reproduction.speed import comparison, write_result
from interp_repro.superposition.model import ToyModel
from interp_repro.superposition.train import train

K, N, M, BATCH = 20, 100, 20, 1024


def reference_loop(steps: int, importance: torch.Tensor, density: torch.Tensor) -> None:
    """The original notebook's style: W (K, n, m), two uniform draws per entry, einsum, autograd."""
    torch.manual_seed(0)
    W = torch.nn.Parameter(torch.empty(K, N, M))
    torch.nn.init.xavier_normal_(W)
    b = torch.nn.Parameter(torch.zeros(K, N))
    opt = torch.optim.AdamW([W, b], lr=1e-3)
    p = density.view(1, K, 1)
    for _ in range(steps):
        values = torch.rand(BATCH, K, N)
        x = torch.where(torch.rand(BATCH, K, N) <= p, values, torch.zeros(()))
        h = torch.einsum("bif,ifh->bih", x, W)
        out = torch.relu(torch.einsum("bih,ifh->bif", h, W) + b)
        loss = (importance * (x.abs() - out) ** 2).mean(0).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


def ours(steps: int, importance: torch.Tensor, density: torch.Tensor) -> None:
    model = ToyModel(len(density), N, M, "relu", torch.Generator().manual_seed(0))
    train(model, importance, density, steps=steps, batch=BATCH, seed=1, quiet=True)


def one_at_a_time(steps: int, importance: torch.Tensor, density: torch.Tensor) -> None:
    for k in range(K):
        ours(steps, importance, density[k:k + 1])


def timed(fn, steps: int, *args) -> float:
    fn(5, *args)  # warm up allocator and threads
    start = time.perf_counter()
    fn(steps, *args)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/superposition_training.json"))
    args = parser.parse_args()
    importance = 0.9 ** torch.arange(N, dtype=torch.float32)
    density = torch.logspace(0, -2, K)
    t_ref = timed(reference_loop, args.steps, importance, density)
    t_ours = timed(ours, args.steps, importance, density)
    t_single = timed(one_at_a_time, args.steps, importance, density)
    result = {
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads",
        "torch": torch.__version__,
        "setting": f"K={K}, n={N}, m={M}, batch={BATCH}, {args.steps} steps",
        "instance_steps_per_s": {"reference": K * args.steps / t_ref,
                                 "ours_batched": K * args.steps / t_ours,
                                 "ours_one_at_a_time": K * args.steps / t_single},
        "speedup_vs_reference": t_ref / t_ours,
        "speedup_batched_vs_one_at_a_time": t_single / t_ours,
        "comparisons": [
            comparison("trainer vs the original notebook's loop", t_ours, t_ref, f"{K} instances"),
            comparison("batched vs one instance at a time", t_ours, t_single, f"{K} instances"),
        ],
    }
    write_result(result, args.out)


if __name__ == "__main__":
    main()
