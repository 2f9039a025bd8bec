"""Tests of the abstraction study's data and measures: spectra, scores, dynamics, laws, kernel maps."""

import time
from functools import partial

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import erf

from interp_repro.abstraction.data import WALSH_BASIS, two_factor_data
from interp_repro.abstraction.measures import (
    abstraction_score,
    alpha_trajectory,
    attenuation_check,
    attenuation_excess,
    attenuation_violations,
    class_means,
    deep_terminal,
    depth_profile_deviation,
    erf_kernel,
    gelu,
    gelu_kernel,
    kernel_abstraction,
    kernel_from_spectrum,
    largest_gap,
    layer_profile,
    leaky_relu,
    leaky_relu_kernel,
    max_alpha,
    monte_carlo_kernel,
    noiseless_cells,
    nu_abstraction,
    perfectly_abstract,
    relu,
    relu_kernel,
    ridge_loss,
    same_direction,
    solve_modes,
    terminal_abstraction,
    up_fraction,
    whitened_abstraction,
)

# Rich/lazy setting: the target is more abstract than the input (alpha_y = 0.818 > alpha_x = 0.333).
NU_X, NU_Y = 0.5, 0.1
RICH_KAPPA, LAZY_KAPPA = 1e-3, 10.0


def walsh_spectrum(K) -> np.ndarray:
    """(lambda_G, lambda_S, lambda_C, lambda_SC) of class kernel(s) K (..., 4, 4): the Rayleigh quotients
    h^T K h of the Walsh vectors (Yang, Saxe, Latham 2026), the oracle for the kernels below."""
    return np.einsum("ki,...ij,kj->...k", WALSH_BASIS, K, WALSH_BASIS)


def class_kernel(Z, labels) -> np.ndarray:
    """Class-mean kernel K_ab = <mean_a, mean_b> of representations Z (..., N, d), shape (..., 4, 4)."""
    M = class_means(Z, labels)
    return M @ np.swapaxes(M, -1, -2)


def kernel_flow(Q, sigma_x, sigma_y, lam: float) -> np.ndarray:
    """dQ/dt = lambda (Sigma_x M Q + Q M Sigma_x), M = (Q + lambda)^-1 Sigma_y (Q + lambda)^-1 (derived):
    with :func:`mode_rate`, the derivation that :func:`solve_modes` solves."""
    inv = np.linalg.inv(Q + lam * np.eye(Q.shape[-1]))
    M = inv @ sigma_y @ inv
    return lam * (sigma_x @ M @ Q + Q @ M @ sigma_x)


def mode_rate(q, x, y, lam) -> np.ndarray:
    """dq/dt = 2 lambda x y q / (q + lambda)^2 for one 2FS mode (derived): the ODE of :func:`solve_modes`."""
    return 2 * lam * x * y * q / (q + lam) ** 2


def random_labels(rng, n):
    labels = rng.choice([-1, 1], size=(n, 2))
    labels[:4] = [[1, 1], [1, -1], [-1, 1], [-1, -1]]  # every class present
    return labels


# --- Walsh spectrum and abstraction scores ---------------------------------------------------------

def test_walsh_spectrum_recovers_lambdas():
    lam = np.random.default_rng(0).uniform(0, 3, size=(5, 7, 4))
    K = kernel_from_spectrum(lam)
    assert K.shape == (5, 7, 4, 4)
    np.testing.assert_allclose(walsh_spectrum(K), lam, atol=1e-12)
    np.testing.assert_allclose(np.linalg.eigvalsh(K[0, 0]), np.sort(lam[0, 0]), atol=1e-12)


def test_walsh_spectrum_entry_formulas():
    d, p, r, u = 2.0, 0.7, 0.4, -0.3  # same class / same shape / same colour / neither
    K = np.array([[d, p, r, u], [p, d, u, r], [r, u, d, p], [u, r, p, d]])
    expected = [d + p + r + u, d + p - r - u, d - p + r - u, d - p - r + u]
    np.testing.assert_allclose(walsh_spectrum(K), expected, atol=1e-12)
    np.testing.assert_allclose(WALSH_BASIS @ WALSH_BASIS.T, np.eye(4), atol=1e-15)


def test_kernel_abstraction_equals_score_on_samples():
    rng = np.random.default_rng(1)
    labels = random_labels(rng, 60)
    Z = rng.standard_normal((3, 60, 9)) + 0.8 * labels[:, :1]  # no 2FS: arbitrary representations
    for concept in ("shape", "colour"):
        direct = abstraction_score(Z, labels, concept)
        via_kernel = kernel_abstraction(class_kernel(Z, labels), concept)
        assert direct.shape == (3,)
        np.testing.assert_allclose(via_kernel, direct, atol=1e-12)
    with pytest.raises(ValueError, match="unknown concept"):
        abstraction_score(Z, labels, "size")
    with pytest.raises(ValueError, match="every class"):
        class_means(Z[0, 4:], np.ones((56, 2), dtype=int))


def test_kernel_abstraction_under_2fs():
    lam = np.random.default_rng(2).uniform(0.01, 2, size=(1000, 4))
    K = kernel_from_spectrum(lam)
    nu = lam[:, 3] / lam[:, 1]
    np.testing.assert_allclose(kernel_abstraction(K), (1 - nu) / (1 + nu), atol=1e-12)
    np.testing.assert_allclose(kernel_abstraction(K, "colour"),
                               (lam[:, 2] - lam[:, 3]) / (lam[:, 2] + lam[:, 3]), atol=1e-12)
    keep = nu <= 1
    np.testing.assert_allclose(kernel_abstraction(K[keep]), nu_abstraction(nu[keep]), atol=1e-12)


# --- data ---------------------------------------------------------------------------------------------

def test_data_exact_means_have_prescribed_spectra():
    data = two_factor_data(0.3, 0.05, n_per_class=7, d_in=10, d_out=6, seed=3, noise_x=0.4,
                           noise_y=0.1, lambda_s=2.0, lambda_g=0.5, lambda_c=1.5)
    assert data.X.shape == (28, 10) and data.Y.shape == (28, 6) and data.labels.shape == (28, 2)
    np.testing.assert_array_equal(data.labels[::7], [[1, 1], [1, -1], [-1, 1], [-1, -1]])
    np.testing.assert_array_equal(data.class_index, np.repeat(np.arange(4), 7))
    np.testing.assert_allclose(data.input_spectrum, [0.5, 2.0, 1.5, 0.6])
    for Z, spec in ((data.X, data.input_spectrum), (data.Y, data.target_spectrum)):
        K = class_kernel(Z, data.labels)
        np.testing.assert_allclose(walsh_spectrum(K), spec, atol=1e-12)
        np.testing.assert_allclose(K, kernel_from_spectrum(spec), atol=1e-12)  # 2FS exactly


def test_data_noisy_means_match_nu_within_sampling_error():
    nu_x, nu_y, n, d, sigma = 0.3, 0.6, 20_000, 8, 0.5
    data = two_factor_data(nu_x, nu_y, n, d, d, seed=4, noise_x=sigma, noise_y=sigma, exact_means=False)
    for Z, nu in ((data.X, nu_x), (data.Y, nu_y)):
        lam = walsh_spectrum(class_kernel(Z, data.labels))
        # A Walsh-projected class mean is off by eta ~ N(0, sigma^2/n I_d): lambda_k gains
        # 2 <v_k, eta> (sd 2 sqrt(lambda_k) sigma / sqrt(n)) and |eta|^2 (mean sigma^2 d / n).
        se = 2 * sigma / np.sqrt(n) * np.sqrt(nu + nu**2)  # sd of lambda_SC - nu lambda_S, lambda_S = 1
        assert abs(lam[3] / lam[1] - nu) < 5 * se + sigma**2 * d / n
        np.testing.assert_allclose(lam[[0, 1, 2]], [0.0, 1.0, 1.0], atol=5 * 2 * sigma / np.sqrt(n)
                                   + 2 * sigma**2 * d / n)


def test_data_is_seeded():
    args = dict(nu_x=0.2, nu_y=0.0, n_per_class=5, d_in=6, d_out=4, noise_x=0.3)
    a, b, c = (two_factor_data(**args, seed=s) for s in (11, 11, 12))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert not np.allclose(a.X, c.X) and not np.allclose(a.Y, c.Y)


def test_data_past_nu_1_only_when_asked_is_anti_abstract():
    # nu_x > 1: the interaction mode outweighs the shape mode, so the input's alpha is negative
    args = dict(nu_y=0.0, n_per_class=3, d_in=6, d_out=4, seed=2, noise_x=0.5)
    with pytest.raises(ValueError, match=r"nu_x must lie in \[0, 1\].*got 9.0"):
        two_factor_data(nu_x=9.0, **args)
    data = two_factor_data(nu_x=9.0, **args, nu_x_max=np.inf)
    np.testing.assert_allclose(data.input_spectrum, [0.0, 1.0, 1.0, 9.0])
    assert abstraction_score(data.X, data.labels) == pytest.approx(-0.8, abs=1e-12)  # (1 - 9) / (1 + 9)
    with pytest.raises(ValueError, match=r"nu_x must lie in \[0, 4\]"):
        two_factor_data(nu_x=9.0, **args, nu_x_max=4.0)
    with pytest.raises(ValueError, match="nu_x must be a finite number >= 0"):
        two_factor_data(nu_x=np.inf, **args, nu_x_max=np.inf)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(nu_x=1.2), "nu_x must lie in"),
    (dict(nu_y=-0.1), "nu_y must lie in"),
    (dict(nu_x=float("nan")), "nu_x must lie in"),
    (dict(n_per_class=0), "n_per_class"),
    (dict(d_in=3), "d_in must be >= 4"),
    (dict(d_out=2), "d_out must be >= 4"),
    (dict(noise_x=-0.1), "noise_x"),
    (dict(lambda_s=0.0), "lambda_s"),
    (dict(seed=-1), "seed"),
])
def test_data_rejects_bad_input(kwargs, match):
    args = dict(nu_x=0.5, nu_y=0.5, n_per_class=2, d_in=4, d_out=4, seed=0)
    with pytest.raises(ValueError, match=match):
        two_factor_data(**(args | kwargs))


# --- terminal law -------------------------------------------------------------------------------------

def test_terminal_abstraction_values_and_shape():
    assert terminal_abstraction(0.0, 0.7) == 1.0 and terminal_abstraction(0.4, 0.0) == 1.0
    assert terminal_abstraction(1.0, 1.0) == 0.0
    nu_x, nu_y = np.linspace(0.01, 1, 5)[:, None], np.linspace(0, 1, 3)[None, :]
    out = terminal_abstraction(nu_x, nu_y)
    assert out.shape == (5, 3)
    # arctanh(alpha_inf) = (arctanh alpha_x + arctanh alpha_y) / 2
    atanh_x, atanh_y = np.arctanh(nu_abstraction(nu_x)), np.arctanh(nu_abstraction(nu_y[:, 1:]))
    np.testing.assert_allclose(np.arctanh(out[:, 1:]), (atanh_x + atanh_y) / 2, atol=1e-12)
    for bad in (-0.1, 1.5, [0.2, 2.0], np.nan):
        with pytest.raises(ValueError, match="must lie in"):
            terminal_abstraction(bad, 0.5)


def test_terminal_grid_time():
    nu = np.linspace(0, 1, 100)
    start = time.perf_counter()
    grid = terminal_abstraction(nu[:, None], nu[None, :])
    elapsed = time.perf_counter() - start
    print(f"100 x 100 terminal-law grid: {elapsed * 1e3:.3f} ms")
    assert grid.shape == (100, 100) and np.isfinite(grid).all()


# --- linear dynamics ----------------------------------------------------------------------------------

MODES = [(1e-4, 1.0, 1.0, 1.0), (5.0, 0.3, 2.0, 0.5), (0.01, 0.2, 0.1, 0.1), (2.0, 1.5, 0.05, 3.0)]


def test_implicit_solution_satisfies_ode():
    q0, x, y, lam = (np.array(v)[:, None] for v in zip(*MODES, strict=True))
    t = np.geomspace(0.01, 1e3, 9)[None, :]
    h = 1e-5 * t
    q = solve_modes(q0, x, y, lam, t)
    dq = (solve_modes(q0, x, y, lam, t + h) - solve_modes(q0, x, y, lam, t - h)) / (2 * h)
    np.testing.assert_allclose(dq, mode_rate(q, x, y, lam), rtol=1e-6)
    assert (np.diff(solve_modes(1e-6, 1.0, 1.0, 1.0, np.geomspace(1e-3, 1e9, 3000))) > 0).all()
    np.testing.assert_array_equal(solve_modes([0.0, 0.3], 1.0, 1.0, 1.0, [5.0, 0.0]), [0.0, 0.3])


def test_implicit_solution_matches_solve_ivp():
    t_eval = np.linspace(0, 40, 9)
    for q0, x, y, lam in MODES:
        # integrate ln q, which keeps the relative accuracy while q grows exponentially
        sol = solve_ivp(lambda _, u, x=x, y=y, lam=lam: 2 * lam * x * y / (np.exp(u) + lam) ** 2,
                        (0, 40), [np.log(q0)], t_eval=t_eval, method="DOP853", rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(solve_modes(q0, x, y, lam, t_eval), np.exp(sol.y[0]), rtol=1e-6)


def test_solve_modes_rejects_bad_input():
    with pytest.raises(ValueError, match="lam"):
        solve_modes(1.0, 1.0, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="t must be"):
        solve_modes(1.0, 1.0, 1.0, 1.0, -1.0)


def test_kernel_flow_is_gradient_flow_on_w():
    """dQ/dt of the fact sheet = the kernel change under gradient flow of the ridge-optimal loss on W."""
    rng = np.random.default_rng(5)
    d_in, width, n, lam = 6, 5, 4, 0.7
    X, Y, W = rng.standard_normal((d_in, n)), rng.standard_normal((3, n)), rng.standard_normal((width, d_in))
    sigma_x, sigma_y = X.T @ X, Y.T @ Y

    def loss(w):
        Z = w @ X
        return ridge_loss(Z.T @ Z, sigma_y, lam)

    eps, grad = 1e-6, np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        step = np.zeros_like(W)
        step[idx] = eps
        grad[idx] = (loss(W + step) - loss(W - step)) / (2 * eps)
    dW = -grad
    dQ = X.T @ (dW.T @ W + W.T @ dW) @ X
    np.testing.assert_allclose(kernel_flow((W @ X).T @ (W @ X), sigma_x, sigma_y, lam), dQ,
                               rtol=1e-6, atol=1e-8)


def test_kernel_flow_decouples_into_modes_under_2fs():
    rng = np.random.default_rng(6)
    x, y, q = rng.uniform(0.1, 2, size=(3, 4))
    flow = kernel_flow(kernel_from_spectrum(q), kernel_from_spectrum(x), kernel_from_spectrum(y), 0.4)
    in_walsh = WALSH_BASIS @ flow @ WALSH_BASIS.T
    np.testing.assert_allclose(in_walsh, np.diag(mode_rate(q, x, y, 0.4)), atol=1e-12)


@pytest.mark.parametrize(("nu_x", "nu_y", "kappa"), [(0.5, 0.1, 1.0), (0.2, 0.8, 0.01), (0.9, 0.3, 5.0)])
def test_alpha_trajectory_tends_to_terminal_law(nu_x, nu_y, kappa):
    alpha_inf = terminal_abstraction(nu_x, nu_y)
    assert alpha_trajectory(nu_x, nu_y, kappa, 0.0) == pytest.approx(nu_abstraction(nu_x), abs=1e-14)
    late = alpha_trajectory(nu_x, nu_y, kappa, np.array([1e10, 1e12, 1e14]))
    assert abs(late[-1] - alpha_inf) < 1e-6
    # q grows like sqrt(t) with no finite fixed point, so alpha settles only like t^(-1/2)
    gaps = late - alpha_inf
    assert (gaps > 0).all()  # the approach is from above (the -2 lambda correction to q ~ sqrt(t))
    np.testing.assert_allclose(gaps[:-1] / gaps[1:], 10.0, rtol=0.02)


def test_alpha_trajectory_clean_target_is_perfect_in_the_end():
    assert alpha_trajectory(0.6, 0.0, 0.5, 1e8) > 1 - 1e-3
    assert alpha_trajectory(0.0, 0.6, 0.5, 3.0) == 1.0


def test_rich_and_lazy_max_alpha():
    alpha_inf = terminal_abstraction(NU_X, NU_Y)
    rich, middle, lazy = max_alpha(NU_X, NU_Y, [RICH_KAPPA, 1.0, LAZY_KAPPA])
    print(f"nu_x={NU_X}, nu_y={NU_Y}: alpha_inf={alpha_inf:.6f}, max alpha rich (kappa={RICH_KAPPA})="
          f"{rich:.6f}, kappa=1: {middle:.6f}, lazy (kappa={LAZY_KAPPA})={lazy:.6f}")
    assert rich >= 0.99
    assert lazy <= alpha_inf + 0.01
    assert rich > middle > lazy  # the overshoot shrinks as the initialisation grows
    assert middle > alpha_inf + 0.05  # non-monotone in between: overshoots then decays


# --- depth --------------------------------------------------------------------------------------------

def test_layer_profile_endpoints_and_linearity():
    ax, aL = np.array([0.2, -0.3]), np.array([0.9, 0.5])
    prof = layer_profile(ax, aL, 6)
    assert prof.shape == (2, 7)
    np.testing.assert_allclose(prof[:, 0], ax)
    np.testing.assert_allclose(prof[:, -1], aL)
    np.testing.assert_allclose(np.diff(np.arctanh(prof), n=2), 0.0, atol=1e-12)
    assert layer_profile(0.4, 1.0, 3)[-1] == 1.0
    with pytest.raises(ValueError, match="alpha_x"):
        layer_profile(1.1, 0.2, 3)
    with pytest.raises(ValueError, match="L must"):
        layer_profile(0.1, 0.2, 0)


def test_deep_terminal_grows_with_depth():
    nu_x, nu_y = 0.6, 0.1
    ax, ay = nu_abstraction(nu_x), nu_abstraction(nu_y)
    assert deep_terminal(ax, ay, 1) == pytest.approx(terminal_abstraction(nu_x, nu_y), abs=1e-12)
    depths = np.array([deep_terminal(ax, ay, L) for L in range(1, 30)])
    assert (np.diff(depths) > 0).all() and depths[-1] < ay
    assert deep_terminal(ax, ay, 10_000) == pytest.approx(ay, abs=1e-3)
    assert deep_terminal(ay, ax, 2) < deep_terminal(ay, ax, 1)  # target less abstract: depth hurts


# --- kernel maps --------------------------------------------------------------------------------------

def random_covariance(seed):
    """A 4 x 4 covariance with variances in [0.3, 1], so sample products have sd <= 1.3."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((4, 4))
    C = A @ A.T
    s = np.sqrt(np.diag(C))
    return C / np.outer(s, s) * np.sqrt(np.outer(*(2 * [rng.uniform(0.3, 1, 4)])))


KERNELS = {
    "erf": (erf_kernel, erf),
    "relu": (relu_kernel, relu),
    "leaky_relu_0.1": (partial(leaky_relu_kernel, slope=0.1), partial(leaky_relu, slope=0.1)),
    "gelu": (gelu_kernel, gelu),
}


@pytest.mark.parametrize("name", KERNELS)
def test_kernel_maps_match_monte_carlo(name):
    kernel_fn, phi = KERNELS[name]
    err = max(np.abs(kernel_fn(Q) - monte_carlo_kernel(phi, Q, 400_000, seed)).max()
              for seed, Q in ((s, random_covariance(s)) for s in (0, 1)))
    print(f"{name}: max |kernel - Monte Carlo| = {err:.4f} (400k samples)")
    assert err < 1e-2  # sd of an entry <= 1.3 / sqrt(4e5) = 0.002


def test_relu_and_leaky_limits():
    Q = kernel_from_spectrum(np.random.default_rng(7).uniform(0.01, 3, size=(50, 4)))
    np.testing.assert_allclose(leaky_relu_kernel(Q, 0.0), relu_kernel(Q), atol=1e-13)
    np.testing.assert_allclose(leaky_relu_kernel(Q, 1.0), Q, atol=1e-13)
    np.testing.assert_allclose(np.diagonal(relu_kernel(Q), axis1=-2, axis2=-1),
                               np.diagonal(Q, axis1=-2, axis2=-1) / 2, atol=1e-13)
    with pytest.raises(ValueError, match="non-negative diagonal"):
        relu_kernel(-np.eye(2))


def test_erf_kernel_is_linear_for_small_q():
    Q = 1e-4 * random_covariance(3)
    np.testing.assert_allclose(erf_kernel(Q), 4 / np.pi * Q, rtol=1e-3)


def test_gelu_quadrature_converges():
    Q = random_covariance(4) * 3
    np.testing.assert_allclose(gelu_kernel(Q, order=64), gelu_kernel(Q, order=128), atol=1e-4)


@pytest.mark.parametrize("name", ["erf", "relu", "leaky_relu_0.1"])
def test_attenuation_law(name):
    abs_k, abs_q = attenuation_check(KERNELS[name][0], n_kernels=10_000, seed=8)
    assert abs_k.shape == abs_q.shape == (10_000,) and np.isfinite(abs_k).all()
    violations = attenuation_violations(abs_k, abs_q)
    print(f"{name}: {violations} attenuation violations in 10,000 kernels, "
          f"max |alpha_K| - |alpha_Q| = {(abs_k - abs_q).max():.2e}")
    assert violations == 0


def test_attenuation_counts_and_excess_read_absolute_values():
    after, before = np.array([0.5, -0.9, 0.2]), np.array([-0.6, 0.3, 0.2])
    assert attenuation_violations(after, before) == 1  # |-0.9| > |0.3|; equal values are no violation
    assert attenuation_violations(after, before, tol=0.7) == 0
    assert attenuation_excess(after, before) == pytest.approx(0.6)


# --- comparisons and summaries ------------------------------------------------------------------------

def test_depth_profile_deviation_is_zero_on_the_depth_law_and_sees_a_bend():
    law = np.full((2, 4), np.nan)
    law[0, :2] = layer_profile(0.3, 0.7, 1)
    law[1, :4] = layer_profile(0.3, 0.7, 3)
    assert depth_profile_deviation(law) < 1e-12
    bent = law.copy()
    bent[1, 1] = np.tanh(np.arctanh(bent[1, 1]) + 0.1)
    assert depth_profile_deviation(bent) == pytest.approx(0.1)


def test_grid_masks_and_gaps():
    nus = np.array([0.0, 0.5, 1.0])
    np.testing.assert_array_equal(noiseless_cells(nus), [[1, 1, 1], [1, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(perfectly_abstract([0.94, 0.95, 1.0], 0.05), [False, True, True])
    assert largest_gap([0.1, 0.5], [0.2, 0.1]) == pytest.approx(0.4)
    assert largest_gap(0.3, np.array(0.1)) == pytest.approx(0.2)


def test_up_fraction_averages_over_concepts_first():
    intact = np.zeros((2, 2, 2))
    ablated = np.array([[[1.0, -0.5], [-1.0, 0.0]], [[0.2, 0.2], [0.0, -0.1]]])  # means .25, -.5, .2, -.05
    assert up_fraction(intact, ablated) == 0.5


def test_up_fraction_counts_ties_as_not_up():
    assert up_fraction(np.ones((1, 2, 2)), np.ones((1, 2, 2))) == 0.0


def test_whitened_abstraction_is_alpha_in_the_noise_metric():
    rng = np.random.default_rng(0)
    labels = np.repeat([[1, 1], [1, -1], [-1, 1], [-1, -1]], 200, axis=0)
    s, c = labels[:, :1].astype(float), labels[:, 1:].astype(float)
    # shape along e0 in one colour and along e0 + e1 in the other; noise large along e0, small along e1
    reps = np.hstack([s, s * (c < 0), c]) + rng.standard_normal((800, 3)) * [1.0, 0.1, 0.1]
    assert abstraction_score(reps, labels) > 0.6  # Euclidean: d1 = (2, 0, 0), d2 = (2, 2, 0)
    assert whitened_abstraction(reps, labels) < 0.3  # whitened, d2's quiet e1 part dominates
    mix = rng.standard_normal((3, 3))  # invariant to any invertible linear map of the representation
    for concept in ("shape", "colour"):
        assert whitened_abstraction(reps @ mix, labels, concept) == pytest.approx(
            whitened_abstraction(reps, labels, concept), abs=1e-3)  # up to the ridge
    # isotropic noise: whitening changes nothing
    iso = np.hstack([s, c, s * c]) + 0.5 * rng.standard_normal((800, 3))
    assert whitened_abstraction(iso, labels) == pytest.approx(float(abstraction_score(iso, labels)), abs=0.05)
    assert np.isfinite(whitened_abstraction(np.hstack([s, c, 0 * s]), labels))  # noise-free: ridge
    with pytest.raises(ValueError, match="reps must be"):
        whitened_abstraction(reps[:, 0], labels)
    with pytest.raises(ValueError, match="unknown concept"):
        whitened_abstraction(reps, labels, "size")


def test_same_direction_pairs_the_changes():
    intact = np.zeros((2, 2, 1))
    a = np.array([[[1.0], [-1.0]], [[1.0], [0.0]]])
    b = np.array([[[2.0], [1.0]], [[3.0], [0.0]]])
    assert same_direction(intact, a, intact, b) == 0.5  # agree, disagree, agree, no change
    with pytest.raises(ValueError, match="share one non-empty shape"):
        same_direction(intact, a, intact, b[:1])
