"""Unit tests for the measures of modular-addition networks (Moisescu-Pareja et al. 2025; Zhong et al.
2023 for distance irrelevance), on synthetic neurons with known structure."""

import itertools
from collections import deque
from types import SimpleNamespace

import numpy as np
import pytest

from interp_repro.core import Unit, numpy_rng, pca_variance
from interp_repro.modular_addition.measures import (
    algorithm,
    betti_fraction,
    betti_vector_counts,
    cluster_cloud,
    clusters,
    dft_power,
    disc_fraction,
    distance_irrelevance,
    distance_test,
    embedding_spectrum,
    first_step_at,
    key_frequencies,
    linear_cka,
    logit_cloud,
    logit_pizza_correlation,
    mean_cka,
    mmd_permutation_test,
    network_summary,
    pad_diagonal_share,
    pad_test,
    phase_alignment,
    reference_circle,
    reference_disc,
    reference_torus,
    rsm_correlation,
    settled_at,
    simple_neuron_fit,
    torus_distance,
    torus_embedding,
)

P = 31


def grid(p: int = P) -> tuple[np.ndarray, np.ndarray]:
    """a and b as (p, p, 1) arrays indexed [a, b, neuron]."""
    a, b = np.meshgrid(np.arange(p), np.arange(p), indexing="ij")
    return a[..., None], b[..., None]


def simple_neurons(freqs, phi_l, phi_r, amp_l=1.0, amp_r=1.0, const=0.0, p: int = P) -> np.ndarray:
    """(p, p, n) pre-activations c + A_L cos(2 pi f a / p + phi_L) + A_R cos(2 pi f b / p + phi_R)."""
    a, b = grid(p)
    t = 2 * np.pi * np.asarray(freqs) / p
    return const + amp_l * np.cos(t * a + phi_l) + amp_r * np.cos(t * b + phi_r)


def angle_diff(x, y) -> np.ndarray:
    return np.abs(np.angle(np.exp(1j * (np.asarray(x) - np.asarray(y)))))


# ------------------------------------------------------------------ Fourier structure and clusters


def test_dft_power_removes_the_mean_and_locates_a_pure_cosine():
    a, b = grid()
    x = np.concatenate([5.0 + np.cos(2 * np.pi * 3 * a / P + 0.4) + 0 * b,
                        numpy_rng(0).standard_normal((P, P, 1))], axis=2)
    power = dft_power(x)
    assert power.shape == (P, P, 2)
    np.testing.assert_allclose(power[0, 0], 0.0, atol=1e-18)
    # a cosine in a alone puts all its power at (3, 0) and (-3, 0)
    np.testing.assert_allclose(power[3, 0, 0] + power[-3, 0, 0], power[..., 0].sum())
    # Parseval for the unnormalised fft2
    centred = x - x.mean(axis=(0, 1))
    np.testing.assert_allclose(power.sum(axis=(0, 1)), P * P * (centred**2).sum(axis=(0, 1)))


def test_key_frequencies_recovers_planted_frequencies_with_noise_clock_terms_and_distractors():
    rng = numpy_rng(1)
    n = 40
    freqs = rng.integers(1, P // 2 + 1, n)
    freqs[:2] = [1, P // 2]
    distract = (freqs - 1 + rng.integers(1, P // 2, n)) % (P // 2) + 1  # a different frequency
    assert (distract != freqs).all()
    a, b = grid()
    t, s = 2 * np.pi * freqs / P, 2 * np.pi * distract / P
    x = (simple_neurons(freqs, rng.uniform(-np.pi, np.pi, n), rng.uniform(-np.pi, np.pi, n),
                        rng.uniform(0.5, 2.0, n), rng.uniform(0.5, 2.0, n), rng.normal(0, 3, n))
         + 0.8 * np.cos(t * (a + b) + rng.uniform(-np.pi, np.pi, n))  # a "clock" (f, f) term
         + 0.4 * np.cos(s * a + s * b)  # a weaker neuron at another frequency
         + 0.3 * rng.standard_normal((P, P, n)))
    got = key_frequencies(x)
    assert got.dtype.kind == "i"
    np.testing.assert_array_equal(got, freqs)


def test_key_frequencies_sees_pure_clock_and_difference_terms_and_even_p():
    a, b = grid()
    x = np.concatenate([np.cos(2 * np.pi * 7 * (a + b) / P), np.sin(2 * np.pi * 4 * (a - b) / P)], axis=2)
    np.testing.assert_array_equal(key_frequencies(x), [7, 4])
    a8, b8 = grid(8)
    even = np.concatenate([np.cos(np.pi * a8) + 0 * b8, np.cos(2 * np.pi * 3 * b8 / 8) + 0 * a8], axis=2)
    np.testing.assert_array_equal(key_frequencies(even), [4, 3])


def test_key_frequencies_gives_a_constant_neuron_frequency_one():
    np.testing.assert_array_equal(key_frequencies(np.full((5, 5, 2), 3.0)), [1, 1])


def test_clusters_groups_sorts_and_drops_small_clusters():
    freqs = np.array([5, 2, 5, 9, 2, 5])
    got = clusters(freqs)
    assert list(got) == [2, 5, 9]
    np.testing.assert_array_equal(got[2], [1, 4])
    np.testing.assert_array_equal(got[5], [0, 2, 5])
    np.testing.assert_array_equal(got[9], [3])
    big = clusters(freqs, min_size=2)
    assert list(big) == [2, 5]
    assert clusters(freqs, min_size=4) == {}


@pytest.mark.parametrize("freqs, min_size", [([1.5, 2.0], 1), ([[1, 2]], 1), ([1, 2], 0), ([1, 2], 1.0)])
def test_clusters_rejects_bad_input(freqs, min_size):
    with pytest.raises(ValueError):
        clusters(freqs, min_size)


# ------------------------------------------------------------------ simple-neuron fit


def test_simple_neuron_fit_recovers_phases_and_amplitudes():
    rng = numpy_rng(2)
    n = 30
    freqs = rng.integers(1, P // 2 + 1, n)
    phi_l, phi_r = rng.uniform(-np.pi, np.pi, n), rng.uniform(-np.pi, np.pi, n)
    phi_l[0], phi_r[0] = np.pi, -np.pi / 2
    amp_l, amp_r = rng.uniform(0.5, 2.0, n), rng.uniform(0.5, 2.0, n)
    x = simple_neurons(freqs, phi_l, phi_r, amp_l, amp_r, rng.normal(0, 2, n))
    x = x + 0.05 * rng.standard_normal(x.shape)
    fit = simple_neuron_fit(x, key_frequencies(x))
    assert set(fit) == {"r2", "phi_L", "phi_R", "amp_L", "amp_R"}
    assert (fit["r2"] > 0.99).all()
    assert (angle_diff(fit["phi_L"], phi_l) < 0.02).all()
    assert (angle_diff(fit["phi_R"], phi_r) < 0.02).all()
    np.testing.assert_allclose(fit["amp_L"], amp_l, atol=0.02)
    np.testing.assert_allclose(fit["amp_R"], amp_r, atol=0.02)
    for key in ("phi_L", "phi_R"):
        assert ((fit[key] > -np.pi) & (fit[key] <= np.pi)).all()


def test_simple_neuron_fit_phase_of_minus_cosine_is_pi_not_minus_pi():
    a, b = grid()
    x = -np.cos(2 * np.pi * 3 * a / P) - np.cos(2 * np.pi * 3 * b / P)
    fit = simple_neuron_fit(x, [3])
    np.testing.assert_allclose(np.abs(fit["phi_L"]), np.pi, atol=1e-12)
    assert (fit["phi_L"] > -np.pi).all() and (fit["phi_R"] > -np.pi).all()
    # f = p / 2 for even p: the sin terms vanish and arctan2 would give exactly -pi
    a8, b8 = grid(8)
    fit8 = simple_neuron_fit(-np.cos(np.pi * a8) - np.cos(np.pi * b8), [4])
    assert fit8["phi_L"][0] == np.pi and fit8["phi_R"][0] == np.pi
    np.testing.assert_allclose(fit8["amp_L"], 1.0)


def test_simple_neuron_fit_has_low_r2_for_noise_and_one_for_constants():
    noise = numpy_rng(3).standard_normal((P, P, 8))
    r2 = simple_neuron_fit(noise, key_frequencies(noise))["r2"]
    assert (r2 < 0.05).all()
    const = simple_neuron_fit(np.full((P, P, 1), 2.5), [4])
    np.testing.assert_array_equal(const["r2"], [1.0])
    np.testing.assert_allclose(const["amp_L"], 0.0, atol=1e-12)


def test_simple_neuron_fit_uses_the_given_frequency():
    x = simple_neurons([3], 0.3, 1.1)
    assert simple_neuron_fit(x, [3])["r2"][0] > 0.999
    assert simple_neuron_fit(x, [4])["r2"][0] < 0.01


@pytest.mark.parametrize("freqs", [[3, 3], [0], [P // 2 + 1], [2.0]])
def test_simple_neuron_fit_rejects_bad_frequencies(freqs):
    with pytest.raises(ValueError):
        simple_neuron_fit(simple_neurons([3], 0.0, 0.0), freqs)


# ------------------------------------------------------------------ point clouds, PCA, CKA


def test_cluster_cloud_is_row_major():
    x = numpy_rng(4).standard_normal((P, P, 6))
    cloud = cluster_cloud(x, [4, 1])
    assert cloud.shape == (P * P, 2)
    for a, b in [(0, 0), (0, 5), (7, 3), (P - 1, P - 1)]:
        np.testing.assert_array_equal(cloud[a * P + b], x[a, b, [4, 1]])


@pytest.mark.parametrize("neurons", [[], [6], [-1], [0.5], [[0, 1]]])
def test_cluster_cloud_rejects_bad_neurons(neurons):
    with pytest.raises(ValueError):
        cluster_cloud(np.zeros((P, P, 6)), neurons)


def cluster(independent: bool, seed: int, n: int = 12, f: int = 5) -> np.ndarray:
    """The point cloud of n simple neurons at frequency f: phases phi_L = phi_R (a disc) or independent
    (a torus), plus small noise."""
    rng = numpy_rng(seed)
    phi_l = rng.uniform(-np.pi, np.pi, n)
    phi_r = rng.uniform(-np.pi, np.pi, n) if independent else phi_l
    x = simple_neurons(np.full(n, f), phi_l, phi_r) + 0.05 * rng.standard_normal((P, P, n))
    return cluster_cloud(x, np.arange(n))


def test_disc_cluster_is_rank_two_and_matches_the_reference_disc():
    cloud = cluster(independent=False, seed=5)
    var = pca_variance(cloud)
    assert var[:2].sum() >= 0.95
    assert var[2] < 0.01
    disc, torus, circle = (linear_cka(cloud, ref(P, 5)) for ref in (reference_disc, reference_torus,
                                                                    reference_circle))
    assert disc > 0.95
    assert disc > torus + 0.2
    assert circle < 0.05
    assert linear_cka(cloud, reference_disc(P, 6)) < 0.05  # another frequency


def test_torus_cluster_has_four_components_and_matches_the_reference_torus():
    cloud = cluster(independent=True, seed=6)
    var = pca_variance(cloud)
    assert (var[:4] > 0.1).all()
    assert var[:4].sum() > 0.99
    assert var[4] < 0.01
    torus, disc = linear_cka(cloud, reference_torus(P, 5)), linear_cka(cloud, reference_disc(P, 5))
    assert torus > 0.9
    assert torus > disc + 0.2


def test_reference_manifolds():
    p, f = 11, 3
    disc, torus, circle = reference_disc(p, f), reference_torus(p, f), reference_circle(p, f)
    assert disc.shape == (p * p, 2) and torus.shape == (p * p, 4) and circle.shape == (p * p, 2)
    t = 2 * np.pi * f / p
    a, b = 4, 9
    np.testing.assert_allclose(torus[a * p + b], [np.cos(t * a), np.sin(t * a), np.cos(t * b), np.sin(t * b)])
    np.testing.assert_allclose(disc, torus @ np.array([[1, 0], [0, 1], [1, 0], [0, 1]]), atol=1e-12)
    np.testing.assert_allclose(circle[a * p + b], [np.cos(t * (a + b)), np.sin(t * (a + b))])
    np.testing.assert_allclose(pca_variance(torus), [0.25] * 4, atol=1e-12)
    np.testing.assert_allclose(pca_variance(disc), [0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(linear_cka(disc, circle), 0.0, atol=1e-12)


@pytest.mark.parametrize("p, f", [(11, 0), (11, 6), (11, 2.0), (2, 1), (11, True)])
def test_reference_manifolds_reject_bad_arguments(p, f):
    for ref in (reference_disc, reference_torus, reference_circle):
        with pytest.raises(ValueError):
            ref(p, f)


def test_pca_variance_ratios():
    rng = numpy_rng(7)
    x = rng.standard_normal((500, 3)) * [5.0, 2.0, 0.5] + 100.0
    var = pca_variance(x)
    assert var.shape == (3,)
    np.testing.assert_allclose(var.sum(), 1.0)
    assert (np.diff(var) <= 0).all()
    np.testing.assert_allclose(var, np.array([25, 4, 0.25]) / 29.25, rtol=0.15)
    np.testing.assert_allclose(pca_variance(x, k=2), var[:2])


@pytest.mark.parametrize("points, k", [(np.ones((5, 2)), None), (np.zeros((1, 3)), None),
                                       (np.arange(6.0).reshape(3, 2), 3), (np.arange(6.0).reshape(3, 2), 0),
                                       (np.arange(6.0), None), ([[0.0, np.nan], [1.0, 2.0]], None)])
def test_pca_variance_rejects_bad_input(points, k):
    with pytest.raises(ValueError):
        pca_variance(points, k)


def test_linear_cka_invariances():
    rng = numpy_rng(8)
    x = rng.standard_normal((400, 5))
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    np.testing.assert_allclose(linear_cka(x, x @ q), 1.0, atol=1e-12)
    np.testing.assert_allclose(linear_cka(x, 3.7 * x - 2.0), 1.0, atol=1e-12)
    y = rng.standard_normal((400, 3))
    np.testing.assert_allclose(linear_cka(x, y), linear_cka(y, x))
    assert 0 <= linear_cka(x, y) < 0.05
    stretched = x * [10.0, 1.0, 1.0, 1.0, 1.0]  # not an orthogonal transform
    assert linear_cka(x, stretched) < 0.9


@pytest.mark.parametrize("X, Y", [(np.ones((4, 2)), np.arange(8.0).reshape(4, 2)),
                                  (np.arange(8.0).reshape(4, 2), np.arange(6.0).reshape(3, 2)),
                                  (np.arange(4.0), np.arange(4.0)),
                                  (np.array([[0.0], [np.inf]]), np.array([[0.0], [1.0]]))])
def test_linear_cka_rejects_bad_input(X, Y):
    with pytest.raises(ValueError):
        linear_cka(X, Y)


def test_rsm_correlation_is_one_for_a_moved_shape_and_tells_the_disc_from_the_torus():
    rng = numpy_rng(9)
    x = rng.standard_normal((300, 4))
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    np.testing.assert_allclose(rsm_correlation(x, 2.5 * x @ q + 7.0), 1.0, atol=1e-12)
    np.testing.assert_allclose(rsm_correlation(x, x[:, :3]), rsm_correlation(x[:, :3], x))
    disc_cloud, torus_cloud = cluster(independent=False, seed=5), cluster(independent=True, seed=6)
    assert rsm_correlation(disc_cloud, reference_disc(P, 5)) > 0.9
    assert rsm_correlation(torus_cloud, reference_torus(P, 5)) > 0.9
    disc_to_disc = rsm_correlation(disc_cloud, reference_disc(P, 5))
    assert disc_to_disc > rsm_correlation(disc_cloud, reference_torus(P, 5))
    assert rsm_correlation(disc_cloud, reference_circle(P, 5)) < 0.3
    # a subsample of inputs estimates the correlation over all of them
    whole = rsm_correlation(disc_cloud, reference_torus(P, 5), n_inputs=None)
    assert abs(rsm_correlation(disc_cloud, reference_torus(P, 5), n_inputs=500) - whole) < 0.03


@pytest.mark.parametrize("X, Y, n_inputs", [
    (np.ones((4, 2)), np.arange(8.0).reshape(4, 2), None),            # no spread of distances
    (np.arange(8.0).reshape(4, 2), np.arange(6.0).reshape(3, 2), None),  # different inputs
    (np.arange(4.0), np.arange(4.0), None),                           # not 2-D
    (np.arange(8.0).reshape(4, 2), np.arange(8.0).reshape(4, 2), 0),  # no inputs kept
    (np.array([[0.0], [np.nan], [1.0]]), np.ones((3, 1)), None),      # not finite
])
def test_rsm_correlation_rejects_bad_input(X, Y, n_inputs):
    with pytest.raises(ValueError):
        rsm_correlation(X, Y, n_inputs)


# ------------------------------------------------------------------ phase alignment, torus distance


def test_phase_alignment_finds_planted_maxima_and_breaks_ties_row_major():
    x = numpy_rng(9).uniform(-1, 0, (P, P, 3))
    x[4, 17, 0] = 5.0
    x[30, 0, 1] = 2.0
    x[2, 9, 2] = x[1, 20, 2] = x[1, 21, 2] = 3.0
    np.testing.assert_array_equal(phase_alignment(x), [[4, 17], [30, 0], [1, 20]])


def bfs_distance_to_diagonal(p: int) -> np.ndarray:
    """Brute force: multi-source BFS from the diagonal on the 4-neighbour p x p torus."""
    dist = np.full((p, p), -1)
    queue = deque((k, k) for k in range(p))
    for k in range(p):
        dist[k, k] = 0
    while queue:
        a, b = queue.popleft()
        for da, db in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nxt = ((a + da) % p, (b + db) % p)
            if dist[nxt] < 0:
                dist[nxt] = dist[a, b] + 1
                queue.append(nxt)
    return dist


@pytest.mark.parametrize("p", [7, 8])
def test_torus_distance_matches_brute_force_bfs(p):
    pairs = np.array(list(itertools.product(range(p), repeat=2)))
    got = torus_distance(pairs, p)
    np.testing.assert_array_equal(got, bfs_distance_to_diagonal(p)[pairs[:, 0], pairs[:, 1]])
    assert got.max() == p // 2


@pytest.mark.parametrize("pairs, p", [([[0, 7]], 7), ([[-1, 0]], 7), ([[0, 1, 2]], 7), ([0, 1], 7),
                                      ([[0.0, 1.0]], 7), ([[0, 1]], 2)])
def test_torus_distance_and_embedding_reject_bad_input(pairs, p):
    for fn in (torus_distance, torus_embedding):
        with pytest.raises(ValueError):
            fn(pairs, p)


def test_torus_embedding_respects_wrap_around():
    emb = torus_embedding([[0, 0], [P - 1, 0], [P // 2, 0], [3, 5]], P)
    assert emb.shape == (4, 4)
    np.testing.assert_allclose(np.linalg.norm(emb[:, :2], axis=1), 1.0)
    np.testing.assert_allclose(emb[3], [np.cos(6 * np.pi / P), np.sin(6 * np.pi / P),
                                        np.cos(10 * np.pi / P), np.sin(10 * np.pi / P)])
    assert np.linalg.norm(emb[0] - emb[1]) < 0.25 < np.linalg.norm(emb[0] - emb[2])


# ------------------------------------------------------------------ MMD


def test_mmd_matches_the_unbiased_estimator_written_out():
    rng = numpy_rng(10)
    x, y, h = rng.standard_normal((7, 2)), rng.standard_normal((5, 2)) + 0.5, 0.8

    def k(u, v):
        return np.exp(-np.sum((u - v) ** 2) / (2 * h**2))

    xx = sum(k(x[i], x[j]) for i in range(7) for j in range(7) if i != j) / (7 * 6)
    yy = sum(k(y[i], y[j]) for i in range(5) for j in range(5) if i != j) / (5 * 4)
    xy = sum(k(u, v) for u in x for v in y) / (7 * 5)
    observed, _ = mmd_permutation_test(x, y, h, n_permutations=1)
    np.testing.assert_allclose(observed, xx + yy - 2 * xy, rtol=1e-12)


def test_mmd_permutation_test_accepts_one_distribution_and_rejects_a_shift():
    rng = numpy_rng(11)
    x, y = rng.standard_normal((120, 2)), rng.standard_normal((100, 2))
    same, p_same = mmd_permutation_test(x, y, 1.0, n_permutations=500, seed=0)
    assert abs(same) < 0.02
    assert p_same > 0.1
    shifted, p_shift = mmd_permutation_test(x, y + [0.8, 0.0], 1.0, n_permutations=500, seed=0)
    assert shifted > 0.05
    assert p_shift == pytest.approx(1 / 501)
    assert mmd_permutation_test(x, y, 1.0, n_permutations=200, seed=3) == \
        mmd_permutation_test(x, y, 1.0, n_permutations=200, seed=3)


def test_mmd_on_torus_embedded_pad_samples():
    rng = numpy_rng(12)
    uniform = rng.integers(0, P, (150, 2))
    diagonal = rng.integers(0, P, 150)
    aligned = np.stack([diagonal, (diagonal + rng.integers(-1, 2, 150)) % P], axis=1)
    x, y, z = (torus_embedding(s, P) for s in (uniform, rng.integers(0, P, (150, 2)), aligned))
    assert mmd_permutation_test(x, y, 1.0, 300, seed=1)[1] > 0.01  # a null draw: p ~ U(0, 1)
    assert mmd_permutation_test(x, z, 1.0, 300, seed=1)[1] < 0.01


@pytest.mark.parametrize("x, y, bandwidth", [(np.zeros((3, 2)), np.zeros((3, 3)), 1.0),
                                             (np.zeros((1, 2)), np.zeros((3, 2)), 1.0),
                                             (np.zeros(3), np.zeros(3), 1.0),
                                             (np.zeros((3, 2)), np.zeros((3, 2)), 0.0),
                                             (np.zeros((3, 2)), np.zeros((3, 2)), np.inf),
                                             (np.full((3, 2), np.nan), np.zeros((3, 2)), 1.0)])
def test_mmd_rejects_bad_input(x, y, bandwidth):
    with pytest.raises(ValueError):
        mmd_permutation_test(x, y, bandwidth, n_permutations=5)


@pytest.mark.parametrize("kwargs", [{"n_permutations": 0}, {"seed": -1}, {"n_permutations": 2.0}])
def test_mmd_permutation_test_rejects_bad_settings(kwargs):
    with pytest.raises(ValueError):
        mmd_permutation_test(np.zeros((3, 2)), np.ones((3, 2)), 1.0, **kwargs)


# ------------------------------------------------------------------ distance irrelevance, Betti counts


def test_distance_irrelevance_separates_sum_and_difference_tables():
    p = 59
    a, b = (g[..., 0] for g in grid(p))
    rng = numpy_rng(13)
    by_sum, by_diff = rng.standard_normal(p)[(a + b) % p], rng.standard_normal(p)[(a - b) % p]
    np.testing.assert_allclose(distance_irrelevance(by_diff), 0.0, atol=1e-12)
    np.testing.assert_allclose(distance_irrelevance(by_sum), 1.0, atol=1e-12)
    assert 0.9 < distance_irrelevance(rng.standard_normal((p, p))) <= 1.0
    pizza = np.abs(np.cos(np.pi * 7 * (a - b) / p)) + 0.1 * rng.standard_normal((p, p))
    assert distance_irrelevance(pizza) < 0.4


def test_distance_irrelevance_matches_zhongs_sum_by_difference_table():
    p = 23
    table = numpy_rng(14).standard_normal((p, p)) + np.cos(2 * np.pi * np.arange(p) / p)
    oo = np.empty((p, p))
    for a, b in itertools.product(range(p), repeat=2):
        oo[(a + b) % p, (a - b) % p] = table[a, b]
    expected = np.mean(np.std(oo, axis=0)) / np.std(oo)  # Zhong et al.'s released code
    np.testing.assert_allclose(distance_irrelevance(table), expected, rtol=1e-12)


@pytest.mark.parametrize("table", [np.ones((5, 5)), np.zeros((5, 4)), np.zeros((2, 2)) + np.eye(2),
                                   np.arange(5.0), np.full((5, 5), np.nan)])
def test_distance_irrelevance_rejects_bad_input(table):
    with pytest.raises(ValueError):
        distance_irrelevance(table)


def test_betti_vector_counts():
    counts = betti_vector_counts([(1, 0, 0), (1, 2, 1), (1, 0, 0), [1, 1, 0], (1, 2, 1), (1, 0, 0)])
    assert counts == {(1, 0, 0): 3, (1, 2, 1): 2, (1, 1, 0): 1}
    assert list(counts) == [(1, 0, 0), (1, 2, 1), (1, 1, 0)]
    assert list(betti_vector_counts([(1, 2, 1), (1, 0, 0)])) == [(1, 0, 0), (1, 2, 1)]
    assert betti_vector_counts([]) == {}


@pytest.mark.parametrize("bettis", [[(1, -1, 0)], [(1.0, 0, 0)], [()], [((1, 0), (0, 1))]])
def test_betti_vector_counts_rejects_bad_vectors(bettis):
    with pytest.raises(ValueError):
        betti_vector_counts(bettis)


# ------------------------------------------------------------------ bad pre-activations


BAD_PREACTS = [np.zeros((5, 5)), np.zeros((5, 4, 2)), np.zeros((2, 2, 3)), np.zeros((5, 5, 0)),
               np.full((5, 5, 2), np.nan), np.full((5, 5, 2), np.inf), np.full((5, 5, 2), "x")]


@pytest.mark.parametrize("preacts", BAD_PREACTS)
@pytest.mark.parametrize("fn", [dft_power, key_frequencies, phase_alignment,
                                lambda x: simple_neuron_fit(x, [1, 1]), lambda x: cluster_cloud(x, [0])])
def test_preacts_functions_reject_bad_input(fn, preacts):
    with pytest.raises(ValueError):
        fn(preacts)


def _nets(bars: list[float]) -> list[Unit]:
    return [Unit(None, {}, {"h1": np.array([[0.0, b]])}) for b in bars]


# ------------------------------------------------------------------ statistics over networks


def _unit(p: int = 7, **measured) -> Unit:
    return Unit(SimpleNamespace(p=p), {}, {name: np.asarray(v) for name, v in measured.items()})


def test_disc_and_betti_fractions_count_analysed_clusters():
    first = _unit(betti=[(1, 0, 0), (1, 0, 0)], pca=[[0.6, 0.35, 0.05, 0.0], [0.5, 0.3, 0.2, 0.0]],
                  logit_betti=[(1, 1), (1, 0)])
    second = _unit(betti=[(1, 2, 1)], pca=[[0.3, 0.3, 0.2, 0.2]], logit_betti=[(1, 1)])
    assert disc_fraction([first, second]) == pytest.approx(1 / 3)  # the second disc's top-2 share is 0.8
    assert betti_fraction([first, second], (1, 0, 0)) == pytest.approx(2 / 3)
    assert betti_fraction([first, second], (1, 2, 1)) == pytest.approx(1 / 3)
    assert betti_fraction([first, second], (1, 1), key="logit_betti") == pytest.approx(2 / 3)


def test_mean_cka_reads_the_named_reference_column():
    units = [_unit(cka=[[0.9, 0.2, 0.0], [0.7, 0.4, 0.1]]), _unit(cka=[[0.5, 0.6, 0.2]])]
    assert mean_cka(units, "disc") == pytest.approx(0.7)
    assert mean_cka(units, "torus") == pytest.approx(0.4)
    assert mean_cka(units, "circle") == pytest.approx(0.1)
    with pytest.raises(ValueError):
        mean_cka(units, "sphere")


def test_pad_diagonal_share_averages_over_networks():
    on, off = [[2, 2], [5, 5]], [[0, 3], [6, 1]]
    units = [_unit(phase_alignment=on + off), _unit(phase_alignment=on[:1])]
    assert pad_diagonal_share(units) == pytest.approx((0.5 + 1.0) / 2)  # not 3 / 5 pooled


def test_pad_test_tells_diagonal_peaks_from_spread_ones():
    rng = numpy_rng(0)
    diagonal = [_unit(phase_alignment=np.repeat(rng.integers(0, 7, (40, 1)), 2, axis=1)) for _ in range(2)]
    spread = [_unit(phase_alignment=rng.integers(0, 7, (40, 2))) for _ in range(2)]
    stat, p = pad_test(diagonal, spread, n_permutations=200)
    assert stat > 0 and p < 0.01
    _, p_same = pad_test(diagonal[:1], diagonal[1:], n_permutations=200)
    assert p_same > 0.05


def test_distance_test_relabels_whole_networks():
    apart = distance_test({"uniform": _nets([0.10, 0.11, 0.12, 0.13]),
                           "learnable": _nets([0.50, 0.51, 0.52, 0.53])})
    assert apart["labellings"] == 70  # C(8, 4): every labelling of 8 networks into 4 and 4
    assert apart["p"] == pytest.approx(2 / 70)  # ours and its mirror image are the most extreme
    assert apart["smallest_p"] == pytest.approx(2 / 70) and apart["networks"] == 4
    assert apart["within"].size == 12 and apart["across"].size == 16
    assert apart["mean_across"] == pytest.approx(apart["across"].mean())
    assert apart["across"].min() > apart["within"].max()
    alike = distance_test({"uniform": _nets([0.1, 0.5, 0.1, 0.5]), "learnable": _nets([0.5, 0.1, 0.5, 0.1])})
    assert alike["p"] > 0.5
    sampled = distance_test({"uniform": _nets([0.10, 0.11, 0.12, 0.13]),
                             "learnable": _nets([0.50, 0.51, 0.52, 0.53])}, n_permutations=50, seed=3)
    assert sampled["labellings"] == 50 and sampled["p"] < 0.2
    assert sampled["smallest_p"] == pytest.approx(1 / 51)


def test_distance_test_needs_two_networks_of_each_architecture():
    with pytest.raises(ValueError, match="at least 2 networks of uniform and of learnable"):
        distance_test({"uniform": _nets([0.1]), "learnable": _nets([0.2, 0.3])})


# ------------------------------------------------------------------ logits and embeddings


def test_logit_cloud_of_a_clock_is_a_circle_indexed_by_the_sum():
    p, f = 11, 3
    a, b, c = np.meshgrid(np.arange(p), np.arange(p), np.arange(p), indexing="ij")
    logits = np.cos(2 * np.pi * f * (a + b - c) / p)
    cloud = logit_cloud(logits, f)
    radius = np.hypot(cloud[:, 0], cloud[:, 1])
    np.testing.assert_allclose(radius, p / 2, rtol=1e-9)
    angle = np.angle(cloud[:, 0] + 1j * cloud[:, 1])
    s = (np.arange(p * p) // p + np.arange(p * p) % p) % p
    np.testing.assert_allclose(np.exp(1j * angle), np.exp(2j * np.pi * f * s / p), atol=1e-9)


def test_a_pizzas_logits_fill_a_disc_whose_phases_are_a_circle():
    p, f = 11, 3
    a, b, c = np.meshgrid(np.arange(p), np.arange(p), np.arange(p), indexing="ij")
    clock = np.cos(2 * np.pi * f * (a + b - c) / p)
    pizza = np.abs(np.cos(np.pi * f * (a - b) / p)) * clock
    radius = np.linalg.norm(logit_cloud(pizza, f), axis=1)
    assert radius.max() / radius.min() > 5  # a disc, not a circle
    assert logit_pizza_correlation(pizza, f) == pytest.approx(1.0)
    assert logit_pizza_correlation(clock, f) == 0.0  # constant radius
    np.testing.assert_allclose(np.linalg.norm(logit_cloud(pizza, f, unit=True), axis=1), 1.0)
    assert abs(logit_pizza_correlation(clock + 0.01 * np.cos(2 * np.pi * (a - c) / p), f)) < 0.5


def test_embedding_spectrum_finds_a_planted_frequency():
    p = 13
    W = np.outer(np.cos(2 * np.pi * 4 * np.arange(p) / p), np.ones(5))
    spec = embedding_spectrum(W)
    assert spec.shape == (6,) and int(np.argmax(spec)) + 1 == 4


def test_settled_at_is_where_a_curve_stays_near_its_end():
    lengths = (1000, 3000, 10_000, 20_000)
    assert settled_at(lengths, [0.2, 0.5, 0.52, 0.5], 0.05) == 3000
    assert settled_at(lengths, [0.5, 0.2, 0.52, 0.5], 0.05) == 10_000  # left and came back: not settled
    assert settled_at(lengths, [0.5, 0.5, 0.5, 0.5], 0.05) == 1000
    assert settled_at(lengths, [0.0, 0.0, 0.0, 1.0], 0.05) == 20_000
    with pytest.raises(ValueError, match="one value per length"):
        settled_at(lengths, [0.1, 0.2], 0.05)
    with pytest.raises(ValueError, match="tol"):
        settled_at(lengths, [0.1] * 4, 0.0)
    with pytest.raises(ValueError, match="finite"):  # a NaN is never 'off' by any comparison
        settled_at(lengths, [0.5, np.nan, 0.5, 0.5], 0.05)


def test_first_step_at_reads_the_first_logged_step_at_the_level():
    curves = {"steps": np.array([0, 100, 200, 300]), "test_acc": np.array([0.1, 0.99, 1.0, 1.0])}
    assert first_step_at(curves) == 200
    assert first_step_at(curves, level=0.95) == 100
    assert first_step_at({"steps": np.array([0, 100]), "test_acc": np.array([0.1, 0.5])}) is None
    with pytest.raises(ValueError, match="level"):
        first_step_at(curves, level=1.5)


def test_algorithm_is_zhongs_nearest():
    assert algorithm(0.98, 0.2) == "pizza"
    assert algorithm(0.4, 0.8) == "clock"
    assert algorithm(0.99, 0.9) == "clock"  # far from the Pizza's distance irrelevance


def test_network_summary_reads_one_networks_analysis():
    measured = {"gradient_symmetricity": np.array(0.9), "distance_irrelevance": np.array(0.2),
                "betti": np.array([[1, 0, 0], [1, 2, 1]]), "pca": np.array([[0.6, 0.38, 0.01, 0.01],
                                                                         [0.3, 0.3, 0.2, 0.2]]),
                "cka": np.array([[0.9, 0.5, 0.1], [0.4, 0.8, 0.1]]),
                "phase_alignment": np.array([[1, 1], [2, 5], [3, 3], [0, 0]])}
    unit = Unit(SimpleNamespace(p=7), {}, measured)
    disc = network_summary(unit, "disc")
    assert list(disc.values()) == pytest.approx([0.9, 0.2, 0.5, 0.79, 0.65, 0.75])
    assert network_summary(unit, "torus")["manifold share"] == 0.5
    with pytest.raises(ValueError, match="reference"):
        network_summary(unit, "circle")
