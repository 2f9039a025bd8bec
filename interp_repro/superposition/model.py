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

from interp_repro.core import check_positive_int
from interp_repro.core.seeding import check_generator

KINDS = ("linear", "relu", "hidden_relu", "abs")


INITS = ("xavier", "notebook")


def init_std(init: str, n_instances: int, n_features: int, n_hidden: int) -> float:
    """The standard deviation of W's normal initialisation.

    ``xavier``: per instance, sqrt(2 / (n + m)). ``notebook``: what the original notebook gets by
    applying ``xavier_normal_`` to its whole (instances, features, hidden) tensor, whose fans torch
    takes as n * m and instances * m: sqrt(2 / (m (n + instances))), smaller, and tied to the
    number of instances the notebook trains together (``n_instances``: pass the notebook's, not the
    number a batched program happens to hold).
    """
    if init not in INITS:
        raise ValueError(f"unknown init {init!r}: choose one of {INITS}")
    if init == "xavier":
        return math.sqrt(2.0 / (n_features + n_hidden))
    return math.sqrt(2.0 / (n_hidden * (n_features + n_instances)))


def _normal(shape: tuple[int, int, int], std: float, generator: torch.Generator) -> nn.Parameter:
    return nn.Parameter(torch.randn(shape, generator=generator) * std)


class ToyModel(nn.Module):
    """K independent toy models of one ``kind`` trained as one tensor program."""

    def __init__(self, n_instances: int, n_features: int, n_hidden: int, kind: str,
                 generator: torch.Generator, init: str = "xavier", init_instances: int | None = None):
        """``init_instances``: the instance count of the ``notebook`` initialisation scale
        (:func:`init_std`), this model's own if None."""
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"unknown model kind {kind!r}: choose one of {KINDS}")
        for name, value in (("n_instances", n_instances), ("n_features", n_features), ("n_hidden", n_hidden)):
            check_positive_int(name, value)
        check_generator(generator)
        self.kind = kind
        k, n, m = n_instances, n_features, n_hidden
        std = init_std(init, k if init_instances is None else check_positive_int("init_instances",
                                                                                  init_instances), n, m)
        self.W = _normal((k, m, n), std, generator)
        self.W_out = _normal((k, n, m), std, generator) if kind == "abs" else None
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
