"""Phase changes: does an extra feature get no dimension, a shared one, or one of its own?

§"Superposition as a phase change" of Elhage et al. (2022). For 2 features in 1 dimension the
analytic losses of the three candidate solutions are (s = density, r = relative importance of the
extra feature; from the paper's appendix, after Wattenberg's exact toy models):

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
"""

import numpy as np

from interp_repro.superposition.metrics import feature_norms, superposition

PHASES = ("not learned", "superposition", "learned alone")
"""Phase labels 0, 1, 2 of the extra (last) feature."""


def analytic_losses_2_1(density, relative_importance) -> np.ndarray:
    """The three candidate losses for 2 features in 1 dimension, stacked in :data:`PHASES` order."""
    s = np.asarray(density, dtype=np.float64)
    r = np.asarray(relative_importance, dtype=np.float64)
    ignore = s / 3 - s**2 / 4
    return np.stack(np.broadcast_arrays(r * ignore, (1 + r) * s**2 / 6, ignore))


def analytic_phase_2_1(density, relative_importance) -> np.ndarray:
    """The phase label (0, 1 or 2) with the lowest analytic loss at each (density, importance)."""
    return np.argmin(analytic_losses_2_1(density, relative_importance), axis=0)


def analytic_losses_3_2(density, relative_importance) -> np.ndarray:
    """The candidate losses for 3 features in 2 dimensions, stacked in :data:`PHASES` order; the
    extra feature is learned alone either by dropping a weight-1 feature or by pairing the two."""
    s = np.asarray(density, dtype=np.float64)
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


def intermediate_norm_share(W, low: float = 0.2, high: float = 0.8) -> float:
    """The share of trained models whose extra (last) feature has a norm strictly between ``low`` and
    ``high``. A first-order transition (§"Superposition as a phase change") jumps the norm between
    0 (not learned) and 1 (learned) across the boundary, so few cells sit in between."""
    norms = feature_norms(W)[..., -1]
    return float(((norms > low) & (norms < high)).mean())


def empirical_phase(W, norm_threshold: float = 0.5, overlap_threshold: float = 0.1) -> np.ndarray:
    """Classify the last feature of trained W (..., m, n) into :data:`PHASES`.

    Not learned: ||W_extra|| <= ``norm_threshold``. Superposition: it is learned and shares its
    direction with other features (sum_j (W_extra_hat . W_j)^2 > ``overlap_threshold``). Learned
    alone: learned with a direction of its own.
    """
    norms = feature_norms(W)[..., -1]
    shared = superposition(W)[..., -1]
    return np.where(norms <= norm_threshold, 0, np.where(shared > overlap_threshold, 1, 2))
