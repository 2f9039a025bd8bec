"""Batched training of toy models (Elhage et al. 2022, the original notebook's recipe).

AdamW (lr 1e-3, weight decay 0.01, constant rate), batch 1024, loss
L = sum_i I_i (y_i - y'_i)^2 averaged over the batch, summed over the K independent instances.
:func:`train_best` trains several seeds per setting at once and keeps the lowest-loss one.
"""

from dataclasses import dataclass

import numpy as np
import torch

from interp_repro.core import (
    check_finite_loss,
    check_fraction,
    check_positive_int,
    progress,
    select_device,
    torch_generator,
)
from interp_repro.core.flops import StepMeter
from interp_repro.core.units import Arrays
from interp_repro.superposition.data import sparse_features
from interp_repro.superposition.model import ToyModel

BOUND = ("drawing a fresh (K, batch, n) input every step and the elementwise passes over it and the "
         "reconstruction, around matrix products whose inner size is the hidden width m")
"""What keeps a step below the matrix-product ceiling (``core.flops``)."""


@dataclass
class TrainResult:
    """Trained weights, the per-instance final loss and optional snapshots along training."""

    W: np.ndarray            # (K, m, n)
    b: np.ndarray            # (K, n)
    loss: np.ndarray         # (K,) evaluated on a fresh, seeded batch after training
    W_out: np.ndarray | None = None            # (K, n, m) for the abs model
    snapshot_steps: np.ndarray | None = None   # (T,)
    snapshot_W: np.ndarray | None = None       # (T, K, m, n)
    snapshot_loss: np.ndarray | None = None    # (T, K) training loss at each snapshot


def instance_loss(model: ToyModel, x: torch.Tensor, importance: torch.Tensor) -> torch.Tensor:
    """Per-instance loss, shape (K,): mean over the batch of sum_i I_i (y_i - y'_i)^2."""
    err = model(x) - model.target(x)
    return (err.square() * importance).sum(-1).mean(-1)


@torch.no_grad()
def loss_gradients(model: ToyModel, x: torch.Tensor, importance: torch.Tensor,
                   work: tuple[torch.Tensor, torch.Tensor] | None = None,
                   instances: slice = slice(None)) -> None:
    """Set ``.grad`` of every parameter to d(sum_k L_k)/d(param), written out by hand, for the
    ``instances`` whose batch ``x`` (k, batch, n) and ``importance`` (k, 1, n) are given (every
    instance by default); the other instances' gradients are left as they are.

    The chain rule is spelled out so each step touches the large (k, batch, n) tensors few times,
    in place, in the optional ``work`` buffers (two float tensors at least as large as ``x``).
    Each instance's arithmetic is the same whichever instances it is computed with, so a block of
    instances gets the gradients, bit for bit, that the whole model would. It is checked against
    autograd on :func:`instance_loss` in the tests.
    """
    params = [p for p in (model.W, model.b, model.W_out) if p is not None]
    for param in params:
        if param.grad is None:
            param.grad = torch.zeros_like(param)
    k = x.shape[0]
    z_buf, spare = (w[:k] for w in work) if work is not None else (None, torch.empty_like(x))
    scale = importance * (2.0 / x.shape[1])  # dL/dy' = 2 I (y' - y) / batch
    target = model.target(x)
    W = model.W[instances]
    a = torch.bmm(x, W.transpose(1, 2))  # (k, B, m) pre-activations W x
    h = torch.relu(a) if model.kind in ("hidden_relu", "abs") else a
    w_out = model.W_out[instances].transpose(1, 2) if model.kind == "abs" else W  # (k, m, n)
    z = torch.baddbmm(model.b[instances], h, w_out, out=z_buf)  # (k, B, n)
    if model.kind == "linear":
        g = z.sub_(target)
    else:
        # (y' - y) where z > 0, else 0: ReLU's own backward kernel, vectorised, where masking with a
        # bool tensor branches on every entry (about 25 times slower on a block)
        torch.sub(z, target, out=spare)
        g = torch.ops.aten.threshold_backward.grad_input(spare, z, 0, grad_input=z)
    g.mul_(scale)  # dL/dz
    torch.sum(g, 1, keepdim=True, out=model.b.grad[instances])
    grad_w_out = torch.bmm(h.transpose(1, 2), g)  # (k, m, n) = dL/d(w_out)
    dh = torch.bmm(g, w_out.transpose(1, 2))  # (k, B, m)
    if model.kind in ("hidden_relu", "abs"):
        dh.mul_(a > 0)
    grad_w_in = torch.bmm(dh.transpose(1, 2), x)  # (k, m, n)
    if model.kind == "abs":
        model.W_out.grad[instances] = grad_w_out.transpose(1, 2)
        model.W.grad[instances] = grad_w_in
    else:
        torch.add(grad_w_in, grad_w_out, out=model.W.grad[instances])


BLOCK_FLOATS = 1 << 20
"""Inputs per block of instances in a training step (4 MB of float32): a block's batch, the
reconstruction and its error stay in the CPU's cache between the step's passes over them, where the
whole (K, batch, n) batch would stream from memory at every pass."""


def instance_blocks(n_instances: int, floats_each: int) -> list[slice]:
    """The instances in blocks of about :data:`BLOCK_FLOATS` inputs (at least one instance each)."""
    size = max(1, BLOCK_FLOATS // floats_each)
    return [slice(i, min(i + size, n_instances)) for i in range(0, n_instances, size)]


def train(model: ToyModel, importance: torch.Tensor, density: torch.Tensor, *, steps: int,
          seed: int, batch: int = 1024, lr: float = 1e-3, weight_decay: float = 0.01,
          correlation: str = "none", snapshot_every: int | None = None,
          desc: str = "training", quiet: bool | None = None) -> TrainResult:
    """Train every instance of ``model`` at once and return its weights and final losses.

    ``importance``: (K, n) or (n,); ``density``: (K,) feature probability per instance.
    """
    check_positive_int("steps", steps)
    check_positive_int("batch", batch)
    k, n = model.n_instances, model.W.shape[2]
    device = model.W.device
    importance = torch.as_tensor(importance, dtype=torch.float32, device=device)
    importance = importance.expand(k, n).reshape(k, 1, n)
    density = torch.as_tensor(density, dtype=torch.float32, device=device)
    if density.shape != (k,):
        raise ValueError(f"density must have shape ({k},), one per instance, got {tuple(density.shape)}")
    gen = torch_generator(seed, device)
    signed = model.kind == "abs"
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    snaps, snap_steps, snap_loss = [], [], []
    x_buf = torch.empty(k, batch, n, device=device)
    work = (torch.empty_like(x_buf), torch.empty_like(x_buf))
    meter = StepMeter(BOUND)
    # Independent features are drawn block by block, in the order one draw of the whole batch would
    # take from the generator, so blocking changes no number; correlated pairs are drawn whole.
    blocks = instance_blocks(k, batch * n) if correlation == "none" else [slice(0, k)]
    for step in progress(range(steps), desc=desc, quiet=quiet):
        snapshot = bool(snapshot_every) and (step % snapshot_every == 0 or step == steps - 1)
        with meter.step(snapshot):
            for block in [slice(0, k)] if snapshot else blocks:
                x = sparse_features(density[block], batch, n, gen, signed=signed, correlation=correlation,
                                    out=x_buf[: block.stop - block.start])
                if snapshot:
                    snap_steps.append(step)
                    snaps.append(model.W.detach().cpu().numpy().copy())
                    with torch.no_grad():
                        snap_loss.append(instance_loss(model, x, importance).cpu().numpy())
                loss_gradients(model, x, importance[block], work, block)
            opt.step()
    final = evaluate(model, importance, density, seed=seed + 1, correlation=correlation)
    check_finite_loss(desc, final)
    return TrainResult(
        W=model.W.detach().cpu().numpy().copy(),
        b=model.b.detach()[:, 0].cpu().numpy().copy(),
        loss=final,
        W_out=None if model.W_out is None else model.W_out.detach().cpu().numpy().copy(),
        snapshot_steps=np.array(snap_steps) if snapshot_every else None,
        snapshot_W=np.stack(snaps) if snapshot_every else None,
        snapshot_loss=np.stack(snap_loss) if snapshot_every else None,
    )


@torch.no_grad()
def evaluate(model: ToyModel, importance: torch.Tensor, density: torch.Tensor, *, seed: int,
             batches: int = 8, batch: int = 1024, correlation: str = "none") -> np.ndarray:
    """Mean per-instance loss over ``batches`` fresh batches drawn from ``seed``."""
    gen = torch_generator(seed, model.W.device)
    n = model.W.shape[2]
    total = torch.zeros(model.n_instances, device=model.W.device)
    for _ in range(batches):
        x = sparse_features(density, batch, n, gen, signed=model.kind == "abs",
                            correlation=correlation)
        total += instance_loss(model, x, importance)
    return (total / batches).cpu().numpy()


def train_best(kind: str, n: int, m: int, importance: np.ndarray, density: np.ndarray, *,
               seeds: int, steps: int, batch: int, seed: int, desc: str, lr: float = 1e-3,
               correlation: str = "none", snapshot_every: int | None = None,
               device: str = "cpu", init: str = "xavier", init_instances: int | None = None) -> Arrays:
    """Train ``seeds`` models per point (one row of ``importance`` and ``density`` each) in one
    batched program on ``device`` and keep the lowest-loss one per point. ``init`` and
    ``init_instances``: see :func:`~interp_repro.superposition.model.init_std`.

    Returns W (P, m, n), b (P, n), loss (P,), all_loss (P, seeds) and, for the abs model, W_out.
    """
    check_positive_int("n_features", n)
    check_positive_int("n_hidden", m)
    check_positive_int("seeds", seeds)
    density = np.asarray(density, dtype=np.float64)
    check_fraction("density", density)
    points = density.shape[0]
    importance = np.broadcast_to(np.asarray(importance, dtype=np.float64), (points, n))
    rep_density = torch.tensor(np.repeat(density, seeds), dtype=torch.float32)
    rep_importance = torch.tensor(np.repeat(importance, seeds, axis=0), dtype=torch.float32)
    model = ToyModel(points * seeds, n, m, kind, torch_generator(seed), init,
                     init_instances).to(select_device(device))
    res = train(model, rep_importance, rep_density, steps=steps, batch=batch, seed=seed + 1, lr=lr,
                correlation=correlation, snapshot_every=snapshot_every, desc=desc)
    all_loss = res.loss.reshape(points, seeds)
    best = np.arange(points) * seeds + all_loss.argmin(axis=1)
    out = {"W": res.W[best], "b": res.b[best], "loss": all_loss.min(axis=1), "all_loss": all_loss}
    if res.W_out is not None:
        out["W_out"] = res.W_out[best]
    if snapshot_every:
        out.update(snapshot_steps=res.snapshot_steps, snapshot_W=res.snapshot_W[:, best],
                   snapshot_loss=res.snapshot_loss[:, best])
    return out
