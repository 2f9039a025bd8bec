"""Experiment plumbing of the Schur-RNN study: ablation profiles, claims and configs (fast checks)."""

import numpy as np
import pytest

from interp_repro.core import numpy_rng
from interp_repro.schur_rnn import experiments as ex
from interp_repro.schur_rnn.schur import ordered_real_schur, split_indices


def _weights(K=2, n=10, n_in=8, n_out=8, seed=0):
    rng = numpy_rng(seed)
    return {"W_xh": rng.normal(0, 0.5, (K, n, n_in)).astype(np.float32),
            "W_hh": rng.normal(0, 1.2 / np.sqrt(n), (K, n, n)),
            "W_hy": rng.normal(0, 0.5, (K, n_out, n)).astype(np.float32)}


def test_ablated_matrices_keep_w_for_the_empty_subset_and_split_the_mass():
    W = _weights()["W_hh"]
    mats, mass, r, parts = ex.ablated_matrices(W, 0.9)
    assert mats.shape == (8, 2, 10, 10) and mass.shape == (8, 2) and parts.shape == (2, 4)
    np.testing.assert_allclose(mats[0], W, atol=1e-12)
    assert np.all(mass[0] == 0)
    np.testing.assert_allclose(parts.sum(axis=1), 1.0)
    for k in range(2):
        _, T = ordered_real_schur(W[k])
        assert r[k] == split_indices(T, 0.9)
    # removed mass squared = the removed parts' shares, since the parts are disjoint
    share = dict(zip(ex.PARTS, parts.T, strict=True))
    for i, subset in enumerate(ex.SUBSETS):
        np.testing.assert_allclose(mass[i] ** 2, sum((share[b] for b in subset), np.zeros(2)), atol=1e-12)
    # every ablation keeps the spectrum
    for i in range(8):
        np.testing.assert_allclose(np.sort(np.abs(np.linalg.eigvals(mats[i, 0]))),
                                   np.sort(np.abs(np.linalg.eigvals(W[0]))), atol=1e-8)


def test_ablation_profile_scores_every_subset():
    prof = ex.ablation_profile(_weights(), "copy", 0.9, seed=3, batch=16)
    for name in ("fvu", "delta_fvu", "mass", "sensitivity", "accuracy"):
        assert prof[name].shape == (8, 2)
    assert np.all(prof["delta_fvu"][0] == 0) and np.all(np.isnan(prof["sensitivity"][0]))
    assert np.all((prof["accuracy"] >= 0) & (prof["accuracy"] <= 1))
    np.testing.assert_allclose(prof["sensitivity"][1:], prof["delta_fvu"][1:] / prof["mass"][1:])
    again = ex.ablation_profile(_weights(), "copy", 0.9, seed=3, batch=16)
    for name in prof:
        np.testing.assert_array_equal(prof[name], again[name])
    other = ex.ablation_profile(_weights(n_in=3, n_out=3), "flipflop", 0.9, seed=3, batch=8)
    assert "accuracy" not in other and other["fvu"].shape == (8, 2)


def test_normal_matrix_ablations_do_nothing():
    rng = numpy_rng(1)
    Q, _ = np.linalg.qr(rng.normal(size=(10, 10)))
    D = np.diag(rng.uniform(0.2, 1.0, 10))
    w = _weights()
    w["W_hh"] = np.stack([Q @ D @ Q.T, Q @ D @ Q.T])
    prof = ex.ablation_profile(w, "copy", 0.9, seed=0, batch=8)
    assert np.abs(prof["delta_fvu"]).max() < 1e-6
    assert np.abs(prof["mass"]).max() < 1e-8


def test_stabilizer_sets_and_profile_shape():
    profile = {"delta_fvu": np.array([[0, 0], [0.001, 0.5], [0.2, 0.005], [0.2, 0.6], [1, 1], [1, 1],
                                      [1, 1], [1, 1]]),
               "mass": np.array([[0, 0]] + [[0.1, 0.1]] * 7)}
    assert ex.stabilizer_sets(profile) == [frozenset({1}), frozenset({2})]
    assert ex.stabilizer_sets(profile, eps=0.6) == [frozenset({1, 2, 3}), frozenset({1, 2, 3})]
    profile["mass"][1, 0] = 0.0  # an ablation that removes nothing is no stabilizer
    assert ex.stabilizer_sets(profile) == [frozenset(), frozenset({2})]
    with pytest.raises(ValueError):
        ex.stabilizer_sets(profile, eps=-1)
    paper = np.array(ex.PAPER_COPY_ACCURACY)
    assert ex.profile_holds(paper)
    no_gap = paper.copy()
    no_gap[2] = 0.99  # -T_RR barely hurts
    assert not ex.profile_holds(no_gap)
    cc_matters = paper.copy()
    cc_matters[1] = 0.9
    assert not ex.profile_holds(cc_matters)
    cr_not_lowest = paper.copy()
    cr_not_lowest[6] = 0.9
    assert not ex.profile_holds(cr_not_lowest)


def _unit(acc_mean, construction="orthogonal", n=72, seeds=3):
    acc = np.repeat(np.asarray(acc_mean, dtype=float)[:, None], seeds, axis=1)
    spec = ex.TrainSpec("copy", construction, n, seeds, 10, 4, 1e-3, 1.0, "cosine", 0, 32, 0)
    return ex.Unit(spec, {}, {"accuracy": acc})


def test_copy_claims_read_the_headline_unit():
    paper = np.array(ex.PAPER_COPY_ACCURACY)
    res = ex.CopyResults(
        grid={("orthogonal", 72): _unit(paper), ("cayley", 72): _unit(np.r_[0.975, np.full(7, 0.97)])},
        sweep={}, alphas={0.9: {"accuracy": _unit(paper).profile["accuracy"]},
                          0.8: {"accuracy": _unit(np.ones(8)).profile["accuracy"]}},
        headline=("orthogonal", 72))
    claims = ex.copy_claims(res)
    assert claims["schur_rnn.copy_full_accuracy"] == pytest.approx(1.0)
    assert claims["schur_rnn.copy_rr_accuracy"] == pytest.approx(0.876)
    assert claims["schur_rnn.copy_cr_accuracy"] == pytest.approx(0.639)
    assert claims["schur_rnn.copy_cc_pairs_gap"] == pytest.approx(0.001)
    assert claims["schur_rnn.copy_cr_lowest"] is True
    assert claims["schur_rnn.table1_alphas_holding"] == 1
    assert claims["schur_rnn.copy_cayley_max_change"] == pytest.approx(0.005)


@pytest.mark.parametrize("overrides", [dict(headline=("orthogonal", 50)), dict(constructions=("dense",)),
                                       dict(alphas=(1.5,)), dict(seeds=0), dict(alpha=0.0),
                                       dict(n_hiddens=()), dict(schedule="linear")])
def test_copy_config_rejects_bad_settings(overrides):
    with pytest.raises(ValueError):
        ex.CopyConfig.preset("ci", **overrides)


@pytest.mark.parametrize("overrides", [dict(tasks=("copy",)), dict(tasks=("flipflop", "flipflop")),
                                       dict(n_hidden=-3), dict(eval_batch=0)])
def test_neuro_config_rejects_bad_settings(overrides):
    with pytest.raises(ValueError):
        ex.NeuroConfig.preset("ci", **overrides)


def test_example_rollout_shapes_and_bounds():
    w = _weights()
    ex_ = ex.example_rollout(w, "copy", ("CR",), 0.9, instance=1)
    assert ex_["full"].shape == ex_["ablated"].shape == ex_["targets"].shape == (136, 8)
    assert not np.allclose(ex_["full"], ex_["ablated"])
    with pytest.raises(ValueError, match="instance"):
        ex.example_rollout(w, "copy", ("CR",), 0.9, instance=2)
    for bad in (("XX",), "CR"):
        with pytest.raises(ValueError, match="subset"):
            ex.example_rollout(w, "copy", bad, 0.9)
