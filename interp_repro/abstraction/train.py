"""How the abstraction study's networks are trained (Yang, Saxe, Latham 2026).

The linear, deep linear and nonlinear networks of :mod:`.model` train by full-batch gradient descent
in float64 on the un-averaged loss the theory uses, (1/2) ||Y - Z W_r||^2 + (lam/2) ||W_r||^2, or its
minimum over the readout L(Q) = (lam/2) tr[Sigma_y (Q + lam I)^-1]
(:func:`~interp_repro.abstraction.measures.ridge_loss`). Step k of size ``lr`` is therefore the
gradient-flow time t = lr * k of the theory. Every run records the shape abstraction score of its
representations along the way.

The residual GELU MLP of the local GELU ablation trains with cross-entropy and full-batch Adam on
the 4-way class (s, c) of two-factor data with input inverse SNR ``nu_x`` and isotropic within-class
noise (our choice of task: a target whose class kernel is flat, nu_y = 1, so it does not itself ask
for abstract representations). Half the samples of each class are held out for the measurements.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn.functional import cross_entropy

from interp_repro.abstraction.data import TwoFactorData, split_per_class, two_factor_data
from interp_repro.abstraction.measures import abstraction_score
from interp_repro.abstraction.model import (
    ACTIVATIONS,
    ResidualGeluMLP,
    balanced_init,
    deep_hidden,
    gaussian_weights,
    linear_hidden,
    nonlinear_hidden,
)
from interp_repro.core import (
    check_finite_loss,
    check_positive,
    check_positive_int,
    progress,
    select_device,
    torch_generator,
)
from interp_repro.core.flops import StepMeter

DESCENT_BOUND = ("full-batch float64 steps on a handful of samples (8 in the book's setting): matrix "
                 "products of a few rows, so per-operation overhead and the recorded scores outweigh the "
                 "arithmetic")
GELU_BOUND = "small float32 matrix products (256 samples, widths 32 and 64) and Adam's elementwise update"
"""What keeps each trainer's steps below the matrix-product ceiling (``core.flops``)."""

READOUTS = ("ridge", "joint")
"""Readouts of :func:`train_linear`: kept at the ridge optimum, or trained jointly with W."""

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
    """(N, N) initial item kernel Z0 Z0^T (for :func:`~interp_repro.abstraction.measures.theory_for`)."""
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


@dataclass(frozen=True)
class Records:
    """What a gradient-descent run recorded."""

    t: np.ndarray
    """(T,) gradient-flow times lr * step."""
    loss: np.ndarray
    """(T,) losses."""
    alpha: np.ndarray
    """(T, R) shape abstraction scores of the R representations the forward map returns."""


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
             record_every: int | None, desc: str) -> Records:
    """Full-batch gradient descent p <- p - lr dL/dp on ``forward() -> (loss, representations)``,
    recording at :func:`record_steps`."""
    record = set(record_steps(steps, record_every).tolist())
    times, losses, alphas = [], [], []
    meter = StepMeter(DESCENT_BOUND)
    for step in progress(range(steps + 1), desc, total=steps + 1):
        with meter.step((step in record, step == steps)):
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
    check_finite_loss(desc, losses)
    return Records(t=np.array(times), loss=np.array(losses), alpha=np.array(alphas))


def _tensors(data: TwoFactorData, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The inputs X and targets Y of ``data`` as float64 tensors on ``device``."""
    return (torch.as_tensor(data.X, dtype=torch.float64, device=device),
            torch.as_tensor(data.Y, dtype=torch.float64, device=device))


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
    kappa, lr, lam = check_positive("kappa", kappa), check_positive("lr", lr), check_positive("lam", lam)
    if readout not in READOUTS:
        raise ValueError(f"unknown readout {readout!r}: choose one of {', '.join(READOUTS)}")
    dev = select_device(device)
    X, Y = _tensors(data, dev)
    gen = torch_generator(seed)
    std = kappa / math.sqrt(width)
    W = gaussian_weights(gen, (width, X.shape[1]), std, dev)
    params = [W]
    if readout == "joint":
        W_r = gaussian_weights(gen, (width, Y.shape[1]), std, dev)
        params.append(W_r)
    sigma_y = Y @ Y.T
    with torch.no_grad():
        Z0 = linear_hidden(X, W)
        Q0 = _numpy(Z0 @ Z0.T)

    def forward():
        Z = linear_hidden(X, W)
        if readout == "ridge":
            return _ridge_loss(Z @ Z.T, sigma_y, lam), (Z,)
        return 0.5 * (Y - Z @ W_r).square().sum() + lam / 2 * W_r.square().sum(), (Z,)

    records = _descend(params, forward, data.labels, lr, steps, record_every, f"linear ({readout} readout)")
    with torch.no_grad():
        final_readout = W_r if readout == "joint" else _ridge_readout(linear_hidden(X, W), Y, lam)
    return LinearRun(t=records.t, alpha=records.alpha[:, 0], loss=records.loss, Q0=Q0, W=_numpy(W),
                     readout=_numpy(final_readout))


# --- deep linear network ------------------------------------------------------------------------------

def train_deep_linear(data: TwoFactorData, depth: int, width: int, kappa: float, lr: float, steps: int,
                      lam: float, *, seed: int, record_every: int | None = None,
                      device: str = "cpu") -> DeepRun:
    """Train L = ``depth`` hidden linear layers Z_l = Z_{l-1} W_l^T (Z_0 = X) with a ridge readout on Z_L.

    Gradient descent on all W_l of L(Q_L) = (lam/2) tr[Sigma_y (Z_L Z_L^T + lam I)^-1] from the
    balanced init of :func:`~interp_repro.abstraction.model.balanced_init` (small ``kappa``: rich
    regime). The depth law (Yang, Saxe, Latham 2026) says arctanh alpha^(l) is linear in l between
    alpha_x and alpha^(L).
    """
    depth, width, steps = (check_positive_int(n, v) for n, v in
                           (("depth", depth), ("width", width), ("steps", steps)))
    lr, lam = check_positive("lr", lr), check_positive("lam", lam)
    dev = select_device(device)
    X, Y = _tensors(data, dev)
    weights = [w.to(dev).requires_grad_() for w in balanced_init(depth, width, X.shape[1], kappa, seed)]
    sigma_y = Y @ Y.T

    def forward():
        reps = deep_hidden(X, weights)
        Z = reps[-1]
        return _ridge_loss(Z @ Z.T, sigma_y, lam), reps

    records = _descend(weights, forward, data.labels, lr, steps, record_every, f"deep linear (L={depth})")
    return DeepRun(t=records.t, alpha=records.alpha, loss=records.loss,
                   weights=tuple(_numpy(w) for w in weights))


# --- one hidden nonlinear layer -----------------------------------------------------------------------

def train_nonlinear(data: TwoFactorData, activation: str, width: int, kappa: float, lr: float, steps: int,
                    lam: float, *, seed: int, record_every: int | None = None,
                    device: str = "cpu") -> NonlinearRun:
    """Train one hidden layer H = phi(U) / sqrt(width) with a ridge readout on H (Yang, Saxe, Latham 2026).

    Pre-activations U = sqrt(width) X W^T with W ~ N(0, kappa^2 / width) as in :func:`train_linear`
    (:func:`~interp_repro.abstraction.model.nonlinear_hidden`); W descends
    L(K) = (lam/2) tr[Sigma_y (K + lam I)^-1] of the feature kernel K = H H^T.
    With ``activation="linear"`` this is :func:`train_linear` with the ridge readout, step for step.
    The attenuation law says |alpha_post| <= |alpha_pre| at infinite width (proved for erf, leaky ReLU).
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}: choose one of {', '.join(ACTIVATIONS)}")
    width, steps = check_positive_int("width", width), check_positive_int("steps", steps)
    kappa, lr, lam = check_positive("kappa", kappa), check_positive("lr", lr), check_positive("lam", lam)
    dev = select_device(device)
    X, Y = _tensors(data, dev)
    W = gaussian_weights(torch_generator(seed), (width, X.shape[1]), kappa / math.sqrt(width), dev)
    sigma_y = Y @ Y.T

    def forward():
        U, H = nonlinear_hidden(X, W, activation)
        return _ridge_loss(H @ H.T, sigma_y, lam), (U, H)

    records = _descend([W], forward, data.labels, lr, steps, record_every, f"{activation} network")
    return NonlinearRun(t=records.t, alpha_pre=records.alpha[:, 0], alpha_post=records.alpha[:, 1],
                        loss=records.loss, W=_numpy(W))


# --- residual GELU MLP (local GELU ablation) ----------------------------------------------------------

@dataclass
class GeluNet:
    """A trained network and its held-out evaluation samples."""

    model: ResidualGeluMLP
    X_test: np.ndarray
    """(4 n, d_in) held-out inputs, grouped by class."""
    labels_test: np.ndarray
    """(4 n, 2) their (s, c) labels."""
    test_accuracy: float
    """4-way accuracy on the held-out samples."""


def train_gelu_net(*, nu_x: float, noise_x: float, n_per_class: int, d_in: int, d_model: int, d_hidden: int,
                   n_blocks: int, lr: float, steps: int, seed: int) -> GeluNet:
    """Draw the data (``seed``): ``n_per_class`` training and as many held-out samples per class; then
    train the network from a ``seed`` init with full-batch Adam (learning rate ``lr``) for ``steps``."""
    n = n_per_class
    # the task is the class index; the regression targets two_factor_data also draws are not used
    data = two_factor_data(nu_x, 0.0, 2 * n, d_in, 4, seed, noise_x=noise_x)
    train, test = split_per_class(data, n)
    X_train, X_test = (torch.as_tensor(data.X[m], dtype=torch.float32) for m in (train, test))
    y_train, y_test = (torch.as_tensor(data.class_index[m]) for m in (train, test))
    model = ResidualGeluMLP(d_in, d_model, d_hidden, n_blocks, seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)
    meter = StepMeter(GELU_BOUND)
    for _ in range(steps):
        with meter.step():
            opt.zero_grad()
            cross_entropy(model(X_train), y_train).backward()
            opt.step()
    with torch.no_grad():
        check_finite_loss("the residual GELU MLP", cross_entropy(model(X_train), y_train).item())
        accuracy = (model(X_test).argmax(-1) == y_test).double().mean().item()
    return GeluNet(model=model, X_test=data.X[test], labels_test=data.labels[test], test_accuracy=accuracy)
