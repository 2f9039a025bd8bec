"""Tests of the abstraction study's networks and their training: linear, deep linear and nonlinear
nets, the GELU ablation, and the experiments' configs and results."""

from dataclasses import asdict

import numpy as np
import pytest
import torch

from interp_repro.abstraction.data import two_factor_data
from interp_repro.abstraction.experiments.ablation import (
    ABLATION_SCORES,
    GeluNetConfig,
    GeluSensitivityConfig,
    ablation_table,
    paper_like_setting,
    run_gelu_sensitivity,
)
from interp_repro.abstraction.measures import (
    abstraction_score,
    concept_scores,
    deep_terminal,
    item_spectrum,
    layer_profile,
    nu_abstraction,
    probe_transfer,
    terminal_abstraction,
    theory_for,
    up_fraction,
    whitened_abstraction,
)
from interp_repro.abstraction.model import balanced_init, block_hidden, block_representations
from interp_repro.abstraction.train import train_deep_linear, train_gelu_net, train_linear, train_nonlinear

# Target more abstract than the input: alpha_x = 1/3, alpha_y = 0.818, alpha_inf = 0.6345.
NU_X, NU_Y, LAM = 0.5, 0.1, 1.0
# n = 2 samples per class and no within-class noise: the item kernels are exactly 2FS, and their
# Walsh eigenvalues are 2 x those of the class kernels (x_S = y_S = 2).
DATA = two_factor_data(NU_X, NU_Y, n_per_class=2, d_in=8, d_out=6, seed=0)


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """These runs are thousands of steps on tiny tensors: one thread avoids thread contention."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# --- two-layer linear network ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ridge_run():
    # lr = 0.2: 0.1 of the fastest mode rate x y / (2 lam) = 2; t = 1600 puts the theory's own gap
    # to the terminal law, ~ 4 lam (1 - rho) / ((1 + rho)^2 sqrt(4 lam x_S y_S t)), at 0.013.
    return train_linear(DATA, width=512, kappa=1.0, lr=0.2, steps=8000, lam=LAM, seed=1)


def test_ridge_run_tracks_exact_theory(ridge_run):
    theory = theory_for(DATA, 1.0, LAM, ridge_run.t, init_Q=ridge_run.Q0)
    err = np.abs(theory - ridge_run.alpha).max()
    inf_width = np.abs(theory_for(DATA, 1.0, LAM, ridge_run.t) - ridge_run.alpha).max()
    print(f"ridge readout, width 512, kappa 1, lr 0.2: max |alpha_sim - alpha_theory| = {err:.4f} "
          f"(q0 = kappa^2 x_k instead of the actual Q0: {inf_width:.4f}); alpha from "
          f"{ridge_run.alpha[0]:.3f} to max {ridge_run.alpha.max():.3f} to {ridge_run.alpha[-1]:.4f}")
    assert err < 0.02
    assert ridge_run.alpha.max() > ridge_run.alpha[-1] + 0.05  # the overshoot is real and is tracked
    assert np.all(np.diff(ridge_run.loss) <= 1e-12)  # gradient descent on L(Q) at a stable rate


def test_ridge_run_reaches_terminal_law(ridge_run):
    law = terminal_abstraction(NU_X, NU_Y)
    print(f"ridge readout at t = {ridge_run.t[-1]:.0f}: alpha = {ridge_run.alpha[-1]:.4f}, law {law:.4f}")
    assert abs(ridge_run.alpha[-1] - law) < 0.02
    assert ridge_run.alpha[-1] > law  # the approach is from above


def test_joint_readout_follows_the_ridge_theory():
    # Joint training needs lr (q + lam) < 2 for the readout, and q grows like sqrt(t): lr = 0.02 is
    # stable to t = 100 (q_S ~ 40), where the theory itself is still 0.047 above the terminal law.
    run = train_linear(DATA, width=512, kappa=1.0, lr=0.02, steps=5000, lam=LAM, seed=1, readout="joint")
    theory = theory_for(DATA, 1.0, LAM, run.t, init_Q=run.Q0)
    law = terminal_abstraction(NU_X, NU_Y)
    diff = np.abs(theory - run.alpha)
    late = run.t >= 10  # after the readout has caught up with its ridge optimum
    print(f"joint readout at t = {run.t[-1]:.0f}: alpha = {run.alpha[-1]:.4f}, ridge theory "
          f"{theory[-1]:.4f}, law {law:.4f}; max |diff| to the ridge theory {diff.max():.4f} "
          f"(t >= 10: {diff[late].max():.4f})")
    assert diff[late].max() < 0.01
    assert abs(run.alpha[-1] - law) < (theory[-1] - law) + 0.01
    assert run.readout.shape == (512, DATA.Y.shape[1])


def test_theory_for_uses_item_spectra_and_init():
    n = DATA.n_per_class
    np.testing.assert_allclose(item_spectrum(DATA.X @ DATA.X.T, DATA), n * DATA.input_spectrum, atol=1e-12)
    t = np.array([0.0, 1.0, 1e6])
    exact_init = theory_for(DATA, 0.7, LAM, t, init_Q=0.49 * DATA.X @ DATA.X.T)
    np.testing.assert_allclose(theory_for(DATA, 0.7, LAM, t), exact_init, atol=1e-12)
    assert exact_init[0] == pytest.approx(nu_abstraction(NU_X), abs=1e-12)
    with pytest.raises(ValueError, match=r"shape \(8, 8\)"):
        theory_for(DATA, 1.0, LAM, t, init_Q=np.eye(3))


@pytest.mark.parametrize("kind", ["ridge", "joint", "deep", "erf"])
def test_runs_are_deterministic_per_seed(kind):
    def run(seed):
        if kind == "deep":  # the balanced init is isotropic: alpha(t) itself does not depend on the seed
            run = train_deep_linear(DATA, 2, 16, 0.5, 0.1, 30, LAM, seed=seed)
            return np.concatenate([w.ravel() for w in run.weights])
        if kind == "erf":
            return train_nonlinear(DATA, "erf", 64, 1.0, 0.1, 30, LAM, seed=seed).alpha_post
        return train_linear(DATA, 64, 1.0, 0.1, 30, LAM, seed=seed, readout=kind).alpha

    a, b, c = run(3), run(3), run(4)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_linear_activation_is_the_ridge_linear_net():
    lin = train_linear(DATA, 128, 0.8, 0.1, 200, LAM, seed=5, record_every=20)
    act = train_nonlinear(DATA, "linear", 128, 0.8, 0.1, 200, LAM, seed=5, record_every=20)
    np.testing.assert_array_equal(lin.t, act.t)
    np.testing.assert_allclose(act.alpha_pre, lin.alpha, atol=1e-12)
    np.testing.assert_allclose(act.alpha_post, lin.alpha, atol=1e-12)
    np.testing.assert_allclose(act.loss, lin.loss, rtol=1e-12)
    np.testing.assert_allclose(act.W, lin.W, atol=1e-12)


# --- deep linear network --------------------------------------------------------------------------------

def test_balanced_init_is_balanced():
    weights = [w.numpy() for w in balanced_init(3, 12, 8, 0.2, seed=0)]
    for lower, upper in zip(weights, weights[1:], strict=False):
        np.testing.assert_allclose(upper.T @ upper, lower @ lower.T, atol=1e-12)
    end_to_end = weights[2] @ weights[1] @ weights[0]
    np.testing.assert_allclose(end_to_end.T @ end_to_end, 0.04 * np.eye(8), atol=1e-12)


def test_depth_profile_is_linear_in_arctanh_and_depth_helps():
    ax, ay = nu_abstraction(NU_X), nu_abstraction(NU_Y)
    last = []
    for L in (1, 2, 3):
        run = train_deep_linear(DATA, L, width=32, kappa=0.3, lr=0.2, steps=2500, lam=LAM, seed=0)
        alpha = run.alpha[-1]
        err = np.abs(np.arctanh(alpha) - np.arctanh(layer_profile(alpha[0], alpha[-1], L))).max()
        print(f"L = {L}: alpha per layer {np.round(alpha, 4)}, arctanh-linearity error {err:.1e}, "
              f"deep_terminal {deep_terminal(ax, ay, L):.4f}")
        assert alpha[0] == pytest.approx(ax, abs=1e-12)
        assert err < 0.02
        assert 0 < alpha[-1] - deep_terminal(ax, ay, L) < 0.03  # approached from above at t = 500
        last.append(alpha[-1])
    assert last[0] < last[1] < last[2]


# --- nonlinear networks ---------------------------------------------------------------------------------

@pytest.mark.parametrize("activation", ["erf", "leaky_relu", "relu"])
def test_attenuation_at_the_end_of_training(activation):
    run = train_nonlinear(DATA, activation, 512, 1.0, 0.2, 2000, LAM, seed=0)
    print(f"{activation}: at t = {run.t[-1]:.0f} alpha pre {run.alpha_pre[-1]:.4f}, post "
          f"{run.alpha_post[-1]:.4f}; max over time of |post| - |pre| = "
          f"{(np.abs(run.alpha_post) - np.abs(run.alpha_pre)).max():.4f}")
    assert abs(run.alpha_post[-1]) <= abs(run.alpha_pre[-1]) + 0.005
    assert run.loss[-1] < run.loss[0]


# --- GELU ablation --------------------------------------------------------------------------------------

SMALL = GeluNetConfig(n_per_class=16, d_model=16, d_hidden=32, n_blocks=3, steps=50)


def test_block_representations_match_forward_and_ablation_is_local():
    net = train_gelu_net(**asdict(SMALL), seed=0)
    outputs = []
    hooks = [b.register_forward_hook(lambda _m, _i, out: outputs.append(out.detach().numpy()))
             for b in net.model.blocks]
    with torch.no_grad():
        net.model(torch.as_tensor(net.X_test, dtype=torch.float32))
    for h in hooks:
        h.remove()
    intact = block_representations(net.model, net.X_test)
    assert intact.shape == (3, 64, 16)
    np.testing.assert_array_equal(intact, np.stack(outputs))
    ablated = block_representations(net.model, net.X_test, ablate_block=1)
    np.testing.assert_array_equal(ablated[0], intact[0])
    assert not np.allclose(ablated[1], intact[1]) and not np.allclose(ablated[2], intact[2])
    with pytest.raises(ValueError, match="ablate_block"):
        block_representations(net.model, net.X_test, ablate_block=3)


def test_probe_transfer_on_synthetic_codes():
    rng = np.random.default_rng(0)
    labels = np.repeat([[1, 1], [1, -1], [-1, 1], [-1, -1]], 25, axis=0)
    s, c = labels[:, :1], labels[:, 1:]
    e = np.linalg.qr(rng.standard_normal((10, 2)))[0].T
    noise = 0.1 * rng.standard_normal((100, 10))
    abstract = s * e[0] + c * e[1] + noise
    anti = s * c * e[0] + c * e[1] + noise  # the shape direction flips with colour
    for concept in ("shape", "colour"):
        assert probe_transfer(abstract, labels, concept) == 1.0
    assert probe_transfer(anti, labels, "shape") <= 0.5
    assert abstraction_score(abstract, labels) > 0.95 and abstraction_score(anti, labels) < -0.95
    assert concept_scores(anti, labels) == {
        "alpha": [float(abstraction_score(anti, labels, c)) for c in ("shape", "colour")],
        "probe": [probe_transfer(anti, labels, c) for c in ("shape", "colour")],
        "walpha": [whitened_abstraction(anti, labels, c) for c in ("shape", "colour")]}
    with pytest.raises(ValueError, match="unknown concept"):
        probe_transfer(abstract, labels, "size")


def test_block_hidden_is_the_blocks_hidden_layer():
    net = train_gelu_net(**asdict(SMALL), seed=0)
    pre, post = block_hidden(net.model, net.X_test, 1)
    assert pre.shape == post.shape == (64, 32)
    np.testing.assert_allclose(post, torch.nn.functional.gelu(torch.as_tensor(pre)).numpy())
    stream = block_representations(net.model, net.X_test)
    ablated = block_representations(net.model, net.X_test, ablate_block=1)[1]
    with torch.no_grad():  # the block's output is its input plus W2 applied to the hidden layer
        fc2 = net.model.blocks[1].fc2
        np.testing.assert_allclose(stream[1] - stream[0], fc2(torch.as_tensor(post)).numpy(), atol=1e-5)
        np.testing.assert_allclose(ablated - stream[0], fc2(torch.as_tensor(pre)).numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="block must be"):
        block_hidden(net.model, net.X_test, 3)


def test_ablation_table_shapes_and_learning():
    table = ablation_table(GeluNetConfig(), seeds=range(5))
    for score in ABLATION_SCORES:
        assert table[f"{score}_intact"].shape == table[f"{score}_ablated"].shape == (5, 3, 2)
    for arr in (table["alpha_intact"], table["alpha_ablated"]):
        assert np.isfinite(arr).all() and (np.abs(arr) <= 1).all()
    for arr in (table["probe_intact"], table["probe_ablated"]):
        assert ((arr >= 0) & (arr <= 1)).all()
    assert table["test_accuracy"].mean() > 0.85  # the networks learned the task (Bayes accuracy ~ 0.96)


def test_gelu_sensitivity_sweep_and_its_criterion():
    cfg = GeluSensitivityConfig(settings=("book's network", "1 block"), seeds=1)
    res = run_gelu_sensitivity(cfg)
    assert set(res) >= {"alpha_up", "probe_up", "walpha_up", "hidden_probe_up", "probe_intact",
                        "probe_with_alpha", "probe_with_walpha", "test_accuracy"}
    for arr in res.values():
        assert arr.shape == (2,) and ((arr >= 0) & (arr <= 1)).all()
    # the fractions are those of ablation_table at the setting (one seed: one pair per block)
    table = ablation_table(GeluNetConfig(n_blocks=1), seeds=[0])
    assert res["probe_up"][1] == up_fraction(table["probe_intact"], table["probe_ablated"])
    fake = {"test_accuracy": np.array([0.95, 0.92, 0.5]), "probe_intact": np.array([0.7, 0.8, 0.94])}
    wide = GeluSensitivityConfig(settings=("book's network", "1 block", "noise 0.6"))
    assert paper_like_setting(wide, fake) == "1 block"  # the closest to 0.944 among those that learnt
    with pytest.raises(ValueError, match="no setting"):
        paper_like_setting(wide, fake | {"test_accuracy": np.zeros(3)})
    for bad in (dict(settings=("2 blocks",)), dict(settings=()), dict(seeds=0)):
        with pytest.raises(ValueError):
            GeluSensitivityConfig(**bad)
    with pytest.raises(ValueError, match="no field"):
        GeluSensitivityConfig.preset("ci", blocks=2)


# --- bad inputs -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("call", "match"), [
    (lambda: train_linear(DATA, -3, 1.0, 0.1, 10, LAM, seed=0), "width must be a positive integer"),
    (lambda: train_linear(DATA, 8, 1.0, 0.0, 10, LAM, seed=0), "lr must be a finite number > 0"),
    (lambda: train_linear(DATA, 8, 1.0, -0.1, 10, LAM, seed=0), "lr must be"),
    (lambda: train_linear(DATA, 8, 1.0, 0.1, 10, 0.0, seed=0), "lam must be"),
    (lambda: train_linear(DATA, 8, 0.0, 0.1, 10, LAM, seed=0), "kappa must be"),
    (lambda: train_linear(DATA, 8, 1.0, 0.1, 10, LAM, seed=0, readout="frozen"), "unknown readout"),
    (lambda: train_linear(DATA, 8, 1.0, 0.1, 10, LAM, seed=-1), "seed"),
    (lambda: train_linear(DATA, 8, 1.0, 0.1, 10, LAM, seed=0, record_every=0), "record_every"),
    (lambda: train_deep_linear(DATA, 0, 8, 1.0, 0.1, 10, LAM, seed=0), "depth must be a positive integer"),
    (lambda: train_deep_linear(DATA, 2, 4, 1.0, 0.1, 10, LAM, seed=0), "width >= d_in"),
    (lambda: train_nonlinear(DATA, "tanh", 8, 1.0, 0.1, 10, LAM, seed=0), "unknown activation"),
    (lambda: train_nonlinear(DATA, "relu", 8, 1.0, 0.1, 0, LAM, seed=0), "steps must be"),
    (lambda: GeluNetConfig(n_blocks=0), "n_blocks must be"),
    (lambda: GeluNetConfig(lr=-1.0), "lr must be"),
])
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_terminal_grid_claims_read_the_noisy_cells_and_the_noiseless_ones():
    from interp_repro.abstraction.experiments.linear import terminal_grid_claims

    nus = np.array([0.0, 0.5])
    law = terminal_abstraction(nus[:, None], nus[None, :])
    alpha = law + np.array([[-0.02, -0.03], [-0.04, 0.01]])  # noiseless cells below 1, as trained
    claims = terminal_grid_claims({"nus": nus, "alpha": alpha, "law": law})
    assert claims["abstraction.terminal_grid_max_gap"] == pytest.approx(0.01)
    assert claims["abstraction.perfect_iff_noiseless"] is True
    alpha[0, 1] = 0.9  # a noiseless cell that stalls far from perfect
    assert terminal_grid_claims({"nus": nus, "alpha": alpha, "law": law})[
        "abstraction.perfect_iff_noiseless"] is False


@pytest.mark.parametrize(("field", "value"), [("nus", ()), ("nus", (0.0, 1.5)), ("width", 0), ("lr", -1.0)])
def test_terminal_grid_config_names_a_bad_field(field, value):
    from interp_repro.abstraction.experiments.linear import TerminalGridConfig

    with pytest.raises(ValueError, match=field):
        TerminalGridConfig(**{field: value})


@pytest.mark.parametrize("scale", ["ci", "book", "paper"])
def test_terminal_grid_is_at_least_5_x_5_with_noiseless_and_noisy_cells(scale):
    from interp_repro.abstraction.experiments.linear import TerminalGridConfig

    nus = TerminalGridConfig.preset(scale).nus
    assert len(set(nus)) >= 5 and 0.0 in nus and max(nus) == 1.0  # the whole of [0, 1]


def test_nonlinear_and_kernel_results_are_read_by_activation_name(tmp_path, monkeypatch):
    from interp_repro.abstraction.experiments.nonlinear import (
        KernelConfig,
        NonlinearConfig,
        kernel_claims,
        nonlinear_claims,
        run_kernels,
        run_nonlinear,
    )

    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    cfg = NonlinearConfig(activations=("relu", "erf"), width=16, steps=5)
    computed, read_back = run_nonlinear(cfg), run_nonlinear(cfg)  # the second comes from the cache
    data = two_factor_data(0.5, 0.1, 2, 8, 6, seed=0)
    direct = train_nonlinear(data, "erf", 16, 1.0, 0.2, 5, LAM, seed=1)
    for res in (computed, read_back):
        assert list(res.pre) == list(res.post) == ["relu", "erf"]
        np.testing.assert_array_equal(res.t, direct.t)
        np.testing.assert_array_equal(res.pre["erf"], direct.alpha_pre)
        np.testing.assert_array_equal(res.post["erf"], direct.alpha_post)
        np.testing.assert_allclose(res.theory, theory_for(data, 1.0, LAM, direct.t))
    noisy_cfg = NonlinearConfig(activations=("erf",), width=16, steps=5, noise_x=1.0, n_per_class=4)
    noisy = run_nonlinear(noisy_cfg)
    assert noisy.theory is None  # the exact theory needs noise-free two-factor data
    assert "abstraction.erf_follows_linear_theory" in nonlinear_claims(computed)
    assert "abstraction.erf_follows_linear_theory" not in nonlinear_claims(noisy)
    kernels = run_kernels(KernelConfig(n_kernels=50, mc_samples=2000, mc_kernels=1))
    assert list(kernels.mc_error) == ["erf", "relu", "leaky_relu", "gelu"]
    assert list(kernels.abs_alpha_K) == list(kernels.abs_alpha_Q) == ["erf", "relu", "leaky_relu"]
    assert set(kernel_claims(kernels)) == {"abstraction.attenuation_violations_erf",
                                           "abstraction.attenuation_violations_relu",
                                           "abstraction.attenuation_violations_leaky_relu",
                                           "abstraction.kernel_mc_max_error"}


@pytest.mark.parametrize(("field", "value"), [("activations", ("tanh",)), ("activations", ()),
                                              ("noise_x", -1.0), ("nu_x", 1.5), ("kappa", 0.0)])
def test_nonlinear_config_names_a_bad_field(field, value):
    from interp_repro.abstraction.experiments.nonlinear import NonlinearConfig

    with pytest.raises(ValueError, match=field):
        NonlinearConfig(**{field: value})


# --- ReLU anti-abstraction sweep ------------------------------------------------------------------------

@pytest.mark.parametrize(("field", "value", "match"), [
    ("nu_xs", (), "nu_xs must be a non-empty tuple"),
    ("nu_xs", (0.5, -1.0), "nu_xs must be a finite number >= 0"),
    ("nu_xs", [0.5, 4.0], "nu_xs must be a tuple"),  # a list would not hash into the cache key
    ("noise_xs", (0.0, -0.5), "noise_xs must be a finite number >= 0"),
    ("widths", (64, 0), "widths must be a positive integer"),
    ("widths", (64.0,), "widths must be a tuple of \\(an integer\\)"),
    ("seeds", 0, "seeds must be a positive integer"),
    ("nu_y", 1.5, "nu_y must lie in"),  # the target stays in the paper's regime
    ("steps", 0, "steps must be a positive integer"),
    ("lr", 0.0, "lr must be"),
])
def test_anti_abstraction_sweep_config_names_a_bad_field(field, value, match):
    from interp_repro.abstraction.experiments.nonlinear import AntiAbstractionSweepConfig

    with pytest.raises(ValueError, match=match):
        AntiAbstractionSweepConfig(**{field: value})


def test_anti_abstraction_sweep_admits_inputs_past_nu_1_and_every_preset_is_valid():
    from interp_repro.abstraction.experiments.nonlinear import AntiAbstractionSweepConfig, NonlinearConfig

    assert AntiAbstractionSweepConfig(nu_xs=(0.5, 19.0)).nu_xs == (0.5, 19.0)
    with pytest.raises(ValueError, match="nu_x"):  # elsewhere nu_x stays in [0, 1]
        NonlinearConfig(nu_x=2.0)
    for scale in ("ci", "book", "paper"):
        cfg = AntiAbstractionSweepConfig.preset(scale)
        assert max(cfg.nu_xs) > 1 and min(cfg.nu_xs) <= 1  # both sides of alpha_x = 0
        assert cfg.nu_y == 0.0 and cfg.seeds >= 2


def test_anti_abstraction_sweep_cells_are_seeded_runs_of_the_nonlinear_net(tmp_path, monkeypatch):
    from interp_repro.abstraction.experiments.nonlinear import (
        AntiAbstractionSweepConfig,
        anti_abstraction_jobs,
        run_anti_abstraction_sweep,
    )

    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    monkeypatch.setenv("INTERP_REPRO_WORKERS", "1")
    cfg = AntiAbstractionSweepConfig(nu_xs=(0.5, 4.0), noise_xs=(0.0, 1.0), widths=(8, 16), seeds=2,
                                     n_per_class=3, d_in=6, steps=5, seed=7)
    assert [job.name for job in anti_abstraction_jobs(cfg)] == ["nu_x 0.5", "nu_x 4.0"]  # a job per row
    res = run_anti_abstraction_sweep(cfg)
    assert res["pre"].shape == res["post"].shape == (2, 2, 2, 2)
    np.testing.assert_array_equal(res["widths"], [8, 16])
    np.testing.assert_allclose(res["alpha_x"], [1 / 3, -0.6], atol=1e-12)  # (1 - nu) / (1 + nu)
    # cell (nu_x 4, noise 1, width 16), draw 1: data seed 7 + 1, initialisation seed 7 + 2
    data = two_factor_data(4.0, 0.0, 3, 6, 6, seed=8, noise_x=1.0, nu_x_max=np.inf)
    direct = train_nonlinear(data, "relu", 16, 1.0, 0.2, 5, LAM, seed=9)
    assert res["pre"][1, 1, 1, 1] == direct.alpha_pre[-1]
    assert res["post"][1, 1, 1, 1] == direct.alpha_post[-1]
    assert res["pre"][1, 1, 1, 0] != res["pre"][1, 1, 1, 1]  # the two draws differ


def _sweep_result(pre: np.ndarray) -> dict[str, np.ndarray]:
    """A synthetic sweep result over nu_xs (0.5, 4) x one noise level x one width, with ``pre`` per seed."""
    pre = np.asarray(pre, dtype=float).reshape(2, 1, 1, -1)
    return {"pre": pre, "post": -pre / 2, "alpha_x": np.array([1 / 3, -0.6]), "nu_xs": np.array([0.5, 4.0]),
            "noise_xs": np.array([2.0]), "widths": np.array([64])}


def test_anti_abstraction_claim_is_the_mean_change_at_the_largest_noise_levels_the_lowest_seed_mean():
    from interp_repro.abstraction.experiments.nonlinear import (
        anti_abstraction_claims,
        anti_abstraction_levels,
    )

    # nu_x = 0.5 (alpha_x 1/3): seeds at -0.9 and 0.1; nu_x = 4 (alpha_x -0.6): seeds at -0.6 and -0.7,
    # the lowest alpha but 0.05 below the input's. The claim averages the change of all four networks.
    res = _sweep_result([[-0.9, 0.1], [-0.6, -0.7]])
    claim = anti_abstraction_claims(res)["abstraction.relu_anti_abstraction"]
    changes = (-0.9 - 1 / 3, 0.1 - 1 / 3, 0.0, -0.1)
    assert claim.samples == pytest.approx(changes) and claim.unit == "networks"
    assert claim.value == pytest.approx(np.mean(changes))
    quieter = {**res, "noise_xs": np.array([0.5, 2.0]),
               "pre": np.concatenate([res["pre"] - 1, res["pre"]], axis=1)}  # a quieter noise level: left out
    assert anti_abstraction_claims(quieter)["abstraction.relu_anti_abstraction"].value == pytest.approx(
        claim.value)
    levels = anti_abstraction_levels(res)
    assert levels["anti_abstraction_pre"] == pytest.approx(-0.65)
    assert levels["anti_abstraction_nu_x"] == 4.0 and levels["anti_abstraction_alpha_x"] == -0.6
    assert levels["anti_abstraction_noise_x"] == 2.0 and levels["anti_abstraction_width"] == 64
    assert (levels["anti_abstraction_pre_min"], levels["anti_abstraction_pre_max"]) == (-0.7, -0.6)
    assert levels["anti_abstraction_post"] == pytest.approx(0.325)
    assert levels["anti_abstraction_concept_dominant_min"] == pytest.approx(-0.4)  # nu_x <= 1 only
    res["nu_xs"] = np.array([2.0, 4.0])  # no input in the paper's regime
    assert "anti_abstraction_concept_dominant_min" not in anti_abstraction_levels(res)


def test_gemmas_probe_level_is_the_registrys():
    """experiments.PAPER_PROBE draws the sweep's figure and picks its paper-like setting; the
    registry states the same number for the chapter's text."""
    from interp_repro.abstraction.experiments.ablation import PAPER_PROBE
    from interp_repro.reproduction.claims import load_not_reproduced

    (entry,) = [e for e in load_not_reproduced() if e.id == "abstraction.gelu_probe_intact"]
    assert float(entry.paper) == PAPER_PROBE


# --- the chapters' tables and levels --------------------------------------------------------------------

def test_depth_profiles_drop_the_padding_and_draw_the_law_through_the_ends():
    from interp_repro.abstraction.experiments.linear import depth_profiles

    res = {"profile": np.array([[0.3, 0.5, np.nan], [0.3, 0.4, 0.6]]), "alpha_x": np.array(0.3)}
    profiles, theory = depth_profiles(res)
    assert list(profiles) == list(theory) == [1, 2]
    np.testing.assert_array_equal(profiles[1], [0.3, 0.5])
    np.testing.assert_array_equal(profiles[2], [0.3, 0.4, 0.6])
    np.testing.assert_array_equal(theory[2], layer_profile(0.3, 0.6, 2))
    assert theory[1] == pytest.approx([0.3, 0.5])  # one hidden layer: the law is its two ends


def test_pre_post_table_reads_the_end_and_the_largest_excess_per_activation():
    from interp_repro.abstraction.experiments.nonlinear import PrePost, pre_post_table

    res = PrePost(t=np.array([1.0, 2.0]), pre={"erf": np.array([0.2, 0.5]), "relu": np.array([0.1, -0.3])},
                  post={"erf": np.array([0.1, 0.45]), "relu": np.array([0.3, 0.1])},
                  theory=np.array([0.1, 0.6]))
    table = pre_post_table(res)
    assert table.index.tolist() == ["erf", "relu"]
    assert table["pre (end)"].tolist() == [0.5, -0.3] and table["post (end)"].tolist() == [0.45, 0.1]
    # erf: |post| - |pre| is -0.1, then -0.05; relu: 0.2 (the law failed early), then -0.2
    assert table["largest |post| - |pre|"].tolist() == pytest.approx([-0.05, 0.2])


def test_the_gelu_tables_and_levels_read_the_seeds_and_the_settings():
    from interp_repro.abstraction.experiments.ablation import (
        SENSITIVITY_COLUMNS,
        ablation_levels,
        gelu_sensitivity_levels,
        gelu_sensitivity_table,
    )

    scores = {f"{score}_{state}": np.full((2, 3, 2), value) for score in ABLATION_SCORES
              for state, value in (("intact", 0.25), ("ablated", 0.5))}
    levels = ablation_levels(scores | {"test_accuracy": np.array([0.9, 0.95])})
    assert levels == pytest.approx({"gelu_alpha_intact": 0.25, "gelu_alpha_ablated": 0.5,
                                    "gelu_probe_intact": 0.25, "gelu_probe_ablated": 0.5,
                                    "gelu_test_accuracy": 0.925})
    cfg = GeluSensitivityConfig(settings=("book's network", "1 block"))
    summaries = (*SENSITIVITY_COLUMNS, "hidden_alpha_up", "probe_with_alpha", "probe_with_walpha")
    res = {key: np.array([0.25, 0.75]) for key in summaries}
    res |= {"probe_intact": np.array([0.7, 0.8]), "test_accuracy": np.array([0.95, 0.92])}
    table = gelu_sensitivity_table(cfg, res)
    assert table.index.tolist() == list(cfg.settings) and table.columns.tolist() == list(SENSITIVITY_COLUMNS)
    assert table.loc["1 block"].tolist() == [0.75, 0.75, 0.75, 0.75, 0.8, 0.92]
    sweep = gelu_sensitivity_levels(cfg, res)
    assert (sweep["gelu_sweep_probe_intact_min"], sweep["gelu_sweep_probe_intact_max"]) == (0.7, 0.8)
    assert sweep["gelu_like_setting"] == "1 block"  # learnt, and the closer to Gemma's 0.944
