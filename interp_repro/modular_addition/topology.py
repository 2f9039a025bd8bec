"""Persistent homology of point clouds: greedy landmarks, Vietoris-Rips persistence diagrams (ripser),
full-cloud Rips diagrams with edge collapse (giotto-ph), alpha-complex diagrams of low-dimensional
clouds (gudhi), Betti numbers by one persistence threshold,
bottleneck distances (persim) (Moisescu-Pareja et al. 2025, persistent homology of neuron clusters and
logit manifolds).

Scale (ours; the paper says to normalise but not how): every diagram is computed on the cloud divided by
its diameter, the largest distance between two of its points. Births and deaths then lie in [0, 1], the
Betti threshold is a fraction of the diameter, and bottleneck distances between clouds of different sizes
are comparable. Multiply by :func:`diameter` to get back the original units.

Cost: the Rips complex of n points has O(n^(k+2)) simplices of dimension k + 1, and ripser reduces the
coboundaries of the k-simplices to get H_k, so H2 takes about n^4 work: a few seconds for 300 points,
far too slow for the 3,481 points of a 59 x 59 input grid. H1 and higher are therefore computed on at most
``n_landmarks`` greedy max-min landmarks, which cover the cloud evenly (ripser's ``n_perm`` does the same
internally; ours is separate so that chapters can reuse and test it). H0 is always exact on every point:
it is single linkage (the minimum spanning tree), O(n^2) time and n(n - 1)/2 float64 of memory (48 MB for
3,481 points), whereas landmark H0 bars would only measure the landmark spacing. For clouds of
dimension <= 4 (or PCA projections to it) :func:`alpha_persistence` is exact on every point and fast.
:func:`full_rips_persistence` checks both on every point: edge collapse shrinks the complex enough for
H2 of 3,481 points in about a minute.
"""

import gudhi
import numpy as np
from gph import ripser_parallel
from ripser import ripser
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import pdist, squareform

from interp_repro.core import check_fraction, check_positive_int, check_real_array, pca_projection

BAR_THRESHOLD = 0.12
"""A bar is a feature if its persistence (death - birth) exceeds this fraction of the diameter (ours).

Measured on 3,481-point samples (noise sd 0 to 6% of the radius, 300 landmarks): noise bars reach 0.095
(flat torus in R^4: H1 bars between the two generators, present at any sampling density); the smallest
real bars are 0.136 (H2 of the R^3 torus with radii 2 and 1), 0.17 (H1 of that torus), 0.12 (H0 of two
unit circles 1 apart, the gap shrunk by noise) and over 0.32 for the circle, the 2-sphere, the flat torus
and a 59 x 59 grid on it. A feature smaller than 12% of the cloud's diameter is missed."""

DEFAULT_LANDMARKS = 300
"""Landmarks for :func:`betti_numbers` (ours): H2 of 300 points takes 2-5 s on one core for a torus and
up to 13 s for a noise-free 2-sphere; with 256 the flat torus's noise bars reach 0.11, with 400 0.084 but
a sphere takes up to 40 s."""

MAX_DIM = 3
"""Largest homology dimension accepted; H3 needs about n^5 work, so keep n_landmarks below ~100 for it."""

MAX_ALPHA_DIM = 4
"""Largest point dimension for :func:`alpha_persistence`: the Delaunay triangulation under the alpha
complex has O(n^ceil(d/2)) simplices (ours: 0.5 M simplices, 1.5 s for 3,481 points in R^4)."""


def _as_cloud(points) -> np.ndarray:
    """``points`` as a float64 (n_points, dim) array after checking it is real and finite with >= 2 points."""
    arr = check_real_array("points", points, 2)
    if arr.shape[0] < 2:
        raise ValueError(f"points must hold at least 2 points, got shape {arr.shape}")
    return arr


def _check_maxdim(maxdim: int) -> int:
    if isinstance(maxdim, bool) or not isinstance(maxdim, int) or not 0 <= maxdim <= MAX_DIM:
        raise ValueError(f"maxdim must be an integer in 0..{MAX_DIM}, got {maxdim!r}")
    return maxdim


def _check_landmarks(n_landmarks: int) -> int:
    check_positive_int("n_landmarks", n_landmarks)
    if n_landmarks < 2:
        raise ValueError(f"n_landmarks must be at least 2, got {n_landmarks!r}")
    return n_landmarks


def diameter(points) -> float:
    """Largest Euclidean distance between two of ``points`` (n_points, dim): the unit of every diagram."""
    return float(pdist(_as_cloud(points)).max())


def landmarks(points, n_landmarks: int, seed: int = 0) -> np.ndarray:
    """Indices of ``n_landmarks`` greedy max-min (farthest point) landmarks of ``points`` (ours).

    The first index is drawn from ``numpy.random.default_rng(seed)``; each next one is the point farthest
    from those chosen so far (ties: the lowest index), so the result is deterministic for a seed and the
    last landmark's distance to the others is the covering radius of the set. O(n * n_landmarks) time,
    O(n) memory.
    """
    X = _as_cloud(points)
    _check_landmarks(n_landmarks)
    if n_landmarks > len(X):
        raise ValueError(f"n_landmarks must be at most the number of points {len(X)}, got {n_landmarks}")
    idx = np.empty(n_landmarks, dtype=np.intp)
    idx[0] = np.random.default_rng(seed).integers(len(X))
    dist = np.linalg.norm(X - X[idx[0]], axis=1)
    for i in range(1, n_landmarks):
        idx[i] = np.argmax(dist)
        np.minimum(dist, np.linalg.norm(X - X[idx[i]], axis=1), out=dist)
    return idx


def persistence(points, maxdim: int = 2, n_landmarks: int | None = None, seed: int = 0) -> list[np.ndarray]:
    """Vietoris-Rips persistence diagrams H0..H_maxdim of ``points`` (n_points, dim) divided by its
    diameter (Moisescu-Pareja et al. 2025, persistent homology with Ripser; scaling and landmarks ours).

    Each diagram is a float64 (n_bars, 2) array of (birth, death) in units of the diameter. H0 is exact on
    every point (single linkage) and holds one infinite bar plus one bar per merge at a positive distance.
    H1..H_maxdim come from ripser (Z/2 coefficients, up to the enclosing radius, after which the complex
    is a cone, so no higher bar is infinite) on :func:`landmarks` when ``n_landmarks`` is given and
    smaller than the number of points, else on every point. Raises ``ValueError`` if all points coincide.
    """
    X = _as_cloud(points)
    _check_maxdim(maxdim)
    if n_landmarks is not None:
        _check_landmarks(n_landmarks)
    dist = pdist(X)
    diam = dist.max()
    if diam == 0:
        raise ValueError("points must not all coincide (the cloud has diameter 0)")
    merges = np.sort(linkage(dist / diam, method="single")[:, 2])
    merges = merges[merges > 0]  # ripser also omits bars of zero length
    h0 = np.vstack([np.column_stack([np.zeros_like(merges), merges]), [[0.0, np.inf]]])
    if maxdim == 0:
        return [h0]
    if n_landmarks is not None and n_landmarks < len(X):
        X = X[landmarks(X, n_landmarks, seed)]
    # a distance matrix, not the points: a cluster may have more neurons (columns) than landmarks
    higher = ripser(squareform(pdist(X)) / diam, maxdim=maxdim, distance_matrix=True)["dgms"][1:]
    return [h0, *(np.asarray(d, dtype=np.float64).reshape(-1, 2) for d in higher)]


def full_rips_persistence(points, maxdim: int = 2, n_threads: int = 1) -> list[np.ndarray]:
    """Vietoris-Rips diagrams H0..H_maxdim on every point of ``points``, on the scale of
    :func:`persistence` (units of the diameter, Z/2 coefficients, up to the enclosing radius): giotto-ph
    (Pérez et al. 2021) with edge collapse (Boissonnat and Pritam 2020), which removes edges that do not
    change the homology before the reduction. The reference that :func:`persistence` on landmarks and
    :func:`alpha_persistence` on a projection are checked against (ours): about a minute for H2 of
    3,481 points of a neuron cluster on one core, where plain Rips would need hours.
    Raises ``ValueError`` if all points coincide."""
    X = _as_cloud(points)
    _check_maxdim(maxdim)
    check_positive_int("n_threads", n_threads)
    dist = squareform(pdist(X))
    diam = dist.max()
    if diam == 0:
        raise ValueError("points must not all coincide (the cloud has diameter 0)")
    dist /= diam
    enclosing = dist.max(axis=1).min()  # beyond it the complex is a cone: no more bars are born
    dgms = ripser_parallel(dist, metric="precomputed", maxdim=maxdim, thresh=enclosing,
                           collapse_edges=True, n_threads=n_threads)["dgms"]
    return [np.asarray(d, dtype=np.float64).reshape(-1, 2) for d in dgms]


def count_bars(dgms: list[np.ndarray], threshold: float = BAR_THRESHOLD) -> tuple[int, ...]:
    """(b0, ..., b_maxdim) from diagrams in units of the diameter: b_k counts the H_k bars whose
    persistence (death - birth) exceeds ``threshold`` (the rule of :func:`betti_numbers`; ours)."""
    check_fraction("threshold", threshold)
    dgms = [np.asarray(d) for d in dgms]
    for k, d in enumerate(dgms):
        if d.ndim != 2 or d.shape[1] != 2:
            raise ValueError(f"a persistence diagram must have shape (n, 2) (birth, death), got shape "
                             f"{d.shape} for H{k}")
    return tuple(int(np.count_nonzero(d[:, 1] - d[:, 0] > threshold)) for d in dgms)


def betti_numbers(points, maxdim: int = 2, n_landmarks: int | None = DEFAULT_LANDMARKS, seed: int = 0,
                  threshold: float = BAR_THRESHOLD) -> tuple[int, ...]:
    """(b0, ..., b_maxdim) of the shape sampled by ``points`` (n_points, dim) (Moisescu-Pareja et al.
    2025: disc (1, 0, 0), circle (1, 1, 0), torus (1, 2, 1); the rule is ours).

    Rule: b_k is the number of bars of :func:`persistence`'s H_k diagram whose persistence (death - birth)
    exceeds ``threshold`` times the cloud's diameter. The same rule covers H0: the infinite bar always
    counts, so b0 is the number of single-linkage clusters at distance ``threshold`` * diameter. The many
    short bars of a regularly spaced grid or of sampling noise fall below it (see ``BAR_THRESHOLD``).
    The sample must be dense enough: noise bars are about as long as the spacing of the points (or of
    the landmarks), which must stay well below the threshold (150 landmarks on a 2-sphere already give
    an H1 noise bar of 0.124; 300 are enough for the test shapes). ``n_landmarks=None`` uses every point
    (feasible for H2 up to a few hundred points).
    """
    check_fraction("threshold", threshold)
    return count_bars(persistence(points, maxdim, n_landmarks, seed), threshold)


def alpha_persistence(points, maxdim: int = 2, n_components: int | None = None) -> list[np.ndarray]:
    """Alpha-complex persistence diagrams H0..H_maxdim of every point of ``points`` (n_points, dim), on
    the scale of :func:`persistence` (ours; an alternative to landmarks for low-dimensional clouds).

    The alpha complex (gudhi) is the Delaunay triangulation filtered by ball radius r; at every r it has
    the homotopy type of the union of balls (the Cech complex), so these are the cloud's Cech diagrams on
    every point, with no subsampling. Births and deaths are reported as 2 r / diameter, the edge length at
    which two balls touch: H0 then equals :func:`persistence`'s (minimum spanning tree edges enter both at
    their length) and :func:`count_bars` with ``BAR_THRESHOLD`` gives the right Betti numbers on our test
    shapes, where real bars are longer than the Rips ones. Applies when ``dim`` <= ``MAX_ALPHA_DIM``, or
    after projecting onto the top ``n_components`` <= ``MAX_ALPHA_DIM`` principal components: exact for
    the projection, and for the cloud when those components hold (nearly) all the variance (e.g. the
    paper's rank-2 disc and rank-4 torus clusters). Cost (3,481 points in R^4): 1.5 s with noise; points
    exactly on a sphere (a noise-free flat torus lies on one) are the Delaunay worst case, 10-25 s.
    Raises ``ValueError`` if the dimension is too high or all points coincide.
    """
    X = _as_cloud(points)
    _check_maxdim(maxdim)
    if n_components is not None:
        check_positive_int("n_components", n_components)
        X = pca_projection(X, n_components)
    if X.shape[1] > MAX_ALPHA_DIM:
        raise ValueError(f"alpha_persistence needs points of dimension <= {MAX_ALPHA_DIM}, got {X.shape[1]}: "
                         f"pass n_components <= {MAX_ALPHA_DIM} to project onto principal components")
    diam = pdist(X).max()
    if diam == 0:
        raise ValueError("points must not all coincide (the cloud has diameter 0)")
    tree = gudhi.AlphaComplex(points=X / diam).create_simplex_tree()  # filtration by r^2
    tree.compute_persistence(homology_coeff_field=2)
    squared = [np.asarray(tree.persistence_intervals_in_dimension(k), dtype=np.float64).reshape(-1, 2)
               for k in range(maxdim + 1)]
    return [2 * np.sqrt(d) for d in squared]


def _as_diagram(dgm, name: str) -> np.ndarray:
    """``dgm`` as a float64 (n_bars, 2) array of finite births and deaths >= births (infinite allowed)."""
    arr = np.asarray(dgm, dtype=np.float64)
    if arr.size == 0:
        return arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must be an (n_bars, 2) array of (birth, death), got shape {arr.shape}")
    if not np.isfinite(arr[:, 0]).all() or not (arr[:, 1] >= arr[:, 0]).all():
        raise ValueError(f"{name} must have finite births and deaths >= births (NaN not allowed)")
    return arr


def bottleneck(dgm_a, dgm_b) -> float:
    """Bottleneck distance between two persistence diagrams with ``persim.bottleneck`` (not in
    Moisescu-Pareja et al. 2025: used to compare the diagrams of networks; infinite bars ours).

    Bars with an infinite death are dropped: in :func:`persistence`'s diagrams only H0 has one, in every
    cloud, so it carries no information. An empty diagram (after dropping) is matched to the diagonal,
    so the distance is half the longest bar of the other; two empty diagrams are at distance 0. persim
    builds an (m + n)^2 cost matrix: milliseconds for landmark H1/H2 diagrams (hundreds of bars), tens of
    seconds for the H0 diagram of thousands of points.
    """
    from persim import bottleneck as persim_bottleneck  # here: importing persim imports pyplot (0.4 s)

    a, b = _as_diagram(dgm_a, "dgm_a"), _as_diagram(dgm_b, "dgm_b")
    return float(persim_bottleneck(a[np.isfinite(a[:, 1])], b[np.isfinite(b[:, 1])]))
