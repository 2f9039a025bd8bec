"""The abstraction study's definitions and closed-form theory (Yang, Saxe, Latham 2026): pure functions.

Setting. Kernels here are 4 x 4 class kernels in :data:`~interp_repro.abstraction.data.CLASSES` order
(s+c+, s+c-, s-c+, s-c-), optionally with leading batch dimensions (..., 4, 4), or N x N item kernels
over the samples of a dataset (samples are rows: Sigma_x = X X^T).

Linear dynamics (derived). A two-layer linear network Z = W X whose ridge readout (penalty lambda) is
kept at its optimum has the loss L(Q) = (lambda/2) tr[Sigma_y (Q + lambda)^-1] in the learned kernel Q,
and gradient flow on W moves Q by dQ/dt = lambda (Sigma_x M Q + Q M Sigma_x),
M = (Q + lambda)^-1 Sigma_y (Q + lambda)^-1. When Sigma_x, Sigma_y and Q share eigenvectors (2FS) each
mode obeys dq/dt = 2 lambda x y q / (q + lambda)^2, solved exactly (implicitly) by
(q^2 - q0^2)/2 + 2 lambda (q - q0) + lambda^2 ln(q/q0) = 2 lambda x y t.

This ODE has no finite fixed point: every mode with x y > 0 grows without bound, q ~ sqrt(4 lambda x y t).
What settles is the ratio of modes, q_SC / q_S -> sqrt(x_SC y_SC / (x_S y_S)) = sqrt(nu_x nu_y),
which gives the paper's terminal law. The approach is slow and from above: q ~ sqrt(4 lambda x y t) - 2 lambda
gives alpha(t) - alpha_inf ~ 4 lambda (1 - rho) / ((1 + rho)^2 sqrt(4 lambda x_S y_S t)),
rho = sqrt(nu_x nu_y).
So even a lazy (large-kappa) run ends marginally above alpha_inf, by an amount that shrinks roughly like
(lambda / (kappa^2 x_S))^2 (1.7e-4 at kappa = 10, lambda = x_S = y_S = 1, nu_x = 0.5, nu_y = 0.1).

Kernel maps (nonlinear networks at infinite width). Every map takes a pre-activation covariance Q of
shape (..., k, k) and returns K = E[phi(z) phi(z)^T], z ~ N(0, Q), of the same shape. Closed forms:
erf (arc-sine kernel, Williams 1997), ReLU (arc-cosine kernel of order 1, Cho and Saul 2009), leaky
ReLU (a linear plus an |z| part). GELU has no closed form and is integrated by Gauss-Hermite
quadrature. The attenuation law says |alpha_K| <= |alpha_Q| (proved in the paper for erf and leaky
ReLU).

Local GELU ablation. The paper's second measure beside alpha is the cross-context linear probe
(:func:`probe_transfer`); :func:`up_fraction` states its direction of change under the ablation.
:func:`whitened_abstraction` (ours) is alpha in the metric the probe reads, the within-class noise
whitened away; :func:`same_direction` compares two scores' changes pair by pair.

NaN or infinity in the input of a measure that reduces to a claim's number (a gap, a count, a share)
is a ``ValueError``, never a number.
"""

import math
from collections.abc import Callable

import numpy as np
from scipy import optimize
from scipy.special import ndtr

from interp_repro.abstraction.data import CLASSES, WALSH_BASIS, TwoFactorData, check_nu
from interp_repro.core import check_finite, check_positive, check_positive_int, numpy_rng
from interp_repro.core.validate import check_real_array, check_real_dtype

Activation = Callable[[np.ndarray], np.ndarray]
KernelMap = Callable[[np.ndarray], np.ndarray]

CONCEPTS = {"shape": (0, 2, 1, 3), "colour": (0, 1, 2, 3)}
"""Class indices (a, b, c, e) of the concept vectors d1 = z_a - z_b and d2 = z_c - z_e.

shape: d1 = z(s+,c+) - z(s-,c+), d2 = z(s+,c-) - z(s-,c-); colour: d1 = z(s+,c+) - z(s+,c-),
d2 = z(s-,c+) - z(s-,c-)."""


def _nu(name: str, nu) -> np.ndarray:
    """:func:`check_nu`, after refusing what is not real numbers (strings, complex, objects)."""
    return check_nu(name, check_real_dtype(name, nu))


def _as_kernel(K) -> np.ndarray:
    K = check_finite("K", K)
    if K.ndim < 2 or K.shape[-2:] != (4, 4):
        raise ValueError(f"a class kernel must have shape (..., 4, 4), got shape {K.shape}")
    return K


def _concept(concept: str) -> tuple[int, int, int, int]:
    if concept not in CONCEPTS:
        raise ValueError(f"unknown concept {concept!r}: choose one of {', '.join(CONCEPTS)}")
    return CONCEPTS[concept]


# --- spectra and scores -----------------------------------------------------------------------------

def kernel_from_spectrum(lambdas) -> np.ndarray:
    """The 2FS class kernel H^T diag(lambda) H with Walsh eigenvalues ``lambdas`` (..., 4) (derived)."""
    lam = np.asarray(lambdas, dtype=np.float64)
    if lam.ndim < 1 or lam.shape[-1] != 4:
        raise ValueError(f"lambdas must have shape (..., 4) in (G, S, C, SC) order, got {lam.shape}")
    return np.einsum("ki,...k,kj->...ij", WALSH_BASIS, lam, WALSH_BASIS)


def _check_labels(labels, n_samples: int) -> np.ndarray:
    labels = check_real_dtype("labels", labels)
    if labels.shape != (n_samples, 2):
        raise ValueError(f"labels must have shape (N, 2) = ({n_samples}, 2), got {labels.shape}")
    if not np.isin(labels, (-1, 1)).all():
        raise ValueError("labels must hold (s, c) values in {+1, -1}")
    return labels


def class_means(Z, labels) -> np.ndarray:
    """Class means of representations Z (..., N, d) (samples as rows), shape (..., 4, d)."""
    Z = check_finite("Z", Z)
    if Z.ndim < 2:
        raise ValueError(f"Z must have shape (..., N, d) with samples as rows, got shape {Z.shape}")
    labels = _check_labels(labels, Z.shape[-2])
    member = np.stack([(labels[:, 0] == s) & (labels[:, 1] == c) for s, c in CLASSES]).astype(float)
    counts = member.sum(axis=1)
    if (counts == 0).any():
        missing = [CLASSES[i] for i in np.flatnonzero(counts == 0)]
        raise ValueError(f"every class needs at least one sample; none for (s, c) in {missing}")
    return (member / counts[:, None]) @ Z


def _cosine(dot, n1, n2) -> np.ndarray:
    denom = np.sqrt(np.maximum(n1, 0.0) * np.maximum(n2, 0.0))
    out = np.full(np.shape(denom), np.nan)
    np.divide(dot, denom, out=out, where=denom > 0)
    return np.clip(out, -1.0, 1.0)


def abstraction_score(Z, labels, concept: str = "shape") -> np.ndarray:
    """alpha: cosine of the concept vectors d1, d2 computed from the class means of Z (..., N, d).

    For shape, d1 = z(s+,c+) - z(s-,c+) and d2 = z(s+,c-) - z(s-,c-) (Yang, Saxe, Latham 2026).
    1: the concept is coded the same way in both contexts (abstract); nan if a vector is zero.
    """
    a, b, c, e = _concept(concept)
    M = class_means(Z, labels)
    d1, d2 = M[..., a, :] - M[..., b, :], M[..., c, :] - M[..., e, :]
    return _cosine((d1 * d2).sum(-1), (d1 * d1).sum(-1), (d2 * d2).sum(-1))


def kernel_abstraction(K, concept: str = "shape") -> np.ndarray:
    """alpha computed from a class kernel K (..., 4, 4) alone, exact for any PSD kernel (derived).

    <d1, d2> = K_ac - K_ae - K_bc + K_be and |d1|^2 = K_aa + K_bb - 2 K_ab for d1 = z_a - z_b,
    d2 = z_c - z_e. Under 2FS this is (lambda_S - lambda_SC) / (lambda_S + lambda_SC) = (1 - nu)/(1 + nu).
    """
    K = _as_kernel(K)
    a, b, c, e = _concept(concept)
    dot = K[..., a, c] - K[..., a, e] - K[..., b, c] + K[..., b, e]
    n1 = K[..., a, a] + K[..., b, b] - 2 * K[..., a, b]
    n2 = K[..., c, c] + K[..., e, e] - 2 * K[..., c, e]
    return _cosine(dot, n1, n2)


def nu_abstraction(nu) -> np.ndarray:
    """alpha = (1 - nu) / (1 + nu) of a 2FS kernel with inverse SNR nu (derived)."""
    nu = _nu("nu", nu)
    return (1 - nu) / (1 + nu)


def terminal_abstraction(nu_x, nu_y) -> np.ndarray:
    """The terminal law alpha_inf = (1 - sqrt(nu_x nu_y)) / (1 + sqrt(nu_x nu_y)) (Yang, Saxe, Latham 2026).

    Broadcasts over arrays. Equivalently arctanh(alpha_inf) = (arctanh alpha_x + arctanh alpha_y) / 2.
    """
    root = np.sqrt(_nu("nu_x", nu_x) * _nu("nu_y", nu_y))
    return (1 - root) / (1 + root)


# --- linear learning dynamics (derived) ---------------------------------------------------------------

def ridge_loss(Q, sigma_y, lam: float) -> np.ndarray:
    """L(Q) = (lambda/2) tr[Sigma_y (Q + lambda I)^-1]: the loss with the ridge readout at its optimum."""
    Q = np.asarray(Q, dtype=np.float64)
    eye = np.eye(Q.shape[-1])
    return lam / 2 * np.trace(np.asarray(sigma_y) @ np.linalg.inv(Q + lam * eye), axis1=-2, axis2=-1)


def _nonneg_array(name: str, value) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    bad = ~(np.isfinite(arr) & (arr >= 0))
    if bad.any():
        raise ValueError(f"{name} must be finite and >= 0, got {arr[bad].ravel()[0].item()!r}")
    return arr


def solve_modes(q0, x, y, lam, t, max_iter: int = 200) -> np.ndarray:
    """q(t) of the mode ODE from its exact implicit solution, broadcasting q0, x, y, lam, t (derived).

    In w = ln(q/q0) the implicit equation G(w) = q0^2 expm1(2w)/2 + 2 lam q0 expm1(w) + lam^2 w - c = 0,
    c = 2 lam x y t, is increasing and convex, so Newton's method started from an upper bound of the root
    decreases monotonically onto it without overshooting. The result is accurate to ~1e-14 relative and
    increasing in t. A mode with q0 = 0 stays at 0 (a fixed point of the ODE).
    """
    q0, x, y, t = (_nonneg_array(n, v) for n, v in (("q0", q0), ("x", x), ("y", y), ("t", t)))
    lam = np.asarray(lam, dtype=np.float64)
    if not (np.isfinite(lam) & (lam > 0)).all():
        raise ValueError(f"lam (the ridge penalty) must be finite and > 0, got {lam!r}")
    q0, x, y, lam, t = np.broadcast_arrays(q0, x, y, lam, t)
    c = 2 * lam * x * y * t
    live = (q0 > 0) & (c > 0)
    q = q0.astype(np.float64, copy=True)
    if not live.any():
        return q
    a, lm, cc = q0[live], lam[live], c[live]
    with np.errstate(over="ignore"):
        w = np.minimum.reduce([0.5 * np.log1p(2 * cc / a**2), np.log1p(cc / (2 * lm * a)), cc / lm**2])
    for _ in range(max_iter):
        g = a**2 * np.expm1(2 * w) / 2 + 2 * lm * a * np.expm1(w) + lm**2 * w - cc
        step = g / (a * np.exp(w) + lm) ** 2
        w = w - step
        if np.all(np.abs(step) <= 1e-14 * (1 + np.abs(w))):
            break
    else:
        raise RuntimeError("solve_modes: Newton iteration did not converge")
    q[live] = a * np.exp(w)
    return q


def alpha_trajectory(nu_x, nu_y, kappa, t, lam: float = 1.0, x_s: float = 1.0,
                     y_s: float = 1.0) -> np.ndarray:
    """alpha(t) = (q_S - q_SC) / (q_S + q_SC) of the learned kernel of the two-layer linear net (derived).

    Data spectra: x_S = ``x_s``, x_SC = nu_x x_s (input), y_S = ``y_s``, y_SC = nu_y y_s (target).
    Initialisation: W0 with i.i.d. N(0, kappa^2 / width) entries gives, at infinite width,
    Q0 = kappa^2 Sigma_x, i.e. q0_k = kappa^2 x_k, so alpha(0) = alpha_x = (1 - nu_x)/(1 + nu_x).
    Broadcasts over nu_x, nu_y, kappa and t.
    """
    nu_x, nu_y = _nu("nu_x", nu_x), _nu("nu_y", nu_y)
    for name, value in (("x_s", x_s), ("y_s", y_s), ("lam", lam)):
        check_positive(name, value)
    kappa = _nonneg_array("kappa", kappa)
    if (kappa == 0).any():
        raise ValueError("kappa must be > 0: from Q0 = 0 nothing is ever learned")
    nu_x, nu_y, kappa, t = np.broadcast_arrays(nu_x, nu_y, kappa, _nonneg_array("t", t))
    x = np.stack([np.full(t.shape, float(x_s)), nu_x * x_s])  # (2, ...): modes S, SC
    y = np.stack([np.full(t.shape, float(y_s)), nu_y * y_s])
    q_s, q_sc = solve_modes(kappa**2 * x, x, y, lam, t)
    return (q_s - q_sc) / (q_s + q_sc)


def default_times(lam: float = 1.0, x_s: float = 1.0, y_s: float = 1.0, n: int = 2001) -> np.ndarray:
    """0 and a log grid from 1e-4 to 1e12 time units lam / (x_s y_s): from the start to near the end."""
    tau = lam / (x_s * y_s)
    return np.concatenate([[0.0], tau * np.geomspace(1e-4, 1e12, n - 1)])


def max_alpha(nu_x: float, nu_y: float, kappas, t=None, lam: float = 1.0, x_s: float = 1.0,
              y_s: float = 1.0) -> np.ndarray:
    """The largest alpha(t) reached during training, for each init scale in ``kappas`` (derived).

    Takes the maximum over the time grid ``t`` (default :func:`default_times`) and refines it with a
    bounded search between the grid neighbours of the best grid point. Small kappa (rich): near 1;
    large kappa (lazy): no higher than alpha_inf (Yang, Saxe, Latham 2026).
    """
    kappas = np.asarray(kappas, dtype=np.float64)
    times = default_times(lam, x_s, y_s) if t is None else _nonneg_array("t", t)
    times = np.unique(times)
    if times.ndim != 1 or times.size < 2:
        raise ValueError("t must hold at least two distinct times")
    flat = kappas.ravel()
    alpha = alpha_trajectory(nu_x, nu_y, flat[:, None], times[None, :], lam, x_s, y_s)
    best = alpha.max(axis=1)
    for i, j in enumerate(alpha.argmax(axis=1)):
        lo, hi = times[max(j - 1, 0)], times[min(j + 1, times.size - 1)]
        res = optimize.minimize_scalar(
            lambda s, k=flat[i]: -float(alpha_trajectory(nu_x, nu_y, k, s, lam, x_s, y_s)),
            bounds=(lo, hi), method="bounded", options={"xatol": 1e-10 * max(hi, 1e-300)})
        best[i] = max(best[i], -res.fun)
    return best.reshape(kappas.shape)


# --- depth (Yang, Saxe, Latham 2026; terminal value derived) ------------------------------------------

def _check_alpha(name: str, alpha) -> np.ndarray:
    arr = np.asarray(alpha, dtype=np.float64)
    bad = ~((arr >= -1) & (arr <= 1))
    if bad.any():
        raise ValueError(f"{name} must lie in [-1, 1] (a cosine), got {arr[bad].ravel()[0].item()!r}")
    return arr


def _weighted(weight, atanh_value) -> np.ndarray:
    return np.where(weight == 0, 0.0, weight * atanh_value)


def layer_profile(alpha_x, alpha_L, L: int) -> np.ndarray:
    """alpha at layers l = 0..L from arctanh alpha_l = (1 - l/L) arctanh alpha_x + (l/L) arctanh alpha_L.

    (Yang, Saxe, Latham 2026, layer-wise balance.) Output shape broadcast(alpha_x, alpha_L) + (L + 1,).
    Opposite perfect endpoints (alpha_x = 1, alpha_L = -1) give nan in between.
    """
    L = check_positive_int("L", L)
    ax, aL = _check_alpha("alpha_x", alpha_x), _check_alpha("alpha_L", alpha_L)
    frac = np.arange(L + 1) / L
    with np.errstate(divide="ignore", invalid="ignore"):
        z = _weighted(1 - frac, np.arctanh(ax)[..., None]) + _weighted(frac, np.arctanh(aL)[..., None])
        return np.tanh(z)


def deep_terminal(alpha_x, alpha_y, L: int) -> np.ndarray:
    """Last-layer terminal alpha of a depth-L linear net: tanh((arctanh alpha_x + L arctanh alpha_y)/(L+1)).

    (derived; L = 1 is the terminal law.) Broadcasts over alpha_x, alpha_y.
    """
    L = check_positive_int("L", L)
    ax, ay = _check_alpha("alpha_x", alpha_x), _check_alpha("alpha_y", alpha_y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.tanh((np.arctanh(ax) + L * np.arctanh(ay)) / (L + 1))


def depth_profile_deviation(profile: np.ndarray) -> float:
    """Largest gap between arctanh alpha^(l) and the straight line through its two ends, over all L.

    ``profile`` (n_depths, max_depth + 1): alpha of layers 0..L per row, nan-padded after layer L. The
    depth law (Yang, Saxe, Latham 2026, layer-wise balance) says the gap is 0.
    """
    profile = check_real_dtype("profile", profile)
    if profile.ndim != 2 or profile.size == 0:
        raise ValueError(f"profile must be a non-empty (n_depths, max_depth + 1) array, got shape "
                         f"{profile.shape}")
    worst = 0.0
    for i, row in enumerate(profile):
        kept = row[~np.isnan(row)]
        if kept.size < 2 or np.isnan(row[kept.size:]).sum() != row.size - kept.size:
            raise ValueError(f"profile row {i} must hold layers 0..L (L >= 1) then NaN padding, got {row}")
        with np.errstate(invalid="ignore", divide="ignore"):
            a = check_finite(f"arctanh of profile row {i} (alpha must lie in (-1, 1))", np.arctanh(kept))
        L = a.size - 1
        line = a[0] + (a[-1] - a[0]) * np.arange(L + 1) / L
        worst = max(worst, float(np.abs(a - line).max()))
    return worst


# --- exact theory for a given dataset (derived) -------------------------------------------------------

WALSH_S, WALSH_SC = 1, 3
"""Rows of the shape and the interaction mode in :data:`~interp_repro.abstraction.data.WALSH_BASIS`."""


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
    actual Z0 Z0^T, e.g. :attr:`~interp_repro.abstraction.train.LinearRun.Q0`) when given, in which
    case ``kappa`` is not used. Each mode follows :func:`solve_modes` and
    alpha = (q_S - q_SC) / (q_S + q_SC). Exact when the item kernels are 2FS (no within-class noise)
    and Q0 is diagonal in the Walsh basis; finite-width Q0 is only approximately so.
    """
    kappa, lam = check_positive("kappa", kappa), check_positive("lam", lam)
    x, y = item_spectrum(data.X @ data.X.T, data), item_spectrum(data.Y @ data.Y.T, data)
    q0 = kappa**2 * x if init_Q is None else item_spectrum(init_Q, data)
    t = np.asarray(t, dtype=np.float64)
    q_s = solve_modes(q0[WALSH_S], x[WALSH_S], y[WALSH_S], lam, t)
    q_sc = solve_modes(q0[WALSH_SC], x[WALSH_SC], y[WALSH_SC], lam, t)
    return (q_s - q_sc) / (q_s + q_sc)


# --- kernel maps (Yang, Saxe, Latham 2026, nonlinear networks) ---------------------------------------

def _as_cov(Q) -> tuple[np.ndarray, np.ndarray]:
    """Q as floats, and the products sqrt(Q_ii Q_jj), after checking the shape and diagonal."""
    Q = np.asarray(Q, dtype=np.float64)
    if Q.ndim < 2 or Q.shape[-1] != Q.shape[-2]:
        raise ValueError(f"Q must be a covariance of shape (..., k, k), got shape {Q.shape}")
    diag = np.diagonal(Q, axis1=-2, axis2=-1)
    if (diag < 0).any() or not np.isfinite(Q).all():
        raise ValueError("Q must be finite with a non-negative diagonal (it is a covariance)")
    return Q, np.sqrt(diag[..., :, None] * diag[..., None, :])


def _correlation(Q: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """rho_ij = Q_ij / sqrt(Q_ii Q_jj), clipped to [-1, 1]; 0 where a variance is 0."""
    rho = np.zeros_like(Q)
    np.divide(Q, scale, out=rho, where=scale > 0)
    return np.clip(rho, -1.0, 1.0)


def erf_kernel(Q) -> np.ndarray:
    """phi = erf: K_ij = (2/pi) arcsin(2 Q_ij / sqrt((1 + 2 Q_ii)(1 + 2 Q_jj))) (Williams 1997)."""
    Q, _ = _as_cov(Q)
    diag = 1 + 2 * np.diagonal(Q, axis1=-2, axis2=-1)
    arg = 2 * Q / np.sqrt(diag[..., :, None] * diag[..., None, :])
    return 2 / np.pi * np.arcsin(np.clip(arg, -1.0, 1.0))


def relu_kernel(Q) -> np.ndarray:
    """phi = ReLU: K_ij = sqrt(Q_ii Q_jj)/(2 pi) (sin t + (pi - t) cos t), cos t = rho_ij.

    The arc-cosine kernel of order 1 (Cho and Saul 2009).
    """
    Q, scale = _as_cov(Q)
    rho = _correlation(Q, scale)
    theta = np.arccos(rho)
    return scale / (2 * np.pi) * (np.sin(theta) + (np.pi - theta) * rho)


def leaky_relu_kernel(Q, slope: float) -> np.ndarray:
    """phi(z) = ((1+a)/2) z + ((1-a)/2) |z| with slope a: K = ((1+a)/2)^2 Q + ((1-a)/2)^2 E|z_i||z_j|.

    E|z_i||z_j| = (2/pi) sqrt(Q_ii Q_jj) (sqrt(1 - rho^2) + rho arcsin rho); the cross terms vanish
    because z |z'| is odd. Slope 0 is ReLU, slope 1 the identity (K = Q).
    """
    slope = float(slope)
    if not np.isfinite(slope):
        raise ValueError(f"slope must be a finite number, got {slope!r}")
    Q, scale = _as_cov(Q)
    rho = _correlation(Q, scale)
    abs_part = 2 / np.pi * scale * (np.sqrt(1 - rho**2) + rho * np.arcsin(rho))
    return ((1 + slope) / 2) ** 2 * Q + ((1 - slope) / 2) ** 2 * abs_part


def relu(z) -> np.ndarray:
    """max(z, 0)."""
    return np.maximum(z, 0.0)


def leaky_relu(z, slope: float) -> np.ndarray:
    """z for z > 0, ``slope`` z otherwise."""
    return np.where(z > 0, z, slope * z)


def gelu(z) -> np.ndarray:
    """The exact GELU, z Phi(z) (Phi the standard normal CDF)."""
    z = np.asarray(z, dtype=np.float64)
    return z * ndtr(z)


def _quadrature_kernel(phi: Activation, Q, order: int, chunk: int = 64) -> np.ndarray:
    """E[phi(z_i) phi(z_j)] by a product Gauss-Hermite rule in the 2-D Gaussian of each pair i <= j.

    z_i = sigma_i u, z_j = sigma_j (rho u + sqrt(1 - rho^2) v), u, v independent standard normals.
    """
    Q, scale = _as_cov(Q)
    rho = _correlation(Q, scale)
    sigma = np.sqrt(np.diagonal(Q, axis1=-2, axis2=-1))
    nodes, weights = np.polynomial.hermite_e.hermegauss(order)
    weights = weights / np.sqrt(2 * np.pi)
    k = Q.shape[-1]
    iu, ju = np.triu_indices(k)
    r_all, s_all = rho.reshape(-1, k, k)[:, iu, ju], sigma.reshape(-1, k)
    pairs = np.empty_like(r_all)
    for start in range(0, r_all.shape[0], chunk):
        r, s = r_all[start:start + chunk], s_all[start:start + chunk]  # (b, P), (b, k)
        f_i = phi(s[:, iu, None] * nodes)  # (b, P, order): phi(sigma_i u_a)
        z_j = s[:, ju, None, None] * (r[..., None, None] * nodes[:, None]
                                      + np.sqrt(1 - r**2)[..., None, None] * nodes[None, :])
        pairs[start:start + chunk] = np.einsum("bpa,bpa,a->bp", f_i, phi(z_j) @ weights, weights)
    out = np.empty((r_all.shape[0], k, k))
    out[:, iu, ju] = pairs
    out[:, ju, iu] = pairs
    return out.reshape(Q.shape)


def gelu_kernel(Q, order: int = 64) -> np.ndarray:
    """phi = GELU (exact, z Phi(z)) by a Gauss-Hermite rule of ``order`` points per axis.

    The fact sheet treats GELU as having no closed form. At order 64 the rule agrees with order 128 to
    ~1e-6 for unit variances and ~1e-4 for variances near 10 (GELU then looks like a ReLU kink).
    """
    check_positive_int("order", order)
    return _quadrature_kernel(gelu, Q, order)


def monte_carlo_kernel(phi: Activation, Q, n: int, seed: int, chunk: int = 250_000) -> np.ndarray:
    """Sample estimate of E[phi(z) phi(z)^T] from n draws z ~ N(0, Q), Q of shape (k, k) (for tests)."""
    n = check_positive_int("n", n)
    Q, _ = _as_cov(Q)
    if Q.ndim != 2:
        raise ValueError(f"monte_carlo_kernel takes one (k, k) covariance, got shape {Q.shape}")
    evals, evecs = np.linalg.eigh((Q + Q.T) / 2)
    if evals.min() < -1e-9 * max(evals.max(), 1.0):
        raise ValueError(f"Q must be positive semi-definite, smallest eigenvalue {evals.min():.3g}")
    root = evecs * np.sqrt(np.clip(evals, 0, None))  # Q = root @ root.T
    rng = numpy_rng(seed)
    total = np.zeros_like(Q)
    for start in range(0, n, chunk):
        f = phi(rng.standard_normal((min(chunk, n - start), Q.shape[0])) @ root.T)
        total += f.T @ f
    return total / n


def random_two_factor_kernels(n_kernels: int, seed: int, log10_range: tuple[float, float] = (-3.0, 1.0)
                              ) -> np.ndarray:
    """(n, 4, 4) random 2FS class kernels: Walsh eigenvalues drawn log-uniformly in 10**log10_range."""
    n = check_positive_int("n_kernels", n_kernels)
    lo, hi = log10_range
    if not lo <= hi:
        raise ValueError(f"log10_range must be (low, high) with low <= high, got {log10_range!r}")
    return kernel_from_spectrum(10.0 ** numpy_rng(seed).uniform(lo, hi, size=(n, 4)))


def attenuation_check(kernel_fn: KernelMap, n_kernels: int = 10_000, seed: int = 0,
                      concept: str = "shape") -> tuple[np.ndarray, np.ndarray]:
    """(|alpha_K|, |alpha_Q|) over random two-factor kernels Q and their images K = kernel_fn(Q).

    The attenuation law (Yang, Saxe, Latham 2026) holds where |alpha_K| <= |alpha_Q|.
    """
    Q = random_two_factor_kernels(n_kernels, seed)
    K = kernel_fn(Q)
    return np.abs(kernel_abstraction(K, concept)), np.abs(kernel_abstraction(Q, concept))


def attenuation_violations(alpha_after, alpha_before, tol: float = 1e-9) -> int:
    """How many entries break the attenuation law |alpha_K| <= |alpha_Q| (Yang, Saxe, Latham 2026,
    nonlinear networks) by more than ``tol``: |alpha_after| > |alpha_before| + tol."""
    after = check_real_array("alpha_after", alpha_after)
    before = check_real_array("alpha_before", alpha_before)
    return int(np.count_nonzero(np.abs(after) > np.abs(before) + tol))


def attenuation_excess(alpha_after, alpha_before) -> float:
    """The largest |alpha_after| - |alpha_before| (over training): above 0, the attenuation law
    (Yang, Saxe, Latham 2026) failed for a while."""
    after = check_real_array("alpha_after", alpha_after)
    before = check_real_array("alpha_before", alpha_before)
    return float(np.max(np.abs(after) - np.abs(before)))


# --- local GELU ablation (after Yang, Saxe, Latham 2026, experiments on DINOv3 and Gemma) -------------

PROBE_CONCEPTS = {"shape": (0, 1), "colour": (1, 0)}
"""(label column probed, label column that sets the context) for each concept."""


def probe_transfer(reps, labels, concept: str = "shape") -> float:
    """Cross-context linear-probe accuracy for ``concept`` (after Yang, Saxe, Latham 2026).

    For shape: a least-squares probe (targets s = +-1, unpenalised intercept, minimum-norm weights) is
    fitted on the colour = +1 samples and tested on the colour = -1 ones, and vice versa; returns the
    mean of the two accuracies. 1 when the concept is coded the same way in both contexts; 0 when it
    flips (anti-abstract). This is the paper's cross-context probe as its local GELU ablation
    (DINOv3, Gemma) names it: one concept's probe trained in one value of the other concept, tested
    in the other. The paper's probe family and its regulariser are not stated to us; a least-squares
    probe has the direction of linear discriminant analysis. Unlike alpha it reads the class means in
    the metric of the within-class noise (see :func:`whitened_abstraction`).
    """
    if concept not in PROBE_CONCEPTS:
        raise ValueError(f"unknown concept {concept!r}: choose one of {', '.join(PROBE_CONCEPTS)}")
    reps = check_real_array("reps", reps, 2)
    labels = _check_labels(labels, reps.shape[0])
    col, ctx = PROBE_CONCEPTS[concept]
    accuracies = []
    for side in (1, -1):
        fit, test = labels[:, ctx] == side, labels[:, ctx] == -side
        if len(np.unique(labels[fit, col])) < 2 or not test.any():
            raise ValueError(f"probe_transfer needs both values of {concept} in both contexts")
        x_mean, y_mean = reps[fit].mean(0), labels[fit, col].mean()
        w = np.linalg.lstsq(reps[fit] - x_mean, labels[fit, col] - y_mean, rcond=None)[0]
        prediction = y_mean + (reps[test] - x_mean) @ w
        accuracies.append(np.mean(np.sign(prediction) == labels[test, col]))
    return float(np.mean(accuracies))


WHITENING_RIDGE = 1e-6
"""Ridge, relative to the mean within-class variance, added to the within-class covariance before
:func:`whitened_abstraction` inverts it (noise-free classes make it singular)."""


def whitened_abstraction(reps, labels, concept: str = "shape") -> float:
    """alpha (:func:`abstraction_score`) after whitening the pooled within-class covariance S (ours).

    The cosine of S^-1/2 d1 and S^-1/2 d2: the concept vectors in the metric a least-squares probe
    reads (its weights are S_fit^-1 d1 up to scale), so that this, unlike the Euclidean alpha of the
    paper, tracks :func:`probe_transfer`. Directions without within-class spread (S singular) are
    damped by a ridge of :data:`WHITENING_RIDGE` times the mean variance.
    """
    reps = check_real_array("reps", reps, 2)
    means = class_means(reps, labels)  # also checks labels and the concept below
    _concept(concept)
    member = [(np.asarray(labels)[:, 0] == s) & (np.asarray(labels)[:, 1] == c) for s, c in CLASSES]
    resid = reps - sum(np.outer(m, mu) for m, mu in zip(member, means, strict=True))
    cov = resid.T @ resid / reps.shape[0]
    cov += WHITENING_RIDGE * max(np.trace(cov) / cov.shape[0], np.finfo(float).tiny) * np.eye(cov.shape[0])
    evals, evecs = np.linalg.eigh(cov)
    return float(abstraction_score(reps @ (evecs / np.sqrt(evals)), labels, concept))


def concept_scores(reps, labels) -> dict[str, list[float]]:
    """``alpha`` (:func:`abstraction_score`), ``probe`` (:func:`probe_transfer`) and ``walpha``
    (:func:`whitened_abstraction`) of representations (N, d), one value per concept in
    :data:`PROBE_CONCEPTS` order (shape, colour)."""
    concepts = tuple(PROBE_CONCEPTS)
    return {"alpha": [float(abstraction_score(reps, labels, c)) for c in concepts],
            "probe": [probe_transfer(reps, labels, c) for c in concepts],
            "walpha": [whitened_abstraction(reps, labels, c) for c in concepts]}


def kernel_alignment(A, B) -> float:
    """Centred kernel alignment of representations A (N, d_a) and B (N, d_b) of the same samples (rows):
    <K_A, K_B>_F / (||K_A||_F ||K_B||_F) for the centred item kernels K = (H Z)(H Z)^T, H the centring
    matrix (Cristianini et al. 2002; centred, Cortes, Mohri & Rostamizadeh 2012). 1 when the two
    kernels are proportional: with B the targets, how far a layer's learned kernel has turned towards
    the target's, the quantity the linear theory's kernel Q evolves (ours as a summary of it).
    ``ValueError`` for a representation with no spread across samples."""
    A, B = check_real_array("A", A, 2), check_real_array("B", B, 2)
    if A.shape[0] != B.shape[0]:
        raise ValueError(f"kernel_alignment compares the same samples: got {A.shape[0]} and {B.shape[0]} "
                         "rows")
    A, B = A - A.mean(0), B - B.mean(0)
    cross = np.linalg.norm(A.T @ B) ** 2  # <K_A, K_B>_F = ||A^T B||_F^2
    norms = np.linalg.norm(A.T @ A) * np.linalg.norm(B.T @ B)
    if norms == 0:
        raise ValueError("kernel_alignment needs representations that vary across samples")
    return float(cross / norms)


def up_flags(intact: np.ndarray, ablated: np.ndarray) -> list[bool]:
    """Per (seed, block) pair, whether its score, averaged over the concepts (last axis), is higher
    with the block's GELU ablated than intact: the paper's direction of change (Yang, Saxe, Latham
    2026, local GELU ablation, which reports means). A tie counts as not up."""
    intact, ablated = check_real_array("intact", intact), check_real_array("ablated", ablated)
    return [bool(up) for up in (ablated.mean(-1) > intact.mean(-1)).ravel()]


def up_fraction(intact: np.ndarray, ablated: np.ndarray) -> float:
    """The fraction of (seed, block) pairs whose score goes up (:func:`up_flags`)."""
    return float(np.mean(up_flags(intact, ablated)))


def same_direction(intact_a, ablated_a, intact_b, ablated_b) -> float:
    """The fraction of (seed, block) pairs in which scores a and b (each averaged over the concepts,
    last axis) change in the same direction under the ablation (ours); a pair where either does not
    change counts as not the same."""
    named = {"intact_a": intact_a, "ablated_a": ablated_a, "intact_b": intact_b, "ablated_b": ablated_b}
    arrays = [check_finite(name, x) for name, x in named.items()]
    if len({x.shape for x in arrays}) != 1 or arrays[0].ndim < 1 or arrays[0].size == 0:
        raise ValueError("the four score arrays must share one non-empty shape, "
                         f"got {[x.shape for x in arrays]}")
    change_a = np.sign(arrays[1].mean(-1) - arrays[0].mean(-1))
    change_b = np.sign(arrays[3].mean(-1) - arrays[2].mean(-1))
    return float(((change_a == change_b) & (change_a != 0)).mean())


# --- comparisons -----------------------------------------------------------------------------------------

def largest_gap(a, b) -> float:
    """max |a - b| over all entries: e.g. simulation against theory, or a run's end against a law."""
    return float(np.abs(check_real_array("a", a) - check_real_array("b", b)).max())


def noiseless_cells(nus: np.ndarray) -> np.ndarray:
    """(len(nus), len(nus)) mask of a (nu_x, nu_y) grid: True where the input or the target is
    noiseless (nu = 0), where the terminal law gives perfect abstraction (Yang, Saxe, Latham 2026)."""
    return (nus[:, None] == 0) | (nus[None, :] == 0)


def perfectly_abstract(alpha, tol: float) -> np.ndarray:
    """True where alpha is within ``tol`` of perfect abstraction (alpha = 1)."""
    return check_real_array("alpha", alpha) >= 1 - tol
