"""Abstraction scores, Walsh spectra, learning dynamics and depth laws (Yang, Saxe, Latham 2026).

Kernels here are 4 x 4 class kernels in :data:`~interp_repro.abstraction.data.CLASSES` order
(s+c+, s+c-, s-c+, s-c-), optionally with leading batch dimensions (..., 4, 4).

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
"""

import numpy as np
from scipy import optimize

from interp_repro.abstraction.data import CLASSES, WALSH_BASIS, check_nu
from interp_repro.core.validate import check_positive_int

CONCEPTS = {"shape": (0, 2, 1, 3), "colour": (0, 1, 2, 3)}
"""Class indices (a, b, c, e) of the concept vectors d1 = z_a - z_b and d2 = z_c - z_e.

shape: d1 = z(s+,c+) - z(s-,c+), d2 = z(s+,c-) - z(s-,c-); colour: d1 = z(s+,c+) - z(s+,c-),
d2 = z(s-,c+) - z(s-,c-)."""


def _nu(name: str, nu) -> np.ndarray:
    """:func:`check_nu`, also naming ``name`` when ``nu`` is not a number at all."""
    try:
        np.asarray(nu, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers in [0, 1], got {nu!r}") from None
    return check_nu(name, nu)


def _as_kernel(K) -> np.ndarray:
    K = np.asarray(K, dtype=np.float64)
    if K.ndim < 2 or K.shape[-2:] != (4, 4):
        raise ValueError(f"a class kernel must have shape (..., 4, 4), got shape {K.shape}")
    return K


def _concept(concept: str) -> tuple[int, int, int, int]:
    if concept not in CONCEPTS:
        raise ValueError(f"unknown concept {concept!r}: choose one of {', '.join(CONCEPTS)}")
    return CONCEPTS[concept]


# --- spectra and scores -----------------------------------------------------------------------------

def walsh_spectrum(K) -> np.ndarray:
    """(lambda_G, lambda_S, lambda_C, lambda_SC) of class kernel(s) K (..., 4, 4), shape (..., 4).

    With d, p, r, u the entries for same class, same shape only, same colour only and neither,
    lambda_G = d+p+r+u, lambda_S = d+p-r-u, lambda_C = d-p+r-u, lambda_SC = d-p-r+u (Yang, Saxe,
    Latham 2026). For a kernel without 2FS these are the Rayleigh quotients h^T K h of the Walsh
    vectors, i.e. the same formulas with d, p, r, u averaged over their entries.
    """
    K = _as_kernel(K)
    return np.einsum("ki,...ij,kj->...k", WALSH_BASIS, K, WALSH_BASIS)


def kernel_from_spectrum(lambdas) -> np.ndarray:
    """The 2FS class kernel H^T diag(lambda) H with Walsh eigenvalues ``lambdas`` (..., 4) (derived)."""
    lam = np.asarray(lambdas, dtype=np.float64)
    if lam.ndim < 1 or lam.shape[-1] != 4:
        raise ValueError(f"lambdas must have shape (..., 4) in (G, S, C, SC) order, got {lam.shape}")
    return np.einsum("ki,...k,kj->...ij", WALSH_BASIS, lam, WALSH_BASIS)


def _check_labels(labels, n_samples: int) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.shape != (n_samples, 2):
        raise ValueError(f"labels must have shape (N, 2) = ({n_samples}, 2), got {labels.shape}")
    if not np.isin(labels, (-1, 1)).all():
        raise ValueError("labels must hold (s, c) values in {+1, -1}")
    return labels


def class_means(Z, labels) -> np.ndarray:
    """Class means of representations Z (..., N, d) (samples as rows), shape (..., 4, d)."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim < 2:
        raise ValueError(f"Z must have shape (..., N, d) with samples as rows, got shape {Z.shape}")
    labels = _check_labels(labels, Z.shape[-2])
    member = np.stack([(labels[:, 0] == s) & (labels[:, 1] == c) for s, c in CLASSES]).astype(float)
    counts = member.sum(axis=1)
    if (counts == 0).any():
        missing = [CLASSES[i] for i in np.flatnonzero(counts == 0)]
        raise ValueError(f"every class needs at least one sample; none for (s, c) in {missing}")
    return (member / counts[:, None]) @ Z


def class_kernel(Z, labels) -> np.ndarray:
    """Class-mean kernel K_ab = <mean_a, mean_b> of representations Z (..., N, d), shape (..., 4, 4)."""
    M = class_means(Z, labels)
    return M @ np.swapaxes(M, -1, -2)


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


def kernel_flow(Q, sigma_x, sigma_y, lam: float) -> np.ndarray:
    """dQ/dt = lambda (Sigma_x M Q + Q M Sigma_x), M = (Q + lambda)^-1 Sigma_y (Q + lambda)^-1 (derived)."""
    Q = np.asarray(Q, dtype=np.float64)
    inv = np.linalg.inv(Q + lam * np.eye(Q.shape[-1]))
    M = inv @ np.asarray(sigma_y) @ inv
    return lam * (sigma_x @ M @ Q + Q @ M @ sigma_x)


def mode_rate(q, x, y, lam) -> np.ndarray:
    """dq/dt = 2 lambda x y q / (q + lambda)^2 for one 2FS mode (derived)."""
    q = np.asarray(q, dtype=np.float64)
    return 2 * lam * x * y * q / (q + lam) ** 2


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


def _check_spectrum_scale(x_s: float, y_s: float, lam: float) -> None:
    for name, v in (("x_s", x_s), ("y_s", y_s), ("lam", lam)):
        if not (np.isfinite(v) and v > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {v!r}")


def alpha_trajectory(nu_x, nu_y, kappa, t, lam: float = 1.0, x_s: float = 1.0,
                     y_s: float = 1.0) -> np.ndarray:
    """alpha(t) = (q_S - q_SC) / (q_S + q_SC) of the learned kernel of the two-layer linear net (derived).

    Data spectra: x_S = ``x_s``, x_SC = nu_x x_s (input), y_S = ``y_s``, y_SC = nu_y y_s (target).
    Initialisation: W0 with i.i.d. N(0, kappa^2 / width) entries gives, at infinite width,
    Q0 = kappa^2 Sigma_x, i.e. q0_k = kappa^2 x_k, so alpha(0) = alpha_x = (1 - nu_x)/(1 + nu_x).
    Broadcasts over nu_x, nu_y, kappa and t.
    """
    nu_x, nu_y = _nu("nu_x", nu_x), _nu("nu_y", nu_y)
    _check_spectrum_scale(x_s, y_s, lam)
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
