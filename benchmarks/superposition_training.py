"""Superposition trainer throughput, as ratios against baselines measured in the same run.

1. Our batched trainer against a loop written the way the original notebook does it (two uniform
   draws per entry, einsums over the instance dimension, autograd), at K = 20 instances,
   n = 100, m = 20, batch 1024. Reported in instance-steps per second.
2. Batched (K instances in one program) against one instance at a time, both with our trainer.
3. The geometry sweep's step (one sweep: 30 sparsities, n = 200, m = 20, batch 1,024, the notebook's
   initialisation) against the machine's one-thread matrix-product ceiling measured beside it, its
   FLOPs counted by ``core.flops``; and trained in cache-sized blocks of instances against the whole
   batch at once (``train.BLOCK_FLOATS``).

Usage: ``python benchmarks/superposition_training.py [--steps N] [--out FILE]``.
"""

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import torch

from interp_repro.core import cpu_threads
from interp_repro.core.flops import tally
from interp_repro.reproduction.speed import comparison, matmul_flops, write_result
from interp_repro.superposition import train as trainer
from interp_repro.superposition.experiments import GeometryConfig
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


def geometry_step(steps: int, block_floats: int) -> dict[str, float]:
    """Seconds (CPU) and GFLOP/s of one geometry sweep's training steps, in blocks of
    ``block_floats`` inputs."""
    cfg = GeometryConfig.preset("book")
    density = torch.tensor(cfg.densities, dtype=torch.float32)
    model = ToyModel(cfg.points, cfg.n_features, cfg.n_hidden, "relu", torch.Generator().manual_seed(0),
                     cfg.init, cfg.init_instances)
    importance = torch.ones(cfg.n_features)
    before, trainer.BLOCK_FLOATS = trainer.BLOCK_FLOATS, block_floats
    try:
        train(model, importance, density, steps=3, batch=cfg.batch, seed=1, quiet=True)
        with tally() as counted:
            train(model, importance, density, steps=steps, batch=cfg.batch, seed=1, quiet=True)
    finally:
        trainer.BLOCK_FLOATS = before
    return {"seconds_per_step": counted.seconds / steps, "gflops": counted.flops / counted.seconds / 1e9}


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
    with cpu_threads(1):
        blocked = geometry_step(args.steps // 4, trainer.BLOCK_FLOATS)
        whole = geometry_step(args.steps // 4, np.iinfo(np.int64).max)
        ceiling = matmul_flops() / 1e9
    result = {
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads",
        "torch": torch.__version__,
        "setting": f"K={K}, n={N}, m={M}, batch={BATCH}, {args.steps} steps",
        "instance_steps_per_s": {"reference": K * args.steps / t_ref,
                                 "ours_batched": K * args.steps / t_ours,
                                 "ours_one_at_a_time": K * args.steps / t_single},
        "speedup_vs_reference": t_ref / t_ours,
        "speedup_batched_vs_one_at_a_time": t_single / t_ours,
        "geometry_step": {"setting": "one sweep: 30 sparsities, n=200, m=20, batch=1024, one thread",
                          "blocked": blocked, "whole_batch": whole, "matmul_gflops_one_thread": ceiling,
                          "share_of_matmul": blocked["gflops"] / ceiling},
        "comparisons": [
            comparison("trainer vs the original notebook's loop", t_ours, t_ref, f"{K} instances"),
            comparison("batched vs one instance at a time", t_ours, t_single, f"{K} instances"),
            comparison("geometry step: blocks of instances vs the whole batch", blocked["seconds_per_step"],
                       whole["seconds_per_step"], "30 sparsities, one thread"),
        ],
    }
    write_result(result, args.out)


if __name__ == "__main__":
    main()
