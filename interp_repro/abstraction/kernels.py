"""Infinite-width kernel maps Q -> K = E[phi(z) phi(z)^T], z ~ N(0, Q) (Yang, Saxe, Latham 2026).

Every map takes a pre-activation covariance Q of shape (..., k, k) and returns the post-activation
second-moment matrix of the same shape. Closed forms: erf (arc-sine kernel, Williams 1997), ReLU
(arc-cosine kernel of order 1, Cho and Saul 2009), leaky ReLU (a linear plus an |z| part). GELU has no
closed form and is integrated by Gauss-Hermite quadrature. The attenuation law says
|alpha_K| <= |alpha_Q| (proved in the paper for erf and leaky ReLU); :func:`attenuation_check` tests it
on random two-factor kernels.
"""

from collections.abc import Callable

import numpy as np
from scipy.special import ndtr

from interp_repro.abstraction.theory import kernel_abstraction, kernel_from_spectrum
from interp_repro.core.seeding import numpy_rng
from interp_repro.core.validate import check_positive_int

Activation = Callable[[np.ndarray], np.ndarray]
KernelMap = Callable[[np.ndarray], np.ndarray]


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
