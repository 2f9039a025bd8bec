"""Unit tests for the superposition library: data, gradients, measures, phases, configs."""

import numpy as np
import pytest
import torch

from interp_repro.core import torch_generator
from interp_repro.superposition.data import sparse_features
from interp_repro.superposition.experiments import (
    DemoConfig,
    GeometryConfig,
    IntroConfig,
    PentagonConfig,
    PhaseConfig,
    dimensionality_counts,
    geometry_claims,
    geometry_jobs,
    run_geometry,
    top_share_table,
)
from interp_repro.superposition.measures import (
    abs_circuit_share,
    analytic_agreement,
    analytic_losses_2_1,
    analytic_phase,
    analytic_phase_2_1,
    analytic_phase_3_2,
    antipodal_share,
    chance_fraction_share,
    clustering_over_chance,
    dimensions_per_feature,
    empirical_phase,
    feature_dimensionality,
    feature_variance,
    intermediate_norm_share,
    jump_flags,
    keeps_top,
    live_top_share,
    mean_pair_cosine,
    median_dims_per_hidden,
    nearest_fraction_share,
    neighbour_gap_degrees,
    packed_dims,
    pentagon_error_degrees,
    plateau_ratio,
    plateau_span,
    settled_levels,
    superposition,
    superposition_above_bound,
    superposition_density_bound,
    superposition_share_above_bound,
)
from interp_repro.superposition.model import ToyModel, init_std
from interp_repro.superposition.train import (
    BLOCK_FLOATS,
    instance_blocks,
    instance_loss,
    loss_gradients,
    train_best,
)


def polygon(k: int) -> np.ndarray:
    """k unit vectors in 2-D at equal angles, as a (2, k) W."""
    angles = 2 * np.pi * np.arange(k) / k
    return np.stack([np.cos(angles), np.sin(angles)])


# --- data -----------------------------------------------------------------------------------------

def test_sparse_features_density_and_values():
    density = torch.tensor([1.0, 0.3, 0.02])
    x = sparse_features(density, 20_000, 50, torch_generator(0))
    present = (x > 0).float().mean(dim=(1, 2))
    assert torch.allclose(present, density, atol=0.005)
    values = x[1][x[1] > 0]
    assert values.max() <= 1.0
    assert abs(values.mean().item() - 0.5) < 0.01  # uniform on (0, 1]
    assert abs(values.var().item() - 1 / 12) < 0.005


def test_sparse_features_signed_and_pairs():
    gen = torch_generator(1)
    x = sparse_features(torch.tensor([0.5]), 20_000, 4, gen, signed=True)
    nz = x[x != 0]
    assert nz.min() >= -1 and nz.max() <= 1 and abs(nz.mean().item()) < 0.02
    corr = sparse_features(torch.tensor([0.2]), 20_000, 4, gen, correlation="correlated")[0]
    assert torch.equal(corr[:, 0] > 0, corr[:, 1] > 0)
    anti = sparse_features(torch.tensor([0.2]), 20_000, 4, gen, correlation="anticorrelated")[0]
    assert not ((anti[:, 0] > 0) & (anti[:, 1] > 0)).any()
    assert abs((anti[:, 0] > 0).float().mean().item() - 0.2) < 0.01


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(correlation="weird"), "unknown correlation"),
    (dict(correlation="correlated", n_features=3), "odd"),
    (dict(correlation="anticorrelated", density=torch.tensor([0.8])), "density <= 0.5"),
])
def test_sparse_features_bad_input(kwargs, match):
    args = dict(density=torch.tensor([0.1]), batch=4, n_features=4, generator=torch_generator(0))
    with pytest.raises(ValueError, match=match):
        sparse_features(**(args | kwargs))


def test_same_seed_same_batch():
    a = sparse_features(torch.tensor([0.1, 0.5]), 64, 10, torch_generator(7))
    b = sparse_features(torch.tensor([0.1, 0.5]), 64, 10, torch_generator(7))
    assert torch.equal(a, b)


# --- model and gradients --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["linear", "relu", "hidden_relu", "abs"])
def test_hand_written_gradients_match_autograd(kind):
    gen = torch_generator(3)
    model = ToyModel(3, 7, 4, kind, gen)
    with torch.no_grad():
        model.b.normal_(generator=gen)  # make some outputs negative so ReLU masks matter
    x = sparse_features(torch.tensor([1.0, 0.5, 0.2]), 32, 7, gen, signed=kind == "abs")
    importance = torch.rand(3, 1, 7, generator=gen)
    instance_loss(model, x, importance).sum().backward()
    expected = {name: p.grad.clone() for name, p in model.named_parameters()}
    loss_gradients(model, x, importance)
    for name, p in model.named_parameters():
        torch.testing.assert_close(p.grad, expected[name], rtol=1e-4, atol=1e-6, msg=name)


@pytest.mark.parametrize("kind", ["linear", "relu", "hidden_relu", "abs"])
def test_gradients_block_by_block_equal_the_whole_models_bit_for_bit(kind):
    gen = torch_generator(5)
    model = ToyModel(5, 7, 3, kind, gen)
    x = sparse_features(torch.linspace(0.2, 1.0, 5), 16, 7, gen, signed=kind == "abs")
    importance = torch.rand(5, 1, 7, generator=gen)
    loss_gradients(model, x, importance)
    whole = [p.grad.clone() for p in model.parameters()]
    for p in model.parameters():
        p.grad.fill_(float("nan"))  # every instance's gradient must be written again
    work = (torch.empty_like(x), torch.empty_like(x))
    for block in instance_blocks(5, BLOCK_FLOATS // 2):  # blocks of 2, 2 and 1
        loss_gradients(model, x[block], importance[block], work, block)
    assert all(torch.equal(p.grad, g) for p, g in zip(model.parameters(), whole, strict=True))


def test_instance_blocks_cover_every_instance_once_in_order():
    assert instance_blocks(5, BLOCK_FLOATS // 2) == [slice(0, 2), slice(2, 4), slice(4, 5)]
    assert instance_blocks(3, 10 * BLOCK_FLOATS) == [slice(0, 1), slice(1, 2), slice(2, 3)]  # one at least
    assert instance_blocks(4, 1) == [slice(0, 4)]


def test_notebook_init_matches_xavier_on_the_whole_stack_of_models():
    k, n, m = 30, 200, 20
    stack = torch.empty(k, n, m)  # the original notebook's (instances, features, hidden) tensor
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(stack)
    assert init_std("notebook", k, n, m) == pytest.approx((2 / (fan_in + fan_out)) ** 0.5)
    assert init_std("xavier", k, n, m) == pytest.approx((2 / (n + m)) ** 0.5)
    W = ToyModel(k, n, m, "relu", torch_generator(0), init="notebook").W
    assert W.std().item() == pytest.approx(init_std("notebook", k, n, m), rel=0.01)
    with pytest.raises(ValueError, match="unknown init 'he'"):
        init_std("he", k, n, m)


def test_unknown_kind():
    with pytest.raises(ValueError, match="unknown model kind 'tanh'"):
        ToyModel(1, 2, 1, "tanh", torch_generator(0))


def test_training_is_deterministic_and_learns():
    kwargs = dict(seeds=2, steps=300, batch=256, seed=5, desc="test")
    a = train_best("relu", 5, 2, 0.9 ** np.arange(5), np.array([1.0]), **kwargs)
    b = train_best("relu", 5, 2, 0.9 ** np.arange(5), np.array([1.0]), **kwargs)
    np.testing.assert_array_equal(a["W"], b["W"])
    untrained = (0.9 ** np.arange(5)).sum() / 3  # E[x^2] = 1/3 per feature with x' = 0
    assert a["loss"][0] < 0.6 * untrained


@pytest.mark.parametrize(("density", "match"), [(0.0, "density"), (1.5, "density"),
                                                (-0.2, "density")])
def test_train_best_rejects_bad_density(density, match):
    with pytest.raises(ValueError, match=match):
        train_best("relu", 5, 2, np.ones(5), np.array([density]), seeds=1, steps=1, batch=4,
                   seed=0, desc="x")


def test_train_best_rejects_negative_sizes():
    with pytest.raises(ValueError, match="n_features must be a positive integer, got -5"):
        train_best("relu", -5, 2, np.ones(5), np.array([0.5]), seeds=1, steps=1, batch=4, seed=0,
                   desc="x")


# --- measures --------------------------------------------------------------------------------------

def test_feature_dimensionality_of_known_shapes():
    np.testing.assert_allclose(feature_dimensionality(np.eye(3)), [1, 1, 1])
    np.testing.assert_allclose(feature_dimensionality(polygon(2)), [0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(feature_dimensionality(polygon(3)), [2 / 3] * 3)
    np.testing.assert_allclose(feature_dimensionality(polygon(5)), [0.4] * 5)
    tetra = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]).T / np.sqrt(3)
    np.testing.assert_allclose(feature_dimensionality(tetra), [0.75] * 4)


def test_feature_dimensionality_zero_feature_and_scale():
    W = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])  # feature 2 unlearned
    d = feature_dimensionality(W)
    assert d[2] == 0 and not np.isnan(d).any()
    np.testing.assert_allclose(d[:2], [1, 1])
    batched = feature_dimensionality(np.stack([W, 3 * W]))  # scale-free, batched
    np.testing.assert_allclose(batched[0], batched[1])
    with pytest.raises(ValueError, match="shape"):
        feature_dimensionality(np.ones(3))


def test_dimensions_per_feature_and_superposition():
    assert dimensions_per_feature(np.eye(4)) == pytest.approx(1.0)
    assert dimensions_per_feature(polygon(2)) == pytest.approx(1.0)  # m=2, two unit features
    assert dimensions_per_feature(polygon(4)) == pytest.approx(0.5)
    np.testing.assert_allclose(superposition(np.eye(3)), 0, atol=1e-12)
    np.testing.assert_allclose(superposition(polygon(2)[:1] * 0 + [[1.0, -1.0]]), [1.0, 1.0])


def test_chance_fraction_share_is_what_a_uniform_spread_scores():
    uniform = np.random.default_rng(0).uniform(0.1, 1.0, 400_000)
    assert nearest_fraction_share(uniform) == pytest.approx(chance_fraction_share(), abs=0.003)
    assert chance_fraction_share(0.025, 0.0) == pytest.approx(0.25)  # 2/5 and 3/8 windows overlap
    assert chance_fraction_share(0.5) == 1.0


def test_fraction_share_and_plateau():
    assert nearest_fraction_share([1.0, 0.5, 0.4, 0.0]) == 1.0
    assert nearest_fraction_share([0.58, 0.87, 0.5]) == pytest.approx(1 / 3)
    x = np.array([1, 2, 4, 8, 16, 32])
    y = np.array([1.0, 0.5, 0.52, 0.3, 0.49, 0.5])
    # runs at x = 2..4 and 16..32; edges interpolated in log x to where |y - 0.5| crosses 0.05
    lo, hi = plateau_span(x, y, 0.5, 0.05)
    assert lo == pytest.approx(2**0.9) and hi == pytest.approx(4 * 2 ** (1 / 6))  # the wider run
    assert plateau_span(x[3:], y[3:], 0.5, 0.05)[1] == 32  # a run at the sweep's end ends there
    assert np.isnan(plateau_span(x, y, 0.9, 0.01)[0])


def test_plateau_ratio_reads_the_widest_run_over_inverse_density():
    density = 1 / np.array([1, 2, 4, 8, 16, 32])
    dstar = np.array([1.0, 0.5, 0.52, 0.3, 0.49, 0.5])
    assert plateau_ratio(density, dstar, 0.5) == pytest.approx(4 * 2 ** (1 / 6) / 2**0.9)
    assert plateau_ratio(density, dstar, 0.9, tol=0.01) == 0.0  # never near the level


def test_packed_dims_and_clustering_over_chance():
    density = np.array([1.0, 0.5, 0.1])
    dstar = np.array([1.0, 0.3, 0.5])  # only the last model is sparse enough and has D* >= 3/8
    dims = np.array([[1.0, 1.0], [0.3, 0.3], [0.5, 0.4]])
    np.testing.assert_array_equal(packed_dims(density, dstar, dims), [0.5, 0.4])
    assert clustering_over_chance(np.array([0.5, 0.4])) == pytest.approx(1 / chance_fraction_share())
    with pytest.raises(ValueError):
        clustering_over_chance(np.array([]))
    with pytest.raises(ValueError, match="no learned feature"):
        clustering_over_chance(np.array([0.0, 0.05]))
    assert median_dims_per_hidden(density, dims, 2) == pytest.approx((0.6 + 0.9) / 2 / 2)


def test_keeps_top_and_pair_cosines():
    W = np.diag([1.0, 1.0, 0.0])  # features 0 and 1 represented, 2 not
    assert keeps_top(W, 2) and not keeps_top(W, 1) and not keeps_top(W[:, ::-1], 2)
    np.testing.assert_array_equal(keeps_top(np.stack([W, W[:, ::-1]]), 2), [True, False])
    assert mean_pair_cosine(np.hstack([polygon(2), np.eye(2)])) == pytest.approx(-0.5)  # -1 and 0


def test_pentagon_error():
    assert pentagon_error_degrees(polygon(5)) == pytest.approx(0, abs=1e-9)
    assert pentagon_error_degrees(polygon(5)[:, [0, 1, 2, 3, 3]]) == pytest.approx(72)


def test_neighbour_gap_of_a_regular_and_a_perturbed_pentagon():
    assert neighbour_gap_degrees(polygon(5), 0) == pytest.approx(72)
    W = polygon(5)
    W[:, 1], W[:, 4] = polygon(10)[:, 3], polygon(10)[:, 7]  # neighbours of 0 at 108 and 252 degrees
    assert neighbour_gap_degrees(W, 0) == pytest.approx(108)
    W[:, 1] *= 0.1  # an unrepresented feature is no neighbour: the next one, at 144, is
    assert neighbour_gap_degrees(W, 0) == pytest.approx((144 + 108) / 2)
    assert np.isnan(neighbour_gap_degrees(np.diag([1.0, 0.0]), 0))
    with pytest.raises(ValueError, match="2 hidden dimensions"):
        neighbour_gap_degrees(np.eye(3), 0)


def test_antipodal_share():
    assert antipodal_share(polygon(4)) == 1.0  # two antipodal pairs
    assert antipodal_share(polygon(3)) == 0.0  # a triangle shares the plane, no antipodes
    pair_and_one_alone = np.array([[1.0, -1.0, 0.0], [0.0, 0.0, 1.0]])
    assert antipodal_share(pair_and_one_alone) == 1.0  # the lone feature shares nothing: not counted
    quarter_turn = np.array([[0.0, -1.0], [1.0, 0.0]])
    pair_and_triangle = np.concatenate([polygon(2), quarter_turn @ polygon(3)], axis=1)
    assert antipodal_share(pair_and_triangle) == pytest.approx(2 / 5)  # only the pair's members
    assert np.isnan(antipodal_share(np.eye(3)))


def test_abs_circuit_share():
    circuit = np.kron(np.eye(3), [[1.0], [-1.0]])  # (6, 3): a +/- pair of neurons per feature
    assert abs_circuit_share(circuit) == 1.0
    circuit[1, 0] = 1.0  # the second neuron of feature 0 now has the same sign
    assert abs_circuit_share(circuit) == pytest.approx(2 / 3)
    circuit[3, 0] = 0.5  # a neuron of feature 1 also reads feature 0: neither is computed cleanly
    assert abs_circuit_share(circuit) == pytest.approx(1 / 3)


def test_live_top_share():
    assert live_top_share(np.eye(4)) == 1.0  # monosemantic
    assert live_top_share(np.array([[1.0, 1.0], [0.0, 0.0]])) == 0.5  # dead row ignored
    assert np.isnan(live_top_share(np.zeros((2, 3))))


def test_top_share_table_has_a_row_per_density_and_a_column_per_neuron():
    dense, sparse = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 1.0]])
    table = top_share_table({"W": np.stack([dense, sparse]), "density": np.array([1.0, 0.1])})
    assert table.index.tolist() == [1.0, 0.1] and table.columns.tolist() == [0, 1]
    assert table.loc[1.0, 0] == 1.0 and np.isnan(table.loc[1.0, 1])  # monosemantic, then dead
    assert table.loc[0.1].tolist() == pytest.approx([0.5, 0.8])


def test_dimensionality_counts_read_the_model_nearest_the_inverse_density():
    W = np.zeros((3, 2, 5))
    W[1] = polygon(5)  # 1/(1-S) = 2.5: a pentagon, D_i = 2/5 each
    W[2] = np.hstack([polygon(2), np.zeros((2, 3))])  # 1/(1-S) = 10: an antipodal pair, 3 unlearned
    res = {"W": np.stack([W, np.zeros_like(W)]), "density": np.array([1.0, 0.4, 0.1])}  # two sweeps
    assert dimensionality_counts(res, 3) == (2.5, {0.4: 5})  # read from the first sweep
    assert dimensionality_counts(res, 8) == (10.0, {0.0: 3, 0.5: 2})


def test_each_geometry_sweep_is_a_job_at_the_notebooks_initialisation_scale(tmp_path, monkeypatch):
    """The original notebook trains its 20 instances as one tensor, whose xavier scale is
    sqrt(2 / (m (n + 20))): 0.0213 at the book's n = 200, m = 20. A sweep of 30 points keeps that
    scale (not its own 30 instances' 0.0209), and each sweep trains from seeds of its own."""
    cfg = GeometryConfig.preset("book")
    assert cfg.init == "notebook" and cfg.init_instances == 20
    scale = init_std(cfg.init, cfg.init_instances, cfg.n_features, cfg.n_hidden)
    assert scale == pytest.approx(0.02132, abs=1e-5)
    made = []
    monkeypatch.setattr("interp_repro.superposition.train.ToyModel",
                        lambda *args, **kwargs: made.append((args, kwargs)) or ToyModel(*args, **kwargs))
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    monkeypatch.setenv("INTERP_REPRO_WORKERS", "1")  # in this process, where the stand-in is
    small = GeometryConfig(n_features=6, n_hidden=2, points=3, steps=2, batch=4, sweeps=2)
    assert [job.name for job in geometry_jobs(small)] == ["sweep 1", "sweep 2"]
    res = run_geometry(small)
    assert res["W"].shape == (2, 3, 2, 6) and res["dims"].shape == (2, 3, 6)
    assert [(args[0], args[5], args[6]) for args, _ in made] == [(3, "notebook", 20)] * 2
    assert not np.array_equal(res["W"][0], res["W"][1])  # seeds of their own


def test_geometry_claims_are_means_over_the_sweeps():
    density = 1 / np.geomspace(1.0, 20.0, 8)
    dstar = np.array([[1, 1, 0.97, 0.8, 0.52, 0.5, 0.49, 0.3], [1, 0.98, 0.9, 0.7, 0.5, 0.5, 0.35, 0.3]])
    dims = np.full((2, 8, 4), 0.5)
    claims = geometry_claims({"density": density, "dstar": dstar, "dims": dims, "W": np.zeros((2, 8, 2, 4))})
    one = claims["superposition.dstar_one_plateau"]
    assert one.unit == "sweeps" and one.samples == tuple(plateau_ratio(density, d, 1.0) for d in dstar)
    assert one.value == pytest.approx(np.mean(one.samples))
    assert claims["superposition.sum_dims_over_m"].samples == (1.0, 1.0)  # 4 features at 1/2 in 2 dims


def test_a_feature_jumps_between_settled_levels_only_when_both_levels_last():
    settle_then_jump = np.r_[np.zeros(8), [0.25], np.full(8, 0.5), [0.45], np.full(8, 0.4)]
    assert settled_levels(settle_then_jump) == [0.0, 0.5, 0.4]
    rise_once = np.r_[np.linspace(0, 0.25, 6), np.full(20, 0.25)]  # moves, then settles once
    wobble = 0.5 + 0.01 * (-1) ** np.arange(26)  # within the tolerance: one level
    dims = np.stack([settle_then_jump[:26], rise_once, wobble, np.zeros(26)], axis=1)
    assert jump_flags(dims) == [True, False, False]  # the unlearned feature is not counted
    with pytest.raises(ValueError, match="snapshots x features"):
        jump_flags(np.zeros(5))


# --- phases ---------------------------------------------------------------------------------------

def test_analytic_phase_2_1():
    assert superposition_density_bound(1.0) == pytest.approx(4 / 7, abs=1e-4)
    assert analytic_phase_2_1(1.0, 0.5) == 0  # dense, unimportant extra feature: dropped
    assert analytic_phase_2_1(1.0, 2.0) == 2  # dense, important extra feature: alone
    assert analytic_phase_2_1(0.05, 1.0) == 1  # sparse: superposition


def test_feature_variance_is_the_ignored_feature_loss():
    x = sparse_features(torch.tensor([0.3]), 200_000, 1, torch_generator(0)).double()
    assert x.var().item() == pytest.approx(float(feature_variance(0.3)), rel=0.03)
    assert analytic_losses_2_1(0.3, 2.0)[2] == feature_variance(0.3)


def test_analytic_phase_3_2_adds_the_paired_weight_one_features():
    assert analytic_phase_3_2(1.0, 0.5) == 0 and analytic_phase_3_2(1.0, 2.0) == 2  # as 2 -> 1
    assert analytic_phase_3_2(0.05, 0.8) == 1  # sparse, r < 1: the extra shares a line
    assert analytic_phase_2_1(0.05, 2.0) == 1  # 2 -> 1 can only superpose here, but in 2 dims
    assert analytic_phase_3_2(0.05, 2.0) == 2  # the weight-1 pair frees a line for the extra one
    assert analytic_phase(3) is analytic_phase_3_2
    with pytest.raises(ValueError, match="2 or 3 features, got 4"):
        analytic_phase(4)


def test_empirical_phase():
    W = np.array([[[1.0, 0.0]], [[0.9, -0.9]], [[0.05, 1.0]]])  # (3, m=1, n=2)
    np.testing.assert_array_equal(empirical_phase(W), [0, 1, 2])


def test_phase_grid_shares():
    density, importance = np.array([1.0, 0.05]), np.array([0.5, 2.0])
    analytic = np.array([[0, 2], [1, 1]])  # the 2 -> 1 phases of these four cells
    np.testing.assert_array_equal(analytic_phase_2_1(density[:, None], importance[None, :]), analytic)
    assert analytic_agreement(analytic, density, importance, 2) == 1.0
    trained = np.array([[1, 2], [1, 0]])  # one dense cell in superposition, one sparse cell dropped
    assert analytic_agreement(trained, density, importance, 2) == 0.5
    assert superposition_share_above_bound(trained, density) == 0.5  # one of the two dense cells
    loss = np.array([[0.1, 0.2], [0.3, 0.4]])
    (row,) = superposition_above_bound(trained, loss, density, importance)
    assert (row["density"], row["r"], row["trained loss"]) == (1.0, 0.5, 0.1)
    assert row["best analytic loss"] == pytest.approx(0.5 * (1 / 3 - 1 / 4))


def test_intermediate_norm_share():
    W = np.array([[[1.0, 0.0]], [[1.0, 0.5]], [[1.0, 1.0]], [[1.0, -0.79]]])  # extra norms 0 .5 1 .79
    assert intermediate_norm_share(W) == 0.5


# --- configs --------------------------------------------------------------------------------------

def test_presets_validate():
    assert IntroConfig.preset("ci").steps < IntroConfig.preset("book").steps
    with pytest.raises(ValueError, match="unknown scale 'huge'"):
        IntroConfig.preset("huge")
    with pytest.raises(ValueError, match="densities must lie in"):
        IntroConfig.preset("ci", densities=(1.0, 0.0))
    with pytest.raises(ValueError, match="steps must be a positive integer, got -1"):
        DemoConfig.preset("ci", steps=-1)
    with pytest.raises(ValueError, match="n_hidden < n_features"):
        PhaseConfig.preset("ci", n_hidden=2)
    with pytest.raises(ValueError, match="no field"):
        PhaseConfig.preset("ci", gird=3)
    with pytest.raises(ValueError, match="unknown init"):
        GeometryConfig.preset("ci", init="he")
    with pytest.raises(ValueError, match="factors must be a finite number > 0"):
        PentagonConfig.preset("ci", factors=(1.0, 0.0))
    with pytest.raises(ValueError, match="2 hidden dimensions"):
        PentagonConfig.preset("ci", n_hidden=3)


def test_config_rejects_negative_feature_count():
    with pytest.raises(ValueError, match="n_features must be a positive integer, got -4"):
        IntroConfig.preset("ci", n_features=-4)


def test_train_best_cuda_absent_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        train_best("relu", 5, 2, np.ones(5), np.array([0.5]), seeds=1, steps=1, batch=4, seed=0,
                   desc="x", device="cuda")
