"""The toy models of Elhage et al. (2022), batched along an instance dimension K.

W has shape (K, m, n): for each instance the paper's m x n matrix (hidden x features).

- ``linear``:      x' = W^T W x + b                      (§"Demonstrating superposition")
- ``relu``:        x' = ReLU(W^T W x + b)                (the ReLU output model)
- ``hidden_relu``: x' = ReLU(W^T ReLU(W x) + b)          (§"Privileged basis")
- ``abs``:         y' = ReLU(W2 ReLU(W1 x) + b), target |x| (§"Computation in superposition")
"""

import math

import torch
from torch import nn

KINDS = ("linear", "relu", "hidden_relu", "abs")


def _xavier(shape: tuple[int, int, int], fan_in: int, fan_out: int,
            generator: torch.Generator) -> nn.Parameter:
    # Per instance: std = sqrt(2 / (fan_in + fan_out)). The original notebook applies xavier to the
    # whole 3-D tensor, which ties the scale to the number of instances; we do not.
    std = math.sqrt(2.0 / (fan_in + fan_out))
    return nn.Parameter(torch.randn(shape, generator=generator) * std)


class ToyModel(nn.Module):
    """K independent toy models of one ``kind`` trained as one tensor program."""

    def __init__(self, n_instances: int, n_features: int, n_hidden: int, kind: str,
                 generator: torch.Generator):
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"unknown model kind {kind!r}: choose one of {KINDS}")
        self.kind = kind
        k, n, m = n_instances, n_features, n_hidden
        self.W = _xavier((k, m, n), n, m, generator)
        self.W_out = _xavier((k, n, m), m, n, generator) if kind == "abs" else None
        self.b = nn.Parameter(torch.zeros(k, 1, n))

    @property
    def n_instances(self) -> int:
        return self.W.shape[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Map a (K, batch, n) input to the (K, batch, n) reconstruction (or |x| estimate)."""
        h = torch.bmm(x, self.W.transpose(1, 2))  # (K, B, m) = W x
        if self.kind in ("hidden_relu", "abs"):
            h = torch.relu(h)
        w_out = self.W_out.transpose(1, 2) if self.kind == "abs" else self.W
        out = torch.baddbmm(self.b, h, w_out)
        return out if self.kind == "linear" else torch.relu(out)

    def target(self, x: torch.Tensor) -> torch.Tensor:
        """What the model should output for input ``x``."""
        return x.abs() if self.kind == "abs" else x
