"""Full-batch training of K modular-addition networks at once (Zhong et al. 2023, §3 recipe).

AdamW (lr 1e-3, weight decay 2.0, betas (0.9, 0.98)), learning-rate warm-up min(step / 10, 1), full
batch over each instance's own seeded train split (fraction 0.8), cross-entropy on the last
position's logits. Everything runs in float32 except the log-softmax, which runs in float64 as in
Zhong's code (its values reach the size where float32 rounding stalls the loss). AdamW is
elementwise, so summing the K losses keeps the instances independent.
"""

from dataclasses import dataclass

import numpy as np
import torch

from interp_repro.core import (
    check_finite_loss,
    check_fraction,
    check_positive,
    check_positive_int,
    progress,
    select_device,
    torch_generator,
)
from interp_repro.core.device import flush_denormals
from interp_repro.core.flops import StepMeter
from interp_repro.modular_addition.data import all_pairs, split
from interp_repro.modular_addition.model import ModAddNet

BOUND = ("the float64 log-softmax over every pair's p logits, the attention softmax and AdamW's "
         "elementwise update between matrix products whose inner sizes are 32 to 512")
"""What keeps a step below the matrix-product ceiling (``core.flops``)."""


@dataclass
class TrainResult:
    """The trained model, its splits and curves sampled every ``eval_every`` steps."""

    model: ModAddNet
    train_idx: torch.Tensor   # (K, n_train) pair indices a * p + b
    test_idx: torch.Tensor    # (K, n_test)
    steps: np.ndarray         # (n_evals,) step numbers of the curves
    train_loss: np.ndarray    # (n_evals, K)
    test_loss: np.ndarray
    train_acc: np.ndarray
    test_acc: np.ndarray
    checkpoints: dict[int, dict[str, np.ndarray]]  # step -> the model's state (numpy) after that step


def cross_entropy(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Per-instance mean cross-entropy (K,), log-softmax in float64; logits (K, N, p), labels (K, N)."""
    logp = logits.double().log_softmax(-1)
    return -logp.gather(-1, labels.unsqueeze(-1)).squeeze(-1).mean(-1)


@torch.no_grad()
def scores(model: ModAddNet, idx: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Loss and accuracy (K,) of each instance on its own pair indices ``idx`` (K, N), on the model's
    device."""
    a, b, labels = (x.to(idx.device) for x in all_pairs(model.p))
    logits = model(a[idx], b[idx])
    y = labels[idx]
    return (cross_entropy(logits, y).cpu().numpy(),
            (logits.argmax(-1) == y).double().mean(-1).cpu().numpy())


def train(kind: str, p: int, seeds: list[int], *, steps: int, rate: float = 1.0, lr: float = 1e-3,
          weight_decay: float = 2.0, train_frac: float = 0.8, eval_every: int = 50, d_model: int = 128,
          n_heads: int = 4, d_mlp: int = 512, init: str = "reference", checkpoints: tuple[int, ...] = (),
          device: str = "cpu", desc: str = "training", quiet: bool | None = None) -> TrainResult:
    """Train one network of model ``kind`` (``model.KINDS``) per seed in ``seeds``, all stacked. Seed s
    fixes both instance's split (``data.split``) and its initialisation (``torch_generator(s)``), so an
    instance's result does not depend on which other seeds it is stacked with. The model's state is
    also kept after each step count in ``checkpoints`` (at most ``steps``): the learning-rate schedule
    does not depend on ``steps``, so it is the state a run of that many steps ends in. On ``device``
    "cuda" the stacked instances train as one program on the GPU (paper scale: hundreds of networks);
    an instance's numbers then match its CPU run up to float rounding, not bit for bit."""
    if not isinstance(seeds, list | tuple) or not seeds:
        raise ValueError(f"seeds must be a non-empty list of integers, got {seeds!r}")
    check_positive_int("steps", steps)
    check_positive_int("eval_every", eval_every)
    check_fraction("train_frac", train_frac)
    check_positive("lr", lr)
    for c in checkpoints:
        check_positive_int("checkpoints", c)
        if c > steps:
            raise ValueError(f"checkpoint {c} lies beyond the run's {steps} steps")
    instances = [ModAddNet(1, p, kind, torch_generator(s), rate=rate, d_model=d_model,
                           n_heads=n_heads, d_mlp=d_mlp, init=init) for s in seeds]
    model = instances[0]
    if len(instances) > 1:
        with torch.no_grad():
            for name, param in model.named_parameters():
                param.data = torch.cat([getattr(m, name) for m in instances])
    dev = select_device(device)
    model.to(dev)
    train_idx, test_idx = (idx.to(dev) for idx in split(p, train_frac, list(seeds)))
    a, b, labels = (x.to(dev) for x in all_pairs(p))
    a_tr, b_tr, y_tr = a[train_idx], b[train_idx], labels[train_idx]
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(step / 10, 1.0))
    evals: list[dict[str, np.ndarray]] = []
    eval_steps: list[int] = []
    states: dict[int, dict[str, np.ndarray]] = {}
    meter = StepMeter(BOUND)
    # Denormal floats, which a CPU handles tens of times slower, are flushed to zero. Measured on an
    # AMD EPYC (``benchmarks/modular_addition_training.py``, and the book's 10,000-step learnable run),
    # these runs produce none: a 10,000-step run kept its time per step flat, flushed or not, with no
    # subnormal gradient at the end of any block of 1,000 steps, and a 3,000-step one trained bit for
    # bit as without flushing. The flush guards a recipe whose gradients do reach them, as the Schur
    # trainer's do.
    with flush_denormals():
        for step in progress(range(steps + 1), desc=desc, quiet=quiet):
            evaluating = step % eval_every == 0 or step == steps
            with meter.step((evaluating, step == steps)):
                if step in checkpoints:
                    states[step] = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
                if evaluating:
                    (train_loss, train_acc), (test_loss, test_acc) = (scores(model, train_idx),
                                                                      scores(model, test_idx))
                    evals.append({"train_loss": train_loss, "train_acc": train_acc, "test_loss": test_loss,
                                  "test_acc": test_acc})
                    eval_steps.append(step)
                if step == steps:
                    break
                loss = cross_entropy(model(a_tr, b_tr), y_tr).sum()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                sched.step()
    curves = {name: np.array([e[name] for e in evals]) for name in evals[0]}  # each (n_evals, K)
    check_finite_loss(desc, curves["train_loss"])
    return TrainResult(model, train_idx.cpu(), test_idx.cpu(), np.array(eval_steps), **curves,
                       checkpoints=states)
