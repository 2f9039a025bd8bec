"""Principal components of a point cloud: the explained-variance shares and the projection that the
modular-addition chapters and the topology of projected clusters use."""

import numpy as np

from interp_repro.core.validate import check_positive_int, check_real_array


def _centred(points) -> np.ndarray:
    x = check_real_array("points", points, 2)
    if x.shape[0] < 2:
        raise ValueError(f"points must hold at least 2 points, got shape {x.shape}")
    return x - x.mean(axis=0)


def pca_variance(points, k: int | None = None) -> np.ndarray:
    """Explained-variance ratios of the centred cloud ``points`` (n_points, dim), descending, from the
    singular values: all min(n_points, dim) of them, or the first ``k``. The ratios are shares of the
    total variance, so the first k sum to at most 1."""
    s2 = np.linalg.svd(_centred(points), compute_uv=False) ** 2
    if s2.sum() == 0:
        raise ValueError("points has zero variance (all points equal): explained variance is undefined")
    if k is None:
        return s2 / s2.sum()
    check_positive_int("k", k)
    if k > s2.size:
        raise ValueError(f"k must be at most min(n_points, dim) = {s2.size}, got {k}")
    return s2[:k] / s2.sum()


def pca_projection(points, k: int) -> np.ndarray:
    """The centred cloud ``points`` (n_points, dim) on its first ``k`` principal components, shape
    (n_points, min(k, n_points, dim))."""
    check_positive_int("k", k)
    centred = _centred(points)
    return centred @ np.linalg.svd(centred, full_matrices=False)[2][:k].T
