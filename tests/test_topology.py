"""Landmarks, persistence diagrams, Betti numbers and bottleneck distances
(interp_repro.modular_addition.topology)."""

import numpy as np
import pytest
from ripser import ripser
from scipy.spatial.distance import cdist, pdist

from interp_repro.modular_addition.topology import (
    alpha_persistence,
    betti_numbers,
    bottleneck,
    count_bars,
    diameter,
    full_rips_persistence,
    landmarks,
    persistence,
)

P = 59  # the modular-addition grid: 59 x 59 = 3,481 input pairs


def circle(rng, n: int, noise: float = 0.03, centre: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    t = rng.uniform(0, 2 * np.pi, n)
    return np.c_[np.cos(t), np.sin(t)] + np.asarray(centre) + rng.normal(0, noise, (n, 2))


def two_circles(rng, n: int, noise: float = 0.03) -> np.ndarray:
    """Unit circles with centres 3 apart (a gap of 1)."""
    return np.vstack([circle(rng, n // 2, noise), circle(rng, n - n // 2, noise, (3.0, 0.0))])


def disc(rng, n: int, noise: float = 0.03) -> np.ndarray:
    t, r = rng.uniform(0, 2 * np.pi, n), np.sqrt(rng.uniform(0, 1, n))
    return np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(0, noise, (n, 2))


def sphere(rng, n: int, noise: float = 0.03) -> np.ndarray:
    x = rng.normal(size=(n, 3))
    return x / np.linalg.norm(x, axis=1, keepdims=True) + rng.normal(0, noise, (n, 3))


def flat_torus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(cos a, sin a, cos b, sin b): the paper's rank-4 torus in R^4."""
    return np.c_[np.cos(a), np.sin(a), np.cos(b), np.sin(b)]


def torus_r3(a: np.ndarray, b: np.ndarray, R: float = 2.0, r: float = 1.0) -> np.ndarray:
    return np.c_[(R + r * np.cos(b)) * np.cos(a), (R + r * np.cos(b)) * np.sin(a), r * np.sin(b)]


def random_angles(rng, n: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = rng.uniform(0, 2 * np.pi, (2, n))
    return a, b


def grid_angles(p: int) -> tuple[np.ndarray, np.ndarray]:
    """2 pi a / p and 2 pi b / p over all (a, b) in Z_p^2."""
    a, b = np.meshgrid(np.arange(p), np.arange(p), indexing="ij")
    return 2 * np.pi * a.ravel() / p, 2 * np.pi * b.ravel() / p


def noisy(rng, X: np.ndarray, noise: float = 0.03) -> np.ndarray:
    return X + rng.normal(0, noise, X.shape)


def grid_disc(rng, noise: float = 0.01) -> np.ndarray:
    """The theorem's rank-2 disc (cos ta + cos tb, sin ta + sin tb) on the 59 x 59 grid."""
    a, b = grid_angles(P)
    return noisy(rng, np.c_[np.cos(a) + np.cos(b), np.sin(a) + np.sin(b)], noise)


def sunflower_disc(n: int) -> np.ndarray:
    """n evenly spread points on the unit disc (Vogel's spiral)."""
    i = np.arange(n) + 0.5
    r, theta = np.sqrt(i / n), np.pi * (3 - np.sqrt(5)) * i
    return np.c_[r * np.cos(theta), r * np.sin(theta)]


def covering_radius(X: np.ndarray, idx: np.ndarray) -> float:
    return float(cdist(X, X[idx]).min(axis=1).max())


SHAPES = {  # (cloud, Betti numbers), with the default 300 landmarks
    "circle": (lambda rng: circle(rng, 1500), (1, 1, 0)),
    "disc": (lambda rng: disc(rng, 2000), (1, 0, 0)),
    "sphere": (lambda rng: sphere(rng, 2000), (1, 0, 1)),
    "flat torus in R^4": (lambda rng: noisy(rng, flat_torus(*random_angles(rng, 3000))), (1, 2, 1)),
    "torus in R^3": (lambda rng: noisy(rng, torus_r3(*random_angles(rng, 3000))), (1, 2, 1)),
    "two circles": (lambda rng: two_circles(rng, 1500), (2, 2, 0)),
    "59 x 59 grid disc": (grid_disc, (1, 0, 0)),
}


@pytest.mark.parametrize("name", SHAPES)
def test_betti_numbers_of_noisy_shapes(name):
    make, expected = SHAPES[name]
    assert betti_numbers(make(np.random.default_rng(0))) == expected


def test_betti_numbers_of_the_59_by_59_grid_torus_with_default_landmarks():
    X = noisy(np.random.default_rng(1), flat_torus(*grid_angles(P)), 0.01)
    assert X.shape == (3481, 4)
    betti = betti_numbers(X)
    assert betti == (1, 2, 1)
    assert all(type(b) is int for b in betti)


def test_grid_noise_is_there_and_the_threshold_removes_it():
    X = grid_disc(np.random.default_rng(2))
    assert betti_numbers(X, maxdim=1, threshold=0.005)[1] > 5  # the grid's many short H1 bars
    assert betti_numbers(X, maxdim=1) == (1, 0)


EVEN_SHAPES = {  # (cloud, maxdim, landmarks, Betti numbers): small and evenly spread, so full Rips is exact
    "circle": (lambda rng: circle(rng, 200), 2, 60, (1, 1, 0)),
    "two circles": (lambda rng: two_circles(rng, 300), 2, 100, (2, 2, 0)),
    "disc": (lambda rng: noisy(rng, sunflower_disc(300), 0.01), 2, 120, (1, 0, 0)),
    "flat torus": (lambda rng: noisy(rng, flat_torus(*grid_angles(24)), 0.02), 1, 200, (1, 2)),
}


@pytest.mark.parametrize("name", EVEN_SHAPES)
def test_landmark_betti_numbers_equal_the_full_cloud_ones(name):
    make, maxdim, n_landmarks, expected = EVEN_SHAPES[name]
    X = make(np.random.default_rng(3))
    assert n_landmarks < len(X) / 2
    assert betti_numbers(X, maxdim, n_landmarks=None) == expected
    assert betti_numbers(X, maxdim, n_landmarks=n_landmarks) == expected


@pytest.mark.parametrize("name", EVEN_SHAPES)
def test_full_rips_with_edge_collapse_equals_plain_rips_on_every_point(name):
    make, maxdim, _, expected = EVEN_SHAPES[name]
    X = make(np.random.default_rng(3))
    full, plain = full_rips_persistence(X, maxdim), persistence(X, maxdim)
    assert count_bars(full) == count_bars(plain) == expected
    for got, want in zip(full, plain, strict=True):
        np.testing.assert_allclose(np.sort(got[got[:, 1] - got[:, 0] > 0.05], axis=0),
                                   np.sort(want[want[:, 1] - want[:, 0] > 0.05], axis=0), atol=1e-6)


def test_landmarks_are_greedy_max_min_and_deterministic():
    X = disc(np.random.default_rng(4), 500)
    idx = landmarks(X, 40, seed=7)
    assert idx.shape == (40,) and len(np.unique(idx)) == 40
    assert idx[0] == np.random.default_rng(7).integers(500)
    for i in range(1, 40):  # each landmark is the point farthest from the ones before it
        assert idx[i] == np.argmax(cdist(X, X[idx[:i]]).min(axis=1))
    np.testing.assert_array_equal(landmarks(X, 40, seed=7), idx)
    assert landmarks(X, 40, seed=8)[0] != idx[0]


def test_landmarks_cover_better_than_random_subsamples():
    rng = np.random.default_rng(5)
    X = noisy(rng, flat_torus(*random_angles(rng, 2000)))
    greedy = covering_radius(X, landmarks(X, 100))
    random = [covering_radius(X, rng.choice(2000, 100, replace=False)) for _ in range(5)]
    assert greedy < 0.7 * min(random)


def test_persistence_matches_ripser_on_the_full_cloud_and_is_scale_free():
    X = circle(np.random.default_rng(6), 150, noise=0.1)
    dgms = persistence(X, maxdim=1)
    diam = float(pdist(X).max())
    assert diameter(X) == pytest.approx(diam)
    reference = ripser(X / diam, maxdim=1)["dgms"]
    for ours, theirs in zip(dgms, reference, strict=True):
        np.testing.assert_allclose(ours[np.lexsort(ours.T)], theirs[np.lexsort(theirs.T)], atol=1e-6)
    assert np.isinf(dgms[0][:, 1]).sum() == 1 and np.isfinite(dgms[1]).all()
    moved = persistence(5.0 * X + np.array([3.0, -2.0]), maxdim=1)
    for a, b in zip(dgms, moved, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_persistence_uses_landmarks_only_for_higher_dimensions():
    X = disc(np.random.default_rng(7), 400)
    full, sub = persistence(X, maxdim=1), persistence(X, maxdim=1, n_landmarks=50)
    np.testing.assert_array_equal(full[0], sub[0])  # H0 is exact on every point
    assert len(sub[1]) < len(full[1])
    for a, b in zip(persistence(X, maxdim=1, n_landmarks=400), full, strict=True):
        np.testing.assert_array_equal(a, b)  # as many landmarks as points: the full cloud


def test_bottleneck_distances():
    circles = [persistence(circle(np.random.default_rng(s), 300), maxdim=1) for s in (8, 9)]
    pair = persistence(two_circles(np.random.default_rng(10), 300), maxdim=1)
    assert bottleneck(circles[0][1], circles[0][1]) == 0.0
    same = bottleneck(circles[0][1], circles[1][1])
    different = bottleneck(circles[0][1], pair[1])
    assert same < 0.03
    assert different > 0.2
    assert bottleneck(pair[1], circles[0][1]) == pytest.approx(different)
    assert bottleneck(circles[1][1], circles[0][1]) == pytest.approx(same)


def test_bottleneck_drops_infinite_bars_and_handles_empty_diagrams():
    a = np.array([[0.0, 0.1], [0.0, 0.5], [0.0, np.inf]])
    b = np.array([[0.0, 0.45], [0.0, np.inf]])
    assert bottleneck(a, b) == pytest.approx(0.05)  # 0.5 -> 0.45 and 0.1 to the diagonal
    assert bottleneck(a, b[:1]) == pytest.approx(0.05)
    assert bottleneck(a, np.empty((0, 2))) == pytest.approx(0.25)
    assert bottleneck([], []) == 0.0
    assert bottleneck(np.array([[0.0, np.inf]]), []) == 0.0


def test_count_bars_applies_one_threshold_to_every_dimension():
    dgms = [np.array([[0.0, 0.05], [0.0, 0.3], [0.0, np.inf]]), np.array([[0.1, 0.2], [0.1, 0.5]])]
    assert count_bars(dgms) == (2, 1)  # BAR_THRESHOLD = 0.12
    assert count_bars(dgms, threshold=0.04) == (3, 2)


def test_alpha_persistence_on_the_full_59_by_59_grid_torus():
    X = noisy(np.random.default_rng(11), flat_torus(*grid_angles(P)), 0.01)
    dgms = alpha_persistence(X)
    assert count_bars(dgms) == (1, 2, 1)
    np.testing.assert_allclose(dgms[0], persistence(X, maxdim=0)[0], atol=1e-9)


def test_alpha_persistence_after_pca_equals_the_low_dimensional_cloud():
    rng = np.random.default_rng(12)
    X = sphere(rng, 2000)
    rotation = np.linalg.qr(rng.normal(size=(8, 8)))[0]
    embedded = np.c_[X, np.zeros((2000, 5))] @ rotation + 1.0
    low, high = alpha_persistence(X), alpha_persistence(embedded, n_components=3)
    assert count_bars(low) == (1, 0, 1)
    for a, b in zip(low, high, strict=True):
        np.testing.assert_allclose(a[np.lexsort(a.T)], b[np.lexsort(b.T)], atol=1e-9)
    with pytest.raises(ValueError, match="dimension <= 4"):
        alpha_persistence(embedded)


@pytest.mark.parametrize("points, match", [
    (np.zeros(5), "2-D"),
    (np.zeros((2, 3, 1)), "2-D"),
    (np.array([[0.0, 1.0]]), "at least 2 points"),
    (np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]]), "finite"),
    (np.array([[0.0, 1.0], [np.inf, 0.0], [1.0, 1.0]]), "finite"),
    (np.array([["a", "b"], ["c", "d"]]), "real"),
    (np.ones((4, 2)), "coincide"),
])
def test_bad_points_are_rejected(points, match):
    with pytest.raises(ValueError, match=match):
        betti_numbers(points, n_landmarks=None)


@pytest.mark.parametrize("maxdim", [-1, 4, 1.0, True, "2"])
def test_bad_maxdim_is_rejected(maxdim):
    with pytest.raises(ValueError, match="maxdim"):
        persistence(np.eye(3), maxdim=maxdim)


@pytest.mark.parametrize("n_landmarks", [0, 1, -3, 2.5, "10", True])
def test_bad_n_landmarks_is_rejected(n_landmarks):
    with pytest.raises(ValueError, match="n_landmarks"):
        betti_numbers(np.eye(5), n_landmarks=n_landmarks)
    with pytest.raises(ValueError, match="n_landmarks"):
        landmarks(np.eye(5), n_landmarks)


def test_other_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="at most the number of points 5"):
        landmarks(np.eye(5), 6)
    with pytest.raises(ValueError, match="threshold"):
        betti_numbers(np.eye(5), threshold=0.0)
    with pytest.raises(ValueError, match="dgm_b"):
        bottleneck([[0.0, 1.0]], [[0.0, 1.0, 2.0]])
    with pytest.raises(ValueError, match="dgm_a"):
        bottleneck([[0.5, 0.2]], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="n_components"):
        alpha_persistence(np.eye(5), n_components=0)
    with pytest.raises(ValueError, match="n_threads"):
        full_rips_persistence(np.eye(5), n_threads=0)
    with pytest.raises(ValueError, match="coincide"):
        full_rips_persistence(np.ones((4, 2)))
