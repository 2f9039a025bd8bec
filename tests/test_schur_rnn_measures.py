"""Unit tests for the measures of the Schur-RNN study: the ordered real Schur form, the coupling
ablations and the ablation metrics (Draeger 2026, §3), the ablation profile and its readings (§4)."""

import itertools
import time

import numpy as np
import pytest
import scipy.linalg
import torch
from scipy.optimize import linear_sum_assignment

from interp_repro.core import numpy_rng, torch_generator
from interp_repro.schur_rnn import measures
from interp_repro.schur_rnn.data import copy_batch, make_batch
from interp_repro.schur_rnn.experiments import PAPER_COPY_ACCURACY
from interp_repro.schur_rnn.measures import (
    ABLATION_BLOCKS,
    TIE_RTOL,
    SchurReorderError,
    ablate,
    ablate_T,
    delta_fvu,
    fvu,
    ordered_real_schur,
    schur_blocks,
    schur_mass_removed,
    sensitivity,
    split_indices,
    split_interval,
)
from interp_repro.schur_rnn.train import masked_mse

N = 72
KINDS = ("gaussian", "uniform", "orthogonal", "normal")
SUBSETS = [set(c) for k in range(4) for c in itertools.combinations(ABLATION_BLOCKS, k)]


def block_moduli(T) -> np.ndarray:
    """|lambda| of each diagonal block of T, top to bottom: |t| for a 1x1 block, sqrt(|det|) for a 2x2 one."""
    def modulus(s, k):
        return abs(T[s, s]) if k == 1 else np.sqrt(abs(T[s, s] * T[s + 1, s + 1] - T[s, s + 1] * T[s + 1, s]))

    return np.array([modulus(s, k) for s, k in schur_blocks(T)])


def coupling_norm(T) -> float:
    """||N||_F / ||T||_F: the share of T off its diagonal blocks; 0 for T = 0."""
    blocks = np.zeros_like(T)
    for s, k in schur_blocks(T):
        blocks[s:s + k, s:s + k] = T[s:s + k, s:s + k]
    total = np.linalg.norm(T)
    return 0.0 if total == 0 else float(np.linalg.norm(T - blocks) / total)


def orthogonal(n: int, rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def rotation_block(a: float, b: float) -> np.ndarray:
    return np.array([[a, -b], [b, a]])


def random_matrix(kind: str, seed: int, n: int = N) -> np.ndarray:
    """The four initialisations of the fact sheet (Gaussian stands in for a trained dense W)."""
    rng = numpy_rng(seed)
    m = n**-0.5
    if kind == "gaussian":
        return rng.standard_normal((n, n)) * m
    if kind == "uniform":
        return rng.uniform(-m, m, (n, n))
    if kind == "orthogonal":
        return orthogonal(n, rng)
    q = orthogonal(n, rng)
    ab = rng.normal(0.0, 6**-0.5, (n // 2, 2))
    return q @ scipy.linalg.block_diag(*(rotation_block(a, b) for a, b in ab)) @ q.T


def assert_same_spectrum(A: np.ndarray, B: np.ndarray, rtol: float = 1e-8) -> None:
    """Eigenvalues of A and B agree as multisets (matched by a minimum-cost assignment)."""
    ea, eb = np.linalg.eigvals(A), np.linalg.eigvals(B)
    rows, cols = linear_sum_assignment(np.abs(ea[:, None] - eb[None, :]))
    scale = max(np.abs(ea).max(), 1.0)
    assert np.abs(ea[rows] - eb[cols]).max() <= rtol * scale


def assert_ordered_schur(W: np.ndarray, Q: np.ndarray, T: np.ndarray) -> None:
    n = W.shape[0]
    assert np.linalg.norm(Q @ T @ Q.T - W) <= 1e-10 * np.linalg.norm(W)
    assert np.abs(Q.T @ Q - np.eye(n)).max() < 1e-12
    assert not np.tril(T, -2).any()
    sub = np.diag(T, -1) != 0
    assert not (sub[1:] & sub[:-1]).any()
    for start, size in schur_blocks(T):
        if size == 2:  # LAPACK's standard form: equal diagonal, off-diagonals of opposite signs
            assert T[start, start] == T[start + 1, start + 1]
            assert T[start, start + 1] * T[start + 1, start] < 0
    moduli = block_moduli(T)
    assert np.diff(moduli).max(initial=0.0) <= TIE_RTOL * np.linalg.norm(T)
    assert_same_spectrum(T, W)


# --- ordered Schur form ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ordered_schur_random(kind, seed):
    W = random_matrix(kind, seed)
    Q, T = ordered_real_schur(W)
    assert_ordered_schur(W, Q, T)


def test_ordered_schur_actually_reorders():
    W = random_matrix("gaussian", 0)
    T_lapack, _ = scipy.linalg.schur(W, output="real")
    unsorted = block_moduli(T_lapack)
    assert np.diff(unsorted).max() > 0.1  # LAPACK's own order is not by modulus
    moduli = block_moduli(ordered_real_schur(W)[1])
    np.testing.assert_allclose(moduli, np.sort(unsorted)[::-1], rtol=1e-10)


def test_hand_made_order():
    """0.5, a (non-normal) pair +-2i and -1.5, scrambled by a known orthogonal similarity."""
    B = scipy.linalg.block_diag(0.5, np.array([[0.0, 4.0], [-1.0, 0.0]]), -1.5)
    U = orthogonal(4, numpy_rng(7))
    W = U @ B @ U.T
    Q, T = ordered_real_schur(W)
    assert_ordered_schur(W, Q, T)
    assert schur_blocks(T) == [(0, 2), (2, 1), (3, 1)]
    np.testing.assert_allclose(block_moduli(T), [2.0, 1.5, 0.5], rtol=1e-12)
    np.testing.assert_allclose(np.diag(T)[2:], [-1.5, 0.5], rtol=1e-12)
    assert split_indices(T, 0.9) == 2
    assert split_indices(T, 0.7) == 3
    assert split_indices(T, 0.2) == 4
    assert split_indices(T, 1.0) == 2
    # moduli / rho: 1, 1, 0.75, 0.25: every alpha in (0.75, 1] gives R = the pair, (0.25, 0.75] adds -1.5
    np.testing.assert_allclose(split_interval(W, 0.9), (0.75, 1.0), rtol=1e-12)
    np.testing.assert_allclose(split_interval(W, 0.7), (0.25, 0.75), rtol=1e-12)
    np.testing.assert_allclose(split_interval(W, 0.2), (0.0, 0.25), rtol=1e-12)
    for alpha in (0.76, 0.9, 1.0):
        assert split_indices(T, alpha) == 2


def test_shared_split_interval_is_where_every_matrix_splits_as_alpha_does():
    """Moduli / rho of the two matrices: 1, 0.95, 0.5 and 1, 0.92, 0.7; at alpha = 0.9 both put the
    two largest in R, and so does every alpha' in (0.7, 0.92], the overlap of (0.5, 0.95] and (0.7, 0.92]."""
    U = orthogonal(3, numpy_rng(2))
    W_hh = np.stack([U @ np.diag(d) @ U.T for d in ([2.0, -1.9, 1.0], [-1.0, 0.92, 0.7])])
    lo, hi = measures.shared_split_interval(W_hh, 0.9)
    assert (lo, hi) == pytest.approx((0.7, 0.92), rel=1e-12)
    def same_split(a):
        return all((measures.eigen_split(W, a)[1] == measures.eigen_split(W, 0.9)[1]).all() for W in W_hh)

    assert same_split(0.71) and same_split(0.92) and not same_split(0.69) and not same_split(0.93)
    assert measures.shared_split_interval(W_hh[:1], 0.9) == pytest.approx(split_interval(W_hh[0], 0.9))
    with pytest.raises(ValueError, match="W_hh must be a non-empty 3-D array"):
        measures.shared_split_interval(W_hh[0], 0.9)


def test_ties_keep_lapack_order_and_are_deterministic():
    U = orthogonal(5, numpy_rng(3))
    W = U @ np.diag([0.3, -1.0, 0.7, 1.0, 0.1]) @ U.T
    Q1, T1 = ordered_real_schur(W)
    Q2, T2 = ordered_real_schur(W)
    np.testing.assert_array_equal(T1, T2)
    np.testing.assert_array_equal(Q1, Q2)
    assert_ordered_schur(W, Q1, T1)
    T_lapack, _ = scipy.linalg.schur(W, output="real")
    d = np.diag(T_lapack)
    lapack_ties = d[np.isclose(np.abs(d), 1.0)]
    np.testing.assert_allclose(np.diag(T1)[:2], lapack_ties, rtol=1e-12)
    np.testing.assert_allclose(np.abs(np.diag(T1)), [1.0, 1.0, 0.7, 0.3, 0.1], rtol=1e-12)


def test_blocks_too_close_to_swap_raise():
    """Two near-real complex pairs with strong coupling: dtrexc cannot swap them (info=1)."""
    T0 = np.array([[1.04915, 1.13119, 18.9946, 13.3699],
                   [-8.00534e-08, 1.04915, -3.33891, 15.4704],
                   [0.0, 0.0, 1.04916, 233.594],
                   [0.0, 0.0, -3.87662e-10, 1.04916]])
    moduli = block_moduli(T0)
    assert moduli[1] > moduli[0] + 1e-6  # a real order to restore, not a tie
    with pytest.raises(SchurReorderError, match=r"could not swap.*1\.04916.*1\.04915"):
        ordered_real_schur(T0)
    assert issubclass(SchurReorderError, ValueError)


def test_trexc_failure_is_never_silent(monkeypatch):
    def refuse(a, q, ifst, ilst, **kwargs):
        return a, q, 1

    monkeypatch.setattr(scipy.linalg.lapack, "dtrexc", refuse)
    with pytest.raises(SchurReorderError, match=r"info=1.*\|lambda\| = 1\.5.* \|lambda\| = 0\.5"):
        ordered_real_schur(np.diag([0.5, 1.5]))


# --- ablations ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["gaussian", "uniform"])
@pytest.mark.parametrize("blocks", SUBSETS, ids=lambda s: "-".join(sorted(s)) or "none")
def test_ablations_keep_spectrum(kind, blocks):
    W = random_matrix(kind, 4)
    W_ablated = ablate(W, blocks)
    assert_same_spectrum(W_ablated, W)
    if blocks:
        assert np.linalg.norm(W_ablated - W) > 1e-3 * np.linalg.norm(W)


@pytest.mark.parametrize("seed", [0, 1])
def test_removing_cr_is_a_projector_product(seed):
    W = random_matrix("gaussian", seed)
    Q, T = ordered_real_schur(W)
    r = split_indices(T)
    assert 0 < r < N
    P_R = Q[:, :r] @ Q[:, :r].T
    P_C = np.eye(N) - P_R
    expected = W - P_R @ W @ P_C
    assert np.linalg.norm(ablate(W, {"CR"}) - expected) <= 1e-10 * np.linalg.norm(W)


def test_ablate_T_zeroes_the_named_parts():
    W = random_matrix("uniform", 5)
    _, T = ordered_real_schur(W)
    r = split_indices(T)
    diag_part = ablate_T(T, r, ABLATION_BLOCKS)
    for start, size in schur_blocks(T):
        sl = slice(start, start + size)
        np.testing.assert_array_equal(diag_part[sl, sl], T[sl, sl])
    assert coupling_norm(diag_part) == 0.0
    removed = T - ablate_T(T, r, ["CR"])
    np.testing.assert_array_equal(removed[:r, r:], T[:r, r:])
    assert not removed[:r, :r].any() and not removed[r:].any()
    rr, cc = T - ablate_T(T, r, ("RR",)), T - ablate_T(T, r, {"CC"})
    assert not rr[r:].any() and not rr[:, r:].any() and rr[:r, :r].any()
    assert not cc[:r].any() and not cc[:, :r].any() and cc[r:, r:].any()
    np.testing.assert_allclose(schur_mass_removed(T, diag_part), coupling_norm(T), rtol=1e-12)


def test_empty_ablation_is_identity():
    W = random_matrix("gaussian", 6)
    assert np.linalg.norm(ablate(W, set()) - W) <= 1e-12 * np.linalg.norm(W)
    _, T = ordered_real_schur(W)
    np.testing.assert_array_equal(ablate_T(T, split_indices(T), ()), T)


def test_removing_all_coupling_keeps_2x2_non_normality():
    """B keeps each 2x2 block's non-normality, so zeroing all of N does not make W normal."""
    T0 = scipy.linalg.block_diag(np.array([[0.2, 3.0], [-0.5, 0.2]]), 0.9, rotation_block(0.1, 0.6), -0.3)
    T0 += np.triu(numpy_rng(8).standard_normal((6, 6)), 2)  # coupling only: blocks are at most 2x2
    U = orthogonal(6, numpy_rng(9))
    W = U @ T0 @ U.T
    Q, T = ordered_real_schur(W)
    B = ablate_T(T, split_indices(T), ABLATION_BLOCKS)
    W_diag = ablate(W, set(ABLATION_BLOCKS))
    np.testing.assert_allclose(W_diag, Q @ B @ Q.T, atol=1e-12)
    two_by_two = [(s, B[s, s + 1], B[s + 1, s]) for s, size in schur_blocks(B) if size == 2]
    assert any(abs(abs(b) - abs(c)) > 0.5 for _, b, c in two_by_two)
    commutator = W_diag @ W_diag.T - W_diag.T @ W_diag
    assert np.linalg.norm(commutator) > 0.1 * np.linalg.norm(W_diag) ** 2
    assert_same_spectrum(W_diag, W)


@pytest.mark.parametrize("seed", [0, 1])
def test_normal_matrix_has_no_coupling(seed):
    W = random_matrix("normal", seed)
    _, T = ordered_real_schur(W)
    assert coupling_norm(T) < 1e-8
    for blocks in SUBSETS:
        assert np.linalg.norm(ablate(W, blocks) - W) < 1e-8 * np.linalg.norm(W)


# --- bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("W, message", [
    (np.zeros((3, 4)), "square"),
    (np.zeros(3), "2-D"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "finite"),
    (np.array([[1.0, np.inf], [0.0, 1.0]]), "finite"),
    (np.eye(2) * 1j, "real"),
    (np.zeros((0, 0)), "non-empty"),
])
def test_bad_matrix(W, message):
    with pytest.raises(ValueError, match=message):
        ordered_real_schur(W)


@pytest.mark.parametrize("alpha", [0, 0.0, 1.5, -0.1, True, "0.9"])
def test_bad_alpha(alpha):
    _, T = ordered_real_schur(random_matrix("gaussian", 0, 6))
    with pytest.raises(ValueError, match="alpha must"):
        split_indices(T, alpha)


def test_bad_block_names():
    W = random_matrix("gaussian", 0, 6)
    with pytest.raises(ValueError, match=r"unknown ablation block\(s\) \['XX'\].*'RR', 'CR', 'CC'"):
        ablate(W, {"XX", "RR"})
    with pytest.raises(ValueError, match="collection of names"):
        ablate(W, "RR")


def test_bad_T():
    with pytest.raises(ValueError, match="quasi-upper-triangular"):
        schur_blocks(np.tril(np.ones((4, 4))))
    with pytest.raises(ValueError, match="2x2 diagonal blocks only"):
        schur_blocks(np.triu(np.ones((3, 3)), -1))
    with pytest.raises(ValueError, match="not ordered"):
        split_indices(np.diag([0.1, 1.0]))
    _, T = ordered_real_schur(scipy.linalg.block_diag(rotation_block(0.0, 1.0), 0.5))
    with pytest.raises(ValueError, match=r"block boundary of T, one of \[0, 2, 3\], got 1"):
        ablate_T(T, 1, {"CR"})


# --- metrics --------------------------------------------------------------------------------------

def test_fvu_and_sensitivity():
    y = numpy_rng(0).standard_normal((5, 7, 3))
    assert fvu(y, y) == 0.0
    mean = np.broadcast_to(y.reshape(-1, 3).mean(0), y.shape)
    assert fvu(mean, y) == pytest.approx(1.0, rel=1e-12)
    assert fvu(np.zeros(4), np.array([1.0, -1.0, 1.0, -1.0])) == pytest.approx(1.0)
    assert delta_fvu(fvu(mean, y), fvu(y, y)) == pytest.approx(1.0, rel=1e-12)
    assert sensitivity(0.3, 0.1) == pytest.approx(3.0)
    assert np.isnan(sensitivity(0.3, 0.0))
    spread = sensitivity(np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([[0.1, 0.0], [0.5, 0.2]]))
    np.testing.assert_allclose(spread, [[3.0, np.nan], [1.0, 0.5]])
    with pytest.raises(ValueError, match="non-negative"):
        sensitivity(0.3, -0.1)
    with pytest.raises(ValueError, match="non-negative"):
        sensitivity(np.ones(2), np.array([0.1, np.nan]))
    with pytest.raises(ValueError, match="constant target"):
        fvu(np.zeros((4, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="same shape"):
        fvu(np.zeros((4, 2)), np.ones((4, 3)))
    T = np.triu(np.ones((3, 3)))
    assert schur_mass_removed(T, T) == 0.0
    assert schur_mass_removed(T, np.eye(3)) == pytest.approx(np.sqrt(3 / 6))


def test_speed_report():
    """Median time of ordered_real_schur on a 72x72 Gaussian matrix (budget 50 ms; not asserted)."""
    W = random_matrix("gaussian", 11)
    times = []
    for _ in range(20):
        start = time.perf_counter()
        ordered_real_schur(W)
        times.append(time.perf_counter() - start)
    print(f"ordered_real_schur 72x72: median {1e3 * np.median(times):.2f} ms over 20 calls")


# --- ablated matrices and the ablation profile ----------------------------------------------------

def _weights(K=2, n=10, n_in=8, n_out=8, seed=0):
    rng = numpy_rng(seed)
    return {"W_xh": rng.normal(0, 0.5, (K, n, n_in)).astype(np.float32),
            "W_hh": rng.normal(0, 1.2 / np.sqrt(n), (K, n, n)),
            "W_hy": rng.normal(0, 0.5, (K, n_out, n)).astype(np.float32)}


def test_subset_index_names_every_ablation_of_figure_1():
    assert [measures.subset_index(s) for s in measures.SUBSETS] == list(range(8))
    assert measures.subset_index({"CC", "RR"}) == measures.SUBSETS.index(("RR", "CC"))
    assert measures.subset_index(()) == 0 and measures.subset_index(ABLATION_BLOCKS) == 7
    with pytest.raises(ValueError, match="choose a subset"):
        measures.subset_index(("XX",))
    with pytest.raises(ValueError, match="collection of names"):
        measures.subset_index("CR")


def test_ablated_matrices_keep_w_for_the_empty_subset_and_split_the_mass():
    W = _weights()["W_hh"]
    mats, mass, r, parts = measures.ablated_matrices(W, 0.9)
    assert mats.shape == (8, 2, 10, 10) and mass.shape == (8, 2) and parts.shape == (2, 4)
    np.testing.assert_allclose(mats[0], W, atol=1e-12)
    assert np.all(mass[0] == 0)
    np.testing.assert_allclose(parts.sum(axis=1), 1.0)
    for k in range(2):
        Q, T = ordered_real_schur(W[k])
        assert r[k] == split_indices(T, 0.9)
        for i, subset in enumerate(measures.SUBSETS):  # the matrices and masses of the definitions
            T_ablated = ablate_T(T, r[k], subset)
            np.testing.assert_array_equal(mats[i, k], Q @ T_ablated @ Q.T)
            assert mass[i, k] == schur_mass_removed(T, T_ablated)
    # removed mass squared = the removed parts' shares, since the parts are disjoint
    share = dict(zip(measures.PARTS, parts.T, strict=True))
    for i, subset in enumerate(measures.SUBSETS):
        np.testing.assert_allclose(mass[i] ** 2, sum((share[b] for b in subset), np.zeros(2)), atol=1e-12)
    # every ablation keeps the spectrum
    for i in range(8):
        np.testing.assert_allclose(np.sort(np.abs(np.linalg.eigvals(mats[i, 0]))),
                                   np.sort(np.abs(np.linalg.eigvals(W[0]))), atol=1e-8)


def test_ablation_profile_scores_every_subset():
    prof = measures.ablation_profile(_weights(), "copy", 0.9, seed=3, batch=16)
    for name in ("fvu", "delta_fvu", "mass", "sensitivity", "accuracy"):
        assert prof[name].shape == (8, 2)
    assert np.all(prof["delta_fvu"][0] == 0) and np.all(np.isnan(prof["sensitivity"][0]))
    assert np.all((prof["accuracy"] >= 0) & (prof["accuracy"] <= 1))
    np.testing.assert_array_equal(prof["delta_fvu"], prof["fvu"] - prof["fvu"][0])
    np.testing.assert_array_equal(prof["sensitivity"][1:], prof["delta_fvu"][1:] / prof["mass"][1:])
    again = measures.ablation_profile(_weights(), "copy", 0.9, seed=3, batch=16)
    for name in prof:
        np.testing.assert_array_equal(prof[name], again[name])
    other = measures.ablation_profile(_weights(n_in=3, n_out=3), "flipflop", 0.9, seed=3, batch=8)
    assert "accuracy" not in other and other["fvu"].shape == (8, 2)


def test_normal_matrix_ablations_do_nothing():
    rng = numpy_rng(1)
    Q, _ = np.linalg.qr(rng.normal(size=(10, 10)))
    D = np.diag(rng.uniform(0.2, 1.0, 10))
    w = _weights()
    w["W_hh"] = np.stack([Q @ D @ Q.T, Q @ D @ Q.T])
    prof = measures.ablation_profile(w, "copy", 0.9, seed=0, batch=8)
    assert np.abs(prof["delta_fvu"]).max() < 1e-6
    assert np.abs(prof["mass"]).max() < 1e-8
    assert measures.largest_change(prof["fvu"]) < 1e-6


def test_example_rollout_shapes_and_bounds():
    w = _weights()
    example = measures.example_rollout(w, "copy", ("CR",), 0.9, instance=1)
    assert example["full"].shape == example["ablated"].shape == example["targets"].shape == (136, 8)
    assert not np.allclose(example["full"], example["ablated"])
    unablated = measures.example_rollout(w, "copy", (), 0.9, instance=1)
    np.testing.assert_array_equal(unablated["full"], unablated["ablated"])
    with pytest.raises(ValueError, match="instance"):
        measures.example_rollout(w, "copy", ("CR",), 0.9, instance=2)
    with pytest.raises(ValueError, match="choose a subset"):
        measures.example_rollout(w, "copy", ("XX",), 0.9)
    with pytest.raises(ValueError, match="collection of names"):
        measures.example_rollout(w, "copy", "CR", 0.9)


def test_replay_accuracy_counts_sign_matches():
    _, targets, mask = copy_batch(3, torch_generator(1), replay=16)
    assert measures.replay_accuracy(targets * 0.3, targets, mask) == 1.0
    assert measures.replay_accuracy(-targets, targets, mask) == 0.0
    stacked = torch.stack([targets, -targets])
    assert torch.equal(measures.replay_accuracy(stacked, targets, mask), torch.tensor([1.0, 0.0]))


# --- reading profiles -----------------------------------------------------------------------------

def test_copy_profile_readings():
    paper = np.array(PAPER_COPY_ACCURACY)
    assert measures.cc_pairs_gap(paper) == pytest.approx(0.001)
    assert measures.accuracy_drop(paper, {"RR"}) == pytest.approx(0.124)
    assert measures.accuracy_drop(paper, {"CR"}) == pytest.approx(0.361)
    assert measures.cr_lowest(paper)
    assert measures.profile_holds(paper)
    no_gap = paper.copy()
    no_gap[2] = 0.99  # -T_RR barely hurts
    assert not measures.profile_holds(no_gap)
    cc_matters = paper.copy()
    cc_matters[1] = 0.9
    assert not measures.profile_holds(cc_matters)
    cr_not_lowest = paper.copy()
    cr_not_lowest[6] = 0.9
    assert not measures.cr_lowest(cr_not_lowest) and not measures.profile_holds(cr_not_lowest)


def test_stabilizer_sets():
    profile = {"delta_fvu": np.array([[0, 0], [0.001, 0.5], [0.2, 0.005], [0.2, 0.6], [1, 1], [1, 1],
                                      [1, 1], [1, 1]]),
               "mass": np.array([[0, 0]] + [[0.1, 0.1]] * 7)}
    assert measures.stabilizer_sets(profile) == [frozenset({1}), frozenset({2})]
    assert measures.stabilizer_sets(profile, eps=0.6) == [frozenset({1, 2, 3}), frozenset({1, 2, 3})]
    assert measures.seed_dependent_units([profile]) == 1
    agree = {"delta_fvu": profile["delta_fvu"].copy(), "mass": profile["mass"].copy()}
    agree["delta_fvu"][2, 1] = 0.5  # seed 1 loses its stabilizer -T_RR
    agree["delta_fvu"][1, 1] = 0.0  # and gains -T_CC, the one seed 0 has
    assert measures.seed_dependent_units([profile, agree]) == 1
    assert measures.distinct_stabilizer_profiles({"a": [profile], "b": [agree], "c": [agree, agree]}) == 2
    profile["mass"][1, 0] = 0.0  # an ablation that removes nothing is no stabilizer
    assert measures.stabilizer_sets(profile) == [frozenset(), frozenset({2})]
    with pytest.raises(ValueError):
        measures.stabilizer_sets(profile, eps=-1)


def test_seed_readings():
    fvus = np.array([[0.05, 0.2, 0.01], [0.3, 0.4, 0.02]])
    assert measures.largest_change(fvus) == pytest.approx(0.25)
    assert measures.seed_spread(fvus) == pytest.approx(0.38)
    assert measures.task_learned(fvus[0]) and not measures.every_seed_learned(fvus[0])
    assert measures.every_seed_learned(np.array([0.1, 0.0]))
    assert not measures.task_learned(fvus[1])


def test_seeds_within_counts_the_seeds_near_each_paper_level():
    paper = np.array(PAPER_COPY_ACCURACY)
    # 3 seeds: on the level, 0.04 below it, 0.06 above it (clipped to 1 for the full model's rows)
    acc = np.stack([paper, paper - 0.04, np.minimum(paper + 0.06, 1.0)], axis=1)
    assert measures.seeds_within(acc, paper).tolist() == [3, 3, 2, 2, 2, 2, 2, 2]
    assert measures.seeds_within(acc, paper, tol=0.01).tolist() == [2, 2, 1, 1, 1, 1, 1, 1]
    assert measures.seeds_within(acc, paper, tol=0.1).tolist() == [3] * 8
    edge = np.array([[0.926, 0.826, 0.9261]])  # the claims' band edges around 0.876 count as within
    assert measures.seeds_within(edge, [0.876]).tolist() == [2]
    assert measures.PAPER_LEVEL_TOL == 0.05


@pytest.mark.parametrize(("args", "message"), [
    ((np.ones(8), PAPER_COPY_ACCURACY), "accuracy must be a non-empty 2-D array"),
    ((np.ones((8, 3)), PAPER_COPY_ACCURACY[:7]), r"one level per row of accuracy \(8\), got 7"),
    ((np.ones((8, 3)), PAPER_COPY_ACCURACY, -0.1), "tol must be a finite number >= 0, got -0.1"),
    ((np.full((8, 3), np.nan), PAPER_COPY_ACCURACY), "accuracy must be finite, got 24 NaN"),
])
def test_seeds_within_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        measures.seeds_within(*args)


def test_the_seed_strip_plot_shows_every_seed_and_the_counts():
    import matplotlib.pyplot as plt

    from interp_repro.schur_rnn import plots

    paper = np.array(PAPER_COPY_ACCURACY)
    acc = np.stack([paper, paper - 0.04, np.minimum(paper + 0.06, 1.0)], axis=1)
    fig = plots.seed_strip(acc, PAPER_COPY_ACCURACY)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.texts] == ["3/3", "3/3"] + ["2/3"] * 6
    seeds = ax.collections[-2].get_offsets()  # one dot per seed per subset
    assert seeds.shape == (24, 2) and np.allclose(np.sort(seeds[:, 1]), np.sort(acc.ravel()))
    plt.close(fig)


@pytest.mark.parametrize("task", ["flipflop", "sine", "context", "copy"])
def test_target_variance_turns_a_masked_mse_into_the_fvu(task):
    inputs, targets, mask = make_batch(task, 64, torch_generator(3))
    noisy = targets + 0.1 * torch.randn(targets.shape, generator=torch_generator(4))
    keep = mask.bool()
    variance = measures.target_variance(task, seed=3, batch=64)
    mse = masked_mse(noisy.unsqueeze(0), targets, mask)[0].item()
    assert mse / variance == pytest.approx(fvu(noisy[keep].numpy(), targets[keep].numpy()), rel=1e-5)
    with pytest.raises(ValueError, match="batch"):
        measures.target_variance(task, seed=3, batch=0)
