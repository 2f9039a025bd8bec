"""Modular-addition training speed, each figure next to a baseline measured in the same run.

1. Time for one learnable-attention transformer (p = 59, d 128, seed 0) to reach 100% test accuracy:
   our trainer against a loop written the way Zhong et al.'s reference code does it (both positions
   computed, logits at every position, float64 loss, no compile).
2. Achieved FLOP/s of our training step against this machine's own float32 matmul FLOP/s.
3. ``torch.compile`` of our step against eager.
4. K seeds stacked in one program against the same seeds one after another (attention and MLP-Add).
5. The paper's 703 networks at Zhong's 20,000 steps, projected from one measured step of each
   architecture: one network per core on this CPU, and, with ``--device cuda``, stacks of
   ``experiments.STACK`` networks on the GPU.
6. Denormals in long runs: one learnable-attention network trained ``--long-steps`` steps with
   denormal floats flushed to zero (as ``train.train`` does) and without: the seconds per step and
   the share of subnormal gradient entries in each block of 1,000 steps.

Usage: ``python benchmarks/modular_addition_training.py [--seeds K] [--threads N] [--device D]
[--long-steps N] [--out FILE]``.
"""

import argparse
import math
import os
import platform
import time
from pathlib import Path

import torch

from interp_repro.core import select_device, torch_generator
from interp_repro.modular_addition.data import all_pairs, split
from interp_repro.modular_addition.experiments import ARCHITECTURES, STACK
from interp_repro.modular_addition.model import ModAddNet
from interp_repro.modular_addition.train import cross_entropy
from interp_repro.reproduction.speed import comparison, matmul_flops, write_result

P, D, H, D_MLP = 59, 128, 4, 512
PAPER_NETWORKS, PAPER_STEPS = 703, 20_000
"""The paper's trained one-layer networks (Moisescu-Pareja et al. 2025) and Zhong's training length."""
GPU_TARGET_S = 15 * 60
"""The performance issue's target for the paper's networks on one modern GPU."""


def reference_model(seed: int) -> torch.nn.Module:
    """Zhong-style transformer written plainly: both positions, full softmax attention, every logit;
    Zhong's initialisation scales, as our model has them."""

    class Reference(torch.nn.Module):
        def __init__(self):
            super().__init__()
            g = torch_generator(seed)
            self.embed = torch.nn.Parameter(torch.randn(P, D, generator=g) / math.sqrt(D))
            self.pos = torch.nn.Parameter(torch.randn(2, D, generator=g) / math.sqrt(D))
            self.qkv = torch.nn.Parameter(torch.randn(3, H, D, D // H, generator=g) / math.sqrt(D))
            self.out = torch.nn.Parameter(torch.randn(H, D // H, D, generator=g) / math.sqrt(D))
            self.w_in = torch.nn.Parameter(torch.randn(D, D_MLP, generator=g) / math.sqrt(D_MLP))
            self.b_in = torch.nn.Parameter(torch.zeros(D_MLP))
            self.w_out = torch.nn.Parameter(torch.randn(D_MLP, D, generator=g) / math.sqrt(D))
            self.b_out = torch.nn.Parameter(torch.zeros(D))
            self.unembed = torch.nn.Parameter(torch.randn(D, P, generator=g) / math.sqrt(P))

        def forward(self, tokens):
            x = self.embed[tokens] + self.pos  # (N, 2, D)
            q, k, v = (torch.einsum("npd,hde->nhpe", x, w) for w in self.qkv)
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(D // H), dim=-1)
            x = x + torch.einsum("nhpe,hed->npd", att @ v, self.out)
            x = x + torch.relu(x @ self.w_in + self.b_in) @ self.w_out + self.b_out
            return x @ self.unembed  # (N, 2, P): every position

    return Reference()


def time_to_perfect(step_fn, test_acc_fn, max_steps: int = 1500, every: int = 25) -> tuple[float, int]:
    """Seconds of training (evaluation excluded) until test accuracy first reaches 1.0, and the step."""
    spent = 0.0
    for step in range(1, max_steps + 1):
        start = time.perf_counter()
        step_fn(step)
        spent += time.perf_counter() - start
        if step % every == 0 and test_acc_fn() >= 1.0:
            return spent, step
    return float("nan"), max_steps


def run_reference(seed: int) -> tuple[float, int]:
    model = reference_model(seed)
    tr, te = split(P, 0.8, [seed])
    a, b, y = all_pairs(P)
    tokens = torch.stack([a, b], dim=1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=2.0, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(s / 10, 1.0))

    def step(_):
        logits = model(tokens[tr[0]]).double()
        loss = torch.nn.functional.cross_entropy(logits[:, -1], y[tr[0]])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()

    def test_acc():
        with torch.no_grad():
            return (model(tokens[te[0]])[:, -1].argmax(-1) == y[te[0]]).double().mean().item()

    return time_to_perfect(step, test_acc)


def ours(seeds: list[int], kind: str = "attention", compile_step: bool = False, rate: float = 1.0,
         device: str = "cpu"):
    """Our model and step for ``seeds`` stacked: returns (step function, test accuracy function)."""
    instances = [ModAddNet(1, P, kind, torch_generator(s), rate=rate) for s in seeds]
    model = instances[0]
    if len(seeds) > 1:
        for name, param in model.named_parameters():
            param.data = torch.cat([getattr(m, name) for m in instances])
    dev = select_device(device)
    model.to(dev)
    tr, te = (idx.to(dev) for idx in split(P, 0.8, seeds))
    a, b, y = (x.to(dev) for x in all_pairs(P))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=2.0, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(s / 10, 1.0))
    forward = torch.compile(model) if compile_step else model

    def step(_):
        loss = cross_entropy(forward(a[tr], b[tr]), y[tr]).sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()

    def test_acc():
        with torch.no_grad():
            return (model(a[te], b[te]).argmax(-1) == y[te]).double().mean(-1).min().item()

    step.model = model  # for a benchmark that reads the gradients
    return step, test_acc


def long_run(steps: int, flush: bool, block: int = 1000) -> dict[str, list[float]]:
    """One learnable-attention network (seed 0) trained ``steps`` steps with denormals flushed or not:
    per block of ``block`` steps, the seconds per step and the share of the gradient entries, at the
    block's last step, that are subnormal (nonzero and below float32's smallest normal number)."""
    step_fn, _ = ours([0])
    tiny = torch.finfo(torch.float32).tiny
    seconds, subnormal = [], []
    torch.set_flush_denormal(flush)
    try:
        for first in range(0, steps, block):
            start = time.perf_counter()
            for s in range(first, min(first + block, steps)):
                step_fn(s)
            seconds.append((time.perf_counter() - start) / (min(first + block, steps) - first))
            grads = torch.cat([p.grad.flatten() for p in step_fn.model.parameters() if p.grad is not None])
            subnormal.append(((grads != 0) & (grads.abs() < tiny)).double().mean().item())
    finally:
        torch.set_flush_denormal(False)
    return {"seconds_per_step": seconds, "subnormal_share": subnormal}


def step_seconds(step_fn, steps: int = 30, device: str = "cpu") -> float:
    step_fn(0)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    sync()
    start = time.perf_counter()
    for s in range(steps):
        step_fn(s)
    sync()
    return (time.perf_counter() - start) / steps


def paper_projection(device: str, cores: int) -> dict:
    """Seconds for the paper's networks at Zhong's length: per architecture (a quarter of them each),
    one measured step times the steps, one network per core on the CPU, or stacks of ``STACK`` per
    program on a GPU (one program at a time)."""
    per_arch = PAPER_NETWORKS / len(ARCHITECTURES)
    out = {"networks": PAPER_NETWORKS, "steps": PAPER_STEPS, "device": device}
    total = 0.0
    for name, (kind, rate) in ARCHITECTURES.items():
        if device == "cpu":
            step = step_seconds(ours([0], kind, rate=rate)[0], steps=10)
            seconds = step * PAPER_STEPS * per_arch / cores
        else:
            step = step_seconds(ours(list(range(STACK)), kind, rate=rate, device=device)[0], steps=20,
                                device=device) / STACK
            seconds = step * PAPER_STEPS * per_arch
        out[name] = {"seconds_per_network_step": step, "projected_s": seconds}
        total += seconds
    return out | {"projected_s": total, "projected_h": total / 3600}


def step_flops(n_train: int) -> float:
    """Matmul FLOPs of one training step of our attention model (forward x 3 for backward)."""
    forward = 2 * n_train * (6 * D * D + 2 * D * D_MLP + D * P)
    return 3 * forward


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (the library trains one network per core on one thread)")
    parser.add_argument("--device", default="cpu", help="cpu, or cuda: the paper-scale projection on a GPU")
    parser.add_argument("--long-steps", type=int, default=10_000, help="steps of the denormals runs")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/modular_addition_training.json"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    t_ref, step_ref = run_reference(0)
    step_fn, acc_fn = ours([0])
    t_ours, step_ours = time_to_perfect(step_fn, acc_fn)

    eager = step_seconds(ours([0])[0])
    peak = matmul_flops()
    n_train = round(0.8 * P * P)
    try:
        compiled_fn = ours([0], compile_step=True)[0]
        start = time.perf_counter()
        compiled_fn(0)
        compile_s = time.perf_counter() - start
        compiled = step_seconds(compiled_fn)
    except Exception as err:  # noqa: BLE001 - report why compile is unavailable rather than fail
        compile_s, compiled = float("nan"), float("nan")
        print(f"torch.compile failed: {err}")

    stacking = {}
    seeds = list(range(args.seeds))
    for arch in ("attention", "mlp_add"):
        batched = step_seconds(ours(seeds, arch)[0], steps=5)
        single = step_seconds(ours([0], arch)[0], steps=10) * args.seeds
        stacking[arch] = {"seconds_per_step_all_seeds_stacked": batched,
                          "seconds_per_step_one_after_another": single, "speedup": single / batched}

    projection = paper_projection(args.device, os.cpu_count() or 1)
    long = {"flushed": long_run(args.long_steps, flush=True),
            "not flushed": long_run(args.long_steps, flush=False)}
    flushed, kept = (long[k]["seconds_per_step"] for k in ("flushed", "not flushed"))
    result = {
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads",
        "torch": torch.__version__,
        "time_to_100pct_test": {"reference_s": t_ref, "reference_step": step_ref, "ours_s": t_ours,
                                "ours_step": step_ours, "speedup": t_ref / t_ours},
        "flops": {"step_s": eager, "achieved_gflops": step_flops(n_train) / eager / 1e9,
                  "matmul_gflops": peak / 1e9, "share_of_matmul": step_flops(n_train) / eager / peak},
        "compile": {"eager_step_s": eager, "compiled_step_s": compiled, "first_call_s": compile_s,
                    "speedup": eager / compiled},
        "stacked_vs_sequential": {"seeds": args.seeds, **stacking},
        "paper_projection": projection,
        "denormals": {"steps": args.long_steps, "block": 1000, **long,
                      "last_over_first_block_flushed": flushed[-1] / flushed[0],
                      "last_over_first_block_not_flushed": kept[-1] / kept[0]},
        "comparisons": [
            comparison("time to 100% test vs a reference-style loop", t_ours, t_ref, "one network"),
            *([comparison("torch.compile vs eager, per step", compiled, eager, "after compiling")]
              if compiled == compiled else []),  # NaN when compile is unavailable
            *[comparison(f"{arch}: stacked vs one seed after another",
                         s["seconds_per_step_all_seeds_stacked"], s["seconds_per_step_one_after_another"],
                         f"{args.seeds} seeds") for arch, s in stacking.items()],
            comparison("denormals flushed vs not, per step in the last block of a long run", flushed[-1],
                       kept[-1], f"steps {args.long_steps - 999:,}-{args.long_steps:,}"),
            comparison("last block vs first block of a long run, per step (denormals flushed)", flushed[-1],
                       flushed[0], f"steps {args.long_steps - 999:,}-{args.long_steps:,} vs 1-1,000"),
            comparison(f"paper scale projected on {args.device} vs the 15-minute GPU target",
                       projection["projected_s"], GPU_TARGET_S,
                       f"{PAPER_NETWORKS} networks x {PAPER_STEPS:,} steps"),
        ],
    }
    write_result(result, args.out)


if __name__ == "__main__":
    main()
