"""Synthetic sparse features (Elhage et al. 2022, §"Demonstrating superposition").

Each feature is 0 with probability S = 1 - p and otherwise uniform on [0, 1] (or on [-1, 1] for the
absolute-value task of §"Computation in superposition"). ``p`` is the feature *density*.
We draw one uniform ``u`` per entry and set x = ReLU(1 - u / p): the feature is present exactly when
``u < p``, and 1 - u / p is then itself uniform on (0, 1]. This halves the random numbers the
original notebook draws (two per entry) and runs in place, without a mask.
"""

import numpy as np
import torch

CORRELATIONS = ("none", "correlated", "anticorrelated")


def decaying_importance(decay: float, n_features: int) -> np.ndarray:
    """The importances I_i = decay^i, i = 0 .. n - 1, that weight each feature's error in the loss
    (§"Demonstrating superposition": 0.7^i, 0.9^i, ...)."""
    return decay ** np.arange(n_features)


def sparse_features(density: torch.Tensor, batch: int, n_features: int, generator: torch.Generator,
                    signed: bool = False, correlation: str = "none",
                    out: torch.Tensor | None = None) -> torch.Tensor:
    """A (K, batch, n_features) batch for K instances with per-instance ``density`` of shape (K,).

    ``correlation``: ``none`` (independent features); ``correlated`` (features 2j and 2j+1 are present
    together, §"Correlated and anticorrelated features"); ``anticorrelated`` (at most one of each pair
    is present, each with probability p, so p <= 1/2). ``out``: an optional (K, batch, n) float32
    buffer that independent features are drawn into, which saves allocating (and page-faulting) a
    fresh tensor every step; correlated pairs ignore it.
    """
    if correlation not in CORRELATIONS:
        raise ValueError(f"unknown correlation {correlation!r}: choose one of {CORRELATIONS}")
    n_inst = density.shape[0]
    p = density.view(n_inst, 1, 1)
    device = density.device
    if correlation == "none":
        x = torch.rand(n_inst, batch, n_features, generator=generator, device=device, out=out)
        x.div_(p).neg_().add_(1).relu_()
        return torch.where(x > 0, 2 * x - 1, 0.0) if signed else x
    else:
        if n_features % 2:
            raise ValueError(f"{correlation} features come in pairs; n_features={n_features} is odd")
        pair_u = torch.rand(n_inst, batch, n_features // 2, generator=generator, device=device)
        if correlation == "correlated":
            present = (pair_u < p).repeat_interleave(2, dim=-1)
        else:
            if float(density.max()) > 0.5:
                raise ValueError("anticorrelated pairs need density <= 0.5")
            active = pair_u < 2 * p
            first = pair_u < p  # given the pair is active, each member with probability 1/2
            present = torch.stack([active & first, active & ~first], dim=-1).flatten(-2)
        values = torch.rand(n_inst, batch, n_features, generator=generator, device=device)
    if signed:
        values = values.mul_(2).sub_(1)
    return values.mul_(present)
