"""The bias-free tanh RNN of Draeger (2026, eq. 1-2), batched over K instances along a leading dimension.

h_t = tanh(W_xh x_t + W_hh h_{t-1}), h_0 = 0, y_t = W_hy h_t. Shapes per instance: W_xh (N_h, N_x),
W_hh (N_h, N_h), W_hy (N_y, N_h); stacked, each gets a leading K.

Constructions of W_hh (Draeger 2026, §4), with m = N_h^(-1/2):

- ``default``: W_hh(0)_ij ~ U[-m, m] (PyTorch's RNN init), trained freely;
- ``orthogonal``: W_hh(0) = Q, Q^T Q = I, trained freely;
- ``normal``: W_hh(0) = Q D Q^T, D block-diagonal of [[a, -b], [b, a]] with a, b ~ N(0, 1/6), trained freely;
- ``cayley``: every iterate W = O(A) D O(A)^T with O(A) = (I - A)(I + A)^(-1), A skew-symmetric and D
  block-diagonal; both trained. A(0) = (U - U^T) / 2 with U ~ U[-m, m], D(0) the real block form of
  the eigenvalues of another U[-m, m] matrix.

W_xh and W_hy start U[-m, m] (PyTorch's RNN and Linear inits, ours).
"""

import math

import numpy as np
import torch
from torch import nn

from interp_repro.core import check_positive_int
from interp_repro.core.seeding import check_generator

CONSTRUCTIONS = ("default", "orthogonal", "normal", "cayley")
CONSTRUCTION_LABELS = {"default": "dense default", "orthogonal": "dense orthogonal", "normal": "dense normal",
                       "cayley": "Cayley"}
"""The display name of each construction of :data:`CONSTRUCTIONS`."""


def _uniform(shape: tuple[int, ...], bound: float, generator: torch.Generator,
             dtype: torch.dtype) -> torch.Tensor:
    return (torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1).mul_(bound).to(dtype)


def _orthogonal(k: int, n: int, generator: torch.Generator) -> torch.Tensor:
    """K Haar-random orthogonal n x n matrices (QR of a Gaussian, signs fixed), float64."""
    q, r = torch.linalg.qr(torch.randn(k, n, n, generator=generator, dtype=torch.float64))
    return q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)


def _normal_blocks(k: int, n: int, generator: torch.Generator) -> torch.Tensor:
    """K block-diagonal D with 2x2 blocks [[a, -b], [b, a]], a, b ~ N(0, 1/6); a 1x1 [a] last if n is odd."""
    a = torch.randn(k, (n + 1) // 2, generator=generator, dtype=torch.float64) / math.sqrt(6.0)
    b = torch.randn(k, n // 2, generator=generator, dtype=torch.float64) / math.sqrt(6.0)
    return _block_diagonal(a.repeat_interleave(2, dim=1)[:, :n], b)


def _block_diagonal(diag: torch.Tensor, rot: torch.Tensor) -> torch.Tensor:
    """(K, n, n) matrix with ``diag`` on the diagonal and -rot_j, +rot_j at (2j, 2j+1), (2j+1, 2j)."""
    n = diag.shape[1]
    sup = torch.zeros(diag.shape[0], n - 1, dtype=diag.dtype, device=diag.device)
    sup = sup.index_put((torch.arange(diag.shape[0]).unsqueeze(1), torch.arange(0, n - 1, 2).unsqueeze(0)),
                        rot[:, : (n // 2)])
    return torch.diag_embed(diag) - torch.diag_embed(sup, offset=1) + torch.diag_embed(sup, offset=-1)


def _eigen_blocks(U: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Real block form of eig(U): complex pairs as [[Re, -Im], [Im, Re]] first, then real eigenvalues
    paired as diag(l1, l2) (and one 1x1 last if n is odd). Returns (diag, rot, is_complex per pair)."""
    n = U.shape[0]
    lam = np.linalg.eigvals(U)
    pairs = lam[lam.imag > 0]
    reals = np.sort(lam[lam.imag == 0].real)[::-1]
    diag = np.concatenate([np.repeat(pairs.real, 2), reals])
    rot = np.concatenate([pairs.imag, np.zeros(n // 2 - len(pairs))])
    is_complex = np.arange(n // 2) < len(pairs)
    return diag, rot, is_complex


class RecurrentNet(nn.Module):
    """K independent bias-free tanh RNNs with one W_hh ``construction`` (Draeger 2026, eq. 1-2)."""

    def __init__(self, n_instances: int, n_in: int, n_hidden: int, n_out: int, construction: str,
                 generator: torch.Generator, dtype: torch.dtype = torch.float32):
        super().__init__()
        if construction not in CONSTRUCTIONS:
            raise ValueError(f"unknown construction {construction!r}: choose one of {CONSTRUCTIONS}")
        for name, value in (("n_instances", n_instances), ("n_in", n_in), ("n_hidden", n_hidden),
                            ("n_out", n_out)):
            check_positive_int(name, value)
        check_generator(generator)
        if construction == "cayley" and n_hidden < 2:
            raise ValueError(f"the cayley construction needs n_hidden >= 2, got {n_hidden}")
        self.construction = construction
        k, n = n_instances, n_hidden
        m = n ** -0.5
        self.W_xh = nn.Parameter(_uniform((k, n, n_in), m, generator, dtype))
        self.W_hy = nn.Parameter(_uniform((k, n_out, n), m, generator, dtype))
        if construction == "default":
            self.W_hh = nn.Parameter(_uniform((k, n, n), m, generator, dtype))
        elif construction == "orthogonal":
            self.W_hh = nn.Parameter(_orthogonal(k, n, generator).to(dtype))
        elif construction == "normal":
            Q = _orthogonal(k, n, generator)
            self.W_hh = nn.Parameter((Q @ _normal_blocks(k, n, generator) @ Q.transpose(1, 2)).to(dtype))
        else:
            U = _uniform((k, n, n), m, generator, torch.float64)
            self.P = nn.Parameter((U / 2).to(dtype))  # A = P - P^T = (U - U^T) / 2
            blocks = [_eigen_blocks(u) for u in _uniform((k, n, n), m, generator, torch.float64).numpy()]
            self.d = nn.Parameter(torch.tensor(np.stack([b[0] for b in blocks]), dtype=dtype))
            self.rot = nn.Parameter(torch.tensor(np.stack([b[1] for b in blocks]), dtype=dtype))
            self.register_buffer("is_complex", torch.tensor(np.stack([b[2] for b in blocks])))

    @property
    def n_instances(self) -> int:
        return self.W_xh.shape[0]

    def cayley_factors(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(O(A), D) of the cayley construction, each (K, N_h, N_h): W_hh = O D O^T."""
        if self.construction != "cayley":
            raise ValueError(f"cayley_factors needs the 'cayley' construction, this model is "
                             f"{self.construction!r}")
        A = self.P - self.P.transpose(1, 2)
        eye = torch.eye(A.shape[1], dtype=A.dtype, device=A.device)
        O = torch.linalg.solve(eye + A, eye - A)  # noqa: E741 (I + A)^-1 (I - A) = (I - A)(I + A)^-1: they commute
        n = self.d.shape[1]
        # A complex block uses its first diagonal entry twice, so each 2x2 block stays normal.
        tied = self.d[:, 0 : 2 * (n // 2) : 2].repeat_interleave(2, dim=1)
        tied = torch.cat([tied, self.d[:, 2 * (n // 2):]], dim=1)
        pair_complex = self.is_complex.repeat_interleave(2, dim=1)
        pair_complex = torch.cat([pair_complex, pair_complex.new_zeros(pair_complex.shape[0], n % 2)], dim=1)
        diag = torch.where(pair_complex, tied, self.d)
        D = _block_diagonal(diag, self.rot * self.is_complex)
        return O, D

    def recurrent_matrix(self) -> torch.Tensor:
        """W_hh, shape (K, N_h, N_h); for ``cayley`` the composed O(A) D O(A)^T."""
        if self.construction != "cayley":
            return self.W_hh
        O, D = self.cayley_factors()  # noqa: E741
        return O @ D @ O.transpose(1, 2)

    def rollout(self, W_hh: torch.Tensor, inputs: torch.Tensor, return_hidden: bool = False):
        """Run eq. 1-2 with recurrent matrix ``W_hh`` (K, N_h, N_h) and this model's W_xh and W_hy;
        see :func:`rollout`. ``W_hh`` may be any matrix (e.g. an ablated one); the readout is not refit."""
        return rollout(self.W_xh, W_hh, self.W_hy, inputs, return_hidden)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Outputs (K, T, B, N_y) of the model with its own W_hh."""
        return self.rollout(self.recurrent_matrix(), inputs)


def rollout(W_xh: torch.Tensor, W_hh: torch.Tensor, W_hy: torch.Tensor, inputs: torch.Tensor,
            return_hidden: bool = False):
    """Eq. 1-2 of Draeger (2026) for K stacked networks: h_t = tanh(W_xh x_t + W_hh h_{t-1}), h_0 = 0,
    y_t = W_hy h_t.

    Weights are (K, N_h, N_x), (K, N_h, N_h), (K, N_y, N_h) tensors or arrays (cast to W_xh's dtype).
    ``inputs`` is (T, B, N_x), shared by all instances, or (K, T, B, N_x). Returns outputs
    (K, T, B, N_y), and the hidden states (K, T, B, N_h) too if ``return_hidden``.
    """
    W_xh = torch.as_tensor(W_xh)
    k, n, n_in = W_xh.shape
    W_hh = torch.as_tensor(W_hh, dtype=W_xh.dtype, device=W_xh.device)
    W_hy = torch.as_tensor(W_hy, dtype=W_xh.dtype, device=W_xh.device)
    if W_hh.shape != (k, n, n):
        raise ValueError(f"W_hh must have shape {(k, n, n)}, got {tuple(W_hh.shape)}")
    if W_hy.ndim != 3 or W_hy.shape[0] != k or W_hy.shape[2] != n:
        raise ValueError(f"W_hy must have shape ({k}, N_y, {n}), got {tuple(W_hy.shape)}")
    inputs = torch.as_tensor(inputs, device=W_xh.device)
    if inputs.ndim == 3:
        inputs = inputs.unsqueeze(0).expand(k, *inputs.shape)
    if inputs.ndim != 4 or inputs.shape[0] != k or inputs.shape[-1] != n_in:
        raise ValueError(f"inputs must be (T, B, {n_in}) or ({k}, T, B, {n_in}), got {tuple(inputs.shape)}")
    _, T, B, _ = inputs.shape
    if T == 0:
        raise ValueError(f"inputs must hold at least one time step, got shape {tuple(inputs.shape)}")
    inputs = inputs.to(W_xh.dtype)
    drive = torch.bmm(inputs.reshape(k, T * B, n_in), W_xh.transpose(1, 2)).view(k, T, B, n)
    # unbind, not drive[:, t]: indexing would backpropagate a full-size zero tensor at every step.
    drive = drive.transpose(0, 1).contiguous().unbind(0)
    W_t = W_hh.transpose(1, 2)
    h = torch.tanh(drive[0])
    states = [h]
    for t in range(1, T):
        h = torch.tanh(torch.baddbmm(drive[t], h, W_t))
        states.append(h)
    hidden = torch.stack(states, dim=1)  # (K, T, B, N_h)
    out = torch.bmm(hidden.view(k, T * B, n), W_hy.transpose(1, 2)).view(k, T, B, -1)
    return (out, hidden) if return_hidden else out
