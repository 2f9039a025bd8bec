"""Finite-width simulations of the networks in the abstraction study (Yang, Saxe, Latham 2026).

Conventions (shared with :mod:`.theory`). Samples are rows: ``data.X`` is (N, d_in), the item kernels
are Sigma_x = X X^T and Sigma_y = Y Y^T (N x N). A hidden layer is Z = X W^T with W of shape
(width, d_in) and i.i.d. N(0, kappa^2 / width) entries, so Q0 = Z Z^T -> kappa^2 Sigma_x as the width
grows: the initialisation :func:`~interp_repro.abstraction.theory.alpha_trajectory` assumes
(q0_k = kappa^2 x_k). Training is full-batch gradient descent in float64 on the un-averaged loss the
theory uses, (1/2) ||Y - Z W_r||^2 + (lam/2) ||W_r||^2, or its minimum over the readout
L(Q) = (lam/2) tr[Sigma_y (Q + lam I)^-1] (:func:`~interp_repro.abstraction.theory.ridge_loss`).
Step k of size ``lr`` is therefore the gradient-flow time t = lr * k of the theory.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from interp_repro.abstraction.data import WALSH_BASIS, TwoFactorData
from interp_repro.abstraction.theory import abstraction_score, solve_modes
from interp_repro.core import check_positive_int, progress, select_device, torch_generator

READOUTS = ("ridge", "joint")
"""Readouts of :func:`train_linear`: kept at the ridge optimum, or trained jointly with W."""

LEAKY_SLOPE = 0.1
"""Negative-side slope of the ``leaky_relu`` activation."""

ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "erf": torch.erf,
    "relu": torch.relu,
    "leaky_relu": lambda u: torch.nn.functional.leaky_relu(u, LEAKY_SLOPE),
    "gelu": torch.nn.functional.gelu,  # exact, u Phi(u)
    "linear": lambda u: u,
}
"""Activations of :func:`train_nonlinear` (those of :mod:`.kernels`, plus the identity)."""

Forward = Callable[[], tuple[torch.Tensor, Sequence[torch.Tensor]]]


@dataclass(frozen=True)
class LinearRun:
    """A two-layer linear run: recorded times, abstraction, loss, and the weights."""

    t: np.ndarray
    """(T,) gradient-flow times lr * step of the records."""
    alpha: np.ndarray
    """(T,) shape abstraction score of the hidden layer Z."""
    loss: np.ndarray
    """(T,) loss: L(Q) for the ridge readout, the joint objective for the joint one."""
    Q0: np.ndarray
    """(N, N) initial item kernel Z0 Z0^T (for :func:`theory_for`)."""
    W: np.ndarray
    """(width, d_in) final first-layer weights."""
    readout: np.ndarray
    """(width, d_out) final readout: trained (joint) or the ridge optimum for the final W (ridge)."""


@dataclass(frozen=True)
class DeepRun:
    """A deep linear run: abstraction of the input and of every hidden layer over time."""

    t: np.ndarray
    """(T,) gradient-flow times lr * step."""
    alpha: np.ndarray
    """(T, L + 1) shape abstraction of layer l = 0 (the input X), 1, ..., L."""
    loss: np.ndarray
    """(T,) ridge loss L(Q_L) of the last hidden layer."""
    weights: tuple[np.ndarray, ...]
    """Final W_1 (width, d_in), W_2 ... W_L (width, width)."""


@dataclass(frozen=True)
class NonlinearRun:
    """A one-hidden-layer nonlinear run: abstraction before and after the activation."""

    t: np.ndarray
    """(T,) gradient-flow times lr * step."""
    alpha_pre: np.ndarray
    """(T,) shape abstraction of the pre-activations."""
    alpha_post: np.ndarray
    """(T,) shape abstraction of the post-activations (features)."""
    loss: np.ndarray
    """(T,) ridge loss L(K) of the feature kernel."""
    W: np.ndarray
    """(width, d_in) final weights."""


# --- checks and small helpers -----------------------------------------------------------------------

def _positive(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def record_steps(steps: int, record_every: int | None = None, n_log: int = 60) -> np.ndarray:
    """Steps 0..steps at which runs record: every ``record_every`` steps, or ``n_log`` log-spaced ones.

    The last step is always included.
    """
    steps = check_positive_int("steps", steps)
    if record_every is None:
        grid = np.geomspace(1, steps, n_log).round().astype(np.int64)
    else:
        grid = np.arange(0, steps, check_positive_int("record_every", record_every))
    return np.unique(np.concatenate([[0], grid, [steps]]))


def _gaussian(gen: torch.Generator, shape: tuple[int, ...], std: float, device: torch.device) -> torch.Tensor:
    """N(0, std^2) draws from a CPU generator (the same numbers on every device), as a leaf on device."""
    draw = std * torch.randn(*shape, generator=gen, dtype=torch.float64)
    return draw.to(device).requires_grad_()


def _ridge_loss(K: torch.Tensor, sigma_y: torch.Tensor, lam: float) -> torch.Tensor:
    """(lam/2) tr[Sigma_y (K + lam I)^-1], the loss with the readout at its ridge optimum."""
    eye = torch.eye(K.shape[0], dtype=K.dtype, device=K.device)
    return lam / 2 * torch.linalg.solve(K + lam * eye, sigma_y).diagonal().sum()


def _ridge_readout(Z: torch.Tensor, Y: torch.Tensor, lam: float) -> torch.Tensor:
    """The ridge optimum W_r = (Z^T Z + lam)^-1 Z^T Y = Z^T (Z Z^T + lam)^-1 Y, shape (width, d_out)."""
    eye = torch.eye(Z.shape[0], dtype=Z.dtype, device=Z.device)
    return Z.T @ torch.linalg.solve(Z @ Z.T + lam * eye, Y)


def _numpy(x: torch.Tensor) -> np.ndarray:
    return x.detach().cpu().numpy().copy()


def _descend(params: list[torch.Tensor], forward: Forward, labels: np.ndarray, lr: float, steps: int,
             record_every: int | None, desc: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-batch gradient descent p <- p - lr dL/dp on ``forward() -> (loss, representations)``.

    Returns the recorded times lr * step (T,), losses (T,) and shape abstraction scores (T, R) of the
    R representations ``forward`` returns.
    """
    record = set(record_steps(steps, record_every).tolist())
    times, losses, alphas = [], [], []
    for step in progress(range(steps + 1), desc, total=steps + 1):
        loss, reps = forward()
        if step in record:
            times.append(lr * step)
            losses.append(loss.item())
            alphas.append([float(abstraction_score(_numpy(z), labels)) for z in reps])
        if step == steps:
            break
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads, strict=True):
                p.sub_(lr * g)
    return np.array(times), np.array(losses), np.array(alphas)


# --- two-layer linear network -------------------------------------------------------------------------

def train_linear(data: TwoFactorData, width: int, kappa: float, lr: float, steps: int, lam: float, *,
                 seed: int, readout: str = "ridge", record_every: int | None = None,
                 device: str = "cpu") -> LinearRun:
    """Train the two-layer linear net Z = X W^T by gradient descent (Yang, Saxe, Latham 2026).

    ``readout="ridge"``: the readout is kept at its ridge optimum at every step (variable projection),
    so W descends L(Q) = (lam/2) tr[Sigma_y (Q + lam I)^-1], Q = Z Z^T. ``readout="joint"``: the readout
    W_r (width, d_out) is a parameter trained with W on (1/2) ||Y - Z W_r||^2 + (lam/2) ||W_r||^2;
    it starts with i.i.d. N(0, kappa^2 / width) entries, the same scale as W. The two objectives share
    their stationary points (L(Q) is the joint one minimised over W_r).
    W0 has i.i.d. N(0, kappa^2 / width) entries (Q0 -> kappa^2 Sigma_x); ``seed`` fixes every draw.
    """
    width, steps = check_positive_int("width", width), check_positive_int("steps", steps)
    kappa, lr, lam = _positive("kappa", kappa), _positive("lr", lr), _positive("lam", lam)
    if readout not in READOUTS:
        raise ValueError(f"unknown readout {readout!r}: choose one of {', '.join(READOUTS)}")
    dev = select_device(device)
    X, Y = (torch.as_tensor(a, dtype=torch.float64, device=dev) for a in (data.X, data.Y))
    gen = torch_generator(seed)
    std = kappa / math.sqrt(width)
    W = _gaussian(gen, (width, X.shape[1]), std, dev)
    params = [W]
    if readout == "joint":
        W_r = _gaussian(gen, (width, Y.shape[1]), std, dev)
        params.append(W_r)
    sigma_y = Y @ Y.T
    with torch.no_grad():
        Z0 = X @ W.T
        Q0 = _numpy(Z0 @ Z0.T)

    def forward():
        Z = X @ W.T
        if readout == "ridge":
            return _ridge_loss(Z @ Z.T, sigma_y, lam), (Z,)
        return 0.5 * (Y - Z @ W_r).square().sum() + lam / 2 * W_r.square().sum(), (Z,)

    t, loss, alpha = _descend(params, forward, data.labels, lr, steps, record_every,
                              f"linear ({readout} readout)")
    with torch.no_grad():
        final_readout = W_r if readout == "joint" else _ridge_readout(X @ W.T, Y, lam)
    return LinearRun(t=t, alpha=alpha[:, 0], loss=loss, Q0=Q0, W=_numpy(W), readout=_numpy(final_readout))


# --- exact theory for a given dataset (derived) -------------------------------------------------------

def walsh_item_vectors(data: TwoFactorData) -> np.ndarray:
    """(4, N) unit Walsh vectors over samples: each class's Walsh entry repeated n times, / sqrt(n).

    Rows in (G, S, C, SC) order (derived from the 2FS of Yang, Saxe, Latham 2026).
    """
    return WALSH_BASIS[:, data.class_index] / math.sqrt(data.n_per_class)


def item_spectrum(K, data: TwoFactorData) -> np.ndarray:
    """(4,) Rayleigh quotients h_k^T K h_k of an (N, N) item kernel on the Walsh item vectors."""
    K = np.asarray(K, dtype=np.float64)
    n = data.class_index.size
    if K.shape != (n, n):
        raise ValueError(f"an item kernel of this dataset must have shape ({n}, {n}), got {K.shape}")
    H = walsh_item_vectors(data)
    return np.einsum("ki,ij,kj->k", H, K, H)


def theory_for(data: TwoFactorData, kappa: float, lam: float, t, init_Q=None) -> np.ndarray:
    """alpha(t) of the ridge-readout linear net on ``data`` from the exact mode solution (derived).

    x_k, y_k are the S and SC Walsh eigenvalues of the item kernels X X^T and Y Y^T; q0_k is
    kappa^2 x_k (the infinite-width initialisation), or the projection of ``init_Q`` (the simulation's
    actual Z0 Z0^T, e.g. :attr:`LinearRun.Q0`) when given, in which case ``kappa`` is not used.
    Each mode follows :func:`~interp_repro.abstraction.theory.solve_modes` and
    alpha = (q_S - q_SC) / (q_S + q_SC). Exact when the item kernels are 2FS (no within-class noise)
    and Q0 is diagonal in the Walsh basis; finite-width Q0 is only approximately so.
    """
    kappa, lam = _positive("kappa", kappa), _positive("lam", lam)
    x, y = item_spectrum(data.X @ data.X.T, data), item_spectrum(data.Y @ data.Y.T, data)
    q0 = kappa**2 * x if init_Q is None else item_spectrum(init_Q, data)
    modes = [1, 3]  # S, SC
    t = np.asarray(t, dtype=np.float64)
    q_s, q_sc = (solve_modes(q0[k], x[k], y[k], lam, t) for k in modes)
    return (q_s - q_sc) / (q_s + q_sc)


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
    s = _positive("kappa", kappa) ** (1 / depth)
    gen = torch_generator(seed)
    frames = [_frame(gen, width, d_in) for _ in range(depth)]
    return [s * frames[0]] + [s * frames[i] @ frames[i - 1].T for i in range(1, depth)]


def train_deep_linear(data: TwoFactorData, depth: int, width: int, kappa: float, lr: float, steps: int,
                      lam: float, *, seed: int, record_every: int | None = None,
                      device: str = "cpu") -> DeepRun:
    """Train L = ``depth`` hidden linear layers Z_l = Z_{l-1} W_l^T (Z_0 = X) with a ridge readout on Z_L.

    Gradient descent on all W_l of L(Q_L) = (lam/2) tr[Sigma_y (Z_L Z_L^T + lam I)^-1] from the
    balanced init of :func:`balanced_init` (small ``kappa``: rich regime). The depth law (Yang, Saxe,
    Latham 2026) says arctanh alpha^(l) is linear in l between alpha_x and alpha^(L).
    """
    depth, width, steps = (check_positive_int(n, v) for n, v in
                           (("depth", depth), ("width", width), ("steps", steps)))
    lr, lam = _positive("lr", lr), _positive("lam", lam)
    dev = select_device(device)
    X, Y = (torch.as_tensor(a, dtype=torch.float64, device=dev) for a in (data.X, data.Y))
    weights = [w.to(dev).requires_grad_() for w in balanced_init(depth, width, X.shape[1], kappa, seed)]
    sigma_y = Y @ Y.T

    def forward():
        reps, Z = [X], X
        for W in weights:
            Z = Z @ W.T
            reps.append(Z)
        return _ridge_loss(Z @ Z.T, sigma_y, lam), reps

    t, loss, alpha = _descend(weights, forward, data.labels, lr, steps, record_every,
                              f"deep linear (L={depth})")
    return DeepRun(t=t, alpha=alpha, loss=loss, weights=tuple(_numpy(w) for w in weights))


# --- one hidden nonlinear layer -----------------------------------------------------------------------

def train_nonlinear(data: TwoFactorData, activation: str, width: int, kappa: float, lr: float, steps: int,
                    lam: float, *, seed: int, record_every: int | None = None,
                    device: str = "cpu") -> NonlinearRun:
    """Train one hidden layer H = phi(U) / sqrt(width) with a ridge readout on H (Yang, Saxe, Latham 2026).

    Pre-activations U = sqrt(width) X W^T with W ~ N(0, kappa^2 / width) as in :func:`train_linear`:
    every unit's pre-activation has covariance kappa^2 Sigma_x at init, and the feature kernel
    K = H H^T = (1/width) sum_units phi(u) phi(u)^T tends to the kernel maps of :mod:`.kernels`
    applied to Q = U U^T / width = Z Z^T. W descends L(K) = (lam/2) tr[Sigma_y (K + lam I)^-1].
    With ``activation="linear"`` this is :func:`train_linear` with the ridge readout, step for step.
    The attenuation law says |alpha_post| <= |alpha_pre| at infinite width (proved for erf, leaky ReLU).
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}: choose one of {', '.join(ACTIVATIONS)}")
    phi = ACTIVATIONS[activation]
    width, steps = check_positive_int("width", width), check_positive_int("steps", steps)
    kappa, lr, lam = _positive("kappa", kappa), _positive("lr", lr), _positive("lam", lam)
    dev = select_device(device)
    X, Y = (torch.as_tensor(a, dtype=torch.float64, device=dev) for a in (data.X, data.Y))
    W = _gaussian(torch_generator(seed), (width, X.shape[1]), kappa / math.sqrt(width), dev)
    sigma_y, root = Y @ Y.T, math.sqrt(width)

    def forward():
        U = root * (X @ W.T)
        H = phi(U) / root
        return _ridge_loss(H @ H.T, sigma_y, lam), (U, H)

    t, loss, alpha = _descend([W], forward, data.labels, lr, steps, record_every, f"{activation} network")
    return NonlinearRun(t=t, alpha_pre=alpha[:, 0], alpha_post=alpha[:, 1], loss=loss, W=_numpy(W))
