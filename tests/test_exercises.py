"""The exercise solutions (``interp_repro.exercises``), each checked against something it does not
compute itself, and their bad-input errors. The exercise pages run in the ci book build
(test_notebooks.py)."""

import numpy as np
import pytest
import torch
from chapters import exercise_pages
from scipy.integrate import solve_ivp

from interp_repro.abstraction.measures import kernel_abstraction, kernel_from_spectrum
from interp_repro.core import torch_generator
from interp_repro.exercises import abstraction as ab
from interp_repro.exercises import modular_addition as ma
from interp_repro.exercises import schur_rnn as sr
from interp_repro.exercises import superposition as sp
from interp_repro.modular_addition.measures import simple_neuron_fit
from interp_repro.schur_rnn.measures import ordered_real_schur
from interp_repro.superposition.measures import analytic_losses_2_1
from interp_repro.superposition.model import ToyModel
from interp_repro.superposition.train import evaluate

# --- superposition ---------------------------------------------------------------------------------


@pytest.mark.parametrize("r", [0.1, 0.4, 1.0, 1.7, 8.0])
def test_boundary_separates_superposition_from_the_single_feature_solutions(r):
    s_star = float(sp.superposition_boundary(r))
    below, above = analytic_losses_2_1(s_star * 0.999, r), analytic_losses_2_1(min(1.0, s_star * 1.001), r)
    assert below[1] < min(below[0], below[2])
    assert above[1] > min(above[0], above[2])


def test_boundary_special_values_and_symmetry():
    assert sp.superposition_boundary(1.0) == pytest.approx(4 / 7, abs=1e-15)
    r = np.geomspace(0.05, 20, 9)
    np.testing.assert_allclose(sp.superposition_boundary(r), sp.superposition_boundary(1 / r), rtol=1e-12)
    table = sp.boundary_table(r)
    np.testing.assert_allclose(table["closed form s*(r)"], table["library grid search"], atol=1e-5)


def test_candidate_losses_agree_with_the_closed_forms():
    table = sp.candidate_losses([0.3, 1.0], relative_importance=2.0, batches=8, batch=4096, seed=3)
    assert len(table) == 6 and (table["standard error"] > 0).all()
    error = (table["Monte Carlo"] - table["closed form"]).abs()
    assert (error <= 4 * table["standard error"] + 1e-4).all(), table


def test_polytopes_are_unit_tight_frames_with_dimensionality_m_over_n():
    for name, W in sp.polytopes().items():
        m, n = W.shape
        np.testing.assert_allclose(np.linalg.norm(W, axis=0), 1.0, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(W @ W.T, n / m * np.eye(m), atol=1e-12, err_msg=name)
    table = sp.polytope_dimensionalities().set_index("arrangement")
    expected = table["m"] / table["n"]
    for column in ("D_i (min)", "D_i (max)", "D*"):
        np.testing.assert_allclose(table[column], expected, atol=1e-12)
    np.testing.assert_allclose(table["sum D_i"], table["m"], atol=1e-12)
    assert set(expected.round(4)) == {1.0, 0.75, 0.6667, 0.5, 0.4, 0.375}


def test_linear_optimum_is_reached_by_the_projection_onto_the_top_features():
    importance, s = np.array([0.25, 1.0, 0.5]), 0.6
    optimum = float(sp.linear_optimum(3, 1, importance, s))
    assert optimum == pytest.approx((0.5 + 0.25) * (s / 3 - s**2 / 4))
    model = ToyModel(1, 3, 1, "linear", torch_generator(0))
    with torch.no_grad():  # keep feature 1 (the most important), predict the mean for the others
        model.W.copy_(torch.tensor([[[0.0, 1.0, 0.0]]]))
        model.b.copy_(torch.tensor([[[s / 2, 0.0, s / 2]]]))
    weights = torch.tensor(importance, dtype=torch.float32)
    loss = evaluate(model, weights, torch.tensor([s]), seed=5, batches=16)
    assert loss[0] == pytest.approx(optimum, rel=0.03)


def test_trained_linear_models_never_beat_the_optimum():
    table = sp.linear_vs_optimum(8, 3, 0.8, sparsities=(0.0, 0.8), steps=600, seed=1)
    assert (table["trained / optimum"] > 0.95).all(), table
    assert table["trained / optimum"].iloc[0] < 1.5, table  # dense features: close after a short run


def test_superposition_bad_input():
    for bad in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="relative importance"):
            sp.superposition_boundary(bad)
    with pytest.raises(ValueError, match="densities"):
        sp.candidate_losses([0.0])
    with pytest.raises(ValueError, match="batches"):
        sp.candidate_losses([0.5], batches=0)
    with pytest.raises(ValueError, match="importance must hold 3"):
        sp.linear_optimum(3, 1, [1.0, 0.5], 0.5)
    with pytest.raises(ValueError, match="importance_decay"):
        sp.linear_vs_optimum(importance_decay=1.5)


# --- modular addition ------------------------------------------------------------------------------


def test_simple_neuron_clusters_follow_their_model():
    aligned = ma.simple_neuron_cluster(13, 2, 6, True, seed=1)
    np.testing.assert_allclose(aligned, aligned.transpose(1, 0, 2), atol=1e-12)  # g(a) + g(b)
    fit = simple_neuron_fit(ma.simple_neuron_cluster(13, 2, 6, False, seed=1), np.full(6, 2))
    np.testing.assert_allclose(fit["r2"], 1.0, atol=1e-12)
    assert np.abs(fit["phi_L"] - fit["phi_R"]).max() > 0.1


def test_cluster_shape_is_the_theorem_disc_or_torus():
    table = ma.cluster_shape(31, 3, 8, noise=0.02, seed=0).set_index("phases")
    assert table.loc["aligned", "rank"] == 2 and table.loc["independent", "rank"] == 4
    assert table.loc["aligned", "top-2 PCA share"] > 0.999
    assert table.loc["aligned", "Betti"] == (1, 0, 0)
    assert table.loc["independent", "Betti"] == (1, 2, 1)
    assert table.loc["aligned", "CKA disc"] > table.loc["aligned", "CKA circle"]


def _zhong_q(table: np.ndarray) -> float:
    """Zhong et al.'s distance irrelevance by brute force: group pairs by (a - b) mod p."""
    p = table.shape[0]
    groups = [[table[a, b] for a in range(p) for b in range(p) if (a - b) % p == d] for d in range(p)]
    return float(np.mean([np.std(g) for g in groups]) / table.std())


def test_distance_irrelevance_of_mixtures():
    table = ma.irrelevance_sweep(p=17, f=3, clock_weights=(0.0, 0.3, 1.0), seed=2)
    np.testing.assert_allclose(table["q measured"], table["q predicted"], atol=1e-12)
    np.testing.assert_allclose(table["q measured"].iloc[[0, 2]], [0.0, 1.0], atol=1e-12)
    assert table["q measured"].iloc[1] == pytest.approx(_zhong_q(ma.mixed_logit_table(17, 3, 0.3, seed=2)))


def test_architecture_forces_aligned_phases_in_mlp_add():
    neurons = ma.architecture_phases(11, steps=30, d_model=16, d_mlp=32, seed=0)
    add, concat = (neurons[neurons["architecture"] == a] for a in ("mlp_add", "mlp_concat"))
    assert np.abs(add["phi_L - phi_R"]).max() < 1e-3
    assert (add["torus distance"] == 0).mean() > 0.95
    assert (np.abs(concat["phi_L - phi_R"]) > 0.1).mean() > 0.5


def test_modular_addition_bad_input():
    with pytest.raises(ValueError, match="frequency"):
        ma.simple_neuron_cluster(13, 7, 4, True)
    with pytest.raises(ValueError, match="noise"):
        ma.simple_neuron_cluster(13, 2, 4, True, noise=-1.0)
    with pytest.raises(ValueError, match="clock_weight"):
        ma.mixed_logit_table(13, 2, 1.5)
    with pytest.raises(ValueError, match="odd modulus"):
        ma.irrelevance_prediction(12, 2, 0.5)
    with pytest.raises(ValueError, match="kinds"):
        ma.architecture_phases(11, steps=1, kinds=("cnn",))


# --- abstraction -----------------------------------------------------------------------------------


def test_noisy_prediction_is_the_score_of_the_expected_kernel():
    for nu in (0.0, 0.3, 1.0):
        assert ab.noisy_alpha_prediction(nu, 0.0, 4, 16) == pytest.approx((1 - nu) / (1 + nu))
    nu, noise, n, dim, lam = 0.3, 0.7, 5, 16, 2.0
    expected = kernel_from_spectrum([0.0, lam, 1.0, nu * lam]) + noise**2 * dim / n * np.eye(4)
    predicted = ab.noisy_alpha_prediction(nu, noise, n, dim, lam)
    assert predicted == pytest.approx(float(kernel_abstraction(expected)))


def test_noisy_abstraction_matches_its_prediction():
    table = ab.noisy_abstraction(0.2, 0.5, n_per_class=(4, 64), dim=32, seeds=30, seed=0)
    error = (table["alpha measured (mean)"] - table["alpha predicted"]).abs()
    assert (error < 0.05).all(), table
    assert table["alpha measured (mean)"].iloc[1] > table["alpha measured (mean)"].iloc[0]


def _alpha_by_ode(nu_x, nu_y, kappa, t_end, lam=1.0):
    """alpha(t_end) by integrating dq/dt = 2 lam x y q / (q + lam)^2 for the S and SC modes."""
    q = []
    for x, y in ((1.0, 1.0), (nu_x, nu_y)):
        sol = solve_ivp(lambda _, v, x=x, y=y: 2 * lam * x * y * v / (v + lam) ** 2, (0.0, t_end),
                        [kappa**2 * x], rtol=1e-10, atol=1e-12)
        q.append(sol.y[0, -1])
    return (q[0] - q[1]) / (q[0] + q[1])


def test_terminal_approach_follows_the_ode_and_its_asymptote():
    table = ab.terminal_approach(0.5, 0.1, 1.0, times=(10.0, 300.0, 1e8, 1e10))
    for t, alpha in zip(table["t"][:2], table["alpha(t)"][:2], strict=True):
        assert alpha == pytest.approx(_alpha_by_ode(0.5, 0.1, 1.0, t), abs=1e-6)
    assert (table["gap"] > 0).all()
    np.testing.assert_allclose(table["gap / predicted"].iloc[2:], 1.0, atol=0.01)
    np.testing.assert_allclose(table["alpha_inf"], (1 - np.sqrt(0.05)) / (1 + np.sqrt(0.05)))


def test_attenuation_table_identity_is_neutral_and_the_law_holds():
    table = ab.attenuation_table((0.0, 0.5, 1.0), n_kernels=500, seed=1, gelu=False).set_index("activation")
    identity = table.loc["leaky ReLU, slope 1"]
    assert identity["violations"] == 0
    assert identity["median ratio"] == pytest.approx(1.0) and identity["smallest ratio"] == pytest.approx(1.0)
    for name in ("leaky ReLU, slope 0", "leaky ReLU, slope 0.5", "erf"):
        assert table.loc[name, "violations"] == 0, name
    assert table.loc["leaky ReLU, slope 0", "smallest ratio"] < 1


def test_abstraction_bad_input():
    with pytest.raises(ValueError, match="nu"):
        ab.noisy_alpha_prediction(1.5, 0.1, 4, 8)
    with pytest.raises(ValueError, match="noise"):
        ab.noisy_alpha_prediction(0.5, -0.1, 4, 8)
    with pytest.raises(ValueError, match="seeds"):
        ab.noisy_abstraction(seeds=0)
    with pytest.raises(ValueError, match="kappa"):
        ab.terminal_approach(kappa=0.0)
    with pytest.raises(ValueError, match="t must"):
        ab.terminal_gap_prediction(0.5, 0.1, [0.0])
    with pytest.raises(ValueError, match="n_kernels"):
        ab.attenuation_table(n_kernels=0)


# --- Schur RNN -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_henrici_departure_splits_into_coupling_and_blocks(seed):
    W = np.random.default_rng(seed).standard_normal((7, 7))
    d = sr.departure_from_normality(W)
    assert d["henrici"] == pytest.approx(d["coupling"] + d["blocks"], abs=1e-10)
    _, T = ordered_real_schur(W)
    assert d["coupling"] <= d["henrici"] + 1e-12 and np.sum(T**2) == pytest.approx(np.sum(W**2))


def test_departure_of_known_matrices():
    upper = np.triu(np.arange(1.0, 17.0).reshape(4, 4))
    d = sr.departure_from_normality(upper)
    strict = np.sum(np.triu(upper, 1) ** 2) / np.sum(upper**2)
    assert d["henrici"] == pytest.approx(strict) and d["coupling"] == pytest.approx(strict)
    assert d["blocks"] == 0.0
    sym = np.random.default_rng(0).standard_normal((5, 5))
    assert all(v == pytest.approx(0.0, abs=1e-12) for v in sr.departure_from_normality(sym + sym.T).values())


def test_only_the_default_construction_starts_non_normal():
    table = sr.construction_normality(16, seed=0).set_index("construction")
    for construction in ("orthogonal", "normal", "cayley"):
        assert table.loc[construction, "commutator"] < 1e-10, construction
        assert table.loc[construction, "henrici"] < 1e-8, construction
    assert table.loc["default", "commutator"] > 0.05 and table.loc["default", "henrici"] > 0.05


def test_pulse_response_matches_the_closed_form():
    slow, fast, c = 0.95, 0.4, 0.6
    table = sr.pulse_response(sr.two_mode_matrix(slow, fast, c), [0.0, 1.0], steps=40)
    t = np.arange(41)
    carried = c * (slow**t - fast**t) / (slow - fast)
    np.testing.assert_allclose(table["full"], np.hypot(carried, fast**t), rtol=1e-9)
    np.testing.assert_allclose(table["-T_C→R"], fast**t, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(table["all three"], fast**t, rtol=1e-9, atol=1e-300)


def test_small_copy_profile_reconstructs_the_trained_networks():
    table = sr.small_copy_profile(2, 2, 8, steps=60, seeds=2, train_replay=4, replay=8, batch=16, seed=0)
    assert list(table["ablation"]) == ["full", "-T_CC", "-T_RR", "-T_RR -T_CC", "-T_C→R", "-T_C→R -T_CC",
                                       "-T_RR -T_C→R", "all three"]
    trained = np.mean(table.attrs["trained accuracy"])
    assert table["accuracy (mean)"].iloc[0] == pytest.approx(trained, abs=2e-3)
    assert table["Schur mass removed"].iloc[0] == pytest.approx(0.0, abs=1e-12)
    assert (table["Schur mass removed"].iloc[-1] >= table["Schur mass removed"] - 1e-12).all()
    assert (table["accuracy (min)"] <= table["accuracy (mean)"] + 1e-12).all()


def test_schur_bad_input():
    with pytest.raises(ValueError, match="square"):
        sr.departure_from_normality(np.ones((2, 3)))
    with pytest.raises(ValueError, match="zero"):
        sr.departure_from_normality(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="slow"):
        sr.two_mode_matrix(0.3, 0.9, 0.1)
    with pytest.raises(ValueError, match="x must"):
        sr.pulse_response(np.eye(2), [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="subset"):
        sr.pulse_response(np.diag([0.9, 0.1]), [1.0, 1.0], subsets=(("XX",),))
    with pytest.raises(ValueError, match="n_hidden"):
        sr.construction_normality(0)


# --- the exercise pages ----------------------------------------------------------------------------


def test_every_study_has_an_exercise_page():
    assert sorted(exercise_pages().values()) == sorted(["superposition", "modular_addition", "abstraction",
                                                        "schur_rnn"])
