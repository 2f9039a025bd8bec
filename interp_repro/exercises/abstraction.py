"""Reference solutions to the abstraction exercises (Yang, Saxe, Latham 2026, dynamics of abstraction).

Each function answers one exercise of ``book/abstraction/exercises.md``; every computation goes through
:mod:`interp_repro.abstraction`. The ``check_*`` functions test a student's own code for the coding
exercises against the library's reference (``measures.abstraction_score``, ``measures.kernel_abstraction``),
saying what is wrong without giving the answer.
"""

from collections.abc import Callable

import numpy as np
import pandas as pd

from interp_repro.abstraction import measures
from interp_repro.abstraction.data import CLASSES, check_nu, two_factor_data
from interp_repro.abstraction.measures import (
    abstraction_score,
    alpha_trajectory,
    attenuation_check,
    attenuation_violations,
    erf_kernel,
    gelu_kernel,
    kernel_from_spectrum,
    leaky_relu_kernel,
    terminal_abstraction,
)
from interp_repro.core import check_nonnegative, check_positive, check_positive_int
from interp_repro.exercises.checking import attempt, close, number, passed, random_cases, require, withholds

# --- 1. within-class noise and the measured abstraction score -------------------------------------

def noisy_alpha_prediction(nu: float, noise: float, n_per_class: int, dim: int,
                           lambda_s: float = 1.0) -> float:
    """Expected-kernel prediction of the shape score of noisy class means (ours, from the 2FS algebra
    of Yang, Saxe, Latham 2026): averaging n samples leaves noise of squared norm c = noise^2 dim / n
    in each class mean, which adds c I to the class kernel, so
    alpha = (lambda_S - lambda_SC) / (lambda_S + lambda_SC + 2 c)
          = (1 - nu) lambda_S / ((1 + nu) lambda_S + 2 c)."""
    nu = float(check_nu("nu", nu))
    check_nonnegative("noise", noise)
    check_positive_int("n_per_class", n_per_class)
    check_positive_int("dim", dim)
    lambda_s = check_positive("lambda_s", lambda_s)
    c = noise**2 * dim / n_per_class
    return (1 - nu) * lambda_s / ((1 + nu) * lambda_s + 2 * c)


def noisy_abstraction(nu: float = 0.2, noise: float = 0.5, n_per_class=(2, 8, 32, 128), *, dim: int = 32,
                      seeds: int = 20, seed: int = 0) -> pd.DataFrame:
    """The shape score of class means measured on :func:`two_factor_data` draws with isotropic
    within-class noise (``exact_means=False``), over ``seeds`` datasets (seeds seed, seed + 1, ...),
    beside :func:`noisy_alpha_prediction` and the noise-free (1 - nu) / (1 + nu)."""
    check_positive_int("seeds", seeds)
    rows = []
    for n in n_per_class:
        draws = [two_factor_data(nu, 0.0, n, dim, 4, seed + k, noise_x=noise, exact_means=False)
                 for k in range(seeds)]
        alphas = [float(abstraction_score(data.X, data.labels)) for data in draws]
        rows.append({"samples per class": n, "alpha measured (mean)": np.mean(alphas),
                     "alpha measured (sd)": np.std(alphas, ddof=1) if seeds > 1 else np.nan,
                     "alpha predicted": noisy_alpha_prediction(nu, noise, n, dim),
                     "alpha without noise": (1 - nu) / (1 + nu)})
    return pd.DataFrame(rows)


# --- 2. how the terminal law is reached ----------------------------------------------------------

def terminal_gap_prediction(nu_x: float, nu_y: float, t, lam: float = 1.0, x_s: float = 1.0,
                            y_s: float = 1.0) -> np.ndarray:
    """Leading term of alpha(t) - alpha_inf for the two-layer linear net (derived from the exact mode
    solution of Yang, Saxe, Latham 2026): each mode grows as q ~ sqrt(4 lam x y t) - 2 lam, so with
    rho = sqrt(nu_x nu_y) the gap is 4 lam (1 - rho) / ((1 + rho)^2 sqrt(4 lam x_s y_s t))."""
    rho = float(np.sqrt(check_nu("nu_x", nu_x) * check_nu("nu_y", nu_y)))
    for name, value in (("lam", lam), ("x_s", x_s), ("y_s", y_s)):
        check_positive(name, value)
    t = np.asarray(t, dtype=np.float64)
    if not (np.isfinite(t) & (t > 0)).all():
        raise ValueError("t must hold finite times > 0")
    return 4 * lam * (1 - rho) / ((1 + rho) ** 2 * np.sqrt(4 * lam * x_s * y_s * t))


def terminal_approach(nu_x: float = 0.5, nu_y: float = 0.1, kappa: float = 1.0,
                      times=(1e1, 1e2, 1e3, 1e4, 1e6, 1e8, 1e10), lam: float = 1.0) -> pd.DataFrame:
    """alpha(t) from the exact solution (``measures.alpha_trajectory``), its distance to the terminal law
    (``measures.terminal_abstraction``) and :func:`terminal_gap_prediction`, at each time."""
    kappa = check_positive("kappa", kappa)
    t = np.asarray(times, dtype=np.float64)
    alpha = alpha_trajectory(nu_x, nu_y, kappa, t, lam)
    alpha_inf = float(terminal_abstraction(nu_x, nu_y))
    predicted = terminal_gap_prediction(nu_x, nu_y, t, lam)
    return pd.DataFrame({"t": t, "alpha(t)": alpha, "alpha_inf": alpha_inf, "gap": alpha - alpha_inf,
                         "predicted gap": predicted, "gap / predicted": (alpha - alpha_inf) / predicted})


# --- 3. how much each nonlinearity attenuates -------------------------------------------------------

def attenuation_table(slopes=(0.0, 0.1, 0.3, 0.6, 1.0), *, n_kernels: int = 2000, seed: int = 0,
                      gelu: bool = True) -> pd.DataFrame:
    """The attenuation law |alpha_K| <= |alpha_Q| (Yang, Saxe, Latham 2026) over the same random
    two-factor kernels Q for leaky ReLU of each slope (0 is ReLU, 1 the identity), erf and, if ``gelu``,
    GELU (quadrature): violations beyond 1e-9, and the median and smallest ratio |alpha_K| / |alpha_Q|
    (``measures.attenuation_check``)."""
    check_positive_int("n_kernels", n_kernels)
    maps = {f"leaky ReLU, slope {a:g}": (lambda Q, a=float(a): leaky_relu_kernel(Q, a)) for a in slopes}
    maps["erf"] = erf_kernel
    if gelu:
        maps["GELU"] = gelu_kernel
    rows = []
    for name, kernel_map in maps.items():
        after, before = attenuation_check(kernel_map, n_kernels, seed)
        ratio = after / before
        rows.append({"activation": name, "violations": attenuation_violations(after, before),
                     "median ratio": float(np.median(ratio)), "smallest ratio": float(ratio.min())})
    return pd.DataFrame(rows)


# --- coding exercises: the student's functions, checked ---------------------------------------------

def _coded(labels: np.ndarray, shape_vector: np.ndarray, context_vector: np.ndarray,
           interaction: np.ndarray) -> np.ndarray:
    """Representations s u + c v + s c w of samples with (s, c) ``labels``."""
    s, c = labels[:, :1], labels[:, 1:]
    return s * shape_vector + c * context_vector + s * c * interaction


_COLOUR = "each of the two vectors contrasts the two shapes (s = +1 against s = -1) within one context, " \
          "not the two contexts"


@withholds(measures.abstraction_score, measures.kernel_abstraction)
def check_abstraction_score(abstraction_score: Callable) -> None:
    """Check ``abstraction_score(Z, labels)``: the shape score of class means (Yang, Saxe, Latham 2026)
    of representations Z (N, d) with (s, c) labels (N, 2) in {+1, -1}, as ``measures.abstraction_score``,
    on cases that show one mistake each, then on random shuffled samples (``random_cases(20)``)."""
    name = "abstraction_score"
    rng = np.random.default_rng(2)
    labels = np.array(CLASSES * 3 + CLASSES[:2])  # unequal class sizes: 4, 4, 3, 3 samples
    u, v, w = np.eye(5)[:3]
    Z = _coded(labels, u, v, 0.5 * w) + 0.3 * rng.standard_normal((len(labels), 5))
    score = number(attempt(abstraction_score, name, Z, labels), name)
    abstract = number(attempt(abstraction_score, name, _coded(labels, u, v, 0 * w), labels), name)
    require(close(abstract, 1.0), "shape coded by the same vector in both contexts (Z = s u + c v) must "
            "score 1")
    partly = _coded(labels, 2 * u, v, w)
    mixed = number(attempt(abstraction_score, name, partly, labels), name)
    colour = close(mixed, float(measures.abstraction_score(partly, labels, "colour")))
    require(close(mixed, float(measures.abstraction_score(partly, labels))),
            f"on Z = 2 s u + c v + s c w your score {mixed:.3g} is wrong"
            + (f": {_COLOUR}" if colour else ""))
    flipped = number(attempt(abstraction_score, name, _coded(labels, 0 * u, v, u), labels), name)
    require(close(flipped, -1.0), "shape coded by opposite vectors in the two contexts (Z = c v + s c u) "
            "must score -1")
    scaled = number(attempt(abstraction_score, name, 3.0 * Z + 1.0, labels), name)
    require(close(scaled, score), "scaling Z by 3 and shifting it changed the score: it must not (it is a "
            "cosine of differences)")
    require(close(score, float(measures.abstraction_score(Z, labels))),
            f"on noisy data with 3 or 4 samples per class your score {score:.6g} is wrong")
    checks = 6
    for k, rng in random_cases(20):
        sizes, dim = rng.integers(1, 6, 4), int(rng.integers(1, 7))
        labels = np.repeat(np.array(CLASSES), sizes, axis=0)[rng.permutation(sizes.sum())]
        means = rng.standard_normal((4, dim)) * rng.uniform(0.2, 3.0)
        Z = means[[CLASSES.index(tuple(row)) for row in labels]] + rng.uniform(0.0, 1.0) * \
            rng.standard_normal((len(labels), dim))
        value = number(attempt(abstraction_score, name, Z, labels), name)
        require(close(value, float(measures.abstraction_score(Z, labels))),
                f"on random data {k} ({len(labels)} samples in shuffled order, {dim} dimensions) your score "
                f"{value:.6g} is wrong")
        checks += 1
    passed(name, checks)


@withholds(measures.kernel_abstraction, measures.abstraction_score)
def check_kernel_abstraction(kernel_abstraction: Callable) -> None:
    """Check ``kernel_abstraction(K)``: the shape score from a 4 x 4 class kernel K_ab = <z_a, z_b> alone
    (classes in ``CLASSES`` order), as ``measures.kernel_abstraction``, on cases that show one mistake
    each, then on kernels of random class means of every rank (``random_cases(40)``)."""
    name = "kernel_abstraction"
    rng = np.random.default_rng(4)
    M = rng.standard_normal((4, 6))
    K = M @ M.T
    score = number(attempt(kernel_abstraction, name, K), name)
    shifted = M + rng.standard_normal(6)
    moved = number(attempt(kernel_abstraction, name, shifted @ shifted.T), name)
    require(close(moved, score), "adding the same vector to every class mean changed the score: it must not "
            "(d1 and d2 are differences of class means)")
    require(close(number(attempt(kernel_abstraction, name, 4.0 * K), name), score),
            "multiplying K by 4 changed the score: it must not (it is a cosine)")
    nu = 0.5
    two_factor = number(attempt(kernel_abstraction, name, kernel_from_spectrum([1.0, 1.0, 1.0, nu])), name)
    require(close(two_factor, (1 - nu) / (1 + nu)), "a two-factor kernel with lambda_SC / lambda_S = nu = "
            "0.5 must score (1 - nu) / (1 + nu)")
    colour = close(score, float(measures.kernel_abstraction(K, "colour")))
    require(close(score, float(measures.kernel_abstraction(K))),
            f"for K = M M^T of 4 random class means your score {score:.6g} is wrong"
            + (f": {_COLOUR}" if colour else ""))
    checks = 4
    for k, rng in random_cases(40):
        rank = int(rng.integers(1, 5))
        M = rng.standard_normal((4, rank)) * rng.uniform(0.2, 3.0) + rng.normal(0.0, 2.0, rank)
        value = number(attempt(kernel_abstraction, name, M @ M.T), name)
        require(close(value, float(measures.kernel_abstraction(M @ M.T))),
                f"for random kernel {k} (class means in {rank} dimensions) your score {value:.6g} is wrong")
        checks += 1
    passed(name, checks)
