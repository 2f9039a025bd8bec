"""The networks of the abstraction study (Yang, Saxe, Latham 2026): their initialisations and forward maps.

Conventions. Samples are rows: ``X`` is (N, d_in). A hidden layer is Z = X W^T with W of shape
(width, d_in) and i.i.d. N(0, kappa^2 / width) entries (:func:`gaussian_weights`), so
Q0 = Z Z^T -> kappa^2 Sigma_x as the width grows: the initialisation
:func:`~interp_repro.abstraction.measures.alpha_trajectory` assumes (q0_k = kappa^2 x_k). The
two-layer linear, deep linear and one-hidden-layer nonlinear networks work in float64 on tensors; the
residual GELU MLP of the local GELU ablation is an ``nn.Module`` in float32.
"""

import math
from collections.abc import Callable

import numpy as np
import torch
from torch import nn
from torch.nn.functional import gelu

from interp_repro.core import check_positive, check_positive_int, torch_generator

LEAKY_SLOPE = 0.1
"""Negative-side slope of the ``leaky_relu`` activation."""

ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "erf": torch.erf,
    "relu": torch.relu,
    "leaky_relu": lambda u: torch.nn.functional.leaky_relu(u, LEAKY_SLOPE),
    "gelu": torch.nn.functional.gelu,  # exact, u Phi(u)
    "linear": lambda u: u,
}
"""Activations of :func:`nonlinear_hidden` (those of the kernel maps in :mod:`.measures`, plus the
identity)."""


def gaussian_weights(gen: torch.Generator, shape: tuple[int, ...], std: float,
                     device: torch.device) -> torch.Tensor:
    """N(0, std^2) draws from a CPU generator (the same numbers on every device), as a leaf on device."""
    draw = std * torch.randn(*shape, generator=gen, dtype=torch.float64)
    return draw.to(device).requires_grad_()


# --- two-layer linear network -------------------------------------------------------------------------

def linear_hidden(X: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """The hidden layer Z = X W^T, (N, width)."""
    return X @ W.T


# --- deep linear network ------------------------------------------------------------------------------

def _frame(gen: torch.Generator, width: int, dim: int) -> torch.Tensor:
    """A Haar-random (width, dim) matrix with orthonormal columns (width >= dim)."""
    q, r = torch.linalg.qr(torch.randn(width, dim, generator=gen, dtype=torch.float64))
    return q * torch.sign(torch.diagonal(r))


def balanced_init(depth: int, width: int, d_in: int, kappa: float, seed: int) -> list[torch.Tensor]:
    """Exactly balanced weights W_1 = s O_1, W_l = s O_l O_{l-1}^T (l >= 2), s = kappa^(1/depth).

    O_l are seeded random (width, d_in) frames. Then W_{l+1}^T W_{l+1} = W_l W_l^T (layer-wise balance,
    conserved by gradient flow), the end-to-end map is kappa times an isometry, and the hidden kernels
    start at Q_l = kappa^(2l/L) Sigma_x, so the last layer starts where the two-layer net does
    (Q_L = kappa^2 Sigma_x). Needs width >= d_in.
    """
    depth, width = check_positive_int("depth", depth), check_positive_int("width", width)
    if width < d_in:
        raise ValueError(f"a balanced init needs width >= d_in = {d_in}, got width {width}")
    s = check_positive("kappa", kappa) ** (1 / depth)
    gen = torch_generator(seed)
    frames = [_frame(gen, width, d_in) for _ in range(depth)]
    return [s * frames[0]] + [s * frames[i] @ frames[i - 1].T for i in range(1, depth)]


def deep_hidden(X: torch.Tensor, weights: list[torch.Tensor]) -> list[torch.Tensor]:
    """Every layer Z_l = Z_{l-1} W_l^T of the deep linear network, from Z_0 = X: [X, Z_1, ..., Z_L]."""
    reps, Z = [X], X
    for W in weights:
        Z = Z @ W.T
        reps.append(Z)
    return reps


# --- one hidden nonlinear layer -----------------------------------------------------------------------

def nonlinear_hidden(X: torch.Tensor, W: torch.Tensor, activation: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Pre-activations U = sqrt(width) X W^T and features H = phi(U) / sqrt(width), both (N, width).

    With W ~ N(0, kappa^2 / width) every unit's pre-activation has covariance kappa^2 Sigma_x at init,
    and the feature kernel K = H H^T = (1/width) sum_units phi(u) phi(u)^T tends to the kernel maps of
    :mod:`.measures` applied to Q = U U^T / width = Z Z^T.
    """
    root = math.sqrt(W.shape[0])
    U = root * (X @ W.T)
    return U, ACTIVATIONS[activation](U) / root


# --- residual GELU MLP (local GELU ablation) ----------------------------------------------------------

class Block(nn.Module):
    """Residual block x + W2 GELU(W1 LayerNorm(x)); ``ablate=True`` replaces GELU by the identity."""

    def __init__(self, d_model: int, d_hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.fc1 = nn.utils.skip_init(nn.Linear, d_model, d_hidden)
        self.fc2 = nn.utils.skip_init(nn.Linear, d_hidden, d_model)

    def forward(self, x: torch.Tensor, ablate: bool = False) -> torch.Tensor:
        h = self.fc1(self.norm(x))
        return x + self.fc2(h if ablate else gelu(h))


class ResidualGeluMLP(nn.Module):
    """Linear embedding, ``n_blocks`` residual GELU blocks, LayerNorm and a 4-way linear head."""

    def __init__(self, d_in: int, d_model: int, d_hidden: int, n_blocks: int, seed: int):
        super().__init__()
        self.embed = nn.utils.skip_init(nn.Linear, d_in, d_model)
        self.blocks = nn.ModuleList(Block(d_model, d_hidden) for _ in range(n_blocks))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.utils.skip_init(nn.Linear, d_model, 4)
        gen = torch_generator(seed)
        with torch.no_grad():
            for module in self.modules():
                if isinstance(module, nn.Linear):  # N(0, 1 / fan_in) weights, zero biases
                    fan_in = module.weight.shape[1]
                    module.weight.copy_(torch.randn(module.weight.shape, generator=gen) / math.sqrt(fan_in))
                    module.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        return self.head(self.norm(h))


@torch.no_grad()
def block_representations(model: ResidualGeluMLP, X, ablate_block: int | None = None) -> np.ndarray:
    """(n_blocks, N, d_model) residual stream after every block, GELU -> identity in ``ablate_block``.

    The ablation acts at evaluation only (no retraining); blocks before ``ablate_block`` are unchanged,
    later ones see the changed stream.
    """
    n_blocks = len(model.blocks)
    if ablate_block is not None and not (isinstance(ablate_block, int) and 0 <= ablate_block < n_blocks):
        raise ValueError(f"ablate_block must be None or a block index in 0..{n_blocks - 1}, "
                         f"got {ablate_block!r}")
    h = model.embed(torch.as_tensor(X, dtype=torch.float32))
    stream = []
    for i, block in enumerate(model.blocks):
        h = block(h, ablate=i == ablate_block)
        stream.append(h)
    return torch.stack(stream).numpy()


@torch.no_grad()
def block_hidden(model: ResidualGeluMLP, X, block: int) -> tuple[np.ndarray, np.ndarray]:
    """(pre, post), each (N, d_hidden): block ``block``'s hidden layer W1 LN(x) before and after its
    GELU in the intact network. With that GELU ablated the hidden layer is ``pre``: the attenuation
    law's comparison (Yang, Saxe, Latham 2026, nonlinear networks) inside one block."""
    n_blocks = len(model.blocks)
    if not (isinstance(block, int) and 0 <= block < n_blocks):
        raise ValueError(f"block must be a block index in 0..{n_blocks - 1}, got {block!r}")
    h = model.embed(torch.as_tensor(X, dtype=torch.float32))
    for earlier in model.blocks[:block]:
        h = earlier(h)
    target = model.blocks[block]
    pre = target.fc1(target.norm(h))
    return pre.numpy(), gelu(pre).numpy()
