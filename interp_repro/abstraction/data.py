"""Two-factor datasets with prescribed class-kernel spectra (setting of Yang, Saxe, Latham 2026).

Four classes (s, c) in {+1,-1}^2 (shape x colour), always in the order of :data:`CLASSES`:
(s+c+, s+c-, s-c+, s-c-). Under two-factor symmetry (2FS) a 4 x 4 class kernel is diagonal in the
Walsh basis :data:`WALSH_BASIS` (rows G, S, C, SC), and nu = lambda_SC / lambda_S is its inverse
signal-to-noise ratio: the strength of the interaction (XOR) mode relative to the shape mode.

Construction (derived): the class means are

    x_{s,c} = a_G e0 + a_S s e1 + a_C c e2 + a_SC s c e3

for four orthonormal directions e0..e3 drawn at random (seeded) in d dimensions. Their kernel
K_ab = <x_a, x_b> has Walsh eigenvalues lambda_k = 4 a_k^2, so a_k = sqrt(lambda_k) / 2, and we set
lambda_SC = nu * lambda_S. Samples are the class mean plus isotropic Gaussian within-class noise.

Layout: samples are rows. ``X`` is (N, d_in), ``Y`` is (N, d_out), N = 4 n, grouped by class in the
order above (the first n samples are s+c+, ...). The fact sheet's item kernel X^T X (features x
samples) is ``X @ X.T`` here.
"""

from dataclasses import dataclass

import numpy as np

from interp_repro.core import check_nonnegative, check_positive_int, numpy_rng

CLASSES = ((1, 1), (1, -1), (-1, 1), (-1, -1))
"""The four classes as (s, c), in the order every 4 x 4 class kernel uses."""

DESIGN = np.array([[1.0, s, c, s * c] for s, c in CLASSES])
"""(class, mode) matrix of the signs (1, s, c, sc): class means are DESIGN @ diag(a) @ directions."""

WALSH_BASIS = DESIGN.T / 2
"""Orthonormal Walsh vectors as rows, in the order of the modes G (global mean), S (shape), C (colour)
and SC (shape x colour, the interaction): G = (1,1,1,1)/2, S = (1,1,-1,-1)/2, ..."""


def check_nu(name: str, nu, upper: float = 1.0) -> np.ndarray:
    """``nu`` as a float array, or ``ValueError`` unless every value is finite and lies in [0, ``upper``].

    nu = lambda_SC / lambda_S cannot be negative for a PSD kernel; above 1 the interaction mode
    outweighs the concept mode (anti-abstract data, alpha < 0), outside the regime the paper's
    laws are stated for. Only an ``upper`` above 1 (``math.inf``: no bound) admits such values, as
    the inputs of the ReLU anti-abstraction sweep need.
    """
    try:
        arr = np.asarray(nu, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or numbers, got {nu!r}") from None
    bad = ~(np.isfinite(arr) & (arr >= 0.0) & (arr <= upper))  # also catches nan
    if bad.any():
        allowed = f"lie in [0, {upper:g}]" if np.isfinite(upper) else "be a finite number >= 0"
        regime = " whose concept mode dominates" if upper <= 1.0 else ""
        raise ValueError(f"{name} must {allowed} (lambda_SC / lambda_S of a PSD kernel{regime}), "
                         f"got {arr[bad].ravel()[0].item()!r}")
    return arr


def walsh_spectrum_of(nu: float, lambda_s: float = 1.0, lambda_g: float = 0.0,
                      lambda_c: float = 1.0, nu_max: float = 1.0) -> np.ndarray:
    """The class-kernel eigenvalues (lambda_G, lambda_S, lambda_C, lambda_SC) for a given nu (derived);
    ``nu_max``: the largest nu accepted (see :func:`check_nu`)."""
    nu = float(check_nu("nu", nu, nu_max))
    lambda_s = check_nonnegative("lambda_s", lambda_s)
    if lambda_s == 0.0:
        raise ValueError("lambda_s must be > 0: nu = lambda_SC / lambda_S needs a shape mode")
    lambda_g, lambda_c = check_nonnegative("lambda_g", lambda_g), check_nonnegative("lambda_c", lambda_c)
    return np.array([lambda_g, lambda_s, lambda_c, nu * lambda_s])


@dataclass(frozen=True)
class TwoFactorData:
    """A two-factor dataset. Samples are rows, grouped by class in :data:`CLASSES` order."""

    X: np.ndarray
    """Inputs, (N, d_in)."""
    Y: np.ndarray
    """Targets, (N, d_out)."""
    labels: np.ndarray
    """(N, 2) integer array of (s, c) in {+1, -1} per sample."""
    n_per_class: int
    """Samples per class n (N = 4 n)."""
    input_spectrum: np.ndarray
    """Prescribed (lambda_G, lambda_S, lambda_C, lambda_SC) of the input class-mean kernel."""
    target_spectrum: np.ndarray
    """Prescribed (lambda_G, lambda_S, lambda_C, lambda_SC) of the target class-mean kernel."""

    @property
    def class_index(self) -> np.ndarray:
        """Class number 0..3 of every sample, in :data:`CLASSES` order."""
        return np.repeat(np.arange(4), self.n_per_class)


def _directions(rng: np.random.Generator, dim: int) -> np.ndarray:
    """Four orthonormal columns, (dim, 4), uniformly (Haar) distributed."""
    q, r = np.linalg.qr(rng.standard_normal((dim, 4)))
    return q * np.sign(np.diag(r))


def _samples(rng: np.random.Generator, spectrum: np.ndarray, dim: int, n: int, noise: float,
             exact_means: bool) -> np.ndarray:
    means = (DESIGN * (np.sqrt(spectrum) / 2)) @ _directions(rng, dim).T  # (4, dim)
    eps = noise * rng.standard_normal((4, n, dim))
    if exact_means:
        eps -= eps.mean(axis=1, keepdims=True)
    return (means[:, None, :] + eps).reshape(4 * n, dim)


def two_factor_data(nu_x: float, nu_y: float, n_per_class: int, d_in: int, d_out: int, seed: int,
                    noise_x: float = 0.0, noise_y: float = 0.0, lambda_s: float = 1.0,
                    lambda_g: float = 0.0, lambda_c: float = 1.0,
                    exact_means: bool = True, nu_x_max: float = 1.0) -> TwoFactorData:
    """Seeded two-factor data whose input and target class-mean kernels have inverse SNR nu_x, nu_y.

    Both kernels get the eigenvalues (lambda_g, lambda_s, lambda_c, nu * lambda_s) (derived
    construction, see the module docstring). The defaults (lambda_G = 0, lambda_C = lambda_S = 1) give
    zero-mean data in which shape and colour are equally strong; with nu_y = 0 the targets are then a
    rotated copy of the (s, c) labels, with nu_y = 1 and lambda_g = 1 an embedded one-hot code.

    ``noise_x`` / ``noise_y``: standard deviation per coordinate of the isotropic within-class noise.
    ``exact_means``: centre the noise within each class so that the empirical class means, and hence
    the class-mean kernel, are exactly the prescribed ones (with n = 1 this removes the noise).
    Otherwise the class-mean kernel's diagonal is raised by noise^2 * d / n on average, and its
    entries fluctuate by about sqrt(lambda) noise / sqrt(n).
    ``nu_x_max``: the largest nu_x accepted; above 1 the input's interaction mode outweighs its shape
    mode (alpha_x = (1 - nu_x) / (1 + nu_x) < 0), the very noisy inputs of the ReLU
    anti-abstraction sweep (``math.inf``: no bound).
    """
    check_nu("nu_x", nu_x, nu_x_max)
    check_nu("nu_y", nu_y)
    n = check_positive_int("n_per_class", n_per_class)
    for name, dim in (("d_in", d_in), ("d_out", d_out)):
        check_positive_int(name, dim)
        if dim < 4:
            raise ValueError(f"{name} must be >= 4 (four orthonormal mode directions), got {dim}")
    noise_x = check_nonnegative("noise_x", noise_x)
    noise_y = check_nonnegative("noise_y", noise_y)
    spec_x = walsh_spectrum_of(nu_x, lambda_s, lambda_g, lambda_c, nu_x_max)
    spec_y = walsh_spectrum_of(nu_y, lambda_s, lambda_g, lambda_c)
    rng = numpy_rng(seed)
    X = _samples(rng, spec_x, d_in, n, noise_x, exact_means)
    Y = _samples(rng, spec_y, d_out, n, noise_y, exact_means)
    labels = np.repeat(np.array(CLASSES, dtype=np.int64), n, axis=0)
    return TwoFactorData(X=X, Y=Y, labels=labels, n_per_class=n, input_spectrum=spec_x,
                         target_spectrum=spec_y)


def split_per_class(data: TwoFactorData, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks over the samples: the first ``n`` of each class (training), and the rest (held out)."""
    first = (np.arange(data.labels.shape[0]) % data.n_per_class) < n
    return first, ~first
