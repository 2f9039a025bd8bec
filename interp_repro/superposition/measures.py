"""What Elhage et al. (2022) measure on toy models, and the closed-form losses of the phase change.

Functions on weights take W shaped (..., m, n): the paper's m x n matrix (hidden x features),
optionally with leading batch dimensions. Column i, W_i, is the direction that represents feature i.

§"Superposition as a phase change": for 2 features in 1 dimension the analytic losses of the three
candidate solutions are (s = density, r = relative importance of the extra feature; from the paper's
appendix, after Wattenberg's exact toy models):

- extra feature not learned (the weight-r feature ignored): r (s/3 - s^2/4)
- extra feature learned alone (the weight-1 feature ignored): s/3 - s^2/4
- both in superposition (an antipodal pair):                   (1 + r) s^2 / 6

The phase is the one with the lowest loss.

For 3 features in 2 dimensions (two of importance 1, the extra one of importance r, all of density
s) the same candidates apply, each with the third feature alone in the other dimension, plus one
more: the two weight-1 features as an antipodal pair, the extra feature alone, 2 s^2 / 6 (our
derivation; the paper shows the 3 -> 2 diagram from training only). A symmetric triangle of unit
vectors loses 3 s^2 / 8 to interference, to leading order in s, more than the s^2 / 3 of a pair and a
lone feature at r = 1, so it is not among the candidates.

NaN or infinity in a measure's input is a ``ValueError``, never a number: every measure here that
reduces to a claim's number (a max, a share, a count, a comparison) refuses it.
"""

import numpy as np

from interp_repro.core import check_finite, check_positive_int
from interp_repro.core.validate import check_real_array, mean_of

FRACTIONS = {"1": 1.0, "3/4": 0.75, "2/3": 2 / 3, "1/2": 0.5, "2/5": 0.4, "3/8": 0.375, "0": 0.0}
"""Per-feature dimensionalities of the uniform polytopes the paper names (§"Geometry")."""

REGULAR_GAP = 72.0
"""The angular gap (degrees) between neighbouring features of a regular pentagon (§"Intro")."""

PLATEAU_TOL = 0.05
"""D* counts as on a plateau when within this of its level (ours)."""

PHASES = ("not learned", "superposition", "learned alone")
"""Phase labels 0, 1, 2 of the extra (last) feature."""

_EPS = 1e-12


def _as_weights(W) -> np.ndarray:
    W = check_finite("W", W)
    if W.ndim < 2 or W.size == 0:
        raise ValueError(f"W must have a non-empty shape (..., n_hidden, n_features), got shape {W.shape}")
    return W


# --- features and their directions ----------------------------------------------------------------

def feature_variance(density) -> np.ndarray:
    """Var(x_i) = s/3 - s^2/4 of a feature of density s, uniform on [0, 1] when present: the loss of
    predicting it by its mean (§"Superposition as a phase change", the ignored feature's loss)."""
    s = check_finite("density", density)
    return s / 3 - s**2 / 4


def feature_norms(W) -> np.ndarray:
    """||W_i|| for every feature i, shape (..., n)."""
    return np.linalg.norm(_as_weights(W), axis=-2)


def represented(W, threshold: float = 0.5) -> np.ndarray:
    """Features whose embedding norm exceeds ``threshold`` (the paper's "represented")."""
    return feature_norms(W) > threshold


def keeps_top(W, k: int) -> np.ndarray:
    """Whether the represented features are exactly the first ``k`` (the most important), shape (...):
    what a linear model does at every sparsity (§"Demonstrating superposition", Figure 2)."""
    return (represented(W) == (np.arange(np.shape(W)[-1]) < k)).all(-1)


def squared_frobenius(W) -> float:
    """||W||_F^2 in W's own precision: about m for a dense model that keeps m features with a
    dimension each (§"Demonstrating superposition")."""
    W = np.asarray(W)
    _as_weights(W)
    return float((W ** 2).sum())


def gram(W) -> np.ndarray:
    """W^T W, shape (..., n, n): the feature-by-feature overlaps of Figure 2."""
    W = _as_weights(W)
    return np.swapaxes(W, -1, -2) @ W


def _overlaps(W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Squared overlaps (W_i_hat . W_j)^2 for all pairs, shape (..., n, n), and the norms."""
    norms = np.linalg.norm(W, axis=-2)
    unit = W / np.maximum(norms, _EPS)[..., None, :]
    overlaps = np.einsum("...ki,...kj->...ij", unit, W)  # row i: W_i_hat . W_j
    return overlaps**2, norms


def superposition(W) -> np.ndarray:
    """sum_{j != i} (W_i_hat . W_j)^2 for every feature: how much feature i shares its direction
    (§"Demonstrating superposition", the colour of the per-feature bars). 0 for an unlearned one."""
    sq, norms = _overlaps(_as_weights(W))
    off = sq.sum(-1) - np.diagonal(sq, axis1=-2, axis2=-1)
    return np.where(norms > _EPS, off, 0.0)


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


def mean_pair_cosine(W) -> float:
    """For W (m, n): the mean cosine between features 2j and 2j + 1, the pairs of §"Correlated and
    anticorrelated features": near 0 for orthogonal pairs, near -1 for antipodal ones."""
    pairs = [(2 * j, 2 * j + 1) for j in range(np.shape(W)[-1] // 2)]
    return float(pair_cosines(W, pairs).mean())


# --- pentagons --------------------------------------------------------------------------------------

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


# --- the geometry of superposition --------------------------------------------------------------------

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
    named fractions 1, 3/4, 2/3, 1/2, 2/5, 3/8; ``ValueError`` where no feature is learned (no share
    to take)."""
    D = check_real_array("D", D).ravel()
    learned = D[D > min_dim]
    if learned.size == 0:
        raise ValueError(f"no learned feature (D_i > {min_dim}) among {D.size}: no share to take")
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


def packed_dims(density, dstar, dims) -> np.ndarray:
    """The D_i (``dims``, one row per model) of a density sweep's packed models: features sparse
    enough to share (1/(1-S) >= 2) and D* >= 3/8, the smallest named fraction, so that every
    fraction is reachable."""
    density, dstar = check_finite("density", density), check_finite("dstar", dstar)
    packed = (1 / density >= 2) & (dstar >= FRACTIONS["3/8"])
    return check_finite("dims", dims)[packed].ravel()


def clustering_over_chance(dims) -> float:
    """How many times more of the ``dims`` lie near a named fraction than a uniform spread would
    put there (:func:`nearest_fraction_share` over :func:`chance_fraction_share`; §"Geometry": the
    D_i cluster at the polytopes' fractions). ``ValueError`` for no dims: nothing to cluster."""
    return nearest_fraction_share(dims) / chance_fraction_share()


def median_dims_per_hidden(density, dims, n_hidden: int) -> float:
    """The median over a sweep's models with 1/(1-S) >= 2 of sum_i D_i / m (§"Geometry": near 1 when
    the features are packed efficiently)."""
    sparse = 1 / check_finite("density", density) >= 2
    return float(np.median(check_real_array("dims of the models with 1/(1-S) >= 2",
                                            check_finite("dims", dims)[sparse].sum(-1) / n_hidden)))


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


def plateau_ratio(density, dstar, level: float, tol: float = PLATEAU_TOL) -> float:
    """The width, as a factor in 1/(1-S), of the widest plateau of D* at ``level`` (§"Geometry": D*
    sticks at 1 and at 1/2): x_high / x_low of :func:`plateau_span`; 0 if D* never comes within
    ``tol`` of ``level``."""
    lo, hi = plateau_span(1 / check_real_array("density", density, 1), check_real_array("dstar", dstar, 1),
                          level, tol)
    return 0.0 if np.isnan(lo) else float(hi / lo)


# --- privileged basis and computation in superposition ------------------------------------------------

def settled_levels(trajectory, window: int = 5, tol: float = 0.02) -> list[float]:
    """The levels a feature's D_i settles at during training, in order (§"Learning dynamics": D_i
    moves between discrete "energy levels"): the median of each maximal run of snapshots over which
    every ``window`` consecutive values lie within ``tol`` of one another."""
    x = check_finite("trajectory", trajectory)
    if x.ndim != 1:
        raise ValueError(f"trajectory must be one feature's values over training, got shape {x.shape}")
    window = check_positive_int("window", window)
    flat = [np.ptp(x[k:k + window]) <= tol for k in range(x.size - window + 1)]
    levels, k = [], 0
    while k < len(flat):
        if not flat[k]:
            k += 1
            continue
        end = k
        while end + 1 < len(flat) and flat[end + 1]:
            end += 1
        levels.append(float(np.median(x[k:end + window])))
        k = end + 1
    return levels


def jump_flags(dims, min_dim: float = 0.1, jump: float = 0.05, **settle) -> list[bool]:
    """For each feature learned at the end of training (D_i > ``min_dim`` at the last snapshot of
    ``dims``, snapshots x features): does its D_i jump between two settled levels
    (:func:`settled_levels`, ``settle`` its keywords) that differ by more than ``jump``?"""
    dims = check_finite("dims", dims)
    if dims.ndim != 2:
        raise ValueError(f"dims must be snapshots x features, got shape {dims.shape}")
    flags = []
    for i in np.flatnonzero(dims[-1] > min_dim):
        levels = settled_levels(dims[:, i], **settle)
        flags.append(any(abs(a - b) > jump for a, b in zip(levels[:-1], levels[1:], strict=True)))
    return flags


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


# --- superposition as a phase change ------------------------------------------------------------------

def analytic_losses_2_1(density, relative_importance) -> np.ndarray:
    """The three candidate losses for 2 features in 1 dimension, stacked in :data:`PHASES` order."""
    s = check_finite("density", density)
    r = check_finite("relative_importance", relative_importance)
    ignore = feature_variance(s)
    return np.stack(np.broadcast_arrays(r * ignore, (1 + r) * s**2 / 6, ignore))


def analytic_phase_2_1(density, relative_importance) -> np.ndarray:
    """The phase label (0, 1 or 2) with the lowest analytic loss at each (density, importance)."""
    return np.argmin(analytic_losses_2_1(density, relative_importance), axis=0)


def analytic_losses_3_2(density, relative_importance) -> np.ndarray:
    """The candidate losses for 3 features in 2 dimensions, stacked in :data:`PHASES` order; the
    extra feature is learned alone either by dropping a weight-1 feature or by pairing the two."""
    s = check_finite("density", density)
    not_learned, superposed, alone = analytic_losses_2_1(s, relative_importance)
    return np.stack([not_learned, superposed, np.minimum(alone, s**2 / 3)])


def analytic_phase_3_2(density, relative_importance) -> np.ndarray:
    """The phase label (0, 1 or 2) with the lowest of :func:`analytic_losses_3_2`."""
    return np.argmin(analytic_losses_3_2(density, relative_importance), axis=0)


def analytic_phase(n_features: int):
    """The analytic phase function of the 2 -> 1 or the 3 -> 2 problem."""
    phases = {2: analytic_phase_2_1, 3: analytic_phase_3_2}
    if n_features not in phases:
        raise ValueError(f"analytic phases are derived for 2 or 3 features, got {n_features}")
    return phases[n_features]


def superposition_density_bound(relative_importance: float = 1.0) -> float:
    """The density below which superposition beats both single-feature solutions (2 -> 1).

    At r = 1 it is 4/7: (1 + r) s^2 / 6 < s/3 - s^2/4 exactly when s < 4/7.
    """
    grid = np.linspace(1e-6, 1.0, 200_001)
    phase = analytic_phase_2_1(grid, relative_importance)
    sup = grid[phase == 1]
    return float(sup.max()) if sup.size else 0.0


def empirical_phase(W, norm_threshold: float = 0.5, overlap_threshold: float = 0.1) -> np.ndarray:
    """Classify the last feature of trained W (..., m, n) into :data:`PHASES`.

    Not learned: ||W_extra|| <= ``norm_threshold``. Superposition: it is learned and shares its
    direction with other features (sum_j (W_extra_hat . W_j)^2 > ``overlap_threshold``). Learned
    alone: learned with a direction of its own.
    """
    norms = feature_norms(W)[..., -1]
    shared = superposition(W)[..., -1]
    return np.where(norms <= norm_threshold, 0, np.where(shared > overlap_threshold, 1, 2))


def agreement_flags(phase, density, importance, n_features: int) -> list[bool]:
    """Per cell of a (density, importance) grid, whether its trained ``phase`` is the analytic one
    of the 2 -> 1 or 3 -> 2 problem (:func:`analytic_phase`)."""
    s, r = np.meshgrid(check_finite("density", density), check_finite("importance", importance),
                       indexing="ij")
    return [bool(a) for a in (check_finite("phase", phase) == analytic_phase(n_features)(s, r)).ravel()]


def analytic_agreement(phase, density, importance, n_features: int) -> float:
    """The share of a grid's cells whose trained phase is the analytic one (:func:`agreement_flags`)."""
    return mean_of("analytic_agreement", agreement_flags(phase, density, importance, n_features))


def superposition_flags_above_bound(phase, density) -> list[bool]:
    """Per cell of a 2 -> 1 grid above the density bound (4/7, the tip of the analytic superposition
    wedge at r = 1), whether its trained ``phase`` is superposition: none in theory."""
    above = check_finite("density", density) > superposition_density_bound(1.0)
    return [bool(a) for a in (check_finite("phase", phase)[above] == 1).ravel()]


def superposition_share_above_bound(phase, density) -> float:
    """The share of those cells in superposition (:func:`superposition_flags_above_bound`)."""
    return mean_of("superposition_share_above_bound", superposition_flags_above_bound(phase, density))


def superposition_above_bound(phase, loss, density, importance) -> list[dict[str, float]]:
    """The 2 -> 1 cells above the density bound that trained into superposition, each with its
    trained ``loss`` beside the lowest of the three analytic candidate losses."""
    phase, loss = check_finite("phase", phase), check_finite("loss", loss)
    density, importance = check_finite("density", density), check_finite("importance", importance)
    rows = []
    bound = superposition_density_bound(1.0)
    for i, j in np.argwhere((phase == 1) & (density[:, None] > bound)):
        s, r = density[i], importance[j]
        rows.append({"density": float(s), "r": float(r), "trained loss": float(loss[i, j]),
                     "best analytic loss": float(analytic_losses_2_1(s, r).min())})
    return rows


def intermediate_norm_share(W, low: float = 0.2, high: float = 0.8) -> float:
    """The share of trained models whose extra (last) feature has a norm strictly between ``low`` and
    ``high``. A first-order transition (§"Superposition as a phase change") jumps the norm between
    0 (not learned) and 1 (learned) across the boundary, so few cells sit in between."""
    norms = feature_norms(W)[..., -1]
    return float(((norms > low) & (norms < high)).mean())
