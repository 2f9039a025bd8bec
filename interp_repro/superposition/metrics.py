"""Measurements of learned toy-model weights (Elhage et al. 2022).

All functions take W shaped (..., m, n): the paper's m x n matrix (hidden x features), optionally
with leading batch dimensions. Column i, W_i, is the direction that represents feature i.
"""

import numpy as np

FRACTIONS = {"1": 1.0, "3/4": 0.75, "2/3": 2 / 3, "1/2": 0.5, "2/5": 0.4, "3/8": 0.375, "0": 0.0}
"""Per-feature dimensionalities of the uniform polytopes the paper names (§"Geometry")."""

_EPS = 1e-12


def _as_weights(W) -> np.ndarray:
    W = np.asarray(W, dtype=np.float64)
    if W.ndim < 2:
        raise ValueError(f"W must have shape (..., n_hidden, n_features), got shape {W.shape}")
    return W


def feature_norms(W) -> np.ndarray:
    """||W_i|| for every feature i, shape (..., n)."""
    return np.linalg.norm(_as_weights(W), axis=-2)


def represented(W, threshold: float = 0.5) -> np.ndarray:
    """Features whose embedding norm exceeds ``threshold`` (the paper's "represented")."""
    return feature_norms(W) > threshold


def _overlaps(W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Squared overlaps (W_i_hat . W_j)^2 for all pairs, shape (..., n, n), and the norms."""
    norms = np.linalg.norm(W, axis=-2)
    unit = W / np.maximum(norms, _EPS)[..., None, :]
    gram = np.einsum("...ki,...kj->...ij", unit, W)  # row i: W_i_hat . W_j
    return gram**2, norms


def superposition(W) -> np.ndarray:
    """sum_{j != i} (W_i_hat . W_j)^2 for every feature: how much feature i shares its direction
    (§"Demonstrating superposition", the colour of the per-feature bars). 0 for an unlearned one."""
    sq, norms = _overlaps(_as_weights(W))
    off = sq.sum(-1) - np.diagonal(sq, axis1=-2, axis2=-1)
    return np.where(norms > _EPS, off, 0.0)


def feature_dimensionality(W) -> np.ndarray:
    """Per-feature dimensionality D_i = ||W_i||^2 / sum_j (W_i_hat . W_j)^2 (§"Geometry", the sum
    includes j = i), shape (..., n).

    W has shape (..., n_hidden, n_features), as in the paper's m x n. D_i is 1 for a feature with a
    dimension of its own, 1/2 for an antipodal pair, 2/5 for a pentagon, and 0 for an unlearned
    (zero) feature.
    """
    sq, norms = _overlaps(_as_weights(W))
    denom = sq.sum(-1)
    return np.where(norms > _EPS, norms**2 / np.maximum(denom, _EPS), 0.0)


def dimensions_per_feature(W) -> np.ndarray:
    """D* = m / ||W||_F^2 (§"Geometry"): the hidden dimensions spent per embedded feature."""
    W = _as_weights(W)
    return W.shape[-2] / np.maximum((W**2).sum(axis=(-2, -1)), _EPS)


def nearest_fraction_share(D, tol: float = 0.025, min_dim: float = 0.1) -> float:
    """Share of learned features (D_i > ``min_dim``) whose D_i lies within ``tol`` of one of the
    named fractions 1, 3/4, 2/3, 1/2, 2/5, 3/8."""
    D = np.asarray(D, dtype=np.float64).ravel()
    learned = D[D > min_dim]
    if learned.size == 0:
        return 0.0
    targets = np.array([v for v in FRACTIONS.values() if v > 0])
    close = np.abs(learned[:, None] - targets[None, :]).min(axis=1) <= tol
    return float(close.mean())


def chance_fraction_share(tol: float = 0.025, min_dim: float = 0.1) -> float:
    """The share :func:`nearest_fraction_share` would give D_i spread uniformly over (``min_dim``, 1]:
    the total length of the windows of half-width ``tol`` around the named fractions, within that
    range, over its length (our baseline for "clustering")."""
    edges = sorted((max(v - tol, min_dim), min(v + tol, 1.0)) for v in FRACTIONS.values() if v > min_dim)
    covered, reach = 0.0, min_dim
    for lo, hi in edges:
        covered += max(0.0, hi - max(lo, reach))
        reach = max(reach, hi)
    return covered / (1.0 - min_dim)


def plateau_span(x, y, level: float, tol: float) -> tuple[float, float]:
    """The widest run of consecutive points with |y - level| <= tol, as (x_low, x_high), its edges
    interpolated (linearly in log x) to where |y - level| crosses ``tol`` between the run's end
    points and their outside neighbours; a run that reaches the end of the sweep ends there.

    Widest means the largest x_high / x_low. (nan, nan) if no point is within ``tol``. ``x`` must be
    positive and increasing.
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    off = np.abs(y - level) - tol  # <= 0 on the plateau
    logx = np.log(x)

    def edge(inside: int, outside: int) -> float:
        if outside < 0 or outside >= len(x):
            return x[inside]
        t = off[inside] / (off[inside] - off[outside])  # off goes from <= 0 to > 0
        return float(np.exp(logx[inside] + t * (logx[outside] - logx[inside])))

    best, start = (np.nan, np.nan), None
    for i, flag in enumerate(np.append(off <= 0, False)):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            span = (edge(start, start - 1), edge(i - 1, i))
            if np.isnan(best[0]) or span[1] / span[0] > best[1] / best[0]:
                best = span
            start = None
    return best


REGULAR_GAP = 72.0
"""The angular gap (degrees) between neighbouring features of a regular pentagon (§"Intro")."""


def pentagon_error_degrees(W) -> float:
    """For W (2, 5): the largest deviation (degrees) of the angular gaps between the feature
    directions from the regular pentagon's 72."""
    W = _as_weights(W)
    angles = np.sort(np.degrees(np.arctan2(W[1], W[0])) % 360)
    gaps = np.diff(np.append(angles, angles[0] + 360))
    return float(np.abs(gaps - REGULAR_GAP).max())


def neighbour_gap_degrees(W, i: int, threshold: float = 0.5) -> float:
    """For W (2, n): the mean of the two angular gaps (degrees) between feature ``i`` and its nearest
    represented neighbours, one on each side (§"Non-uniform superposition"): :data:`REGULAR_GAP` for
    each feature of a regular pentagon. nan if no other feature is represented."""
    W = _as_weights(W)
    if W.shape[0] != 2:
        raise ValueError(f"angular gaps need 2 hidden dimensions, got W of shape {W.shape}")
    angle = np.degrees(np.arctan2(W[1], W[0]))
    others = np.delete(np.arange(W.shape[1]), i)
    others = others[represented(W[:, others], threshold)]
    if others.size == 0:
        return float("nan")
    ahead = (angle[others] - angle[i]) % 360
    return float((ahead.min() + 360 - ahead.max()) / 2)


def antipodal_share(W, cos_max: float = -0.95, overlap: float = 0.1) -> float:
    """Among represented features that share their direction (:func:`superposition` > ``overlap``),
    the share whose most opposed represented partner has cosine <= ``cos_max``: an antipodal pair
    (§"Demonstrating superposition"). nan if no feature shares its direction."""
    W = _as_weights(W)
    rep = represented(W)
    shared = rep & (superposition(W) > overlap)
    if not shared.any():
        return float("nan")
    unit = W / np.maximum(np.linalg.norm(W, axis=-2), _EPS)
    cos = unit.T @ unit
    return float((cos[np.ix_(shared, rep)].min(axis=1) <= cos_max).mean())


def pair_cosines(W, pairs) -> np.ndarray:
    """cos(W_i, W_j) for each (i, j) in ``pairs``, shape (..., len(pairs))."""
    W = _as_weights(W)
    norms = np.maximum(np.linalg.norm(W, axis=-2), _EPS)
    unit = W / norms[..., None, :]
    return np.stack([np.einsum("...k,...k->...", unit[..., i], unit[..., j]) for i, j in pairs],
                    axis=-1)


def neuron_top_share(W) -> np.ndarray:
    """For each hidden neuron (row of W), the share of its squared weight carried by its largest
    feature: 1 for a monosemantic neuron (§"Privileged basis"). Shape (..., m); nan for a dead row."""
    sq = _as_weights(W) ** 2
    total = sq.sum(-1)
    return np.where(total > _EPS, sq.max(-1) / np.maximum(total, _EPS), np.nan)


def live_top_share(W, live_norm: float = 0.1) -> float:
    """The mean :func:`neuron_top_share` over live neurons (row norm > ``live_norm``): near 1 when
    every neuron reads one feature (monosemantic), lower when neurons are polysemantic."""
    W = _as_weights(W)
    live = np.linalg.norm(W, axis=-1) > live_norm
    return float(neuron_top_share(W)[live].mean()) if live.any() else float("nan")


def neurons_per_feature(W_in, rel: float = 0.2) -> np.ndarray:
    """For a first layer W_in (m, n): per neuron and feature, whether the neuron reads the feature,
    its |weight| above ``rel`` times the layer's largest."""
    mag = np.abs(_as_weights(W_in))
    return mag > rel * mag.max()


def abs_circuit_share(W_in) -> float:
    """The share of features that a first layer W_in (m, n) computes as |x| = ReLU(x) + ReLU(-x)
    (§"Computation in superposition"): read by exactly two neurons, each reading that feature alone,
    with weights of opposite sign."""
    W_in = _as_weights(W_in)
    used = neurons_per_feature(W_in)
    mono = used.sum(axis=1) <= 1  # a neuron that reads at most one feature
    ok = []
    for i in range(W_in.shape[1]):
        idx = np.flatnonzero(used[:, i] & mono)
        ok.append(idx.size == 2 and used[:, i].sum() == 2 and np.sign(W_in[idx, i]).sum() == 0)
    return float(np.mean(ok))
