"""Schur-RNN timings, each next to a baseline measured in the same run.

1. One dense orthogonal N_h = 72 copy-task network trained with ``COPY_RECIPE`` (one instance):
   seconds to the end of training and the held-out replay accuracy it reaches (budget: >= 0.99 in
   5 minutes on 2 cores).
2. K seeds batched in one program against the same K seeds one after another (seconds per network).
3. One torch thread against two for the batched run (cached training runs on one, ``core.cached``).
4. Ordered real Schur form of a 72 x 72 matrix (median over random matrices; budget 50 ms), next to
   scipy's unordered ``schur`` of the same matrices.
5. Backpropagation through time: autograd through the library's ``rollout`` (what training uses)
   against a hand-written backward (one batched step per time step, the gradient of W_hh as one
   matrix product over all steps), on the copy task's full 128-step replay; the gradients agree to
   float32 rounding.
6. The same BPTT step for K stacked seeds against one seed K times (the 128-step replay), and the
   share of this machine's one-thread matmul FLOP/s each reaches: stacking can gain at most the
   inverse of one seed's share.
7. A training step in a process with the pool workers' heap settings (``core.parallel.WORKER_ENV``)
   against one with glibc's defaults, each in a fresh process of its own: CPU seconds and page faults
   per step on the short and the full replay (K seeds).

Usage: ``python benchmarks/schur_rnn.py [--steps N] [--seeds K] [--out FILE]``.
``--heap-probe K`` prints section 7's numbers for this process and exits (what the section runs).
"""

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg
import torch

from interp_repro.core import cpu_threads, numpy_rng
from interp_repro.core.parallel import WORKER_ENV
from interp_repro.reproduction.speed import comparison, matmul_flops, write_result
from interp_repro.schur_rnn.data import COPY_REPLAY, COPY_SYMBOLS
from interp_repro.schur_rnn.measures import ordered_real_schur
from interp_repro.schur_rnn.model import rollout
from interp_repro.schur_rnn.train import COPY_RECIPE, train


class TanhRecurrence(torch.autograd.Function):
    """h_t = tanh(drive_t + W_hh h_{t-1}) for K stacked networks, with a hand-written backward."""

    @staticmethod
    def forward(ctx, drive: torch.Tensor, W_hh: torch.Tensor) -> torch.Tensor:
        W_t = W_hh.transpose(1, 2)
        hidden = torch.empty_like(drive)  # (K, T, B, N_h)
        h = hidden[:, 0] = torch.tanh(drive[:, 0])
        for t in range(1, drive.shape[1]):
            h = hidden[:, t] = torch.tanh(torch.baddbmm(drive[:, t], h, W_t))
        ctx.save_for_backward(hidden, W_hh)
        return hidden

    @staticmethod
    def backward(ctx, grad_hidden: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden, W_hh = ctx.saved_tensors
        K, T, B, n = hidden.shape
        grad_pre = torch.empty_like(hidden)
        slope = 1 - hidden * hidden
        carried = torch.zeros_like(hidden[:, 0])
        for t in range(T - 1, -1, -1):
            grad_pre[:, t] = (grad_hidden[:, t] + carried) * slope[:, t]
            carried = torch.bmm(grad_pre[:, t], W_hh)
        grad_W = torch.bmm(grad_pre[:, 1:].reshape(K, (T - 1) * B, n).transpose(1, 2),
                           hidden[:, :-1].reshape(K, (T - 1) * B, n))
        return grad_pre, grad_W


def hand_written_rollout(W_xh, W_hh, W_hy, inputs):
    k, n, n_in = W_xh.shape
    T, B, _ = inputs.shape
    drive = torch.bmm(inputs.expand(k, T, B, n_in).reshape(k, T * B, n_in), W_xh.transpose(1, 2))
    hidden = TanhRecurrence.apply(drive.view(k, T, B, n), W_hh)
    return torch.bmm(hidden.view(k, T * B, n), W_hy.transpose(1, 2)).view(k, T, B, -1)


def bptt_seconds(forward, params, inputs, targets, repeats: int = 5) -> tuple[float, list]:
    """Best seconds per step (forward, loss, backward) over 3 rounds of ``repeats``, and the gradients."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeats):
            for param in params:
                param.grad = None
            ((forward(*params, inputs) - targets) ** 2).mean().backward()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best, [param.grad.clone() for param in params]


N_H, N_IO, T_COPY = 72, 8, COPY_SYMBOLS + COPY_REPLAY
"""The benchmarked network: hidden size, input and output size, time steps of the full replay."""


def bptt_problem(seeds: int) -> tuple[list[torch.Tensor], torch.Tensor, torch.Tensor]:
    """Weights of ``seeds`` stacked networks, inputs and targets of one copy-task batch (seeded)."""
    generator = torch.Generator().manual_seed(0)
    n, B = N_H, COPY_RECIPE["batch"]
    params = [(torch.randn(seeds, *shape, generator=generator) * scale).requires_grad_()
              for shape, scale in (((n, N_IO), 0.1), ((n, n), 0.12), ((N_IO, n), 0.1))]
    inputs = torch.randn(T_COPY, B, N_IO, generator=generator)
    return params, inputs, torch.randn(seeds, T_COPY, B, N_IO, generator=generator)


def bptt_flops(seeds: int) -> float:
    """Matmul FLOPs of one BPTT step of ``seeds`` stacked networks: the input drive, recurrence and
    readout products of the forward pass over every time step, times 3 with the backward."""
    return 3 * 2 * seeds * T_COPY * COPY_RECIPE["batch"] * (N_H * N_H + 2 * N_H * N_IO)


def bptt_comparison(seeds: int) -> dict[str, float]:
    """On one thread: autograd and hand-written seconds per step for ``seeds`` stacked networks, the
    largest relative gradient difference, autograd seconds for one network, and the matmul FLOP/s."""
    params, inputs, targets = bptt_problem(seeds)
    one = bptt_problem(1)
    with cpu_threads(1):
        ours, grads = bptt_seconds(rollout, params, inputs, targets)
        hand, hand_grads = bptt_seconds(hand_written_rollout, params, inputs, targets)
        single, _ = bptt_seconds(rollout, *one)
        peak = matmul_flops()
    diff = max(float((a - b).abs().max() / a.abs().max()) for a, b in zip(grads, hand_grads, strict=True))
    return {"autograd": ours, "hand": hand, "grad_diff": diff, "one_seed": single, "peak": peak}


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def copy_run(seeds: int, steps: int, seed: int = 0, threads: int = 1):
    recipe = dict(COPY_RECIPE, steps=steps)
    with cpu_threads(threads):
        return train("copy", "orthogonal", 72, seeds=seeds, seed=seed, quiet=True, **recipe)


HEAP_REPLAYS = {"short": COPY_RECIPE["train_replay"], "full": COPY_REPLAY}
"""The copy task's two replays a training step runs on (:data:`COPY_RECIPE`)."""


def heap_probe(seeds: int, steps: int = 60) -> dict[str, dict[str, float]]:
    """In this process, on one thread: CPU seconds and minor page faults per training step of ``seeds``
    stacked copy-task networks on each replay of :data:`HEAP_REPLAYS` (after 5 warm-up steps)."""
    out = {}
    for name, replay in HEAP_REPLAYS.items():
        options = dict(seeds=seeds, seed=0, batch=COPY_RECIPE["batch"], task_options={"replay": replay},
                       eval_batch=8, quiet=True)
        with cpu_threads(1):
            train("copy", "orthogonal", N_H, steps=5, **options)
            before = resource.getrusage(resource.RUSAGE_SELF)
            train("copy", "orthogonal", N_H, steps=steps, **options)
            after = resource.getrusage(resource.RUSAGE_SELF)
        system = after.ru_stime - before.ru_stime
        out[name] = {"cpu_s_per_step": (after.ru_utime - before.ru_utime + system) / steps,
                     "system_s_per_step": system / steps,
                     "page_faults_per_step": (after.ru_minflt - before.ru_minflt) / steps}
    return out


def heap_comparison(seeds: int) -> dict[str, dict[str, dict[str, float]]]:
    """:func:`heap_probe` in a fresh process with the pool workers' environment, and in one with glibc's
    own heap settings (the same environment without the ``MALLOC_*`` variables)."""
    workers = {k: v for k, v in os.environ.items() if k not in WORKER_ENV} | {
        k: v for k, v in WORKER_ENV.items() if v is not None}
    glibc = {k: v for k, v in workers.items() if not k.startswith("MALLOC_")}
    settings = {"workers": workers, "glibc": glibc}
    return {name: json.loads(subprocess.run([sys.executable, __file__, "--heap-probe", str(seeds)], env=env,
                                            capture_output=True, text=True, check=True).stdout)
            for name, env in settings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="steps for the batched/threads comparison")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/schur_rnn.json"))
    parser.add_argument("--heap-probe", type=int, metavar="K", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.heap_probe is not None:
        print(json.dumps(heap_probe(args.heap_probe)))
        return

    copy_run(1, 20)  # warm up
    start = time.perf_counter()
    one = copy_run(1, COPY_RECIPE["steps"])
    t_one = time.perf_counter() - start

    t_batched = timed(lambda: copy_run(args.seeds, args.steps))
    t_sequential = timed(lambda: [copy_run(1, args.steps, seed=s) for s in range(args.seeds)])
    t_two_threads = timed(lambda: copy_run(args.seeds, args.steps, threads=2))

    bptt = bptt_comparison(args.seeds)
    t_autograd, t_hand, t_single = bptt["autograd"], bptt["hand"], bptt["one_seed"]

    heap = heap_comparison(args.seeds)

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
        "bptt": {"setting": f"K = {args.seeds} seeds, N_h = 72, 128-step replay, "
                            f"batch {COPY_RECIPE['batch']}",
                 "seconds_per_step_autograd": t_autograd, "seconds_per_step_hand_written": t_hand,
                 "largest_relative_gradient_difference": bptt["grad_diff"]},
        "bptt_stacking": {"setting": f"autograd, N_h = {N_H}, 128-step replay, batch {COPY_RECIPE['batch']}, "
                                     "one thread",
                          "seconds_per_step_one_seed": t_single,
                          f"seconds_per_step_{args.seeds}_seeds_stacked": t_autograd,
                          "stacked_speedup_per_seed": args.seeds * t_single / t_autograd,
                          "matmul_gflops_one_thread": bptt["peak"] / 1e9,
                          "share_of_matmul_one_seed": bptt_flops(1) / t_single / bptt["peak"],
                          "share_of_matmul_stacked": bptt_flops(args.seeds) / t_autograd / bptt["peak"],
                          "most_stacking_could_gain": t_single * bptt["peak"] / bptt_flops(1)},
        "heap": {"setting": f"K = {args.seeds} seeds, N_h = {N_H}, batch {COPY_RECIPE['batch']}, one thread, "
                            "a fresh process each; workers: core.parallel.WORKER_ENV's MALLOC_* settings",
                 **{f"{name}_{replay}": numbers for name, probe in heap.items()
                    for replay, numbers in probe.items()}},
        "comparisons": [
            *(comparison(f"training step: the pool workers' heap vs glibc's defaults, {replay} replay",
                         heap["workers"][replay]["cpu_s_per_step"], heap["glibc"][replay]["cpu_s_per_step"],
                         f"{args.seeds} seeds, {HEAP_REPLAYS[replay]}-step replay, CPU seconds per step")
              for replay in HEAP_REPLAYS),
            comparison("batched vs one seed after another", t_batched, t_sequential, f"{args.seeds} seeds"),
            comparison("1 vs 2 torch threads (batched)", t_batched, t_two_threads, f"{args.seeds} seeds"),
            comparison("BPTT: autograd vs hand-written backward", t_autograd, t_hand,
                       f"{args.seeds} seeds, 128-step replay"),
            comparison("BPTT step: stacked vs one seed after another", t_autograd, args.seeds * t_single,
                       f"{args.seeds} seeds, 128-step replay"),
            comparison("ordered vs scipy's unordered real Schur", float(np.median(ordered)),
                       float(np.median(plain)), "72 x 72"),
        ],
    }
    write_result(result, args.out)


if __name__ == "__main__":
    main()
